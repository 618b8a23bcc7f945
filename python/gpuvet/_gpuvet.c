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
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"
#include "emu/common/demo_roms.h"
#include "emu/common/emu_batch.h"
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

/* ============================== Drop7 ================================================ */

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    int n, max_moves, threads, ready;
    drop7_rules rules;
    drop7_game *g;
    uint64_t *prng;   /* 4 words per slot: the random player's generator of the slot's game */
    uint64_t *seed;   /* the seed of the slot's game */
    uint64_t *hash;   /* FNV-1a 64 of its columns so far */
    uint64_t *games;  /* games begun in the slot */
    uint64_t base;
} Drop7;

static void d7_begin(Drop7 *o, int i)
{
    uint64_t s = o->base + (uint64_t)i + o->games[i] * (uint64_t)o->n;
    o->games[i]++;
    o->seed[i] = s;
    o->hash[i] = DROP7_FNV_OFFSET;
    drop7_game_new(&o->rules, &o->g[i], s);
    drop7_rng_seed(o->prng + 4 * (size_t)i, s ^ DROP7_PLAYER_SEED_XOR);
}

static void d7_observe(const Drop7 *o, int i, float *obs, uint8_t *mask)
{
    drop7_game_encode(&o->g[i], obs + (size_t)i * DROP7_PLANE_FLOATS);
    int m = drop7_legal(&o->g[i]);
    for (int x = 0; x < DROP7_N; x++)
        mask[(size_t)i * DROP7_N + x] = (uint8_t)((m >> x) & 1);
}

static void Drop7_dealloc(Drop7 *o)
{
    free(o->g);
    free(o->prng);
    free(o->seed);
    free(o->hash);
    free(o->games);
    pthread_mutex_destroy(&o->mu);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int Drop7_init(Drop7 *o, PyObject *args, PyObject *kw)
{
    static char *kws[] = {"n", "mode", "max_moves", "threads", NULL};
    int n, mode = 0, max_moves = DROP7_DEFAULT_MAX_MOVES, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|iii", kws, &n, &mode, &max_moves, &threads))
        return -1;
    if (n < 1 || n > (1 << 24)) {
        PyErr_Format(ErrInput, "Drop7Env: n = %d games side by side: give 1 to %d", n, 1 << 24);
        return -1;
    }
    if (mode != DROP7_MODE_NORMAL && mode != DROP7_MODE_HARDCORE) {
        PyErr_Format(ErrInput, "Drop7Env: mode %d (0 normal, 1 hardcore)", mode);
        return -1;
    }
    if (max_moves < 1) {
        PyErr_Format(ErrInput, "Drop7Env: max_moves = %d: give 1 or more", max_moves);
        return -1;
    }
    if (threads < 0) {
        PyErr_Format(ErrInput, "Drop7Env: threads = %d: give 0 (all) or more", threads);
        return -1;
    }
    if (o->g) { /* __init__ called again */
        PyErr_SetString(ErrInput, "Drop7Env: already initialised");
        return -1;
    }
    pthread_mutex_init(&o->mu, NULL);
    o->n = n;
    o->max_moves = max_moves;
    o->threads = threads;
    drop7_rules_init(&o->rules, (drop7_mode)mode);
    o->g = calloc((size_t)n, sizeof *o->g);
    o->prng = calloc((size_t)n * 4, sizeof *o->prng);
    o->seed = calloc((size_t)n, sizeof *o->seed);
    o->hash = calloc((size_t)n, sizeof *o->hash);
    o->games = calloc((size_t)n, sizeof *o->games);
    if (!o->g || !o->prng || !o->seed || !o->hash || !o->games) {
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
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (n >= D7_PAR_MIN)
    for (int i = 0; i < n; i++) {
        o->games[i] = 0;
        d7_begin(o, i);
        d7_observe(o, i, obs.buf, mask.buf);
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
 * Every action is checked before any is played (a bad one changes nothing). A slot whose
 * game ended (terminated: the game is over; truncated: max_moves reached) gets its record
 * and final position, then starts its next game at once (autoreset), whose first position
 * is what obs shows. seeds gets the seed of each slot's game as it was played. */
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
    for (int i = 0; st == GV_OK && i < o->n; i++) {
        int m = drop7_legal(&o->g[i]);
        if (a[i] < 0 || a[i] >= DROP7_N || !((m >> a[i]) & 1)) {
            char legal[32] = "", *p = legal;
            for (int x = 0; x < DROP7_N; x++)
                if ((m >> x) & 1)
                    p += sprintf(p, "%s%d", p == legal ? "" : ",", x);
            st = gv_fail(&e, GV_ERR_INPUT, "Drop7Env.step: game %d: column %lld is %s (legal columns: %s)", i,
                         (long long)a[i], a[i] < 0 || a[i] >= DROP7_N ? "not a column 0..6" : "full", legal);
        }
    }
    if (st == GV_OK) {
        float *ob = obs.buf, *fo = fobs.buf;
        double *rw = rew.buf;
        uint8_t *te = term.buf, *tr = trunc.buf;
        drop7_record *rc = recs.buf;
        uint64_t *sd = seeds.buf;
        int nn = o->n;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (nn >= D7_PAR_MIN) reduction(+ : ended)
        for (int i = 0; i < nn; i++) {
            drop7_game *g = &o->g[i];
            int64_t before = g->score;
            drop7_step(&o->rules, g, (int)a[i]);
            o->hash[i] = (o->hash[i] ^ (uint64_t)a[i]) * DROP7_FNV_PRIME;
            rw[i] = (double)(g->score - before);
            te[i] = g->over != 0;
            tr[i] = !g->over && g->nmoves >= o->max_moves;
            sd[i] = o->seed[i];
            if (te[i] || tr[i]) {
                drop7_game_record(g, o->seed[i], o->hash[i], tr[i], &rc[i]);
                drop7_game_encode(g, fo + (size_t)i * DROP7_PLANE_FLOATS);
                d7_begin(o, i);
                ended++;
            }
            d7_observe(o, i, ob, mask.buf);
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
        a[i] = player == DROP7_PLAYER_GREEDY ? drop7_pick_greedy(&o->rules, &o->g[i])
                                             : drop7_pick_random(&o->g[i], o->prng + 4 * (size_t)i);
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
            drop7_game_record(&o->g[i], o->seed[i], o->hash[i], 0, (drop7_record *)out.buf + i);
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
    static char *kws[] = {"rom", "n", "video", "audio", "threads", "console", "model", "keep_audio", NULL};
    const char *rom, *video = "native", *audio = "none", *console = NULL, *model = NULL;
    int n, threads = 0, keep = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "si|ssizzp", kws, &rom, &n, &video, &audio, &threads, &console, &model,
                                     &keep))
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
                             .keep_audio_each = keep};
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
    if (v == EMU_R_DEVICE) { /* frames of every instance are not kept by the device renderer */
        emu_batch_free(o->b);
        o->b = NULL;
        o->con->cart_free(o->cart);
        o->cart = NULL;
        o->con = NULL;
        PyErr_SetString(ErrEnv, "ConsoleEnv: video 'device': the device renderer keeps only instance 0's frame "
                                "(emu_batch.h); use native or host");
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
    if (o->b)
        return 1;
    PyErr_SetString(ErrInput, "ConsoleEnv: not initialised");
    return 0;
}

/* step(buttons u32[n], frames, out, grey) -> frames completed: instance i holds buttons[i]
 * for `frames` frames; out (or None) gets each instance's last frame, RGB (n, h, w, 3) or,
 * with grey, luma (n, h, w) = (299 R + 587 G + 114 B + 500) / 1000. */
/* The grey value of an RGB colour: (299 R + 587 G + 114 B + 500) / 1000. */
static inline uint8_t luma(unsigned r, unsigned g, unsigned b)
{
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

/* The mean of the down x down block of an RGB888 frame w pixels wide at (x0, y0), per
 * channel, rounded to nearest (down 1: the pixel). */
static void frame_block(const uint8_t *src, int w, int x0, int y0, int down, unsigned c[3])
{
    unsigned s[3] = {0, 0, 0}, nn = (unsigned)(down * down);
    for (int y = y0; y < y0 + down; y++) {
        const uint8_t *row = src + ((size_t)y * w + x0) * 3;
        for (int x = 0; x < down; x++)
            for (int k = 0; k < 3; k++)
                s[k] += row[3 * x + k];
    }
    for (int k = 0; k < 3; k++)
        c[k] = (s[k] + nn / 2) / nn;
}

/* step(buttons u32[n], frames, out, grey[, down]): runs every instance `frames` frames with
 * its buttons and copies each last frame into out (None: no copy): RGB or luma, each down x
 * down block averaged. Kept samples (keep_audio) are emptied first: after it they are the
 * step's. Returns the frames run. */
static PyObject *Console_step(Console *o, PyObject *args)
{
    Py_buffer btn, out = {0};
    PyObject *outobj;
    int frames, grey, down = 1;
    if (!console_ready(o) || !PyArg_ParseTuple(args, "y*iOp|i", &btn, &frames, &outobj, &grey, &down))
        return NULL;
    PyObject *ret = NULL;
    int have_out = outobj != Py_None;
    if (down < 1) {
        PyErr_Format(ErrInput, "ConsoleEnv: downscale %d: give 1 or more", down);
        PyBuffer_Release(&btn);
        return NULL;
    }
    /* out has room for the largest frames; the frames go in at the size of the step's
     * (fw x fh: the largest width and height among the instances' last frames) */
    size_t px = (size_t)(o->con->width / down) * (size_t)(o->con->height / down);
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
    int ran = 0, fw = 0, fh = 0; /* fw x fh: the step's frame size */
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&o->mu);
    emu_batch_audio_clear(o->b); /* the kept samples are this step's */
    emu_batch_set_input_each(o->b, btn.buf);
    st = emu_batch_run(o->b, frames, &ran, &e);
    for (int i = 0; st == GV_OK && i < o->n; i++) {
        int w, h;
        emu_frame_size(o->con, emu_batch_machine(o->b, i), &w, &h);
        fw = w > fw ? w : fw, fh = h > fh ? h : fh;
    }
    if (st == GV_OK && have_out && (fw % down || fh % down))
        st = gv_fail(&e, GV_ERR_INPUT, "ConsoleEnv: downscale %d: the %s's %dx%d frame is no multiple of it", down,
                     o->con->name, fw, fh);
    int ow = fw / down, oh = fh / down;
    size_t opx = (size_t)ow * oh;
    if (st == GV_OK && have_out) {
        uint8_t *dst = out.buf;
        int nn = o->n, ch = grey ? 1 : 3;
#pragma omp parallel for schedule(static) num_threads(threads_of(o->threads)) if (nn > 1)
        for (int i = 0; i < nn; i++) {
            const uint8_t *src = emu_batch_instance_frame(o->b, i);
            int w, h;
            emu_frame_size(o->con, emu_batch_machine(o->b, i), &w, &h);
            uint8_t *d = dst + (size_t)i * opx * ch;
            if (w != fw || h != fh) /* smaller than another instance's: top left, black around */
                memset(d, 0, opx * ch);
            if (!grey && down == 1 && w == fw) {
                memcpy(d, src, (size_t)w * h * 3);
                continue;
            }
            if (down == 1 && w == fw) { /* grey at full size: the luma of each pixel, no block sums */
                for (size_t p = 0; p < (size_t)w * h; p++)
                    d[p] = luma(src[3 * p], src[3 * p + 1], src[3 * p + 2]);
                continue;
            }
            if (down == 1) { /* narrower than another instance's: row by row */
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        const uint8_t *s = src + ((size_t)y * w + x) * 3;
                        uint8_t *q = d + ((size_t)y * ow + x) * ch;
                        if (grey)
                            q[0] = luma(s[0], s[1], s[2]);
                        else
                            memcpy(q, s, 3);
                    }
                continue;
            }
            for (int y = 0; y < h / down; y++)
                for (int x = 0; x < w / down; x++) {
                    unsigned c[3];
                    frame_block(src, w, x * down, y * down, down, c);
                    size_t p = (size_t)y * ow + x;
                    if (grey) {
                        d[p] = luma(c[0], c[1], c[2]);
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
    ret = st == GV_OK ? Py_BuildValue("(iii)", ran, fw, fh) : raise_gv(st, &e);
done:
    PyBuffer_Release(&btn);
    if (have_out)
        PyBuffer_Release(&out);
    return ret;
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
    int bw, bh; /* instance 0's last frame (after power: the console's usual size) */
    emu_frame_size(o->con, emu_batch_machine(o->b, 0), &bw, &bh);
    pthread_mutex_unlock(&o->mu);
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:i,s:i,s:s,s:d,s:s,s:K,s:n,s:s,s:i,s:i}", "console", o->con->name, "title",
                         o->con->title, "width", o->con->width, "height", o->con->height, "base_width", bw,
                         "base_height", bh, "buttons", o->con->buttons,
                         "frame_rate", fps, "cart", o->describe, "frames", frames, "ram_bytes", (Py_ssize_t)ram,
                         "video", emu_renderer_name(o->video), "audio_rate", o->con->audio_rate, "audio_channels",
                         o->con->audio_channels);
}

static PyMethodDef Console_methods[] = {
    {"step", (PyCFunction)Console_step, METH_VARARGS, "step(buttons, frames, out, grey[, down]) -> frames run"},
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
    if (PyType_Ready(&Drop7Type) < 0 || PyType_Ready(&ConsoleType) < 0)
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
        PyModule_AddObjectRef(m, "Console", (PyObject *)&ConsoleType) < 0)
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
