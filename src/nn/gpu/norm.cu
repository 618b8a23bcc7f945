/* norm.cu: GroupNorm(8) and BatchNorm2d forward and backward on NHWC activations, fused
 * with the ReLU and residual add that follow them in the network:
 *   forward   y = relu(norm(x) * gamma + beta [+ res])
 *   backward  g = dy * (y > 0); dres = g; dx = norm backward of g; dgamma, dbeta
 * Statistics are computed in fp32 from two passes (mean, then squared deviations) so
 * that a large mean does not cancel the variance; BatchNorm accumulates in double.
 * GroupNorm: the coalesced kernels (gn_fwd_vec, gn_bwd_vec: a block's threads cover whole
 * samples with 16-byte accesses) where a group's channels are whole 16-byte vectors; the
 * earlier ones elsewhere and under GV_GN_OLD=1: one warp per group of one sample, samples
 * spread over the blocks, each lane handling VEC adjacent channels (2 when a group has an
 * even channel count), or 8 channels in registers at 64 and 128 channels (gn_*_reg). */
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "nn/gpu/gpu_nn.h"

#define NORM_THREADS 256

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
    const int nvec = NN_CELLS * per_pos; /* vectors per group */
    const float inv = 1.0f / ((float)NN_CELLS * cg);
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * NN_CELLS * C + warp * cg;
        float s = 0.f;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int) {
            float v[VEC];
            ldv<VEC>(x + o, v);
#pragma unroll
            for (int e = 0; e < VEC; e++)
                s += v[e];
        });
        const float mean = gv_warp_sum(s) * inv;
        float q = 0.f;
        group_vectors<VEC>(lane, nvec, per_pos, base, C, [&](size_t o, int, int) {
            float v[VEC];
            ldv<VEC>(x + o, v);
#pragma unroll
            for (int e = 0; e < VEC; e++)
                q += (v[e] - mean) * (v[e] - mean);
        });
        const float rstd = rsqrtf(gv_warp_sum(q) * inv + 1e-5f);
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
    const int cg = C / 8, per_pos = cg / VEC, nvec = NN_CELLS * per_pos;
    const float inv = 1.0f / ((float)NN_CELLS * cg);
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
        const size_t base = (size_t)n * NN_CELLS * C + warp * cg;
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
        s1 = gv_warp_sum(s1) * inv;
        s2 = gv_warp_sum(s2) * inv;
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

/* 16 bytes of T as raw (W values: 8 bf16 or 4 floats), to and from float. */
template <typename T>
struct gn_vec {
    static constexpr bool bf = sizeof(T) == 2;
    static constexpr int W = bf ? 8 : 4;
    typedef typename std::conditional<bf, uint4, float4>::type raw;
    static __device__ __forceinline__ raw ld(const T *p) { return *(const raw *)p; }
    static __device__ __forceinline__ void st(T *p, raw v) { *(raw *)p = v; }
    static __device__ __forceinline__ void unpack(raw r, float v[W])
    {
        if constexpr (bf) {
            const unsigned w[4] = {(unsigned)r.x, (unsigned)r.y, (unsigned)r.z, (unsigned)r.w};
#pragma unroll
            for (int i = 0; i < 4; i++) {
                v[2 * i] = gv_bf16_to_f32((gv_bf16)(w[i] & 0xffff));
                v[2 * i + 1] = gv_bf16_to_f32((gv_bf16)(w[i] >> 16));
            }
        } else {
            v[0] = r.x, v[1] = r.y, v[2] = r.z, v[3] = r.w;
        }
    }
    static __device__ __forceinline__ raw pack(const float v[W])
    {
        if constexpr (bf) {
            unsigned w[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
#if !GV_GPU_IS_HIP && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
                /* one instruction for the pair, round to nearest even as gv_f32_to_bf16 (a
                 * NaN becomes the canonical quiet NaN); a goes to the upper half */
                asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w[i]) : "f"(v[2 * i + 1]), "f"(v[2 * i]));
#else
                w[i] = (unsigned)gv_f32_to_bf16(v[2 * i]) | ((unsigned)gv_f32_to_bf16(v[2 * i + 1]) << 16);
#endif
            }
            return make_uint4(w[0], w[1], w[2], w[3]);
        } else {
            return make_float4(v[0], v[1], v[2], v[3]);
        }
    }
};

/* ---- GroupNorm, register-resident (channels 64 and 128) --------------------------------
 * A group of one sample is 49 positions x cg = C/8 channels (8 or 16 here). Each lane
 * holds 8 adjacent channels of one position per iteration (one 16-byte load in bf16), so
 * a warp covers 32/LPP positions per iteration and keeps the whole group in registers:
 * x is read from memory once, statistics come from registers, and the output is written
 * from them. The backward keeps x and the masked gradient the same way. */
template <int LPP>
struct gn_shape {
    static constexpr int PPI = 32 / LPP;                 /* positions per iteration */
    static constexpr int ITER = (NN_CELLS + PPI - 1) / PPI;
};

/* 8 adjacent elements to and from float. */
template <typename T>
static __device__ __forceinline__ void ld8(const T *p, float v[8])
{
    gn_vec<T>::unpack(gn_vec<T>::ld(p), v);
    if (gn_vec<T>::W == 4)
        gn_vec<T>::unpack(gn_vec<T>::ld(p + 4), v + 4);
}
template <typename T>
static __device__ __forceinline__ void st8(T *p, const float v[8])
{
    gn_vec<T>::st(p, gn_vec<T>::pack(v));
    if (gn_vec<T>::W == 4)
        gn_vec<T>::st(p + 4, gn_vec<T>::pack(v + 4));
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
    const float inv = 1.0f / ((float)NN_CELLS * cg);
    float ga[8], be[8];
#pragma unroll
    for (int e = 0; e < 8; e++) {
        ga[e] = gamma[ch0 + e];
        be[e] = beta[ch0 + e];
    }
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * NN_CELLS * C + ch0;
        float v[ITER][8];
        float s = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p < NN_CELLS) {
                ld8(x + base + (size_t)p * C, v[it]);
#pragma unroll
                for (int e = 0; e < 8; e++)
                    s += v[it][e];
            }
        }
        const float mean = gv_warp_sum(s) * inv;
        float q = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++)
            if (it * PPI + pin < NN_CELLS)
#pragma unroll
                for (int e = 0; e < 8; e++)
                    q += (v[it][e] - mean) * (v[it][e] - mean);
        const float rstd = rsqrtf(gv_warp_sum(q) * inv + 1e-5f);
        if (lane == 0) {
            mean_out[n * 8 + warp] = mean;
            rstd_out[n * 8 + warp] = rstd;
        }
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= NN_CELLS)
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
    const float inv = 1.0f / ((float)NN_CELLS * cg);
    float ga[8], accg[8], accb[8];
#pragma unroll
    for (int e = 0; e < 8; e++) {
        ga[e] = gamma[ch0 + e];
        accg[e] = accb[e] = 0.f;
    }
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        const size_t base = (size_t)n * NN_CELLS * C + ch0;
        const float mean = mean_in[n * 8 + warp], rstd = rstd_in[n * 8 + warp];
        float xh[ITER][8], g[ITER][8];
        float s1 = 0.f, s2 = 0.f;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= NN_CELLS)
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
        s1 = gv_warp_sum(s1) * inv;
        s2 = gv_warp_sum(s2) * inv;
#pragma unroll
        for (int it = 0; it < ITER; it++) {
            int p = it * PPI + pin;
            if (p >= NN_CELLS)
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

/* ---- GroupNorm, coalesced (the default where the shape fits) ----------------------------
 * A sample is 49*C contiguous elements. A unit of U = 7R threads (R = C/W vectors of W
 * channels per position: 16 bytes, W = 8 in bf16 and 4 in fp32) covers one sample: thread u
 * holds vector u % R of positions u / R + 7i, i < 7, so that for each i the unit reads
 * 7 whole positions, contiguous, with 16-byte accesses. A block holds `spb` units (one
 * sample each). A thread's vector lies in one group (the group's channels are a multiple of
 * W); the group sums of a sample go through shared memory, added in a fixed order (so a
 * forward gives the same bits every time, as BatchNorm's comment below explains). The
 * data stay in registers in their stored form (bf16 pairs or floats) between the passes.
 * The backward keeps per-channel dgamma/dbeta sums per thread over the samples it visits
 * (grid-stride), adds them per block in a fixed order into one partial per block, and
 * gn_param_sums adds the partials in a fixed order: no atomics, deterministic. */
#define GN_MAX_THREADS 256
#define GN_MAX_SPB 8

/* Where a thread of a coalesced GroupNorm block works. */
struct gn_place {
    int R, U, spb;  /* vectors per position, threads per sample, samples per block */
    int s, u, cv;   /* the thread's sample in the block, index in its unit, vector in the row */
    int grp, vpg;   /* its group; vectors per group */
};

template <typename T>
static __device__ __forceinline__ gn_place gn_where(int C)
{
    gn_place w;
    w.R = C / gn_vec<T>::W;
    w.U = 7 * w.R;
    w.spb = blockDim.x / w.U;
    w.s = threadIdx.x / w.U;
    w.u = threadIdx.x - w.s * w.U;
    w.cv = w.u % w.R;
    w.vpg = C / 8 / gn_vec<T>::W;
    w.grp = w.cv / w.vpg;
    return w;
}

/* The sums of a and b over the threads of each (sample, group) of the block, in a fixed
 * order; returns this thread's group's. All threads of the block must call it. */
static __device__ __forceinline__ float2 gn_group_sums(float a, float b, const gn_place &w)
{
    __shared__ float red[2][GN_MAX_THREADS];
    __shared__ float2 stat[GN_MAX_SPB * 8];
    red[0][threadIdx.x] = a;
    red[1][threadIdx.x] = b;
    __syncthreads();
    if (threadIdx.x < w.spb * 8) {
        const int first = (threadIdx.x >> 3) * w.U + (threadIdx.x & 7) * w.vpg;
        float sa = 0.f, sb = 0.f;
        for (int pr = 0; pr < 7; pr++)
            for (int k = 0; k < w.vpg; k++) {
                sa += red[0][first + pr * w.R + k];
                sb += red[1][first + pr * w.R + k];
            }
        stat[threadIdx.x] = make_float2(sa, sb);
    }
    __syncthreads();
    /* the next call writes red only after this barrier and stat only after its first one,
     * which every thread reaches after reading stat here */
    return stat[w.s * 8 + w.grp];
}

/* The sum of the thread's values minus c, or of their squares when sq. */
template <typename T>
static __device__ __forceinline__ float gn_moment(const typename gn_vec<T>::raw xr[7], float c, bool sq)
{
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 7; i++) {
        float v[gn_vec<T>::W];
        gn_vec<T>::unpack(xr[i], v);
#pragma unroll
        for (int e = 0; e < gn_vec<T>::W; e++)
            s += sq ? (v[e] - c) * (v[e] - c) : v[e] - c;
    }
    return s;
}

/* The ReLU mask of one stored vector: bit e set when element e > 0 (for bf16 on the bits:
 * h > 0 exactly when 0 < h <= 0x7f80, +inf included, NaNs and the sign bit not). */
template <typename T>
static __device__ __forceinline__ unsigned gn_vec_bits(const typename gn_vec<T>::raw &r)
{
    unsigned m = 0;
    if constexpr (gn_vec<T>::bf) {
        const unsigned w[4] = {(unsigned)r.x, (unsigned)r.y, (unsigned)r.z, (unsigned)r.w};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            m |= ((w[i] & 0xffffu) - 1u < 0x7f80u ? 1u : 0u) << (2 * i);
            m |= ((w[i] >> 16) - 1u < 0x7f80u ? 1u : 0u) << (2 * i + 1);
        }
    } else {
        m = (r.x > 0.f ? 1u : 0u) | (r.y > 0.f ? 2u : 0u) | (r.z > 0.f ? 4u : 0u) | (r.w > 0.f ? 8u : 0u);
    }
    return m;
}

/* RES: whether res is given (a compile-time choice: without it the kernel needs about half
 * the registers, so more blocks fit on a multiprocessor). */
template <typename T, bool RES>
__global__ void __launch_bounds__(GN_MAX_THREADS) gn_fwd_vec(const T *__restrict__ x, const T *__restrict__ res,
                                                             T *__restrict__ y, int relu,
                                                             const float *__restrict__ gamma,
                                                             const float *__restrict__ beta,
                                                             float *__restrict__ mean_out,
                                                             float *__restrict__ rstd_out, int N, int C, int fault,
                                                             uint8_t *__restrict__ bits)
{
    typedef gn_vec<T> V;
    constexpr int W = V::W;
    const gn_place w = gn_where<T>(C);
    const int n = blockIdx.x * w.spb + w.s;
    const bool on = n < N;
    const size_t base = (size_t)n * NN_CELLS * C + (size_t)w.u * W, step = (size_t)7 * C;
    const float inv = 1.0f / ((float)NN_CELLS * (C / 8));
    /* every load first (the residual and the parameters too): more bytes in flight */
    typename V::raw xr[7], rr[7];
    float ga[W], be[W];
    if (on) {
#pragma unroll
        for (int i = 0; i < 7; i++)
            xr[i] = V::ld(x + base + i * step);
        if (RES)
#pragma unroll
            for (int i = 0; i < 7; i++)
                rr[i] = V::ld(res + base + i * step);
#pragma unroll
        for (int e = 0; e < W; e++) {
            ga[e] = gamma[w.cv * W + e];
            be[e] = beta[w.cv * W + e];
        }
    }
    const float mean = gn_group_sums(on ? gn_moment<T>(xr, 0.f, false) : 0.f, 0.f, w).x * inv;
    const float q = on ? gn_moment<T>(xr, mean, true) : 0.f;
    const float rstd = rsqrtf(gn_group_sums(q, 0.f, w).x * inv + 1e-5f);
    if (!on)
        return;
    if (w.u < w.R && w.cv % w.vpg == 0) { /* the first vector of its group at position 0 */
        mean_out[n * 8 + w.grp] = mean;
        rstd_out[n * 8 + w.grp] = rstd;
    }
#pragma unroll
    for (int i = 0; i < 7; i++) {
        float v[W], r[W];
        V::unpack(xr[i], v);
        if (RES)
            V::unpack(rr[i], r);
#pragma unroll
        for (int e = 0; e < W; e++) {
            float t = (v[e] - mean) * rstd * ga[e] + be[e];
            if (RES)
                t += r[e];
            v[e] = relu ? fmaxf(t, 0.f) : t;
        }
        /* test hook: leave one vector per sample unwritten (position 48, channel 0) */
        if (fault && i == 6 && w.u == 6 * w.R)
            continue;
        const typename V::raw packed = V::pack(v);
        V::st(y + base + i * step, packed);
        if (bits) /* from the stored values, as the backward would read them from y */
            bits[(base + i * step) / W] = gn_vec_bits<T>(packed);
    }
}

template <typename T>
__global__ void __launch_bounds__(GN_MAX_THREADS) gn_bwd_vec(const T *__restrict__ x, const T *__restrict__ out,
                                                             const T *__restrict__ dout, T *__restrict__ dx,
                                                             T *__restrict__ dres, const float *__restrict__ gamma,
                                                             const float *__restrict__ mean_in,
                                                             const float *__restrict__ rstd_in,
                                                             float *__restrict__ part, int N, int C,
                                                             const uint8_t *__restrict__ bits)
{
    typedef gn_vec<T> V;
    constexpr int W = V::W;
    const gn_place w = gn_where<T>(C);
    const size_t step = (size_t)7 * C;
    const float inv = 1.0f / ((float)NN_CELLS * (C / 8));
    float ga[W], accg[W], accb[W];
#pragma unroll
    for (int e = 0; e < W; e++) {
        ga[e] = gamma[w.cv * W + e];
        accg[e] = accb[e] = 0.f;
    }
    for (int n0 = blockIdx.x * w.spb; n0 < N; n0 += gridDim.x * w.spb) {
        const int n = n0 + w.s;
        const bool on = n < N;
        const size_t base = (size_t)n * NN_CELLS * C + (size_t)w.u * W;
        float mean = 0.f, rstd = 0.f, s1 = 0.f, s2 = 0.f;
        typename V::raw xr[7], gr[7];
        if (on) {
            mean = mean_in[n * 8 + w.grp];
            rstd = rstd_in[n * 8 + w.grp];
            unsigned mb[7];
#pragma unroll
            for (int i = 0; i < 7; i++) {
                xr[i] = V::ld(x + base + i * step);
                gr[i] = V::ld(dout + base + i * step);
                mb[i] = bits ? bits[(base + i * step) / W] : out ? gn_vec_bits<T>(V::ld(out + base + i * step)) : ~0u;
            }
            if (bits || out)
#pragma unroll
                for (int i = 0; i < 7; i++) {
                    float g[W];
                    V::unpack(gr[i], g);
#pragma unroll
                    for (int e = 0; e < W; e++)
                        g[e] = (mb[i] >> e) & 1u ? g[e] : 0.f;
                    gr[i] = V::pack(g); /* exact: g holds stored values or zeros */
                }
#pragma unroll
            for (int i = 0; i < 7; i++) {
                float xv[W], g[W];
                V::unpack(xr[i], xv);
                V::unpack(gr[i], g);
#pragma unroll
                for (int e = 0; e < W; e++) {
                    const float xh = (xv[e] - mean) * rstd, dy = g[e] * ga[e];
                    s1 += dy;
                    s2 += dy * xh;
                    accg[e] += g[e] * xh;
                    accb[e] += g[e];
                }
            }
        }
        const float2 sums = gn_group_sums(s1, s2, w);
        if (!on)
            continue;
        s1 = sums.x * inv;
        s2 = sums.y * inv;
#pragma unroll
        for (int i = 0; i < 7; i++) {
            float xv[W], g[W], d[W];
            V::unpack(xr[i], xv);
            V::unpack(gr[i], g);
#pragma unroll
            for (int e = 0; e < W; e++) {
                const float xh = (xv[e] - mean) * rstd;
                d[e] = rstd * (g[e] * ga[e] - s1 - xh * s2);
            }
            V::st(dx + base + i * step, V::pack(d));
            if (dres)
                V::st(dres + base + i * step, gr[i]);
        }
    }
    /* the block's partial per channel: its threads of vector cv added in (sample, row) order */
    __shared__ float red[2][GN_MAX_THREADS];
    float *dst = part + (size_t)blockIdx.x * 2 * C;
#pragma unroll
    for (int e = 0; e < W; e++) {
        __syncthreads(); /* the previous channel's (or gn_group_sums') readers are done */
        red[0][threadIdx.x] = accg[e];
        red[1][threadIdx.x] = accb[e];
        __syncthreads();
        if (threadIdx.x < w.R) {
            float a = 0.f, b = 0.f;
            for (int ss = 0; ss < w.spb; ss++)
                for (int pr = 0; pr < 7; pr++) {
                    a += red[0][ss * w.U + pr * w.R + threadIdx.x];
                    b += red[1][ss * w.U + pr * w.R + threadIdx.x];
                }
            dst[threadIdx.x * W + e] = a;
            dst[C + threadIdx.x * W + e] = b;
        }
    }
}

/* dgamma[c] += the partials' sum of g*xhat, dbeta[c] += of g. Block (32, GN_SUM_ROWS): x a
 * column of the partials (2C: dgamma's, then dbeta's), y a row offset; each thread adds
 * the rows y, y + GN_SUM_ROWS, ... in order (a few loads in flight, not one chain of
 * `blocks`), then row offsets are added in order: a fixed order, deterministic. */
#define GN_SUM_ROWS 32
__global__ void __launch_bounds__(32 * GN_SUM_ROWS) gn_param_sums(const float *__restrict__ part, int blocks, int C,
                                                                  float *__restrict__ dgamma,
                                                                  float *__restrict__ dbeta)
{
    __shared__ double sh[GN_SUM_ROWS][32];
    const int tx = threadIdx.x, ty = threadIdx.y, j = blockIdx.x * 32 + tx;
    double a = 0;
    if (j < 2 * C)
#pragma unroll 4
        for (int b = ty; b < blocks; b += GN_SUM_ROWS)
            a += part[(size_t)b * 2 * C + j];
    sh[ty][tx] = a;
    __syncthreads();
    if (ty == 0 && j < 2 * C) {
        double t = 0;
        for (int k = 0; k < GN_SUM_ROWS; k++)
            t += sh[k][tx];
        if (j < C)
            dgamma[j] += (float)t;
        else
            dbeta[j - C] += (float)t;
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

/* The coalesced GroupNorm kernels unless the caller or GV_GN_OLD=1 (the A/B switch of
 * bench/nn/h200_gn.sh) asks for the earlier ones. */
static int gn_use_new(int impl)
{
    static int env_old = -1;
    if (env_old < 0) {
        const char *e = getenv("GV_GN_OLD");
        env_old = e && *e && strcmp(e, "0") != 0;
    }
    return impl == GPU_GN_NEW || (impl == GPU_GN_AUTO && !env_old);
}

/* Threads per block of the coalesced GroupNorm kernels for C channels stored as T (units
 * of 7 * C/W threads, about 128 per block), or 0 where they do not apply: a group's
 * channels must be whole 16-byte vectors and a unit fit in one block. */
template <typename T>
static int gn_vec_threads(int C)
{
    const int W = gn_vec<T>::W;
    if (C <= 0 || C % 8 || (C / 8) % W || 7 * (C / W) > GN_MAX_THREADS)
        return 0;
    const int U = 7 * (C / W), spb = U < 128 ? 128 / U : 1;
    return (spb < GN_MAX_SPB ? spb : GN_MAX_SPB) * U;
}

int gpu_gn_coalesced(int C, gpu_dtype dt)
{
    return (dt == GPU_F32 ? gn_vec_threads<float>(C) : gn_vec_threads<gv_bf16>(C)) > 0;
}

int gpu_norm_relu_bits(int group, int C, gpu_dtype dt, int impl)
{
    return group && gpu_gn_coalesced(C, dt) && gn_use_new(impl);
}

/* GroupNorm's backward keeps its per-block partials (GPU_GN_PARTS x 2C floats) in the
 * BatchNorm scratch. */
static_assert(GPU_GN_PARTS * 2 * sizeof(float) <= (2 + 2 * GPU_BN_BLOCKS) * sizeof(double),
              "GPU_BN_SCRATCH holds GroupNorm's partials");

template <typename T>
static gv_status norm_fwd_t(const norm_fwd_args *a, cudaStream_t st, gv_err *err)
{
    const T *x = (const T *)a->x, *res = (const T *)a->res;
    T *y = (T *)a->y;
    const int M = a->N * NN_CELLS;
    if (a->bits && !(a->relu && gpu_norm_relu_bits(a->group, a->C, a->dt, a->impl)))
        return gv_fail(err, GV_ERR_INPUT, "a ReLU bit mask needs a ReLU and the coalesced GroupNorm kernels (C %d)", a->C);
    if (a->group) {
        if (a->C % 8)
            return gv_fail(err, GV_ERR_INPUT, "GroupNorm(8) needs channels divisible by 8 (got %d)", a->C);
        const int vt = gn_vec_threads<T>(a->C);
        if (vt && gn_use_new(a->impl)) {
            const int spb = vt / (7 * (a->C / gn_vec<T>::W));
            const int nb = (a->N + spb - 1) / spb;
            if (res)
                gn_fwd_vec<T, true><<<nb, vt, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean, a->rstd, a->N,
                                                       a->C, a->fault, a->bits);
            else
                gn_fwd_vec<T, false><<<nb, vt, 0, st>>>(x, res, y, a->relu, a->gamma, a->beta, a->mean, a->rstd, a->N,
                                                        a->C, a->fault, a->bits);
            GV_GPU_TRY(cudaGetLastError(), err);
            return GV_OK;
        }
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
    const int M = a->N * NN_CELLS;
    int sms = a->sm_count > 0 ? a->sm_count : 132;
    if (a->bits && (out || !gpu_norm_relu_bits(a->group, a->C, a->dt, a->impl)))
        return gv_fail(err, GV_ERR_INPUT, "a ReLU bit mask needs the coalesced GroupNorm kernels and no output (C %d)",
                       a->C);
    if (a->group) {
        const int vt = gn_vec_threads<T>(a->C);
        if (vt && gn_use_new(a->impl)) {
            if (!a->acc)
                return gv_fail(err, GV_ERR_INPUT, "GroupNorm backward needs the scratch for its partial sums");
            /* one wave of resident blocks (at most GPU_GN_PARTS), each looping over samples */
            int per_sm = 0;
            GV_GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gn_bwd_vec<T>, vt, 0), err);
            const int spb = vt / (7 * (a->C / gn_vec<T>::W)), wave = sms * (per_sm > 0 ? per_sm : 1);
            int nb = (a->N + spb - 1) / spb;
            nb = nb < wave ? nb : wave;
            nb = nb < GPU_GN_PARTS ? nb : GPU_GN_PARTS;
            float *part = (float *)a->acc;
            gn_bwd_vec<T><<<nb, vt, 0, st>>>(x, out, dout, dx, dres, a->gamma, a->mean, a->rstd, part, a->N, a->C,
                                             a->bits);
            GV_GPU_TRY(cudaGetLastError(), err);
            gn_param_sums<<<(2 * a->C + 31) / 32, dim3(32, GN_SUM_ROWS), 0, st>>>(part, nb, a->C, a->dgamma,
                                                                                 a->dbeta);
            GV_GPU_TRY(cudaGetLastError(), err);
            return GV_OK;
        }
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
