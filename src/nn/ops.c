/* ops.c: AdamW, the loss, the relative L2 error (see ops.h) and the batch's positions as
 * float32 (nn_batch_x_f32, nn.h), shared by the backends. */
#include "nn/ops.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "nn/nn.h"

void nn_adamw_f64(double *p, const double *g, double *m, double *v, size_t n, int64_t t, double lr)
{
    double bc1 = 1.0 - pow(NN_BETA1, (double)t), bc2 = 1.0 - pow(NN_BETA2, (double)t);
    double step_size = lr / bc1, bc2_sqrt = sqrt(bc2);
    for (size_t i = 0; i < n; i++) {
        p[i] *= 1.0 - lr * NN_WEIGHT_DECAY;
        m[i] = m[i] * NN_BETA1 + g[i] * (1.0 - NN_BETA1);
        v[i] = v[i] * NN_BETA2 + (1.0 - NN_BETA2) * g[i] * g[i];
        double denom = sqrt(v[i]) / bc2_sqrt + NN_ADAM_EPS;
        p[i] += -step_size * (m[i] / denom);
    }
}

void nn_adamw_f32(float *p, const float *g, float *m, float *v, size_t n, int64_t t, double lr, int threads)
{
    /* scalars are formed in float64 and rounded once, as PyTorch does with Python floats */
    double bc1 = 1.0 - pow(NN_BETA1, (double)t), bc2 = 1.0 - pow(NN_BETA2, (double)t);
    const float step_size = (float)(lr / bc1), bc2_sqrt = (float)sqrt(bc2);
    const float decay = (float)(1.0 - lr * NN_WEIGHT_DECAY), b1 = (float)NN_BETA1, b2 = (float)NN_BETA2;
    const float one_b1 = (float)(1.0 - NN_BETA1), one_b2 = (float)(1.0 - NN_BETA2), eps = (float)NN_ADAM_EPS;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (threads != 1 && n > 65536)
    for (size_t i = 0; i < n; i++) {
        float pi = p[i] * decay;
        float mi = m[i] * b1 + g[i] * one_b1;
        float vi = v[i] * b2 + one_b2 * g[i] * g[i];
        m[i] = mi;
        v[i] = vi;
        p[i] = pi - step_size * (mi / (sqrtf(vi) / bc2_sqrt + eps));
    }
}

/* Position i of a cells batch as its 12 planes. */
static void expand_cells(const nn_batch *b, size_t i, float *out)
{
    const uint8_t *cell = b->cells + i * NN_CELLS;
    for (int p = 0; p < 10; p++)
        for (int c = 0; c < NN_CELLS; c++)
            out[p * NN_CELLS + c] = cell[c] == p ? 1.0f : 0.0f;
    for (int c = 0; c < NN_CELLS; c++) {
        out[10 * NN_CELLS + c] = b->consts[2 * i];
        out[11 * NN_CELLS + c] = b->consts[2 * i + 1];
    }
}

void nn_batch_x_f32(const nn_batch *b, size_t first, size_t count, float *dst, int threads)
{
    const size_t per = (size_t)NN_IN_PLANES * NN_CELLS;
    /* In pieces of 28 positions (64 KiB of planes): the work is bound by memory. */
    const size_t piece = 28, pieces = (count + piece - 1) / piece;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads()) if (threads != 1 && pieces > 4)
    for (size_t k = 0; k < pieces; k++) {
        size_t i0 = first + k * piece, i1 = i0 + piece < first + count ? i0 + piece : first + count;
        float *out = dst + (i0 - first) * per;
        if (b->x32)
            memcpy(out, b->x32 + i0 * per, sizeof(float) * (i1 - i0) * per);
        else if (b->x)
            for (size_t j = i0 * per; j < i1 * per; j++)
                *out++ = (float)b->x[j];
        else
            for (size_t i = i0; i < i1; i++, out += per)
                expand_cells(b, i, out);
    }
}

double nn_loss_f64(const double *logits, const double *value, const int64_t *policy, const double *vtarget, int n,
                   int denom, double *dlogits, double *dvalue)
{
    double ce = 0, mse = 0;
    for (int i = 0; i < n; i++) {
        const double *z = logits + (size_t)i * NN_POLICY;
        double mx = z[0];
        for (int k = 1; k < NN_POLICY; k++)
            mx = z[k] > mx ? z[k] : mx;
        double se = 0;
        for (int k = 0; k < NN_POLICY; k++)
            se += exp(z[k] - mx);
        double lse = mx + log(se);
        ce += lse - z[policy[i]];
        double d = value[i] - vtarget[i];
        mse += d * d;
        if (dlogits)
            for (int k = 0; k < NN_POLICY; k++)
                dlogits[(size_t)i * NN_POLICY + k] = (exp(z[k] - lse) - (k == policy[i])) / denom;
        if (dvalue)
            dvalue[i] = 2.0 * d / denom;
    }
    return ce / denom + mse / denom;
}

double nn_rel_l2(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i]))
            return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

double nn_rel_l2_scale(const double *a, const double *b, const double *scale, size_t n)
{
    double e = nn_rel_l2(a, b, n), nb = 0, ns = 0;
    for (size_t i = 0; i < n; i++)
        nb += b[i] * b[i], ns += scale[i] * scale[i];
    return ns > nb && nb > 0 && isfinite(e) ? e * sqrt(nb / ns) : e;
}
