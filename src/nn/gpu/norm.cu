/* norm.cu: GroupNorm(8) and BatchNorm2d forward and backward on NHWC activations, fused
 * with the ReLU and residual add that follow them in the network:
 *   forward   y = relu(norm(x) * gamma + beta [+ res])
 *   backward  g = dy * (y > 0); dres = g; dx = norm backward of g; dgamma, dbeta
 * Statistics are computed in fp32 from two passes (mean, then squared deviations) so
 * that a large mean does not cancel the variance; BatchNorm accumulates in double.
 * GroupNorm: one warp per group of one sample, samples spread over the blocks; each
 * lane handles VEC adjacent channels (2 when a group has an even channel count). */
#include "nn/gpu/gpu_nn.h"

#define NORM_THREADS 256

static __device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += gv_shfl_xor(v, o);
    return v;
}

/* VEC adjacent elements to and from float. */
template <int VEC>
static __device__ __forceinline__ void ldv(const float *p, float v[VEC])
{
    if (VEC == 2) {
        float2 t = *(const float2 *)p;
        v[0] = t.x;
        v[VEC - 1] = t.y;
    } else {
        v[0] = *p;
    }
}
template <int VEC>
static __device__ __forceinline__ void ldv(const gv_bf16 *p, float v[VEC])
{
    if (VEC == 2) {
        unsigned t = *(const unsigned *)p;
        v[0] = gv_bf16_to_f32((gv_bf16)(t & 0xffff));
        v[VEC - 1] = gv_bf16_to_f32((gv_bf16)(t >> 16));
    } else {
        v[0] = gv_bf16_to_f32(*p);
    }
}
template <int VEC>
static __device__ __forceinline__ void stv(float *p, const float v[VEC])
{
    if (VEC == 2)
        *(float2 *)p = make_float2(v[0], v[VEC - 1]);
    else
        *p = v[0];
}
template <int VEC>
static __device__ __forceinline__ void stv(gv_bf16 *p, const float v[VEC])
{
    if (VEC == 2)
        *(unsigned *)p = (unsigned)gv_f32_to_bf16(v[0]) | ((unsigned)gv_f32_to_bf16(v[VEC - 1]) << 16);
    else
        *p = gv_f32_to_bf16(v[0]);
}

/* The vectors of one sample's group that lane handles: for j = lane, lane + 32, ... < nvec,
 * fn(o, p, c) with p the board position, c the vector's first channel within the group and
 * o = base + p*C + c its element offset (per_pos vectors of VEC channels per position). */
template <int VEC, typename F>
static __device__ __forceinline__ void group_vectors(int lane, int nvec, int per_pos, size_t base, int C, F fn)
{
    for (int j = lane; j < nvec; j += 32) {
        int p = j / per_pos, c = (j - p * per_pos) * VEC;
        fn(base + (size_t)p * C + c, p, c);
    }
}

/* ---- GroupNorm ------------------------------------------------------------------------ */
/* Block: 8 warps = the 8 groups of one sample at a time; grid-stride over samples. */
template <typename T, int VEC>
__global__ void __launch_bounds__(NORM_THREADS) gn_fwd(const T *__restrict__ x, const T *__restrict__ res,
                                                       T *__restrict__ y, int relu, const float *__restrict__ gamma,
                                                       const float *__restrict__ beta, float *__restrict__ mean_out,
                                                       float *__restrict__ rstd_out, int N, int C, int fault)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int cg = C / 8;            /* channels per group */
    const int per_pos = cg / VEC;    /* vectors per position */
    const int nvec = 49 * per_pos;   /* vectors per group */
    const float inv = 1.0f / (49.0f * cg);
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * 49 * C + warp * cg;
        float s = 0.f;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int) {
            float v[VEC];
            ldv<VEC>(x + o, v);
#pragma unroll
            for (int e = 0; e < VEC; e++)
                s += v[e];
        });
        const float mean = warp_sum(s) * inv;
        float q = 0.f;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int) {
            float v[VEC];
            ldv<VEC>(x + o, v);
#pragma unroll
            for (int e = 0; e < VEC; e++)
                q += (v[e] - mean) * (v[e] - mean);
        });
        const float rstd = rsqrtf(warp_sum(q) * inv + 1e-5f);
        if (lane == 0) {
            mean_out[n * 8 + warp] = mean;
            rstd_out[n * 8 + warp] = rstd;
        }
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int p, int c) {
            float v[VEC], r[VEC];
            ldv<VEC>(x + o, v);
            if (res)
                ldv<VEC>(res + o, r);
#pragma unroll
            for (int e = 0; e < VEC; e++) {
                int ch = warp * cg + c + e;
                v[e] = (v[e] - mean) * rstd * gamma[ch] + beta[ch];
                if (res)
                    v[e] += r[e];
                if (relu)
                    v[e] = fmaxf(v[e], 0.f);
            }
            if (fault && p == 48 && c == 0 && warp == 0)
                return; /* test hook: leave one element per sample unwritten */
            stv<VEC>(y + o, v);
        });
    }
}

/* x and the gradient at the ReLU's input (dout where out > 0; all of dout without a ReLU). */
template <typename T, int VEC>
static __device__ __forceinline__ void ld_masked(const T *x, const T *dout, const T *out, size_t o, float xv[VEC],
                                                 float g[VEC])
{
    ldv<VEC>(x + o, xv);
    ldv<VEC>(dout + o, g);
    if (out) {
        float ov[VEC];
        ldv<VEC>(out + o, ov);
#pragma unroll
        for (int e = 0; e < VEC; e++)
            g[e] = ov[e] > 0.f ? g[e] : 0.f;
    }
}

/* Backward. Per-channel dgamma/dbeta accumulate in shared memory across the block's
 * samples and go to global memory with one atomic per channel per block. */
template <typename T, int VEC>
__global__ void __launch_bounds__(NORM_THREADS) gn_bwd(const T *__restrict__ x, const T *__restrict__ out,
                                                       const T *__restrict__ dout, T *__restrict__ dx,
                                                       T *__restrict__ dres, const float *__restrict__ gamma,
                                                       const float *__restrict__ mean_in,
                                                       const float *__restrict__ rstd_in, float *__restrict__ dgamma,
                                                       float *__restrict__ dbeta, int N, int C)
{
    extern __shared__ float sacc[]; /* [2][C] */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int cg = C / 8, per_pos = cg / VEC, nvec = 49 * per_pos;
    const float inv = 1.0f / (49.0f * cg);
    /* When a group's row of vectors divides 32, each lane always sees the same channels and
     * keeps their dgamma/dbeta sums in registers; otherwise it adds to shared memory. */
    const bool fixed = 32 % per_pos == 0;
    float rg[VEC], rb[VEC];
#pragma unroll
    for (int e = 0; e < VEC; e++)
        rg[e] = rb[e] = 0.f;
    for (int i = threadIdx.x; i < 2 * C; i += blockDim.x)
        sacc[i] = 0.f;
    __syncthreads();
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * 49 * C + warp * cg;
        const float mean = mean_in[n * 8 + warp], rstd = rstd_in[n * 8 + warp];
        float s1 = 0.f, s2 = 0.f;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int c) {
            float xv[VEC], g[VEC];
            ld_masked<T, VEC>(x, dout, out, o, xv, g);
#pragma unroll
            for (int e = 0; e < VEC; e++) {
                int ch = warp * cg + c + e;
                float xh = (xv[e] - mean) * rstd;
                float dy = g[e] * gamma[ch];
                s1 += dy;
                s2 += dy * xh;
                if (fixed) {
                    rg[e] += g[e] * xh;
                    rb[e] += g[e];
                } else {
                    atomicAdd(&sacc[ch], g[e] * xh);
                    atomicAdd(&sacc[C + ch], g[e]);
                }
            }
        });
        s1 = warp_sum(s1) * inv;
        s2 = warp_sum(s2) * inv;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int c) {
            float xv[VEC], g[VEC], d[VEC];
            ld_masked<T, VEC>(x, dout, out, o, xv, g);
#pragma unroll
            for (int e = 0; e < VEC; e++) {
                int ch = warp * cg + c + e;
                float xh = (xv[e] - mean) * rstd;
                d[e] = rstd * (g[e] * gamma[ch] - s1 - xh * s2);
            }
            stv<VEC>(dx + o, d);
            if (dres)
                stv<VEC>(dres + o, g);
        });
    }
    if (fixed && lane < nvec) {
        int c = (lane % per_pos) * VEC;
#pragma unroll
        for (int e = 0; e < VEC; e++) {
            atomicAdd(&sacc[warp * cg + c + e], rg[e]);
            atomicAdd(&sacc[C + warp * cg + c + e], rb[e]);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        atomicAdd(&dgamma[i], sacc[i]);
        atomicAdd(&dbeta[i], sacc[C + i]);
    }
}

/* ---- GroupNorm, register-resident (channels 64 and 128) --------------------------------
 * A group of one sample is 49 positions x cg = C/8 channels (8 or 16 here). Each lane
 * holds 8 adjacent channels of one position per iteration (one 16-byte load in bf16), so
 * a warp covers 32/LPP positions per iteration and keeps the whole group in registers:
 * x is read from memory once, statistics come from registers, and the output is written
 * from them. The backward keeps x and the masked gradient the same way. */
template <int LPP>
struct gn_shape {
    static constexpr int PPI = 32 / LPP;                 /* positions per iteration */
    static constexpr int ITER = (49 + PPI - 1) / PPI;
};

static __device__ __forceinline__ void ld8(const float *p, float v[8])
{
    float4 a = *(const float4 *)p, b = *(const float4 *)(p + 4);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}
static __device__ __forceinline__ void ld8(const gv_bf16 *p, float v[8])
{
    uint4 a = *(const uint4 *)p;
    unsigned w[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        v[2 * i] = gv_bf16_to_f32((gv_bf16)(w[i] & 0xffff));
        v[2 * i + 1] = gv_bf16_to_f32((gv_bf16)(w[i] >> 16));
    }
}
static __device__ __forceinline__ void st8(float *p, const float v[8])
{
    *(float4 *)p = make_float4(v[0], v[1], v[2], v[3]);
    *(float4 *)(p + 4) = make_float4(v[4], v[5], v[6], v[7]);
}
static __device__ __forceinline__ void st8(gv_bf16 *p, const float v[8])
{
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = (unsigned)gv_f32_to_bf16(v[2 * i]) | ((unsigned)gv_f32_to_bf16(v[2 * i + 1]) << 16);
    *(uint4 *)p = make_uint4(w[0], w[1], w[2], w[3]);
}

template <typename T, int LPP>
__global__ void __launch_bounds__(NORM_THREADS) gn_fwd_reg(const T *__restrict__ x, const T *__restrict__ res,
                                                           T *__restrict__ y, int relu,
                                                           const float *__restrict__ gamma,
                                                           const float *__restrict__ beta,
                                                           float *__restrict__ mean_out, float *__restrict__ rstd_out,
                                                           int N, int C, int fault)
{
    constexpr int PPI = gn_shape<LPP>::PPI, ITER = gn_shape<LPP>::ITER;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int cg = C / 8, pin = lane / LPP, c8 = (lane % LPP) * 8;
    const int ch0 = warp * cg + c8;
    const float inv = 1.0f / (49.0f * cg);
    float ga[8], be[8];
#pragma unroll
    for (int e = 0; e < 8; e++) {
        ga[e] = gamma[ch0 + e];
        be[e] = beta[ch0 + e];
    }
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * 49 * C + ch0;
        float v[ITER][8];
        float s = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p < 49) {
                ld8(x + base + (size_t)p * C, v[it]);
#pragma unroll
                for (int e = 0; e < 8; e++)
                    s += v[it][e];
            }
        }
        const float mean = warp_sum(s) * inv;
        float q = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++)
            if (it * PPI + pin < 49)
#pragma unroll
                for (int e = 0; e < 8; e++)
                    q += (v[it][e] - mean) * (v[it][e] - mean);
        const float rstd = rsqrtf(warp_sum(q) * inv + 1e-5f);
        if (lane == 0) {
            mean_out[n * 8 + warp] = mean;
            rstd_out[n * 8 + warp] = rstd;
        }
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= 49)
                continue;
            size_t o = base + (size_t)p * C;
            float r[8];
            if (res)
                ld8(res + o, r);
#pragma unroll
            for (int e = 0; e < 8; e++) {
                float t = (v[it][e] - mean) * rstd * ga[e] + be[e];
                if (res)
                    t += r[e];
                v[it][e] = relu ? fmaxf(t, 0.f) : t;
            }
            if (fault && p == 48 && ch0 == 0)
                continue; /* test hook: leave one element group per sample unwritten */
            st8(y + o, v[it]);
        }
    }
}

template <typename T, int LPP>
__global__ void __launch_bounds__(NORM_THREADS) gn_bwd_reg(const T *__restrict__ x, const T *__restrict__ out,
                                                           const T *__restrict__ dout, T *__restrict__ dx,
                                                           T *__restrict__ dres, const float *__restrict__ gamma,
                                                           const float *__restrict__ mean_in,
                                                           const float *__restrict__ rstd_in,
                                                           float *__restrict__ dgamma, float *__restrict__ dbeta,
                                                           int N, int C)
{
    constexpr int PPI = gn_shape<LPP>::PPI, ITER = gn_shape<LPP>::ITER;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int cg = C / 8, pin = lane / LPP, c8 = (lane % LPP) * 8;
    const int ch0 = warp * cg + c8;
    const float inv = 1.0f / (49.0f * cg);
    float ga[8], accg[8], accb[8];
#pragma unroll
    for (int e = 0; e < 8; e++) {
        ga[e] = gamma[ch0 + e];
        accg[e] = accb[e] = 0.f;
    }
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * 49 * C + ch0;
        const float mean = mean_in[n * 8 + warp], rstd = rstd_in[n * 8 + warp];
        float xh[ITER][8], g[ITER][8];
        float s1 = 0.f, s2 = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= 49)
                continue;
            size_t o = base + (size_t)p * C;
            float ov[8];
            ld8(x + o, xh[it]);
            ld8(dout + o, g[it]);
            if (out)
                ld8(out + o, ov);
#pragma unroll
            for (int e = 0; e < 8; e++) {
                if (out && !(ov[e] > 0.f))
                    g[it][e] = 0.f;
                xh[it][e] = (xh[it][e] - mean) * rstd;
                float dy = g[it][e] * ga[e];
                s1 += dy;
                s2 += dy * xh[it][e];
                accg[e] += g[it][e] * xh[it][e];
                accb[e] += g[it][e];
            }
        }
        s1 = warp_sum(s1) * inv;
        s2 = warp_sum(s2) * inv;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= 49)
                continue;
            size_t o = base + (size_t)p * C;
            float d[8];
#pragma unroll
            for (int e = 0; e < 8; e++)
                d[e] = rstd * (g[it][e] * ga[e] - s1 - xh[it][e] * s2);
            st8(dx + o, d);
            if (dres)
                st8(dres + o, g[it]);
        }
    }
    /* Lanes with the same lane % LPP hold the same channels: add them up, then one atomic
     * per channel per warp. */
#pragma unroll
    for (int e = 0; e < 8; e++) {
#pragma unroll
        for (int o = 16; o >= LPP; o >>= 1) {
            accg[e] += gv_shfl_xor(accg[e], o);
            accb[e] += gv_shfl_xor(accb[e], o);
        }
    }
    if (lane < LPP)
#pragma unroll
        for (int e = 0; e < 8; e++) {
            atomicAdd(&dgamma[ch0 + e], accg[e]);
            atomicAdd(&dbeta[ch0 + e], accb[e]);
        }
}

/* ---- BatchNorm ------------------------------------------------------------------------ */
/* Per-channel sums in a fixed order, so that a forward gives the same bits every time it
 * runs (float atomics would not: their order changes from run to run, and a ReLU input
 * within rounding of zero then flips between two forwards of one step, which breaks the
 * comparison of a step's AdamW moments with gradients taken separately). Block (32,
 * GPU_BN_ROWS): x is a channel, y a row offset; grid (GPU_BN_BLOCKS, ceil(C/32)). Each
 * thread sums its rows in order, the block adds its row offsets in order and writes one
 * partial per channel; bn_reduce / bn_finish / bn_bwd_params add the GPU_BN_BLOCKS
 * partials in order. MODE 0: sum x; 1: sum (x - mean)^2 with mean = acc[c] / M;
 * 2: sum g and sum g * xhat (g the masked gradient) into part[C + c] as well. */
template <typename T, int MODE>
__global__ void __launch_bounds__(32 * GPU_BN_ROWS)
    bn_partial(const T *__restrict__ x, const T *__restrict__ out, const T *__restrict__ dout,
               const float *__restrict__ mean, const float *__restrict__ rstd, const double *__restrict__ acc,
               int M, int C, double *__restrict__ part)
{
    __shared__ float sh[2][GPU_BN_ROWS][32];
    const int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.y * 32 + tx;
    float s0 = 0.f, s1 = 0.f;
    if (c < C) {
        const float mu = MODE == 1 ? (float)(acc[c] / M) : MODE == 2 ? mean[c] : 0.f;
        const float rs = MODE == 2 ? rstd[c] : 0.f;
        for (int r = blockIdx.x * GPU_BN_ROWS + ty; r < M; r += gridDim.x * GPU_BN_ROWS) {
            const size_t i = (size_t)r * C + c;
            float v[1];
            if (MODE == 2) {
                float g[1];
                ld_masked<T, 1>(x, dout, out, i, v, g);
                s0 += g[0];
                s1 += g[0] * ((v[0] - mu) * rs);
            } else {
                ldv<1>(x + i, v);
                const float d = v[0] - mu;
                s0 += MODE == 0 ? v[0] : d * d;
            }
        }
    }
    sh[0][ty][tx] = s0;
    sh[1][ty][tx] = s1;
    __syncthreads();
    if (ty == 0 && c < C) {
        double a = 0, b = 0;
        for (int k = 0; k < GPU_BN_ROWS; k++)
            a += sh[0][k][tx], b += sh[1][k][tx];
        part[(size_t)blockIdx.x * 2 * C + c] = a;
        if (MODE == 2)
            part[(size_t)blockIdx.x * 2 * C + C + c] = b;
    }
}

/* The sum over the row blocks of partial column j, in block order. */
static __device__ __forceinline__ double bn_column(const double *part, int C, int j)
{
    double a = 0;
    for (int b = 0; b < GPU_BN_BLOCKS; b++)
        a += part[(size_t)b * 2 * C + j];
    return a;
}

/* acc[c] = the sum of x per channel (pass 0 of the forward statistics). */
__global__ void bn_reduce(const double *part, int C, double *acc)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        acc[c] = bn_column(part, C, c);
}

/* Mean and rstd from the sums, the squared deviations taken from pass 1's partials (train:
 * also updates the running stats with momentum 0.1 and the unbiased variance), or from the
 * running stats (eval). */
__global__ void bn_finish(const double *acc, const double *part, int M, int C, int train, float *mean, float *rstd,
                          float *run_mean, float *run_var)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C)
        return;
    if (train) {
        double mu = acc[c] / M, var = bn_column(part, C, c) / M;
        mean[c] = (float)mu;
        rstd[c] = (float)(1.0 / sqrt(var + 1e-5));
        double unbiased = M > 1 ? var * M / (M - 1) : var;
        run_mean[c] = (float)(0.9 * run_mean[c] + 0.1 * mu);
        run_var[c] = (float)(0.9 * run_var[c] + 0.1 * unbiased);
    } else {
        mean[c] = run_mean[c];
        rstd[c] = (float)(1.0 / sqrt((double)run_var[c] + 1e-5));
    }
}

template <typename T>
__global__ void bn_apply(const T *__restrict__ x, const T *__restrict__ res, T *__restrict__ y, int relu,
                         const float *__restrict__ gamma, const float *__restrict__ beta,
                         const float *__restrict__ mean, const float *__restrict__ rstd, int M, int C, int fault)
{
    const size_t total = (size_t)M * C;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i % C);
        float v[1], r[1];
        ldv<1>(x + i, v);
        float o = (v[0] - mean[c]) * rstd[c] * gamma[c] + beta[c];
        if (res) {
            ldv<1>(res + i, r);
            o += r[0];
        }
        if (relu)
            o = fmaxf(o, 0.f);
        if (fault && i == total - 1)
            continue;
        stv<1>(y + i, &o);
    }
}

template <typename T>
__global__ void bn_bwd_apply(const T *__restrict__ x, const T *__restrict__ out, const T *__restrict__ dout,
                             T *__restrict__ dx, T *__restrict__ dres, const float *__restrict__ gamma,
                             const float *__restrict__ mean, const float *__restrict__ rstd,
                             const double *__restrict__ acc, int M, int C)
{
    const size_t total = (size_t)M * C;
    const float invM = 1.0f / M;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i % C);
        float xv[1], g[1];
        ld_masked<T, 1>(x, dout, out, i, xv, g);
        float xh = (xv[0] - mean[c]) * rstd[c];
        float d = gamma[c] * rstd[c] * (g[0] - (float)acc[c] * invM - xh * (float)acc[C + c] * invM);
        stv<1>(dx + i, &d);
        if (dres)
            stv<1>(dres + i, g);
    }
}

/* acc[j] = the backward sums (j < C: sum g; C + c: sum g * xhat), added to dbeta/dgamma. */
__global__ void bn_bwd_params(const double *part, int C, double *acc, float *dgamma, float *dbeta)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < 2 * C) {
        double a = bn_column(part, C, j);
        acc[j] = a;
        if (j < C)
            dbeta[j] += (float)a;
        else
            dgamma[j - C] += (float)a;
    }
}

/* ---- launchers ------------------------------------------------------------------------ */
static int grid_for(size_t total, int sm_count_guess)
{
    size_t b = (total + 255) / 256;
    size_t cap = (size_t)(sm_count_guess > 0 ? sm_count_guess : 132) * 8;
    return (int)(b < cap ? (b ? b : 1) : cap);
}

template <typename T>
static gv_status norm_fwd_t(const norm_fwd_args *a, cudaStream_t st, gv_err *err)
{
    const T *x = (const T *)a->x, *res = (const T *)a->res;
    T *y = (T *)a->y;
    const int M = a->N * 49;
    if (a->group) {
        if (a->C % 8)
            return gv_fail(err, GV_ERR_INPUT, "GroupNorm(8) needs channels divisible by 8 (got %d)", a->C);
        int blocks = a->N < 132 * 16 ? a->N : 132 * 16;
        if (a->C == 128)
            gn_fwd_reg<T, 2><<<blocks, NORM_THREADS, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean,
                                                              a->rstd, a->N, a->C, a->fault);
        else if (a->C == 64)
            gn_fwd_reg<T, 1><<<blocks, NORM_THREADS, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean,
                                                              a->rstd, a->N, a->C, a->fault);
        else if ((a->C / 8) % 2 == 0)
            gn_fwd<T, 2><<<blocks, NORM_THREADS, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean, a->rstd,
                                                          a->N, a->C, a->fault);
        else
            gn_fwd<T, 1><<<blocks, NORM_THREADS, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean, a->rstd,
                                                          a->N, a->C, a->fault);
        GV_GPU_TRY(cudaGetLastError(), err);
        return GV_OK;
    }
    int g = grid_for((size_t)M * a->C, 132);
    double *part = a->acc + 2 * a->C;
    const dim3 pgrid(GPU_BN_BLOCKS, (a->C + 31) / 32), pblock(32, GPU_BN_ROWS);
    if (a->train) {
        bn_partial<T, 0><<<pgrid, pblock, 0, st>>>(x, NULL, NULL, NULL, NULL, NULL, M, a->C, part);
        GV_GPU_TRY(cudaGetLastError(), err);
        bn_reduce<<<(a->C + 127) / 128, 128, 0, st>>>(part, a->C, a->acc);
        GV_GPU_TRY(cudaGetLastError(), err);
        bn_partial<T, 1><<<pgrid, pblock, 0, st>>>(x, NULL, NULL, NULL, NULL, a->acc, M, a->C, part);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    bn_finish<<<(a->C + 127) / 128, 128, 0, st>>>(a->acc, part, M, a->C, a->train, a->mean, a->rstd, a->run_mean,
                                                  a->run_var);
    GV_GPU_TRY(cudaGetLastError(), err);
    bn_apply<T><<<g, 256, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean, a->rstd, M, a->C, a->fault);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

gv_status gpu_norm_fwd(const norm_fwd_args *a, cudaStream_t st, gv_err *err)
{
    return a->dt == GPU_F32 ? norm_fwd_t<float>(a, st, err) : norm_fwd_t<gv_bf16>(a, st, err);
}

template <typename T>
static gv_status norm_bwd_t(const norm_bwd_args *a, cudaStream_t st, gv_err *err)
{
    const T *x = (const T *)a->x, *out = (const T *)a->out, *dout = (const T *)a->dout;
    T *dx = (T *)a->dx, *dres = (T *)a->dres;
    const int M = a->N * 49;
    int sms = a->sm_count > 0 ? a->sm_count : 132;
    if (a->group) {
        int blocks = a->N < sms * 8 ? a->N : sms * 8;
        size_t sm = sizeof(float) * 2 * a->C;
        if (a->C == 128)
            gn_bwd_reg<T, 2><<<blocks, NORM_THREADS, 0, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd,
                                                              a->dgamma, a->dbeta, a->N, a->C);
        else if (a->C == 64)
            gn_bwd_reg<T, 1><<<blocks, NORM_THREADS, 0, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd,
                                                              a->dgamma, a->dbeta, a->N, a->C);
        else if ((a->C / 8) % 2 == 0)
            gn_bwd<T, 2><<<blocks, NORM_THREADS, sm, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd,
                                                           a->dgamma, a->dbeta, a->N, a->C);
        else
            gn_bwd<T, 1><<<blocks, NORM_THREADS, sm, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd,
                                                           a->dgamma, a->dbeta, a->N, a->C);
        GV_GPU_TRY(cudaGetLastError(), err);
        return GV_OK;
    }
    int g = grid_for((size_t)M * a->C, sms);
    double *part = a->acc + 2 * a->C;
    bn_partial<T, 2><<<dim3(GPU_BN_BLOCKS, (a->C + 31) / 32), dim3(32, GPU_BN_ROWS), 0, st>>>(
        x, out, dout, a->mean, a->rstd, NULL, M, a->C, part);
    GV_GPU_TRY(cudaGetLastError(), err);
    bn_bwd_params<<<(2 * a->C + 127) / 128, 128, 0, st>>>(part, a->C, a->acc, a->dgamma, a->dbeta);
    GV_GPU_TRY(cudaGetLastError(), err);
    bn_bwd_apply<T><<<g, 256, 0, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd, a->acc, M, a->C);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

gv_status gpu_norm_bwd(const norm_bwd_args *a, cudaStream_t st, gv_err *err)
{
    return a->dt == GPU_F32 ? norm_bwd_t<float>(a, st, err) : norm_bwd_t<gv_bf16>(a, st, err);
}
