/* _gpuvet.c: the C side of the Python package gpuvet (python/gpuvet/__init__.py wraps it;
 * docs/PYTHON.md). Two types over the project's public headers, nothing of its own rules:
 *
 *   Drop7    n Drop7 games stepped side by side with the fast game of drop7/drop7_game.h,
 *            observed through its encoder (drop7_game_encode: the network's 12 planes) and
 *            legal mask; game k of slot i plays seed base + i + k * n, so that the games of
 *            one reset are the games `gpuvet bench drop7 --seed base` plays.
 *   Console  n instances of one ROM through the batch runner (emu/common/emu_batch.h), each
 *            with its own buttons; frames copied out as RGB or grey, hashes as `gpuvet run`.
 *
 * The Python side allocates every array (NumPy) and passes it as a writable buffer; this
 * file checks sizes, releases the GIL around the work and holds the object's mutex during
 * it, so that one environment is safe to use from several threads. Errors of the library
 * come back as the exception classes of gv_status (GpuvetError and its subclasses) with the
 * library's one-line message, the message the CLI prints after "gpuvet <command>: ". */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <omp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "core/hash.h"
#include "dev/dev.h"
#include "drop7/drop7.h"
#include "drop7/drop7_env.h"
#include "drop7/drop7_game.h"
#include "emu/common/demo_roms.h"
#include "emu/common/emu_batch.h"
#include "emu/common/frame_reduce.h"
#include "emu/emu_run.h"
#include "emu/registry.h"

static PyObject *Err, *ErrInput, *ErrEnv, *ErrWrong, *ErrInternal;

/* Raises the exception of status st with the library's message; returns NULL. */
static PyObject *raise_gv(gv_status st, const gv_err *e)
{
    PyObject *cls = st == GV_ERR_INPUT ? ErrInput : st == GV_ERR_ENV ? ErrEnv : st == GV_ERR_WRONG ? ErrWrong : ErrInternal;
    PyErr_SetString(cls, e->msg);
    return NULL;
}

/* A buffer of exactly `want` bytes, or a ValueError naming what. */
static int check_len(const Py_buffer *b, size_t want, const char *what)
{
    if ((size_t)b->len == want)
        return 0;
    PyErr_Format(ErrInput, "%s: %zd bytes, expected %zu", what, b->len, want);
    return -1;
}

/* The type object of T, whose functions are T_init, T_dealloc and T_methods. */
#define PY_TYPE(T, doc)                                                                                  \
    {                                                                                                    \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gpuvet._gpuvet." #T, .tp_basicsize = sizeof(T),        \
        .tp_flags = Py_TPFLAGS_DEFAULT, .tp_doc = doc, .tp_new = PyType_GenericNew,                      \
        .tp_init = (initproc)T##_init, .tp_dealloc = (destructor)T##_dealloc, .tp_methods = T##_methods, \
    }

/* Batches of fewer games than this are stepped on one thread: a step of a game takes well under
 * a microsecond, and a parallel region's barrier costs more than that on a busy machine. */
#define D7_PAR_MIN 2048

static int threads_of(int t)
{
    return t > 0 ? t : omp_get_max_threads();
}

/* ============================== DLPack ================================================ */

/* The DLPack ABI (the DLPack project's dlpack.h, the unversioned "dltensor" capsule that every
 * consumer reads: torch.from_dlpack, numpy.from_dlpack, CuPy, JAX): */
typedef struct {
    int32_t device_type; /* kDLCPU 1, kDLCUDA 2 */
    int32_t device_id;
} DLDevice;
typedef struct {
    uint8_t code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBool 6 */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* NULL: C order */
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum { DL_CPU = 1, DL_CUDA = 2 };
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BOOL = 6 };
#define ARRAY_MAXD 5

/* gpuvet.Array: memory of the host (kDLCPU) or of a GPU (kDLCUDA) that an owner keeps alive
 * (an environment or a NumPy array), shared through DLPack without a copy. */
typedef struct {
    PyObject_HEAD
    void *data;
    int dev_type, dev_id;
    DLDataType dtype;
    int ndim;
    int64_t shape[ARRAY_MAXD];
    PyObject *owner;
} Array;

static PyTypeObject ArrayType;

/* A new Array over data (C order) that holds a reference to owner. */
static PyObject *array_new(void *data, int dev_type, int dev_id, uint8_t code, uint8_t bits, int ndim,
                           const int64_t *shape, PyObject *owner)
{
    Array *a = PyObject_New(Array, &ArrayType);
    if (!a)
        return NULL;
    a->data = data;
    a->dev_type = dev_type;
    a->dev_id = dev_id;
    a->dtype = (DLDataType){code, bits, 1};
    a->ndim = ndim;
    for (int k = 0; k < ARRAY_MAXD; k++)
        a->shape[k] = k < ndim ? shape[k] : 0;
    a->owner = Py_NewRef(owner);
    return (PyObject *)a;
}

static void Array_dealloc(Array *a)
{
    Py_XDECREF(a->owner);
    PyObject_Free(a);
}

static size_t array_bytes(const Array *a)
{
    size_t n = a->dtype.bits / 8u;
    for (int k = 0; k < a->ndim; k++)
        n *= (size_t)a->shape[k];
    return n;
}

/* The NumPy name of a DLPack type, or NULL. */
static const char *dtype_name(DLDataType t)
{
    static const char *const ints[] = {"int8", "int16", "int32", "int64"}, *const uints[] = {"uint8", "uint16", "uint32", "uint64"};
    int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
    if (t.lanes != 1 || k < 0)
        return NULL;
    if (t.code == DL_INT)
        return ints[k];
    if (t.code == DL_UINT)
        return uints[k];
    if (t.code == DL_FLOAT)
        return k == 2 ? "float32" : k == 3 ? "float64" : k == 1 ? "float16" : NULL;
    if (t.code == DL_BOOL && k == 0)
        return "bool";
    return NULL;
}

/* What a capsule's DLManagedTensor carries beside the tensor: its shape and the owner it keeps. */
typedef struct {
    DLManagedTensor mt;
    int64_t shape[ARRAY_MAXD];
    PyObject *owner;
} managed;

/* The deleter: lets the owner go (the consumer may call it from any thread). */
static void managed_delete(DLManagedTensor *mt)
{
    managed *m = mt->manager_ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(m->owner);
    PyGILState_Release(g);
    free(m);
}

/* A capsule no consumer took ("dltensor" still): its tensor is deleted with it. */
static void capsule_free(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *mt = PyCapsule_GetPointer(cap, "dltensor");
        if (mt && mt->deleter)
            mt->deleter(mt);
    }
}

/* __dlpack__(stream=None, max_version=None, dl_device=None, copy=None): a "dltensor" capsule
 * of the memory, no copy. The memory is complete when the method is called (the environments
 * return after the device is done), so no stream has to wait. */
static PyObject *Array_dlpack(Array *a, PyObject *args, PyObject *kw)
{
    static char *kws[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *maxv = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kws, &stream, &maxv, &dl_device, &copy))
        return NULL;
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "gpuvet.Array.__dlpack__: copy=True: the array is shared, never copied");
        return NULL;
    }
    if (dl_device != Py_None) {
        int t, id;
        if (!PyArg_ParseTuple(dl_device, "ii", &t, &id))
            return NULL;
        if (t != a->dev_type || id != a->dev_id) {
            PyErr_Format(PyExc_BufferError, "gpuvet.Array.__dlpack__: dl_device (%d, %d): the array is on (%d, %d)", t,
                         id, a->dev_type, a->dev_id);
            return NULL;
        }
    }
    managed *m = calloc(1, sizeof *m);
    if (!m)
        return PyErr_NoMemory();
    for (int k = 0; k < a->ndim; k++)
        m->shape[k] = a->shape[k];
    m->owner = Py_NewRef(a->owner);
    m->mt.dl_tensor = (DLTensor){a->data, {a->dev_type, a->dev_id}, a->ndim, a->dtype, m->shape, NULL, 0};
    m->mt.manager_ctx = m;
    m->mt.deleter = managed_delete;
    PyObject *cap = PyCapsule_New(&m->mt, "dltensor", capsule_free);
    if (!cap)
        managed_delete(&m->mt);
    return cap;
}

static PyObject *Array_dlpack_device(Array *a, PyObject *unused)
{
    return Py_BuildValue("(ii)", a->dev_type, a->dev_id);
}

/* numpy() -> a NumPy copy on the host. */
static PyObject *Array_numpy(Array *a, PyObject *unused)
{
    const char *dt = dtype_name(a->dtype);
    PyObject *np = PyImport_ImportModule("numpy"), *shape = PyTuple_New(a->ndim), *out = NULL;
    if (!np || !shape || !dt)
        goto done;
    for (int k = 0; k < a->ndim; k++)
        PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(a->shape[k]));
    out = PyObject_CallMethod(np, "empty", "(Os)", shape, dt);
    Py_buffer b;
    if (!out || PyObject_GetBuffer(out, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_CLEAR(out);
        goto done;
    }
    size_t bytes = array_bytes(a);
    gv_err e = {{0}};
    gv_status st = GV_OK;
    if (a->dev_type == DL_CPU) {
        memcpy(b.buf, a->data, bytes);
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = dev_gpu_download(a->dev_id, b.buf, a->data, bytes, &e);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&b);
    if (st != GV_OK) {
        Py_CLEAR(out);
        raise_gv(st, &e);
    }
done:
    Py_XDECREF(np);
    Py_XDECREF(shape);
    return out;
}

/* as_uint8() -> the same memory as uint8 (a bool array for consumers without DLPack's bool). */
static PyObject *Array_as_uint8(Array *a, PyObject *unused)
{
    if (a->dtype.bits != 8) {
        PyErr_SetString(ErrInput, "gpuvet.Array.as_uint8: the array's elements are not one byte");
        return NULL;
    }
    return array_new(a->data, a->dev_type, a->dev_id, DL_UINT, 8, a->ndim, a->shape, a->owner);
}

static PyObject *Array_get_shape(Array *a, void *unused)
{
    PyObject *t = PyTuple_New(a->ndim);
    for (int k = 0; t && k < a->ndim; k++)
        PyTuple_SET_ITEM(t, k, PyLong_FromLongLong(a->shape[k]));
    return t;
}

static PyObject *Array_get_dtype(Array *a, void *unused)
{
    const char *d = dtype_name(a->dtype);
    return PyUnicode_FromString(d ? d : "?");
}

static PyObject *Array_get_device(Array *a, void *unused)
{
    return a->dev_type == DL_CPU ? PyUnicode_FromString("cpu") : PyUnicode_FromFormat("cuda:%d", a->dev_id);
}

static PyObject *Array_get_ptr(Array *a, void *unused)
{
    return PyLong_FromVoidPtr(a->data);
}

static PyObject *Array_repr(Array *a)
{
    PyObject *shape = Array_get_shape(a, NULL);
    const char *d = dtype_name(a->dtype);
    PyObject *r = PyUnicode_FromFormat("gpuvet.Array(shape=%R, dtype=%s, device=%s)", shape, d ? d : "?",
                                       a->dev_type == DL_CPU ? "cpu" : "cuda");
    Py_XDECREF(shape);
    return r;
}

static PyMethodDef Array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))Array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None) -> a DLPack capsule (no copy)"},
    {"__dlpack_device__", (PyCFunction)Array_dlpack_device, METH_NOARGS, "(device type, device id): 1 CPU, 2 CUDA"},
    {"numpy", (PyCFunction)Array_numpy, METH_NOARGS, "a NumPy copy on the host"},
    {"as_uint8", (PyCFunction)Array_as_uint8, METH_NOARGS, "the same memory as uint8 (for bool arrays)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Array_getset[] = {
    {"shape", (getter)Array_get_shape, NULL, "the shape (C order)", NULL},
    {"dtype", (getter)Array_get_dtype, NULL, "the NumPy name of the element type", NULL},
    {"device", (getter)Array_get_device, NULL, "'cpu' or 'cuda:N'", NULL},
    {"ptr", (getter)Array_get_ptr, NULL, "the address of the first element (device memory on a GPU)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gpuvet.Array",
    .tp_basicsize = sizeof(Array),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory of the host or a GPU shared through DLPack (torch.from_dlpack(a), numpy.from_dlpack(a))",
    .tp_dealloc = (destructor)Array_dealloc,
    .tp_methods = Array_methods,
    .tp_getset = Array_getset,
    .tp_repr = (reprfunc)Array_repr,
};

/* wrap(ndarray, code) -> Array: a C-contiguous host array (kDLCPU) without a copy, keeping it
 * alive; code is its DLPack type code (the bits are its item size). */
static PyObject *py_wrap(PyObject *self, PyObject *args)
{
    PyObject *obj;
    int code;
    if (!PyArg_ParseTuple(args, "Oi", &obj, &code))
        return NULL;
    Py_buffer b;
    if (PyObject_GetBuffer(obj, &b, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *r = NULL;
    if (b.ndim > ARRAY_MAXD || b.ndim < 1) {
        PyErr_Format(ErrInput, "gpuvet.as_dlpack: %d dimensions (1 to %d)", b.ndim, ARRAY_MAXD);
    } else {
        int64_t shape[ARRAY_MAXD];
        for (int k = 0; k < b.ndim; k++)
            shape[k] = b.shape[k];
        r = array_new(b.buf, DL_CPU, 0, (uint8_t)code, (uint8_t)(b.itemsize * 8), b.ndim, shape, obj);
    }
    PyBuffer_Release(&b);
    return r;
}

/* The tensor of a "dltensor" capsule as a 1-D C-order integer vector of n elements on CUDA
 * device dev: *data and *bits, or an InputError naming what is wrong. */
static int dlpack_actions(PyObject *cap, int n, int dev, const char *what, DLManagedTensor **out, void **data,
                          int *bits)
{
    DLManagedTensor *mt = PyCapsule_GetPointer(cap, "dltensor");
    if (!mt)
        return -1;
    const DLTensor *t = &mt->dl_tensor;
    if (t->device.device_type != DL_CUDA || t->device.device_id != dev) {
        PyErr_Format(ErrInput, "%s: actions on DLPack device (%d, %d): give them on the environment's GPU (2, %d) or "
                               "on the host", what, t->device.device_type, t->device.device_id, dev);
        return -1;
    }
    if (t->ndim != 1 || t->shape[0] != n) {
        PyErr_Format(ErrInput, "%s: actions of %d dimensions (first %lld), expected (%d,): one per environment", what,
                     t->ndim, t->ndim ? (long long)t->shape[0] : 0LL, n);
        return -1;
    }
    if (t->dtype.code != DL_INT || t->dtype.lanes != 1 ||
        (t->dtype.bits != 8 && t->dtype.bits != 16 && t->dtype.bits != 32 && t->dtype.bits != 64)) {
        PyErr_Format(ErrInput, "%s: actions of DLPack type code %d, %d bits: give signed integers (torch.long, "
                               "torch.int32)", what, t->dtype.code, t->dtype.bits);
        return -1;
    }
    if (t->strides && n > 1 && t->strides[0] != 1) {
        PyErr_Format(ErrInput, "%s: actions with stride %lld: give a contiguous vector (.contiguous())", what,
                     (long long)t->strides[0]);
        return -1;
    }
    *out = mt;
    *data = (uint8_t *)t->data + t->byte_offset;
    *bits = t->dtype.bits;
    return 0;
}

/* ============================== Drop7 ================================================ */

/* The arguments both Drop7 environments take, checked (-1 and an InputError when one is bad). */
static int d7_args(int n, int mode, int max_moves)
{
    if (n < 1 || n > (1 << 24))
        PyErr_Format(ErrInput, "Drop7Env: n = %d games side by side: give 1 to %d", n, 1 << 24);
    else if (mode != DROP7_MODE_NORMAL && mode != DROP7_MODE_HARDCORE)
        PyErr_Format(ErrInput, "Drop7Env: mode %d (0 normal, 1 hardcore)", mode);
    else if (max_moves < 1)
        PyErr_Format(ErrInput, "Drop7Env: max_moves = %d: give 1 or more", max_moves);
    else
        return 0;
    return -1;
}

/* 1 when an environment's C object was initialised (ctx is not NULL), else 0 and an InputError. */
static int env_ready(const void *ctx, const char *env)
{
    if (ctx)
        return 1;
    PyErr_Format(ErrInput, "%s: not initialised", env);
    return 0;
}

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    int n, max_moves, threads, ready;
    drop7_rules rules;
    drop7_slot *s;
    uint8_t *done; /* scratch of drop7_slot_step */
    uint64_t base;
} Drop7;

static void Drop7_dealloc(Drop7 *o)
{
    free(o->s);
    free(o->done);
    pthread_mutex_destroy(&o->mu);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int Drop7_init(Drop7 *o, PyObject *args, PyObject *kw)
{
    static char *kws[] = {"n", "mode", "max_moves", "threads", NULL};
    int n, mode = 0, max_moves = DROP7_DEFAULT_MAX_MOVES, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|iii", kws, &n, &mode, &max_moves, &threads))
        return -1;
    if (d7_args(n, mode, max_moves) < 0)
        return -1;
    if (threads < 0) {
        PyErr_Format(ErrInput, "Drop7Env: threads = %d: give 0 (all) or more", threads);
        return -1;
    }
    if (o->s) { /* __init__ called again */
        PyErr_SetString(ErrInput, "Drop7Env: already initialised");
        return -1;
    }
    pthread_mutex_init(&o->mu, NULL);
    o->n = n;
    o->max_moves = max_moves;
    o->threads = threads;
    drop7_rules_init(&o->rules, (drop7_mode)mode);
    o->s = calloc((size_t)n, sizeof *o->s);
    o->done = calloc((size_t)n, 1);
    if (!o->s || !o->done) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* reset(seed, obs, mask): every slot starts its first game (slot i: seed + i). */
static PyObject *Drop7_reset(Drop7 *o, PyObject *args)
{
    unsigned long long seed;
    Py_buffer obs, mask;
    if (!PyArg_ParseTuple(args, "Kw*w*", &seed, &obs, &mask))
        return NULL;
    PyObject *ret = NULL;
    if (check_len(&obs, (size_t)o->n * DROP7_PLANE_FLOATS * sizeof(float), "Drop7Env.reset obs") ||
        check_len(&mask, (size_t)o->n * DROP7_N, "Drop7Env.reset mask"))
        goto out;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    o->base = seed;
    int n = o->n;
    float *ob = obs.buf;
    uint8_t *mk = mask.buf;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (n >= D7_PAR_MIN)
    for (int i = 0; i < n; i++) {
        o->s[i].games = 0;
        drop7_slot_begin(&o->rules, &o->s[i], o->base, i, n);
        drop7_slot_observe(&o->s[i], ob + (size_t)i * DROP7_PLANE_FLOATS, mk + (size_t)i * DROP7_N);
    }
    o->ready = 1;
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
out:
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    return ret;
}

/* step(actions int64[n], obs, mask, reward f64[n], terminated u8[n], truncated u8[n],
 *      records drop7_record[n], final_obs f32[n,12,7,7], seeds u64[n]) -> games ended.
 * drop7_slot_step in every slot (drop7_env.h), after every action was checked (a bad one
 * changes nothing). */
static PyObject *Drop7_step(Drop7 *o, PyObject *args)
{
    Py_buffer act, obs, mask, rew, term, trunc, recs, fobs, seeds;
    if (!PyArg_ParseTuple(args, "y*w*w*w*w*w*w*w*w*", &act, &obs, &mask, &rew, &term, &trunc, &recs, &fobs, &seeds))
        return NULL;
    PyObject *ret = NULL;
    size_t n = (size_t)o->n;
    if (check_len(&act, n * sizeof(int64_t), "Drop7Env.step actions") ||
        check_len(&obs, n * DROP7_PLANE_FLOATS * sizeof(float), "Drop7Env.step obs") ||
        check_len(&mask, n * DROP7_N, "Drop7Env.step mask") || check_len(&rew, n * sizeof(double), "Drop7Env.step reward") ||
        check_len(&term, n, "Drop7Env.step terminated") || check_len(&trunc, n, "Drop7Env.step truncated") ||
        check_len(&recs, n * sizeof(drop7_record), "Drop7Env.step records") ||
        check_len(&fobs, n * DROP7_PLANE_FLOATS * sizeof(float), "Drop7Env.step final_obs") ||
        check_len(&seeds, n * sizeof(uint64_t), "Drop7Env.step seeds"))
        goto out;
    gv_err e = {{0}};
    gv_status st = GV_OK;
    long ended = 0;
    const int64_t *a = act.buf;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    if (!o->ready)
        st = gv_fail(&e, GV_ERR_INPUT, "Drop7Env.step before reset: call reset(seed=...) first");
    for (int i = 0; st == GV_OK && i < o->n; i++)
        st = drop7_slot_check(&o->s[i], i, a[i], "Drop7Env.step", &e);
    if (st == GV_OK) {
        float *ob = obs.buf, *fo = fobs.buf;
        double *rw = rew.buf;
        uint8_t *te = term.buf, *tr = trunc.buf, *mk = mask.buf;
        drop7_record *rc = recs.buf;
        uint64_t *sd = seeds.buf;
        int nn = o->n;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (nn >= D7_PAR_MIN) reduction(+ : ended)
        for (int i = 0; i < nn; i++) {
            drop7_slot_out so = {ob + (size_t)i * DROP7_PLANE_FLOATS, fo + (size_t)i * DROP7_PLANE_FLOATS,
                                 mk + (size_t)i * DROP7_N, rw + i, te + i, tr + i, o->done + i, rc + i, sd + i};
            ended += drop7_slot_step(&o->rules, &o->s[i], a[i], o->base, i, nn, o->max_moves, &so);
        }
    }
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    if (st != GV_OK)
        raise_gv(st, &e);
    else
        ret = PyLong_FromLong(ended);
out:
    PyBuffer_Release(&act);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&rew);
    PyBuffer_Release(&term);
    PyBuffer_Release(&trunc);
    PyBuffer_Release(&recs);
    PyBuffer_Release(&fobs);
    PyBuffer_Release(&seeds);
    return ret;
}

/* sample(player, out int64[n]): the CLI's players' columns for the current positions:
 * 0 random (each game's own player generator, seeded as drop7_game_play seeds it),
 * 1 greedy. */
static PyObject *Drop7_sample(Drop7 *o, PyObject *args)
{
    int player;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "iw*", &player, &out))
        return NULL;
    PyObject *ret = NULL;
    if (check_len(&out, (size_t)o->n * sizeof(int64_t), "Drop7Env.sample out"))
        goto out;
    if (player != DROP7_PLAYER_RANDOM && player != DROP7_PLAYER_GREEDY) {
        PyErr_Format(ErrInput, "Drop7Env.sample: player %d (0 random, 1 greedy)", player);
        goto out;
    }
    if (!o->ready) {
        PyErr_SetString(ErrInput, "Drop7Env.sample before reset: call reset(seed=...) first");
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    int64_t *a = out.buf;
    int nn = o->n;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (player ? nn >= 64 : nn >= D7_PAR_MIN)
    for (int i = 0; i < nn; i++)
        a[i] = player == DROP7_PLAYER_GREEDY ? drop7_pick_greedy(&o->rules, &o->s[i].g)
                                             : drop7_pick_random(&o->s[i].g, o->s[i].prng);
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
out:
    PyBuffer_Release(&out);
    return ret;
}

/* records(out drop7_record[n]): the records of the games in progress (end 0). */
static PyObject *Drop7_records(Drop7 *o, PyObject *args)
{
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "w*", &out))
        return NULL;
    PyObject *ret = NULL;
    if (!check_len(&out, (size_t)o->n * sizeof(drop7_record), "Drop7Env.records out")) {
        pthread_mutex_lock(&o->mu);
        for (int i = 0; i < o->n; i++)
            drop7_game_record(&o->s[i].g, o->s[i].seed, o->s[i].hash, 0, (drop7_record *)out.buf + i);
        pthread_mutex_unlock(&o->mu);
        ret = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&out);
    return ret;
}

static PyMethodDef Drop7_methods[] = {
    {"reset", (PyCFunction)Drop7_reset, METH_VARARGS, "reset(seed, obs, mask)"},
    {"step", (PyCFunction)Drop7_step, METH_VARARGS,
     "step(actions, obs, mask, reward, terminated, truncated, records, final_obs, seeds) -> games ended"},
    {"sample", (PyCFunction)Drop7_sample, METH_VARARGS, "sample(player, out)"},
    {"records", (PyCFunction)Drop7_records, METH_VARARGS, "records(out)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject Drop7Type = PY_TYPE(Drop7, "n Drop7 games side by side (use gpuvet.Drop7Env)");

/* ============================== Drop7 on the GPU ====================================== */

/* n Drop7 games on a GPU (drop7_env.h's device environment): every array in device memory,
 * handed out as Arrays (kDLCUDA) that keep this object alive. */
typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    drop7_env_gpu *e;
    int n, ready, inited;
} Drop7Dev;

static void Drop7Dev_dealloc(Drop7Dev *o)
{
    drop7_env_gpu_close(o->e);
    if (o->inited)
        pthread_mutex_destroy(&o->mu);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int Drop7Dev_init(Drop7Dev *o, PyObject *args, PyObject *kw)
{
    static char *kws[] = {"n", "mode", "max_moves", "device", "label", NULL};
    int n, mode = 0, max_moves = DROP7_DEFAULT_MAX_MOVES, device = 0;
    const char *label = "cuda";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|iiis", kws, &n, &mode, &max_moves, &device, &label))
        return -1;
    if (o->inited) {
        PyErr_SetString(ErrInput, "Drop7Env: already initialised");
        return -1;
    }
    if (d7_args(n, mode, max_moves) < 0)
        return -1;
    drop7_rules r;
    drop7_rules_init(&r, (drop7_mode)mode);
    gv_err e = {{0}};
    gv_status st;
    /* the device checked as `gpuvet bench drop7 --devices LABEL` checks it: the same line */
    dev_id id = {DEV_GPU, device, ""};
    char what[48];
    snprintf(id.label, sizeof id.label, "%s", label);
    snprintf(what, sizeof what, "--devices %s", id.label);
    Py_BEGIN_ALLOW_THREADS
    st = dev_check(&id, what, &e);
    if (st == GV_OK)
        st = drop7_env_gpu_open(device, &r, n, max_moves, &o->e, &e);
    Py_END_ALLOW_THREADS
    if (st != GV_OK) {
        raise_gv(st, &e);
        return -1;
    }
    pthread_mutex_init(&o->mu, NULL);
    o->inited = 1;
    o->n = n;
    return 0;
}

static int dev_ready(Drop7Dev *o)
{
    return env_ready(o->e, "Drop7Env");
}

/* arrays() -> dict of Arrays over the environment's device arrays (drop7_env_arrays): obs,
 * mask, reward, terminated, truncated, done, final_obs, seed, sample. */
static PyObject *Drop7Dev_arrays(Drop7Dev *o, PyObject *unused)
{
    if (!dev_ready(o))
        return NULL;
    const drop7_env_arrays *a = drop7_env_gpu_arrays(o->e);
    int dev = drop7_env_gpu_device(o->e);
    int64_t n = o->n, planes[4] = {n, DROP7_PLANES, DROP7_N, DROP7_N}, mask[2] = {n, DROP7_N}, vec[1] = {n};
    PyObject *self = (PyObject *)o;
    struct {
        const char *name;
        void *p;
        uint8_t code, bits;
        int ndim;
        const int64_t *shape;
    } t[] = {
        {"obs", a->obs, DL_FLOAT, 32, 4, planes},          {"mask", a->mask, DL_BOOL, 8, 2, mask},
        {"reward", a->reward, DL_FLOAT, 64, 1, vec},       {"terminated", a->terminated, DL_BOOL, 8, 1, vec},
        {"truncated", a->truncated, DL_BOOL, 8, 1, vec},   {"done", a->done, DL_BOOL, 8, 1, vec},
        {"final_obs", a->final_obs, DL_FLOAT, 32, 4, planes}, {"seed", a->seed, DL_UINT, 64, 1, vec},
        {"sample", a->sample, DL_INT, 64, 1, vec},
    };
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < sizeof t / sizeof t[0]; k++) {
        PyObject *v = array_new(t[k].p, DL_CUDA, dev, t[k].code, t[k].bits, t[k].ndim, t[k].shape, self);
        if (!v || PyDict_SetItemString(d, t[k].name, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *Drop7Dev_reset(Drop7Dev *o, PyObject *args)
{
    unsigned long long seed;
    if (!dev_ready(o) || !PyArg_ParseTuple(args, "K", &seed))
        return NULL;
    gv_err e = {{0}};
    gv_status st;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    st = drop7_env_gpu_reset(o->e, seed, &e);
    if (st == GV_OK)
        o->ready = 1;
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    return st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
}

/* step(actions) -> games ended: actions a "dltensor" capsule of a vector on the environment's
 * GPU, or a host buffer of n int64. */
static PyObject *Drop7Dev_step(Drop7Dev *o, PyObject *args)
{
    PyObject *obj;
    if (!dev_ready(o) || !PyArg_ParseTuple(args, "O", &obj))
        return NULL;
    if (!o->ready) {
        PyErr_SetString(ErrInput, "Drop7Env.step before reset: call reset(seed=...) first");
        return NULL;
    }
    DLManagedTensor *mt = NULL;
    Py_buffer b = {0};
    void *data;
    int bits, on_device = PyCapsule_CheckExact(obj);
    if (on_device) {
        if (dlpack_actions(obj, o->n, drop7_env_gpu_device(o->e), "Drop7Env.step", &mt, &data, &bits) < 0)
            return NULL;
        PyCapsule_SetName(obj, "used_dltensor"); /* ours now: the deleter runs after the step */
    } else {
        if (PyObject_GetBuffer(obj, &b, PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        if (check_len(&b, (size_t)o->n * sizeof(int64_t), "Drop7Env.step actions")) {
            PyBuffer_Release(&b);
            return NULL;
        }
        data = b.buf;
        bits = 64;
    }
    gv_err e = {{0}};
    gv_status st;
    long ended = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    st = drop7_env_gpu_step(o->e, data, on_device, bits, &ended, &e);
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    if (mt && mt->deleter)
        mt->deleter(mt);
    if (!on_device)
        PyBuffer_Release(&b);
    return st == GV_OK ? PyLong_FromLong(ended) : raise_gv(st, &e);
}

static PyObject *Drop7Dev_sample(Drop7Dev *o, PyObject *args)
{
    int player;
    if (!dev_ready(o) || !PyArg_ParseTuple(args, "i", &player))
        return NULL;
    if (!o->ready) {
        PyErr_SetString(ErrInput, "Drop7Env.sample before reset: call reset(seed=...) first");
        return NULL;
    }
    gv_err e = {{0}};
    gv_status st;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    st = drop7_env_gpu_sample(o->e, player, &e);
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    return st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
}

/* records(current, out drop7_record[n]): those of the last step's ended games (current 0) or
 * of the games in progress (1), on the host. */
static PyObject *Drop7Dev_records(Drop7Dev *o, PyObject *args)
{
    int current;
    Py_buffer out;
    if (!dev_ready(o) || !PyArg_ParseTuple(args, "iw*", &current, &out))
        return NULL;
    PyObject *ret = NULL;
    if (!check_len(&out, (size_t)o->n * sizeof(drop7_record), "Drop7Env.records out")) {
        gv_err e = {{0}};
        gv_status st;
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&o->mu);
        st = drop7_env_gpu_records(o->e, current, out.buf, &e);
        pthread_mutex_unlock(&o->mu);
        Py_END_ALLOW_THREADS
        ret = st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
    }
    PyBuffer_Release(&out);
    return ret;
}

static PyObject *Drop7Dev_name(Drop7Dev *o, PyObject *unused)
{
    return dev_ready(o) ? PyUnicode_FromString(drop7_env_gpu_name(o->e)) : NULL;
}

static PyMethodDef Drop7Dev_methods[] = {
    {"arrays", (PyCFunction)Drop7Dev_arrays, METH_NOARGS, "arrays() -> dict of gpuvet.Array (device memory)"},
    {"reset", (PyCFunction)Drop7Dev_reset, METH_VARARGS, "reset(seed)"},
    {"step", (PyCFunction)Drop7Dev_step, METH_VARARGS, "step(capsule or int64 buffer) -> games ended"},
    {"sample", (PyCFunction)Drop7Dev_sample, METH_VARARGS, "sample(player): into arrays()['sample']"},
    {"records", (PyCFunction)Drop7Dev_records, METH_VARARGS, "records(current, out)"},
    {"name", (PyCFunction)Drop7Dev_name, METH_NOARGS, "the GPU's name"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject Drop7DevType = PY_TYPE(Drop7Dev, "n Drop7 games on a GPU (use gpuvet.Drop7Env(device='cuda'))");

/* play(seeds u64[k], player, mode, device, threads, records drop7_record[k]): whole games
 * through drop7_sim_batch, the engine of `gpuvet bench drop7` (device 0 the plain
 * reference, 1 CPU threads, 2 the GPU). */
static PyObject *py_drop7_play(PyObject *self, PyObject *args)
{
    Py_buffer seeds, recs;
    int player, mode, device, threads, max_moves;
    if (!PyArg_ParseTuple(args, "y*iiiiiw*", &seeds, &player, &mode, &device, &threads, &max_moves, &recs))
        return NULL;
    PyObject *ret = NULL;
    size_t k = (size_t)seeds.len / sizeof(uint64_t);
    if (!check_len(&recs, k * sizeof(drop7_record), "drop7_play records")) {
        drop7_rules r;
        drop7_rules_init(&r, mode == 1 ? DROP7_MODE_HARDCORE : DROP7_MODE_NORMAL);
        drop7_sim_opts so = {.device = (drop7_device)device, .threads = threads, .gpu = 0, .max_moves = max_moves};
        gv_err e = {{0}};
        gv_status st;
        Py_BEGIN_ALLOW_THREADS
        st = drop7_sim_batch(&r, player, seeds.buf, (int)k, &so, recs.buf, NULL, &e);
        Py_END_ALLOW_THREADS
        ret = st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
    }
    PyBuffer_Release(&seeds);
    PyBuffer_Release(&recs);
    return ret;
}

/* ============================== Console ============================================== */

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    const emu_console *con;
    void *cart;
    emu_batch *b;
    int n, threads;
    emu_renderer video, audio;
    char describe[256];
} Console;

static void Console_dealloc(Console *o)
{
    emu_batch_free(o->b);
    if (o->cart)
        o->con->cart_free(o->cart);
    if (o->con)
        pthread_mutex_destroy(&o->mu);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int Console_init(Console *o, PyObject *args, PyObject *kw)
{
    static char *kws[] = {"rom", "n", "video", "audio", "threads", "console", "model", "keep_audio", "gpu", NULL};
    const char *rom, *video = "native", *audio = "none", *console = NULL, *model = NULL;
    int n, threads = 0, keep = 0, gpu = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "si|ssizzpi", kws, &rom, &n, &video, &audio, &threads, &console, &model,
                                     &keep, &gpu))
        return -1;
    if (o->b) {
        PyErr_SetString(ErrInput, "ConsoleEnv: already initialised");
        return -1;
    }
    emu_renderer v, a;
    if (emu_renderer_parse(video, &v) || v == EMU_R_NONE) {
        PyErr_Format(ErrInput, "ConsoleEnv: video '%s': native, host or device", video);
        return -1;
    }
    if (emu_renderer_parse(audio, &a)) {
        PyErr_Format(ErrInput, "ConsoleEnv: audio '%s': none, native, host or device", audio);
        return -1;
    }
    if (n < 1 || n > 65535) {
        PyErr_Format(ErrInput, "ConsoleEnv: n = %d instances: give 1 to 65535", n);
        return -1;
    }
    if (threads < 0) {
        PyErr_Format(ErrInput, "ConsoleEnv: threads = %d: give 0 (all) or more", threads);
        return -1;
    }
    gv_err e = {{0}};
    char warning[256];
    gv_status st;
    Py_BEGIN_ALLOW_THREADS
    st = emu_rom_open(rom, console, &o->con, &o->cart, o->describe, warning, sizeof o->describe, &e);
    if (st == GV_OK) {
        emu_batch_cfg cfg = {.con = o->con, .cart = o->cart, .instances = n, .video = v, .audio = a, .threads = threads,
                             .keep_audio_each = keep, .dev = {DEV_GPU, gpu, "cuda"}};
        cfg.opts.model = model;
        st = emu_batch_new(&cfg, &o->b, &e);
    }
    Py_END_ALLOW_THREADS
    if (st != GV_OK) {
        if (o->cart)
            o->con->cart_free(o->cart);
        o->cart = NULL;
        o->con = NULL;
        raise_gv(st, &e);
        return -1;
    }
    pthread_mutex_init(&o->mu, NULL);
    o->n = n;
    o->threads = threads;
    o->video = v;
    o->audio = a;
    return 0;
}

static int console_ready(Console *o)
{
    return env_ready(o->b, "ConsoleEnv");
}

/* step(buttons u32[n], frames, out, grey[, down]): runs every instance `frames` frames with
 * its buttons (instance i holds buttons[i]) and copies each last frame into out (None: no
 * copy; with device video there is none: obs_array gives the frames): RGB (n, h, w, 3) or
 * luma (n, h, w), each down x down block averaged (frame_reduce.h, the device kernel's code).
 * Kept samples (keep_audio) are emptied first: after it they are the step's. Returns the
 * frames run. */
static PyObject *Console_step(Console *o, PyObject *args)
{
    Py_buffer btn, out = {0};
    PyObject *outobj;
    int frames, grey, down = 1;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "y*iOp|i", &btn, &frames, &outobj, &grey, &down))
        return NULL;
    PyObject *ret = NULL;
    int have_out = outobj != Py_None && o->video != EMU_R_DEVICE;
    if (down < 1 || o->con->width % down || o->con->height % down) {
        PyErr_Format(ErrInput, "ConsoleEnv: downscale %d: give a factor that divides the %s's %dx%d frame", down,
                     o->con->name, o->con->width, o->con->height);
        PyBuffer_Release(&btn);
        return NULL;
    }
    int ow = o->con->width / down, oh = o->con->height / down;
    size_t px = (size_t)ow * oh;
    if (have_out && PyObject_GetBuffer(outobj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&btn);
        return NULL;
    }
    if (check_len(&btn, (size_t)o->n * sizeof(uint32_t), "ConsoleEnv.step buttons") ||
        (have_out && check_len(&out, (size_t)o->n * px * (grey ? 1 : 3), "ConsoleEnv.step frames")))
        goto done;
    if (frames < 1) {
        PyErr_Format(ErrInput, "ConsoleEnv.step: frameskip %d: give 1 or more", frames);
        goto done;
    }
    gv_err e = {{0}};
    gv_status st;
    int ran = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    emu_batch_audio_clear(o->b); /* the kept samples are this step's */
    emu_batch_set_input_each(o->b, btn.buf);
    st = emu_batch_run(o->b, frames, &ran, &e);
    if (st == GV_OK && have_out) {
        uint8_t *dst = out.buf;
        int nn = o->n, w = o->con->width;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (nn > 1)
        for (int i = 0; i < nn; i++) {
            const uint8_t *src = emu_batch_instance_frame(o->b, i);
            if (!grey && down == 1) {
                memcpy(dst + (size_t)i * px * 3, src, px * 3);
                continue;
            }
            uint8_t *d = dst + (size_t)i * px * (grey ? 1 : 3);
            if (down == 1) { /* grey at full size: the luma of each pixel, no block sums */
                for (size_t p = 0; p < px; p++)
                    d[p] = emu_luma(src[3 * p], src[3 * p + 1], src[3 * p + 2]);
                continue;
            }
            for (int y = 0; y < oh; y++)
                for (int x = 0; x < ow; x++) {
                    unsigned c[3];
                    for (int k = 0; k < 3; k++)
                        c[k] = emu_block_mean(src, w, x * down, y * down, down, k);
                    size_t p = (size_t)y * ow + x;
                    if (grey) {
                        d[p] = emu_luma(c[0], c[1], c[2]);
                    } else {
                        d[3 * p] = (uint8_t)c[0];
                        d[3 * p + 1] = (uint8_t)c[1];
                        d[3 * p + 2] = (uint8_t)c[2];
                    }
                }
        }
    }
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    ret = st == GV_OK ? PyLong_FromLong(ran) : raise_gv(st, &e);
done:
    PyBuffer_Release(&btn);
    if (have_out)
        PyBuffer_Release(&out);
    return ret;
}

/* obs_array(grey, down) -> Array (kDLCUDA): with device video, every instance's last frame
 * made smaller on the device (emu_batch_device_obs), (n, h/down, w/down[, 3]) uint8 in memory
 * the device pipeline owns, rewritten by the next call, step or power. */
static PyObject *Console_obs_array(Console *o, PyObject *args)
{
    int grey, down;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "pi", &grey, &down))
        return NULL;
    const uint8_t *p;
    int dev;
    gv_err e = {{0}};
    gv_status st;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    st = emu_batch_device_obs(o->b, down, grey, &p, &dev, &e);
    pthread_mutex_unlock(&o->mu);
    Py_END_ALLOW_THREADS
    if (st != GV_OK)
        return raise_gv(st, &e);
    int64_t shape[4] = {o->n, o->con->height / down, o->con->width / down, 3};
    return array_new((void *)p, DL_CUDA, dev, DL_UINT, 8, grey ? 3 : 4, shape, (PyObject *)o);
}

/* hashes(out u64[n, 2]): each instance's video and audio hash since creation or power, as
 * `gpuvet run` prints them (video_hash, audio_hash). */
static PyObject *Console_hashes(Console *o, PyObject *args)
{
    Py_buffer h;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "w*", &h))
        return NULL;
    int ok = !check_len(&h, (size_t)o->n * 16, "ConsoleEnv.hashes out");
    uint64_t *v = h.buf;
    pthread_mutex_lock(&o->mu);
    for (int i = 0; ok && i < o->n; i++) {
        v[2 * i] = emu_batch_video_hash(o->b, i);
        v[2 * i + 1] = emu_batch_audio_hash(o->b, i);
    }
    pthread_mutex_unlock(&o->mu);
    PyBuffer_Release(&h);
    return ok ? Py_NewRef(Py_None) : NULL;
}

static int instance_arg(Console *o, int i)
{
    if (i >= 0 && i < o->n)
        return 0;
    PyErr_Format(ErrInput, "ConsoleEnv: instance %d: give 0 to %d", i, o->n - 1);
    return -1;
}

/* samples(i): instance i's samples of the last step or power (keep_audio), the int16
 * sample frames as bytes (audio_channels values each). */
static PyObject *Console_samples(Console *o, PyObject *args)
{
    int i;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "i", &i) || instance_arg(o, i))
        return NULL;
    pthread_mutex_lock(&o->mu);
    size_t n;
    const int16_t *s = emu_batch_instance_audio(o->b, i, &n);
    PyObject *r = PyBytes_FromStringAndSize((const char *)s, (Py_ssize_t)(n * (size_t)o->con->audio_channels * sizeof *s));
    pthread_mutex_unlock(&o->mu);
    return r;
}

static PyObject *Console_save_state(Console *o, PyObject *args)
{
    int i;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "i", &i) || instance_arg(o, i))
        return NULL;
    uint8_t *d = NULL;
    size_t len = 0;
    gv_err e = {{0}};
    pthread_mutex_lock(&o->mu);
    gv_status st = o->con->state_save(emu_batch_machine(o->b, i), &d, &len, &e);
    pthread_mutex_unlock(&o->mu);
    if (st != GV_OK)
        return raise_gv(st, &e);
    PyObject *r = PyBytes_FromStringAndSize((const char *)d, (Py_ssize_t)len);
    free(d);
    return r;
}

static PyObject *Console_load_state(Console *o, PyObject *args)
{
    int i;
    Py_buffer s;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "iy*", &i, &s))
        return NULL;
    PyObject *ret = NULL;
    if (!instance_arg(o, i)) {
        gv_err e = {{0}};
        pthread_mutex_lock(&o->mu);
        gv_status st = o->con->state_load(emu_batch_machine(o->b, i), s.buf, (size_t)s.len, &e);
        pthread_mutex_unlock(&o->mu);
        ret = st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
    }
    PyBuffer_Release(&s);
    return ret;
}

/* ram(i) -> bytes: a copy of instance i's work RAM (console.h, work_ram). */
static PyObject *Console_ram(Console *o, PyObject *args)
{
    int i;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "i", &i) || instance_arg(o, i))
        return NULL;
    size_t len = 0;
    pthread_mutex_lock(&o->mu);
    const uint8_t *p = o->con->work_ram(emu_batch_machine(o->b, i), &len);
    PyObject *r = PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)len);
    pthread_mutex_unlock(&o->mu);
    return r;
}

/* ram_all(out, offsets i64[k]): out[i, j] = instance i's work RAM at offsets[j]. */
static PyObject *Console_ram_all(Console *o, PyObject *args)
{
    Py_buffer out, off;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "w*y*", &out, &off))
        return NULL;
    PyObject *ret = NULL;
    size_t k = (size_t)off.len / sizeof(int64_t);
    if (!check_len(&out, (size_t)o->n * k, "ConsoleEnv.ram out")) {
        size_t len = 0;
        pthread_mutex_lock(&o->mu);
        o->con->work_ram(emu_batch_machine(o->b, 0), &len);
        const int64_t *ofs = off.buf;
        size_t bad = k;
        for (size_t j = 0; j < k && bad == k; j++)
            if (ofs[j] < 0 || (size_t)ofs[j] >= len)
                bad = j;
        if (bad == k)
            for (int i = 0; i < o->n; i++) {
                const uint8_t *p = o->con->work_ram(emu_batch_machine(o->b, i), &len);
                for (size_t j = 0; j < k; j++)
                    ((uint8_t *)out.buf)[(size_t)i * k + j] = p[ofs[j]];
            }
        pthread_mutex_unlock(&o->mu);
        if (bad == k)
            ret = Py_NewRef(Py_None);
        else
            PyErr_Format(ErrInput, "ConsoleEnv.ram: offset %lld is outside the %s's %zu bytes of work RAM",
                         (long long)ofs[bad], o->con->title, len);
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&off);
    return ret;
}

/* Calls fn on the batch (power, reset) under the mutex. */
static PyObject *console_all(Console *o, void (*fn)(emu_batch *))
{
    if (!console_ready(o))
        return NULL;
    pthread_mutex_lock(&o->mu);
    fn(o->b);
    pthread_mutex_unlock(&o->mu);
    return Py_NewRef(Py_None);
}

static PyObject *Console_power(Console *o, PyObject *unused)
{
    return console_all(o, emu_batch_power);
}

static PyObject *Console_reset(Console *o, PyObject *unused)
{
    return console_all(o, emu_batch_reset);
}

/* info() -> dict: console, title, width, height, buttons, frame_rate, cart, frames (of instance 0),
 * ram_bytes, video, audio_rate, audio_channels */
static PyObject *Console_info(Console *o, PyObject *unused)
{
    if (!console_ready(o))
        return NULL;
    size_t ram = 0;
    pthread_mutex_lock(&o->mu);
    unsigned long long frames = o->con->frame_count(emu_batch_machine(o->b, 0));
    o->con->work_ram(emu_batch_machine(o->b, 0), &ram);
    /* the machine's own where its region sets it (a PAL or Dendy NES cartridge: 50) */
    double fps = o->con->machine_frame_rate ? o->con->machine_frame_rate(emu_batch_machine(o->b, 0)) : o->con->frame_rate;
    pthread_mutex_unlock(&o->mu);
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:s,s:d,s:s,s:K,s:n,s:s,s:i,s:i}", "console", o->con->name, "title",
                         o->con->title, "width", o->con->width, "height", o->con->height, "buttons", o->con->buttons,
                         "frame_rate", fps, "cart", o->describe, "frames", frames, "ram_bytes", (Py_ssize_t)ram,
                         "video", emu_renderer_name(o->video), "audio_rate", o->con->audio_rate, "audio_channels",
                         o->con->audio_channels);
}

static PyMethodDef Console_methods[] = {
    {"step", (PyCFunction)Console_step, METH_VARARGS, "step(buttons, frames, out, grey[, down]) -> frames run"},
    {"obs_array", (PyCFunction)Console_obs_array, METH_VARARGS, "obs_array(grey, down) -> Array on the device"},
    {"samples", (PyCFunction)Console_samples, METH_VARARGS, "samples(i) -> bytes (int16 sample frames)"},
    {"hashes", (PyCFunction)Console_hashes, METH_VARARGS, "hashes(out)"},
    {"save_state", (PyCFunction)Console_save_state, METH_VARARGS, "save_state(i) -> bytes"},
    {"load_state", (PyCFunction)Console_load_state, METH_VARARGS, "load_state(i, state)"},
    {"ram", (PyCFunction)Console_ram, METH_VARARGS, "ram(i) -> bytes"},
    {"ram_all", (PyCFunction)Console_ram_all, METH_VARARGS, "ram_all(out, offsets)"},
    {"power", (PyCFunction)Console_power, METH_NOARGS, "power cycle every instance"},
    {"reset", (PyCFunction)Console_reset, METH_NOARGS, "press every instance's reset button"},
    {"info", (PyCFunction)Console_info, METH_NOARGS, "info() -> dict"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ConsoleType = PY_TYPE(Console, "n instances of one ROM (use gpuvet.ConsoleEnv)");

/* ============================== module =============================================== */

static PyObject *py_hash64(PyObject *self, PyObject *args)
{
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b))
        return NULL;
    uint64_t h = gv_hash64(b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyLong_FromUnsignedLongLong(h);
}

/* demo_rom(name, path): writes one of the ROMs built into the library (demo_roms.h). */
static PyObject *py_demo_rom(PyObject *self, PyObject *args)
{
    const char *name, *path;
    if (!PyArg_ParseTuple(args, "ss", &name, &path))
        return NULL;
    for (const emu_demo_rom *d = emu_demo_roms; d->name; d++)
        if (!strcmp(d->name, name)) {
            gv_err e = {{0}};
            gv_status st = emu_demo_rom_write(d, path, &e);
            return st == GV_OK ? Py_NewRef(Py_None) : raise_gv(st, &e);
        }
    PyObject *names = PyList_New(0);
    for (const emu_demo_rom *d = emu_demo_roms; d->name; d++) {
        PyObject *s = PyUnicode_FromString(d->name);
        PyList_Append(names, s);
        Py_DECREF(s);
    }
    PyErr_Format(ErrInput, "demo_rom: no built-in ROM '%s' (there are %R)", name, names);
    Py_DECREF(names);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"drop7_play", py_drop7_play, METH_VARARGS, "drop7_play(seeds, player, mode, device, threads, max_moves, records)"},
    {"hash64", py_hash64, METH_VARARGS, "hash64(buffer) -> XXH3-64, the hash of gpuvet's frame hashes"},
    {"demo_rom", py_demo_rom, METH_VARARGS, "demo_rom(name, path)"},
    {"wrap", py_wrap, METH_VARARGS, "wrap(ndarray, dlpack_code) -> Array (kDLCPU, no copy)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gpuvet._gpuvet", "the C side of gpuvet", -1, module_methods,
                                    NULL, NULL, NULL, NULL};

static PyObject *new_error(PyObject *m, const char *name, PyObject *bases, int code, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "gpuvet.%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!cls)
        return NULL;
    PyObject *c = PyLong_FromLong(code);
    PyObject_SetAttrString(cls, "exit_code", c);
    Py_DECREF(c);
    if (PyModule_AddObjectRef(m, name, cls) < 0) {
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

PyMODINIT_FUNC PyInit__gpuvet(void)
{
    if (PyType_Ready(&Drop7Type) < 0 || PyType_Ready(&Drop7DevType) < 0 || PyType_Ready(&ConsoleType) < 0 ||
        PyType_Ready(&ArrayType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (!(Err = new_error(m, "GpuvetError", PyExc_RuntimeError, GV_EXIT_INTERNAL,
                          "An error of gpuvet's library; exit_code is the code the CLI exits with.")))
        return NULL;
    PyObject *b = PyTuple_Pack(2, Err, PyExc_ValueError);
    ErrInput = new_error(m, "InputError", b, GV_EXIT_USAGE, "Bad input: an argument, a file, a ROM (CLI exit code 2).");
    Py_DECREF(b);
    ErrEnv = new_error(m, "EnvError", Err, GV_EXIT_ENV,
                       "The environment cannot do it: no device, out of memory, I/O (CLI exit code 3).");
    ErrWrong = new_error(m, "WrongResultError", Err, GV_EXIT_FAIL, "A check found a wrong result (CLI exit code 1).");
    ErrInternal = new_error(m, "InternalError", Err, GV_EXIT_INTERNAL, "An internal error of gpuvet (CLI exit code 4).");
    if (!ErrInput || !ErrEnv || !ErrWrong || !ErrInternal)
        return NULL;
    if (PyModule_AddObjectRef(m, "Drop7", (PyObject *)&Drop7Type) < 0 ||
        PyModule_AddObjectRef(m, "Drop7Dev", (PyObject *)&Drop7DevType) < 0 ||
        PyModule_AddObjectRef(m, "Console", (PyObject *)&ConsoleType) < 0 ||
        PyModule_AddObjectRef(m, "Array", (PyObject *)&ArrayType) < 0)
        return NULL;
    const char *gpu = dev_gpu_backend(); /* the library's GPU backend: "cuda", "hip" or None */
    if (PyModule_AddObject(m, "GPU_BACKEND", gpu ? PyUnicode_FromString(gpu) : Py_NewRef(Py_None)) < 0)
        return NULL;
    PyModule_AddIntConstant(m, "RECORD_BYTES", (long)sizeof(drop7_record));
    PyModule_AddIntConstant(m, "PLANES", DROP7_PLANES);
    PyModule_AddIntConstant(m, "MAX_MOVES", DROP7_DEFAULT_MAX_MOVES);
    PyObject *off = Py_BuildValue(
        "{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "seed", (Py_ssize_t)offsetof(drop7_record, seed),
        "moves_hash", (Py_ssize_t)offsetof(drop7_record, moves_hash), "score", (Py_ssize_t)offsetof(drop7_record, score),
        "nmoves", (Py_ssize_t)offsetof(drop7_record, nmoves), "level", (Py_ssize_t)offsetof(drop7_record, level),
        "chain_steps", (Py_ssize_t)offsetof(drop7_record, chain_steps), "max_chain",
        (Py_ssize_t)offsetof(drop7_record, max_chain), "exploded", (Py_ssize_t)offsetof(drop7_record, exploded),
        "clears", (Py_ssize_t)offsetof(drop7_record, clears), "end", (Py_ssize_t)offsetof(drop7_record, end), "board",
        (Py_ssize_t)offsetof(drop7_record, board), "next", (Py_ssize_t)offsetof(drop7_record, next));
    if (!off || PyModule_AddObject(m, "RECORD_OFFSETS", off) < 0)
        return NULL;
    return m;
}
