/* conv_simt.cu: 3x3 convolutions on a 7x7 board as implicit GEMMs with fp32 arithmetic on
 * the SIMT cores (true fp32 training; bf16 storage on GPUs without the tensor-core path),
 * and the dispatch between these and the tensor-core kernels of conv_mma.cu.
 * Tiles of 128 rows x 128 (or 64) channels, 8 deep in K, double-buffered through
 * registers; each thread owns an 8x8 (or 8x4) block of outputs split into two groups of
 * 4 columns 64 apart, so that shared-memory reads are conflict-free float4 loads. */
#include <stdint.h>

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

/* ---- forward / dgrad ------------------------------------------------------------------ */
template <typename T, int BN>
__global__ void __launch_bounds__(256) conv_fwd_simt(const T *__restrict__ X, const T *__restrict__ W,
                                                     T *__restrict__ Y, const T *__restrict__ R, int M, int cin,
                                                     int cout, int fault)
{
    constexpr int BM = 128, BK = 8, TN = BN / 16;
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int K = 9 * cin, KT = K / BK;

    const int ar = tid >> 1, ah = tid & 1;
    const int am = m0 + ar;
    const bool aok = am < M;
    const int an = am / 49, apos = am - an * 49, ay = apos / 7, ax = apos - ay * 7;
    const T *abase = X + (size_t)an * 49 * cin;
    const int br = tid >> 1, bh = tid & 1;
    const bool bact = br < BN;
    const bool bok = bact && n0 + br < cout;
    const T *bbase = W + (size_t)(n0 + br) * K;

    float ra[4], rb[4];
    auto gload = [&](int kt) {
        int k = kt * BK + ah * 4;
        int t = k / cin, ci = k - t * cin;
        int tyy = t / 3;
        int iy = ay + tyy - 1, ix = ax + (t - tyy * 3) - 1;
        if (aok && (unsigned)iy < 7u && (unsigned)ix < 7u)
            load4(abase + (iy * 7 + ix) * cin + ci, ra);
        else
            ra[0] = ra[1] = ra[2] = ra[3] = 0.f;
        if (bok)
            load4(bbase + kt * BK + bh * 4, rb);
        else
            rb[0] = rb[1] = rb[2] = rb[3] = 0.f;
    };
    auto sstore = [&](int buf) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            As[buf][ah * 4 + j][ar] = ra[j];
        if (bact)
#pragma unroll
            for (int j = 0; j < 4; j++)
                Bs[buf][bh * 4 + j][br] = rb[j];
    };

    float acc[8][TN];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.f;

    gload(0);
    sstore(0);
    __syncthreads();
    for (int kt = 0; kt < KT; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < KT)
            gload(kt + 1);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[8], b[TN];
            float4 a0 = *(const float4 *)&As[cur][k][ty * 4];
            float4 a1 = *(const float4 *)&As[cur][k][64 + ty * 4];
            a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
            a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
            float4 b0 = *(const float4 *)&Bs[cur][k][tx * 4];
            b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
            if (TN == 8) {
                float4 b1 = *(const float4 *)&Bs[cur][k][BN / 2 + tx * 4];
                b[TN - 4] = b1.x, b[TN - 3] = b1.y, b[TN - 2] = b1.z, b[TN - 1] = b1.w;
            }
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (kt + 1 < KT)
            sstore(cur ^ 1);
        __syncthreads();
    }

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

/* ---- wgrad ----------------------------------------------------------------------------- */
template <typename T, int BMC>
__global__ void __launch_bounds__(256) conv_wgrad_simt(const T *__restrict__ DY, const T *__restrict__ X,
                                                       float *__restrict__ DW, int M, int cin, int cout, int cin_real,
                                                       int rows_per_split)
{
    constexpr int BK = 8, BN = 128, TM = BMC / 16, AQ = BMC / 4;
    __shared__ __align__(16) float As[2][BK][BMC];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int co0 = blockIdx.x * BMC, k0 = blockIdx.y * BN;
    const int K = 9 * cin;
    const int mb = blockIdx.z * rows_per_split;
    const int me = min(M, mb + rows_per_split);
    if (mb >= me)
        return;
    const int KT = (me - mb + BK - 1) / BK;

    const bool aact = tid < BK * AQ;
    const int ar = tid / AQ, aq = tid % AQ;
    const int aco = co0 + aq * 4;
    const int br = tid >> 5, bq = tid & 31;
    const int bk = k0 + bq * 4;
    const bool bkok = bk < K;
    const int bt = bkok ? bk / cin : 0, bci = bk - bt * cin;
    const int bdy = bt / 3 - 1, bdx = bt % 3 - 1;

    float ra[4], rb[4];
    auto gload = [&](int kt) {
        int m = mb + kt * BK + ar;
        if (aact && m < me && aco < cout)
            load4(DY + (size_t)m * cout + aco, ra);
        else
            ra[0] = ra[1] = ra[2] = ra[3] = 0.f;
        m = mb + kt * BK + br;
        bool ok = m < me && bkok;
        if (ok) {
            int n = m / 49, pos = m - n * 49, y = pos / 7, x = pos - y * 7;
            int iy = y + bdy, ix = x + bdx;
            ok = (unsigned)iy < 7u && (unsigned)ix < 7u;
            if (ok)
                load4(X + ((size_t)n * 49 + iy * 7 + ix) * cin + bci, rb);
        }
        if (!ok)
            rb[0] = rb[1] = rb[2] = rb[3] = 0.f;
    };
    auto sstore = [&](int buf) {
        if (aact)
            *(float4 *)&As[buf][ar][aq * 4] = make_float4(ra[0], ra[1], ra[2], ra[3]);
        *(float4 *)&Bs[buf][br][bq * 4] = make_float4(rb[0], rb[1], rb[2], rb[3]);
    };

    float acc[TM][8];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.f;

    gload(0);
    sstore(0);
    __syncthreads();
    for (int kt = 0; kt < KT; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < KT)
            gload(kt + 1);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[8];
            float4 a0 = *(const float4 *)&As[cur][k][ty * 4];
            a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
            if (TM == 8) {
                float4 a1 = *(const float4 *)&As[cur][k][BMC / 2 + ty * 4];
                a[TM - 4] = a1.x, a[TM - 3] = a1.y, a[TM - 2] = a1.z, a[TM - 1] = a1.w;
            }
            float4 b0 = *(const float4 *)&Bs[cur][k][tx * 4];
            float4 b1 = *(const float4 *)&Bs[cur][k][64 + tx * 4];
            b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
            b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (kt + 1 < KT)
            sstore(cur ^ 1);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int co = co0 + (i < 4 ? ty * 4 + i : BMC / 2 + ty * 4 + i - 4);
        if (co >= cout)
            continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int k = k0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
            if (k >= K)
                continue;
            int t = k / cin, ci = k - t * cin;
            if (ci < cin_real)
                atomicAdd(DW + ((size_t)co * cin_real + ci) * 9 + t, acc[i][j]);
        }
    }
}

gv_status gpu_conv3x3_fwd_simt(const conv_args *a, cudaStream_t st, gv_err *err)
{
    const int BN = a->cout >= 128 ? 128 : 64;
    dim3 grid((a->M + 127) / 128, (a->cout + BN - 1) / BN);
    if (a->dt == GPU_F32) {
        const float *X = (const float *)a->x, *W = (const float *)a->w, *R = (const float *)a->res;
        float *Y = (float *)a->y;
        if (BN == 128)
            conv_fwd_simt<float, 128><<<grid, 256, 0, st>>>(X, W, Y, R, a->M, a->cin, a->cout, a->fault);
        else
            conv_fwd_simt<float, 64><<<grid, 256, 0, st>>>(X, W, Y, R, a->M, a->cin, a->cout, a->fault);
    } else {
        const gv_bf16 *X = (const gv_bf16 *)a->x, *W = (const gv_bf16 *)a->w, *R = (const gv_bf16 *)a->res;
        gv_bf16 *Y = (gv_bf16 *)a->y;
        if (BN == 128)
            conv_fwd_simt<gv_bf16, 128><<<grid, 256, 0, st>>>(X, W, Y, R, a->M, a->cin, a->cout, a->fault);
        else
            conv_fwd_simt<gv_bf16, 64><<<grid, 256, 0, st>>>(X, W, Y, R, a->M, a->cin, a->cout, a->fault);
    }
    GPU_LAUNCHED(err, "conv3x3 forward (SIMT)");
    return GV_OK;
}

gv_status gpu_conv3x3_wgrad_simt(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
    const int BMC = a->cout >= 128 ? 128 : 64;
    dim3 grid((a->cout + BMC - 1) / BMC, (9 * a->cin + 127) / 128, splits);
    if (a->dt == GPU_F32) {
        const float *DY = (const float *)a->dy, *X = (const float *)a->x;
        if (BMC == 128)
            conv_wgrad_simt<float, 128><<<grid, 256, 0, st>>>(DY, X, a->dw, a->M, a->cin, a->cout, a->cin_real,
                                                                rows_per_split);
        else
            conv_wgrad_simt<float, 64><<<grid, 256, 0, st>>>(DY, X, a->dw, a->M, a->cin, a->cout, a->cin_real,
                                                               rows_per_split);
    } else {
        const gv_bf16 *DY = (const gv_bf16 *)a->dy, *X = (const gv_bf16 *)a->x;
        if (BMC == 128)
            conv_wgrad_simt<gv_bf16, 128><<<grid, 256, 0, st>>>(DY, X, a->dw, a->M, a->cin, a->cout, a->cin_real,
                                                                  rows_per_split);
        else
            conv_wgrad_simt<gv_bf16, 64><<<grid, 256, 0, st>>>(DY, X, a->dw, a->M, a->cin, a->cout, a->cin_real,
                                                                 rows_per_split);
    }
    GPU_LAUNCHED(err, "conv3x3 weight gradient (SIMT)");
    return GV_OK;
}

/* ---- dispatch --------------------------------------------------------------------------- */
gv_status gpu_conv3x3_fwd(const conv_args *a, int use_mma, cudaStream_t st, gv_err *err)
{
    if (a->cin % 8 || a->cout % 8 || a->M <= 0)
        return gv_fail(err, GV_ERR_INPUT, "conv3x3: channels must be multiples of 8 (cin %d, cout %d)", a->cin, a->cout);
    if (use_mma && a->dt == GPU_BF16)
        return gpu_conv3x3_fwd_mma(a, st, err);
    return gpu_conv3x3_fwd_simt(a, st, err);
}

gv_status gpu_conv3x3_wgrad(const wgrad_args *a, int use_mma, cudaStream_t st, gv_err *err)
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
    int rows = (a->M + splits - 1) / splits;
    rows = (rows + 31) / 32 * 32;
    splits = (a->M + rows - 1) / rows;
    if (use_mma && a->dt == GPU_BF16)
        return gpu_conv3x3_wgrad_mma(a, rows, splits, st, err);
    return gpu_conv3x3_wgrad_simt(a, rows, splits, st, err);
}
