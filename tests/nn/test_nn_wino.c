/* test_nn_wino.c: the Winograd F(2x2,3x3) convolutions (src/nn/wino.c) against direct
 * 3x3 convolution loops accumulated in float64 (padding 1, NHWC (n*49, c), PyTorch's weight
 * layout (co, ci, 3, 3)): the forward, the input gradient (the flipped kernel), the weight
 * gradient ((9*ci, co), summed over two chunks with an input gradient computed
 * between them), each with and without accumulating into what is there,
 * at several channel counts (the stem's 12 inputs, odd and wide ones) and sample counts.
 * The output is surrounded by sentinels that must survive (no write outside the tensor).
 * Tolerance: relative L2 1e-5 (float32 arithmetic; F(2x2,3x3)'s transforms only add, halve
 * and subtract, and the float32 trainer's forward tolerance is the same). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "nn/nn.h"
#include "nn/wino.h"

#define P NN_CELLS
#define TOL 1e-5
#define GUARD 64
#define SENTINEL 12345.0f

/* x (ns*49, ci) zero-padded at board cell (y, x), or 0 off the board. */
static double at(const float *x, int s, int y, int xx, int c, int k)
{
    if (y < 0 || y >= NN_BOARD || xx < 0 || xx >= NN_BOARD)
        return 0;
    return x[((size_t)s * P + y * NN_BOARD + xx) * c + k];
}

/* y (ns*49, co) = conv3x3(x) with W (co, ci, 3, 3), in float64. */
static void direct_fwd(const float *x, const float *W, int ns, int ci, int co, double *y)
{
    for (int s = 0; s < ns; s++)
        for (int p = 0; p < P; p++)
            for (int o = 0; o < co; o++) {
                double acc = 0;
                for (int i = 0; i < ci; i++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++)
                            acc += W[((size_t)o * ci + i) * 9 + ky * 3 + kx] *
                                   at(x, s, p / NN_BOARD + ky - 1, p % NN_BOARD + kx - 1, ci, i);
                y[((size_t)s * P + p) * co + o] = acc;
            }
}

/* dx (ns*49, ci) = the input gradient of conv3x3 for dy (ns*49, co), in float64. */
static void direct_dgrad(const float *dy, const float *W, int ns, int ci, int co, double *dx)
{
    memset(dx, 0, sizeof(double) * (size_t)ns * P * ci);
    for (int s = 0; s < ns; s++)
        for (int p = 0; p < P; p++)
            for (int o = 0; o < co; o++) {
                double g = dy[((size_t)s * P + p) * co + o];
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++) {
                        int y = p / NN_BOARD + ky - 1, xx = p % NN_BOARD + kx - 1;
                        if (y < 0 || y >= NN_BOARD || xx < 0 || xx >= NN_BOARD)
                            continue;
                        for (int i = 0; i < ci; i++)
                            dx[((size_t)s * P + y * NN_BOARD + xx) * ci + i] +=
                                g * W[((size_t)o * ci + i) * 9 + ky * 3 + kx];
                    }
            }
}

/* dw (9*ci, co), row tap*ci + i: the weight gradient, in float64. */
static void direct_wgrad(const float *x, const float *dy, int ns, int ci, int co, double *dw)
{
    for (int o = 0; o < co; o++)
        for (int tap = 0; tap < 9; tap++)
            for (int i = 0; i < ci; i++) {
                double acc = 0;
                for (int s = 0; s < ns; s++)
                    for (int p = 0; p < P; p++)
                        acc += dy[((size_t)s * P + p) * co + o] *
                               at(x, s, p / NN_BOARD + tap / 3 - 1, p % NN_BOARD + tap % 3 - 1, ci, i);
                dw[((size_t)tap * ci + i) * co + o] = acc;
            }
}

static float *fill(gv_rng *r, size_t n)
{
    float *a = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(2.0 * gv_rng_uniform(r) - 1.0);
    return a;
}

/* A float buffer of n with GUARD sentinels on each side; returns the inside. */
static float *guarded(size_t n)
{
    float *a = malloc(sizeof(float) * (n + 2 * GUARD));
    for (size_t i = 0; i < n + 2 * GUARD; i++)
        a[i] = SENTINEL;
    return a + GUARD;
}

static int guards_ok(const float *a, size_t n)
{
    for (int i = 0; i < GUARD; i++)
        if (a[-1 - i] != SENTINEL || a[n + (size_t)i] != SENTINEL)
            return 0;
    return 1;
}

/* rel L2 of float got against want (+ base when accumulating onto base). */
static double err_of(const float *got, const double *want, const float *base, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double w = want[i] + (base ? base[i] : 0);
        if (!isfinite(got[i]))
            return INFINITY;
        num += (got[i] - w) * (got[i] - w);
        den += w * w;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void one(int ns, int ci, int co, uint64_t seed)
{
    gv_rng r;
    gv_rng_seed(&r, seed);
    size_t nx = (size_t)ns * P * ci, ny = (size_t)ns * P * co, nw = (size_t)co * ci * 9;
    float *x = fill(&r, nx), *dy = fill(&r, ny), *W = fill(&r, nw);
    float *base_y = fill(&r, ny), *base_x = fill(&r, nx), *base_w = fill(&r, nw);
    int cm = ci > co ? ci : co;
    float *U = malloc(sizeof(float) * nn_wino_packed(ci, co)), *Ub = malloc(sizeof(float) * nn_wino_packed(co, ci));
    float *scratch = malloc(sizeof(float) * nn_wino_scratch(ns, cm));
    double *want_y = malloc(sizeof(double) * ny), *want_x = malloc(sizeof(double) * nx);
    double *want_w = malloc(sizeof(double) * nw);
    float *y = guarded(ny), *dx = guarded(nx), *dw = guarded(nw), *y3 = guarded(ny);
    nn_wino_pack(W, ci, co, 0, nn_wino_blocked(), U);
    nn_wino_pack(W, ci, co, 1, nn_wino_blocked(), Ub);
    direct_fwd(x, W, ns, ci, co, want_y);
    direct_dgrad(dy, W, ns, ci, co, want_x);
    direct_wgrad(x, dy, ns, ci, co, want_w);
    char name[160];
    for (int acc = 0; acc < 2; acc++) {
        const char *how = acc ? "accumulated" : "written";
        memcpy(y, base_y, sizeof(float) * ny);
        nn_wino_conv(x, ns, ci, co, U, y, acc, scratch, 1);
        double e = err_of(y, want_y, acc ? base_y : NULL, ny);
        snprintf(name, sizeof name, "wino forward n=%d ci=%d co=%d %s", ns, ci, co, how);
        t_check(e <= TOL && guards_ok(y, ny), name, "rel_l2 %.3g vs direct float64 (tolerance %g), guards %s", e, TOL,
                guards_ok(y, ny) ? "intact" : "overwritten");
        /* the same on 3 threads: the same values, bit for bit */
        memcpy(y3, base_y, sizeof(float) * ny);
        nn_wino_conv(x, ns, ci, co, U, y3, acc, scratch, 3);
        size_t diff = 0;
        for (size_t i = 0; i < ny; i++)
            diff += memcmp(&y[i], &y3[i], sizeof(float)) != 0;
        snprintf(name, sizeof name, "wino forward n=%d ci=%d co=%d %s on 3 threads", ns, ci, co, how);
        t_check(diff == 0 && guards_ok(y3, ny), name, "%zu of %zu outputs differ from one thread's, guards %s", diff,
                ny, guards_ok(y3, ny) ? "intact" : "overwritten");
        memcpy(dx, base_x, sizeof(float) * nx);
        nn_wino_conv(dy, ns, co, ci, Ub, dx, acc, scratch, 1);
        e = err_of(dx, want_x, acc ? base_x : NULL, nx);
        snprintf(name, sizeof name, "wino input gradient n=%d ci=%d co=%d %s", ns, ci, co, how);
        t_check(e <= TOL && guards_ok(dx, nx), name, "rel_l2 %.3g vs direct float64 (tolerance %g), guards %s", e,
                TOL, guards_ok(dx, nx) ? "intact" : "overwritten");
        if (acc)
            memcpy(dw, base_w, sizeof(float) * nw);
        else
            memset(dw, 0, sizeof(float) * nw);
        /* in two chunks (the first sample, then the rest) with an input gradient between them,
         * as the trainer does */
        nn_wino_wgrad(x, dy, 1, ci, co, 0, scratch);
        nn_wino_conv(dy, 1, co, ci, Ub, base_x, 1, scratch, 1);
        if (ns > 1)
            nn_wino_wgrad(x + (size_t)P * ci, dy + (size_t)P * co, ns - 1, ci, co, 1, scratch);
        nn_wino_unpack_grad(scratch, ci, co, dw);
        e = err_of(dw, want_w, acc ? base_w : NULL, nw);
        snprintf(name, sizeof name, "wino weight gradient n=%d ci=%d co=%d %s", ns, ci, co,
                 acc ? "added to what is there" : "from 0");
        t_check(e <= TOL && guards_ok(dw, nw), name, "rel_l2 %.3g vs direct float64 (tolerance %g), guards %s", e,
                TOL, guards_ok(dw, nw) ? "intact" : "overwritten");
    }
    free(x), free(dy), free(W), free(base_y), free(base_x), free(base_w), free(U), free(Ub), free(scratch);
    free(want_y), free(want_x), free(want_w);
    free(y - GUARD), free(dx - GUARD), free(dw - GUARD), free(y3 - GUARD);
}

/* A vector kernel's result against the plain loops' and float64 (relative L2 1e-6 each),
 * with the sentinel after it intact. */
static void check_kernel(const char *name, const float *got, const float *plain, const double *want, size_t n)
{
    double ek = err_of(got, want, NULL, n), pk = 0, pn = 0;
    for (size_t i = 0; i < n; i++)
        pk += (double)(got[i] - plain[i]) * (got[i] - plain[i]), pn += (double)plain[i] * plain[i];
    pk = sqrt(pk / pn);
    t_check(pk <= 1e-6 && ek <= 1e-6 && guards_ok(got, n), name,
            "rel_l2 %.3g vs plain, %.3g vs float64 (tolerance 1e-6), guards %s", pk, ek,
            guards_ok(got, n) ? "intact" : "overwritten");
}

/* Each vector kernel of the coordinate products this CPU runs against the plain loops over
 * the same blocked U (and the plain loops against float64), at T rows (ns samples), with a
 * sentinel after M. The kernels differ from the plain loop only in fused multiply-adds:
 * relative L2 1e-6 (float32 sums of ci terms; measured about 1e-7). */
static void kernels(int ns, int ci, int co, uint64_t seed)
{
    gv_rng r;
    gv_rng_seed(&r, seed);
    int T = ns * NN_WINO_TILES;
    size_t nm = (size_t)T * co;
    float *V = fill(&r, (size_t)T * ci), *Wt = fill(&r, (size_t)co * ci * 9);
    float *U = malloc(sizeof(float) * nn_wino_packed(ci, co));
    nn_wino_pack(Wt, ci, co, 0, 1, U); /* coordinate 0's block, (ci, co) blocked, is U's first nu floats */
    double *want = malloc(sizeof(double) * nm);
    for (int t = 0; t < T; t++)
        for (int j = 0; j < co; j++) {
            double acc = 0;
            for (int k = 0; k < ci; k++)
                acc += (double)V[(size_t)t * ci + k] * U[(size_t)(j / NN_WINO_BLOCK) * ci * NN_WINO_BLOCK +
                                                          (size_t)k * NN_WINO_BLOCK + j % NN_WINO_BLOCK];
            want[(size_t)t * co + j] = acc;
        }
    float *plain = guarded(nm), *got = guarded(nm);
    nn_wino_gemm(NN_WINO_GEMM_PLAIN, V, T, ci, U, co, plain);
    double e = err_of(plain, want, NULL, nm);
    char name[160];
    snprintf(name, sizeof name, "wino products plain T=%d ci=%d co=%d", T, ci, co);
    t_check(e <= 1e-6 && guards_ok(plain, nm), name, "rel_l2 %.3g vs float64 (tolerance 1e-6)", e);
    for (int k = NN_WINO_GEMM_PLAIN + 1; k < NN_WINO_GEMM_N; k++) {
        snprintf(name, sizeof name, "wino products %s T=%d ci=%d co=%d", nn_wino_gemm_name(k), T, ci, co);
        if (!nn_wino_gemm_has(k)) {
            printf("note: %s not run (this CPU or build lacks the instructions)\n", name);
            continue;
        }
        nn_wino_gemm(k, V, T, ci, U, co, got);
        check_kernel(name, got, plain, want, nm);
    }
    free(V), free(Wt), free(U), free(want), free(plain - GUARD), free(got - GUARD);
}

/* The weight gradient's products dU (ci, co) = V^T G (and dU += V^T G) by each kernel this
 * CPU runs that takes the shape, against float64 and against the plain loops, with a
 * sentinel after dU; where a vector kernel does not take the shape, nn_wino_wgrad uses
 * OpenBLAS (checked by one() above). */
static void wgrad_kernels(int ns, int ci, int co, uint64_t seed)
{
    gv_rng r;
    gv_rng_seed(&r, seed);
    int T = ns * NN_WINO_TILES;
    size_t nu = (size_t)ci * co;
    float *V = fill(&r, (size_t)T * ci), *G = fill(&r, (size_t)T * co), *base = fill(&r, nu);
    double *want = malloc(sizeof(double) * nu);
    float *plain = guarded(nu), *got = guarded(nu);
    char name[160];
    for (int acc = 0; acc < 2; acc++) {
        for (int i = 0; i < ci; i++)
            for (int j = 0; j < co; j++) {
                double s = acc ? base[(size_t)i * co + j] : 0;
                for (int t = 0; t < T; t++)
                    s += (double)V[(size_t)t * ci + i] * G[(size_t)t * co + j];
                want[(size_t)i * co + j] = s;
            }
        memcpy(plain, base, sizeof(float) * nu);
        nn_wino_gemm_wgrad(NN_WINO_GEMM_PLAIN, V, T, ci, G, co, plain, acc);
        double e = err_of(plain, want, NULL, nu);
        snprintf(name, sizeof name, "wino weight-gradient products plain T=%d ci=%d co=%d%s", T, ci, co,
                 acc ? " accumulated" : "");
        t_check(e <= 1e-6 && guards_ok(plain, nu), name, "rel_l2 %.3g vs float64 (tolerance 1e-6)", e);
        for (int k = NN_WINO_GEMM_PLAIN + 1; k < NN_WINO_GEMM_N; k++) {
            snprintf(name, sizeof name, "wino weight-gradient products %s T=%d ci=%d co=%d%s", nn_wino_gemm_name(k), T,
                     ci, co, acc ? " accumulated" : "");
            if (!nn_wino_gemm_has(k) || !nn_wino_wgrad_fits(k, ci, co)) {
                printf("note: %s not run (%s)\n", name,
                       nn_wino_gemm_has(k) ? "the kernel does not take this shape: OpenBLAS does"
                                           : "this CPU or build lacks the instructions");
                continue;
            }
            memcpy(got, base, sizeof(float) * nu);
            nn_wino_gemm_wgrad(k, V, T, ci, G, co, got, acc);
            check_kernel(name, got, plain, want, nu);
        }
    }
    free(V), free(G), free(base), free(want), free(plain - GUARD), free(got - GUARD);
}

/* The comparison must be able to fail: a kernel with one tap's weights zeroed. */
static void negative(void)
{
    int ns = 2, ci = 8, co = 8;
    gv_rng r;
    gv_rng_seed(&r, 5);
    float *x = fill(&r, (size_t)ns * P * ci), *W = fill(&r, (size_t)co * ci * 9), *W2 = malloc(sizeof(float) * co * ci * 9);
    memcpy(W2, W, sizeof(float) * co * ci * 9);
    for (int k = 0; k < co * ci; k++)
        W2[k * 9 + 4] = 0;
    float *U = malloc(sizeof(float) * nn_wino_packed(ci, co)), *y = malloc(sizeof(float) * ns * P * co);
    float *scratch = malloc(sizeof(float) * nn_wino_scratch(ns, 8));
    double *want = malloc(sizeof(double) * ns * P * co);
    nn_wino_pack(W2, ci, co, 0, nn_wino_blocked(), U);
    nn_wino_conv(x, ns, ci, co, U, y, 0, scratch, 1);
    direct_fwd(x, W, ns, ci, co, want);
    double e = err_of(y, want, NULL, (size_t)ns * P * co);
    t_check(e > TOL, "wino comparison can fail", "centre tap zeroed in the kernel under test: rel_l2 %.3g > %g", e, TOL);
    free(x), free(W), free(W2), free(U), free(y), free(scratch), free(want);
}

int main(void)
{
    struct {
        int ns, ci, co;
    } c[] = {{1, 12, 8}, {3, 8, 16}, {2, 24, 24}, {5, 64, 32}, {4, 128, 128}, {1, 40, 8}};
    for (size_t i = 0; i < GV_ARRAY_LEN(c); i++)
        one(c[i].ns, c[i].ci, c[i].co, 1000 + i);
    struct {
        int ns, ci, co;
    } k[] = {{1, 128, 128}, {4, 128, 128}, {1, 12, 8}, {2, 24, 40}, {3, 64, 72}, {1, 7, 3}};
    for (size_t i = 0; i < GV_ARRAY_LEN(k); i++)
        kernels(k[i].ns, k[i].ci, k[i].co, 2000 + i);
    struct {
        int ns, ci, co;
    } g[] = {{1, 128, 128}, {16, 128, 128}, {2, 64, 32}, {3, 8, 96}, {1, 12, 128}, {2, 24, 40}};
    for (size_t i = 0; i < GV_ARRAY_LEN(g); i++)
        wgrad_kernels(g[i].ns, g[i].ci, g[i].co, 3000 + i);
    printf("note: nn_wino_conv uses the %s kernel on this CPU\n", nn_wino_gemm_name(nn_wino_gemm_best()));
    negative();
    return t_done();
}
