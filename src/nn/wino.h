/* wino.h: 3x3 convolutions (stride 1, padding 1) of 7x7 boards on the CPU by Winograd's
 * F(2x2,3x3): the board is cut into 4x4 tiles of 2x2 outputs (the last row and column of
 * tiles half outside), each tile's 4x4 input patch is transformed (B^T d B), the 16
 * transformed coordinates are 16 independent matrix products over channels (own AVX-512 and
 * AVX2 kernels where the CPU has them, else OpenBLAS sgemm), and each tile's 4x4 products
 * are transformed back (A^T m A). 16 products per 2x2 outputs
 * instead of 36: 256 products per channel pair and sample instead of 441 (1.72x fewer).
 * The same kernels give the input gradient (the transposed convolution is a convolution
 * with the flipped kernel) and, through the adjoint transforms, the weight gradient.
 * Activations are NHWC, (ns*49, c) row-major, as in cpu32.c. The element-wise transforms are
 * built for AVX-512, AVX2+FMA and the baseline and picked by the CPU at load time
 * (NN_HOT); every other machine (aarch64 included) builds the portable loops.
 * tests/nn/test_nn_wino.c compares every function with direct convolution loops. */
#ifndef GV_NN_WINO_H
#define GV_NN_WINO_H

#include <stddef.h>

/* Tiles per sample and transformed coordinates per tile. */
#define NN_WINO_TILES 16
#define NN_WINO_XI 16

/* Columns of a block of U in the blocked layout. */
#define NN_WINO_BLOCK 32

/* U of a convolution from `in` to `out` channels: U[xi] is (in, out) row-major, or, blocked,
 * (ceil(out/32), in, 32) with zeros past out (the layout of nn_wino_gemm). nn_wino_conv
 * wants the blocked layout where nn_wino_blocked() says so (the CPU runs a vector kernel),
 * else the row-major one (for OpenBLAS sgemm). nn_wino_packed: the floats U takes (room for
 * either layout). */
int nn_wino_blocked(void);
size_t nn_wino_packed(int in, int out);

/* U of PyTorch's weight W (co, ci, 3, 3): the convolution from ci to co channels, or with
 * flip the kernel of the input gradient, the convolution from co to ci channels with
 * W'[ci][co][ky][kx] = W[co][ci][2-ky][2-kx]. U holds nn_wino_packed(ci, co) floats. */
void nn_wino_pack(const float *W, int ci, int co, int flip, int blocked, float *U);

/* Scratch floats nn_wino_conv and nn_wino_wgrad need for ns samples and at most cmax
 * channels on either side. */
size_t nn_wino_scratch(int ns, int cmax);

/* y (ns*49, co) = conv3x3(x (ns*49, ci)) with U from nn_wino_pack (layout: nn_wino_blocked()); with accumulate,
 * y += conv3x3(x) instead. scratch: nn_wino_scratch(ns, max(ci, co)) floats. threads > 1: the
 * work is shared among that many OpenMP threads (a parallel region of its own; the result
 * is the same bit for bit), where the vector kernels run (nn_wino_blocked()). */
void nn_wino_conv(const float *x, int ns, int ci, int co, const float *U, float *y, int accumulate, float *scratch,
                  int threads);

/* dU (16, ci, co), the first 16*ci*co floats of scratch, = (or += with accumulate) the
 * gradient of U for these ns samples, with x the forward input (ns*49, ci) and dy the
 * gradient at the output (ns*49, co); nn_wino_unpack_grad turns it into the weight
 * gradient. nn_wino_conv with the same ci, co and scratch leaves dU alone, so that the
 * chunks of a batch can accumulate into it with input gradients computed in between.
 * scratch: nn_wino_scratch(ns, max(ci, co)) floats. */
void nn_wino_wgrad(const float *x, const float *dy, int ns, int ci, int co, int accumulate, float *scratch);

/* The transforms on their own (for the tests). V (16, ns*16, c): row s*16 + tile of
 * coordinate xi holds B^T d B of that tile's patch. */
void nn_wino_in(const float *x, int ns, int c, float *V);
/* y (ns*49, c) = (or += with accumulate) A^T m A of every tile, from M (16, ns*16, c). */
void nn_wino_out(const float *M, int ns, int c, float *y, int accumulate);
/* G (16, ns*16, c) = A g A^T of every tile's 2x2 gradient g (zeros off the board), the
 * adjoint of nn_wino_out. */
void nn_wino_gout(const float *dy, int ns, int c, float *G);
/* dw (9*ci, co), row tap*ci + c (tap = ky*3 + kx), += G^T dU G for every (c, co), from
 * dU (16, ci, co): the adjoint of nn_wino_pack (without flip). */
void nn_wino_unpack_grad(const float *dU, int ci, int co, float *dw);

/* The kernels of the 16 coordinate products M (T, co) = V (T, ci) U (ci, co) (V and M
 * row-major, U blocked as nn_wino_pack writes it, T a multiple of 16): the plain loops (the reference, and the
 * path of machines without the vector kernels), AVX2+FMA and AVX-512, picked by the CPU's
 * features at run time (nn_wino_gemm_best; GV_WINO_KERNEL=plain|avx2|avx512 picks a lesser
 * one the CPU runs, for testing). nn_wino_conv uses that one, or OpenBLAS sgemm where that
 * is the plain loop. */
typedef enum { NN_WINO_GEMM_PLAIN, NN_WINO_GEMM_AVX2, NN_WINO_GEMM_AVX512, NN_WINO_GEMM_N } nn_wino_gemm_kind;
const char *nn_wino_gemm_name(nn_wino_gemm_kind k);
/* Whether this build and CPU run kernel k. */
int nn_wino_gemm_has(nn_wino_gemm_kind k);
nn_wino_gemm_kind nn_wino_gemm_best(void);
/* M = V U by kernel k (which this CPU must run). */
void nn_wino_gemm(nn_wino_gemm_kind k, const float *V, int T, int ci, const float *U, int co, float *M);
/* The weight gradient's product of one coordinate, dU (ci, co) = (or += with accumulate)
 * V^T G, with V (T, ci) and G (T, co) row-major, by kernel k, which takes these shapes where
 * nn_wino_wgrad_fits says so (the vector kernels: ci a multiple of 8, co of 32);
 * nn_wino_wgrad uses the best kernel where it fits, else OpenBLAS sgemm. */
int nn_wino_wgrad_fits(nn_wino_gemm_kind k, int ci, int co);
void nn_wino_gemm_wgrad(nn_wino_gemm_kind k, const float *V, int T, int ci, const float *G, int co, float *dU,
                        int accumulate);

#endif
