/* conv_mma.cu: 3x3 convolutions on a 7x7 board as implicit GEMMs on bf16 tensor cores
 * (mma.sync m16n8k16, fp32 accumulation; NVIDIA sm_80 and newer). The input is gathered
 * tap by tap straight from the NHWC activations into shared memory (cp.async with zero
 * fill for the board's border), so no im2col buffer is ever written.
 *
 *   forward / dgrad:  Y (M, cout) = sum over taps t, channels ci of X[shift_t(m)][ci] W[co][t*cin+ci]
 *   wgrad:            dW[co][t*cin+ci] = sum over rows m of dY[m][co] X[shift_t(m)][ci]
 *
 * The reference beside these kernels is gpu_conv3x3_*_naive (selftest.cu) on the device
 * and the float64 host path for the whole network. Under HIP this file compiles to
 * launchers that report the tensor-core path as unavailable (the SIMT kernels run). */
#include <stdint.h>
#include <stdlib.h>

#include "nn/gpu/gpu_nn.h"

#if GV_HAVE_MMA_BUILD
#include <cuda.h> /* CUtensorMap and its encoding's types (the functions come from the driver at run time) */
#include <cudaTypedefs.h>
#endif

#if GV_HAVE_MMA_BUILD && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define MMA_BODY 1
#else
#define MMA_BODY 0
#endif

#if GV_HAVE_MMA_BUILD

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16-byte asynchronous copy global -> shared; valid == false writes 16 zero bytes. */
static __device__ __forceinline__ void cp_async16(unsigned dst, const void *src, bool valid)
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    int sz = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(sz));
#endif
}

/* Makes this thread's generic-proxy writes to shared memory (cp.async included) visible to
 * the async proxy (the reads of wgmma). */
static __device__ __forceinline__ void fence_proxy_async()
{
#if MMA_BODY && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

static __device__ __forceinline__ void cp_async_commit()
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N>
static __device__ __forceinline__ void cp_async_wait()
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/* ldmatrix.x4: four 8x8 b16 matrices from shared memory into r, transposed when TRANS. */
template <bool TRANS>
static __device__ __forceinline__ void ldsm_x4(unsigned r[4], unsigned addr)
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
#endif
}

static __device__ __forceinline__ void mma_bf16(float c[4], const unsigned a[4], const unsigned b[2])
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* acc (MT, NT, 4) = 0: the fp32 accumulators of a warp's MT x NT m16n8 tiles. */
template <int MT, int NT>
static __device__ __forceinline__ void acc_zero(float acc[MT][NT][4])
{
#pragma unroll
    for (int a = 0; a < MT; a++)
#pragma unroll
        for (int b = 0; b < NT; b++)
#pragma unroll
            for (int c = 0; c < 4; c++)
                acc[a][b][c] = 0.f;
}

/* acc (MT, NT, 4) += af (MT, 16x16 A fragments) x bfr (NT, 16x8 B fragments). */
template <int MT, int NT>
static __device__ __forceinline__ void mma_tiles(float acc[MT][NT][4], const unsigned af[MT][4], const unsigned bfr[NT][2])
{
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            mma_bf16(acc[mt][nt], af[mt], bfr[nt]);
}

/* The four 8x8 matrices of one ldmatrix.x4 as the B fragments of two adjacent n8 tiles. */
static __device__ __forceinline__ void b_frag_pair(unsigned b0[2], unsigned b1[2], const unsigned r[4])
{
    b0[0] = r[0];
    b0[1] = r[1];
    b1[0] = r[2];
    b1[1] = r[3];
}

/* The S-stage cp.async pipeline over KT K steps: load_stage(stage, kt) issues step kt's
 * copies into stage; compute(stage) multiplies the stage whose copies have landed while
 * the next S-1 steps are in flight (the stage refilled at step kt is the one step kt-1
 * read, so compute must be done reading it when it returns). Every thread of the CTA calls
 * it. ASYNC_READ: the tensor cores read the stages through the async proxy (wgmma), so each
 * thread's landed copies are made visible to it before the barrier. */
template <int S, bool ASYNC_READ = false, typename Load, typename Compute>
static __device__ __forceinline__ void cp_async_pipeline(int KT, Load &load_stage, Compute &compute)
{
#pragma unroll
    for (int st = 0; st < S - 1; st++) {
        if (st < KT)
            load_stage(st, st);
        cp_async_commit();
    }
    for (int kt = 0; kt < KT; kt++) {
        cp_async_wait<S - 2>();
        if (ASYNC_READ)
            fence_proxy_async();
        __syncthreads();
        {
            int nk = kt + S - 1;
            if (nk < KT)
                load_stage(nk % S, nk);
            cp_async_commit();
        }
        compute(kt % S);
    }
    cp_async_wait<0>();
}

static __device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi)
{
    return (unsigned)gv_f32_to_bf16(lo) | ((unsigned)gv_f32_to_bf16(hi) << 16);
}

/* ---- forward / dgrad ------------------------------------------------------------------
 * CTA tile BM rows x BN output channels, K step BK (one or more taps' channel slices; each
 * 16-byte chunk of 8 channels lies within one tap because cin % 8 == 0), an S-stage cp.async
 * pipeline, 256 threads. Shared-memory rows are BK/8 chunks of 16 bytes; chunk c of row r
 * is stored at chunk swz(r, c), which makes both the cp.async stores and the ldmatrix reads
 * bank-conflict free. With BK = 64 (rows of 128 bytes) that is exactly the 128-byte swizzle
 * of the Hopper tensor cores' shared-memory operands, so the wgmma kernel reads the same
 * tiles the gather writes. */
#define FWD_BM 128

/* Shared-memory position (in 16-byte chunks) of chunk c of row r for rows of CH chunks. */
template <int CH>
static __device__ __forceinline__ int swz(int r, int c)
{
    return CH == 4 ? c ^ ((r >> 1) & 3) : c ^ (r & 7);
}

/* The gather of one K step of the forward's operands into shared memory: A (BM rows of the
 * shifted input, zero outside the board and past M) and B (BN weight rows). Each thread
 * owns one chunk column kc and LA rows of A, LB rows of B. */
template <int BM, int BN, int BK>
struct fwd_gather {
    static constexpr int CH = BK / 8, LA = BM * CH / 256, LB = BN * CH / 256;
    int kc, a_yx[LA], a_base[LA];
    const uint16_t *X, *W;
    int K, cin, cout, n0;

    __device__ __forceinline__ fwd_gather(const uint16_t *X_, const uint16_t *W_, int m0, int n0_, int M, int cin_,
                                          int cout_)
        : X(X_), W(W_), K(9 * cin_), cin(cin_), cout(cout_), n0(n0_)
    {
        kc = threadIdx.x % CH;
        /* board position packed as y*8+x, or -1000 when the row is past M */
#pragma unroll
        for (int i = 0; i < LA; i++) {
            int m = m0 + row(i);
            int n = m / NN_CELLS, pos = m - n * NN_CELLS;
            int y = pos / 7;
            a_yx[i] = m < M ? y * 8 + (pos - y * 7) : -1000;
            a_base[i] = n * NN_CELLS * cin;
        }
    }
    static __device__ __forceinline__ int row(int i) { return (threadIdx.x + i * 256) / CH; }

    /* K step kt (absolute) into tiles sA (BM x BK) and sB (BN x BK). */
    __device__ __forceinline__ void load(uint16_t *sA, uint16_t *sB, int kt) const
    {
        const int k = kt * BK + kc * 8;
        const bool kok = k < K;
        const int t = kok ? k / cin : 0, ci = k - t * cin;
        const int ty = t / 3;
        const int dy = ty - 1, dx = t - ty * 3 - 1;
#pragma unroll
        for (int i = 0; i < LA; i++) {
            int iy = (a_yx[i] >> 3) + dy, ix = (a_yx[i] & 7) + dx;
            bool ok = kok && a_yx[i] >= 0 && (unsigned)iy < 7u && (unsigned)ix < 7u;
            const uint16_t *src = ok ? X + a_base[i] + (iy * 7 + ix) * cin + ci : X;
            int r = row(i);
            cp_async16(smem_u32(sA + r * BK + (swz<CH>(r, kc) << 3)), src, ok);
        }
#pragma unroll
        for (int i = 0; i < LB; i++) {
            int r = row(i);
            int co = n0 + r;
            bool ok = co < cout && kok;
            const uint16_t *src = ok ? W + (size_t)co * K + k : W;
            cp_async16(smem_u32(sB + r * BK + (swz<CH>(r, kc) << 3)), src, ok);
        }
    }
};

/* The forward's epilogue for outputs (row, col) and (row, col + 1): a split's fp32 partial
 * sums (the reduction adds R and applies the fault hook), or Y = bf16(v + R). */
template <bool SPLIT>
static __device__ __forceinline__ void fwd_store(int row, int col, float v0, float v1, uint16_t *__restrict__ Y,
                                                 const uint16_t *__restrict__ R, int M, int cout, int fault,
                                                 float *__restrict__ P)
{
    if (row >= M || col >= cout)
        return;
    size_t o = (size_t)row * cout + col;
    if (SPLIT) {
        *(float2 *)(P + (size_t)blockIdx.z * M * cout + o) = make_float2(v0, v1);
        return;
    }
    if (fault && col == 0 && row % 97 == 0)
        return; /* test hook: leave these outputs unwritten */
    if (R) {
        unsigned rr = *(const unsigned *)(R + o);
        v0 += gv_bf16_to_f32((gv_bf16)(rr & 0xffff));
        v1 += gv_bf16_to_f32((gv_bf16)(rr >> 16));
    }
    *(unsigned *)(Y + o) = pack_bf16x2(v0, v1);
}

/* The K steps [kt0, kt0 + KT) of a CTA: all of them, or split blockIdx.z's kps when SPLIT. */
template <int BK, bool SPLIT>
static __device__ __forceinline__ void fwd_k_range(int cin, int kps, int &kt0, int &KT)
{
    const int all = (9 * cin + BK - 1) / BK;
    kt0 = SPLIT ? blockIdx.z * kps : 0;
    KT = SPLIT ? min(kps, all - kt0) : all;
}

/* mma.sync form: 8 warps, 2 along rows (64 each) x 4 along channels (BN/4 each).
 * SPLIT (compile time): the split-K form writes fp32 partials; the unsplit kernel carries no
 * trace of it (as a run-time test the split path cost the unsplit kernels speed on the H200). */
template <int BN, int BK, int S, bool SPLIT>
__global__ void __launch_bounds__(256) conv_fwd_mma(const uint16_t *__restrict__ X, const uint16_t *__restrict__ W,
                                                    uint16_t *__restrict__ Y, const uint16_t *__restrict__ R, int M,
                                                    int cin, int cout, int fault, float *__restrict__ P, int kps)
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    constexpr int BM = FWD_BM, CH = BK / 8;
    constexpr int WN = BN / 4, NT = WN / 8;
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sA = smem;                /* [S][BM][BK] */
    uint16_t *sB = smem + S * BM * BK;  /* [S][BN][BK] */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp >> 2, wn = warp & 3; /* 2 x 4 warps */
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    int kt0, KT;
    fwd_k_range<BK, SPLIT>(cin, kps, kt0, KT);
    const fwd_gather<BM, BN, BK> g(X, W, m0, n0, M, cin, cout);
    auto load_stage = [&](int stage, int kt) { g.load(sA + stage * BM * BK, sB + stage * BN * BK, kt0 + kt); };

    float acc[4][NT][4];
    acc_zero<4, NT>(acc);
    auto compute = [&](int stage) {
        const uint16_t *tA = sA + stage * BM * BK;
        const uint16_t *tB = sB + stage * BN * BK;
#pragma unroll
        for (int kk = 0; kk < BK / 16; kk++) {
            unsigned af[4][4], bfr[NT][2];
#pragma unroll
            for (int mt = 0; mt < 4; mt++) {
                int row = wm * 64 + mt * 16 + (lane & 15);
                int chunk = kk * 2 + (lane >> 4);
                ldsm_x4<false>(af[mt], smem_u32(tA + row * BK + (swz<CH>(row, chunk) << 3)));
            }
#pragma unroll
            for (int n2 = 0; n2 < NT / 2; n2++) {
                int row = wn * WN + n2 * 16 + (lane & 7) + ((lane >> 4) << 3);
                int chunk = kk * 2 + ((lane >> 3) & 1);
                unsigned r[4];
                ldsm_x4<false>(r, smem_u32(tB + row * BK + (swz<CH>(row, chunk) << 3)));
                b_frag_pair(bfr[2 * n2], bfr[2 * n2 + 1], r);
            }
            mma_tiles<4, NT>(acc, af, bfr);
        }
    };
    cp_async_pipeline<S>(KT, load_stage, compute);

#pragma unroll
    for (int mt = 0; mt < 4; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                fwd_store<SPLIT>(m0 + wm * 64 + mt * 16 + (lane >> 2) + h * 8, n0 + wn * WN + nt * 8 + (lane & 3) * 2,
                                 acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1], Y, R, M, cout, fault, P);
#endif
}

/* ---- the Hopper form (wgmma, sm_90a) ---------------------------------------------------
 * The same gather and pipeline with BK = 64; the multiplication is wgmma.mma_async, one
 * warpgroup (128 threads) per BM/2 rows, both operands read by the tensor cores from the
 * swizzled shared-memory tiles through matrix descriptors, fp32 accumulators in registers
 * (BN/2 per thread per 64 rows). The operands are gathered by cp.async (the zero fill at
 * the board's edge is what the cp.async source size gives). A tile of rows
 * m = n*49 + y*7 + x shifted by a tap is not a box of the (N, 7, 7, C) tensor, so TMA's
 * tiled mode cannot load it; its im2col mode can (conv_fwd_wgmma_tma below, for cin % 64 == 0). */
#if GV_HAVE_MMA_BUILD && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_BODY 1
#else
#define WGMMA_BODY 0
#endif

#if WGMMA_BODY
/* A shared-memory matrix descriptor for a K-major tile of 128-byte rows in the 128-byte
 * swizzle, 8-row groups 1024 bytes apart (the tile's base 1024-byte aligned; addr may be
 * advanced by 32 bytes per k16 step within the row). */
static __device__ __forceinline__ uint64_t wgmma_desc(unsigned addr)
{
    return (uint64_t)((addr & 0x3ffff) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

static __device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N wgmma groups of this warpgroup are still running. */
template <int N>
static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving uses of the n accumulators d across this point (they are
 * written asynchronously between a wgmma and the wait for it). */
template <int n>
static __device__ __forceinline__ void wgmma_pin(float *d)
{
#pragma unroll
    for (int i = 0; i < n; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}
#endif

/* wgmma_op<N>::run<TA, TB>(d, da, db): d (64 x N fp32, N/2 per thread) += A (64 x 16, by
 * descriptor da) x B (16 x N, by descriptor db), bf16; TA/TB 1: the operand is MN-major. */
template <int N>
struct wgmma_op;
template <> struct wgmma_op<64> {
    template <int TA, int TB>
    static __device__ __forceinline__ void run(float *d, uint64_t da, uint64_t db)
    {
#if WGMMA_BODY
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
                     "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
                     "%29, %30, %31}, %32, %33, p, 1, 1, %34, %35;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                       "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
                       "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
                       "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
                       "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "l"(da), "l"(db), "n"(TA), "n"(TB));
#endif
    }
};
template <> struct wgmma_op<128> {
    template <int TA, int TB>
    static __device__ __forceinline__ void run(float *d, uint64_t da, uint64_t db)
    {
#if WGMMA_BODY
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
                     "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
                     "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                     "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, "
                     "1, %66, %67;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                       "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
                       "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
                       "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
                       "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                       "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
                       "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
                       "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
                       "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "l"(da), "l"(db), "n"(TA), "n"(TB));
#endif
    }
};

#if WGMMA_BODY
/* The first 1024-byte boundary in the dynamic shared memory smem (the swizzled tiles' base;
 * the launches add 1024 bytes for it). */
static __device__ __forceinline__ uint16_t *tiles1024(uint16_t *smem)
{
    return smem + ((1024u - (smem_u32(smem) & 1023u)) & 1023u) / 2;
}

template <int N>
static __device__ __forceinline__ void acc_clear(float *acc)
{
#pragma unroll
    for (int i = 0; i < N; i++)
        acc[i] = 0.f;
}

/* One 64-deep K step of a warpgroup's 64 x BN tile, waited for (its stage is refilled after
 * the next barrier): acc += A (64 rows at tA) x B (BN rows at tB), both K-major, swizzled. */
template <int BN>
static __device__ __forceinline__ void wgmma_fwd_step(float *acc, unsigned tA, unsigned tB)
{
    wgmma_pin<BN / 2>(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++)
        wgmma_op<BN>::template run<0, 0>(acc, wgmma_desc(tA + kk * 32), wgmma_desc(tB + kk * 32));
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_pin<BN / 2>(acc);
}

/* The forward's epilogue of a CTA's 128 x BN tile at (m0, n0) from each warpgroup's
 * accumulators: accumulator i of a thread is n8 tile i/4, row +8 for (i/2)&1, column +1 for i&1. */
template <int BN, bool SPLIT>
static __device__ __forceinline__ void wgmma_fwd_store(const float *acc, int m0, int n0, uint16_t *__restrict__ Y,
                                                       const uint16_t *__restrict__ R, int M, int cout, int fault,
                                                       float *__restrict__ P)
{
    const int lane = threadIdx.x & 31, wg = threadIdx.x >> 7, warp = (threadIdx.x >> 5) & 3;
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            fwd_store<SPLIT>(m0 + wg * 64 + warp * 16 + (lane >> 2) + h * 8, n0 + j * 8 + (lane & 3) * 2,
                             acc[j * 4 + 2 * h], acc[j * 4 + 2 * h + 1], Y, R, M, cout, fault, P);
}
#endif

/* Tiles of 128 rows (one m64 per warpgroup), 3 stages (97 KiB with the alignment: two CTAs
 * a multiprocessor, at most 128 registers a thread), each step's wgmma waited for before
 * the next barrier. Measured on an H100 against 4 stages, one CTA and a wgmma group kept
 * running across the barrier: that was no faster (forward) or 5% slower (weight gradient). */
template <int BN, int S, bool SPLIT>
__global__ void __launch_bounds__(256, 2) conv_fwd_wgmma(const uint16_t *__restrict__ X, const uint16_t *__restrict__ W,
                                                      uint16_t *__restrict__ Y, const uint16_t *__restrict__ R, int M,
                                                      int cin, int cout, int fault, float *__restrict__ P, int kps)
{
#if WGMMA_BODY
    constexpr int BM = FWD_BM, BK = 64, NA = BN / 2;
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sA = tiles1024(smem); /* [S][BM][BK] */
    uint16_t *sB = sA + S * BM * BK;                                         /* [S][BN][BK] */
    const int wg = threadIdx.x >> 7;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    int kt0, KT;
    fwd_k_range<BK, SPLIT>(cin, kps, kt0, KT);
    const fwd_gather<BM, BN, BK> g(X, W, m0, n0, M, cin, cout);
    auto load_stage = [&](int stage, int kt) { g.load(sA + stage * BM * BK, sB + stage * BN * BK, kt0 + kt); };

    float acc[NA];
    acc_clear<NA>(acc);
    auto compute = [&](int stage) {
        wgmma_fwd_step<BN>(acc, smem_u32(sA + (stage * BM + wg * (BM / 2)) * BK), smem_u32(sB + stage * BN * BK));
    };
    cp_async_pipeline<S, true>(KT, load_stage, compute);
    wgmma_fwd_store<BN, SPLIT>(acc, m0, n0, Y, R, M, cout, fault, P);
#endif
}

/* ---- the Hopper form with TMA loads (sm_90a) ------------------------------------------
 * The forward above with both operands loaded by the tensor memory accelerator instead of
 * cp.async: A in TMA's im2col mode, B (the weights) as tiles. One thread issues a stage's
 * two loads, whose completion an mbarrier counts in bytes; the 256 threads compute nothing
 * for the addresses, and there is no zero fill to arrange.
 *
 * The im2col tensor map views X as (N, 7, 7, cin) with a bounding box of base pixels
 * [-1, 5] in y and x (lower corner -1, upper corner -1: the box ends one short of the
 * board) and 128 pixels of 64 channels per load. A load starts at the base pixel of the
 * tile's first row, (x0 - 1, y0 - 1) of image n0, and adds the tap (kx, ky) as the
 * im2col offsets: pixel (x - 1 + kx, y - 1 + ky) for each of the 128 rows, stepping
 * through the box in x, then y, then the image, as the rows m = n*49 + y*7 + x do;
 * what lies off the board or past the last image is zero. A K step of 64 channels must lie
 * within one tap, so this form needs cin % 64 == 0 (the trunk; the stem runs the cp.async
 * form). The 128-byte swizzle TMA applies is the layout wgmma_desc reads. */
#if WGMMA_BODY
static __device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* One arrival that also expects `bytes` more bytes of asynchronous copies to land. */
static __device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

/* Waits until the barrier's phase `parity` has completed. */
static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* A (pixels x channels) im2col load of the 4-d map at (c, w, h, n) with tap offsets (ow, oh). */
static __device__ __forceinline__ void tma_im2col4(unsigned dst, const CUtensorMap *map, int c, int w, int h, int n,
                                                   unsigned short ow, unsigned short oh, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                 "%3, %4, %5}], [%6], {%7, %8};\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar), "h"(ow), "h"(oh)
                 : "memory");
}

/* A tile load of the 2-d map at (x, y). */
static __device__ __forceinline__ void tma_tile2(unsigned dst, const CUtensorMap *map, int x, int y, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                 "%3}], [%4];\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/* The S-stage TMA pipeline over KT K steps, the counterpart of cp_async_pipeline: full[s]
 * (S mbarriers in shared memory) completes when stage s has landed; issue(stage, kt), called
 * by thread 0 alone, arms full[stage] with the bytes it loads and issues step kt's copies;
 * compute(stage) multiplies the stage and is done reading it when it returns. A stage is
 * refilled after the barrier that follows the step that read it. */
template <int S, typename Issue, typename Compute>
static __device__ __forceinline__ void tma_pipeline(int KT, unsigned long long *full, Issue &issue, Compute &compute)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++)
            mbar_init(smem_u32(&full[s]), 1);
        /* the barriers' initialisation, visible to the TMA unit */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        for (int st = 0; st < S - 1 && st < KT; st++)
            issue(st, st);
    }
    for (int kt = 0; kt < KT; kt++) {
        /* everyone is done with step kt-1 (and, at kt = 0, sees the initialised barriers) */
        __syncthreads();
        if (threadIdx.x == 0 && kt + S - 1 < KT)
            issue((kt + S - 1) % S, kt + S - 1);
        const int stage = kt % S;
        mbar_wait(smem_u32(&full[stage]), (unsigned)(kt / S) & 1u);
        compute(stage);
    }
}
#endif

template <int BN, int S, bool SPLIT>
__global__ void __launch_bounds__(256, 2)
    conv_fwd_wgmma_tma(const __grid_constant__ CUtensorMap mapX, const __grid_constant__ CUtensorMap mapW,
                       uint16_t *__restrict__ Y, const uint16_t *__restrict__ R, int M, int cin, int cout, int fault,
                       float *__restrict__ P, int kps)
{
#if WGMMA_BODY
    constexpr int BM = FWD_BM, BK = 64, NA = BN / 2;
    constexpr unsigned STAGE_BYTES = (BM + BN) * BK * 2;
    extern __shared__ __align__(128) uint16_t smem[];
    __shared__ __align__(8) unsigned long long full[S]; /* stage s's loads have landed */
    uint16_t *sA = tiles1024(smem); /* [S][BM][BK] */
    uint16_t *sB = sA + S * BM * BK;                                         /* [S][BN][BK] */
    const int wg = threadIdx.x >> 7;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int img = m0 / NN_CELLS, pos = m0 - img * NN_CELLS, y0 = pos / 7, x0 = pos - y0 * 7;
    int kt0, KT;
    fwd_k_range<BK, SPLIT>(cin, kps, kt0, KT);
    /* K step kt (relative) into stage */
    auto issue = [&](int stage, int kt) {
        const int k = (kt0 + kt) * BK, t = k / cin, ci = k - t * cin, ty = t / 3;
        const unsigned bar = smem_u32(&full[stage]);
        mbar_expect(bar, STAGE_BYTES);
        tma_im2col4(smem_u32(sA + stage * BM * BK), &mapX, ci, x0 - 1, y0 - 1, img, (unsigned short)(t - ty * 3),
                    (unsigned short)ty, bar);
        tma_tile2(smem_u32(sB + stage * BN * BK), &mapW, k, n0, bar);
    };
    float acc[NA];
    acc_clear<NA>(acc);
    auto compute = [&](int stage) {
        wgmma_fwd_step<BN>(acc, smem_u32(sA + (stage * BM + wg * (BM / 2)) * BK), smem_u32(sB + stage * BN * BK));
    };
    tma_pipeline<S>(KT, full, issue, compute);
    wgmma_fwd_store<BN, SPLIT>(acc, m0, n0, Y, R, M, cout, fault, P);
#endif
}

/* ---- wgrad ----------------------------------------------------------------------------
 * CTA tile BMC output channels x 128 columns of k = t*cin + ci, reducing over a range of
 * rows (split-K over the batch), BK rows per stage. Both operands are stored in shared
 * memory as they lie in global memory (rows m; channels contiguous). Each split stores its
 * partial sums; gpu_wgrad_reduce adds them up. */
#define WG_BK 32
#define WG_BN 128
#define WG_STAGES 3

/* The gather of BK rows of both operands into shared memory: A (BK rows of dY, BMC channels
 * from co0) and B (BK rows of the input shifted by the taps of columns k0 .. k0+BN).
 * Layout (W chunks of 16 bytes a row): plain, chunk c of row r at r*W + (c ^ (r & 7)), read
 * by ldmatrix.trans; BLOCKED, in blocks of 8 chunks (64 channels, 128 bytes) of all BK rows,
 * chunk c of row r at block c/8, row r, chunk (c % 8) ^ (r & 7): the 128-byte swizzle of
 * the Hopper tensor cores' MN-major operands, read by wgmma. */
template <int BMC, int BN, int BK, bool BLOCKED>
struct wgrad_gather {
    static constexpr int ACH = BMC / 8, BCH = BN / 8, LA = BK * ACH / 256, LB = BK * BCH / 256;
    const uint16_t *DY, *X;
    int cin, cout, co0, me;
    /* this thread's chunk columns are fixed: its A channels, its B tap and channel */
    int a_c, b_c, b_dy, b_dx, b_ci;
    bool b_kok;

    __device__ __forceinline__ wgrad_gather(const uint16_t *DY_, const uint16_t *X_, int co0_, int k0, int me_, int cin_,
                                            int cout_)
        : DY(DY_), X(X_), cin(cin_), cout(cout_), co0(co0_), me(me_)
    {
        a_c = threadIdx.x % ACH;
        b_c = threadIdx.x % BCH;
        int k = k0 + b_c * 8;
        b_kok = k < 9 * cin;
        int t = b_kok ? k / cin : 0;
        b_ci = k - t * cin;
        b_dy = t / 3 - 1;
        b_dx = t % 3 - 1;
    }

    /* Element offset of chunk c of row r in a tile of W chunks a row. */
    template <int W>
    static __device__ __forceinline__ int at(int r, int c)
    {
        return BLOCKED ? ((c >> 3) * BK + r) * 64 + (((c & 7) ^ (r & 7)) << 3) : r * W * 8 + ((c ^ (r & 7)) << 3);
    }

    /* Rows mrow0 .. mrow0+BK into sA (BK x BMC) and sB (BK x BN). */
    __device__ __forceinline__ void load(uint16_t *sA, uint16_t *sB, int mrow0) const
    {
#pragma unroll
        for (int i = 0; i < LA; i++) {
            int r = (threadIdx.x + i * 256) / ACH;
            int m = mrow0 + r, co = co0 + a_c * 8;
            bool ok = m < me && co < cout;
            const uint16_t *src = ok ? DY + (size_t)m * cout + co : DY;
            cp_async16(smem_u32(sA + at<ACH>(r, a_c)), src, ok);
        }
#pragma unroll
        for (int i = 0; i < LB; i++) {
            int r = (threadIdx.x + i * 256) / BCH;
            int m = mrow0 + r;
            bool ok = m < me && b_kok;
            const uint16_t *src = X;
            if (ok) {
                int n = m / NN_CELLS, pos = m - n * NN_CELLS;
                int y = pos / 7, x = pos - y * 7;
                int iy = y + b_dy, ix = x + b_dx;
                ok = (unsigned)iy < 7u && (unsigned)ix < 7u;
                if (ok)
                    src = X + ((size_t)n * NN_CELLS + iy * 7 + ix) * cin + b_ci;
            }
            cp_async16(smem_u32(sB + at<BCH>(r, b_c)), src, ok);
        }
    }
};

/* The rows [mb, me) of split blockIdx.z; false when the split has none. */
static __device__ __forceinline__ bool wgrad_rows(int M, int rows_per_split, int &mb, int &me)
{
    mb = blockIdx.z * rows_per_split;
    me = min(M, mb + rows_per_split);
    return mb < me;
}

/* mma.sync form: 32 rows per stage, 3 stages, 8 warps (2 along channels x 4 along k). */
template <int BMC>
__global__ void __launch_bounds__(256) conv_wgrad_mma(const uint16_t *__restrict__ DY, const uint16_t *__restrict__ X,
                                                      float *__restrict__ WS, int M, int cin, int cout, int rows_per_split)
{
#if MMA_BODY && defined(__CUDA_ARCH__)
    constexpr int BK = WG_BK, BN = WG_BN, S = WG_STAGES;
    constexpr int WM = BMC / 2, MT = WM / 16, NT = 4;
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sA = smem;                 /* [S][BK][BMC] */
    uint16_t *sB = smem + S * BK * BMC;  /* [S][BK][BN] */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp >> 2, wn = warp & 3; /* 2 x 4 warps */
    const int co0 = blockIdx.x * BMC, k0 = blockIdx.y * BN;
    const int K = 9 * cin;
    int mb, me;
    if (!wgrad_rows(M, rows_per_split, mb, me))
        return;
    const int KT = (me - mb + BK - 1) / BK;
    const wgrad_gather<BMC, BN, BK, false> g(DY, X, co0, k0, me, cin, cout);
    auto load_stage = [&](int stage, int kt) { g.load(sA + stage * BK * BMC, sB + stage * BK * BN, mb + kt * BK); };

    float acc[MT][NT][4];
    acc_zero<MT, NT>(acc);
    auto compute = [&](int stage) {
        const uint16_t *tA = sA + stage * BK * BMC;
        const uint16_t *tB = sB + stage * BK * BN;
#pragma unroll
        for (int kk = 0; kk < 2; kk++) {
            unsigned af[MT][4], bfr[NT][2];
            const int j = lane >> 3;
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                /* matrices: (m 0-7, co 0-7), (m 0-7, co 8-15), (m 8-15, co 0-7), (m 8-15, co 8-15) */
                int row = kk * 16 + ((j >> 1) << 3) + (lane & 7);
                int col = wm * WM + mt * 16 + ((j & 1) << 3);
                ldsm_x4<true>(af[mt], smem_u32(tA + row * BMC + (((col >> 3) ^ (row & 7)) << 3)));
            }
#pragma unroll
            for (int n2 = 0; n2 < NT / 2; n2++) {
                /* matrices: (m 0-7, n 0-7), (m 8-15, n 0-7), (m 0-7, n 8-15), (m 8-15, n 8-15) */
                int row = kk * 16 + ((j & 1) << 3) + (lane & 7);
                int col = wn * 32 + n2 * 16 + ((j >> 1) << 3);
                unsigned r[4];
                ldsm_x4<true>(r, smem_u32(tB + row * BN + (((col >> 3) ^ (row & 7)) << 3)));
                b_frag_pair(bfr[2 * n2], bfr[2 * n2 + 1], r);
            }
            mma_tiles<MT, NT>(acc, af, bfr);
        }
    };
    cp_async_pipeline<S>(KT, load_stage, compute);

    /* This split's partial sums, in the kernel layout (cout, 9*cin): k and k+1 are adjacent. */
    float *P = WS + (size_t)blockIdx.z * cout * K;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int co = co0 + wm * WM + mt * 16 + (lane >> 2) + h * 8;
                int k = k0 + wn * 32 + nt * 8 + (lane & 3) * 2;
                if (co < cout && k < K)
                    *(float2 *)(P + (size_t)co * K + k) = make_float2(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
            }
#endif
}

/* Hopper form: 64 rows per stage, S stages, wgmma with both operands MN-major (BLOCKED
 * tiles). BMC 128: warpgroup w takes channels w*64 .. +64 and all 128 columns (m64n128);
 * BMC 64: all 64 channels and columns w*64 .. +64 (m64n64). */
#define WGW_BK 64

#if WGMMA_BODY
/* A descriptor for an MN-major tile in the 128-byte swizzle: 64-element blocks `block`
 * bytes apart along M or N, 8-row groups along K 1024 bytes apart. */
static __device__ __forceinline__ uint64_t wgmma_desc_mn(unsigned addr, unsigned block)
{
    return (uint64_t)((addr & 0x3ffff) >> 4) | ((uint64_t)(block >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}
#endif

#if WGMMA_BODY
/* One 64-row step of the weight gradient's BMC x 128 tile, waited for: warpgroup w takes
 * channels w*64 .. +64 and all 128 columns (BMC 128, m64n128) or all 64 channels and
 * columns w*64 .. +64 (BMC 64, m64n64); tA, tB: the stage's BLOCKED tiles. */
template <int BMC>
static __device__ __forceinline__ void wgmma_wgrad_step(float *acc, unsigned tA, unsigned tB)
{
    constexpr int WN = BMC == 128 ? 128 : 64;
    constexpr unsigned BLOCK = WGW_BK * 128; /* bytes of one 64-channel block of a stage */
    const int wg = threadIdx.x >> 7;
    tA += (BMC == 128 ? wg : 0) * BLOCK;
    tB += (BMC == 128 ? 0 : wg) * BLOCK;
    wgmma_pin<WN / 2>(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < WGW_BK / 16; kk++)
        wgmma_op<WN>::template run<1, 1>(acc, wgmma_desc_mn(tA + kk * 2048, BLOCK), wgmma_desc_mn(tB + kk * 2048, BLOCK));
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_pin<WN / 2>(acc);
}

/* A split's partial sums P (cout, K) of the tile at (co0, k0), from the warpgroups'
 * accumulators (accumulator i: n8 tile i/4, row +8 for (i/2)&1, column +1 for i&1). */
template <int BMC>
static __device__ __forceinline__ void wgmma_wgrad_store(const float *acc, int co0, int k0, float *__restrict__ P,
                                                         int cout, int K)
{
    constexpr int WN = BMC == 128 ? 128 : 64;
    const int lane = threadIdx.x & 31, wg = threadIdx.x >> 7, warp = (threadIdx.x >> 5) & 3;
    const int wco = BMC == 128 ? wg * 64 : 0, wk = BMC == 128 ? 0 : wg * 64;
#pragma unroll
    for (int j = 0; j < WN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int co = co0 + wco + warp * 16 + (lane >> 2) + h * 8;
            int k = k0 + wk + j * 8 + (lane & 3) * 2;
            if (co < cout && k < K)
                *(float2 *)(P + (size_t)co * K + k) = make_float2(acc[j * 4 + 2 * h], acc[j * 4 + 2 * h + 1]);
        }
}
#endif

template <int BMC, int S>
__global__ void __launch_bounds__(256, 2) conv_wgrad_wgmma(const uint16_t *__restrict__ DY, const uint16_t *__restrict__ X,
                                                        float *__restrict__ WS, int M, int cin, int cout,
                                                        int rows_per_split)
{
#if WGMMA_BODY
    constexpr int BK = WGW_BK, BN = WG_BN, NA = (BMC == 128 ? 128 : 64) / 2;
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sA = tiles1024(smem); /* [S][BMC/64][BK][64] */
    uint16_t *sB = sA + S * BK * BMC;                                        /* [S][BN/64][BK][64] */
    const int co0 = blockIdx.x * BMC, k0 = blockIdx.y * BN;
    const int K = 9 * cin;
    int mb, me;
    if (!wgrad_rows(M, rows_per_split, mb, me))
        return;
    const int KT = (me - mb + BK - 1) / BK;
    const wgrad_gather<BMC, BN, BK, true> g(DY, X, co0, k0, me, cin, cout);
    auto load_stage = [&](int stage, int kt) { g.load(sA + stage * BK * BMC, sB + stage * BK * BN, mb + kt * BK); };
    float acc[NA];
    acc_clear<NA>(acc);
    auto compute = [&](int stage) {
        wgmma_wgrad_step<BMC>(acc, smem_u32(sA + stage * BK * BMC), smem_u32(sB + stage * BK * BN));
    };
    cp_async_pipeline<S, true>(KT, load_stage, compute);
    wgmma_wgrad_store<BMC>(acc, co0, k0, WS + (size_t)blockIdx.z * cout * K, cout, K);
#endif
}

/* The weight gradient with TMA loads (cin and cout multiples of 64): per 64-row stage, the
 * dY rows as BMC/64 tiles of 64 rows x 64 channels (a tiled map) and the shifted input as
 * BN/64 im2col loads of 64 pixels x 64 channels, one per 64 columns of k (each within one
 * tap), from the base pixel of the stage's first row with the tap as the offsets (see
 * conv_fwd_wgmma_tma). Each load lands as one BLOCKED block of the cp.async form. Columns
 * past K (9*cin not a multiple of 128) are not loaded: only their own outputs would read
 * them, and those are not stored. Split row ranges are multiples of 64, so a stage never
 * crosses into the next split; rows past M are zero (dY is out of bounds there). */
template <int BMC, int S>
__global__ void __launch_bounds__(256, 2)
    conv_wgrad_wgmma_tma(const __grid_constant__ CUtensorMap mapDY, const __grid_constant__ CUtensorMap mapX,
                         float *__restrict__ WS, int M, int cin, int cout, int rows_per_split)
{
#if WGMMA_BODY
    constexpr int BK = WGW_BK, BN = WG_BN, NA = (BMC == 128 ? 128 : 64) / 2;
    extern __shared__ __align__(128) uint16_t smem[];
    __shared__ __align__(8) unsigned long long full[S];
    uint16_t *sA = tiles1024(smem); /* [S][BMC/64][BK][64] */
    uint16_t *sB = sA + S * BK * BMC;                                        /* [S][BN/64][BK][64] */
    const int co0 = blockIdx.x * BMC, k0 = blockIdx.y * BN;
    const int K = 9 * cin;
    int mb, me;
    if (!wgrad_rows(M, rows_per_split, mb, me))
        return;
    const int KT = (me - mb + BK - 1) / BK;
    const int nb = min(BN, K - k0) / 64; /* the B blocks inside K */
    auto issue = [&](int stage, int kt) {
        const int m = mb + kt * BK, n = m / NN_CELLS, pos = m - n * NN_CELLS, y = pos / 7, x = pos - y * 7;
        const unsigned bar = smem_u32(&full[stage]);
        mbar_expect(bar, (unsigned)(BMC + nb * 64) * BK * 2);
#pragma unroll
        for (int b = 0; b < BMC / 64; b++)
            tma_tile2(smem_u32(sA + (stage * BMC / 64 + b) * BK * 64), &mapDY, co0 + b * 64, m, bar);
        for (int b = 0; b < nb; b++) {
            const int k = k0 + b * 64, t = k / cin, ci = k - t * cin, ty = t / 3;
            tma_im2col4(smem_u32(sB + (stage * BN / 64 + b) * BK * 64), &mapX, ci, x - 1, y - 1, n,
                        (unsigned short)(t - ty * 3), (unsigned short)ty, bar);
        }
    };
    float acc[NA];
    acc_clear<NA>(acc);
    auto compute = [&](int stage) {
        wgmma_wgrad_step<BMC>(acc, smem_u32(sA + stage * BK * BMC), smem_u32(sB + stage * BK * BN));
    };
    tma_pipeline<S>(KT, full, issue, compute);
    wgmma_wgrad_store<BMC>(acc, co0, k0, WS + (size_t)blockIdx.z * cout * K, cout, K);
#endif
}

#endif /* GV_HAVE_MMA_BUILD */

#if GV_HAVE_MMA_BUILD
typedef void (*fwd_kernel)(const uint16_t *, const uint16_t *, uint16_t *, const uint16_t *, int, int, int, int,
                           float *, int);

/* The grid of a forward launch asked for `splits` K splits of BK-deep steps: every split
 * gets at least one K step (*kps of them), *P the partial sums' workspace (NULL unsplit). */
static dim3 fwd_grid(const conv_args *a, int BM, int BN, int BK, int *splits, int *kps, float **P)
{
    int KT = (9 * a->cin + BK - 1) / BK;
    *kps = (KT + *splits - 1) / *splits;
    *splits = (KT + *kps - 1) / *kps;
    *P = *splits > 1 ? a->ws : NULL;
    return dim3((a->M + BM - 1) / BM, (a->cout + BN - 1) / BN, *splits);
}

/* Raises the shared-memory limit of a configuration's kernels (a forward's unsplit and
 * split-K kernels, a weight gradient's one) to smem bytes the first time (*raised; before
 * any graph capture can include it). */
template <typename... K>
static gv_status raise_smem(int *raised, size_t smem, gv_err *err, K... kernels)
{
    gv_status s = GV_OK;
    if (!*raised) {
        ((s = s == GV_OK ? GV_GPU(cudaFuncSetAttribute((const void *)kernels,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                                  err)
                         : s),
         ...);
        *raised = s == GV_OK;
    }
    return s;
}

/* Launches one forward configuration (its unsplit and split-K kernels, BM x BN tiles, K step
 * BK, smem bytes of shared memory), then the split-K reduction when split. */
static gv_status fwd_launch(fwd_kernel unsplit, fwd_kernel split, int *raised, int BM, int BN, int BK, size_t smem,
                            const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    gv_status s = raise_smem(raised, smem, err, unsplit, split);
    if (s != GV_OK)
        return s;
    int kps;
    float *P;
    dim3 grid = fwd_grid(a, BM, BN, BK, &splits, &kps, &P);
    (P ? split : unsplit)<<<grid, 256, smem, st>>>((const uint16_t *)a->x, (const uint16_t *)a->w, (uint16_t *)a->y,
                                                   (const uint16_t *)a->res, a->M, a->cin, a->cout, a->fault, P, kps);
    GV_GPU_TRY(cudaGetLastError(), err);
    return splits > 1 ? gpu_conv_splitk_reduce(a, splits, st, err) : GV_OK;
}

template <int BN, int BK, int S>
static gv_status fwd_mma_launch(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    static int raised;
    return fwd_launch(conv_fwd_mma<BN, BK, S, false>, conv_fwd_mma<BN, BK, S, true>, &raised, FWD_BM, BN, BK,
                      (size_t)S * (FWD_BM + BN) * BK * 2, a, splits, st, err);
}

template <int BN, int S>
static gv_status fwd_wgmma_launch(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    static int raised;
    return fwd_launch(conv_fwd_wgmma<BN, S, false>, conv_fwd_wgmma<BN, S, true>, &raised, FWD_BM, BN, 64,
                      (size_t)S * (FWD_BM + BN) * 64 * 2 + 1024, a, splits, st, err);
}

/* cuTensorMapEncodeIm2col and cuTensorMapEncodeTiled, looked up in the driver once through
 * the runtime (so the binary does not link libcuda); 0 when the driver lacks them. */
static PFN_cuTensorMapEncodeIm2col_v12000 enc_im2col;
static PFN_cuTensorMapEncodeTiled_v12000 enc_tiled;

/* The driver's function `name` in its CUDA 12.0 form (the runtime's lookup by version, from
 * CUDA 12.5; before it, the unversioned lookup, which gives that form too). */
static int driver_fn(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn;
}

static int tma_encoders(void)
{
    static int state; /* 0: not looked up, 1: found, -1: missing */
    if (!state) {
        void *f1 = NULL, *f2 = NULL;
        int ok = driver_fn("cuTensorMapEncodeIm2col", &f1) && driver_fn("cuTensorMapEncodeTiled", &f2);
        (void)cudaGetLastError();
        enc_im2col = (PFN_cuTensorMapEncodeIm2col_v12000)f1;
        enc_tiled = (PFN_cuTensorMapEncodeTiled_v12000)f2;
        state = ok ? 1 : -1;
    }
    return state > 0;
}

/* An im2col tensor map of the activations x (M/49, 7, 7, cin) in bf16: `pixels` rows of 64
 * channels a load, the bounding box one short of the board on each side (see
 * conv_fwd_wgmma_tma), the 128-byte swizzle. */
static gv_status tma_im2col_map(CUtensorMap *map, const void *x, int M, int cin, int pixels, gv_err *err)
{
    const cuuint64_t c = (cuuint64_t)cin, dim[4] = {c, 7, 7, (cuuint64_t)(M / NN_CELLS)},
                     stride[3] = {c * 2, 7 * c * 2, NN_CELLS * c * 2};
    const int lower[2] = {-1, -1}, upper[2] = {-1, -1};
    const cuuint32_t es[4] = {1, 1, 1, 1};
    CUresult r = enc_im2col(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, (void *)x, dim, stride, lower, upper, 64,
                            (cuuint32_t)pixels, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gv_fail(err, GV_ERR_ENV, "conv3x3 (TMA): cuTensorMapEncodeIm2col failed (CUresult %d; M %d, cin %d)",
                       (int)r, M, cin);
    return GV_OK;
}

/* A tiled tensor map of the row-major bf16 matrix p (rows x cols): boxes of 64 columns x
 * box_rows rows, the 128-byte swizzle. */
static gv_status tma_tile_map(CUtensorMap *map, const void *p, int rows, int cols, int box_rows, gv_err *err)
{
    const cuuint64_t dim[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, stride[1] = {(cuuint64_t)cols * 2};
    const cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, es[2] = {1, 1};
    CUresult r = enc_tiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)p, dim, stride, box, es,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gv_fail(err, GV_ERR_ENV, "conv3x3 (TMA): cuTensorMapEncodeTiled failed (CUresult %d; %d x %d)", (int)r,
                       rows, cols);
    return GV_OK;
}

template <int BN, int S>
static gv_status fwd_tma_launch(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
    static int raised;
    const size_t smem = (size_t)S * (FWD_BM + BN) * 64 * 2 + 1024;
    gv_status s = raise_smem(&raised, smem, err, conv_fwd_wgmma_tma<BN, S, false>, conv_fwd_wgmma_tma<BN, S, true>);
    CUtensorMap mx, mw;
    if (s == GV_OK)
        s = tma_im2col_map(&mx, a->x, a->M, a->cin, FWD_BM, err);
    if (s == GV_OK)
        s = tma_tile_map(&mw, a->w, a->cout, 9 * a->cin, BN, err);
    if (s != GV_OK)
        return s;
    int kps;
    float *P;
    dim3 grid = fwd_grid(a, FWD_BM, BN, 64, &splits, &kps, &P);
    (P ? conv_fwd_wgmma_tma<BN, S, true> : conv_fwd_wgmma_tma<BN, S, false>)<<<grid, 256, smem, st>>>(
        mx, mw, (uint16_t *)a->y, (const uint16_t *)a->res, a->M, a->cin, a->cout, a->fault, P, kps);
    GV_GPU_TRY(cudaGetLastError(), err);
    return splits > 1 ? gpu_conv_splitk_reduce(a, splits, st, err) : GV_OK;
}

__global__ void wgmma_probe(int *built)
{
    *built = WGMMA_BODY;
}
#endif

gv_status gpu_conv3x3_fwd_mma(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    /* K depth 64 (3 stages) by default; GV_MMA_BK=32 selects 32 (4 stages), for measuring. */
    static int bk = -1;
    if (bk < 0) {
        const char *e = getenv("GV_MMA_BK");
        bk = e && atoi(e) == 32 ? 32 : 64;
    }
    if (a->cout >= 128)
        return bk == 32 ? fwd_mma_launch<128, 32, 4>(a, splits, st, err) : fwd_mma_launch<128, 64, 3>(a, splits, st, err);
    return bk == 32 ? fwd_mma_launch<64, 32, 4>(a, splits, st, err) : fwd_mma_launch<64, 64, 3>(a, splits, st, err);
#else
    return gv_fail(err, GV_ERR_ENV, "the bf16 tensor-core convolution is not built for this GPU backend");
#endif
}

int gpu_conv_wgmma_built(int device)
{
#if GV_HAVE_MMA_BUILD
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess || p.major != 9) {
        (void)cudaGetLastError();
        return 0;
    }
    int *d = NULL, h = 0;
    if (cudaMalloc((void **)&d, sizeof h) == cudaSuccess) {
        wgmma_probe<<<1, 1>>>(d);
        if (cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
            h = 0;
        (void)cudaFree(d);
    }
    (void)cudaGetLastError();
    return h;
#else
    (void)device;
    return 0;
#endif
}

gv_status gpu_conv3x3_fwd_wgmma(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    return a->cout >= 128 ? fwd_wgmma_launch<128, 3>(a, splits, st, err) : fwd_wgmma_launch<64, 3>(a, splits, st, err);
#else
    (void)splits, (void)st;
    return gv_fail(err, GV_ERR_ENV, "the Hopper (wgmma) convolution is not built for this GPU backend (cin %d)", a->cin);
#endif
}

int gpu_conv_tma_applies(const conv_args *a)
{
#if GV_HAVE_MMA_BUILD
    return a->dt == GPU_BF16 && a->cin % 64 == 0 && a->M % NN_CELLS == 0 && !((uintptr_t)a->x & 15) &&
           !((uintptr_t)a->w & 15) && tma_encoders();
#else
    (void)a;
    return 0;
#endif
}

gv_status gpu_conv3x3_fwd_wgmma_tma(const conv_args *a, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    if (!gpu_conv_tma_applies(a))
        return gv_fail(err, GV_ERR_INPUT,
                       "conv3x3 (TMA): needs bf16, cin a multiple of 64, whole boards, 16-byte aligned operands and "
                       "a driver with cuTensorMapEncodeIm2col (cin %d, M %d)",
                       a->cin, a->M);
    return a->cout >= 128 ? fwd_tma_launch<128, 3>(a, splits, st, err) : fwd_tma_launch<64, 3>(a, splits, st, err);
#else
    (void)splits, (void)st;
    return gv_fail(err, GV_ERR_ENV, "the Hopper (wgmma, TMA) convolution is not built for this GPU backend (cin %d)",
                   a->cin);
#endif
}

#if GV_HAVE_MMA_BUILD
template <int BMC, int S>
static gv_status wgrad_wgmma_launch(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
    static int raised;
    const size_t smem = (size_t)S * WGW_BK * (BMC + WG_BN) * 2 + 1024;
    GV_TRY(raise_smem(&raised, smem, err, conv_wgrad_wgmma<BMC, S>));
    dim3 grid((a->cout + BMC - 1) / BMC, (9 * a->cin + WG_BN - 1) / WG_BN, splits);
    conv_wgrad_wgmma<BMC, S><<<grid, 256, smem, st>>>((const uint16_t *)a->dy, (const uint16_t *)a->x, a->ws, a->M,
                                                      a->cin, a->cout, rows_per_split);
    GV_GPU_TRY(cudaGetLastError(), err);
    return gpu_wgrad_reduce(a, splits, st, err);
}

template <int BMC, int S>
static gv_status wgrad_tma_launch(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
    static int raised;
    const size_t smem = (size_t)S * WGW_BK * (BMC + WG_BN) * 2 + 1024;
    CUtensorMap mdy, mx;
    gv_status s = raise_smem(&raised, smem, err, conv_wgrad_wgmma_tma<BMC, S>);
    if (s == GV_OK)
        s = tma_tile_map(&mdy, a->dy, a->M, a->cout, WGW_BK, err);
    if (s == GV_OK)
        s = tma_im2col_map(&mx, a->x, a->M, a->cin, WGW_BK, err);
    if (s != GV_OK)
        return s;
    dim3 grid((a->cout + BMC - 1) / BMC, (9 * a->cin + WG_BN - 1) / WG_BN, splits);
    conv_wgrad_wgmma_tma<BMC, S><<<grid, 256, smem, st>>>(mdy, mx, a->ws, a->M, a->cin, a->cout, rows_per_split);
    GV_GPU_TRY(cudaGetLastError(), err);
    return gpu_wgrad_reduce(a, splits, st, err);
}
#endif

int gpu_conv_wgrad_tma_applies(const wgrad_args *a, int rows_per_split)
{
#if GV_HAVE_MMA_BUILD
    return a->dt == GPU_BF16 && a->cin % 64 == 0 && a->cout % 64 == 0 && a->M % NN_CELLS == 0 &&
           rows_per_split % 64 == 0 && !((uintptr_t)a->x & 15) && !((uintptr_t)a->dy & 15) && tma_encoders();
#else
    (void)a, (void)rows_per_split;
    return 0;
#endif
}

gv_status gpu_conv3x3_wgrad_wgmma_tma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    if (!gpu_conv_wgrad_tma_applies(a, rows_per_split))
        return gv_fail(err, GV_ERR_INPUT,
                       "conv3x3 wgrad (TMA): needs bf16, cin and cout multiples of 64, whole boards, splits of whole "
                       "64-row steps, 16-byte aligned operands and a driver with cuTensorMapEncodeIm2col (cin %d, cout "
                       "%d, M %d)",
                       a->cin, a->cout, a->M);
    /* 3 stages of 64 rows, as the cp.async form */
    return a->cout >= 128 ? wgrad_tma_launch<128, 3>(a, rows_per_split, splits, st, err)
                          : wgrad_tma_launch<64, 3>(a, rows_per_split, splits, st, err);
#else
    (void)rows_per_split, (void)splits, (void)st;
    return gv_fail(err, GV_ERR_ENV, "the Hopper (wgmma, TMA) weight gradient is not built for this GPU backend (cin %d)",
                   a->cin);
#endif
}

gv_status gpu_conv3x3_wgrad_wgmma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    /* 3 stages of 64 rows: 97 KiB, two CTAs a multiprocessor */
    return a->cout >= 128 ? wgrad_wgmma_launch<128, 3>(a, rows_per_split, splits, st, err)
                          : wgrad_wgmma_launch<64, 3>(a, rows_per_split, splits, st, err);
#else
    (void)rows_per_split, (void)splits, (void)st;
    return gv_fail(err, GV_ERR_ENV, "the Hopper (wgmma) weight gradient is not built for this GPU backend (cin %d)",
                   a->cin);
#endif
}

gv_status gpu_conv3x3_wgrad_mma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err)
{
#if GV_HAVE_MMA_BUILD
    const int BMC = a->cout >= 128 ? 128 : 64;
    dim3 grid((a->cout + BMC - 1) / BMC, (9 * a->cin + WG_BN - 1) / WG_BN, splits);
    size_t smem = (size_t)WG_STAGES * WG_BK * (BMC + WG_BN) * 2;
    const uint16_t *DY = (const uint16_t *)a->dy, *X = (const uint16_t *)a->x;
    static int raised128, raised64;
    if (BMC == 128) {
        if (!raised128) {
            GV_GPU_TRY(cudaFuncSetAttribute(conv_wgrad_mma<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err);
            raised128 = 1;
        }
        conv_wgrad_mma<128><<<grid, 256, smem, st>>>(DY, X, a->ws, a->M, a->cin, a->cout, rows_per_split);
    } else {
        if (!raised64) {
            GV_GPU_TRY(cudaFuncSetAttribute(conv_wgrad_mma<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err);
            raised64 = 1;
        }
        conv_wgrad_mma<64><<<grid, 256, smem, st>>>(DY, X, a->ws, a->M, a->cin, a->cout, rows_per_split);
    }
    GV_GPU_TRY(cudaGetLastError(), err);
    return gpu_wgrad_reduce(a, splits, st, err);
#else
    return gv_fail(err, GV_ERR_ENV, "the bf16 tensor-core convolution is not built for this GPU backend");
#endif
}
