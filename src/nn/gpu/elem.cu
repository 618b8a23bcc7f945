/* elem.cu: the GPU trainer's small kernels: input packing, the loss and its gradient,
 * the value head's hidden layer, weight preparation, AdamW and poisoning. */
#include <math.h>

#include "nn/gpu/gpu_nn.h"

static __device__ __forceinline__ float ld1(const float *p) { return *p; }
static __device__ __forceinline__ float ld1(const gv_bf16 *p) { return gv_bf16_to_f32(*p); }
static __device__ __forceinline__ void st1(float *p, float v) { *p = v; }
static __device__ __forceinline__ void st1(gv_bf16 *p, float v) { *p = gv_f32_to_bf16(v); }

/* Sum of v over a block of 256 threads, in thread 0 (others get garbage). */
static __device__ float block_sum256(float v, float *scratch /* [8] */)
{
    v = gv_warp_sum(v);
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    __syncthreads();
    if (l == 0)
        scratch[w] = v;
    __syncthreads();
    float t = 0.f;
    if (threadIdx.x == 0)
        for (int i = 0; i < 8; i++)
            t += scratch[i];
    return t;
}

/* ---- input ---------------------------------------------------------------------------- */
template <typename T>
__global__ void pack_input(const float *__restrict__ x, T *__restrict__ out, int N)
{
    size_t total = (size_t)N * NN_CELLS * 16;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i & 15);
        size_t row = i >> 4;
        int n = (int)(row / NN_CELLS), p = (int)(row % NN_CELLS);
        st1(out + i, c < NN_IN_PLANES ? x[(size_t)n * (NN_IN_PLANES * NN_CELLS) + c * NN_CELLS + p] : 0.f);
    }
}

gv_status gpu_pack_input(const float *x, void *out, int N, gpu_dtype dt, cudaStream_t st, gv_err *err)
{
    unsigned g = gpu_blocks((size_t)N * NN_CELLS * 16, 256);
    if (dt == GPU_F32)
        pack_input<float><<<g, 256, 0, st>>>(x, (float *)out, N);
    else
        pack_input<gv_bf16><<<g, 256, 0, st>>>(x, (gv_bf16 *)out, N);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* A cells batch ((N, 2) consts, then (N, 49) plane indices: nn_batch) as (N, 12, 7, 7)
 * float32 planes, the same values nn_batch_x_f32 gives on the host. */
__global__ void expand_cells(const float *__restrict__ consts, const unsigned char *__restrict__ cells,
                             float *__restrict__ x, int N)
{
    size_t total = (size_t)N * (NN_IN_PLANES * NN_CELLS);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int n = (int)(i / (NN_IN_PLANES * NN_CELLS)), k = (int)(i % (NN_IN_PLANES * NN_CELLS));
        int p = k / NN_CELLS, c = k % NN_CELLS;
        x[i] = p < 10 ? (cells[(size_t)n * NN_CELLS + c] == p ? 1.f : 0.f) : consts[2 * (size_t)n + (p - 10)];
    }
}

gv_status gpu_expand_cells(const void *cells, float *x, int N, cudaStream_t st, gv_err *err)
{
    const float *consts = (const float *)cells;
    expand_cells<<<gpu_blocks((size_t)N * (NN_IN_PLANES * NN_CELLS), 256), 256, 0, st>>>(
        consts, (const unsigned char *)(consts + 2 * (size_t)N), x, N);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* ---- loss ----------------------------------------------------------------------------- */
template <typename T>
__global__ void __launch_bounds__(256) loss_kernel(const float *__restrict__ lraw, const float *__restrict__ vraw,
                                                   const float *__restrict__ pb, const float *__restrict__ vb,
                                                   const int *__restrict__ pt, const float *__restrict__ vt, int N,
                                                   float *__restrict__ logits, float *__restrict__ value,
                                                   double *__restrict__ acc, T *__restrict__ dlogits,
                                                   T *__restrict__ dvalue, float *__restrict__ gpb,
                                                   float *__restrict__ gvb, int fault)
{
    __shared__ float scratch[8];
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    float ce = 0.f, se = 0.f, dl[7] = {0, 0, 0, 0, 0, 0, 0}, dv = 0.f;
    const float invN = 1.0f / N;
    if (n < N) {
        float l[7], mx = -INFINITY;
        for (int j = 0; j < 7; j++) {
            l[j] = lraw[n * 7 + j] + pb[j];
            mx = fmaxf(mx, l[j]);
        }
        float s = 0.f;
        for (int j = 0; j < 7; j++)
            s += expf(l[j] - mx);
        float lse = mx + logf(s);
        int t = pt[n];
        ce = lse - l[t];
        for (int j = 0; j < 7; j++) {
            dl[j] = (expf(l[j] - lse) - (j == t ? 1.f : 0.f)) * invN;
            st1(dlogits + n * 7 + j, dl[j]);
            if (!(fault && n == 0))
                logits[n * 7 + j] = l[j];
        }
        float v = vraw[n] + vb[0];
        value[n] = v;
        float d = v - vt[n];
        se = d * d;
        dv = 2.f * d * invN;
        st1(dvalue + n, dv);
    }
    float tce = block_sum256(ce, scratch);
    float tse = block_sum256(se, scratch);
    if (threadIdx.x == 0) {
        atomicAdd(&acc[0], (double)tce);
        atomicAdd(&acc[1], (double)tse);
    }
    for (int j = 0; j < 7; j++) {
        float t = block_sum256(dl[j], scratch);
        if (threadIdx.x == 0)
            atomicAdd(&gpb[j], t);
    }
    float tv = block_sum256(dv, scratch);
    if (threadIdx.x == 0)
        atomicAdd(&gvb[0], tv);
}

gv_status gpu_loss(const float *logits_raw, const float *value_raw, const float *pb, const float *vb,
                   const int *ptarget, const float *vtarget, int N, float *logits, float *value, double *loss_acc,
                   void *dlogits, void *dvalue, float *gpb, float *gvb, gpu_dtype dt, int fault, cudaStream_t st,
                   gv_err *err)
{
    unsigned g = gpu_blocks((size_t)N, 256);
    if (dt == GPU_F32)
        loss_kernel<float><<<g, 256, 0, st>>>(logits_raw, value_raw, pb, vb, ptarget, vtarget, N, logits, value,
                                              loss_acc, (float *)dlogits, (float *)dvalue, gpb, gvb, fault);
    else
        loss_kernel<gv_bf16><<<g, 256, 0, st>>>(logits_raw, value_raw, pb, vb, ptarget, vtarget, N, logits, value,
                                                loss_acc, (gv_bf16 *)dlogits, (gv_bf16 *)dvalue, gpb, gvb, fault);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

__global__ void loss_finish(const double *acc, int N, float *out)
{
    out[0] = (float)((acc[0] + acc[1]) / N);
}

gv_status gpu_loss_finish(const double *acc, int N, float *loss_out, cudaStream_t st, gv_err *err)
{
    loss_finish<<<1, 1, 0, st>>>(acc, N, loss_out);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* ---- value head hidden layer ------------------------------------------------------------ */
template <typename T>
__global__ void bias_relu(const float *__restrict__ x, const float *__restrict__ b, T *__restrict__ y, int N, int H)
{
    size_t total = (size_t)N * H;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x)
        st1(y + i, fmaxf(x[i] + b[i % H], 0.f));
}

gv_status gpu_bias_relu(const float *x, const float *b, void *y, int N, int H, gpu_dtype dt, cudaStream_t st,
                        gv_err *err)
{
    unsigned g = gpu_blocks((size_t)N * H, 256);
    if (dt == GPU_F32)
        bias_relu<float><<<g, 256, 0, st>>>(x, b, (float *)y, N, H);
    else
        bias_relu<gv_bf16><<<g, 256, 0, st>>>(x, b, (gv_bf16 *)y, N, H);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* Thread j of a block owns column j (blockDim.x == H); the block covers 64 rows. */
template <typename T>
__global__ void value_hidden_bwd(const T *__restrict__ dv, const float *__restrict__ w, const T *__restrict__ h,
                                 T *__restrict__ dh, float *__restrict__ db, int N, int H)
{
    int j = threadIdx.x;
    int n0 = blockIdx.x * 64, n1 = min(N, n0 + 64);
    float wj = w[j], s = 0.f;
    for (int n = n0; n < n1; n++) {
        size_t o = (size_t)n * H + j;
        float g = ld1(h + o) > 0.f ? ld1(dv + n) * wj : 0.f;
        st1(dh + o, g);
        s += g;
    }
    atomicAdd(&db[j], s);
}

gv_status gpu_value_hidden_bwd(const void *dv, const float *w, const void *h, void *dh, float *db, int N, int H,
                               gpu_dtype dt, cudaStream_t st, gv_err *err)
{
    unsigned g = (unsigned)((N + 63) / 64);
    if (dt == GPU_F32)
        value_hidden_bwd<float><<<g, H, 0, st>>>((const float *)dv, w, (const float *)h, (float *)dh, db, N, H);
    else
        value_hidden_bwd<gv_bf16><<<g, H, 0, st>>>((const gv_bf16 *)dv, w, (const gv_bf16 *)h, (gv_bf16 *)dh, db, N,
                                                   H);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* ---- weights ----------------------------------------------------------------------------- */
template <typename T>
__global__ void prep_weights(const float *__restrict__ p, const prep_desc *__restrict__ descs)
{
    const prep_desc d = descs[blockIdx.y];
    T *dst = (T *)d.dst;
    size_t total;
    switch (d.kind) {
    case PREP_CONV_FWD: total = (size_t)d.cout * 9 * d.cin_pad; break;
    case PREP_CONV_DGRAD: total = (size_t)d.cin * 9 * d.cout; break;
    case PREP_HEAD_LINEAR: total = (size_t)d.cout * NN_HEAD_FLAT; break;
    default: total = (size_t)d.cout; break;
    }
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        float v;
        if (d.kind == PREP_CONV_FWD) {
            /* dst[co][t*cin_pad + ci] = W[co][ci][t], zero for padding channels */
            int k = (int)(i % (9 * d.cin_pad)), co = (int)(i / (9 * d.cin_pad));
            int t = k / d.cin_pad, ci = k % d.cin_pad;
            v = ci < d.cin ? p[d.src + ((size_t)co * d.cin + ci) * 9 + t] : 0.f;
        } else if (d.kind == PREP_CONV_DGRAD) {
            /* dst[ci][t*cout + co] = W[co][ci][8 - t]: the transposed, flipped kernel */
            int k = (int)(i % (9 * d.cout)), ci = (int)(i / (9 * d.cout));
            int t = k / d.cout, co = k % d.cout;
            v = p[d.src + ((size_t)co * d.cin + ci) * 9 + (8 - t)];
        } else if (d.kind == PREP_HEAD_LINEAR) {
            /* dst[o][pos*32 + c] = W[o][c*49 + pos] */
            int k = (int)(i % NN_HEAD_FLAT), o = (int)(i / NN_HEAD_FLAT);
            int pos = k / NN_HEAD_CH, c = k % NN_HEAD_CH;
            v = p[d.src + (size_t)o * NN_HEAD_FLAT + c * NN_CELLS + pos];
        } else {
            v = p[d.src + i];
        }
        st1(dst + i, v);
    }
}

gv_status gpu_prep_weights(const float *params, const prep_desc *descs, int n, int max_elems, gpu_dtype dt,
                           cudaStream_t st, gv_err *err)
{
    unsigned gx = gpu_blocks((size_t)max_elems, 256);
    if (gx > 256)
        gx = 256;
    dim3 grid(gx, n);
    if (dt == GPU_F32)
        prep_weights<float><<<grid, 256, 0, st>>>(params, descs);
    else
        prep_weights<gv_bf16><<<grid, 256, 0, st>>>(params, descs);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

__global__ void head_grad_unpermute(const float *__restrict__ g, float *__restrict__ out, int rows)
{
    size_t total = (size_t)rows * NN_HEAD_FLAT;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int k = (int)(i % NN_HEAD_FLAT), o = (int)(i / NN_HEAD_FLAT);
        int c = k / NN_CELLS, pos = k % NN_CELLS;
        out[i] = g[(size_t)o * NN_HEAD_FLAT + pos * NN_HEAD_CH + c];
    }
}

gv_status gpu_head_grad_unpermute(const float *g_nhwc, float *g_torch, int out, cudaStream_t st, gv_err *err)
{
    head_grad_unpermute<<<gpu_blocks((size_t)out * NN_HEAD_FLAT, 256), 256, 0, st>>>(g_nhwc, g_torch, out);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* ---- AdamW ------------------------------------------------------------------------------- */
__global__ void step_inc(int *s)
{
    s[0] += 1;
}

gv_status gpu_step_inc(int *step_dev, cudaStream_t st, gv_err *err)
{
    step_inc<<<1, 1, 0, st>>>(step_dev);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

/* PyTorch's AdamW: p *= 1 - lr*wd; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
 * p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps). */
__global__ void adamw(float *__restrict__ p, const float *__restrict__ g, float *__restrict__ m,
                      float *__restrict__ v, size_t n, const int *__restrict__ step, float lr, float b1, float b2,
                      float eps, float wd)
{
    const int t = *step;
    const float bc1 = (float)(1.0 - pow((double)b1, (double)t));
    const float bc2s = (float)sqrt(1.0 - pow((double)b2, (double)t));
    const float step_size = lr / bc1;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float gi = g[i];
        float pi = p[i] * (1.f - lr * wd);
        float mi = b1 * m[i] + (1.f - b1) * gi;
        float vi = b2 * v[i] + (1.f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = pi - step_size * mi / (sqrtf(vi) / bc2s + eps);
    }
}

gv_status gpu_adamw(float *p, const float *g, float *m, float *v, size_t n, int *step_dev, float lr, float beta1,
                    float beta2, float eps, float wd, cudaStream_t st, gv_err *err)
{
    unsigned b = gpu_blocks(n, 256);
    if (b > 4096)
        b = 4096;
    adamw<<<b, 256, 0, st>>>(p, g, m, v, n, step_dev, lr, beta1, beta2, eps, wd);
    GV_GPU_TRY(cudaGetLastError(), err);
    return GV_OK;
}

gv_status gpu_poison(void *p, size_t bytes, cudaStream_t st, gv_err *err)
{
    GV_GPU_TRY(cudaMemsetAsync(p, 0xff, bytes, st), err);
    return GV_OK;
}
