/* selftest.cu: naive device references for the convolution kernels and the kernel-level
 * self-test (selftest.h). The naive kernels compute one output per thread, accumulating
 * in double, in the most direct form of the definition; the norms, the loss, AdamW and the
 * heads are compared with the float64 host formulas of selftest_ref.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "nn/gpu/gpu_nn.h"
#include "nn/gpu/selftest.h"
#include "nn/gpu/selftest_ref.h"
#include "nn/ops.h"

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
    int n = m / NN_CELLS, pos = m % NN_CELLS, y = pos / 7, x = pos % 7;
    double acc = 0;
    for (int t = 0; t < 9; t++) {
        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        if (iy < 0 || iy >= 7 || ix < 0 || ix >= 7)
            continue;
        for (int ci = 0; ci < cin; ci++)
            acc += ldd(X + ((size_t)n * NN_CELLS + iy * 7 + ix) * cin + ci) *
                   ldd(W + (size_t)co * 9 * cin + t * cin + ci);
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
        int n = m / NN_CELLS, pos = m % NN_CELLS, y = pos / 7, x = pos % 7;
        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        if (iy < 0 || iy >= 7 || ix < 0 || ix >= 7)
            continue;
        acc += ldd(DY + (size_t)m * cout + co) * ldd(X + ((size_t)n * NN_CELLS + iy * 7 + ix) * cin + ci);
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
    GV_GPU_TRY(cudaGetLastError(), err);
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
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* ---- the self-test ---------------------------------------------------------------------- */
typedef struct {
    gv_rng rng;
    int fails;
    gpu_dnn *dnn;       /* cuDNN, when it loaded (the kernels' impl IMPL_CUDNN) */
    int brk;            /* GV_SELFTEST_BREAK=1: the norm, loss, AdamW and head references are made
                         * wrong on purpose (cmp_add), so that each of those comparisons must fail */
} ctx;

/* Which implementation a test runs: the own kernels (the launchers' GPU_CONV_* with the same
 * values: SIMT, mma.sync, wgmma, wgmma with TMA loads) or cuDNN. */
enum { IMPL_SIMT = GPU_CONV_SIMT, IMPL_MMA = GPU_CONV_MMA, IMPL_WGMMA = GPU_CONV_WGMMA, IMPL_TMA = GPU_CONV_WGMMA_TMA,
       IMPL_CUDNN };
static const char *impl_name[] = {"simt", "tensor-core", "wgmma", "wgmma-tma", "cudnn"};

/* IMPL_TMA where the TMA forms do not apply is an error here (the launcher would run the
 * cp.async form instead, and the test would not be testing what it names). */
static gv_status impl_fwd(ctx *c, const conv_args *a, int impl, gv_err *e)
{
    if (impl == IMPL_TMA && !gpu_conv_tma_applies(a))
        return gv_fail(e, GV_ERR_ENV, "the TMA forward does not apply to cin %d, M %d (or the driver lacks it)", a->cin,
                       a->M);
    return impl == IMPL_CUDNN ? gpu_dnn_fwd(c->dnn, a, 0, 0, e) : gpu_conv3x3_fwd(a, impl, 0, e);
}

static gv_status impl_wgrad(ctx *c, const wgrad_args *a, int impl, gv_err *e)
{
    /* the wgmma weight gradients split the rows in multiples of 64 */
    if (impl == IMPL_TMA && !gpu_conv_wgrad_tma_applies(a, 64))
        return gv_fail(e, GV_ERR_ENV, "the TMA weight gradient does not apply to cin %d, cout %d, M %d (or the driver lacks it)",
                       a->cin, a->cout, a->M);
    return impl == IMPL_CUDNN ? gpu_dnn_wgrad(c->dnn, a, 0, 0, e) : gpu_conv3x3_wgrad(a, impl, 0, e);
}

/* A runtime call that failed (GV_GPU's message names the call, file and line) is a FAIL
 * line and counts as a failure; returns whether the call succeeded. */
static int rt(ctx *c, gv_status s, const gv_err *e)
{
    if (s != GV_OK) {
        printf("FAIL gpu runtime: %s\n", e->msg);
        c->fails++;
    }
    return s == GV_OK;
}

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
    gv_err ge;
    if (!rt(c, GV_GPU(cudaMalloc(&d, n * es), &ge), &ge) ||
        !rt(c, GV_GPU(cudaMemcpy(d, h, n * es, cudaMemcpyHostToDevice), &ge), &ge)) {
        (void)cudaFree(d);
        d = NULL;
    }
    free(h);
    return d;
}

/* n values of dtype dt from the device as doubles (NaN everywhere when the copy fails). */
static double *download(ctx *c, const void *d, size_t n, gpu_dtype dt)
{
    size_t es = dt == GPU_BF16 ? 2 : 4;
    void *h = malloc(n * es);
    double *o = (double *)malloc(n * sizeof(double));
    gv_err ge;
    int ok = rt(c, GV_GPU(cudaMemcpy(h, d, n * es, cudaMemcpyDeviceToHost), &ge), &ge);
    for (size_t i = 0; i < n; i++)
        o[i] = !ok ? NAN : dt == GPU_BF16 ? gv_bf16_to_f32(((gv_bf16 *)h)[i]) : ((float *)h)[i];
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

/* The forward kernel against the naive one. split: 0 none; -1 split-K as the trainer picks
 * it for sm_count multiprocessors; > 0 that many K splits. */
static void test_fwd_split(ctx *c, int n, int cin, int cin_real, int cout, gpu_dtype dt, int impl, int with_res,
                           int split, int sm_count)
{
    gv_err ge;
    const int M = n * NN_CELLS;
    const size_t es = dt == GPU_BF16 ? 2 : 4, ws_elems = (size_t)32 * M * cout;
    void *x = upload_random(c, (size_t)M, cin, cin_real, dt);
    void *w = upload_random(c, (size_t)cout, 9 * cin, 9 * cin, dt);
    void *r = with_res ? upload_random(c, (size_t)M, cout, cout, dt) : NULL;
    void *y1 = NULL, *y2 = NULL, *ws = NULL;
    rt(c, GV_GPU(cudaMalloc(&y1, es * M * cout), &ge), &ge);
    rt(c, GV_GPU(cudaMalloc(&y2, es * M * cout), &ge), &ge);
    if (split)
        rt(c, GV_GPU(cudaMalloc(&ws, sizeof(float) * ws_elems), &ge), &ge);
    gv_err e;
    char what[160], how[48] = "";
    if (split)
        snprintf(how, sizeof how, split < 0 ? " split-K (auto, %d SMs)" : " split-K %d", split < 0 ? sm_count : split);
    snprintf(what, sizeof what, "conv3x3 forward %s %s n=%d cin=%d cout=%d%s%s", dt == GPU_BF16 ? "bf16" : "fp32",
             impl_name[impl], n, cin, cout, with_res ? " +residual" : "", how);
    if (!x || !w || !y1 || !y2 || (with_res && !r) || (split && !ws)) {
        report(c, 0, what, INFINITY, 0, 0);
        goto out;
    }
    {
        rt(c, GV_GPU(cudaMemset(y1, 0xff, es * M * cout), &ge), &ge);
        if (ws) /* NaN partials: a split that wrote nothing would show */
            rt(c, GV_GPU(cudaMemset(ws, 0xff, sizeof(float) * ws_elems), &ge), &ge);
        conv_args a = {x, w, y1, r, M, cin, cout, dt, 0, (float *)ws, ws ? ws_elems : 0, sm_count, split > 0 ? split : 0};
        gv_status s1 = impl_fwd(c, &a, impl, &e);
        a.y = y2;
        gv_status s2 = gpu_conv3x3_fwd_naive(&a, 0, &e);
        cudaError_t ce = cudaDeviceSynchronize();
        if (s1 != GV_OK || s2 != GV_OK || ce != cudaSuccess) {
            printf("FAIL gpu %s: %s\n", what, ce != cudaSuccess ? cudaGetErrorString(ce) : e.msg);
            c->fails++;
            goto out;
        }
        size_t cnt = (size_t)M * cout, nf;
        double *h1 = download(c, y1, cnt, dt), *h2 = download(c, y2, cnt, dt);
        double tol = dt == GPU_BF16 ? 1e-2 : 1e-5;
        double d = rel_l2(h1, h2, cnt, &nf);
        report(c, d <= tol, what, d, tol, nf);
        free(h1);
        free(h2);
    }
out:
    gpu_free(x, w, r, y1, y2, ws);
}

static void test_fwd(ctx *c, int n, int cin, int cin_real, int cout, gpu_dtype dt, int impl, int with_res)
{
    test_fwd_split(c, n, cin, cin_real, cout, dt, impl, with_res, 0, 0);
}

static void test_wgrad(ctx *c, int n, int cin, int cin_real, int cout, gpu_dtype dt, int impl)
{
    gv_err ge;
    const int M = n * NN_CELLS;
    void *dy = upload_random(c, (size_t)M, cout, cout, dt);
    void *x = upload_random(c, (size_t)M, cin, cin_real, dt);
    float *w1 = NULL, *w2 = NULL;
    size_t cnt = (size_t)cout * cin_real * 9;
    rt(c, GV_GPU(cudaMalloc((void **)&w1, sizeof(float) * cnt), &ge), &ge);
    rt(c, GV_GPU(cudaMalloc((void **)&w2, sizeof(float) * cnt), &ge), &ge);
    gv_err e;
    char what[160];
    snprintf(what, sizeof what, "conv3x3 wgrad %s %s n=%d cin=%d (real %d) cout=%d", dt == GPU_BF16 ? "bf16" : "fp32",
             impl_name[impl], n, cin, cin_real, cout);
    if (!dy || !x || !w1 || !w2) {
        report(c, 0, what, INFINITY, 0, 0);
        goto out;
    }
    {
        rt(c, GV_GPU(cudaMemset(w1, 0, sizeof(float) * cnt), &ge), &ge);
        rt(c, GV_GPU(cudaMemset(w2, 0, sizeof(float) * cnt), &ge), &ge);
        cudaDeviceProp p;
        rt(c, GV_GPU(cudaGetDeviceProperties(&p, 0), &ge), &ge);
        size_t wse = (size_t)64 * cout * 9 * cin;
        float *ws = NULL;
        rt(c, GV_GPU(cudaMalloc((void **)&ws, sizeof(float) * wse), &ge), &ge);
        wgrad_args a = {dy, x, w1, ws, wse, M, cin, cout, cin_real, dt, 0, p.multiProcessorCount};
        gv_status s1 = impl_wgrad(c, &a, impl, &e);
        a.dw = w2;
        gv_status s2 = gpu_conv3x3_wgrad_naive(&a, 0, &e);
        cudaError_t ce = cudaDeviceSynchronize();
        (void)cudaFree(ws);
        if (s1 != GV_OK || s2 != GV_OK || ce != cudaSuccess) {
            printf("FAIL gpu %s: %s\n", what, ce != cudaSuccess ? cudaGetErrorString(ce) : e.msg);
            c->fails++;
            goto out;
        }
        size_t nf;
        double *h1 = download(c, w1, cnt, GPU_F32), *h2 = download(c, w2, cnt, GPU_F32);
        /* cuDNN's bf16 weight gradient is rounded to bf16 before it is added in fp32 */
        double tol = impl == IMPL_CUDNN && dt == GPU_BF16 ? 1e-2 : 1e-4;
        double d = rel_l2(h1, h2, cnt, &nf);
        report(c, d <= tol, what, d, tol, nf);
        free(h1);
        free(h2);
    }
out:
    gpu_free(dy, x, w1, w2);
}

/* The outputs of one GroupNorm forward+backward, as doubles (dgb: dgamma then dbeta); with
 * the ReLU bit mask, bits_bad counts its bytes that differ from y > 0. */
typedef struct {
    double *y, *dx, *dres, *dgb;
    size_t bits_bad;
} gn_result;

static void gn_result_free(gn_result *r)
{
    free(r->y), free(r->dx), free(r->dres), free(r->dgb);
    memset(r, 0, sizeof *r);
}

/* GroupNorm forward (residual `res` when not NULL, ReLU when relu) then backward (the mask
 * from the forward's output when relu, or from its bit mask when bits; dres when want_dres)
 * with the kernels `impl`, on outputs poisoned with NaN beforehand (the bit mask with a
 * pattern); returns 0 after a FAIL line when a call failed. */
static int gn_run(ctx *c, const char *what, int impl, int n, int C, gpu_dtype dt, const void *x, const void *res,
                  const void *dout, int relu, int want_dres, int bits, const float *gb, gn_result *o)
{
    gv_err ge, e;
    const size_t cnt = (size_t)n * NN_CELLS * C, es = dt == GPU_BF16 ? 2 : 4, nbits = cnt * es / 16;
    void *y = NULL, *dx = NULL, *dres = NULL;
    uint8_t *mb = NULL;
    float *stats = NULL, *dgb = NULL;
    double *acc = NULL;
    memset(o, 0, sizeof *o);
    int ok = rt(c, GV_GPU(cudaMalloc(&y, es * cnt), &ge), &ge) && rt(c, GV_GPU(cudaMalloc(&dx, es * cnt), &ge), &ge) &&
             rt(c, GV_GPU(cudaMalloc(&dres, es * cnt), &ge), &ge) &&
             rt(c, GV_GPU(cudaMalloc((void **)&stats, sizeof(float) * 16 * n), &ge), &ge) &&
             rt(c, GV_GPU(cudaMalloc((void **)&dgb, sizeof(float) * 2 * C), &ge), &ge) &&
             rt(c, GV_GPU(cudaMalloc((void **)&acc, sizeof(double) * GPU_BN_SCRATCH(C)), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(dgb, 0, sizeof(float) * 2 * C), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(y, 0xff, es * cnt), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(dx, 0xff, es * cnt), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(dres, 0xff, es * cnt), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(acc, 0xff, sizeof(double) * GPU_BN_SCRATCH(C)), &ge), &ge) &&
             (!bits || (rt(c, GV_GPU(cudaMalloc((void **)&mb, nbits), &ge), &ge) &&
                        rt(c, GV_GPU(cudaMemset(mb, 0x5a, nbits), &ge), &ge)));
    if (ok) {
        norm_fwd_args fa;
        memset(&fa, 0, sizeof fa);
        fa.group = 1, fa.N = n, fa.C = C, fa.x = x, fa.res = res, fa.y = y, fa.relu = relu, fa.gamma = gb;
        fa.beta = gb + C, fa.mean = stats, fa.rstd = stats + 8 * n, fa.train = 1, fa.dt = dt, fa.impl = impl;
        fa.bits = mb;
        norm_bwd_args ba;
        memset(&ba, 0, sizeof ba);
        ba.group = 1, ba.N = n, ba.C = C, ba.x = x, ba.out = relu && !bits ? y : NULL, ba.dout = dout, ba.dx = dx;
        ba.bits = mb;
        ba.dres = want_dres ? dres : NULL, ba.gamma = gb, ba.mean = stats, ba.rstd = stats + 8 * n, ba.dgamma = dgb;
        ba.dbeta = dgb + C, ba.acc = acc, ba.sm_count = 132, ba.dt = dt, ba.impl = impl;
        gv_status s1 = gpu_norm_fwd(&fa, 0, &e);
        gv_status s2 = s1 == GV_OK ? gpu_norm_bwd(&ba, 0, &e) : s1;
        cudaError_t ce = cudaDeviceSynchronize();
        if (s1 != GV_OK || s2 != GV_OK || ce != cudaSuccess) {
            printf("FAIL gpu %s: %s\n", what, ce != cudaSuccess ? cudaGetErrorString(ce) : e.msg);
            c->fails++;
            ok = 0;
        }
    }
    if (ok) {
        o->y = download(c, y, cnt, dt);
        o->dx = download(c, dx, cnt, dt);
        o->dres = want_dres ? download(c, dres, cnt, dt) : NULL;
        o->dgb = download(c, dgb, 2 * (size_t)C, GPU_F32);
        uint8_t *hb = bits ? (uint8_t *)malloc(nbits) : NULL;
        if (bits && hb && rt(c, GV_GPU(cudaMemcpy(hb, mb, nbits, cudaMemcpyDeviceToHost), &ge), &ge) && o->y) {
            const int W = (int)(16 / es);
            for (size_t i = 0; i < nbits; i++) {
                unsigned want = 0;
                for (int k = 0; k < W; k++)
                    want |= (o->y[i * W + k] > 0 ? 1u : 0u) << k;
                o->bits_bad += hb[i] != want;
            }
        } else if (bits) {
            o->bits_bad = nbits; /* could not be read: counts as all wrong */
        }
        free(hb);
    }
    gpu_free(y, dx, dres, stats, dgb, acc, mb);
    return ok;
}

/* The float64 host computation of the same formulas from the same (rounded) inputs
 * (selftest_ref.h); the ReLU mask comes from the device's own (rounded) output gy, as in
 * training. hr NULL: no residual. Fills ry, rdx, rdr (the masked gradient) and rdg (dgamma
 * then dbeta). */
static void gn_reference(const double *hx, const double *hr, const double *hd, const float *hgb, const double *gy,
                         int relu, int n, int C, double *ry, double *rdx, double *rdr, double *rdg)
{
    const nn_kref_norm k = {1, 1, relu, n, C};
    double *gb = (double *)malloc(sizeof(double) * 2 * C), *st = (double *)malloc(sizeof(double) * 16 * n);
    for (int i = 0; i < 2 * C; i++)
        gb[i] = hgb[i];
    memset(rdg, 0, sizeof(double) * 2 * C);
    nn_kref_norm_forward(&k, hx, hr, gb, gb + C, NULL, NULL, st, st + 8 * n, ry);
    nn_kref_norm_backward(&k, hx, relu ? gy : NULL, hd, gb, st, st + 8 * n, rdx, rdr, rdg, rdg + C);
    free(gb);
    free(st);
}

/* rel_l2 of each output of r against ref (dres only when both have it); returns the worst,
 * the parameter sums counted at a tenth (they add n*49 terms per channel). */
static double gn_compare(const gn_result *r, const gn_result *ref, size_t cnt, int C, double e[4], size_t *nonfinite)
{
    size_t nf[4] = {0, 0, 0, 0};
    e[0] = rel_l2(r->y, ref->y, cnt, &nf[0]);
    e[1] = rel_l2(r->dx, ref->dx, cnt, &nf[1]);
    e[2] = r->dres && ref->dres ? rel_l2(r->dres, ref->dres, cnt, &nf[2]) : 0;
    e[3] = rel_l2(r->dgb, ref->dgb, 2 * (size_t)C, &nf[3]);
    *nonfinite = nf[0] + nf[1] + nf[2] + nf[3];
    return fmax(fmax(e[0], e[1]), fmax(e[2], e[3] / 10));
}

/* GroupNorm forward and backward (residual, ReLU, dres each on or off) against the host
 * float64 computation; where the coalesced kernels apply (gpu_gn_coalesced), both they and
 * the earlier ones run, each against the host, and the new against the old. */
static void test_gn(ctx *c, int n, int C, gpu_dtype dt, int with_res, int relu, int want_dres)
{
    const size_t cnt = (size_t)n * NN_CELLS * C;
    const int both = gpu_gn_coalesced(C, dt);
    const int with_bits = both && relu; /* r[2]: the coalesced kernels with the ReLU bit mask */
    char what[160];
    snprintf(what, sizeof what, "GroupNorm forward+backward %s n=%d C=%d%s%s%s (%s)", dt == GPU_BF16 ? "bf16" : "fp32",
             n, C, with_res ? " res" : "", relu ? " relu" : "", want_dres ? " dres" : "",
             with_bits ? "coalesced and earlier kernels, bit mask" : both ? "coalesced and earlier kernels"
                                                                        : "earlier kernels");
    void *x = upload_random(c, cnt / C, C, C, dt), *res = with_res ? upload_random(c, cnt / C, C, C, dt) : NULL;
    void *dout = upload_random(c, cnt / C, C, C, dt);
    float *gb = NULL;
    float *hgb = (float *)malloc(sizeof(float) * 2 * C);
    for (int i = 0; i < 2 * C; i++)
        hgb[i] = (float)(i < C ? 0.5 + gv_rng_uniform(&c->rng) : gv_rng_uniform(&c->rng) - 0.5);
    gv_err ge;
    gn_result r[3];
    memset(r, 0, sizeof r);
    int ok = x && dout && (res || !with_res) &&
             rt(c, GV_GPU(cudaMalloc((void **)&gb, sizeof(float) * 2 * C), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemcpy(gb, hgb, sizeof(float) * 2 * C, cudaMemcpyHostToDevice), &ge), &ge);
    /* r[0]: the earlier kernels; r[1]: the coalesced ones */
    ok = ok && gn_run(c, what, GPU_GN_OLD, n, C, dt, x, res, dout, relu, want_dres, 0, gb, &r[0]);
    ok = ok && (!both || gn_run(c, what, GPU_GN_NEW, n, C, dt, x, res, dout, relu, want_dres, 0, gb, &r[1]));
    ok = ok && (!with_bits || gn_run(c, what, GPU_GN_NEW, n, C, dt, x, res, dout, relu, want_dres, 1, gb, &r[2]));
    if (ok) {
        double *hx = download(c, x, cnt, dt), *hr = with_res ? download(c, res, cnt, dt) : NULL;
        double *hd = download(c, dout, cnt, dt);
        const double tol = dt == GPU_BF16 ? 1e-2 : 1e-5;
        double e[3][4], worst = 0;
        size_t nf = 0, k;
        for (int i = 0; i < 1 + both; i++) {
            gn_result ref = {(double *)malloc(sizeof(double) * cnt), (double *)malloc(sizeof(double) * cnt),
                             (double *)malloc(sizeof(double) * cnt), (double *)malloc(sizeof(double) * 2 * C)};
            gn_reference(hx, hr, hd, hgb, r[i].y, relu, n, C, ref.y, ref.dx, ref.dres, ref.dgb);
            worst = fmax(worst, gn_compare(&r[i], &ref, cnt, C, e[i], &k));
            nf += k;
            gn_result_free(&ref);
        }
        /* The two kernels' ReLU masks may differ where the output rounds to either side of
         * zero (their fp32 arithmetic differs in the last bits): each gradient is then right
         * for its own mask (the float64 comparisons above take each kernel's own), and the
         * two differ by that element. Such ties (|y| at most 1e-5 in both) drop the gradients
         * out of the direct comparison; a mask that differs anywhere else fails. */
        size_t ties = 0, flips = 0;
        if (both && relu)
            for (size_t i = 0; i < cnt; i++)
                if ((r[0].y[i] > 0) != (r[1].y[i] > 0)) {
                    if (fabs(r[0].y[i]) <= 1e-5 && fabs(r[1].y[i]) <= 1e-5)
                        ties++;
                    else
                        flips++;
                }
        if (both) {
            double cross = gn_compare(&r[1], &r[0], cnt, C, e[2], &k);
            worst = fmax(worst, ties ? e[2][0] : cross);
            nf += k;
        }
        /* the bit mask must change nothing: every output equal to the output mask's */
        double bits_diff = 0;
        if (with_bits) {
            const double *pa[4] = {r[2].y, r[2].dx, r[2].dres, r[2].dgb}, *pb[4] = {r[1].y, r[1].dx, r[1].dres, r[1].dgb};
            const size_t len[4] = {cnt, cnt, want_dres ? cnt : 0, 2 * (size_t)C};
            for (int j = 0; j < 4; j++)
                for (size_t i = 0; i < len[j]; i++) {
                    const double d = fabs(pa[j][i] - pb[j][i]);
                    bits_diff = d == d ? fmax(bits_diff, d) : INFINITY;
                }
        }
        const int bits_ok = (!with_bits || (bits_diff == 0 && r[2].bits_bad == 0)) && flips == 0;
        char line[768];
        int m = snprintf(line, sizeof line, "earlier vs f64: y %.3g dx %.3g dres %.3g dgamma/dbeta %.3g", e[0][0],
                         e[0][1], e[0][2], e[0][3]);
        if (both)
            snprintf(line + m, sizeof line - m,
                     "; coalesced vs f64: y %.3g dx %.3g dres %.3g dgamma/dbeta %.3g; coalesced vs earlier: y %.3g "
                     "dx %.3g dres %.3g dgamma/dbeta %.3g",
                     e[1][0], e[1][1], e[1][2], e[1][3], e[2][0], e[2][1], e[2][2], e[2][3]);
        if (with_bits)
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     "; with the ReLU bit mask: max |diff| %.3g from the output mask's, %zu mask bytes wrong",
                     bits_diff, r[2].bits_bad);
        if (ties || flips)
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     "; ReLU masks of the two kernels differ at %zu outputs within 1e-5 of zero (gradients compared "
                     "with the host only) and %zu elsewhere (must be 0)",
                     ties, flips);
        printf("%s gpu %s: rel_l2 %s (tolerance %.0e; %.0e for the parameter sums)%s\n",
               worst <= tol && bits_ok ? "PASS" : "FAIL", what, line, tol, tol * 10,
               nf ? " with non-finite outputs" : "");
        fflush(stdout);
        if (!(worst <= tol && bits_ok))
            c->fails++;
        free(hx), free(hr), free(hd);
    }
    for (int i = 0; i < 3; i++)
        gn_result_free(&r[i]);
    free(hgb);
    gpu_free(x, res, dout, gb);
}

/* ---- BatchNorm, the loss, AdamW and the heads against float64 host references ------------
 * Each kernel is called as trainer.cu calls it, on inputs first rounded to what the device
 * stores, and compared with selftest_ref.c's float64 formulas (checked on the CPU by
 * tests/nn/test_gpu_refs.c) fed those same values. Outputs are poisoned with NaN first, so
 * an element a kernel leaves unwritten fails. Tolerances (relative L2), per dtype of the
 * activations: */
#define TOL_FWD 1e-5       /* fp32 outputs and statistics; norms, loss and AdamW's state in either dtype */
#define TOL_GRAD 1e-4      /* fp32 gradients, AdamW's moments and update; parameter sums in either dtype */
#define TOL_BF16 1e-2      /* one kernel's bf16 outputs (a few bf16 roundings) */
#define TOL_HEAD_BF16 4e-2 /* a whole head in bf16 (roundings in a row: the check's bf16 tolerance) */

/* v as the device stores it in dt. */
static double round_to(double v, gpu_dtype dt)
{
    const float f = (float)v;
    return dt == GPU_BF16 ? (double)gv_bf16_to_f32(gv_f32_to_bf16(f)) : (double)f;
}

/* h[0..n) = random values in [lo, hi), rounded to dt. */
static void host_fill(ctx *c, double *h, size_t n, double lo, double hi, gpu_dtype dt)
{
    for (size_t i = 0; i < n; i++)
        h[i] = round_to(lo + (hi - lo) * gv_rng_uniform(&c->rng), dt);
}

static double *host_random(ctx *c, size_t n, double lo, double hi, gpu_dtype dt)
{
    double *h = (double *)malloc(sizeof(double) * (n ? n : 1));
    host_fill(c, h, n, lo, hi, dt);
    return h;
}

/* Copies h (n values representable in dt) to the device buffer d in dt; 0 after a FAIL line. */
static int copy_in(ctx *c, void *d, const double *h, size_t n, gpu_dtype dt)
{
    const size_t es = dt == GPU_BF16 ? 2 : 4;
    void *t = malloc(es * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        if (dt == GPU_BF16)
            ((gv_bf16 *)t)[i] = gv_f32_to_bf16((float)h[i]);
        else
            ((float *)t)[i] = (float)h[i];
    }
    gv_err ge;
    const int ok = rt(c, GV_GPU(cudaMemcpy(d, t, es * n, cudaMemcpyHostToDevice), &ge), &ge);
    free(t);
    return ok;
}

/* h on the device in dt (a new buffer), or NULL after a FAIL line. */
static void *upload_as(ctx *c, const double *h, size_t n, gpu_dtype dt)
{
    void *d = NULL;
    gv_err ge;
    if (!rt(c, GV_GPU(cudaMalloc(&d, (dt == GPU_BF16 ? 2 : 4) * (n ? n : 1)), &ge), &ge))
        return NULL;
    if (!copy_in(c, d, h, n, dt)) {
        (void)cudaFree(d);
        return NULL;
    }
    return d;
}

/* A buffer of a test: where its pointer goes and its size (0: none, the pointer NULL). */
typedef struct {
    void **p;
    size_t bytes;
} carve;

/* Allocates the buffers of list in one device allocation, each at a 256-byte boundary, and
 * fills them with NaN bytes (0xff); returns the allocation (to free), or NULL after a FAIL
 * line. */
static void *carve_poisoned(ctx *c, const carve *list, size_t n)
{
    size_t total = 256;
    for (size_t i = 0; i < n; i++)
        total += (list[i].bytes + 255) & ~(size_t)255;
    char *base = NULL;
    gv_err ge;
    if (!rt(c, GV_GPU(cudaMalloc((void **)&base, total), &ge), &ge))
        return NULL;
    if (!rt(c, GV_GPU(cudaMemset(base, 0xff, total), &ge), &ge)) {
        (void)cudaFree(base);
        return NULL;
    }
    for (size_t i = 0, at = 0; i < n; at += (list[i].bytes + 255) & ~(size_t)255, i++)
        *list[i].p = list[i].bytes ? base + at : NULL;
    return base;
}

/* One test's comparisons, gathered into its one PASS/FAIL line. */
typedef struct {
    ctx *c;
    char text[1536];
    size_t at;
    int ok;
    size_t nonfinite;
} cmp_line;

static void cmp_begin(cmp_line *l, ctx *c)
{
    memset(l, 0, sizeof *l);
    l->c = c;
    l->ok = 1;
}

static void cmp_text(cmp_line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (l->at < sizeof l->text) {
        int k = vsnprintf(l->text + l->at, sizeof l->text - l->at, fmt, ap);
        l->at = k < 0 ? l->at : GV_MIN(l->at + (size_t)k, sizeof l->text);
    }
    va_end(ap);
}

/* got against want (n values): relative L2, or with scale ||got - want|| / max(||want||,
 * ||scale||) (nn_rel_l2_scale: values summed from terms that cancel); within tol passes,
 * NaN never does. GV_SELFTEST_BREAK=1 first moves want by three tolerances. */
static void cmp_add(cmp_line *l, const char *name, const double *got, const double *want, const double *scale,
                    size_t n, double tol)
{
    double *w = (double *)malloc(sizeof(double) * (n ? n : 1));
    memcpy(w, want, sizeof(double) * n);
    if (l->c->brk && n) {
        double nw = 0, ns = 0;
        for (size_t i = 0; i < n; i++)
            nw += want[i] * want[i], ns += scale ? scale[i] * scale[i] : 0;
        const double d = fmax(sqrt(nw), sqrt(ns));
        w[0] += 3 * tol * (d > 0 ? d : 1);
    }
    size_t nf = 0, nf2;
    for (size_t i = 0; i < n; i++)
        nf += !isfinite(got[i]);
    const double e = scale ? nn_rel_l2_scale(got, w, scale, n) : rel_l2(got, w, n, &nf2);
    const int ok = e <= tol;
    l->ok &= ok;
    l->nonfinite += nf;
    cmp_text(l, "%s%s %.2e", l->at ? ", " : "", name, e);
    if (!ok)
        cmp_text(l, " (over %.0e)", tol);
    free(w);
}

/* got must equal want exactly (n values); GV_SELFTEST_BREAK=1 first adds 1 to want. */
static void cmp_exact(cmp_line *l, const char *name, const double *got, const double *want, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = fabs(got[i] - (want[i] + (l->c->brk && i == 0 ? 1 : 0)));
        d = x == x ? fmax(d, x) : INFINITY;
    }
    l->ok &= d == 0;
    cmp_text(l, "%s%s max |diff| %.2e%s", l->at ? ", " : "", name, d, d == 0 ? "" : " (must be 0)");
}

/* Prints the line (PASS when every comparison passed; with must_fail, when one failed) and
 * counts a failure. */
static void cmp_end(cmp_line *l, const char *what, const char *tolerances, int must_fail)
{
    const int ok = must_fail ? !l->ok : l->ok;
    printf("%s gpu %s: %s%s%s%s%s\n", ok ? "PASS" : "FAIL", what, must_fail ? "must fail and " : "",
           must_fail ? (l->ok ? "passed: " : "failed: ") : "", l->text, tolerances,
           l->nonfinite ? " (with non-finite outputs)" : "");
    fflush(stdout);
    if (!ok)
        l->c->fails++;
}

/* BatchNorm as trainer.cu's norm_f and norm_b run it: the training forward (batch
 * statistics, the running stats updated) with residual and ReLU as asked, its backward
 * (dres when asked; dgamma and dbeta added to), then the eval forward on the updated
 * running stats. fault: the forward's test hook (its last element left unwritten), which
 * must make the comparison fail. */
static void test_bn(ctx *c, int n, int C, gpu_dtype dt, int with_res, int relu, int want_dres, int sms, int fault)
{
    const size_t M = (size_t)n * NN_CELLS, cnt = M * C, es = dt == GPU_BF16 ? 2 : 4, C6 = 6 * (size_t)C;
    const int bf = dt == GPU_BF16;
    const double tol = bf ? TOL_BF16 : TOL_FWD;
    char what[160], tols[160];
    snprintf(what, sizeof what, "BatchNorm %s n=%d C=%d%s%s%s%s", bf ? "bf16" : "fp32", n, C, relu ? " relu" : "",
             with_res ? " res" : "", want_dres ? " dres" : "", fault ? " with the fault hook" : "");
    snprintf(tols, sizeof tols, " (tolerance y, dx, dres, eval y %.0e; statistics %.0e; dgamma, dbeta %.0e)", tol,
             TOL_FWD, TOL_GRAD);
    /* parameters in one block: gamma, beta, running mean, running var, dgamma, dbeta before */
    double *hx = host_random(c, cnt, -1.5, 2.5, dt), *hres = with_res ? host_random(c, cnt, -1, 1, dt) : NULL;
    double *hd = host_random(c, cnt, -1, 1, dt), *hpar = host_random(c, C6, -1, 1, GPU_F32);
    host_fill(c, hpar, C, 0.5, 1.5, GPU_F32);
    host_fill(c, hpar + C, C, -0.5, 0.5, GPU_F32);
    host_fill(c, hpar + 2 * C, C, -0.5, 0.5, GPU_F32);
    host_fill(c, hpar + 3 * C, C, 0.5, 1.5, GPU_F32);
    void *x = upload_as(c, hx, cnt, dt), *res = with_res ? upload_as(c, hres, cnt, dt) : NULL;
    void *d = upload_as(c, hd, cnt, dt);
    float *par = (float *)upload_as(c, hpar, C6, GPU_F32);
    void *y = NULL, *dx = NULL, *dres = NULL, *ye = NULL;
    float *st = NULL;
    double *acc = NULL;
    const carve outs[] = {{&y, es * cnt}, {&dx, es * cnt}, {&dres, es * cnt}, {&ye, es * cnt},
                          {(void **)&st, sizeof(float) * 2 * C}, {(void **)&acc, sizeof(double) * GPU_BN_SCRATCH(C)}};
    void *arena = x && d && par && (res || !with_res) ? carve_poisoned(c, outs, GV_ARRAY_LEN(outs)) : NULL;
    double *gy = NULL, *gdx = NULL, *gdres = NULL, *gye = NULL, *gst = NULL, *gpar = NULL, *gpar2 = NULL;
    if (arena) {
        gv_err e, ge;
        norm_fwd_args fa;
        memset(&fa, 0, sizeof fa);
        fa.group = 0, fa.N = n, fa.C = C, fa.x = x, fa.res = res, fa.y = y, fa.relu = relu, fa.gamma = par;
        fa.beta = par + C, fa.mean = st, fa.rstd = st + C, fa.train = 1, fa.run_mean = par + 2 * C;
        fa.run_var = par + 3 * C, fa.acc = acc, fa.dt = dt, fa.fault = fault;
        norm_bwd_args ba;
        memset(&ba, 0, sizeof ba);
        ba.group = 0, ba.N = n, ba.C = C, ba.x = x, ba.out = relu ? y : NULL, ba.dout = d, ba.dx = dx;
        ba.dres = want_dres ? dres : NULL, ba.gamma = par, ba.mean = st, ba.rstd = st + C, ba.dgamma = par + 4 * C;
        ba.dbeta = par + 5 * C, ba.acc = acc, ba.sm_count = sms, ba.dt = dt;
        gv_status s = gpu_norm_fwd(&fa, 0, &e);
        if (s == GV_OK)
            s = gpu_norm_bwd(&ba, 0, &e);
        if (s == GV_OK)
            s = GV_GPU(cudaDeviceSynchronize(), &e);
        if (s == GV_OK) {
            gy = download(c, y, cnt, dt), gdx = download(c, dx, cnt, dt);
            gdres = want_dres ? download(c, dres, cnt, dt) : NULL;
            gst = download(c, st, 2 * (size_t)C, GPU_F32), gpar = download(c, par, C6, GPU_F32);
            /* the eval forward, its statistics poisoned again */
            rt(c, GV_GPU(cudaMemset(st, 0xff, sizeof(float) * 2 * C), &ge), &ge);
            fa.train = 0, fa.y = ye, fa.fault = 0;
            s = gpu_norm_fwd(&fa, 0, &e);
            if (s == GV_OK)
                s = GV_GPU(cudaDeviceSynchronize(), &e);
        }
        if (s == GV_OK) {
            gye = download(c, ye, cnt, dt), gpar2 = download(c, par, C6, GPU_F32);
        } else {
            printf("FAIL gpu %s: %s\n", what, e.msg);
            c->fails++;
        }
    } else {
        printf("FAIL gpu %s: could not allocate or upload its buffers\n", what);
        c->fails++;
    }
    if (gye) {
        const nn_kref_norm k = {0, 1, relu, n, C};
        double *ry = (double *)malloc(sizeof(double) * cnt), *rdx = (double *)malloc(sizeof(double) * cnt);
        double *rdres = (double *)malloc(sizeof(double) * cnt), *rye = (double *)malloc(sizeof(double) * cnt);
        double *rpar = (double *)malloc(sizeof(double) * C6), *rst = (double *)malloc(sizeof(double) * 4 * C);
        memcpy(rpar, hpar, sizeof(double) * C6);
        nn_kref_norm_forward(&k, hx, hres, rpar, rpar + C, rpar + 2 * C, rpar + 3 * C, rst, rst + C, ry);
        nn_kref_norm_backward(&k, hx, relu ? gy : NULL, hd, rpar, rst, rst + C, rdx, rdres, rpar + 4 * C,
                              rpar + 5 * C);
        const nn_kref_norm ke = {0, 0, relu, n, C};
        nn_kref_norm_forward(&ke, hx, hres, rpar, rpar + C, rpar + 2 * C, rpar + 3 * C, rst + 2 * C, rst + 3 * C,
                             rye);
        cmp_line l;
        cmp_begin(&l, c);
        cmp_add(&l, "y", gy, ry, NULL, cnt, tol);
        cmp_add(&l, "mean", gst, rst, NULL, C, TOL_FWD);
        cmp_add(&l, "rstd", gst + C, rst + C, NULL, C, TOL_FWD);
        cmp_add(&l, "running mean", gpar + 2 * C, rpar + 2 * C, NULL, C, TOL_FWD);
        cmp_add(&l, "running var", gpar + 3 * C, rpar + 3 * C, NULL, C, TOL_FWD);
        cmp_add(&l, "dx", gdx, rdx, NULL, cnt, tol);
        if (want_dres)
            cmp_add(&l, "dres", gdres, rdres, NULL, cnt, tol);
        cmp_add(&l, "dgamma", gpar + 4 * C, rpar + 4 * C, NULL, C, TOL_GRAD);
        cmp_add(&l, "dbeta", gpar + 5 * C, rpar + 5 * C, NULL, C, TOL_GRAD);
        cmp_add(&l, "eval y", gye, rye, NULL, cnt, tol);
        cmp_exact(&l, "eval kept the running stats", gpar2 + 2 * C, gpar + 2 * C, 2 * (size_t)C);
        cmp_end(&l, what, tols, fault);
        free(ry), free(rdx), free(rdres), free(rye), free(rpar), free(rst);
    }
    free(hx), free(hres), free(hd), free(hpar);
    free(gy), free(gdx), free(gdres), free(gye), free(gst), free(gpar), free(gpar2);
    gpu_free(x, res, d, par, arena);
}

/* The loss kernel as trainer.cu's enqueue_forward runs it: logits and value from the heads'
 * raw outputs and biases, cross-entropy + squared error summed into a zeroed accumulator
 * and finished into the loss, dlogits and dvalue in dt, the output biases' gradients added
 * to. fault: its test hook (sample 0's logits left unwritten), which must make it fail. */
static void test_loss(ctx *c, int n, gpu_dtype dt, int fault)
{
    const size_t es = dt == GPU_BF16 ? 2 : 4, P = NN_POLICY;
    const int bf = dt == GPU_BF16;
    const double tg = bf ? TOL_BF16 : TOL_GRAD;
    char what[128], tols[160];
    snprintf(what, sizeof what, "loss %s n=%d%s", bf ? "bf16" : "fp32", n, fault ? " with the fault hook" : "");
    snprintf(tols, sizeof tols, " (tolerance logits, value, loss %.0e; dlogits, dvalue %.0e; bias gradients %.0e)",
             TOL_FWD, tg, TOL_GRAD);
    /* the float inputs in one block: raw logits (n, 7), raw value (n), policy bias (7), value
     * bias (1), value targets (n), the bias gradients before (7, 1) */
    const size_t o_lr = 0, o_vr = o_lr + P * n, o_pb = o_vr + n, o_vb = o_pb + P, o_vt = o_vb + 1, o_gp = o_vt + n,
                 o_gv = o_gp + P, nin = o_gv + 1;
    double *hin = host_random(c, nin, -1, 1, GPU_F32);
    host_fill(c, hin + o_lr, P * n, -3, 3, GPU_F32);
    host_fill(c, hin + o_gp, P + 1, -0.1, 0.1, GPU_F32);
    int *hpt = (int *)malloc(sizeof(int) * n);
    int64_t *hpt64 = (int64_t *)malloc(sizeof(int64_t) * n);
    for (int i = 0; i < n; i++)
        hpt[i] = (int)(gv_rng_uniform(&c->rng) * P), hpt64[i] = hpt[i];
    float *in = (float *)upload_as(c, hin, nin, GPU_F32);
    int *pt = NULL;
    gv_err ge;
    if (rt(c, GV_GPU(cudaMalloc((void **)&pt, sizeof(int) * n), &ge), &ge))
        rt(c, GV_GPU(cudaMemcpy(pt, hpt, sizeof(int) * n, cudaMemcpyHostToDevice), &ge), &ge);
    float *logits = NULL, *value = NULL, *loss = NULL;
    void *dl = NULL, *dv = NULL;
    double *acc = NULL;
    const carve outs[] = {{(void **)&logits, sizeof(float) * P * n}, {(void **)&value, sizeof(float) * n},
                          {(void **)&loss, sizeof(float)},           {&dl, es * P * n},
                          {&dv, es * n},                             {(void **)&acc, sizeof(double) * 2}};
    void *arena = in && pt ? carve_poisoned(c, outs, GV_ARRAY_LEN(outs)) : NULL;
    double *gl = NULL, *gv = NULL, *gloss = NULL, *gdl = NULL, *gdv = NULL, *gin = NULL;
    gv_err e;
    gv_status s = arena ? GV_GPU(cudaMemset(acc, 0, sizeof(double) * 2), &e) : GV_ERR_ENV;
    if (s == GV_OK)
        s = gpu_loss(in + o_lr, in + o_vr, in + o_pb, in + o_vb, pt, in + o_vt, n, logits, value, acc, dl, dv,
                     in + o_gp, in + o_gv, dt, fault, 0, &e);
    if (s == GV_OK)
        s = gpu_loss_finish(acc, n, loss, 0, &e);
    if (s == GV_OK)
        s = GV_GPU(cudaDeviceSynchronize(), &e);
    if (s == GV_OK) {
        gl = download(c, logits, P * n, GPU_F32), gv = download(c, value, n, GPU_F32);
        gloss = download(c, loss, 1, GPU_F32), gdl = download(c, dl, P * n, dt), gdv = download(c, dv, n, dt);
        gin = download(c, in, nin, GPU_F32);
    } else {
        printf("FAIL gpu %s: %s\n", what, arena ? e.msg : "could not allocate or upload its buffers");
        c->fails++;
    }
    if (gin) {
        double *rl = (double *)malloc(sizeof(double) * P * n), *rv = (double *)malloc(sizeof(double) * n);
        double *rdl = (double *)malloc(sizeof(double) * P * n), *rdv = (double *)malloc(sizeof(double) * n);
        double rb[8], sb[8]; /* the bias gradients (7 policy, 1 value) and their scales */
        for (size_t i = 0; i < P * n; i++)
            rl[i] = hin[o_lr + i] + hin[o_pb + i % P];
        for (int i = 0; i < n; i++)
            rv[i] = hin[o_vr + i] + hin[o_vb];
        double rloss = nn_loss_f64(rl, rv, hpt64, hin + o_vt, n, n, rdl, rdv);
        for (size_t j = 0; j < P + 1; j++)
            rb[j] = hin[o_gp + j], sb[j] = fabs(hin[o_gp + j]);
        for (int i = 0; i < n; i++) {
            for (size_t j = 0; j < P; j++)
                rb[j] += rdl[i * P + j], sb[j] += fabs(rdl[i * P + j]);
            rb[P] += rdv[i], sb[P] += fabs(rdv[i]);
        }
        cmp_line l;
        cmp_begin(&l, c);
        cmp_add(&l, "logits", gl, rl, NULL, P * n, TOL_FWD);
        cmp_add(&l, "value", gv, rv, NULL, n, TOL_FWD);
        cmp_add(&l, "loss", gloss, &rloss, NULL, 1, TOL_FWD);
        cmp_add(&l, "dlogits", gdl, rdl, NULL, P * n, tg);
        cmp_add(&l, "dvalue", gdv, rdv, NULL, n, tg);
        cmp_add(&l, "pf.bias gradient (scale)", gin + o_gp, rb, sb, P, TOL_GRAD);
        cmp_add(&l, "vf2.bias gradient (scale)", gin + o_gv, rb + P, sb + P, 1, TOL_GRAD);
        cmp_end(&l, what, tols, fault);
        free(rl), free(rv), free(rdl), free(rdv);
    }
    free(hin), free(hpt), free(hpt64), free(gl), free(gv), free(gloss), free(gdl), free(gdv), free(gin);
    gpu_free(in, pt, arena);
}

/* AdamW as trainer.cu's enqueue_step runs it: the step counter incremented on the device,
 * then the update with the learning rate passed as a float and the trainer's betas and eps
 * (wd: the trainer's weight decay, or a larger one that makes the decay visible), `steps`
 * times with fresh gradients, from step t0 (zero moments at t0 = 0). The update p - p0 is
 * compared as well as p: with lr 1e-3 it is a thousandth of p. */
static void test_adamw(ctx *c, size_t n, int t0, int steps, double lr, double wd)
{
    char what[160], tols[128];
    snprintf(what, sizeof what, "AdamW n=%zu lr %g wd %g steps %d..%d (%s)", n, lr, wd, t0 + 1, t0 + steps,
             t0 ? "moments from a state" : "from zero moments");
    snprintf(tols, sizeof tols, " (tolerance p %.0e; update, m, v %.0e)", TOL_FWD, TOL_GRAD);
    double *hp = host_random(c, n, -0.1, 0.1, GPU_F32), *hm = host_random(c, n, -1e-2, 1e-2, GPU_F32);
    double *hv = host_random(c, n, 0, 1e-4, GPU_F32), *hg = (double *)malloc(sizeof(double) * n);
    double *p0 = (double *)malloc(sizeof(double) * n);
    if (!t0)
        memset(hm, 0, sizeof(double) * n), memset(hv, 0, sizeof(double) * n);
    memcpy(p0, hp, sizeof(double) * n);
    float *p = (float *)upload_as(c, hp, n, GPU_F32), *m = (float *)upload_as(c, hm, n, GPU_F32);
    float *v = (float *)upload_as(c, hv, n, GPU_F32), *g = NULL;
    int *step = NULL;
    gv_err ge, e;
    int ok = p && m && v && rt(c, GV_GPU(cudaMalloc((void **)&g, sizeof(float) * n), &ge), &ge) &&
             rt(c, GV_GPU(cudaMalloc((void **)&step, sizeof(int)), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemcpy(step, &t0, sizeof(int), cudaMemcpyHostToDevice), &ge), &ge);
    gv_status s = ok ? GV_OK : GV_ERR_ENV;
    for (int k = 1; k <= steps && s == GV_OK; k++) {
        host_fill(c, hg, n, -0.1, 0.1, GPU_F32);
        if (!copy_in(c, g, hg, n, GPU_F32)) {
            s = GV_ERR_ENV;
            break;
        }
        s = gpu_step_inc(step, 0, &e);
        if (s == GV_OK)
            s = gpu_adamw(p, g, m, v, n, step, (float)lr, (float)NN_BETA1, (float)NN_BETA2, (float)NN_ADAM_EPS,
                          (float)wd, 0, &e);
        nn_kref_adamw(hp, hg, hm, hv, n, t0 + k, lr, NN_BETA1, NN_BETA2, NN_ADAM_EPS, wd);
    }
    if (s == GV_OK)
        s = GV_GPU(cudaDeviceSynchronize(), &e);
    int gstep = -1;
    if (s == GV_OK && rt(c, GV_GPU(cudaMemcpy(&gstep, step, sizeof(int), cudaMemcpyDeviceToHost), &ge), &ge)) {
        double *gp = download(c, p, n, GPU_F32), *gm = download(c, m, n, GPU_F32), *gvv = download(c, v, n, GPU_F32);
        double *du = (double *)malloc(sizeof(double) * n), *ru = (double *)malloc(sizeof(double) * n);
        for (size_t i = 0; i < n; i++)
            du[i] = gp[i] - p0[i], ru[i] = hp[i] - p0[i];
        const double gs = gstep, ws = t0 + steps;
        cmp_line l;
        cmp_begin(&l, c);
        cmp_add(&l, "p", gp, hp, NULL, n, TOL_FWD);
        cmp_add(&l, "update", du, ru, NULL, n, TOL_GRAD);
        cmp_add(&l, "m", gm, hm, NULL, n, TOL_GRAD);
        cmp_add(&l, "v", gvv, hv, NULL, n, TOL_GRAD);
        cmp_exact(&l, "step count", &gs, &ws, 1);
        cmp_end(&l, what, tols, 0);
        free(gp), free(gm), free(gvv), free(du), free(ru);
    } else {
        printf("FAIL gpu %s: %s\n", what, ok ? e.msg : "could not allocate or upload its buffers");
        c->fails++;
    }
    free(hp), free(hm), free(hv), free(hg), free(p0);
    gpu_free(p, m, v, g, step);
}

/* The heads' parameters in one fp32 array, in state_dict order, as the trainer's. */
enum { HP_PC, HP_PN_G, HP_PN_B, HP_PF_W, HP_PF_B, HP_VC, HP_VN_G, HP_VN_B, HP_VF1_W, HP_VF1_B, HP_VF2_W, HP_VF2_B,
       HP_N };
static const char *const hp_name[HP_N] = {"pc.weight", "pn.weight", "pn.bias",   "pf.weight", "pf.bias",   "vc.weight",
                                          "vn.weight", "vn.bias",   "vf1.weight", "vf1.bias", "vf2.weight", "vf2.bias"};

/* The heads' device side, named as in trainer.cu's gt. */
typedef struct {
    gpu_blas *blas;
    int n, C, bn, sms;
    gpu_dtype dt;
    size_t off[HP_N];
    const void *trunk;   /* (M, C) the trunk's output */
    float *p, *g, *run;  /* parameters, gradients (zeroed), BatchNorm's running stats (pn mean, var, vn mean, var) */
    const int *bpt;
    const float *bvt;
    prep_desc *descs;    /* the five weight copies below, as setup() describes them */
    void *pc_wt, *vc_wt, *pf_wp, *vf1_wp, *vf2_wt;
    void *hp_x, *hp_a, *hv_x, *hv_a, *vh, *dlogits, *dvalue, *dvh, *dhp_a, *dhv_a, *dhp_x, *dhv_x, *gA;
    float *logits_raw, *value_raw, *vh_raw, *logits, *value, *loss, *gtmp;
    float *pstat, *vstat; /* mean then rstd: GroupNorm n*8 each, BatchNorm 32 each */
    uint8_t *pbits, *vbits;
    double *loss_acc, *bn_acc;
} heads_dev;

/* trainer.cu's norm_f for a head's norm (which 0: pn, 1: vn). */
static gv_status heads_norm_f(const heads_dev *h, int which, const void *x, void *y, gv_err *err)
{
    const int gi = which ? HP_VN_G : HP_PN_G, sn = h->bn ? NN_HEAD_CH : h->n * 8;
    float *st = which ? h->vstat : h->pstat;
    norm_fwd_args a = {!h->bn, h->n, NN_HEAD_CH, x, NULL, y, 1, h->p + h->off[gi], h->p + h->off[gi + 1], st, st + sn, 1,
                       h->bn ? h->run + 2 * which * NN_HEAD_CH : NULL, h->bn ? h->run + (2 * which + 1) * NN_HEAD_CH : NULL,
                       h->bn_acc, h->dt, 0};
    a.bits = which ? h->vbits : h->pbits;
    return gpu_norm_fwd(&a, 0, err);
}

/* trainer.cu's norm_b for a head's norm. */
static gv_status heads_norm_b(const heads_dev *h, int which, const void *x, const void *out, const void *dout, void *dx,
                              gv_err *err)
{
    const int gi = which ? HP_VN_G : HP_PN_G, sn = h->bn ? NN_HEAD_CH : h->n * 8;
    const float *st = which ? h->vstat : h->pstat;
    const uint8_t *bits = which ? h->vbits : h->pbits;
    norm_bwd_args a = {!h->bn, h->n, NN_HEAD_CH, x, bits ? NULL : out, dout, dx, NULL, h->p + h->off[gi], st, st + sn,
                       h->g + h->off[gi], h->g + h->off[gi + 1], h->bn_acc, h->sms, h->dt};
    a.bits = bits;
    return gpu_norm_bwd(&a, 0, err);
}

static gv_status heads_gemm(const heads_dev *h, int ta, int tb, int M, int N, int K, const void *A, int lda,
                            const void *B, int ldb, float beta, void *C, int ldc, gpu_dtype ct, gv_err *err)
{
    return gpu_blas_gemm(h->blas, ta, tb, M, N, K, 1.f, A, lda, B, ldb, beta, C, ldc, h->dt, ct, 0, err);
}

/* The weight copies, the heads' part of enqueue_forward with the loss, and the heads' part of
 * enqueue_backward with the 1x1 convolutions' (trainer.cu), call for call. */
static gv_status heads_run(const heads_dev *h, gv_err *err)
{
    const int n = h->n, C = h->C, M = n * NN_CELLS, F = NN_HEAD_FLAT, HC = NN_HEAD_CH, V = NN_VALUE_HIDDEN;
    const gpu_dtype dt = h->dt;
    const size_t *o = h->off;
    GV_TRY(gpu_prep_weights(h->p, h->descs, 5, V * F, dt, 0, err));
    /* forward: policy head, value head, loss */
    GV_TRY(heads_gemm(h, 0, 1, M, HC, C, h->trunk, C, h->pc_wt, C, 0.f, h->hp_x, HC, dt, err));
    GV_TRY(heads_norm_f(h, 0, h->hp_x, h->hp_a, err));
    GV_TRY(heads_gemm(h, 0, 1, n, NN_POLICY, F, h->hp_a, F, h->pf_wp, F, 0.f, h->logits_raw, NN_POLICY, GPU_F32, err));
    GV_TRY(heads_gemm(h, 0, 1, M, HC, C, h->trunk, C, h->vc_wt, C, 0.f, h->hv_x, HC, dt, err));
    GV_TRY(heads_norm_f(h, 1, h->hv_x, h->hv_a, err));
    GV_TRY(heads_gemm(h, 0, 1, n, V, F, h->hv_a, F, h->vf1_wp, F, 0.f, h->vh_raw, V, GPU_F32, err));
    GV_TRY(gpu_bias_relu(h->vh_raw, h->p + o[HP_VF1_B], h->vh, n, V, dt, 0, err));
    GV_TRY(heads_gemm(h, 0, 1, n, 1, V, h->vh, V, h->vf2_wt, V, 0.f, h->value_raw, 1, GPU_F32, err));
    GV_GPU_TRY(cudaMemset(h->loss_acc, 0, sizeof(double) * 2), err);
    GV_TRY(gpu_loss(h->logits_raw, h->value_raw, h->p + o[HP_PF_B], h->p + o[HP_VF2_B], h->bpt, h->bvt, n, h->logits,
                    h->value, h->loss_acc, h->dlogits, h->dvalue, h->g + o[HP_PF_B], h->g + o[HP_VF2_B], dt, 0, 0,
                    err));
    GV_TRY(gpu_loss_finish(h->loss_acc, n, h->loss, 0, err));
    /* backward: value head, policy head, the 1x1 convolutions and the trunk's gradient */
    GV_TRY(heads_gemm(h, 1, 0, 1, V, n, h->dvalue, 1, h->vh, V, 0.f, h->g + o[HP_VF2_W], V, GPU_F32, err));
    GV_TRY(gpu_value_hidden_bwd(h->dvalue, h->p + o[HP_VF2_W], h->vh, h->dvh, h->g + o[HP_VF1_B], n, V, dt, 0, err));
    GV_TRY(heads_gemm(h, 1, 0, V, F, n, h->dvh, V, h->hv_a, F, 0.f, h->gtmp, F, GPU_F32, err));
    GV_TRY(gpu_head_grad_unpermute(h->gtmp, h->g + o[HP_VF1_W], V, 0, err));
    GV_TRY(heads_gemm(h, 0, 0, n, F, V, h->dvh, V, h->vf1_wp, F, 0.f, h->dhv_a, F, dt, err));
    GV_TRY(heads_norm_b(h, 1, h->hv_x, h->hv_a, h->dhv_a, h->dhv_x, err));
    GV_TRY(heads_gemm(h, 1, 0, NN_POLICY, F, n, h->dlogits, NN_POLICY, h->hp_a, F, 0.f, h->gtmp, F, GPU_F32, err));
    GV_TRY(gpu_head_grad_unpermute(h->gtmp, h->g + o[HP_PF_W], NN_POLICY, 0, err));
    GV_TRY(heads_gemm(h, 0, 0, n, F, NN_POLICY, h->dlogits, NN_POLICY, h->pf_wp, F, 0.f, h->dhp_a, F, dt, err));
    GV_TRY(heads_norm_b(h, 0, h->hp_x, h->hp_a, h->dhp_a, h->dhp_x, err));
    GV_TRY(heads_gemm(h, 1, 0, HC, C, M, h->dhp_x, HC, h->trunk, C, 0.f, h->g + o[HP_PC], C, GPU_F32, err));
    GV_TRY(heads_gemm(h, 1, 0, HC, C, M, h->dhv_x, HC, h->trunk, C, 0.f, h->g + o[HP_VC], C, GPU_F32, err));
    GV_TRY(heads_gemm(h, 0, 0, M, C, HC, h->dhp_x, HC, h->pc_wt, C, 0.f, h->gA, C, dt, err));
    GV_TRY(heads_gemm(h, 0, 0, M, C, HC, h->dhv_x, HC, h->vc_wt, C, 1.f, h->gA, C, dt, err));
    return GV_OK;
}

/* Both heads and the loss, forward and backward, as the trainer runs them (GroupNorm or
 * BatchNorm in training mode, fp32 or bf16, the ReLU masks as bits where the trainer keeps
 * them so), against nn_kref_heads_run from the fp32 master parameters, its backward
 * following the device's ReLU masks (a value within rounding of zero may fall on either
 * side, docs/NN.md); three lines: the policy head, the value head, the loss and the trunk's
 * gradient. */
static void test_heads(ctx *c, gpu_blas *blas, int n, int C, int bn, gpu_dtype dt, int sms)
{
    const size_t M = (size_t)n * NN_CELLS, HC = NN_HEAD_CH, F = NN_HEAD_FLAT, V = NN_VALUE_HIDDEN;
    const size_t es = dt == GPU_BF16 ? 2 : 4, MH = M * HC, nst = bn ? 2 * HC : 16 * (size_t)n;
    const int bf = dt == GPU_BF16;
    const double tf = bf ? TOL_HEAD_BF16 : TOL_FWD, tg = bf ? TOL_HEAD_BF16 : TOL_GRAD;
    char what[3][160], tols[128];
    const char *desc = bn ? "BatchNorm" : "GroupNorm";
    snprintf(what[0], sizeof what[0], "policy head %s %s n=%d C=%d", bf ? "bf16" : "fp32", desc, n, C);
    snprintf(what[1], sizeof what[1], "value head %s %s n=%d C=%d", bf ? "bf16" : "fp32", desc, n, C);
    snprintf(what[2], sizeof what[2], "heads' loss and trunk gradient %s %s n=%d C=%d", bf ? "bf16" : "fp32", desc, n, C);
    snprintf(tols, sizeof tols, " (tolerance forward %.0e, gradients %.0e)", tf, tg);
    heads_dev h;
    memset(&h, 0, sizeof h);
    h.blas = blas, h.n = n, h.C = C, h.bn = bn, h.sms = sms, h.dt = dt;
    const size_t sz[HP_N] = {HC * C, HC, HC, NN_POLICY * F, NN_POLICY, HC * C, HC, HC, V * F, V, V, 1};
    const double lo[HP_N] = {-0.2, 0.5, -0.3, -0.05, -0.2, -0.2, 0.5, -0.3, -0.05, -0.2, -0.3, -0.2};
    const double hi[HP_N] = {0.2, 1.5, 0.3, 0.05, 0.2, 0.2, 1.5, 0.3, 0.05, 0.2, 0.3, 0.2};
    size_t np = 0;
    for (int i = 0; i < HP_N; i++)
        h.off[i] = np, np += sz[i];
    double *hp = (double *)malloc(sizeof(double) * np), *hrun = host_random(c, 4 * HC, -0.5, 0.5, GPU_F32);
    for (int i = 0; i < HP_N; i++)
        host_fill(c, hp + h.off[i], sz[i], lo[i], hi[i], GPU_F32);
    host_fill(c, hrun + HC, HC, 0.5, 1.5, GPU_F32); /* running variances */
    host_fill(c, hrun + 3 * HC, HC, 0.5, 1.5, GPU_F32);
    double *htrunk = host_random(c, M * C, -1, 1, dt), *hvt = host_random(c, n, -1, 1, GPU_F32);
    int *hpt = (int *)malloc(sizeof(int) * n);
    int64_t *hpt64 = (int64_t *)malloc(sizeof(int64_t) * n);
    for (int i = 0; i < n; i++)
        hpt[i] = (int)(gv_rng_uniform(&c->rng) * NN_POLICY), hpt64[i] = hpt[i];
    void *trunk = upload_as(c, htrunk, M * C, dt), *bvt = upload_as(c, hvt, n, GPU_F32);
    float *p = (float *)upload_as(c, hp, np, GPU_F32), *run = (float *)upload_as(c, hrun, 4 * HC, GPU_F32);
    h.trunk = trunk, h.bvt = (const float *)bvt, h.p = p, h.run = run;
    const char *rb = getenv("GV_RELU_BITS"); /* as trainer.cu's relu_bits */
    const int bits = !(rb && !strcmp(rb, "0")) && gpu_norm_relu_bits(!bn, NN_HEAD_CH, dt, GPU_GN_AUTO);
    int *bpt = NULL;
    const carve outs[] = {
        {(void **)&bpt, sizeof(int) * n},       {(void **)&h.g, sizeof(float) * np},
        {(void **)&h.descs, sizeof(prep_desc) * 5},
        {&h.pc_wt, es * HC * C},                {&h.vc_wt, es * HC * C},
        {&h.pf_wp, es * NN_POLICY * F},         {&h.vf1_wp, es * V * F},
        {&h.vf2_wt, es * V},                    {&h.hp_x, es * MH},
        {&h.hp_a, es * MH},                     {&h.hv_x, es * MH},
        {&h.hv_a, es * MH},                     {&h.vh, es * n * V},
        {&h.dlogits, es * n * NN_POLICY},       {&h.dvalue, es * n},
        {&h.dvh, es * n * V},                   {&h.dhp_a, es * MH},
        {&h.dhv_a, es * MH},                    {&h.dhp_x, es * MH},
        {&h.dhv_x, es * MH},                    {&h.gA, es * M * C},
        {(void **)&h.logits_raw, sizeof(float) * n * NN_POLICY},
        {(void **)&h.value_raw, sizeof(float) * n},
        {(void **)&h.vh_raw, sizeof(float) * n * V},
        {(void **)&h.logits, sizeof(float) * n * NN_POLICY},
        {(void **)&h.value, sizeof(float) * n}, {(void **)&h.loss, sizeof(float)},
        {(void **)&h.gtmp, sizeof(float) * V * F},
        {(void **)&h.pstat, sizeof(float) * nst}, {(void **)&h.vstat, sizeof(float) * nst},
        {(void **)&h.pbits, bits ? es * MH / 16 : 0}, {(void **)&h.vbits, bits ? es * MH / 16 : 0},
        {(void **)&h.loss_acc, sizeof(double) * 2},
        {(void **)&h.bn_acc, sizeof(double) * GPU_BN_SCRATCH(C > NN_HEAD_CH ? C : NN_HEAD_CH)}};
    void *arena = trunk && bvt && p && run ? carve_poisoned(c, outs, GV_ARRAY_LEN(outs)) : NULL;
    h.bpt = bpt;
    gv_err e, ge;
    int ok = arena != NULL;
    if (ok) {
        /* the weight copies as trainer.cu's setup() describes them */
        const prep_desc d[5] = {{PREP_PLAIN, (int)h.off[HP_PC], NN_HEAD_CH * C, 1, 1, h.pc_wt},
                                {PREP_PLAIN, (int)h.off[HP_VC], NN_HEAD_CH * C, 1, 1, h.vc_wt},
                                {PREP_HEAD_LINEAR, (int)h.off[HP_PF_W], NN_POLICY, NN_HEAD_FLAT, NN_HEAD_FLAT, h.pf_wp},
                                {PREP_HEAD_LINEAR, (int)h.off[HP_VF1_W], NN_VALUE_HIDDEN, NN_HEAD_FLAT, NN_HEAD_FLAT,
                                 h.vf1_wp},
                                {PREP_PLAIN, (int)h.off[HP_VF2_W], NN_VALUE_HIDDEN, 1, 1, h.vf2_wt}};
        ok = rt(c, GV_GPU(cudaMemcpy(h.descs, d, sizeof d, cudaMemcpyHostToDevice), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemcpy(bpt, hpt, sizeof(int) * n, cudaMemcpyHostToDevice), &ge), &ge) &&
             rt(c, GV_GPU(cudaMemset(h.g, 0, sizeof(float) * np), &ge), &ge); /* the trainer zeroes its gradients */
    }
    gv_status s = ok ? heads_run(&h, &e) : GV_ERR_ENV;
    if (s == GV_OK)
        s = GV_GPU(cudaDeviceSynchronize(), &e);
    if (s != GV_OK) {
        for (int i = 0; i < 3; i++)
            printf("FAIL gpu %s: %s\n", what[i], ok ? e.msg : "could not allocate or upload its buffers");
        c->fails += 3;
    } else {
        double *gl = download(c, h.logits, (size_t)n * NN_POLICY, GPU_F32), *gv = download(c, h.value, n, GPU_F32);
        double *gloss = download(c, h.loss, 1, GPU_F32), *gg = download(c, h.g, np, GPU_F32);
        double *grun = download(c, run, 4 * HC, GPU_F32), *gA = download(c, h.gA, M * C, dt);
        double *mp = download(c, h.hp_a, MH, dt), *mv = download(c, h.hv_a, MH, dt);
        double *mh = download(c, h.vh, (size_t)n * V, dt);
        nn_kref_heads_out *r = nn_kref_heads_out_alloc(n, C);
        double *rrun = (double *)malloc(sizeof(double) * 4 * HC), *pbs = (double *)calloc(NN_POLICY, sizeof(double));
        memcpy(rrun, hrun, sizeof(double) * 4 * HC);
        nn_kref_heads in = {n, C, !bn, htrunk, hp + h.off[HP_PC], hp + h.off[HP_PN_G], hp + h.off[HP_PN_B],
                            hp + h.off[HP_PF_W], hp + h.off[HP_PF_B], hp + h.off[HP_VC], hp + h.off[HP_VN_G],
                            hp + h.off[HP_VN_B], hp + h.off[HP_VF1_W], hp + h.off[HP_VF1_B], hp + h.off[HP_VF2_W],
                            hp + h.off[HP_VF2_B], bn ? rrun : NULL, bn ? rrun + HC : NULL, bn ? rrun + 2 * HC : NULL,
                            bn ? rrun + 3 * HC : NULL, hpt64, hvt, mp, mv, mh};
        if (r) {
            nn_kref_heads_run(&in, 1, r);
            const double *rg[HP_N] = {r->g_pc_w, r->g_pn_g, r->g_pn_b, r->g_pf_w, r->g_pf_b, r->g_vc_w,
                                      r->g_vn_g, r->g_vn_b, r->g_vf1_w, r->g_vf1_b, r->g_vf2_w, r->g_vf2_b};
            for (int s2 = 0; s2 < n; s2++) /* the scale of each policy bias's gradient */
                for (int j = 0; j < NN_POLICY; j++)
                    pbs[j] += fabs(r->dlogits[(size_t)s2 * NN_POLICY + j]);
            for (int head = 0; head < 2; head++) {
                cmp_line l;
                cmp_begin(&l, c);
                if (head == 0)
                    cmp_add(&l, "logits", gl, r->logits, NULL, (size_t)n * NN_POLICY, tf);
                else
                    cmp_add(&l, "value (scale)", gv, r->value, r->value_scale, n, tf);
                for (int i = head ? HP_VC : HP_PC; i < (head ? HP_N : HP_VC); i++) {
                    const double *sc = i == HP_PF_B ? pbs : i == HP_VF2_B ? &r->g_vf2_b_scale : NULL;
                    char nm[48];
                    snprintf(nm, sizeof nm, "%s%s", hp_name[i], sc ? " (scale)" : "");
                    cmp_add(&l, nm, gg + h.off[i], rg[i], sc, sz[i], tg);
                }
                if (bn) {
                    cmp_add(&l, "running mean", grun + 2 * head * HC, rrun + 2 * head * HC, NULL, HC, tf);
                    cmp_add(&l, "running var", grun + (2 * head + 1) * HC, rrun + (2 * head + 1) * HC, NULL, HC, tf);
                }
                cmp_end(&l, what[head], tols, 0);
            }
            cmp_line l;
            cmp_begin(&l, c);
            cmp_add(&l, "loss", gloss, &r->loss, NULL, 1, tf);
            cmp_add(&l, "trunk gradient", gA, r->g_trunk, NULL, M * C, tg);
            cmp_end(&l, what[2], tols, 0);
        } else {
            printf("FAIL gpu %s: out of host memory\n", what[2]);
            c->fails++;
        }
        nn_kref_heads_out_free(r);
        free(gl), free(gv), free(gloss), free(gg), free(grun), free(gA), free(mp), free(mv), free(mh), free(rrun);
        free(pbs);
    }
    free(hp), free(hrun), free(htrunk), free(hvt), free(hpt), free(hpt64);
    gpu_free(trunk, bvt, p, run, arena);
}

/* The trainer's kernels besides the 3x3 convolutions and GroupNorm: BatchNorm (every
 * residual, ReLU and dres variant at the network's widths and odd batch sizes, the heads'
 * 32 channels and a width that is no multiple of 32), the loss, AdamW, both heads; and
 * each fault hook, whose unwritten outputs must fail. */
static void test_training_kernels(ctx *c, gpu_blas *blas, int sms)
{
    const int bn_channels[] = {128, 64}, bn_batches[] = {1, 3, 37, 257};
    const int variants[][3] = {{0, 1, 0}, {1, 1, 1}, {0, 0, 0}, {1, 0, 1}}; /* residual, ReLU, dres */
    for (size_t i = 0; i < GV_ARRAY_LEN(bn_channels); i++)
        for (size_t j = 0; j < GV_ARRAY_LEN(bn_batches); j++)
            for (size_t v = 0; v < GV_ARRAY_LEN(variants); v++)
                for (int k = 0; k < 2; k++)
                    test_bn(c, bn_batches[j], bn_channels[i], k ? GPU_BF16 : GPU_F32, variants[v][0], variants[v][1],
                            variants[v][2], sms, 0);
    for (int k = 0; k < 2; k++) {
        test_bn(c, 37, NN_HEAD_CH, k ? GPU_BF16 : GPU_F32, 0, 1, 0, sms, 0);
        test_bn(c, 37, 40, k ? GPU_BF16 : GPU_F32, 1, 1, 1, sms, 0);
    }
    test_bn(c, 3, 64, GPU_F32, 0, 1, 0, sms, 1);
    const int loss_batches[] = {1, 37, 256, 257, 1000};
    for (size_t j = 0; j < GV_ARRAY_LEN(loss_batches); j++)
        for (int k = 0; k < 2; k++)
            test_loss(c, loss_batches[j], k ? GPU_BF16 : GPU_F32, 0);
    test_loss(c, 37, GPU_F32, 1);
    /* the first step after initialisation over more elements than one grid covers (grid
     * stride); ten steps of a schedule's rate from a saved state; a weight decay and rate
     * large enough that the decay and the bias corrections show in the update */
    test_adamw(c, 1500007, 0, 1, NN_LR, NN_WEIGHT_DECAY);
    test_adamw(c, 100003, 5, 10, 3e-4, NN_WEIGHT_DECAY);
    test_adamw(c, 100003, 0, 3, 1e-2, 0.5);
    const int head_shapes[][2] = {{37, 128}, {3, 64}, {1, 32}};
    for (size_t i = 0; i < GV_ARRAY_LEN(head_shapes); i++)
        for (int bn = 0; bn < 2; bn++)
            for (int k = 0; k < 2; k++)
                test_heads(c, blas, head_shapes[i][0], head_shapes[i][1], bn, k ? GPU_BF16 : GPU_F32, sms);
}

/* Times one kernel: the median of 9 runs after 2 warm-up runs, with events. */
typedef gv_status (*kernel_fn)(void *args, cudaStream_t st, gv_err *err);

static double time_kernel(ctx *c, kernel_fn f, void *args, void (*reset)(void *), gv_err *err)
{
    gv_err ge;
    cudaEvent_t e0, e1;
    rt(c, GV_GPU(cudaEventCreate(&e0), &ge), &ge);
    rt(c, GV_GPU(cudaEventCreate(&e1), &ge), &ge);
    double t[9];
    for (int r = -2; r < 9; r++) {
        if (reset)
            reset(args);
        rt(c, GV_GPU(cudaEventRecord(e0, 0), &ge), &ge);
        if (f(args, 0, err) != GV_OK)
            return -1;
        rt(c, GV_GPU(cudaEventRecord(e1, 0), &ge), &ge);
        rt(c, GV_GPU(cudaEventSynchronize(e1), &ge), &ge);
        float ms = 0;
        rt(c, GV_GPU(cudaEventElapsedTime(&ms, e0, e1), &ge), &ge);
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
    (void)cudaEventDestroy(e0);
    (void)cudaEventDestroy(e1);
    return t[4];
}

typedef struct {
    conv_args c;
    wgrad_args w;
    int impl;
    size_t dw_bytes;
    ctx *cx;
} bench_args;

static gv_status run_fwd(void *p, cudaStream_t st, gv_err *err)
{
    bench_args *b = (bench_args *)p;
    return impl_fwd(b->cx, &b->c, b->impl, err);
}

static gv_status run_wgrad(void *p, cudaStream_t st, gv_err *err)
{
    bench_args *b = (bench_args *)p;
    return impl_wgrad(b->cx, &b->w, b->impl, err);
}

typedef struct {
    gpu_blas *blas;
    int M, C;
    const void *A, *B;
    void *Y;
} blas_bench_args;

static gv_status run_blas(void *p, cudaStream_t st, gv_err *err)
{
    blas_bench_args *g = (blas_bench_args *)p;
    (void)st;
    return gpu_blas_gemm(g->blas, 0, 0, g->M, g->C, 9 * g->C, 1.f, g->A, 9 * g->C, g->B, g->C, 0.f, g->Y, g->C, GPU_BF16,
                         GPU_BF16, 0, err);
}

/* cuDNN for the tests (c->dnn, with a 64 MiB workspace in *ws, freed by the caller), unless
 * GV_CUDNN=0; prints which library or why none. GV_CUDNN=1 makes its absence a failure. */
#define DNN_TEST_WS ((size_t)64 << 20)
static void dnn_open_for_tests(ctx *c, void **ws)
{
    gv_err ge;
    const char *env = getenv("GV_CUDNN");
    char why[320] = "GV_CUDNN=0";
    c->dnn = NULL;
    *ws = NULL;
    if (!(env && !strcmp(env, "0")) && rt(c, GV_GPU(cudaMalloc(ws, DNN_TEST_WS), &ge), &ge))
        rt(c, gpu_dnn_open(&c->dnn, *ws, DNN_TEST_WS, (size_t)128 * 9 * 128, why, sizeof why, &ge), &ge);
    if (c->dnn) {
        printf("# cuDNN: %s\n", gpu_dnn_name(c->dnn));
    } else if (env && !strcmp(env, "1")) {
        printf("FAIL gpu cuDNN: GV_CUDNN=1 but it cannot be used: %s\n", why);
        c->fails++;
    } else {
        printf("SKIP gpu cuDNN convolutions: %s\n", why);
    }
}

static void reset_dw(void *p)
{
    bench_args *b = (bench_args *)p;
    gv_err ge;
    rt(b->cx, GV_GPU(cudaMemsetAsync(b->w.dw, 0, b->dw_bytes, 0), &ge), &ge);
}

/* Prints the time and rate of each convolution kernel at a training-sized batch. */
extern "C" void nn_gpu_kernel_bench(int device_index, int batch, int C)
{
    ctx cc, *c = &cc;
    gv_rng_seed(&cc.rng, 1);
    cc.fails = 0;
    cc.dnn = NULL;
    gv_err ge;
    cudaDeviceProp p;
    if (!rt(c, GV_GPU(cudaSetDevice(device_index), &ge), &ge) ||
        !rt(c, GV_GPU(cudaGetDeviceProperties(&p, device_index), &ge), &ge))
        return;
    const int M = batch * NN_CELLS;
    const double flops = 2.0 * M * C * 9.0 * C;
    void *dws;
    dnn_open_for_tests(c, &dws);
    const int wgmma_ok = GV_HAVE_MMA_BUILD && gpu_conv_wgmma_built(device_index);
    /* simt fp32, simt bf16, tensor-core bf16, wgmma bf16 (cp.async, TMA), cuDNN fp32, cuDNN bf16 */
    const struct {
        gpu_dtype dt;
        int impl;
    } passes[] = {{GPU_F32, IMPL_SIMT},   {GPU_BF16, IMPL_SIMT}, {GPU_BF16, IMPL_MMA},  {GPU_BF16, IMPL_WGMMA},
                  {GPU_BF16, IMPL_TMA},   {GPU_F32, IMPL_CUDNN}, {GPU_BF16, IMPL_CUDNN}};
    for (size_t pass = 0; pass < sizeof passes / sizeof passes[0]; pass++) {
        gpu_dtype dt = passes[pass].dt;
        int impl = passes[pass].impl;
        if ((impl == IMPL_MMA && !(GV_HAVE_MMA_BUILD && p.major >= 8)) ||
            ((impl == IMPL_WGMMA || impl == IMPL_TMA) && !wgmma_ok) ||
            (impl == IMPL_CUDNN && !c->dnn))
            continue;
        void *x = upload_random(c, (size_t)M, C, C, dt), *w = upload_random(c, (size_t)C, 9 * C, 9 * C, dt);
        void *y = upload_random(c, (size_t)M, C, C, dt);
        float *dw = NULL, *ws = NULL;
        size_t wse = (size_t)64 * C * 9 * C;
        rt(c, GV_GPU(cudaMalloc((void **)&dw, sizeof(float) * C * C * 9), &ge), &ge);
        rt(c, GV_GPU(cudaMalloc((void **)&ws, sizeof(float) * wse), &ge), &ge);
        gv_err e;
        bench_args b;
        memset(&b, 0, sizeof b);
        b.c = (conv_args){x, w, y, NULL, M, C, C, dt, 0};
        b.w = (wgrad_args){y, x, dw, ws, wse, M, C, C, C, dt, 0, p.multiProcessorCount};
        b.impl = impl;
        b.dw_bytes = sizeof(float) * C * C * 9;
        b.cx = c;
        double tf = time_kernel(c, run_fwd, &b, NULL, &e);
        char wline[64];
        double tw = time_kernel(c, run_wgrad, &b, reset_dw, &e);
        snprintf(wline, sizeof wline, "wgrad %.3f ms (%.1f TFLOP/s)", tw * 1e3, flops / tw * 1e-12);
        printf("# kernel bench %s %-11s batch %d C %d: forward %.3f ms (%.1f TFLOP/s), %s\n",
               dt == GPU_BF16 ? "bf16" : "fp32", impl_name[impl], batch, C, tf * 1e3, flops / tf * 1e-12, wline);
        fflush(stdout);
        gpu_free(x, w, y, dw, ws);
    }
    /* cuBLAS on the same GEMM shape (M x C = (M x 9C) (9C x C), bf16 in and out, fp32
     * accumulation) with the operands already in place: what a plain GEMM of these sizes
     * reaches on this device, without the convolution's gather */
    gpu_blas *blas = NULL;
    if (rt(c, gpu_blas_create(&blas, NULL, &ge), &ge)) {
        void *A = upload_random(c, (size_t)M, 9 * C, 9 * C, GPU_BF16), *B = upload_random(c, (size_t)9 * C, C, C, GPU_BF16);
        void *Y = upload_random(c, (size_t)M, C, C, GPU_BF16);
        blas_bench_args g = {blas, M, C, A, B, Y};
        gv_err e;
        double tg = A && B && Y ? time_kernel(c, run_blas, &g, NULL, &e) : -1;
        char ver[64] = "";
        gpu_blas_version(blas, ver, sizeof ver);
        if (tg > 0)
            printf("# kernel bench bf16 %-11s batch %d C %d: GEMM %d x %d x %d %.3f ms (%.1f TFLOP/s)\n", ver, batch, C,
                   M, C, 9 * C, tg * 1e3, flops / tg * 1e-12);
        else
            printf("FAIL gpu kernel bench: cuBLAS GEMM: %s\n", tg < 0 && A && B && Y ? e.msg : "no memory");
        gpu_free(A, B, Y);
        gpu_blas_destroy(blas);
    }
    gpu_dnn_close(c->dnn);
    gpu_free(dws);
}

typedef struct {
    norm_fwd_args f;
    norm_bwd_args b;
} norm_bench_args;

static gv_status run_norm_fwd(void *p, cudaStream_t st, gv_err *err)
{
    return gpu_norm_fwd(&((norm_bench_args *)p)->f, st, err);
}

static gv_status run_norm_bwd(void *p, cudaStream_t st, gv_err *err)
{
    return gpu_norm_bwd(&((norm_bench_args *)p)->b, st, err);
}

/* Prints the time and the memory rate (bytes each kernel must move, divided by its time) of
 * the GroupNorm kernels, earlier, coalesced and coalesced with the ReLU bit mask, for
 * (batch, C) in fp32 and bf16: the forward with and without the residual (always the ReLU),
 * the backward with the ReLU mask with and without dres. */
extern "C" void nn_gpu_norm_bench(int device_index, int batch, int C)
{
    ctx cc, *c = &cc;
    gv_rng_seed(&cc.rng, 1);
    cc.fails = 0;
    gv_err ge;
    if (!rt(c, GV_GPU(cudaSetDevice(device_index), &ge), &ge))
        return;
    int sms = 132;
    (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_index);
    const size_t cnt = (size_t)batch * NN_CELLS * C;
    for (int pass = 0; pass < 2; pass++) {
        gpu_dtype dt = pass == 0 ? GPU_F32 : GPU_BF16;
        const size_t es = dt == GPU_BF16 ? 2 : 4, t = es * cnt;
        void *x = upload_random(c, cnt / C, C, C, dt), *res = upload_random(c, cnt / C, C, C, dt);
        void *dout = upload_random(c, cnt / C, C, C, dt), *gb = upload_random(c, 1, 2 * C, 2 * C, GPU_F32);
        void *y = NULL, *dx = NULL, *dres = NULL;
        uint8_t *mb = NULL;
        float *stats = NULL, *dgb = NULL;
        double *acc = NULL;
        int ok = x && res && dout && gb && rt(c, GV_GPU(cudaMalloc(&y, t), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMalloc((void **)&mb, t / 16), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMalloc(&dx, t), &ge), &ge) && rt(c, GV_GPU(cudaMalloc(&dres, t), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMalloc((void **)&stats, sizeof(float) * 16 * batch), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMalloc((void **)&dgb, sizeof(float) * 2 * C), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMalloc((void **)&acc, sizeof(double) * GPU_BN_SCRATCH(C)), &ge), &ge) &&
                 rt(c, GV_GPU(cudaMemset(dgb, 0, sizeof(float) * 2 * C), &ge), &ge);
        for (int v = 0; ok && v < 3; v++) { /* earlier, coalesced, coalesced with the bit mask */
            const int impl = v ? GPU_GN_NEW : GPU_GN_OLD, bits = v == 2;
            if (v && !gpu_gn_coalesced(C, dt))
                continue;
            norm_bench_args b;
            memset(&b, 0, sizeof b);
            b.f.group = 1, b.f.N = batch, b.f.C = C, b.f.x = x, b.f.y = y, b.f.relu = 1, b.f.gamma = (float *)gb;
            b.f.beta = (float *)gb + C, b.f.mean = stats, b.f.rstd = stats + 8 * batch, b.f.train = 1, b.f.dt = dt;
            b.f.impl = impl;
            b.b.group = 1, b.b.N = batch, b.b.C = C, b.b.x = x, b.b.out = y, b.b.dout = dout, b.b.dx = dx;
            b.b.gamma = (float *)gb, b.b.mean = stats, b.b.rstd = stats + 8 * batch, b.b.dgamma = dgb;
            b.b.dbeta = dgb + C, b.b.acc = acc, b.b.sm_count = sms, b.b.dt = dt, b.b.impl = impl;
            if (bits)
                b.f.bits = mb, b.b.bits = mb, b.b.out = NULL;
            const double m = bits ? t / 16.0 : 0, o = bits ? 0 : (double)t; /* the mask's bytes, y's */
            gv_err e;
            double tf = time_kernel(c, run_norm_fwd, &b, NULL, &e);
            b.f.res = res;
            double tfr = time_kernel(c, run_norm_fwd, &b, NULL, &e);
            double tb = time_kernel(c, run_norm_bwd, &b, NULL, &e);
            b.b.dres = dres;
            double tbr = time_kernel(c, run_norm_bwd, &b, NULL, &e);
            if (tf < 0 || tfr < 0 || tb < 0 || tbr < 0) {
                printf("FAIL gpu norm bench: %s\n", e.msg);
                break;
            }
            printf("# norm bench %s %-14s batch %d C %d: forward %.1f us (%.0f GB/s), with residual %.1f us (%.0f GB/s); "
                   "backward %.1f us (%.0f GB/s), with dres %.1f us (%.0f GB/s)\n",
                   dt == GPU_BF16 ? "bf16" : "fp32", v == 0 ? "earlier" : v == 1 ? "coalesced" : "coalesced+bits", batch,
                   C, tf * 1e6, (2.0 * t + m) / tf * 1e-9, tfr * 1e6, (3.0 * t + m) / tfr * 1e-9, tb * 1e6,
                   (3.0 * t + o + m) / tb * 1e-9, tbr * 1e6, (4.0 * t + o + m) / tbr * 1e-9);
            fflush(stdout);
        }
        gpu_free(x, res, dout, gb, y, dx, dres, stats, dgb, acc, mb);
    }
}

extern "C" int nn_gpu_selftest(int device_index, unsigned long long seed)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= device_index) {
        (void)cudaGetLastError();
        printf("SKIP gpu kernels: no GPU %d (%s)\n", device_index, e != cudaSuccess ? cudaGetErrorString(e) : "not present");
        return -1;
    }
    ctx cc, *c = &cc;
    gv_rng_seed(&cc.rng, seed);
    cc.fails = 0;
    cc.dnn = NULL;
    const char *brk = getenv("GV_SELFTEST_BREAK");
    cc.brk = brk && !strcmp(brk, "1");
    gv_err ge;
    cudaDeviceProp p;
    if (!rt(c, GV_GPU(cudaSetDevice(device_index), &ge), &ge) ||
        !rt(c, GV_GPU(cudaGetDeviceProperties(&p, device_index), &ge), &ge))
        return cc.fails;
    int mma_ok = GV_HAVE_MMA_BUILD && p.major >= 8;
    int wgmma_ok = mma_ok && gpu_conv_wgmma_built(device_index);
    printf("# gpu kernel self-test on %s, seed %llu\n", p.name, seed);
    if (!wgmma_ok)
        printf("SKIP gpu wgmma kernels: %s\n", GV_GPU_IS_HIP ? "not built for HIP"
                                               : p.major != 9 ? "not an sm_90 GPU"
                                                              : "this build holds no sm_90a code (CUDA_ARCH=90a)");
    /* shapes: the stem (12 channels padded to 16), full blocks at 128 and 64 channels, a
     * narrow 32-channel layer; 37 samples (1813 rows) so that no tile is full */
    const int shapes[][3] = {{16, 12, 128}, {128, 128, 128}, {64, 64, 64}, {32, 32, 32}, {128, 128, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int cin = shapes[s][0], real = shapes[s][1], cout = shapes[s][2];
        test_fwd(c, 37, cin, real, cout, GPU_F32, 0, s == 1);
        test_fwd(c, 37, cin, real, cout, GPU_BF16, 0, 0);
        if (mma_ok)
            test_fwd(c, 37, cin, real, cout, GPU_BF16, 1, s == 1);
        if (wgmma_ok)
            test_fwd(c, 37, cin, real, cout, GPU_BF16, IMPL_WGMMA, s == 1 || s == 2);
        if (wgmma_ok && cin % 64 == 0)
            test_fwd(c, 37, cin, real, cout, GPU_BF16, IMPL_TMA, s == 1 || s == 2);
        test_wgrad(c, 37, cin, real, cout, GPU_F32, 0);
        if (mma_ok)
            test_wgrad(c, 37, cin, real, cout, GPU_BF16, 1);
        if (wgmma_ok)
            test_wgrad(c, 37, cin, real, cout, GPU_BF16, IMPL_WGMMA);
        if (wgmma_ok && cin % 64 == 0 && cout % 64 == 0)
            test_wgrad(c, 37, cin, real, cout, GPU_BF16, IMPL_TMA);
    }
    /* GroupNorm: every variant (residual, ReLU, dres) at the network's widths and odd batch
     * sizes; the heads' 32 channels and an odd width with everything on */
    const int gn_channels[] = {128, 64}, gn_batches[] = {1, 3, 37, 257};
    for (size_t i = 0; i < sizeof gn_channels / sizeof gn_channels[0]; i++)
        for (size_t j = 0; j < sizeof gn_batches / sizeof gn_batches[0]; j++)
            for (int v = 0; v < 16; v++)
                test_gn(c, gn_batches[j], gn_channels[i], v & 8 ? GPU_BF16 : GPU_F32, v & 1, (v >> 1) & 1, (v >> 2) & 1);
    const int gn_other[] = {32, 96};
    for (size_t i = 0; i < sizeof gn_other / sizeof gn_other[0]; i++) {
        test_gn(c, 37, gn_other[i], GPU_F32, 1, 1, 1);
        test_gn(c, 37, gn_other[i], GPU_BF16, 1, 1, 1);
    }
    /* BatchNorm, the loss, AdamW and the heads (the heads' GEMMs through the vendor BLAS) */
    gpu_blas *blas = NULL;
    if (rt(c, gpu_blas_create(&blas, NULL, &ge), &ge))
        test_training_kernels(c, blas, p.multiProcessorCount);
    gpu_blas_destroy(blas);
    /* the forward's split-K at small batches (one sample: one output tile per 128 channels),
     * as the trainer picks it and with forced split counts (uneven K ranges; more splits
     * than K steps of the stem), with the residual */
    const int sm = p.multiProcessorCount;
    const int fsplit[][4] = {{1, 128, 128, -1}, {1, 128, 128, 7}, {4, 64, 64, -1}, {1, 16, 128, 5}, {37, 128, 128, -1}};
    for (size_t i = 0; i < sizeof fsplit / sizeof fsplit[0]; i++) {
        int n = fsplit[i][0], cin = fsplit[i][1], cout = fsplit[i][2], sp = fsplit[i][3], real = cin == 16 ? 12 : cin;
        test_fwd_split(c, n, cin, real, cout, GPU_F32, 0, cin == cout, sp, sm);
        test_fwd_split(c, n, cin, real, cout, GPU_BF16, 0, cin == cout, sp, sm);
        if (mma_ok)
            test_fwd_split(c, n, cin, real, cout, GPU_BF16, 1, cin == cout, sp, sm);
        if (wgmma_ok)
            test_fwd_split(c, n, cin, real, cout, GPU_BF16, IMPL_WGMMA, cin == cout, sp, sm);
        if (wgmma_ok && cin % 64 == 0)
            test_fwd_split(c, n, cin, real, cout, GPU_BF16, IMPL_TMA, cin == cout, sp, sm);
    }
    /* more rows than one split, for the split-K reduction */
    test_wgrad(c, 700, 128, 128, 128, GPU_F32, 0);
    if (mma_ok) {
        test_wgrad(c, 700, 128, 128, 128, GPU_BF16, 1);
        test_fwd(c, 700, 128, 128, 128, GPU_BF16, 1, 1);
        if (wgmma_ok) {
            test_fwd(c, 700, 128, 128, 128, GPU_BF16, IMPL_WGMMA, 1);
            test_fwd(c, 700, 64, 64, 64, GPU_BF16, IMPL_WGMMA, 0);
            test_fwd(c, 700, 128, 128, 128, GPU_BF16, IMPL_TMA, 1);
            test_fwd(c, 700, 64, 64, 64, GPU_BF16, IMPL_TMA, 0);
            test_fwd(c, 700, 64, 64, 128, GPU_BF16, IMPL_TMA, 0);
            test_wgrad(c, 700, 128, 128, 128, GPU_BF16, IMPL_WGMMA);
            test_wgrad(c, 700, 64, 64, 64, GPU_BF16, IMPL_WGMMA);
            test_wgrad(c, 700, 128, 128, 128, GPU_BF16, IMPL_TMA);
            test_wgrad(c, 700, 64, 64, 64, GPU_BF16, IMPL_TMA);
            test_wgrad(c, 700, 64, 64, 128, GPU_BF16, IMPL_TMA);
            /* fewer rows than one 64-row step, and than one split */
            test_wgrad(c, 1, 64, 64, 64, GPU_BF16, IMPL_TMA);
            test_wgrad(c, 3, 128, 128, 128, GPU_BF16, IMPL_TMA);
        }
    } else {
        printf("SKIP gpu tensor-core kernels: %s\n", GV_GPU_IS_HIP ? "not built for HIP" : "GPU older than sm_80");
    }
    /* cuDNN's path (conv_cudnn.cu), fp32 (FMA units) and bf16, on the same shapes: the
     * forward with and without the residual (the trainer's data gradient is this forward
     * through flipped weights), the weight gradient with the stem's padded channels, one
     * and four samples, and more rows */
    void *dws;
    dnn_open_for_tests(c, &dws);
    if (c->dnn) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int cin = shapes[s][0], real = shapes[s][1], cout = shapes[s][2];
            for (int k = 0; k < 2; k++) {
                gpu_dtype dt = k ? GPU_BF16 : GPU_F32;
                test_fwd(c, 37, cin, real, cout, dt, IMPL_CUDNN, 0);
                if (cin == cout)
                    test_fwd(c, 37, cin, real, cout, dt, IMPL_CUDNN, 1);
                test_wgrad(c, 37, cin, real, cout, dt, IMPL_CUDNN);
            }
        }
        test_fwd(c, 1, 128, 128, 128, GPU_BF16, IMPL_CUDNN, 1);
        test_fwd(c, 4, 64, 64, 64, GPU_BF16, IMPL_CUDNN, 1);
        test_fwd(c, 1, 16, 12, 128, GPU_BF16, IMPL_CUDNN, 0);
        test_wgrad(c, 1, 16, 12, 64, GPU_BF16, IMPL_CUDNN);
        test_wgrad(c, 700, 128, 128, 128, GPU_BF16, IMPL_CUDNN);
        test_wgrad(c, 700, 128, 128, 128, GPU_F32, IMPL_CUDNN);
        test_fwd(c, 700, 128, 128, 128, GPU_BF16, IMPL_CUDNN, 1);
    }
    gpu_dnn_close(c->dnn);
    c->dnn = NULL;
    gpu_free(dws);
    return cc.fails;
}
