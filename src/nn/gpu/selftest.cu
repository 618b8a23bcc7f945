/* selftest.cu: naive device references for the convolution kernels and the kernel-level
 * self-test (selftest.h). The naive kernels compute one output per thread, accumulating
 * in double, in the most direct form of the definition. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "nn/gpu/gpu_nn.h"
#include "nn/gpu/selftest.h"

static __device__ __forceinline__ double ldd(const float *p) { return *p; }
static __device__ __forceinline__ double ldd(const gv_bf16 *p) { return gv_bf16_to_f32(*p); }
static __device__ __forceinline__ void std1(float *p, double v) { *p = (float)v; }
static __device__ __forceinline__ void std1(gv_bf16 *p, double v) { *p = gv_f32_to_bf16((float)v); }

template <typename T>
__global__ void conv_fwd_naive(const T *X, const T *W, T *Y, const T *R, int M, int cin, int cout)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)M * cout)
        return;
    int m = (int)(i / cout), co = (int)(i % cout);
    int n = m / 49, pos = m % 49, y = pos / 7, x = pos % 7;
    double acc = 0;
    for (int t = 0; t < 9; t++) {
        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        if (iy < 0 || iy >= 7 || ix < 0 || ix >= 7)
            continue;
        for (int ci = 0; ci < cin; ci++)
            acc += ldd(X + ((size_t)n * 49 + iy * 7 + ix) * cin + ci) * ldd(W + (size_t)co * 9 * cin + t * cin + ci);
    }
    if (R)
        acc += ldd(R + i);
    std1(Y + i, acc);
}

template <typename T>
__global__ void conv_wgrad_naive(const T *DY, const T *X, float *DW, int M, int cin, int cout, int cin_real)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)cout * cin_real * 9)
        return;
    int t = (int)(i % 9), ci = (int)((i / 9) % cin_real), co = (int)(i / 9 / cin_real);
    double acc = 0;
    for (int m = 0; m < M; m++) {
        int n = m / 49, pos = m % 49, y = pos / 7, x = pos % 7;
        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        if (iy < 0 || iy >= 7 || ix < 0 || ix >= 7)
            continue;
        acc += ldd(DY + (size_t)m * cout + co) * ldd(X + ((size_t)n * 49 + iy * 7 + ix) * cin + ci);
    }
    DW[i] += (float)acc;
}

gv_status gpu_conv3x3_fwd_naive(const conv_args *a, cudaStream_t st, gv_err *err)
{
    unsigned g = gpu_blocks((size_t)a->M * a->cout, 128);
    if (a->dt == GPU_F32)
        conv_fwd_naive<float><<<g, 128, 0, st>>>((const float *)a->x, (const float *)a->w, (float *)a->y,
                                                 (const float *)a->res, a->M, a->cin, a->cout);
    else
        conv_fwd_naive<gv_bf16><<<g, 128, 0, st>>>((const gv_bf16 *)a->x, (const gv_bf16 *)a->w, (gv_bf16 *)a->y,
                                                   (const gv_bf16 *)a->res, a->M, a->cin, a->cout);
    GPU_LAUNCHED(err, "naive conv3x3 forward");
    return GV_OK;
}

gv_status gpu_conv3x3_wgrad_naive(const wgrad_args *a, cudaStream_t st, gv_err *err)
{
    unsigned g = gpu_blocks((size_t)a->cout * a->cin_real * 9, 128);
    if (a->dt == GPU_F32)
        conv_wgrad_naive<float><<<g, 128, 0, st>>>((const float *)a->dy, (const float *)a->x, a->dw, a->M, a->cin,
                                                   a->cout, a->cin_real);
    else
        conv_wgrad_naive<gv_bf16><<<g, 128, 0, st>>>((const gv_bf16 *)a->dy, (const gv_bf16 *)a->x, a->dw, a->M,
                                                     a->cin, a->cout, a->cin_real);
    GPU_LAUNCHED(err, "naive conv3x3 weight gradient");
    return GV_OK;
}

/* ---- the self-test ---------------------------------------------------------------------- */
typedef struct {
    gv_rng rng;
    int fails;
} ctx;

/* Random values in [-1, 1) stored as dt; channels >= cin_real of each row are zero (the
 * stem's padding), when cin_real < row. */
static void *upload_random(ctx *c, size_t rows, int row, int cin_real, gpu_dtype dt)
{
    size_t n = rows * row, es = dt == GPU_BF16 ? 2 : 4;
    void *h = malloc(n * es), *d = NULL;
    for (size_t i = 0; i < n; i++) {
        float v = (i % row) < (size_t)cin_real ? (float)(2.0 * gv_rng_uniform(&c->rng) - 1.0) : 0.f;
        if (dt == GPU_BF16)
            ((gv_bf16 *)h)[i] = gv_f32_to_bf16(v);
        else
            ((float *)h)[i] = v;
    }
    if (cudaMalloc(&d, n * es) != cudaSuccess || cudaMemcpy(d, h, n * es, cudaMemcpyHostToDevice) != cudaSuccess)
        d = NULL;
    free(h);
    return d;
}

static double *download(const void *d, size_t n, gpu_dtype dt)
{
    size_t es = dt == GPU_BF16 ? 2 : 4;
    void *h = malloc(n * es);
    double *o = (double *)malloc(n * sizeof(double));
    cudaMemcpy(h, d, n * es, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; i++)
        o[i] = dt == GPU_BF16 ? gv_bf16_to_f32(((gv_bf16 *)h)[i]) : ((float *)h)[i];
    free(h);
    return o;
}

static double rel_l2(const double *a, const double *b, size_t n, size_t *nonfinite)
{
    double num = 0, den = 0;
    *nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) {
            (*nonfinite)++;
            continue;
        }
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return *nonfinite ? INFINITY : (den > 0 ? sqrt(num / den) : sqrt(num));
}

static void report(ctx *c, int ok, const char *what, double err_, double tol, size_t nonfinite)
{
    printf("%s gpu %s: rel_l2 %.3g (tolerance %.0e)%s\n", ok ? "PASS" : "FAIL", what, err_, tol,
           nonfinite ? " with non-finite outputs" : "");
    fflush(stdout);
    if (!ok)
        c->fails++;
}

static void test_fwd(ctx *c, int n, int cin, int cin_real, int cout, gpu_dtype dt, int mma, int with_res)
{
    const int M = n * 49;
    const size_t es = dt == GPU_BF16 ? 2 : 4;
    void *x = upload_random(c, (size_t)M, cin, cin_real, dt);
    void *w = upload_random(c, (size_t)cout, 9 * cin, 9 * cin, dt);
    void *r = with_res ? upload_random(c, (size_t)M, cout, cout, dt) : NULL;
    void *y1 = NULL, *y2 = NULL;
    cudaMalloc(&y1, es * M * cout);
    cudaMalloc(&y2, es * M * cout);
    gv_err e;
    char what[160];
    snprintf(what, sizeof what, "conv3x3 forward %s %s n=%d cin=%d cout=%d%s", dt == GPU_BF16 ? "bf16" : "fp32",
             mma ? "tensor-core" : "simt", n, cin, cout, with_res ? " +residual" : "");
    if (!x || !w || !y1 || !y2 || (with_res && !r)) {
        report(c, 0, what, INFINITY, 0, 0);
        goto out;
    }
    {
        cudaMemset(y1, 0xff, es * M * cout);
        conv_args a = {x, w, y1, r, M, cin, cout, dt, 0};
        gv_status s1 = gpu_conv3x3_fwd(&a, mma, 0, &e);
        a.y = y2;
        gv_status s2 = gpu_conv3x3_fwd_naive(&a, 0, &e);
        cudaError_t ce = cudaDeviceSynchronize();
        if (s1 != GV_OK || s2 != GV_OK || ce != cudaSuccess) {
            printf("FAIL gpu %s: %s\n", what, ce != cudaSuccess ? cudaGetErrorString(ce) : e.msg);
            c->fails++;
            goto out;
        }
        size_t cnt = (size_t)M * cout, nf;
        double *h1 = download(y1, cnt, dt), *h2 = download(y2, cnt, dt);
        double tol = dt == GPU_BF16 ? 1e-2 : 1e-5;
        double d = rel_l2(h1, h2, cnt, &nf);
        report(c, d <= tol, what, d, tol, nf);
        free(h1);
        free(h2);
    }
out:
    cudaFree(x);
    cudaFree(w);
    cudaFree(r);
    cudaFree(y1);
    cudaFree(y2);
}

static void test_wgrad(ctx *c, int n, int cin, int cin_real, int cout, gpu_dtype dt, int mma)
{
    const int M = n * 49;
    void *dy = upload_random(c, (size_t)M, cout, cout, dt);
    void *x = upload_random(c, (size_t)M, cin, cin_real, dt);
    float *w1 = NULL, *w2 = NULL;
    size_t cnt = (size_t)cout * cin_real * 9;
    cudaMalloc((void **)&w1, sizeof(float) * cnt);
    cudaMalloc((void **)&w2, sizeof(float) * cnt);
    gv_err e;
    char what[160];
    snprintf(what, sizeof what, "conv3x3 wgrad %s %s n=%d cin=%d (real %d) cout=%d", dt == GPU_BF16 ? "bf16" : "fp32",
             mma ? "tensor-core" : "simt", n, cin, cin_real, cout);
    if (!dy || !x || !w1 || !w2) {
        report(c, 0, what, INFINITY, 0, 0);
        goto out;
    }
    {
        cudaMemset(w1, 0, sizeof(float) * cnt);
        cudaMemset(w2, 0, sizeof(float) * cnt);
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        size_t wse = (size_t)64 * cout * 9 * cin;
        float *ws = NULL;
        cudaMalloc((void **)&ws, sizeof(float) * wse);
        wgrad_args a = {dy, x, w1, ws, wse, M, cin, cout, cin_real, dt, 0, p.multiProcessorCount};
        gv_status s1 = gpu_conv3x3_wgrad(&a, mma, 0, &e);
        a.dw = w2;
        gv_status s2 = gpu_conv3x3_wgrad_naive(&a, 0, &e);
        cudaError_t ce = cudaDeviceSynchronize();
        cudaFree(ws);
        if (s1 != GV_OK || s2 != GV_OK || ce != cudaSuccess) {
            printf("FAIL gpu %s: %s\n", what, ce != cudaSuccess ? cudaGetErrorString(ce) : e.msg);
            c->fails++;
            goto out;
        }
        size_t nf;
        double *h1 = download(w1, cnt, GPU_F32), *h2 = download(w2, cnt, GPU_F32);
        double tol = 1e-4;
        double d = rel_l2(h1, h2, cnt, &nf);
        report(c, d <= tol, what, d, tol, nf);
        free(h1);
        free(h2);
    }
out:
    cudaFree(dy);
    cudaFree(x);
    cudaFree(w1);
    cudaFree(w2);
}

/* Times one kernel: the median of 9 runs after 2 warm-up runs, with events. */
typedef gv_status (*kernel_fn)(void *args, cudaStream_t st, gv_err *err);

static double time_kernel(kernel_fn f, void *args, void (*reset)(void *), gv_err *err)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double t[9];
    for (int r = -2; r < 9; r++) {
        if (reset)
            reset(args);
        cudaEventRecord(e0, 0);
        if (f(args, 0, err) != GV_OK)
            return -1;
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0)
            t[r] = ms * 1e-3;
    }
    for (int i = 0; i < 9; i++)
        for (int j = i + 1; j < 9; j++)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return t[4];
}

typedef struct {
    conv_args c;
    wgrad_args w;
    int mma;
    size_t dw_bytes;
} bench_args;

static gv_status run_fwd(void *p, cudaStream_t st, gv_err *err)
{
    bench_args *b = (bench_args *)p;
    return gpu_conv3x3_fwd(&b->c, b->mma, st, err);
}

static gv_status run_wgrad(void *p, cudaStream_t st, gv_err *err)
{
    bench_args *b = (bench_args *)p;
    return gpu_conv3x3_wgrad(&b->w, b->mma, st, err);
}

static void reset_dw(void *p)
{
    bench_args *b = (bench_args *)p;
    cudaMemsetAsync(b->w.dw, 0, b->dw_bytes, 0);
}

/* Prints the time and rate of each convolution kernel at a training-sized batch. */
extern "C" void nn_gpu_kernel_bench(int device_index, int batch, int C)
{
    cudaSetDevice(device_index);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, device_index);
    ctx c;
    gv_rng_seed(&c.rng, 1);
    c.fails = 0;
    const int M = batch * 49;
    const double flops = 2.0 * M * C * 9.0 * C;
    for (int pass = 0; pass < 3; pass++) {
        gpu_dtype dt = pass == 0 ? GPU_F32 : GPU_BF16;
        int mma = pass == 2;
        if (mma && !(GV_HAVE_MMA_BUILD && p.major >= 8))
            continue;
        void *x = upload_random(&c, (size_t)M, C, C, dt), *w = upload_random(&c, (size_t)C, 9 * C, 9 * C, dt);
        void *y = upload_random(&c, (size_t)M, C, C, dt);
        float *dw = NULL, *ws = NULL;
        size_t wse = (size_t)64 * C * 9 * C;
        cudaMalloc((void **)&dw, sizeof(float) * C * C * 9);
        cudaMalloc((void **)&ws, sizeof(float) * wse);
        gv_err e;
        bench_args b;
        memset(&b, 0, sizeof b);
        b.c = (conv_args){x, w, y, NULL, M, C, C, dt, 0};
        b.w = (wgrad_args){y, x, dw, ws, wse, M, C, C, C, dt, 0, p.multiProcessorCount};
        b.mma = mma;
        b.dw_bytes = sizeof(float) * C * C * 9;
        double tf = time_kernel(run_fwd, &b, NULL, &e);
        double tw = time_kernel(run_wgrad, &b, reset_dw, &e);
        printf("# kernel bench %s %-11s batch %d C %d: forward %.3f ms (%.1f TFLOP/s), wgrad %.3f ms (%.1f TFLOP/s)\n",
               dt == GPU_BF16 ? "bf16" : "fp32", mma ? "tensor-core" : "simt", batch, C, tf * 1e3, flops / tf * 1e-12,
               tw * 1e3, flops / tw * 1e-12);
        fflush(stdout);
        cudaFree(x);
        cudaFree(w);
        cudaFree(y);
        cudaFree(dw);
        cudaFree(ws);
    }
}

extern "C" int nn_gpu_selftest(int device_index, unsigned long long seed)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= device_index) {
        cudaGetLastError();
        printf("SKIP gpu kernels: no GPU %d (%s)\n", device_index, e != cudaSuccess ? cudaGetErrorString(e) : "not present");
        return -1;
    }
    cudaSetDevice(device_index);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, device_index);
    int mma_ok = GV_HAVE_MMA_BUILD && p.major >= 8;
    ctx c;
    gv_rng_seed(&c.rng, seed);
    c.fails = 0;
    printf("# gpu kernel self-test on %s, seed %llu\n", p.name, seed);
    /* shapes: the stem (12 channels padded to 16), full blocks at 128 and 64 channels, a
     * narrow 32-channel layer; 37 samples (1813 rows) so that no tile is full */
    const int shapes[][3] = {{16, 12, 128}, {128, 128, 128}, {64, 64, 64}, {32, 32, 32}, {128, 128, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int cin = shapes[s][0], real = shapes[s][1], cout = shapes[s][2];
        test_fwd(&c, 37, cin, real, cout, GPU_F32, 0, s == 1);
        test_fwd(&c, 37, cin, real, cout, GPU_BF16, 0, 0);
        if (mma_ok)
            test_fwd(&c, 37, cin, real, cout, GPU_BF16, 1, s == 1);
        test_wgrad(&c, 37, cin, real, cout, GPU_F32, 0);
        if (mma_ok)
            test_wgrad(&c, 37, cin, real, cout, GPU_BF16, 1);
    }
    /* more rows than one split, for the split-K reduction */
    test_wgrad(&c, 700, 128, 128, 128, GPU_F32, 0);
    if (mma_ok) {
        test_wgrad(&c, 700, 128, 128, 128, GPU_BF16, 1);
        test_fwd(&c, 700, 128, 128, 128, GPU_BF16, 1, 1);
    } else {
        printf("SKIP gpu tensor-core kernels: %s\n", GV_GPU_IS_HIP ? "not built for HIP" : "GPU older than sm_80");
    }
    return c.fails;
}
