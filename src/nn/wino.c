/* wino.c: Winograd F(2x2,3x3) convolutions of 7x7 boards (see wino.h). The transforms run
 * over channel vectors (NHWC rows), so each of them is a loop over channels that the
 * compiler vectorises at the width NN_HOT picked; the 16 coordinate products run on the
 * vector kernels below (forward, input gradient and weight gradient), or OpenBLAS sgemm on
 * machines without them. Matrices (Lavin and Gray's F(2x2,3x3)):
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]   (input patch 4x4 -> 4x4)
 *   G   = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]        (kernel 3x3 -> 4x4)
 *   A^T = [1 1 1 0; 0 1 -1 -1]                        (4x4 -> outputs 2x2)
 * Tile (ty, tx), 0..3 each, computes outputs (2ty..2ty+1, 2tx..2tx+1) from the input patch
 * at rows 2ty-1..2ty+2 and columns 2tx-1..2tx+2 (zeros off the board). */
#include "nn/wino.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn.h"
#include "nn/ops.h"

#define B NN_BOARD
#define P NN_CELLS
#define CMAX 4096 /* nn_config_check's widest layer */

/* Read in place of a patch's cells that lie off the board. */
static const float zeros[CMAX];
/* Written in place of a tile's outputs that lie off the board (per thread: never read). */
static _Thread_local float sink[CMAX];

/* Cell (y, x) of sample s of x (ns*49, c), or the zero row when (y, x) is off the board. */
static const float *cell(const float *x, int s, int y, int xx, int c)
{
    if (y < 0 || y >= B || xx < 0 || xx >= B)
        return zeros;
    return x + ((size_t)s * P + y * B + xx) * c;
}

/* One 4-point step of B^T (d0..d3 -> o0..o3). */
#define BT4(d0, d1, d2, d3, o0, o1, o2, o3) \
    o0 = (d0) - (d2), o1 = (d1) + (d2), o2 = (d2) - (d1), o3 = (d1) - (d3)

/* v[16] (row stride vs) = B^T d B of the channel vectors d[16] (a 4x4 patch, row-major). The
 * loop over channels is the vector loop; the 4x4 tile lives in registers. */
NN_HOT static void tile_in(const float *const *d, float *restrict v, size_t vs, int c)
{
    const float *d0 = d[0], *d1 = d[1], *d2 = d[2], *d3 = d[3], *d4 = d[4], *d5 = d[5], *d6 = d[6], *d7 = d[7];
    const float *d8 = d[8], *d9 = d[9], *d10 = d[10], *d11 = d[11], *d12 = d[12], *d13 = d[13], *d14 = d[14];
    const float *d15 = d[15];
#pragma omp simd
    for (int k = 0; k < c; k++) {
        float a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3; /* B^T d: rows a, b, c, e */
        BT4(d0[k], d4[k], d8[k], d12[k], a0, b0, c0, e0);
        BT4(d1[k], d5[k], d9[k], d13[k], a1, b1, c1, e1);
        BT4(d2[k], d6[k], d10[k], d14[k], a2, b2, c2, e2);
        BT4(d3[k], d7[k], d11[k], d15[k], a3, b3, c3, e3);
        BT4(a0, a1, a2, a3, v[0 * vs + k], v[1 * vs + k], v[2 * vs + k], v[3 * vs + k]);
        BT4(b0, b1, b2, b3, v[4 * vs + k], v[5 * vs + k], v[6 * vs + k], v[7 * vs + k]);
        BT4(c0, c1, c2, c3, v[8 * vs + k], v[9 * vs + k], v[10 * vs + k], v[11 * vs + k]);
        BT4(e0, e1, e2, e3, v[12 * vs + k], v[13 * vs + k], v[14 * vs + k], v[15 * vs + k]);
    }
}

/* One 4-point step of A^T (m0..m3 -> o0, o1). */
#define AT4(m0, m1, m2, m3, o0, o1) o0 = (m0) + (m1) + (m2), o1 = (m1) - (m2) - (m3)

/* y[4] (a 2x2 tile, row-major) = (or +=) A^T m A of m[16] (row stride ms). */
NN_HOT static void tile_out(const float *restrict m, size_t ms, float *const *y, int accumulate, int c)
{
    float *y0 = y[0], *y1 = y[1], *y2 = y[2], *y3 = y[3];
#define TILE_OUT_LOOP(OP)                                                                        \
    _Pragma("omp simd") for (int k = 0; k < c; k++)                                              \
    {                                                                                            \
        float r0, r1, r2, r3, s0, s1, s2, s3, o00, o01, o10, o11; /* A^T m: rows r, s */         \
        AT4(m[0 * ms + k], m[4 * ms + k], m[8 * ms + k], m[12 * ms + k], r0, s0);                \
        AT4(m[1 * ms + k], m[5 * ms + k], m[9 * ms + k], m[13 * ms + k], r1, s1);                \
        AT4(m[2 * ms + k], m[6 * ms + k], m[10 * ms + k], m[14 * ms + k], r2, s2);               \
        AT4(m[3 * ms + k], m[7 * ms + k], m[11 * ms + k], m[15 * ms + k], r3, s3);               \
        AT4(r0, r1, r2, r3, o00, o01);                                                           \
        AT4(s0, s1, s2, s3, o10, o11);                                                           \
        y0[k] OP o00;                                                                            \
        y1[k] OP o01;                                                                            \
        y2[k] OP o10;                                                                            \
        y3[k] OP o11;                                                                            \
    }
    if (accumulate)
        TILE_OUT_LOOP(+=)
    else
        TILE_OUT_LOOP(=)
#undef TILE_OUT_LOOP
}

/* One 2-point step of A (e0, e1 -> o0..o3). */
#define A2(e0, e1, o0, o1, o2, o3) o0 = (e0), o1 = (e0) + (e1), o2 = (e0) - (e1), o3 = -(e1)

/* g[16] (row stride gs) = A e A^T of the 2x2 gradient e[4] (row-major). */
NN_HOT static void tile_gout(const float *const *e, float *restrict g, size_t gs, int c)
{
    const float *e00 = e[0], *e01 = e[1], *e10 = e[2], *e11 = e[3];
#pragma omp simd
    for (int k = 0; k < c; k++) {
        float h0, h1, h2, h3, i0, i1, i2, i3; /* A e: column 0 (h), column 1 (i) */
        A2(e00[k], e10[k], h0, h1, h2, h3);
        A2(e01[k], e11[k], i0, i1, i2, i3);
        A2(h0, i0, g[0 * gs + k], g[1 * gs + k], g[2 * gs + k], g[3 * gs + k]);
        A2(h1, i1, g[4 * gs + k], g[5 * gs + k], g[6 * gs + k], g[7 * gs + k]);
        A2(h2, i2, g[8 * gs + k], g[9 * gs + k], g[10 * gs + k], g[11 * gs + k]);
        A2(h3, i3, g[12 * gs + k], g[13 * gs + k], g[14 * gs + k], g[15 * gs + k]);
    }
}

/* Tile t (sample t / 16, tile t % 16) of nn_wino_in. */
static void in_tile(const float *x, int ns, int c, float *V, int t)
{
    size_t vs = (size_t)ns * NN_WINO_TILES * c;
    int s = t / NN_WINO_TILES, ty = t % NN_WINO_TILES / 4, tx = t % 4;
    const float *d[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            d[4 * i + j] = cell(x, s, 2 * ty - 1 + i, 2 * tx - 1 + j, c);
    tile_in(d, V + (size_t)t * c, vs, c);
}

void nn_wino_in(const float *x, int ns, int c, float *V)
{
    for (int t = 0; t < ns * NN_WINO_TILES; t++)
        in_tile(x, ns, c, V, t);
}

/* Tile t of nn_wino_out. */
static void out_tile(const float *M, int ns, int c, float *y, int accumulate, int t)
{
    size_t ms = (size_t)ns * NN_WINO_TILES * c;
    int s = t / NN_WINO_TILES, ty = t % NN_WINO_TILES / 4, tx = t % 4;
    float *o[4];
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            int oy = 2 * ty + a, ox = 2 * tx + b;
            o[2 * a + b] = oy < B && ox < B ? y + ((size_t)s * P + oy * B + ox) * c : sink;
        }
    tile_out(M + (size_t)t * c, ms, o, accumulate, c);
}

void nn_wino_out(const float *M, int ns, int c, float *y, int accumulate)
{
    for (int t = 0; t < ns * NN_WINO_TILES; t++)
        out_tile(M, ns, c, y, accumulate, t);
}

void nn_wino_gout(const float *dy, int ns, int c, float *G)
{
    size_t T = (size_t)ns * NN_WINO_TILES, gs = T * (size_t)c;
    for (int s = 0; s < ns; s++)
        for (int ty = 0; ty < 4; ty++)
            for (int tx = 0; tx < 4; tx++) {
                const float *e[4];
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        e[2 * a + b] = cell(dy, s, 2 * ty + a, 2 * tx + b, c);
                tile_gout(e, G + ((size_t)s * NN_WINO_TILES + ty * 4 + tx) * c, gs, c);
            }
}

int nn_wino_blocked(void)
{
    return nn_wino_gemm_best() != NN_WINO_GEMM_PLAIN;
}

size_t nn_wino_packed(int in, int out)
{
    return (size_t)NN_WINO_XI * in * ((out + NN_WINO_BLOCK - 1) / NN_WINO_BLOCK * NN_WINO_BLOCK);
}

void nn_wino_pack(const float *W, int ci, int co, int flip, int blocked, float *U)
{
    int in = flip ? co : ci, out = flip ? ci : co; /* channels of the convolution U describes */
    size_t xs = blocked ? nn_wino_packed(in, out) / NN_WINO_XI : (size_t)in * out;
    if (blocked)
        memset(U, 0, sizeof(float) * nn_wino_packed(in, out)); /* the columns past out */
    for (int o = 0; o < co; o++)
        for (int i = 0; i < ci; i++) {
            const float *w = W + ((size_t)o * ci + i) * 9;
            float g[9], t[12];
            for (int q = 0; q < 9; q++)
                g[q] = flip ? w[8 - q] : w[q];
            for (int l = 0; l < 3; l++) { /* G g: rows */
                t[l] = g[l];
                t[3 + l] = 0.5f * (g[l] + g[3 + l] + g[6 + l]);
                t[6 + l] = 0.5f * (g[l] - g[3 + l] + g[6 + l]);
                t[9 + l] = g[6 + l];
            }
            int ri = flip ? o : i, ro = flip ? i : o; /* row (input channel) and column of U */
            size_t at = blocked ? ((size_t)(ro / NN_WINO_BLOCK) * in + ri) * NN_WINO_BLOCK + ro % NN_WINO_BLOCK
                                : (size_t)ri * out + ro;
            for (int r = 0; r < 4; r++) { /* (G g) G^T: columns */
                const float *tr = t + 3 * r;
                U[(4 * r + 0) * xs + at] = tr[0];
                U[(4 * r + 1) * xs + at] = 0.5f * (tr[0] + tr[1] + tr[2]);
                U[(4 * r + 2) * xs + at] = 0.5f * (tr[0] - tr[1] + tr[2]);
                U[(4 * r + 3) * xs + at] = tr[2];
            }
        }
}

/* One 4-point step of G^T (u0..u3 -> o0..o2). */
#define GT4(u0, u1, u2, u3, o0, o1, o2) \
    o0 = (u0) + 0.5f * ((u1) + (u2)), o1 = 0.5f * ((u1) - (u2)), o2 = 0.5f * ((u1) + (u2)) + (u3)

/* dw row (tap, i) += (G^T dU G)[tap] for the co output channels of input channel i. */
NN_HOT static void unpack_row(const float *restrict u, size_t xs, float *restrict dw, size_t ts, int co)
{
#pragma omp simd
    for (int o = 0; o < co; o++) {
        float a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3; /* G^T dU: rows a, b, c */
        GT4(u[0 * xs + o], u[4 * xs + o], u[8 * xs + o], u[12 * xs + o], a0, b0, c0);
        GT4(u[1 * xs + o], u[5 * xs + o], u[9 * xs + o], u[13 * xs + o], a1, b1, c1);
        GT4(u[2 * xs + o], u[6 * xs + o], u[10 * xs + o], u[14 * xs + o], a2, b2, c2);
        GT4(u[3 * xs + o], u[7 * xs + o], u[11 * xs + o], u[15 * xs + o], a3, b3, c3);
        float r0, r1, r2;
        GT4(a0, a1, a2, a3, r0, r1, r2);
        dw[0 * ts + o] += r0, dw[1 * ts + o] += r1, dw[2 * ts + o] += r2;
        GT4(b0, b1, b2, b3, r0, r1, r2);
        dw[3 * ts + o] += r0, dw[4 * ts + o] += r1, dw[5 * ts + o] += r2;
        GT4(c0, c1, c2, c3, r0, r1, r2);
        dw[6 * ts + o] += r0, dw[7 * ts + o] += r1, dw[8 * ts + o] += r2;
    }
}

void nn_wino_unpack_grad(const float *dU, int ci, int co, float *dw)
{
    size_t xs = (size_t)ci * co;
    for (int i = 0; i < ci; i++)
        unpack_row(dU + (size_t)i * co, xs, dw + (size_t)i * co, xs, co);
}

/* ---- the coordinate products ----------------------------------------------------------
 * M (T, co) = V (T, ci) U (ci, co), T a multiple of 16 (16 tiles a sample), U in the blocked
 * layout of nn_wino_pack: column blocks of 32, each (ci, 32) contiguous, zeros past co, so
 * that a kernel streams its block of U in order and the packing is done once per weight
 * update, not on every call (OpenBLAS copies U into its own panels on every call, which at
 * one sample takes as long as the product). The weight gradient's products
 * dU (ci, co) += V^T (ci, T) G (T, co) run on the same kernels, reading V transposed and G
 * row-major in place (OpenBLAS's sgemm with a transposed operand measured half the vector
 * kernels' rate on these shapes, and that product was 40% of a training step). Each kernel
 * holds a block of the result in registers and runs k from 0 to K in order, one
 * multiply-add per term, as the plain loop does: they differ from it only in the rounding
 * of fused multiply-adds. */
#define NB NN_WINO_BLOCK

/* One coordinate's product: C (rows, columns [j0, j1)) = A B, or += with acc. A (rows, K)
 * has element (r, k) at a[r*ars + k*aks]; B (K, n) has element (k, j) at
 * b[(j/32)*bjs + k*bks + j%32]. The convolutions: A = V (ars = ci, aks = 1), B = U blocked
 * (bjs = 32*ci, bks = 32). The weight gradient: A = V^T (ars = 1, aks = ci), B = G
 * row-major (bjs = 32, bks = co, co a multiple of 32 so that no load passes a row's end).
 * The vector kernels take rows in blocks (8 for AVX-512, 4 for AVX2). */
typedef struct {
    const float *a;
    size_t ars, aks;
    const float *b;
    size_t bjs, bks;
    float *c;
    size_t ldc;
    int rows, k, acc;
} wprod;

/* The reference: the plain loops. */
static void prod_plain(const wprod *p, int j0, int j1)
{
    for (int r = 0; r < p->rows; r++)
        for (int j = j0; j < j1; j++) {
            const float *u = p->b + (size_t)(j / NB) * p->bjs + j % NB;
            float *c = p->c + (size_t)r * p->ldc + j;
            float s = p->acc ? *c : 0;
            for (int k = 0; k < p->k; k++)
                s += p->a[(size_t)r * p->ars + (size_t)k * p->aks] * u[(size_t)k * p->bks];
            *c = s;
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86_KERNELS 1

/* AVX-512: blocks of 8 rows by 32 columns (16 accumulators of 16 floats; per k, two loads
 * of B and eight broadcasts of A feed 16 fused multiply-adds); loads and stores of C
 * masked past the last column. A block of 32 columns of U (16 KiB at ci = 128) stays in L1
 * while the row blocks pass over it. ars and aks are constants where the callers below
 * inline it, so that each case addresses A as the hand-written loop would. */
/* One k step of a vector kernel (VEC, LOAD, SET1, FMA: the ISA's vector type, load,
 * broadcast and fused multiply-add; HALF: the second vector's offset): B's row k as two
 * vectors u0, u1, then for each row r of the block A's (r, k) times them, added into the
 * row's accumulators a<r> and b<r>. */
#define PROD_K(VEC, LOAD, HALF)                                         \
    const float *uk = ub + (size_t)k * bks, *vk = v + (size_t)k * aks; \
    VEC u0 = LOAD(uk), u1 = LOAD(uk + (HALF))
#define PROD_ROW(r, SET1, FMA)                          \
    do {                                                \
        __typeof__(u0) x = SET1(vk[(size_t)(r) * ars]); \
        a##r = FMA(x, u0, a##r);                        \
        b##r = FMA(x, u1, b##r);                        \
    } while (0)
#define PROD_ROWS4(S, F) PROD_ROW(0, S, F); PROD_ROW(1, S, F); PROD_ROW(2, S, F); PROD_ROW(3, S, F)
#define PROD_ROWS8(S, F) PROD_ROWS4(S, F); PROD_ROW(4, S, F); PROD_ROW(5, S, F); PROD_ROW(6, S, F); PROD_ROW(7, S, F)

/* A row's starting sums: C's values (masked past the last column) when accumulating, else 0. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 c_start512(int acc, __mmask16 m, const float *c)
{
    return acc ? _mm512_maskz_loadu_ps(m, c) : _mm512_setzero_ps();
}

__attribute__((target("avx512f"), always_inline)) static inline void prod_avx512_at(const wprod *p, int j0, int j1,
                                                                                     size_t ars, size_t aks)
{
    size_t bks = p->bks, ldc = p->ldc;
    for (int j = j0; j < j1; j += NB) {
        int w = j1 - j;
        __mmask16 m0 = w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1);
        __mmask16 m1 = w >= 32 ? (__mmask16)0xffff : w <= 16 ? 0 : (__mmask16)((1u << (w - 16)) - 1);
        const float *ub = p->b + (size_t)(j / NB) * p->bjs;
        for (int t = 0; t < p->rows; t += 8) {
            const float *v = p->a + (size_t)t * ars;
            float *m = p->c + (size_t)t * ldc + j;
            __m512 a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7;
#define CS(r) (a##r = c_start512(p->acc, m0, m + (size_t)(r) * ldc), b##r = c_start512(p->acc, m1, m + (size_t)(r) * ldc + 16))
            CS(0); CS(1); CS(2); CS(3); CS(4); CS(5); CS(6); CS(7);
#undef CS
            for (int k = 0; k < p->k; k++) {
                PROD_K(__m512, _mm512_loadu_ps, 16);
                PROD_ROWS8(_mm512_set1_ps, _mm512_fmadd_ps);
            }
#define S(r) (_mm512_mask_storeu_ps(m + (size_t)(r) * ldc, m0, a##r), _mm512_mask_storeu_ps(m + (size_t)(r) * ldc + 16, m1, b##r))
            S(0); S(1); S(2); S(3); S(4); S(5); S(6); S(7);
#undef S
        }
    }
}

__attribute__((target("avx512f"))) static void prod_avx512(const wprod *p, int j0, int j1)
{
    if (p->aks == 1)
        prod_avx512_at(p, j0, j1, p->ars, 1);
    else
        prod_avx512_at(p, j0, j1, 1, p->aks);
}

/* AVX2 + FMA: each 32-column block as two halves of 16, in blocks of 4 rows (8 accumulators
 * of 8 floats; two loads of B and four broadcasts of A per k for 8 fused multiply-adds);
 * columns past the last go through a small buffer. */
__attribute__((target("avx2,fma"), always_inline)) static inline void prod_avx2_at(const wprod *p, int j0, int j1,
                                                                                   size_t ars, size_t aks)
{
    size_t bks = p->bks, ldc = p->ldc;
    for (int j = j0; j < j1; j += 16) {
        const float *ub = p->b + (size_t)(j / NB) * p->bjs + j % NB;
        int w = GV_MIN(16, j1 - j);
        for (int t = 0; t < p->rows; t += 4) {
            const float *v = p->a + (size_t)t * ars;
            float *m = p->c + (size_t)t * ldc + j;
            float buf[4][16];
            __m256 a0 = _mm256_setzero_ps(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0;
            if (p->acc) {
                for (int r = 0; r < 4; r++)
                    memcpy(buf[r], m + (size_t)r * ldc, sizeof(float) * w);
#define L(r) (a##r = _mm256_loadu_ps(buf[r]), b##r = _mm256_loadu_ps(buf[r] + 8))
                L(0); L(1); L(2); L(3);
#undef L
            }
            for (int k = 0; k < p->k; k++) {
                PROD_K(__m256, _mm256_loadu_ps, 8);
                PROD_ROWS4(_mm256_set1_ps, _mm256_fmadd_ps);
            }
            if (w == 16) {
#define S(r) (_mm256_storeu_ps(m + (size_t)(r) * ldc, a##r), _mm256_storeu_ps(m + (size_t)(r) * ldc + 8, b##r))
                S(0); S(1); S(2); S(3);
#undef S
            } else {
#define S(r) (_mm256_storeu_ps(buf[r], a##r), _mm256_storeu_ps(buf[r] + 8, b##r))
                S(0); S(1); S(2); S(3);
#undef S
                for (int r = 0; r < 4; r++)
                    memcpy(m + (size_t)r * ldc, buf[r], sizeof(float) * w);
            }
        }
    }
}

__attribute__((target("avx2,fma"))) static void prod_avx2(const wprod *p, int j0, int j1)
{
    if (p->aks == 1)
        prod_avx2_at(p, j0, j1, p->ars, 1);
    else
        prod_avx2_at(p, j0, j1, 1, p->aks);
}
#endif

static const char *const gemm_names[NN_WINO_GEMM_N] = {"plain", "avx2", "avx512"};

const char *nn_wino_gemm_name(nn_wino_gemm_kind k)
{
    return k >= 0 && k < NN_WINO_GEMM_N ? gemm_names[k] : "?";
}

int nn_wino_gemm_has(nn_wino_gemm_kind k)
{
    switch (k) {
    case NN_WINO_GEMM_PLAIN:
        return 1;
#ifdef HAVE_X86_KERNELS
    case NN_WINO_GEMM_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case NN_WINO_GEMM_AVX512:
        return __builtin_cpu_supports("avx512f");
#endif
    default:
        return 0;
    }
}

nn_wino_gemm_kind nn_wino_gemm_best(void)
{
    static int best = -1; /* the answer does not change: racing first calls write the same value */
    if (best < 0) {
        int b = nn_wino_gemm_has(NN_WINO_GEMM_AVX512) ? NN_WINO_GEMM_AVX512
                : nn_wino_gemm_has(NN_WINO_GEMM_AVX2) ? NN_WINO_GEMM_AVX2
                                                        : NN_WINO_GEMM_PLAIN;
        /* GV_WINO_KERNEL=plain|avx2|avx512: a lesser kernel this CPU runs, to test its path
         * through the whole network on a machine that has a better one */
        const char *e = getenv("GV_WINO_KERNEL");
        for (int k = 0; e && k < NN_WINO_GEMM_N; k++)
            if (!strcmp(e, gemm_names[k]) && nn_wino_gemm_has(k))
                b = k;
        best = b;
    }
    return (nn_wino_gemm_kind)best;
}

/* Columns [j0, j1) of p's product by kernel k. */
static void prod_cols(nn_wino_gemm_kind k, const wprod *p, int j0, int j1)
{
#ifdef HAVE_X86_KERNELS
    if (k == NN_WINO_GEMM_AVX512) {
        prod_avx512(p, j0, j1);
        return;
    }
    if (k == NN_WINO_GEMM_AVX2) {
        prod_avx2(p, j0, j1);
        return;
    }
#endif
    prod_plain(p, j0, j1);
}

/* The product M (T, co) = V (T, ci) U (ci, co blocked) of one coordinate. */
static wprod prod_conv(const float *V, int T, int ci, const float *U, int co, float *M)
{
    return (wprod){V, (size_t)ci, 1, U, (size_t)NB * ci, NB, M, (size_t)co, T, ci, 0};
}

/* The product dU (ci, co) (+)= V^T (ci, T) G (T, co) of one coordinate. */
static wprod prod_wgrad(const float *V, int T, int ci, const float *G, int co, float *dU, int accumulate)
{
    return (wprod){V, 1, (size_t)ci, G, NB, (size_t)co, dU, (size_t)co, ci, T, accumulate};
}

void nn_wino_gemm(nn_wino_gemm_kind k, const float *V, int T, int ci, const float *U, int co, float *M)
{
    assert(T % NN_WINO_TILES == 0 && nn_wino_gemm_has(k));
    wprod p = prod_conv(V, T, ci, U, co, M);
    prod_cols(k, &p, 0, co);
}

int nn_wino_wgrad_fits(nn_wino_gemm_kind k, int ci, int co)
{
    return k == NN_WINO_GEMM_PLAIN || (ci % 8 == 0 && co % NB == 0);
}

void nn_wino_gemm_wgrad(nn_wino_gemm_kind k, const float *V, int T, int ci, const float *G, int co, float *dU,
                        int accumulate)
{
    assert(T % NN_WINO_TILES == 0 && nn_wino_gemm_has(k) && nn_wino_wgrad_fits(k, ci, co));
    wprod p = prod_wgrad(V, T, ci, G, co, dU, accumulate);
    prod_cols(k, &p, 0, co);
}

size_t nn_wino_scratch(int ns, int cmax)
{
    return (size_t)NN_WINO_XI * cmax * cmax + (size_t)2 * NN_WINO_XI * NN_WINO_TILES * ns * cmax;
}

/* The scratch: dU (16, ci, co) of nn_wino_wgrad first (untouched by nn_wino_conv, so that it
 * can accumulate over chunks while the input gradient is computed between them), then the
 * transformed inputs and the products, 16 * 16 * ns * max(ci, co) floats each. */
static float *scratch_v(float *scratch, int ci, int co)
{
    int cm = ci > co ? ci : co;
    return scratch + (size_t)NN_WINO_XI * cm * cm;
}

void nn_wino_conv(const float *x, int ns, int ci, int co, const float *U, float *y, int accumulate, float *scratch,
                  int threads)
{
    int T = ns * NN_WINO_TILES, cm = ci > co ? ci : co;
    float *V = scratch_v(scratch, ci, co), *M = V + (size_t)NN_WINO_XI * T * cm;
    nn_wino_gemm_kind k = nn_wino_gemm_best();
    size_t us = nn_wino_packed(ci, co) / NN_WINO_XI;
    if (k == NN_WINO_GEMM_PLAIN) { /* U row-major: OpenBLAS, on the calling thread */
        nn_wino_in(x, ns, ci, V);
        for (int xi = 0; xi < NN_WINO_XI; xi++) /* M[xi] (T, co) = V[xi] (T, ci) U[xi] (ci, co) */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, co, ci, 1.0f, V + (size_t)xi * T * ci, ci,
                        U + (size_t)xi * ci * co, co, 0.0f, M + (size_t)xi * T * co, co);
        nn_wino_out(M, ns, co, y, accumulate);
        return;
    }
    /* The tiles' transforms, then the products by (coordinate, 32-column block), then the
     * inverse transforms, each shared out among the threads in a fixed (static) split: a
     * thread multiplies by the same part of U on every call, which stays in its core's
     * cache. Every value is computed as on one thread, in the same order. */
    int nb = (co + NB - 1) / NB, items = NN_WINO_XI * nb;
    if (threads > items)
        threads = items;
#pragma omp parallel num_threads(threads > 1 ? threads : 1) if (threads > 1)
    {
#pragma omp for schedule(static)
        for (int t = 0; t < T; t++)
            in_tile(x, ns, ci, V, t);
#pragma omp for schedule(static)
        for (int it = 0; it < items; it++) {
            int xi = it / nb, j0 = it % nb * NB;
            wprod p = prod_conv(V + (size_t)xi * T * ci, T, ci, U + xi * us, co, M + (size_t)xi * T * co);
            prod_cols(k, &p, j0, GV_MIN(co, j0 + NB));
        }
#pragma omp for schedule(static)
        for (int t = 0; t < T; t++)
            out_tile(M, ns, co, y, accumulate, t);
    }
}

void nn_wino_wgrad(const float *x, const float *dy, int ns, int ci, int co, int accumulate, float *scratch)
{
    int T = ns * NN_WINO_TILES, cm = ci > co ? ci : co;
    float *dU = scratch, *V = scratch_v(scratch, ci, co), *G = V + (size_t)NN_WINO_XI * T * cm;
    nn_wino_in(x, ns, ci, V);
    nn_wino_gout(dy, ns, co, G);
    nn_wino_gemm_kind k = nn_wino_gemm_best();
    if (k != NN_WINO_GEMM_PLAIN && nn_wino_wgrad_fits(k, ci, co)) {
        for (int xi = 0; xi < NN_WINO_XI; xi++)
            nn_wino_gemm_wgrad(k, V + (size_t)xi * T * ci, T, ci, G + (size_t)xi * T * co, co,
                               dU + (size_t)xi * ci * co, accumulate);
        return;
    }
    /* the plain loops' machines, and shapes the vector kernels do not take (the stem's 12
     * input planes): OpenBLAS */
    for (int xi = 0; xi < NN_WINO_XI; xi++) /* dU[xi] (ci, co) (+)= V[xi]^T (ci, T) G[xi] (T, co) */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ci, co, T, 1.0f, V + (size_t)xi * T * ci, ci,
                    G + (size_t)xi * T * co, co, accumulate ? 1.0f : 0.0f, dU + (size_t)xi * ci * co, co);
}
