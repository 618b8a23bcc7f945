/* conv_cudnn.cu: the 3x3 convolutions through NVIDIA's cuDNN 9, loaded at run time with
 * dlopen (no link-time dependency: without the library the own kernels of conv_mma.cu and
 * conv_simt.cu run). Legacy convolution API, NHWC activations and KRSC filters, which are
 * our layouts: activations (M = N*49, C) are (N, 7, 7, C); weights W[co][t*cin + ci] with
 * t = ky*3 + kx are (K, R, S, C). fp32 accumulation; bf16 on tensor cores, fp32 on FMA
 * units (TF32 tensor cores only when asked).
 *
 *   forward, data gradient: cudnnConvolutionForward (the data gradient is the forward
 *     through the flipped weights wd that the trainer prepares, as for the own kernels);
 *     the residual is copied into y first and added with beta = 1 (before rounding).
 *   weight gradient: cudnnConvolutionBackwardFilter into a dW of the data type in KRSC,
 *     then one small kernel adds it into our fp32 gradient in PyTorch layout
 *     (cout, cin_real, 3, 3), dropping the stem's padded input channels.
 *
 * The algorithm of each shape is the fastest deterministic one that cudnnFind*Ex measures
 * within the workspace given, among those that sum products directly (no FFT, no Winograd) (found once, on the caller's real buffers; never during a
 * stream capture). The reference beside this path is the naive kernels of selftest.cu. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/gpu/gpu_nn.h"

#if GV_HAVE_CUDNN && !GV_GPU_IS_HIP
#include <cudnn.h>

/* ---- the library, loaded once per process -------------------------------------------- */
#define DNN_FUNCS(X)                                                                               \
    X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream)     \
    X(cudnnCreateTensorDescriptor) X(cudnnSetTensor4dDescriptor) X(cudnnDestroyTensorDescriptor)   \
    X(cudnnCreateFilterDescriptor) X(cudnnSetFilter4dDescriptor) X(cudnnDestroyFilterDescriptor)   \
    X(cudnnCreateConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor)                         \
    X(cudnnSetConvolutionMathType) X(cudnnDestroyConvolutionDescriptor)                            \
    X(cudnnFindConvolutionForwardAlgorithmEx) X(cudnnFindConvolutionBackwardFilterAlgorithmEx)     \
    X(cudnnConvolutionForward) X(cudnnConvolutionBackwardFilter)

/* function pointer types from the header's prototypes */
#define DNN_TYPE(f) typedef decltype(&f) f##_fn;
DNN_FUNCS(DNN_TYPE)
#undef DNN_TYPE
typedef decltype(&cudnnGetLastErrorString) cudnnGetLastErrorString_fn;

static struct {
    void *so;
    char why[320];      /* why the library cannot be used; empty when it can */
    char name[32];      /* "cudnn 9.10.2" */
#define DNN_PTR(f) f##_fn f;
    DNN_FUNCS(DNN_PTR)
#undef DNN_PTR
    cudnnGetLastErrorString_fn last_error; /* optional */
} L;
static pthread_once_t L_once = PTHREAD_ONCE_INIT;

static void dnn_load(void)
{
    const char *e = getenv("GV_CUDNN_LIB");
    const char *lib = e && *e ? e : "libcudnn.so.9";
    L.so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!L.so) {
        const char *de = dlerror();
        snprintf(L.why, sizeof L.why, "%s not loadable (%.200s)", lib, de ? de : "dlopen failed");
        return;
    }
#define DNN_SYM(f)                                                                                 \
    *(void **)&L.f = dlsym(L.so, #f);                                                              \
    if (!L.f) {                                                                                    \
        snprintf(L.why, sizeof L.why, "%s lacks %s", lib, #f);                                     \
        return;                                                                                    \
    }
    DNN_FUNCS(DNN_SYM)
#undef DNN_SYM
    *(void **)&L.last_error = dlsym(L.so, "cudnnGetLastErrorString");
    size_t v = L.cudnnGetVersion();
    snprintf(L.name, sizeof L.name, "cudnn %zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    if (v / 10000 != CUDNN_MAJOR)
        snprintf(L.why, sizeof L.why, "%s is %s, this gpuvet was built for cuDNN %d", lib, L.name, CUDNN_MAJOR);
}

/* cuDNN's status on the one GPU error path (GV_GPU, gpu_common.h), with the library's own
 * account of the last error where it gives one. */
static gv_status gv_gpu_check(cudnnStatus_t s, const char *call, const char *file, int line, gv_err *err)
{
    if (s == CUDNN_STATUS_SUCCESS)
        return GV_OK;
    char why[320], more[256] = "";
    if (L.last_error)
        L.last_error(more, sizeof more);
    snprintf(why, sizeof why, "%s%s%.200s", L.cudnnGetErrorString(s), more[0] ? ": " : "", more);
    return gv_gpu_fail(err, "cuDNN", call, why, NULL, file, line);
}

/* ---- plans: descriptors and algorithm per shape --------------------------------------- */
enum { OP_FWD = 0, OP_WGRAD = 1 };

typedef struct {
    int used, op, M, cin, cout, tf32;
    gpu_dtype dt;
    unsigned long last;             /* when it was last asked for (the least recent goes first) */
    cudnnTensorDescriptor_t xd, yd; /* (N, cin, 7, 7) and (N, cout, 7, 7), NHWC */
    cudnnFilterDescriptor_t wd;     /* (cout, cin, 3, 3), KRSC */
    cudnnConvolutionDescriptor_t cd;
    int algo;
    size_t ws;
    float ms;                       /* what cudnnFind measured */
} dnn_plan;

#define DNN_PLANS 32

struct gpu_dnn {
    cudnnHandle_t h;
    void *ws;            /* the caller's workspace */
    size_t ws_bytes;
    void *dw;            /* a weight gradient in the data type, KRSC (max_dw elements, fp32-sized) */
    size_t max_dw;
    dnn_plan plans[DNN_PLANS];
    unsigned long clock; /* counts plan requests */
};

static void plan_free(dnn_plan *p)
{
    if (!p->used)
        return;
    if (p->xd)
        (void)L.cudnnDestroyTensorDescriptor(p->xd);
    if (p->yd)
        (void)L.cudnnDestroyTensorDescriptor(p->yd);
    if (p->wd)
        (void)L.cudnnDestroyFilterDescriptor(p->wd);
    if (p->cd)
        (void)L.cudnnDestroyConvolutionDescriptor(p->cd);
    memset(p, 0, sizeof *p);
}

static const char *dt_name(gpu_dtype dt)
{
    return dt == GPU_BF16 ? "bf16" : "fp32";
}

/* The descriptors of p's shape; math: the math type the convolution may use. */
static gv_status plan_descs(dnn_plan *p, cudnnMathType_t math, gv_err *err)
{
    const cudnnDataType_t t = p->dt == GPU_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
    const int n = p->M / NN_CELLS;
    GV_GPU_TRY(L.cudnnCreateTensorDescriptor(&p->xd), err);
    GV_GPU_TRY(L.cudnnCreateTensorDescriptor(&p->yd), err);
    GV_GPU_TRY(L.cudnnCreateFilterDescriptor(&p->wd), err);
    GV_GPU_TRY(L.cudnnCreateConvolutionDescriptor(&p->cd), err);
    GV_GPU_TRY(L.cudnnSetTensor4dDescriptor(p->xd, CUDNN_TENSOR_NHWC, t, n, p->cin, 7, 7), err);
    GV_GPU_TRY(L.cudnnSetTensor4dDescriptor(p->yd, CUDNN_TENSOR_NHWC, t, n, p->cout, 7, 7), err);
    GV_GPU_TRY(L.cudnnSetFilter4dDescriptor(p->wd, t, CUDNN_TENSOR_NHWC, p->cout, p->cin, 3, 3), err);
    GV_GPU_TRY(L.cudnnSetConvolution2dDescriptor(p->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
               err);
    GV_GPU_TRY(L.cudnnSetConvolutionMathType(p->cd, math), err);
    return GV_OK;
}

/* Which results of cudnnFind are acceptable: run successfully, fit the workspace, and for
 * true fp32 use no tensor cores (no TF32; the descriptor's FMA math type already asks for
 * that, and the result may report the default math type for such an algorithm).
 * Only algorithms that sum the products directly (implicit or explicit GEMM, direct), not
 * FFT or Winograd transforms, whose rounding would not meet the fp32 check's 1e-5.
 * Deterministic ones are preferred. */
static int direct_sum(int op, int algo)
{
    if (op == OP_FWD)
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
}

template <typename Perf>
static int pick(dnn_plan *p, const Perf *r, int n, size_t ws, int fma_only, cudnnMathType_t *math)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= ws && direct_sum(p->op, (int)r[i].algo) &&
                (!fma_only ||
                 (r[i].mathType != CUDNN_TENSOR_OP_MATH && r[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)) &&
                (pass || r[i].determinism == CUDNN_DETERMINISTIC)) {
                p->algo = (int)r[i].algo, p->ws = r[i].memory, p->ms = r[i].time, *math = r[i].mathType;
                return i;
            }
    return -1;
}

static int is_capturing(cudaStream_t st)
{
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(st, &cs) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return cs != cudaStreamCaptureStatusNone;
}

/* The plan for a shape, measured with cudnnFind on the given buffers the first time (y or
 * dw is overwritten then). */
static gv_status plan_get(gpu_dnn *h, int op, int M, int cin, int cout, gpu_dtype dt, int tf32, const void *x,
                          const void *w, void *y, cudaStream_t st, dnn_plan **out, gv_err *err)
{
    tf32 = tf32 && dt == GPU_F32;
    if (cin % 8 || cout % 8 || M <= 0 || M % NN_CELLS)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3 (cuDNN): %d rows of %d -> %d channels are not whole 7x7 boards of "
                       "multiples of 8 channels", M, cin, cout);
    if (op == OP_WGRAD && (size_t)cout * 9 * cin > h->max_dw)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3 wgrad (cuDNN): a %d x 9 x %d weight gradient exceeds the %zu "
                       "elements reserved", cout, cin, h->max_dw);
    dnn_plan *p = &h->plans[0];
    h->clock++;
    for (int i = 0; i < DNN_PLANS; i++) {
        dnn_plan *q = &h->plans[i];
        if (q->used && q->op == op && q->M == M && q->cin == cin && q->cout == cout && q->dt == dt && q->tf32 == tf32) {
            q->last = h->clock;
            *out = q;
            return GV_OK;
        }
        if (q->last < p->last)
            p = q; /* unused slots have last 0 */
    }
    const char *what = op == OP_FWD ? "forward" : "weight gradient";
    if (is_capturing(st))
        return gv_fail(err, GV_ERR_ENV,
                       "cuDNN: no algorithm chosen yet for the %s %s convolution of %d rows, %d -> %d channels, "
                       "and none can be measured during a graph capture",
                       dt_name(dt), what, M, cin, cout);
    plan_free(p);
    p->last = h->clock;
    p->used = 1, p->op = op, p->M = M, p->cin = cin, p->cout = cout, p->dt = dt, p->tf32 = tf32;
    const int fma_only = dt == GPU_F32 && !tf32;
    gv_status s = plan_descs(p, fma_only ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH, err);
    if (s != GV_OK) {
        plan_free(p);
        return s;
    }
    s = GV_GPU_NAMED(L.cudnnSetStream(h->h, st), "cudnnSetStream", err);
    int n = 0, k = -1;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    if (s == GV_OK && op == OP_FWD) {
        cudnnConvolutionFwdAlgoPerf_t r[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        s = GV_GPU_NAMED(L.cudnnFindConvolutionForwardAlgorithmEx(h->h, p->xd, x, p->wd, w, p->cd, p->yd, y,
                                                                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, r, h->ws,
                                                                  h->ws_bytes),
                         "cudnnFindConvolutionForwardAlgorithmEx", err);
        if (s == GV_OK)
            k = pick(p, r, n, h->ws_bytes, fma_only, &math);
    } else if (s == GV_OK) {
        cudnnConvolutionBwdFilterAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        /* x: the layer's input, w: the output gradient dy, y: the weight gradient */
        s = GV_GPU_NAMED(L.cudnnFindConvolutionBackwardFilterAlgorithmEx(h->h, p->xd, x, p->yd, w, p->cd, p->wd, y,
                                                                         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n,
                                                                         r, h->ws, h->ws_bytes),
                         "cudnnFindConvolutionBackwardFilterAlgorithmEx", err);
        if (s == GV_OK)
            k = pick(p, r, n, h->ws_bytes, fma_only, &math);
    }
    if (s == GV_OK && k < 0)
        s = gv_fail(err, GV_ERR_ENV,
                    "cuDNN: no %s algorithm for the %s %s convolution of %d rows, %d -> %d channels within a "
                    "workspace of %.1f MiB (%d tried)",
                    fma_only ? "FMA (non-TF32)" : "usable", dt_name(dt), what, M, cin, cout, h->ws_bytes / 1048576.0, n);
    /* run with the math type the chosen algorithm was measured with (true fp32: FMA only) */
    if (fma_only)
        math = CUDNN_FMA_MATH;
    if (s == GV_OK)
        s = GV_GPU_NAMED(L.cudnnSetConvolutionMathType(p->cd, math), "cudnnSetConvolutionMathType", err);
    /* one run of the choice as it will run, outside any capture (its first run may set up
     * more than a kernel launch), checked to the end */
    const float one = 1.f, zero = 0.f;
    if (s == GV_OK && op == OP_FWD)
        s = GV_GPU_NAMED(L.cudnnConvolutionForward(h->h, &one, p->xd, x, p->wd, w, p->cd,
                                                   (cudnnConvolutionFwdAlgo_t)p->algo, h->ws, p->ws, &zero, p->yd, y),
                         "cudnnConvolutionForward", err);
    else if (s == GV_OK)
        s = GV_GPU_NAMED(L.cudnnConvolutionBackwardFilter(h->h, &one, p->xd, x, p->yd, w, p->cd,
                                                          (cudnnConvolutionBwdFilterAlgo_t)p->algo, h->ws, p->ws, &zero,
                                                          p->wd, y),
                         "cudnnConvolutionBackwardFilter", err);
    if (s == GV_OK)
        s = GV_GPU(cudaStreamSynchronize(st), err);
    if (s != GV_OK) {
        plan_free(p);
        return s;
    }
    if (getenv("GV_CUDNN_VERBOSE"))
        printf("# %s: %s %s %d rows %d -> %d%s: algorithm %d, %.3f ms, workspace %zu bytes, math %d\n", L.name,
               dt_name(dt), what, M, cin, cout, tf32 ? " tf32" : "", p->algo, p->ms, p->ws, (int)math);
    *out = p;
    return GV_OK;
}

/* ---- kernels: the weight gradient into our layout, the fault hook ---------------------- */
static __device__ __forceinline__ float ld1(const float *p) { return *p; }
static __device__ __forceinline__ float ld1(const gv_bf16 *p) { return gv_bf16_to_f32(*p); }

/* dw (cout, cin_real, 3, 3) fp32 += src (cout, 3, 3, cin) */
template <typename T>
__global__ void dnn_dw_add(const T *__restrict__ src, float *__restrict__ dw, int cout, int cin, int cin_real)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)cout * cin_real * 9)
        return;
    int t = (int)(i % 9), ci = (int)((i / 9) % cin_real), co = (int)(i / 9 / cin_real);
    dw[i] += ld1(src + ((size_t)co * 9 + t) * cin + ci);
}

/* The test hook of the own kernels: outputs (row % 97 == 0, column 0) left as if unwritten
 * (the all-ones NaN pattern that gpu_poison fills). */
template <typename T>
__global__ void dnn_fault(T *y, int M, int cout)
{
    int r = (blockIdx.x * blockDim.x + threadIdx.x) * 97;
    if (r < M)
        y[(size_t)r * cout] = (T)~(T)0;
}

/* ---- the interface --------------------------------------------------------------------- */
gv_status gpu_dnn_open(gpu_dnn **out, void *ws, size_t ws_bytes, size_t max_dw, char *why, size_t why_len,
                       gv_err *err)
{
    *out = NULL;
    if (why_len)
        why[0] = 0;
    (void)pthread_once(&L_once, dnn_load);
    if (L.why[0]) {
        snprintf(why, why_len, "%s", L.why);
        return GV_OK;
    }
    gpu_dnn *h = (gpu_dnn *)calloc(1, sizeof *h);
    if (!h)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");
    cudnnStatus_t cs = L.cudnnCreate(&h->h);
    if (cs != CUDNN_STATUS_SUCCESS) {
        /* e.g. a library built for another CUDA major version than the driver's */
        snprintf(why, why_len, "%s: cudnnCreate failed: %s", L.name, L.cudnnGetErrorString(cs));
        free(h);
        return GV_OK;
    }
    h->ws = ws, h->ws_bytes = ws ? ws_bytes : 0, h->max_dw = max_dw;
    cudaError_t e = cudaMalloc(&h->dw, sizeof(float) * (max_dw ? max_dw : 1));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        (void)L.cudnnDestroy(h->h);
        free(h);
        return gv_fail(err, GV_ERR_ENV, "GPU out of memory allocating cuDNN's weight gradient (%.1f MiB): %s",
                       sizeof(float) * max_dw / 1048576.0, cudaGetErrorString(e));
    }
    *out = h;
    return GV_OK;
}

size_t gpu_dnn_bytes(const gpu_dnn *h)
{
    return h ? sizeof(float) * (h->max_dw ? h->max_dw : 1) : 0;
}

void gpu_dnn_close(gpu_dnn *h)
{
    if (!h)
        return;
    for (int i = 0; i < DNN_PLANS; i++)
        plan_free(&h->plans[i]);
    (void)cudaFree(h->dw);
    (void)L.cudnnDestroy(h->h);
    free(h);
}

const char *gpu_dnn_name(const gpu_dnn *h)
{
    return h ? L.name : "";
}

#define FWD_PLAN(h, a, tf32, st, p, err)                                                           \
    plan_get(h, OP_FWD, (a)->M, (a)->cin, (a)->cout, (a)->dt, tf32, (a)->x, (a)->w, (a)->y, st, p, err)
#define WGRAD_PLAN(h, a, tf32, st, p, err)                                                         \
    plan_get(h, OP_WGRAD, (a)->M, (a)->cin, (a)->cout, (a)->dt, tf32, (a)->x, (a)->dy, (h)->dw, st, p, err)

gv_status gpu_dnn_plan_fwd(gpu_dnn *h, const conv_args *a, int tf32, cudaStream_t st, gv_err *err)
{
    dnn_plan *p;
    return FWD_PLAN(h, a, tf32, st, &p, err);
}

gv_status gpu_dnn_fwd(gpu_dnn *h, const conv_args *a, int tf32, cudaStream_t st, gv_err *err)
{
    dnn_plan *p;
    GV_TRY(FWD_PLAN(h, a, tf32, st, &p, err));
    const size_t es = a->dt == GPU_BF16 ? 2 : 4;
    const float one = 1.f, zero = 0.f;
    if (a->res)
        GV_GPU_TRY(cudaMemcpyAsync(a->y, a->res, es * a->M * a->cout, cudaMemcpyDeviceToDevice, st), err);
    GV_GPU_TRY(L.cudnnSetStream(h->h, st), err);
    GV_GPU_TRY(L.cudnnConvolutionForward(h->h, &one, p->xd, a->x, p->wd, a->w, p->cd,
                                         (cudnnConvolutionFwdAlgo_t)p->algo, h->ws, p->ws, a->res ? &one : &zero, p->yd,
                                         a->y),
               err);
    if (a->fault) {
        unsigned g = gpu_blocks((size_t)(a->M + 96) / 97, 128);
        if (a->dt == GPU_BF16)
            dnn_fault<unsigned short><<<g, 128, 0, st>>>((unsigned short *)a->y, a->M, a->cout);
        else
            dnn_fault<unsigned><<<g, 128, 0, st>>>((unsigned *)a->y, a->M, a->cout);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    return GV_OK;
}

gv_status gpu_dnn_plan_wgrad(gpu_dnn *h, const wgrad_args *a, int tf32, cudaStream_t st, gv_err *err)
{
    dnn_plan *p;
    if (a->cin_real > a->cin)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3 wgrad (cuDNN): %d real input channels of %d", a->cin_real, a->cin);
    return WGRAD_PLAN(h, a, tf32, st, &p, err);
}

gv_status gpu_dnn_wgrad(gpu_dnn *h, const wgrad_args *a, int tf32, cudaStream_t st, gv_err *err)
{
    dnn_plan *p;
    GV_TRY(gpu_dnn_plan_wgrad(h, a, tf32, st, err));
    GV_TRY(WGRAD_PLAN(h, a, tf32, st, &p, err));
    const float one = 1.f, zero = 0.f;
    GV_GPU_TRY(L.cudnnSetStream(h->h, st), err);
    GV_GPU_TRY(L.cudnnConvolutionBackwardFilter(h->h, &one, p->xd, a->x, p->yd, a->dy, p->cd,
                                                (cudnnConvolutionBwdFilterAlgo_t)p->algo, h->ws, p->ws, &zero, p->wd,
                                                h->dw),
               err);
    unsigned g = gpu_blocks((size_t)a->cout * a->cin_real * 9, 256);
    if (a->dt == GPU_BF16)
        dnn_dw_add<gv_bf16><<<g, 256, 0, st>>>((const gv_bf16 *)h->dw, a->dw, a->cout, a->cin, a->cin_real);
    else
        dnn_dw_add<float><<<g, 256, 0, st>>>((const float *)h->dw, a->dw, a->cout, a->cin, a->cin_real);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

gv_status gpu_dnn_probe(gpu_dnn *h, int cin, int cout, gpu_dtype dt, int tf32, gv_err *err)
{
    const size_t es = dt == GPU_BF16 ? 2 : 4;
    void *x = NULL, *w = NULL, *y = NULL;
    gv_status s = GV_GPU(cudaMalloc(&x, es * NN_CELLS * cin), err);
    if (s == GV_OK)
        s = GV_GPU(cudaMalloc(&w, es * cout * 9 * cin), err);
    if (s == GV_OK)
        s = GV_GPU(cudaMalloc(&y, es * NN_CELLS * cout), err);
    if (s == GV_OK)
        s = GV_GPU(cudaMemset(x, 0, es * NN_CELLS * cin), err);
    if (s == GV_OK)
        s = GV_GPU(cudaMemset(w, 0, es * cout * 9 * cin), err);
    if (s == GV_OK)
        s = GV_GPU(cudaMemset(y, 0, es * NN_CELLS * cout), err);
    conv_args a = {x, w, y, NULL, NN_CELLS, cin, cout, dt, 0, NULL, 0, 0, 0};
    if (s == GV_OK)
        s = gpu_dnn_plan_fwd(h, &a, tf32, 0, err);
    wgrad_args g = {y, x, NULL, NULL, 0, NN_CELLS, cin, cout, cin, dt, 0, 0};
    if (s == GV_OK)
        s = gpu_dnn_plan_wgrad(h, &g, tf32, 0, err);
    gpu_free(x, w, y);
    return s;
}

#else /* no cuDNN header at build time, or HIP: the own kernels run */

gv_status gpu_dnn_open(gpu_dnn **out, void *ws, size_t ws_bytes, size_t max_dw, char *why, size_t why_len,
                       gv_err *err)
{
    *out = NULL;
    snprintf(why, why_len, "%s", GV_GPU_IS_HIP ? "cuDNN is NVIDIA's (a HIP build)"
                                               : "built without cuDNN's header (no $(CUDA_HOME)/include/cudnn.h)");
    return GV_OK;
}

size_t gpu_dnn_bytes(const gpu_dnn *h)
{
    return 0;
}

void gpu_dnn_close(gpu_dnn *h)
{
}

const char *gpu_dnn_name(const gpu_dnn *h)
{
    return "";
}

static gv_status dnn_absent(gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, "cuDNN: not in this build");
}

/* never reached: gpu_dnn_open gives no handle in this build */
#define DNN_ABSENT(fn, args)                                                                       \
    gv_status fn(gpu_dnn *h, const args *a, int tf32, cudaStream_t st, gv_err *err) { return dnn_absent(err); }
DNN_ABSENT(gpu_dnn_plan_fwd, conv_args)
DNN_ABSENT(gpu_dnn_fwd, conv_args)
DNN_ABSENT(gpu_dnn_plan_wgrad, wgrad_args)
DNN_ABSENT(gpu_dnn_wgrad, wgrad_args)
#undef DNN_ABSENT

gv_status gpu_dnn_probe(gpu_dnn *h, int cin, int cout, gpu_dtype dt, int tf32, gv_err *err)
{
    return dnn_absent(err);
}

#endif
