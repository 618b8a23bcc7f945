/* conv_simt.cu: 3x3 convolutions on a 7x7 board as implicit GEMMs with fp32 arithmetic on
 * the SIMT cores (true fp32 training; bf16 storage on GPUs without the tensor-core path),
 * and the dispatch between these and the tensor-core kernels of conv_mma.cu.
 * Tiles of 128 rows x 128 (or 64) channels, 8 deep in K, double-buffered through
 * registers; each thread owns an 8x8 (or 8x4) block of outputs split into two groups of
 * 4 columns 64 apart, so that shared-memory reads are conflict-free float4 loads. */
#include <stdint.h>
#include <stdlib.h>

#include "nn/gpu/gpu_nn.h"

static __device__ __forceinline__ void load4(const float *p, float v[4])
{
    float4 t = *(const float4 *)p;
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
}

static __device__ __forceinline__ void load4(const gv_bf16 *p, float v[4])
{
    uint2 t = *(const uint2 *)p;
    v[0] = gv_bf16_to_f32((gv_bf16)(t.x & 0xffff));
    v[1] = gv_bf16_to_f32((gv_bf16)(t.x >> 16));
    v[2] = gv_bf16_to_f32((gv_bf16)(t.y & 0xffff));
    v[3] = gv_bf16_to_f32((gv_bf16)(t.y >> 16));
}

static __device__ __forceinline__ void store4(float *p, const float v[4])
{
    *(float4 *)p = make_float4(v[0], v[1], v[2], v[3]);
}

static __device__ __forceinline__ void store4(gv_bf16 *p, const float v[4])
{
    uint2 t;
    t.x = (unsigned)gv_f32_to_bf16(v[0]) | ((unsigned)gv_f32_to_bf16(v[1]) << 16);
    t.y = (unsigned)gv_f32_to_bf16(v[2]) | ((unsigned)gv_f32_to_bf16(v[3]) << 16);
    *(uint2 *)p = t;
}

/* N = 4 or 8 values of one shared-memory row for a thread at t: 4 at t*4 and, when N is 8,
 * 4 more at half + t*4. */
template <int N>
static __device__ __forceinline__ void frag_load(float v[N], const float *row, int half, int t, int sw = 0)
{
    float4 lo = *(const float4 *)&row[(t * 4) ^ sw];
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
    if (N == 8) {
        float4 hi = *(const float4 *)&row[half + ((t * 4) ^ sw)];
        v[N - 4] = hi.x, v[N - 3] = hi.y, v[N - 2] = hi.z, v[N - 1] = hi.w;
    }
}

/* The thread's place (grid_x, grid_y) in the 16x16 grid of a block's 256 threads: a warp
 * holds 4 rows of 8, so that its shared-memory fragment reads of one k touch 64 + 128 bytes
 * (one wavefront each) where 2 rows of 16 touched 32 + 256 (fp32 training 8.5% faster on the
 * H100, 2026-12-05). */
static __device__ __forceinline__ int grid_x(int tid) { return (tid >> 5 & 1) * 8 + (tid & 7); }
static __device__ __forceinline__ int grid_y(int tid) { return (tid >> 6) * 4 + (tid >> 3 & 3); }

/* The 3x3 taps of output row m (sample m / 49, board position m % 49) that fall inside the
 * board, bit t for tap t = 3 * (dy + 1) + (dx + 1); none when m is past the M rows. */
static __device__ __forceinline__ int tap_mask(int m, int M)
{
    const int pos = m - m / NN_CELLS * NN_CELLS, y = pos / 7, x = pos % 7;
    int mask = 0;
    for (int t = 0; t < 9; t++) {
        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        mask |= (m < M && (unsigned)iy < 7u && (unsigned)ix < 7u) << t;
    }
    return mask;
}

/* The column swizzle of a transposed tile [k][col] stored by Q threads per col (Q = 2 or
 * 4, each writing 4 consecutive k): the column is XORed with a multiple of 8 that depends
 * on k / 4, so that a warp's scalar stores hit 32 banks instead of 8 or 16; reads of 4
 * aligned columns stay one float4. */
template <int Q>
static __device__ __forceinline__ int swz(int k)
{
    return ((k >> 2) * (32 / Q)) & 31;
}

/* acc (TM, TN) = 0. */
template <int TM, int TN>
static __device__ __forceinline__ void acc_zero(float acc[TM][TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.f;
}

/* acc (TM, TN) += a (TM) outer b (TN), one fmaf per element. */
template <int TM, int TN>
static __device__ __forceinline__ void fma_outer(float acc[TM][TN], const float a[TM], const float b[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

/* The double-buffered K loop over KT tiles: gload(kt) reads tile kt into registers,
 * sstore(buf) writes them to shared buffer buf, compute(buf) multiplies buffer buf; the
 * next tile's global reads are in flight while the current one is multiplied. Every
 * thread of the block calls it. */
template <typename Load, typename Store, typename Compute>
static __device__ __forceinline__ void smem_double_buffer(int KT, Load &gload, Store &sstore, Compute &compute)
{
    gload(0);
    sstore(0);
    __syncthreads();
    for (int kt = 0; kt < KT; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < KT)
            gload(kt + 1);
        compute(cur);
        if (kt + 1 < KT)
            sstore(cur ^ 1);
        __syncthreads();
    }
}

/* ---- forward / dgrad ------------------------------------------------------------------
 * BK is the K depth of a tile (8 or 16; K = 9*cin is a multiple of 8, and BK = 16 needs
 * cin % 16 == 0 so that a 16-deep slice never straddles the end of K). Each thread
 * loads BK/8 float4 of the A tile (a row's 4 consecutive channels of one tap) and the
 * same of the B tile, into registers while the previous tile is computed. */
/* SPLIT: a compile-time choice, so that the unsplit kernel (training's batches) carries no
 * trace of the split-K path (as a run-time test it cost fp32 training 10% on the H200). */
template <typename T, int BN, int BK, bool SPLIT>
__global__ void __launch_bounds__(256, 2) conv_fwd_simt(const T *__restrict__ X, const T *__restrict__ W,
                                                     T *__restrict__ Y, const T *__restrict__ R, int M, int cin,
                                                     int cout, int fault, float *__restrict__ P, int kps)
{
    constexpr int BM = 128, TN = BN / 16, Q = BK / 4; /* float4 per tile row */
    constexpr int LA = BM * Q / 256, LB = (BN * Q + 255) / 256;
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, tx = grid_x(tid), ty = grid_y(tid);
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int K = 9 * cin;
    /* K tiles [kt0, kt0 + KT): all of them, or split blockIdx.z's kps when P takes partials */
    const int kt0 = SPLIT ? blockIdx.z * kps : 0, KT = SPLIT ? min(kps, K / BK - kt0) : K / BK;

    /* Rows of this thread's A loads: tile row, the row's own offset in X, and a mask of the
     * 3x3 taps that fall inside the board (none when the row is past M). The column of the
     * A loads is the same for every i. */
    const int ac = tid % Q;
    int ar[LA], amask[LA], abase[LA];
#pragma unroll
    for (int i = 0; i < LA; i++) {
        ar[i] = (tid + i * 256) / Q;
        amask[i] = tap_mask(m0 + ar[i], M);
        abase[i] = (m0 + ar[i]) * cin;
    }
    int br[LB], bc[LB];
    bool bact[LB], bok[LB];
#pragma unroll
    for (int i = 0; i < LB; i++) {
        int q = tid + i * 256;
        bact[i] = q < BN * Q;
        br[i] = q / Q;
        bc[i] = q % Q;
        bok[i] = bact[i] && n0 + br[i] < cout;
    }

    float ra[LA][4], rb[LB][4];
    auto gload = [&](int kt) {
        if (SPLIT)
            kt += kt0;
        const int k = kt * BK + ac * 4;
        const int t = k / cin, ci = k - t * cin;
        const int tyy = t / 3, dy = tyy - 1, dx = t - tyy * 3 - 1;
#pragma unroll
        for (int i = 0; i < LA; i++) {
            const bool in = (amask[i] >> t) & 1;
            const int o = abase[i] + (dy * 7 + dx) * cin + ci; /* formed before the test: fewer spills */
            if (in)
                load4(X + o, ra[i]);
            else
                ra[i][0] = ra[i][1] = ra[i][2] = ra[i][3] = 0.f;
        }
#pragma unroll
        for (int i = 0; i < LB; i++) {
            if (bok[i])
                load4(W + (size_t)(n0 + br[i]) * K + kt * BK + bc[i] * 4, rb[i]);
            else
                rb[i][0] = rb[i][1] = rb[i][2] = rb[i][3] = 0.f;
        }
    };
    auto sstore = [&](int buf) {
#pragma unroll
        for (int i = 0; i < LA; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                As[buf][ac * 4 + j][ar[i] ^ swz<Q>(ac * 4)] = ra[i][j];
#pragma unroll
        for (int i = 0; i < LB; i++)
            if (bact[i])
#pragma unroll
                for (int j = 0; j < 4; j++)
                    Bs[buf][bc[i] * 4 + j][br[i] ^ swz<Q>(bc[i] * 4)] = rb[i][j];
    };

    float acc[8][TN];
    acc_zero<8, TN>(acc);
    auto compute = [&](int cur) {
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[8], b[TN];
            frag_load<8>(a, As[cur][k], 64, ty, swz<Q>(k));
            frag_load<TN>(b, Bs[cur][k], BN / 2, tx, swz<Q>(k));
            fma_outer<8, TN>(acc, a, b);
        }
    };
    smem_double_buffer(KT, gload, sstore, compute);

#pragma unroll
    for (int i = 0; i < 8; i++) {
        int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (row >= M)
            continue;
#pragma unroll
        for (int g = 0; g < TN / 4; g++) {
            int col = n0 + g * (BN / 2) + tx * 4;
            if (col >= cout)
                continue;
            float v[4] = {acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]};
            size_t o = (size_t)row * cout + col;
            if (SPLIT) { /* a split's partial sums; the reduction adds R and applies the fault hook */
                store4(P + (size_t)blockIdx.z * M * cout + o, v);
                continue;
            }
            if (R) {
                float r[4];
                load4(R + o, r);
                v[0] += r[0], v[1] += r[1], v[2] += r[2], v[3] += r[3];
            }
            if (fault && col == 0 && row % 97 == 0)
                continue; /* test hook: leave these outputs unwritten */
            store4(Y + o, v);
        }
    }
}

/* ---- wgrad -----------------------------------------------------------------------------
 * BK rows of the batch per tile; the A tile (dY rows, BMC channels) and the B tile (the
 * gathered input rows, 128 columns of k) are stored as they lie, rows of k-depth first. */
template <typename T, int BMC, int BK>
__global__ void __launch_bounds__(256, 2) conv_wgrad_simt(const T *__restrict__ DY, const T *__restrict__ X,
                                                       float *__restrict__ WS, int M, int cin, int cout,
                                                       int rows_per_split)
{
    constexpr int BN = 128, TM = BMC / 16, AQ = BMC / 4, BQ = BN / 4;
    constexpr int LA = (BK * AQ + 255) / 256, LB = BK * BQ / 256;
    __shared__ __align__(16) float As[2][BK][BMC];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, tx = grid_x(tid), ty = grid_y(tid);
    const int co0 = blockIdx.x * BMC, k0 = blockIdx.y * BN;
    const int K = 9 * cin;
    const int mb = blockIdx.z * rows_per_split;
    const int me = min(M, mb + rows_per_split);
    const int KT = (me - mb + BK - 1) / BK;

    /* B loads: the thread's column (and so tap and channel) is the same in every tile. */
    const int bq = tid % BQ;
    const int bk = k0 + bq * 4;
    const bool bkok = bk < K;
    const int bt = bkok ? bk / cin : 0, bci = bk - bt * cin;
    const int bdy = bt / 3 - 1, bdx = bt % 3 - 1;

    float ra[LA][4], rb[LB][4];
    auto gload = [&](int kt) {
#pragma unroll
        for (int i = 0; i < LA; i++) {
            int q = tid + i * 256;
            int r = q / AQ, co = co0 + (q % AQ) * 4;
            int m = mb + kt * BK + r;
            if (q < BK * AQ && m < me && co < cout)
                load4(DY + (size_t)m * cout + co, ra[i]);
            else
                ra[i][0] = ra[i][1] = ra[i][2] = ra[i][3] = 0.f;
        }
#pragma unroll
        for (int i = 0; i < LB; i++) {
            int r = (tid + i * 256) / BQ;
            int m = mb + kt * BK + r;
            bool ok = m < me && bkok;
            if (ok) {
                int n = m / NN_CELLS, pos = m - n * NN_CELLS, y = pos / 7, x = pos - y * 7;
                int iy = y + bdy, ix = x + bdx;
                ok = (unsigned)iy < 7u && (unsigned)ix < 7u;
                if (ok)
                    load4(X + ((size_t)n * NN_CELLS + iy * 7 + ix) * cin + bci, rb[i]);
            }
            if (!ok)
                rb[i][0] = rb[i][1] = rb[i][2] = rb[i][3] = 0.f;
        }
    };
    auto sstore = [&](int buf) {
#pragma unroll
        for (int i = 0; i < LA; i++) {
            int q = tid + i * 256;
            if (q < BK * AQ)
                *(float4 *)&As[buf][q / AQ][(q % AQ) * 4] = make_float4(ra[i][0], ra[i][1], ra[i][2], ra[i][3]);
        }
#pragma unroll
        for (int i = 0; i < LB; i++) {
            int q = tid + i * 256;
            *(float4 *)&Bs[buf][q / BQ][(q % BQ) * 4] = make_float4(rb[i][0], rb[i][1], rb[i][2], rb[i][3]);
        }
    };

    float acc[TM][8];
    acc_zero<TM, 8>(acc);
    auto compute = [&](int cur) {
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[8];
            frag_load<TM>(a, As[cur][k], BMC / 2, ty);
            frag_load<8>(b, Bs[cur][k], 64, tx);
            fma_outer<TM, 8>(acc, a, b);
        }
    };
    smem_double_buffer(KT, gload, sstore, compute);

    float *P = WS + (size_t)blockIdx.z * cout * K;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int co = co0 + (i < 4 ? ty * 4 + i : BMC / 2 + ty * 4 + i - 4);
        if (co >= cout)
            continue;
#pragma unroll
        for (int g = 0; g < 2; g++) {
            int k = k0 + g * 64 + tx * 4;
            if (k < K)
                *(float4 *)(P + (size_t)co * K + k) =
                    make_float4(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
        }
    }
}

/* Sums the splits' partials (reading them coalesced) into the PyTorch-layout gradient. */
__global__ void wgrad_reduce(const float *__restrict__ ws, int splits, int cout, int cin, int cin_real,
                             float *__restrict__ dw)
{
    const size_t K = 9 * (size_t)cin, total = (size_t)cout * K;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        float s = 0.f;
        for (int p = 0; p < splits; p++)
            s += ws[(size_t)p * total + i];
        int co = (int)(i / K), k = (int)(i % K);
        int t = k / cin, ci = k - t * cin;
        if (ci < cin_real)
            dw[((size_t)co * cin_real + ci) * 9 + t] += s;
    }
}

gv_status gpu_wgrad_reduce(const wgrad_args *a, int splits, cudaStream_t st, gv_err *err)
{
    size_t total = (size_t)a->cout * 9 * a->cin;
    unsigned g = gpu_blocks(total, 256);
    wgrad_reduce<<<g, 256, 0, st>>>(a->ws, splits, a->cout, a->cin, a->cin_real, a->dw);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* The K depth of the SIMT tiles: 16 when the channels allow it, unless GV_SIMT_BK=8
 * (kept for measuring one against the other). */
static int simt_bk(int cin)
{
    static int forced = -1;
    if (forced < 0) {
        const char *e = getenv("GV_SIMT_BK");
        forced = e ? atoi(e) : 0;
    }
    if (forced == 8 || cin % 16)
        return 8;
    return 16;
}

template <typename T, int BN, int BK>
static void fwd_launch(const conv_args *a, dim3 grid, float *P, int kps, cudaStream_t st)
{
    if (P)
        conv_fwd_simt<T, BN, BK, true><<<grid, 256, 0, st>>>((const T *)a->x, (const T *)a->w, (T *)a->y,
                                                             (const T *)a->res, a->M, a->cin, a->cout, a->fault, P, kps);
    else
        conv_fwd_simt<T, BN, BK, false><<<grid, 256, 0, st>>>((const T *)a->x, (const T *)a->w, (T *)a->y,
                                                              (const T *)a->res, a->M, a->cin, a->cout, a->fault, P, kps);
}

/* Launches the forward with `splits` K splits; returns the splits that got K tiles (every
 * one of them has at least one). */
template <typename T>
static int fwd_pick(const conv_args *a, int splits, cudaStream_t st)
{
    const int BN = a->cout >= 128 ? 128 : 64;
    int bk = simt_bk(a->cin), KT = 9 * a->cin / bk;
    int kps = (KT + splits - 1) / splits;
    splits = (KT + kps - 1) / kps;
    float *P = splits > 1 ? a->ws : NULL;
    dim3 grid((a->M + 127) / 128, (a->cout + BN - 1) / BN, splits);
    if (BN == 128)
        bk == 16 ? fwd_launch<T, 128, 16>(a, grid, P, kps, st) : fwd_launch<T, 128, 8>(a, grid, P, kps, st);
    else
        bk == 16 ? fwd_launch<T, 64, 16>(a, grid, P, kps, st) : fwd_launch<T, 64, 8>(a, grid, P, kps, st);
    return splits;
}

static __device__ __forceinline__ float ld1(const float *p) { return *p; }
static __device__ __forceinline__ float ld1(const gv_bf16 *p) { return gv_bf16_to_f32(*p); }
static __device__ __forceinline__ void st1(float *p, float v) { *p = v; }
static __device__ __forceinline__ void st1(gv_bf16 *p, float v) { *p = gv_f32_to_bf16(v); }

/* Y = the splits' partial sums P (splits, M*cout) added in split order, + R, rounded to T;
 * the fault hook skips the outputs the unsplit kernels skip. */
template <typename T>
__global__ void conv_splitk_reduce(const float *__restrict__ P, int splits, int M, int cout, const T *__restrict__ R,
                                   T *__restrict__ Y, int fault)
{
    const size_t total = (size_t)M * cout;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        float s = 0.f;
        for (int z = 0; z < splits; z++)
            s += P[(size_t)z * total + i];
        if (R)
            s += ld1(R + i);
        int row = (int)(i / cout), col = (int)(i % cout);
        if (fault && col == 0 && row % 97 == 0)
            continue; /* test hook: leave these outputs unwritten */
        st1(Y + i, s);
    }
}

gv_status gpu_conv_splitk_reduce(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    unsigned g = gpu_blocks((size_t)a->M * a->cout, 256);
    if (a->dt == GPU_F32)
        conv_splitk_reduce<float><<<g, 256, 0, st>>>(a->ws, splits, a->M, a->cout, (const float *)a->res,
                                                     (float *)a->y, a->fault);
    else
        conv_splitk_reduce<gv_bf16><<<g, 256, 0, st>>>(a->ws, splits, a->M, a->cout, (const gv_bf16 *)a->res,
                                                       (gv_bf16 *)a->y, a->fault);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

gv_status gpu_conv3x3_fwd_simt(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    splits = a->dt == GPU_F32 ? fwd_pick<float>(a, splits, st) : fwd_pick<gv_bf16>(a, splits, st);
    GV_GPU_TRY(cudaGetLastError(), err);
    return splits > 1 ? gpu_conv_splitk_reduce(a, splits, st, err) : GV_OK;
}

template <typename T, int BMC, int BK>
static void wgrad_launch(const wgrad_args *a, dim3 grid, int rows, cudaStream_t st)
{
    conv_wgrad_simt<T, BMC, BK><<<grid, 256, 0, st>>>((const T *)a->dy, (const T *)a->x, a->ws, a->M, a->cin, a->cout,
                                                      rows);
}

template <typename T>
static void wgrad_pick(const wgrad_args *a, int rows, int splits, cudaStream_t st)
{
    const int BMC = a->cout >= 128 ? 128 : 64;
    dim3 grid((a->cout + BMC - 1) / BMC, (9 * a->cin + 127) / 128, splits);
    int bk = simt_bk(a->cin);
    if (BMC == 128)
        bk == 16 ? wgrad_launch<T, 128, 16>(a, grid, rows, st) : wgrad_launch<T, 128, 8>(a, grid, rows, st);
    else
        bk == 16 ? wgrad_launch<T, 64, 16>(a, grid, rows, st) : wgrad_launch<T, 64, 8>(a, grid, rows, st);
}

gv_status gpu_conv3x3_wgrad_simt(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
    if (a->dt == GPU_F32)
        wgrad_pick<float>(a, rows_per_split, splits, st);
    else
        wgrad_pick<gv_bf16>(a, rows_per_split, splits, st);
    GV_GPU_TRY(cudaGetLastError(), err);
    return gpu_wgrad_reduce(a, splits, st, err);
}

/* ---- dispatch --------------------------------------------------------------------------- */
/* K splits of a forward: with a workspace, when the output tiles (128 rows x 128 or 64
 * channels, in both kernel families) fill less than half the multiprocessors, enough
 * splits for about one CTA per multiprocessor, each at least 64 deep in K (one tensor-core
 * stage), at most 32, and as many as ws holds. */
int gpu_conv_fwd_splits(const conv_args *a)
{
    if (!a->ws)
        return 1;
    int s = a->splits;
    if (s <= 0) {
        int bn = a->cout >= 128 ? 128 : 64, sm = a->sm_count > 0 ? a->sm_count : 80;
        int tiles = ((a->M + 127) / 128) * ((a->cout + bn - 1) / bn);
        if (2 * tiles > sm)
            return 1;
        s = sm / tiles;
        int kmax = 9 * a->cin / 64;
        s = s < kmax ? s : kmax;
        s = s < 32 ? s : 32;
    }
    size_t per = (size_t)a->M * a->cout;
    if ((size_t)s > a->ws_elems / per)
        s = (int)(a->ws_elems / per);
    return s < 1 ? 1 : s;
}

gv_status gpu_conv3x3_fwd(const conv_args *a, int impl, cudaStream_t st, gv_err *err)
{
    if (a->cin % 8 || a->cout % 8 || a->M <= 0)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3: channels must be multiples of 8 (cin %d, cout %d)", a->cin, a->cout);
    int splits = gpu_conv_fwd_splits(a);
    if (impl == GPU_CONV_WGMMA_TMA && gpu_conv_tma_applies(a))
        return gpu_conv3x3_fwd_wgmma_tma(a, splits, st, err);
    if (impl >= GPU_CONV_WGMMA && a->dt == GPU_BF16)
        return gpu_conv3x3_fwd_wgmma(a, splits, st, err);
    if (impl == GPU_CONV_MMA && a->dt == GPU_BF16)
        return gpu_conv3x3_fwd_mma(a, splits, st, err);
    return gpu_conv3x3_fwd_simt(a, splits, st, err);
}

gv_status gpu_conv3x3_wgrad(const wgrad_args *a, int impl, cudaStream_t st, gv_err *err)
{
    if (a->cin % 8 || a->cout % 8 || a->M <= 0)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3 wgrad: channels must be multiples of 8 (cin %d, cout %d)", a->cin,
                       a->cout);
    const int bmc = a->cout >= 128 ? 128 : 64;
    int tiles = ((a->cout + bmc - 1) / bmc) * ((9 * a->cin + 127) / 128);
    int splits = a->splits;
    if (splits <= 0) {
        /* About three CTAs per multiprocessor in total, each reducing at least 256 rows. */
        int target = 3 * (a->sm_count > 0 ? a->sm_count : 80);
        splits = (target + tiles - 1) / tiles;
        int max_splits = (a->M + 255) / 256;
        if (splits > max_splits)
            splits = max_splits;
        if (splits < 1)
            splits = 1;
    }
    size_t per_split = (size_t)a->cout * 9 * a->cin;
    if (!a->ws || a->ws_elems < per_split)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3 wgrad: workspace of %zu floats is smaller than one split (%zu)",
                       a->ws_elems, per_split);
    if ((size_t)splits > a->ws_elems / per_split)
        splits = (int)(a->ws_elems / per_split);
    int rows = (a->M + splits - 1) / splits;
    /* whole tiles of 64 (wgmma), 32 (mma.sync) or 8/16 rows (SIMT) */
    const int wgmma = impl >= GPU_CONV_WGMMA && a->dt == GPU_BF16;
    rows = wgmma ? (rows + 63) / 64 * 64 : (rows + 31) / 32 * 32;
    splits = (a->M + rows - 1) / rows;
    if (impl == GPU_CONV_WGMMA_TMA && gpu_conv_wgrad_tma_applies(a, rows))
        return gpu_conv3x3_wgrad_wgmma_tma(a, rows, splits, st, err);
    if (wgmma)
        return gpu_conv3x3_wgrad_wgmma(a, rows, splits, st, err);
    if (impl == GPU_CONV_MMA && a->dt == GPU_BF16)
        return gpu_conv3x3_wgrad_mma(a, rows, splits, st, err);
    return gpu_conv3x3_wgrad_simt(a, rows, splits, st, err);
}
