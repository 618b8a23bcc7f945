/* trainer.cu: the Drop7 network trained on the GPU (nn.h's trainer interface), in fp32
 * (true fp32; TF32 only with opts.tf32 for the BLAS GEMMs) or bf16 (bf16 activations and
 * matrix inputs, fp32 accumulation, fp32 master weights, AdamW state, norms and losses).
 *
 * Every buffer is allocated once for opts.max_batch. A training step (zero gradients,
 * forward, loss, backward, AdamW, weight preparation) is captured once per batch size
 * into a graph and replayed, so a step costs one launch. The 3x3 convolutions go through
 * cuDNN when it can be loaded (conv_cudnn.cu; GV_CUDNN below), else through this project's
 * implicit-GEMM kernels (conv_mma.cu, conv_simt.cu); the 1x1 convolutions and
 * the linear layers of the heads go through the vendor BLAS (dev/gpu_blas.h); norms are
 * fused with ReLU and the residual add (norm.cu).
 *
 * A trainer opened for inference alone (nn_trainer_opts.infer_only) allocates no activation
 * gradients, ReLU masks or data-gradient weights, and its blocks share four activation
 * buffers (the eval forward keeps nothing for a backward); it refuses the training calls. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/gpu/gpu_nn.h"
#include "nn/nn_backend.h"
#include "nn/ops.h"

typedef struct {
    int w;               /* offset of the weight in the parameter array */
    int cin, cin_pad, cout;
    void *wf;            /* forward weights (cout, 9*cin_pad), dt */
    void *wd;            /* dgrad weights (cin, 9*cout), dt (not for the stem) */
} conv_layer;

typedef struct {
    int gamma, beta;     /* parameter offsets */
    int rm, rv;          /* running stat offsets in the buffer array (BatchNorm) */
    int C;
    float *mean, *rstd;  /* saved statistics: GN (N*8), BN (C) */
    uint8_t *bits;       /* the forward's ReLU mask as bits (gpu_norm_relu_bits), or NULL: the
                          * backward reads the output instead */
} norm_layer;

enum { IGRAPHS = 16 };

typedef struct {
    const nn_layout *L;
    nn_trainer_opts o;
    gpu_dtype dt;
    size_t es;           /* bytes per activation element */
    int C, nb, bn, conv_impl, sm_count, maxn; /* conv_impl: GPU_CONV_* of the own kernels */
    cudaStream_t st;
    gpu_blas *blas;
    gpu_dnn *dnn;        /* cuDNN for the 3x3 convolutions, or NULL: the own kernels */
    int dnn_n, dnn_train; /* the batch size dnn_use was measured for (0: none), with the weight gradients */
    int dnn_need;        /* GV_CUDNN=1: cuDNN failing is an error, not a reason to run the own kernels */
    char dnn_fail[160];  /* cuDNN's last failure on a shape (then the own kernels ran it) */
    unsigned char dnn_use[4]; /* per DNN_* kind: cuDNN was faster than the own kernels */
    char conv_path[200]; /* which of them: "cudnn 9.10.2", "own mma", "own simt" (and why not cuDNN) */
    size_t bytes;        /* device memory this trainer holds */
    int io;              /* opened for inference only (opts.infer_only) */
    void *pool[4];       /* io: the activations of every block (see share_activations) */

    float *p, *g, *m, *v, *run;
    int *step_dev;
    int64_t nbt0;        /* num_batches_tracked when the state was set */
    int64_t nbt;         /* train-mode forwards since */

    conv_layer stem, *c1, *c2;
    norm_layer sn, *n1, *n2, pn, vn;
    int pc_w, vc_w, pf_w, pf_b, vf1_w, vf1_b, vf2_w, vf2_b;
    void *pc_wt, *vc_wt, *pf_wp, *vf1_wp, *vf2_wt; /* dt copies */

    /* activations, (maxn*49, C) unless noted */
    void *xin;           /* (M, 16) */
    void *stem_x, *stem_a;
    void **bx1, **ba1, **bx2, **bout;
    void *hp_x, *hp_a, *hv_x, *hv_a;  /* (M, 32) */
    float *logits_raw, *value_raw, *vh_raw, *logits, *value, *loss;
    void *vh;            /* (N, 128) */
    double *loss_acc, *bn_acc;
    /* gradients of activations */
    void *dlogits, *dvalue, *dvh, *dhp_a, *dhv_a, *dhp_x, *dhv_x;
    void *gA, *gB, *gC, *gD;
    float *gtmp;         /* (128, 1568) */
    float *wg_ws;        /* split-K partial sums of the weight gradients */
    size_t wg_ws_elems;

    /* batch */
    float *bx, *bvt;
    int *bpt;
    void *bcells;           /* a cells batch on its way in: (n, 2) consts, then (n, 49) cells */
    int n;
    /* nn_trainer_pin_batch: inference of up to pin_n positions makes the choices of a batch of
     * pin_n (0: none); ref_n, the batch size whose choices the work being enqueued makes (set
     * by each entry: pin_n for a pinned inference, else n) */
    int pin_n, ref_n, pinned;
    /* pinned host staging, allocated once: the batch on its way in (x, value targets,
     * policy targets) and the inference outputs on their way out (logits, then value) */
    float *hx, *hvt, *hout;
    int *hpt;
    int in_chunk;           /* positions converted and copied per chunk (GV_INPUT_CHUNK; 512) */

    prep_desc *descs;
    int ndesc, max_desc_elems;

    cudaGraphExec_t graph;
    int graph_n;
    float lr;               /* the learning rate enqueue_step passes to AdamW */
    float graph_lr;         /* the one captured in graph (a kernel argument) */
    /* the eval-mode forward alone (t_infer): one graph per batch size igraph_n[i], captured
     * the first time that size comes (self-play pads its batches to a few sizes, drop7_agent.c);
     * past IGRAPHS sizes the least recently used one is replaced */
    cudaGraphExec_t igraph[IGRAPHS];
    int igraph_n[IGRAPHS], igraph_cur;
    unsigned long igraph_last[IGRAPHS], igraph_clock;

    /* profiling of one eager step (nn_trainer_profile): time per kind of work */
    int prof, prof_bad; /* profiling on; an event call failed */
    double prof_ms[8];
    cudaEvent_t pe0, pe1;
} gt;

/* The kinds of 3x3 convolution, for choosing between cuDNN and the own kernels (the data
 * gradient is a trunk-shaped forward). */
enum { DNN_STEM_FWD, DNN_TRUNK_FWD, DNN_STEM_WGRAD, DNN_TRUNK_WGRAD, DNN_N };
static const char *dnn_kind[DNN_N] = {"stem forward", "trunk forward", "stem wgrad", "trunk wgrad"};

enum { P_CONV_FWD, P_CONV_DGRAD, P_WGRAD, P_NORM_FWD, P_NORM_BWD, P_GEMM, P_OTHER, P_N };
static const char *prof_names[P_N] = {"conv forward", "conv dgrad", "conv wgrad", "norm forward",
                                      "norm backward", "BLAS GEMMs", "other"};

static void prof_begin(void *sp)
{
    gt *s = (gt *)sp;
    if (s->prof && GV_GPU(cudaEventRecord(s->pe0, s->st), NULL) != GV_OK)
        s->prof_bad = 1;
}

static void prof_end(void *sp, int cat)
{
    gt *s = (gt *)sp;
    if (!s->prof)
        return;
    float ms = 0;
    if (GV_GPU(cudaEventRecord(s->pe1, s->st), NULL) != GV_OK || GV_GPU(cudaEventSynchronize(s->pe1), NULL) != GV_OK ||
        GV_GPU(cudaEventElapsedTime(&ms, s->pe0, s->pe1), NULL) != GV_OK)
        s->prof_bad = 1;
    s->prof_ms[cat] += ms;
}

#define T_(t) ((gt *)(t)->impl)

/* ---- allocation ------------------------------------------------------------------------ */
static gv_status dalloc(gt *s, void **p, size_t bytes, const char *what, gv_err *err)
{
    *p = NULL;
    if (bytes == 0)
        bytes = 16;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gv_fail(err, GV_ERR_ENV, "GPU out of memory allocating %s (%.1f MiB, %.1f MiB held already): %s", what,
                       bytes / 1048576.0, s->bytes / 1048576.0, cudaGetErrorString(e));
    }
    s->bytes += bytes;
    return GV_OK;
}

#define ALLOC(ptr, bytes, what)                                                                   \
    do {                                                                                          \
        gv_status st_ = dalloc(s, (void **)&(ptr), (bytes), (what), err);                         \
        if (st_ != GV_OK)                                                                         \
            return st_;                                                                           \
    } while (0)

static int off_of(const nn_layout *L, const char *name)
{
    const nn_tensor *t = nn_layout_find(L, name);
    return t ? (int)t->offset : -1;
}

static void norm_offsets(const nn_layout *L, norm_layer *nl, const char *name, int C)
{
    char b[96];
    snprintf(b, sizeof b, "%s.weight", name);
    nl->gamma = off_of(L, b);
    snprintf(b, sizeof b, "%s.bias", name);
    nl->beta = off_of(L, b);
    snprintf(b, sizeof b, "%s.running_mean", name);
    nl->rm = off_of(L, b);
    snprintf(b, sizeof b, "%s.running_var", name);
    nl->rv = off_of(L, b);
    nl->C = C;
}

/* Whether the norms keep their ReLU masks as bits: where the kernels can, unless
 * GV_RELU_BITS=0 (the backward then reads the forward's output, for measuring against it;
 * H100, 128 channels, bf16: the bits train 1.08x faster at batch 8192, 1.04x at 1024). */
static int relu_bits(const gt *s, int C)
{
    const char *e = getenv("GV_RELU_BITS");
    return !s->io && !(e && !strcmp(e, "0")) && gpu_norm_relu_bits(!s->bn, C, s->dt, GPU_GN_AUTO);
}

static size_t bits_bytes(const gt *s, const norm_layer *nl, size_t n)
{
    return n * NN_CELLS * nl->C * s->es / 16;
}

static gv_status alloc_norm(gt *s, norm_layer *nl, gv_err *err)
{
    size_t n = s->bn ? (size_t)nl->C : (size_t)s->maxn * 8;
    ALLOC(nl->mean, sizeof(float) * n, "norm statistics");
    ALLOC(nl->rstd, sizeof(float) * n, "norm statistics");
    nl->bits = NULL;
    if (relu_bits(s, nl->C))
        ALLOC(nl->bits, bits_bytes(s, nl, (size_t)s->maxn), "ReLU masks");
    return GV_OK;
}

static gv_status alloc_conv(gt *s, conv_layer *cl, const char *name, int cin, int cin_pad, int cout, int dgrad,
                            gv_err *err)
{
    char b[96];
    snprintf(b, sizeof b, "%s.weight", name);
    cl->w = off_of(s->L, b);
    cl->cin = cin, cl->cin_pad = cin_pad, cl->cout = cout;
    ALLOC(cl->wf, s->es * cout * 9 * cin_pad, "convolution weights");
    cl->wd = NULL;
    if (dgrad)
        ALLOC(cl->wd, s->es * cin * 9 * cout, "convolution weights");
    return GV_OK;
}

static void add_desc(prep_desc *d, int *n, int *maxe, int kind, int src, int cout, int cin, int cin_pad, void *dst)
{
    prep_desc x = {kind, src, cout, cin, cin_pad, dst};
    d[(*n)++] = x;
    int e = kind == PREP_CONV_FWD ? cout * 9 * cin_pad
          : kind == PREP_CONV_DGRAD ? cin * 9 * cout
          : kind == PREP_HEAD_LINEAR ? cout * NN_HEAD_FLAT : cout;
    if (e > *maxe)
        *maxe = e;
}

/* Inference alone: every block's activations in four buffers. A block reads its input
 * (the previous block's output) until its last norm, which writes the output beside it, so
 * the outputs alternate between two buffers and the rest is one block's scratch:
 * convolutions into pool[0], the first norm into pool[1], block b's output into
 * pool[2 + (b & 1)]; the stem's output is pool[3], block 0's input. */
static void share_activations(gt *s)
{
    s->stem_x = s->pool[0];
    s->stem_a = s->pool[3];
    for (int b = 0; b < s->nb; b++) {
        s->bx1[b] = s->bx2[b] = s->pool[0];
        s->ba1[b] = s->pool[1];
        s->bout[b] = s->pool[2 + (b & 1)];
    }
}

static gv_status setup(gt *s, gv_err *err)
{
    const nn_layout *L = s->L;
    const int C = s->C, nb = s->nb;
    const size_t M = (size_t)s->maxn * NN_CELLS, es = s->es;

    ALLOC(s->p, sizeof(float) * L->nparams, "parameters");
    ALLOC(s->g, sizeof(float) * L->nparams, "gradients");
    ALLOC(s->m, sizeof(float) * L->nparams, "AdamW state");
    ALLOC(s->v, sizeof(float) * L->nparams, "AdamW state");
    ALLOC(s->run, sizeof(float) * (L->nbuffers ? L->nbuffers : 1), "running statistics");
    ALLOC(s->step_dev, sizeof(int), "step counter");

    s->c1 = (conv_layer *)calloc((size_t)nb + 1, sizeof(conv_layer));
    s->c2 = (conv_layer *)calloc((size_t)nb + 1, sizeof(conv_layer));
    s->n1 = (norm_layer *)calloc((size_t)nb + 1, sizeof(norm_layer));
    s->n2 = (norm_layer *)calloc((size_t)nb + 1, sizeof(norm_layer));
    s->bx1 = (void **)calloc((size_t)nb + 1, sizeof(void *));
    s->ba1 = (void **)calloc((size_t)nb + 1, sizeof(void *));
    s->bx2 = (void **)calloc((size_t)nb + 1, sizeof(void *));
    s->bout = (void **)calloc((size_t)nb + 1, sizeof(void *));
    s->descs = NULL;
    if (!s->c1 || !s->c2 || !s->n1 || !s->n2 || !s->bx1 || !s->ba1 || !s->bx2 || !s->bout)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");

    gv_status st;
    if ((st = alloc_conv(s, &s->stem, "stem", NN_IN_PLANES, 16, C, 0, err)) != GV_OK)
        return st;
    norm_offsets(L, &s->sn, "sn", C);
    if ((st = alloc_norm(s, &s->sn, err)) != GV_OK)
        return st;
    for (int b = 0; b < nb; b++) {
        char name[64];
        snprintf(name, sizeof name, "blocks.%d.c1", b);
        if ((st = alloc_conv(s, &s->c1[b], name, C, C, C, !s->io, err)) != GV_OK)
            return st;
        snprintf(name, sizeof name, "blocks.%d.c2", b);
        if ((st = alloc_conv(s, &s->c2[b], name, C, C, C, !s->io, err)) != GV_OK)
            return st;
        snprintf(name, sizeof name, "blocks.%d.n1", b);
        norm_offsets(L, &s->n1[b], name, C);
        snprintf(name, sizeof name, "blocks.%d.n2", b);
        norm_offsets(L, &s->n2[b], name, C);
        if ((st = alloc_norm(s, &s->n1[b], err)) != GV_OK || (st = alloc_norm(s, &s->n2[b], err)) != GV_OK)
            return st;
    }
    norm_offsets(L, &s->pn, "pn", NN_HEAD_CH);
    norm_offsets(L, &s->vn, "vn", NN_HEAD_CH);
    if ((st = alloc_norm(s, &s->pn, err)) != GV_OK || (st = alloc_norm(s, &s->vn, err)) != GV_OK)
        return st;
    s->pc_w = off_of(L, "pc.weight");
    s->vc_w = off_of(L, "vc.weight");
    s->pf_w = off_of(L, "pf.weight");
    s->pf_b = off_of(L, "pf.bias");
    s->vf1_w = off_of(L, "vf1.weight");
    s->vf1_b = off_of(L, "vf1.bias");
    s->vf2_w = off_of(L, "vf2.weight");
    s->vf2_b = off_of(L, "vf2.bias");
    ALLOC(s->pc_wt, es * NN_HEAD_CH * C, "head weights");
    ALLOC(s->vc_wt, es * NN_HEAD_CH * C, "head weights");
    ALLOC(s->pf_wp, es * NN_POLICY * NN_HEAD_FLAT, "head weights");
    ALLOC(s->vf1_wp, es * NN_VALUE_HIDDEN * NN_HEAD_FLAT, "head weights");
    ALLOC(s->vf2_wt, es * NN_VALUE_HIDDEN, "head weights");

    /* weight preparation table */
    prep_desc d[8 + 4 * 64]; /* stem, 4 per block (blocks <= 64), 5 head tensors */
    int nd = 0, maxe = 0;
    add_desc(d, &nd, &maxe, PREP_CONV_FWD, s->stem.w, C, NN_IN_PLANES, 16, s->stem.wf);
    for (int b = 0; b < nb; b++) {
        conv_layer *cl[2] = {&s->c1[b], &s->c2[b]};
        for (int k = 0; k < 2; k++) {
            add_desc(d, &nd, &maxe, PREP_CONV_FWD, cl[k]->w, C, C, C, cl[k]->wf);
            if (cl[k]->wd)
                add_desc(d, &nd, &maxe, PREP_CONV_DGRAD, cl[k]->w, C, C, C, cl[k]->wd);
        }
    }
    add_desc(d, &nd, &maxe, PREP_PLAIN, s->pc_w, NN_HEAD_CH * C, 1, 1, s->pc_wt);
    add_desc(d, &nd, &maxe, PREP_PLAIN, s->vc_w, NN_HEAD_CH * C, 1, 1, s->vc_wt);
    add_desc(d, &nd, &maxe, PREP_HEAD_LINEAR, s->pf_w, NN_POLICY, NN_HEAD_FLAT, NN_HEAD_FLAT, s->pf_wp);
    add_desc(d, &nd, &maxe, PREP_HEAD_LINEAR, s->vf1_w, NN_VALUE_HIDDEN, NN_HEAD_FLAT, NN_HEAD_FLAT, s->vf1_wp);
    add_desc(d, &nd, &maxe, PREP_PLAIN, s->vf2_w, NN_VALUE_HIDDEN, 1, 1, s->vf2_wt);
    ALLOC(s->descs, sizeof(prep_desc) * nd, "weight table");
    GV_GPU_TRY(cudaMemcpy(s->descs, d, sizeof(prep_desc) * nd, cudaMemcpyHostToDevice), err);
    s->ndesc = nd;
    s->max_desc_elems = maxe;

    /* activations */
    ALLOC(s->xin, es * M * 16, "activations");
    if (s->io) {
        for (int k = 0; k < 4; k++)
            ALLOC(s->pool[k], es * M * C, "activations");
        share_activations(s);
    } else {
        ALLOC(s->stem_x, es * M * C, "activations");
        ALLOC(s->stem_a, es * M * C, "activations");
        for (int b = 0; b < nb; b++) {
            ALLOC(s->bx1[b], es * M * C, "activations");
            ALLOC(s->ba1[b], es * M * C, "activations");
            ALLOC(s->bx2[b], es * M * C, "activations");
            ALLOC(s->bout[b], es * M * C, "activations");
        }
    }
    ALLOC(s->hp_x, es * M * NN_HEAD_CH, "activations");
    ALLOC(s->hp_a, es * M * NN_HEAD_CH, "activations");
    ALLOC(s->hv_x, es * M * NN_HEAD_CH, "activations");
    ALLOC(s->hv_a, es * M * NN_HEAD_CH, "activations");
    const size_t N = (size_t)s->maxn;
    ALLOC(s->logits_raw, sizeof(float) * N * NN_POLICY, "head outputs");
    ALLOC(s->value_raw, sizeof(float) * N, "head outputs");
    ALLOC(s->vh_raw, sizeof(float) * N * NN_VALUE_HIDDEN, "head outputs");
    ALLOC(s->logits, sizeof(float) * N * NN_POLICY, "head outputs");
    ALLOC(s->value, sizeof(float) * N, "head outputs");
    ALLOC(s->loss, sizeof(float), "loss");
    ALLOC(s->vh, es * N * NN_VALUE_HIDDEN, "head outputs");
    ALLOC(s->loss_acc, sizeof(double) * 2, "loss");
    ALLOC(s->bn_acc, sizeof(double) * GPU_BN_SCRATCH(C > NN_HEAD_CH ? C : NN_HEAD_CH), "BatchNorm sums");
    /* the loss kernel writes the outputs' gradients in eval mode too */
    ALLOC(s->dlogits, es * N * NN_POLICY, "gradients");
    ALLOC(s->dvalue, es * N, "gradients");
    if (!s->io) {
        ALLOC(s->dvh, es * N * NN_VALUE_HIDDEN, "gradients");
        ALLOC(s->dhp_a, es * M * NN_HEAD_CH, "gradients");
        ALLOC(s->dhv_a, es * M * NN_HEAD_CH, "gradients");
        ALLOC(s->dhp_x, es * M * NN_HEAD_CH, "gradients");
        ALLOC(s->dhv_x, es * M * NN_HEAD_CH, "gradients");
        ALLOC(s->gA, es * M * C, "gradients");
        ALLOC(s->gB, es * M * C, "gradients");
        ALLOC(s->gC, es * M * C, "gradients");
        ALLOC(s->gD, es * M * C, "gradients");
        ALLOC(s->gtmp, sizeof(float) * NN_VALUE_HIDDEN * NN_HEAD_FLAT, "gradients");
    }
    /* Room for up to 64 split-K partials of the largest convolution, at most 64 MiB
     * (fewer splits are used when it is smaller). */
    {
        size_t one = (size_t)C * 9 * C, cap = (size_t)16 << 20;
        s->wg_ws_elems = 64 * one < cap ? 64 * one : (one * 4 > cap ? one * 4 : cap);
        ALLOC(s->wg_ws, sizeof(float) * s->wg_ws_elems, "weight-gradient workspace");
    }
    {
        /* tuning: samples per chunk of the positions' way in (set_batch) */
        const char *ic = getenv("GV_INPUT_CHUNK");
        const int chunk = ic ? atoi(ic) : 0;
        s->in_chunk = chunk > 0 ? chunk : 512;
        cudaError_t e = cudaMallocHost((void **)&s->hx, sizeof(float) * N * NN_IN_PLANES * NN_CELLS);
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&s->hvt, sizeof(float) * N);
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&s->hpt, sizeof(int) * N);
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&s->hout, sizeof(float) * N * (NN_POLICY + 1));
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return gv_fail(err, GV_ERR_ENV, "allocating pinned host memory for the batch: %s", cudaGetErrorString(e));
        }
    }
    ALLOC(s->bx, sizeof(float) * N * NN_IN_PLANES * NN_CELLS, "batch");
    ALLOC(s->bcells, (sizeof(float) * 2 + NN_CELLS) * N, "batch");
    ALLOC(s->bvt, sizeof(float) * N, "batch");
    ALLOC(s->bpt, sizeof(int) * N, "batch");
    return GV_OK;
}

/* ---- the network, enqueued on the stream --------------------------------------------------- */
static conv_args conv_args_of(gt *s, const void *x, const void *w, void *y, const void *res, int cin, int cout)
{
    /* split-K at small batches through the weight-gradient workspace (the stream runs one
     * kernel at a time, and a weight gradient reduces its partials before the next call);
     * GV_CONV_SPLITK=0 turns it off, for measuring */
    static int splitk = -1;
    if (splitk < 0) {
        const char *e = getenv("GV_CONV_SPLITK");
        splitk = !(e && e[0] == '0');
    }
    conv_args a = {x, w, y, res, s->n * NN_CELLS, cin, cout, s->dt, s->o.fault, splitk ? s->wg_ws : NULL,
                   s->wg_ws_elems, s->sm_count, 0};
    if (s->pinned) {
        /* One split for every batch size up to ref_n: the one a quarter of ref_n gets (the
         * sizes self-play pads to lie around it; the largest batch gains from it too, its
         * unsplit tiles falling short of a wave), at most what the workspace holds for
         * ref_n; GV_PIN_SPLITS=k: k, for measuring. */
        static int pin_splits = -1;
        if (pin_splits < 0) {
            const char *e = getenv("GV_PIN_SPLITS");
            pin_splits = e && atoi(e) > 0 ? atoi(e) : 0;
        }
        conv_args r = a;
        r.M = (s->ref_n / 4 > 0 ? s->ref_n / 4 : 1) * NN_CELLS;
        r.splits = pin_splits;
        int k = gpu_conv_fwd_splits(&r);
        const size_t most = a.ws ? a.ws_elems / ((size_t)s->ref_n * NN_CELLS * cout) : 1;
        a.splits = (size_t)k > most ? (int)most : k;
        if (a.splits < 1)
            a.splits = 1;
    }
    return a;
}

static wgrad_args wgrad_args_of(gt *s, const conv_layer *cl, const void *dy, const void *x)
{
    wgrad_args a = {dy, x, s->g + cl->w, s->wg_ws, s->wg_ws_elems, s->n * NN_CELLS, cl->cin_pad, cl->cout, cl->cin,
                    s->dt, 0, s->sm_count};
    return a;
}

/* The own kernels for the device: wgmma on an sm_90 device when the binary holds them, unless
 * GV_WGMMA=0 (mma.sync, for measuring against it), with the operands of the trunk's
 * convolutions loaded by TMA unless GV_TMA=0 (the cp.async gathers; on an H100 TMA trains
 * 1.06x-1.32x faster on the own kernels: bench/results/2026-12-06-h100-tma-wgrad);
 * mma.sync on sm_80+; SIMT. */
static int own_conv_impl(const cudaDeviceProp *p, int device)
{
    if (!GV_HAVE_MMA_BUILD || p->major < 8)
        return GPU_CONV_SIMT;
    const char *e = getenv("GV_WGMMA"), *t = getenv("GV_TMA");
    if ((e && !strcmp(e, "0")) || !gpu_conv_wgmma_built(device))
        return GPU_CONV_MMA;
    return t && !strcmp(t, "0") ? GPU_CONV_WGMMA : GPU_CONV_WGMMA_TMA;
}

/* The own kernels' name for the records: "simt", "mma", "wgmma", "wgmma-tma". */
static const char *own_name(const gt *s)
{
    static const char *name[] = {"simt", "mma", "wgmma", "wgmma-tma"};
    return name[s->dt == GPU_BF16 ? s->conv_impl : GPU_CONV_SIMT];
}

/* One convolution by cuDNN (dnn) or by the own kernels. */
static gv_status fwd_by(gt *s, int dnn, const conv_args *a, gv_err *err)
{
    return dnn ? gpu_dnn_fwd(s->dnn, a, s->o.tf32, s->st, err) : gpu_conv3x3_fwd(a, s->conv_impl, s->st, err);
}

static gv_status wgrad_by(gt *s, int dnn, const wgrad_args *a, gv_err *err)
{
    return dnn ? gpu_dnn_wgrad(s->dnn, a, s->o.tf32, s->st, err) : gpu_conv3x3_wgrad(a, s->conv_impl, s->st, err);
}

/* Whether cuDNN runs convolution kind k (DNN_*) at the current batch size (ref_n's choice):
 * as dnn_prepare measured it, or, for a batch size it has not measured, always. */
static int dnn_runs(const gt *s, int k)
{
    return s->dnn && (s->dnn_n != s->ref_n || s->dnn_use[k]);
}

/* The batch size whose choices an entry's work makes: pin_n for an inference (eval-mode
 * forward) of at most pin_n positions, else the batch's own. */
static void choose_for(gt *s, int infer)
{
    s->pinned = infer && s->pin_n && s->n <= s->pin_n;
    s->ref_n = s->pinned ? s->pin_n : s->n;
}

static gv_status conv(gt *s, const conv_layer *cl, const void *x, const void *w, void *y, const void *res, int cin,
                      int cout, gv_err *err)
{
    conv_args a = conv_args_of(s, x, w, y, res, cin, cout);
    const int dnn = dnn_runs(s, cl == &s->stem ? DNN_STEM_FWD : DNN_TRUNK_FWD);
    if (dnn) /* cuDNN's kernel is chosen inside by the rows: a pinned batch runs ref_n of them
              * (the rows past n are left-overs; each position's rows are computed alone) */
        a.M = s->ref_n * NN_CELLS;
    prof_begin(s);
    gv_status r = fwd_by(s, dnn, &a, err);
    prof_end(s, w == cl->wd ? P_CONV_DGRAD : P_CONV_FWD);
    return r;
}

static gv_status wgrad(gt *s, const conv_layer *cl, const void *dy, const void *x, gv_err *err)
{
    wgrad_args a = wgrad_args_of(s, cl, dy, x);
    prof_begin(s);
    gv_status r = wgrad_by(s, dnn_runs(s, cl == &s->stem ? DNN_STEM_WGRAD : DNN_TRUNK_WGRAD), &a, err);
    prof_end(s, P_WGRAD);
    return r;
}

static gv_status norm_f(gt *s, norm_layer *nl, const void *x, const void *res, void *y, int train, gv_err *err)
{
    /* group, N, C, x, res, y, relu, gamma, beta, mean, rstd, train, run_mean, run_var, acc, dt, fault */
    norm_fwd_args a = {!s->bn, s->n, nl->C, x, res, y, 1, s->p + nl->gamma, s->p + nl->beta, nl->mean, nl->rstd, train,
                       s->bn ? s->run + nl->rm : NULL, s->bn ? s->run + nl->rv : NULL, s->bn_acc, s->dt, 0};
    a.bits = train ? nl->bits : NULL; /* only a training forward has a backward */
    prof_begin(s);
    gv_status r = gpu_norm_fwd(&a, s->st, err);
    prof_end(s, P_NORM_FWD);
    return r;
}

static gv_status norm_b(gt *s, norm_layer *nl, const void *x, const void *out, const void *dout, void *dx,
                        void *dres, gv_err *err)
{
    /* group, N, C, x, out, dout, dx, dres, gamma, mean, rstd, dgamma, dbeta, acc, sm_count, dt */
    norm_bwd_args a = {!s->bn, s->n, nl->C, x, nl->bits ? NULL : out, dout, dx, dres, s->p + nl->gamma, nl->mean,
                       nl->rstd, s->g + nl->gamma, s->g + nl->beta, s->bn_acc, s->sm_count, s->dt};
    a.bits = nl->bits;
    prof_begin(s);
    gv_status r = gpu_norm_bwd(&a, s->st, err);
    prof_end(s, P_NORM_BWD);
    return r;
}

static gv_status gemm(gt *s, int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda, const void *B,
                      int ldb, float beta, void *C, int ldc, gpu_dtype ct, gv_err *err)
{
    prof_begin(s);
    gv_status r = gpu_blas_gemm(s->blas, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, s->dt, ct, s->o.tf32, err);
    prof_end(s, P_GEMM);
    return r;
}


static const void *trunk_out(gt *s)
{
    return s->nb ? s->bout[s->nb - 1] : s->stem_a;
}

static gv_status enqueue_forward(gt *s, int train, gv_err *err)
{
    const int C = s->C, n = s->n, F = NN_HEAD_FLAT; /* F: a head's flattened size */
    /* The heads' GEMMs run ref_n rows: the BLAS library chooses its kernels by the rows (a
     * pinned inference's rows past n are left-overs, each row computed alone). */
    const int hn = s->ref_n, hM = hn * NN_CELLS;
    const gpu_dtype dt = s->dt;
    /* The injected fault (a test hook) skips writes in the first block's first convolution. */
    GV_TRY(gpu_pack_input(s->bx, s->xin, n, dt, s->st, err));
    GV_TRY(conv(s, &s->stem, s->xin, s->stem.wf, s->stem_x, NULL, 16, C, err));
    GV_TRY(norm_f(s, &s->sn, s->stem_x, NULL, s->stem_a, train, err));
    const void *cur = s->stem_a;
    for (int b = 0; b < s->nb; b++) {
        GV_TRY(conv(s, &s->c1[b], cur, s->c1[b].wf, s->bx1[b], NULL, C, C, err));
        GV_TRY(norm_f(s, &s->n1[b], s->bx1[b], NULL, s->ba1[b], train, err));
        GV_TRY(conv(s, &s->c2[b], s->ba1[b], s->c2[b].wf, s->bx2[b], NULL, C, C, err));
        GV_TRY(norm_f(s, &s->n2[b], s->bx2[b], cur, s->bout[b], train, err));
        cur = s->bout[b];
    }
    /* policy head: 1x1 conv (M,C)x(C,32), norm, ReLU, linear (n,1568)x(1568,7) */
    GV_TRY(gemm(s, 0, 1, hM, NN_HEAD_CH, C, 1.f, cur, C, s->pc_wt, C, 0.f, s->hp_x, NN_HEAD_CH, dt, err));
    GV_TRY(norm_f(s, &s->pn, s->hp_x, NULL, s->hp_a, train, err));
    GV_TRY(gemm(s, 0, 1, hn, NN_POLICY, F, 1.f, s->hp_a, F, s->pf_wp, F, 0.f, s->logits_raw, NN_POLICY, GPU_F32, err));
    /* value head: 1x1 conv, norm, ReLU, linear 1568->128, ReLU, linear 128->1 */
    GV_TRY(gemm(s, 0, 1, hM, NN_HEAD_CH, C, 1.f, cur, C, s->vc_wt, C, 0.f, s->hv_x, NN_HEAD_CH, dt, err));
    GV_TRY(norm_f(s, &s->vn, s->hv_x, NULL, s->hv_a, train, err));
    GV_TRY(gemm(s, 0, 1, hn, NN_VALUE_HIDDEN, F, 1.f, s->hv_a, F, s->vf1_wp, F, 0.f, s->vh_raw, NN_VALUE_HIDDEN, GPU_F32,
                err));
    GV_TRY(gpu_bias_relu(s->vh_raw, s->p + s->vf1_b, s->vh, n, NN_VALUE_HIDDEN, dt, s->st, err));
    GV_TRY(gemm(s, 0, 1, hn, 1, NN_VALUE_HIDDEN, 1.f, s->vh, NN_VALUE_HIDDEN, s->vf2_wt, NN_VALUE_HIDDEN, 0.f,
             s->value_raw, 1, GPU_F32, err));
    GV_GPU_TRY(cudaMemsetAsync(s->loss_acc, 0, sizeof(double) * 2, s->st), err);
    GV_TRY(gpu_loss(s->logits_raw, s->value_raw, s->p + s->pf_b, s->p + s->vf2_b, s->bpt, s->bvt, n, s->logits,
                 s->value, s->loss_acc, s->dlogits, s->dvalue, s->g + s->pf_b, s->g + s->vf2_b, dt, s->o.fault,
                 s->st, err));
    GV_TRY(gpu_loss_finish(s->loss_acc, n, s->loss, s->st, err));
    return GV_OK;
}

/* Backward of everything after the loss; s->g must have been zeroed before the forward
 * (the loss kernel adds the output biases' gradients). */
static gv_status enqueue_backward(gt *s, gv_err *err)
{
    const int C = s->C, n = s->n, M = n * NN_CELLS, F = NN_HEAD_FLAT; /* F: a head's flattened size */
    const gpu_dtype dt = s->dt;
    const void *trunk = trunk_out(s);
    /* value head */
    GV_TRY(gemm(s, 1, 0, 1, NN_VALUE_HIDDEN, n, 1.f, s->dvalue, 1, s->vh, NN_VALUE_HIDDEN, 0.f, s->g + s->vf2_w,
             NN_VALUE_HIDDEN, GPU_F32, err));
    GV_TRY(gpu_value_hidden_bwd(s->dvalue, s->p + s->vf2_w, s->vh, s->dvh, s->g + s->vf1_b, n, NN_VALUE_HIDDEN, dt,
                             s->st, err));
    GV_TRY(gemm(s, 1, 0, NN_VALUE_HIDDEN, F, n, 1.f, s->dvh, NN_VALUE_HIDDEN, s->hv_a, F, 0.f, s->gtmp, F, GPU_F32,
                err));
    GV_TRY(gpu_head_grad_unpermute(s->gtmp, s->g + s->vf1_w, NN_VALUE_HIDDEN, s->st, err));
    GV_TRY(gemm(s, 0, 0, n, F, NN_VALUE_HIDDEN, 1.f, s->dvh, NN_VALUE_HIDDEN, s->vf1_wp, F, 0.f, s->dhv_a, F, dt, err));
    GV_TRY(norm_b(s, &s->vn, s->hv_x, s->hv_a, s->dhv_a, s->dhv_x, NULL, err));
    /* policy head */
    GV_TRY(gemm(s, 1, 0, NN_POLICY, F, n, 1.f, s->dlogits, NN_POLICY, s->hp_a, F, 0.f, s->gtmp, F, GPU_F32, err));
    GV_TRY(gpu_head_grad_unpermute(s->gtmp, s->g + s->pf_w, NN_POLICY, s->st, err));
    GV_TRY(gemm(s, 0, 0, n, F, NN_POLICY, 1.f, s->dlogits, NN_POLICY, s->pf_wp, F, 0.f, s->dhp_a, F, dt, err));
    GV_TRY(norm_b(s, &s->pn, s->hp_x, s->hp_a, s->dhp_a, s->dhp_x, NULL, err));
    /* 1x1 convolutions: weight gradients and the trunk's output gradient (both heads) */
    GV_TRY(gemm(s, 1, 0, NN_HEAD_CH, C, M, 1.f, s->dhp_x, NN_HEAD_CH, trunk, C, 0.f, s->g + s->pc_w, C, GPU_F32, err));
    GV_TRY(gemm(s, 1, 0, NN_HEAD_CH, C, M, 1.f, s->dhv_x, NN_HEAD_CH, trunk, C, 0.f, s->g + s->vc_w, C, GPU_F32, err));
    GV_TRY(gemm(s, 0, 0, M, C, NN_HEAD_CH, 1.f, s->dhp_x, NN_HEAD_CH, s->pc_wt, C, 0.f, s->gA, C, dt, err));
    GV_TRY(gemm(s, 0, 0, M, C, NN_HEAD_CH, 1.f, s->dhv_x, NN_HEAD_CH, s->vc_wt, C, 1.f, s->gA, C, dt, err));
    /* residual blocks, last to first; gA holds the gradient w.r.t. the block's output */
    for (int b = s->nb - 1; b >= 0; b--) {
        const void *in = b ? s->bout[b - 1] : s->stem_a;
        GV_TRY(norm_b(s, &s->n2[b], s->bx2[b], s->bout[b], s->gA, s->gB, s->gC, err));
        GV_TRY(wgrad(s, &s->c2[b], s->gB, s->ba1[b], err));
        GV_TRY(conv(s, &s->c2[b], s->gB, s->c2[b].wd, s->gD, NULL, C, C, err));
        GV_TRY(norm_b(s, &s->n1[b], s->bx1[b], s->ba1[b], s->gD, s->gB, NULL, err));
        GV_TRY(wgrad(s, &s->c1[b], s->gB, in, err));
        GV_TRY(conv(s, &s->c1[b], s->gB, s->c1[b].wd, s->gA, s->gC, C, C, err));
    }
    GV_TRY(norm_b(s, &s->sn, s->stem_x, s->stem_a, s->gA, s->gB, NULL, err));
    GV_TRY(wgrad(s, &s->stem, s->gB, s->xin, err));
    return GV_OK;
}

static gv_status enqueue_prep(gt *s, gv_err *err)
{
    return gpu_prep_weights(s->p, s->descs, s->ndesc, s->max_desc_elems, s->dt, s->st, err);
}

static gv_status enqueue_step(gt *s, gv_err *err)
{
    GV_GPU_TRY(cudaMemsetAsync(s->g, 0, sizeof(float) * s->L->nparams, s->st), err);
    GV_TRY(enqueue_forward(s, 1, err));
    GV_TRY(enqueue_backward(s, err));
    GV_TRY(gpu_step_inc(s->step_dev, s->st, err));
    GV_TRY(gpu_adamw(s->p, s->g, s->m, s->v, s->L->nparams, s->step_dev, s->lr, (float)NN_BETA1, (float)NN_BETA2,
                  (float)NN_ADAM_EPS, (float)NN_WEIGHT_DECAY, s->st, err));
    GV_TRY(enqueue_prep(s, err));
    return GV_OK;
}

static gv_status poison(gt *s, void *p, size_t bytes, gv_err *err)
{
    return p ? gpu_poison(p, bytes, s->st, err) : GV_OK; /* (a buffer this trainer lacks: no bit masks, or
                                                            * inference alone) */
}

/* Poisons every activation and activation-gradient buffer for the current batch, so that an
 * element a kernel fails to write is NaN and cannot pass a comparison. */
static gv_status poison_all(gt *s, gv_err *err)
{
    const size_t M = (size_t)s->n * NN_CELLS, C = (size_t)s->C, es = s->es, n = (size_t)s->n;
    void *big[] = {s->stem_x, s->stem_a, s->gA, s->gB, s->gC, s->gD};
    for (size_t i = 0; i < GV_ARRAY_LEN(big); i++)
        GV_TRY(poison(s, big[i], es * M * C, err));
    norm_layer *lone[] = {&s->sn, &s->pn, &s->vn}; /* the stem's and the heads' norms */
    for (size_t i = 0; i < GV_ARRAY_LEN(lone); i++)
        GV_TRY(poison(s, lone[i]->bits, bits_bytes(s, lone[i], n), err));
    for (int b = 0; b < s->nb; b++) {
        GV_TRY(poison(s, s->n1[b].bits, bits_bytes(s, &s->n1[b], n), err));
        GV_TRY(poison(s, s->n2[b].bits, bits_bytes(s, &s->n2[b], n), err));
        GV_TRY(poison(s, s->bx1[b], es * M * C, err));
        GV_TRY(poison(s, s->ba1[b], es * M * C, err));
        GV_TRY(poison(s, s->bx2[b], es * M * C, err));
        GV_TRY(poison(s, s->bout[b], es * M * C, err));
    }
    void *head[] = {s->hp_x, s->hp_a, s->hv_x, s->hv_a, s->dhp_a, s->dhv_a, s->dhp_x, s->dhv_x};
    for (size_t i = 0; i < GV_ARRAY_LEN(head); i++)
        GV_TRY(poison(s, head[i], es * M * NN_HEAD_CH, err));
    GV_TRY(poison(s, s->xin, es * M * 16, err));
    GV_TRY(poison(s, s->logits_raw, sizeof(float) * n * NN_POLICY, err));
    GV_TRY(poison(s, s->logits, sizeof(float) * n * NN_POLICY, err));
    GV_TRY(poison(s, s->value_raw, sizeof(float) * n, err));
    GV_TRY(poison(s, s->value, sizeof(float) * n, err));
    GV_TRY(poison(s, s->vh_raw, sizeof(float) * n * NN_VALUE_HIDDEN, err));
    GV_TRY(poison(s, s->vh, es * n * NN_VALUE_HIDDEN, err));
    GV_TRY(poison(s, s->dvh, es * n * NN_VALUE_HIDDEN, err));
    GV_TRY(poison(s, s->dlogits, es * n * NN_POLICY, err));
    GV_TRY(poison(s, s->dvalue, es * n, err));
    GV_TRY(poison(s, s->loss, sizeof(float), err));
    return GV_OK;
}

/* ---- the trainer interface ------------------------------------------------------------------- */
static gv_status sync(gt *s, gv_err *err)
{
    GV_GPU_TRY(cudaStreamSynchronize(s->st), err);
    return GV_OK;
}

static gv_status download_floats(gt *s, double *dst, const float *src, size_t n, gv_err *err)
{
    float *tmp = (float *)malloc(sizeof(float) * (n ? n : 1));
    if (!tmp)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");
    cudaError_t e = cudaMemcpyAsync(tmp, src, sizeof(float) * n, cudaMemcpyDeviceToHost, s->st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->st);
    if (e != cudaSuccess) {
        free(tmp);
        return gv_fail(err, GV_ERR_ENV, "copying results from the GPU: %s", cudaGetErrorString(e));
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = tmp[i];
    free(tmp);
    return GV_OK;
}

static gv_status upload_floats(gt *s, float *dst, const double *src, size_t n, gv_err *err)
{
    float *tmp = (float *)malloc(sizeof(float) * (n ? n : 1));
    if (!tmp)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");
    for (size_t i = 0; i < n; i++)
        tmp[i] = (float)src[i];
    cudaError_t e = cudaMemcpyAsync(dst, tmp, sizeof(float) * n, cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->st);
    free(tmp);
    if (e != cudaSuccess)
        return gv_fail(err, GV_ERR_ENV, "copying to the GPU: %s", cudaGetErrorString(e));
    return GV_OK;
}

static gv_status t_set_state(nn_trainer *t, const nn_state *st, gv_err *err)
{
    gt *s = T_(t);
    const nn_layout *L = s->L;
    GV_TRY(upload_floats(s, s->p, st->params, L->nparams, err));
    GV_TRY(upload_floats(s, s->m, st->adam_m, L->nparams, err));
    GV_TRY(upload_floats(s, s->v, st->adam_v, L->nparams, err));
    if (L->nbuffers)
        GV_TRY(upload_floats(s, s->run, st->buffers, L->nbuffers, err));
    int step = (int)st->adam_step;
    GV_GPU_TRY(cudaMemcpy(s->step_dev, &step, sizeof step, cudaMemcpyHostToDevice), err);
    s->nbt0 = L->nbn ? st->num_batches[0] : 0;
    s->nbt = 0;
    GV_TRY(enqueue_prep(s, err));
    return sync(s, err);
}

static gv_status t_get_state(nn_trainer *t, nn_state *st, gv_err *err)
{
    gt *s = T_(t);
    const nn_layout *L = s->L;
    GV_TRY(download_floats(s, st->params, s->p, L->nparams, err));
    GV_TRY(download_floats(s, st->adam_m, s->m, L->nparams, err));
    GV_TRY(download_floats(s, st->adam_v, s->v, L->nparams, err));
    if (L->nbuffers)
        GV_TRY(download_floats(s, st->buffers, s->run, L->nbuffers, err));
    int step = 0;
    GV_GPU_TRY(cudaMemcpy(&step, s->step_dev, sizeof step, cudaMemcpyDeviceToHost), err);
    st->adam_step = step;
    for (int i = 0; i < L->nbn; i++)
        st->num_batches[i] = s->nbt0 + s->nbt;
    return GV_OK;
}

static gv_status t_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(nn_batch_check(b, s->maxn, t->ops->name, err));
    /* the staging buffers may still feed the previous batch's copies */
    GV_TRY(sync(s, err));
    float *x = s->hx, *vt = s->hvt;
    int *pt = s->hpt;
    for (int i = 0; i < b->n; i++) {
        vt[i] = (float)b->value[i];
        pt[i] = (int)b->policy[i];
    }
    const size_t per = (size_t)NN_IN_PLANES * NN_CELLS, chunk = (size_t)s->in_chunk;
    cudaError_t e = cudaSuccess;
    if (b->cells) {
        /* 57 bytes a position through the staging buffer, expanded into planes on the device */
        const size_t nc = sizeof(float) * 2 * (size_t)b->n, len = nc + (size_t)NN_CELLS * b->n;
        memcpy(x, b->consts, nc);
        memcpy((uint8_t *)x + nc, b->cells, (size_t)NN_CELLS * b->n);
        e = cudaMemcpyAsync(s->bcells, x, len, cudaMemcpyHostToDevice, s->st);
        if (e == cudaSuccess)
            GV_TRY(gpu_expand_cells(s->bcells, s->bx, b->n, s->st, err));
    }
    /* Planes in chunks (threaded, into the pinned staging buffer: float32 copied or float64
     * converted): each chunk's copy to the device runs while the next is staged. */
    for (size_t i0 = 0; !b->cells && i0 < (size_t)b->n && e == cudaSuccess; i0 += chunk) {
        size_t cn = (size_t)b->n - i0 < chunk ? (size_t)b->n - i0 : chunk;
        nn_batch_x_f32(b, i0, cn, x + i0 * per, 0);
        e = cudaMemcpyAsync(s->bx + i0 * per, x + i0 * per, sizeof(float) * cn * per, cudaMemcpyHostToDevice, s->st);
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(s->bvt, vt, sizeof(float) * b->n, cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(s->bpt, pt, sizeof(int) * b->n, cudaMemcpyHostToDevice, s->st);
    if (e != cudaSuccess)
        return gv_fail(err, GV_ERR_ENV, "copying the batch to the GPU: %s", cudaGetErrorString(e));
    s->n = b->n;
    return GV_OK;
}

static gv_status need_batch(gt *s, gv_err *err)
{
    return s->n > 0 ? GV_OK : gv_fail(err, GV_ERR_INPUT, "no batch set on the GPU trainer");
}

/* The training calls (what: their name) need a trainer not opened for inference alone, and
 * a batch. */
static gv_status need_training(nn_trainer *t, const char *what, gv_err *err)
{
    if (T_(t)->io)
        return nn_refuse_training(t->ops->name, what, err);
    return need_batch(T_(t), err);
}

static gv_status dnn_prepare(gt *s, int train, gv_err *err);

static gv_status t_forward(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(train ? need_training(t, "a train-mode forward", err) : need_batch(s, err));
    choose_for(s, !train);
    GV_TRY(dnn_prepare(s, 0, err)); /* before the poison: it writes some outputs */
    GV_TRY(poison_all(s, err));
    /* The bias gradients that the loss kernel accumulates land in g; clear it. */
    GV_GPU_TRY(cudaMemsetAsync(s->g, 0, sizeof(float) * s->L->nparams, s->st), err);
    GV_TRY(enqueue_forward(s, train, err));
    GV_TRY(sync(s, err));
    if (train)
        s->nbt++;
    if (logits)
        GV_TRY(download_floats(s, logits, s->logits, (size_t)s->n * NN_POLICY, err));
    if (value)
        GV_TRY(download_floats(s, value, s->value, (size_t)s->n, err));
    if (loss)
        GV_TRY(download_floats(s, loss, s->loss, 1, err));
    return GV_OK;
}

static gv_status t_gradients(nn_trainer *t, double *grads, double *loss, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(need_training(t, "gradients", err));
    choose_for(s, 0);
    GV_TRY(dnn_prepare(s, 1, err));
    GV_TRY(poison_all(s, err));
    GV_GPU_TRY(cudaMemsetAsync(s->g, 0, sizeof(float) * s->L->nparams, s->st), err);
    GV_TRY(enqueue_forward(s, 1, err));
    GV_TRY(enqueue_backward(s, err));
    GV_TRY(sync(s, err));
    s->nbt++;
    if (grads)
        GV_TRY(download_floats(s, grads, s->g, s->L->nparams, err));
    if (loss)
        GV_TRY(download_floats(s, loss, s->loss, 1, err));
    return GV_OK;
}

/* The time of one run of a convolution (forward a, or weight gradient w) in ms: the best of
 * three timings of TIME_RUNS runs back to back (after one run more), with events on the
 * stream. Runs queued behind each other hide the host's part of a call (cuDNN's is tens of
 * microseconds), which a captured graph does not pay: timed one at a time from an idle GPU,
 * a 0.21 ms cuDNN forward once measured above a 0.24 ms own one, and the pick ran the
 * slower kernel in every step. */
enum { TIME_RUNS = 4 };
static gv_status time_conv(gt *s, int dnn, const conv_args *a, const wgrad_args *w, float *ms, gv_err *err)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    gv_status r = GV_GPU(cudaEventCreate(&e0), err);
    if (r == GV_OK)
        r = GV_GPU(cudaEventCreate(&e1), err);
    *ms = 1e30f;
    for (int i = 0; r == GV_OK && i < 4; i++) {
        float t = 0;
        r = GV_GPU(cudaEventRecord(e0, s->st), err);
        for (int k = 0; r == GV_OK && k < (i ? TIME_RUNS : 1); k++)
            r = a ? fwd_by(s, dnn, a, err) : wgrad_by(s, dnn, w, err);
        if (r == GV_OK)
            r = GV_GPU(cudaEventRecord(e1, s->st), err);
        if (r == GV_OK)
            r = GV_GPU(cudaEventSynchronize(e1), err);
        if (r == GV_OK)
            r = GV_GPU(cudaEventElapsedTime(&t, e0, e1), err);
        if (r == GV_OK && i > 0 && t / TIME_RUNS < *ms)
            *ms = t / TIME_RUNS;
    }
    if (e0)
        (void)cudaEventDestroy(e0);
    if (e1)
        (void)cudaEventDestroy(e1);
    return r;
}

/* For the current batch size, before anything is captured (cudnnFind and the timings
 * synchronise, which a capture does not allow): cuDNN's algorithm for each kind of
 * convolution, and whether it beats the own kernels on that shape (the faster of the two
 * runs it; GV_CUDNN_PICK=0: cuDNN always). With train, the weight gradients too (added to
 * the forward choices already made for this batch size, which stay as they are). Runs on
 * the trainer's own buffers: outputs that the work to come overwrites, and weight
 * gradients added into g, which every step and gradients call clears after this. */
static gv_status dnn_measure(gt *s, int train, gv_err *err)
{
    const char *e = getenv("GV_CUDNN_PICK");
    const int measure = !(e && !strcmp(e, "0")), tf = s->o.tf32;
    const void *in[2] = {s->xin, s->stem_a};
    void *out[2] = {s->stem_x, s->nb ? s->bx1[0] : NULL};
    const int fwd_done = s->dnn_n == s->n;
    if (!fwd_done)
        memset(s->dnn_use, 1, sizeof s->dnn_use);
    s->dnn_n = 0;
    for (int k = 0; k < (s->nb ? 2 : 1); k++) {
        const conv_layer *cl = k ? &s->c1[0] : &s->stem;
        conv_args a = conv_args_of(s, in[k], cl->wf, out[k], NULL, cl->cin_pad, cl->cout);
        wgrad_args w = wgrad_args_of(s, cl, s->gB, in[k]);
        for (int g = fwd_done; g < 1 + train; g++) {
            const int kind = (g ? DNN_STEM_WGRAD : DNN_STEM_FWD) + k;
            float td = 0, to = 0;
            gv_err de;
            gv_status r = g ? gpu_dnn_plan_wgrad(s->dnn, &w, tf, s->st, &de) : gpu_dnn_plan_fwd(s->dnn, &a, tf, s->st, &de);
            if (r == GV_OK && measure)
                r = time_conv(s, 1, g ? NULL : &a, &w, &td, &de);
            if (r != GV_OK) { /* cuDNN failed on this shape: the own kernels run it (GV_CUDNN=1: an error) */
                if (s->dnn_need)
                    return gv_fail(err, r, "%s", de.msg);
                s->dnn_use[kind] = 0;
                snprintf(s->dnn_fail, sizeof s->dnn_fail, "%.150s", de.msg);
                continue;
            }
            if (!measure)
                continue;
            GV_TRY(time_conv(s, 0, g ? NULL : &a, &w, &to, err));
            s->dnn_use[kind] = td <= to;
            if (getenv("GV_CUDNN_VERBOSE"))
                printf("# batch %d %s: cuDNN %.3f ms, own %.3f ms\n", s->n, dnn_kind[kind], td, to);
        }
    }
    s->dnn_n = s->n, s->dnn_train = train;
    /* the path, for the records: cuDNN, and which kinds the own kernels kept */
    int l = snprintf(s->conv_path, sizeof s->conv_path, "%s", gpu_dnn_name(s->dnn)), own = 0;
    for (int k = 0; k < (train ? DNN_N : 2); k++)
        if (!s->dnn_use[k] && (s->nb || k == DNN_STEM_FWD || k == DNN_STEM_WGRAD) && l < (int)sizeof s->conv_path) {
            l += snprintf(s->conv_path + l, sizeof s->conv_path - l, "%s%s%s%s", own ? ", " : "; own ",
                          own ? "" : own_name(s), own ? "" : ": ", dnn_kind[k]);
            own++;
        }
    if (s->dnn_fail[0] && l < (int)sizeof s->conv_path)
        snprintf(s->conv_path + l, sizeof s->conv_path - l, " (cuDNN failed: %.100s)", s->dnn_fail);
    return GV_OK;
}

/* dnn_measure for the batch size whose choices are being made (ref_n; a pinned inference's
 * are those of a batch of pin_n, measured on its first pin_n rows). */
static gv_status dnn_prepare(gt *s, int train, gv_err *err)
{
    if (!s->dnn || (s->dnn_n == s->ref_n && (s->dnn_train || !train)))
        return GV_OK;
    const int n = s->n;
    s->n = s->ref_n;
    gv_status r = dnn_measure(s, train, err);
    s->n = n;
    return r;
}

/* Captures the training step (infer 0) or the eval-mode forward alone (infer 1) for the
 * current batch size into s->graph or s->igraph[s->igraph_cur] (the least recently used). */
static gv_status build_graph(gt *s, int infer, gv_err *err)
{
    if (infer) {
        int k = 0;
        for (int i = 1; i < IGRAPHS; i++)
            if (s->igraph_last[i] < s->igraph_last[k])
                k = i; /* unused ones have last 0 */
        s->igraph_cur = k;
        s->igraph_last[k] = 0;
    }
    choose_for(s, infer);
    cudaGraphExec_t *ex = infer ? &s->igraph[s->igraph_cur] : &s->graph;
    if (*ex) {
        (void)cudaGraphExecDestroy(*ex);
        *ex = NULL;
    }
    GV_TRY(dnn_prepare(s, !infer, err));
    cudaGraph_t g;
    GV_GPU_TRY(cudaStreamBeginCapture(s->st, cudaStreamCaptureModeThreadLocal), err);
    gv_err e2;
    gv_status rc = infer ? enqueue_forward(s, 0, &e2) : enqueue_step(s, &e2);
    cudaError_t ce = cudaStreamEndCapture(s->st, &g);
    if (rc != GV_OK) {
        if (ce == cudaSuccess)
            (void)cudaGraphDestroy(g);
        return gv_fail(err, rc, "%s (while capturing the %s)", e2.msg, infer ? "inference forward" : "training step");
    }
    GV_GPU_TRY(ce, err);
    cudaError_t ie = cudaGraphInstantiate(ex, g, 0);
    (void)cudaGraphDestroy(g);
    GV_GPU_TRY(ie, err);
    *(infer ? &s->igraph_n[s->igraph_cur] : &s->graph_n) = s->n;
    return GV_OK;
}

/* Inference: the captured eval-mode forward (the loss kernel in it also adds to the bias
 * gradients in g, which every step and gradients call clears first), then logits and value
 * to the host. */
static gv_status t_infer(nn_trainer *t, double *logits, double *value, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(need_batch(s, err));
    int k = -1;
    for (int i = 0; i < IGRAPHS && k < 0; i++)
        if (s->igraph[i] && s->igraph_n[i] == s->n)
            k = i;
    if (k < 0) {
        GV_TRY(build_graph(s, 1, err));
        k = s->igraph_cur;
    }
    s->igraph_last[k] = ++s->igraph_clock;
    GV_GPU_TRY(cudaGraphLaunch(s->igraph[k], s->st), err);
    /* both outputs into the pinned staging behind the graph, one wait for all of it */
    const size_t nl = (size_t)s->n * NN_POLICY;
    GV_GPU_TRY(cudaMemcpyAsync(s->hout, s->logits, sizeof(float) * nl, cudaMemcpyDeviceToHost, s->st), err);
    GV_GPU_TRY(cudaMemcpyAsync(s->hout + nl, s->value, sizeof(float) * s->n, cudaMemcpyDeviceToHost, s->st), err);
    GV_TRY(sync(s, err));
    for (size_t i = 0; logits && i < nl; i++)
        logits[i] = s->hout[i];
    for (int i = 0; value && i < s->n; i++)
        value[i] = s->hout[nl + i];
    return GV_OK;
}

static gv_status t_step(nn_trainer *t, double *loss, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(need_training(t, "a training step", err));
    /* the learning rate is an argument of the captured AdamW kernel: a new rate (a
     * schedule) captures the step again */
    s->lr = (float)nn_trainer_lr(t);
    if (!s->graph || s->graph_n != s->n || s->graph_lr != s->lr) {
        GV_TRY(build_graph(s, 0, err));
        s->graph_lr = s->lr;
    }
    GV_GPU_TRY(cudaGraphLaunch(s->graph, s->st), err);
    s->nbt++;
    if (loss) {
        GV_TRY(sync(s, err));
        GV_TRY(download_floats(s, loss, s->loss, 1, err));
    }
    return GV_OK;
}

/* Runs one training step eagerly, timing each kind of work with events (synchronising
 * after each), and prints the breakdown; the state advances by one step (the profile entry,
 * nn_trainer_profile). */
static void t_profile(nn_trainer *t)
{
    gt *s = T_(t);
    gv_err e;
    if (need_training(t, "profile", &e) != GV_OK) {
        printf("# profile: %s\n", e.msg);
        return;
    }
    if (GV_GPU(cudaEventCreate(&s->pe0), &e) != GV_OK || GV_GPU(cudaEventCreate(&s->pe1), &e) != GV_OK ||
        GV_GPU(cudaStreamSynchronize(s->st), &e) != GV_OK) {
        printf("# profile: %s\n", e.msg);
        return;
    }
    memset(s->prof_ms, 0, sizeof s->prof_ms);
    s->prof_bad = 0;
    choose_for(s, 0);
    gv_status r = dnn_prepare(s, 1, &e); /* (measured already when a graph of this batch size exists) */
    double t0 = gv_now();
    s->prof = 1;
    s->lr = (float)nn_trainer_lr(t);
    if (r == GV_OK)
        r = enqueue_step(s, &e);
    if (r == GV_OK)
        r = GV_GPU(cudaStreamSynchronize(s->st), &e);
    if (s->prof_bad && r == GV_OK)
        r = gv_fail(&e, GV_ERR_ENV, "a profiling event failed");
    s->prof = 0;
    double total = (gv_now() - t0) * 1e3, parts = 0;
    s->nbt++;
    for (int i = 0; i < P_OTHER; i++)
        parts += s->prof_ms[i];
    printf("# profile %s c%d b%d (eager, synchronised per op): %.3f ms%s\n", t->ops->name, s->C, s->n, total,
           r == GV_OK ? "" : " FAILED");
    for (int i = 0; i < P_OTHER; i++)
        printf("#   %-14s %8.3f ms  %5.1f%%\n", prof_names[i], s->prof_ms[i], 100 * s->prof_ms[i] / total);
    printf("#   %-14s %8.3f ms  (launch gaps, small kernels, memsets)\n", prof_names[P_OTHER], total - parts);
    if (r != GV_OK)
        printf("# profile: %s\n", e.msg);
    (void)cudaEventDestroy(s->pe0);
    (void)cudaEventDestroy(s->pe1);
}

/* Writes (act > 0) of an (n*49, C) NHWC activation as n x C x 49 bytes (NCHW) at *dst. */
static gv_status mask_of(gt *s, const void *act, int C, int rows_per_sample, uint8_t **dst, gv_err *err)
{
    const size_t n = (size_t)s->n, cnt = n * rows_per_sample * C;
    void *h = malloc(cnt * s->es);
    if (!h)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");
    cudaError_t e = cudaMemcpyAsync(h, act, cnt * s->es, cudaMemcpyDeviceToHost, s->st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->st);
    if (e != cudaSuccess) {
        free(h);
        return gv_fail(err, GV_ERR_ENV, "copying activations from the GPU: %s", cudaGetErrorString(e));
    }
    uint8_t *m = *dst;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            for (int p = 0; p < rows_per_sample; p++) {
                size_t o = (i * rows_per_sample + p) * C + c;
                float v = s->dt == GPU_BF16 ? gv_bf16_to_f32(((const gv_bf16 *)h)[o]) : ((const float *)h)[o];
                *m++ = v > 0.f;
            }
    free(h);
    *dst = m;
    return GV_OK;
}

static gv_status t_relu_masks(nn_trainer *t, uint8_t *masks, gv_err *err)
{
    gt *s = T_(t);
    GV_TRY(need_training(t, "ReLU masks", err));
    uint8_t *m = masks;
    GV_TRY(mask_of(s, s->stem_a, s->C, NN_CELLS, &m, err));
    for (int b = 0; b < s->nb; b++) {
        GV_TRY(mask_of(s, s->ba1[b], s->C, NN_CELLS, &m, err));
        GV_TRY(mask_of(s, s->bout[b], s->C, NN_CELLS, &m, err));
    }
    GV_TRY(mask_of(s, s->hp_a, NN_HEAD_CH, NN_CELLS, &m, err));
    GV_TRY(mask_of(s, s->hv_a, NN_HEAD_CH, NN_CELLS, &m, err));
    /* the value hidden layer is (n, 128): one "position" per sample */
    GV_TRY(mask_of(s, s->vh, NN_VALUE_HIDDEN, 1, &m, err));
    return GV_OK;
}

static gv_status t_sync(nn_trainer *t, gv_err *err)
{
    return sync(T_(t), err);
}

static size_t t_peak(nn_trainer *t)
{
    /* Everything is allocated up front, so what is held is the peak: our buffers plus the
     * BLAS workspace. */
    return T_(t)->bytes + (32u << 20);
}

static void free_all(gt *s)
{
    if (!s)
        return;
    if (s->graph)
        (void)cudaGraphExecDestroy(s->graph);
    for (int i = 0; i < IGRAPHS; i++)
        if (s->igraph[i])
            (void)cudaGraphExecDestroy(s->igraph[i]);
    gpu_dnn_close(s->dnn);
    if (s->io) { /* the activations are the pool's, freed once below */
        s->stem_x = s->stem_a = NULL;
        for (int b = 0; b < s->nb && s->bx1 && s->ba1 && s->bx2 && s->bout; b++)
            s->bx1[b] = s->ba1[b] = s->bx2[b] = s->bout[b] = NULL;
    }
    void *ptrs[] = {s->p, s->g, s->m, s->v, s->run, s->step_dev, s->stem.wf, s->pc_wt, s->vc_wt, s->pf_wp, s->vf1_wp,
                    s->vf2_wt, s->xin, s->stem_x, s->stem_a, s->hp_x, s->hp_a, s->hv_x, s->hv_a, s->logits_raw,
                    s->value_raw, s->vh_raw, s->logits, s->value, s->loss, s->vh, s->loss_acc, s->bn_acc, s->dlogits,
                    s->dvalue, s->dvh, s->dhp_a, s->dhv_a, s->dhp_x, s->dhv_x, s->gA, s->gB, s->gC, s->gD, s->gtmp, s->wg_ws,
                    s->bx, s->bcells, s->bvt, s->bpt, s->descs, s->sn.mean, s->sn.rstd, s->pn.mean, s->pn.rstd, s->vn.mean,
                    s->vn.rstd, s->sn.bits, s->pn.bits, s->vn.bits, s->pool[0], s->pool[1], s->pool[2], s->pool[3]};
    for (size_t i = 0; i < GV_ARRAY_LEN(ptrs); i++)
        if (ptrs[i])
            (void)cudaFree(ptrs[i]);
    gpu_free_host(s->hx, s->hvt, s->hpt, s->hout);
    for (int b = 0; b < s->nb; b++) {
        void *bp[] = {s->c1 ? s->c1[b].wf : NULL, s->c1 ? s->c1[b].wd : NULL, s->c2 ? s->c2[b].wf : NULL,
                      s->c2 ? s->c2[b].wd : NULL, s->n1 ? s->n1[b].mean : NULL, s->n1 ? s->n1[b].rstd : NULL,
                      s->n2 ? s->n2[b].mean : NULL, s->n2 ? s->n2[b].rstd : NULL, s->n1 ? s->n1[b].bits : NULL,
                      s->n2 ? s->n2[b].bits : NULL, s->bx1 ? s->bx1[b] : NULL,
                      s->ba1 ? s->ba1[b] : NULL, s->bx2 ? s->bx2[b] : NULL, s->bout ? s->bout[b] : NULL};
        for (size_t i = 0; i < GV_ARRAY_LEN(bp); i++)
            if (bp[i])
                (void)cudaFree(bp[i]);
    }
    free(s->c1);
    free(s->c2);
    free(s->n1);
    free(s->n2);
    free(s->bx1);
    free(s->ba1);
    free(s->bx2);
    free(s->bout);
    gpu_blas_destroy(s->blas);
    if (s->st)
        (void)cudaStreamDestroy(s->st);
    free(s);
}

static void t_destroy(nn_trainer *t)
{
    if (!t)
        return;
    free_all(T_(t));
    free(t);
}

/* cuDNN for the 3x3 convolutions, by GV_CUDNN: unset, when the library loads and runs these
 * shapes in this dtype; 1, required (an error when it cannot); bf16, for bf16 only (fp32 on
 * the own kernels); 0, never (the own kernels, for measuring against them). Its workspace
 * is the weight-gradient workspace of the own kernels (which then go unused), enlarged to
 * at least GV_CUDNN_WS_MB (16) MiB. */
static gv_status dnn_open(gt *s, gv_err *err)
{
    const char *e = getenv("GV_CUDNN");
    const int want = !(e && (!strcmp(e, "0") || (!strcmp(e, "bf16") && s->dt != GPU_BF16)));
    const int need = s->dnn_need = e && !strcmp(e, "1");
    snprintf(s->conv_path, sizeof s->conv_path, "own %s", own_name(s));
    if (!want)
        return GV_OK;
    const char *mb = getenv("GV_CUDNN_WS_MB");
    size_t ws_min = (size_t)(mb && *mb ? atoi(mb) : 16) << 20;
    if (sizeof(float) * s->wg_ws_elems < ws_min) {
        (void)cudaFree(s->wg_ws);
        s->bytes -= sizeof(float) * s->wg_ws_elems;
        s->wg_ws = NULL;
        s->wg_ws_elems = ws_min / sizeof(float);
        ALLOC(s->wg_ws, sizeof(float) * s->wg_ws_elems, "cuDNN workspace");
    }
    char why[320];
    const size_t max_dw = (size_t)s->C * 9 * (s->C > 16 ? s->C : 16);
    GV_TRY(gpu_dnn_open(&s->dnn, s->wg_ws, sizeof(float) * s->wg_ws_elems, max_dw, why, sizeof why, err));
    if (!s->dnn)
        return need ? gv_fail(err, GV_ERR_ENV, "GV_CUDNN=1 but cuDNN cannot be used: %s", why) : GV_OK;
    /* a library that loads but has no algorithm for these shapes in this dtype (say, true
     * fp32 in NHWC) leaves the convolutions to the own kernels, and the path says so */
    gv_err pe;
    if (gpu_dnn_probe(s->dnn, 16, s->C, s->dt, s->o.tf32, &pe) != GV_OK ||
        gpu_dnn_probe(s->dnn, s->C, s->C, s->dt, s->o.tf32, &pe) != GV_OK) {
        if (need)
            return gv_fail(err, GV_ERR_ENV, "GV_CUDNN=1 but cuDNN cannot run these convolutions: %s", pe.msg);
        size_t l = strlen(s->conv_path);
        snprintf(s->conv_path + l, sizeof s->conv_path - l, " (%s not used: %.120s)", gpu_dnn_name(s->dnn), pe.msg);
        gpu_dnn_close(s->dnn);
        s->dnn = NULL;
        return GV_OK;
    }
    s->bytes += gpu_dnn_bytes(s->dnn);
    snprintf(s->conv_path, sizeof s->conv_path, "%s", gpu_dnn_name(s->dnn));
    return GV_OK;
}

/* Which 3x3 convolutions t runs, as dnn_open named them (the conv_path entry). */
static const char *t_conv_path(const nn_trainer *t)
{
    return T_(t)->conv_path;
}

/* nn_trainer_pin_batch: the inference graphs captured so far made their own choices. */
static gv_status t_pin_batch(nn_trainer *t, int n, gv_err *err)
{
    gt *s = T_(t);
    if (n == s->pin_n)
        return GV_OK;
    GV_TRY(sync(s, err));
    for (int i = 0; i < IGRAPHS; i++) {
        if (s->igraph[i])
            (void)cudaGraphExecDestroy(s->igraph[i]);
        s->igraph[i] = NULL, s->igraph_n[i] = 0, s->igraph_last[i] = 0;
    }
    s->pin_n = n;
    return GV_OK;
}

static const nn_trainer_ops ops_fp32 = {"cuda-fp32", t_set_state, t_get_state, t_set_batch, t_forward,
                                        t_gradients, t_step, t_sync, t_peak, t_destroy, t_relu_masks, t_infer,
                                        t_conv_path, t_profile, t_pin_batch};
static const nn_trainer_ops ops_bf16 = {"cuda-bf16", t_set_state, t_get_state, t_set_batch, t_forward,
                                        t_gradients, t_step, t_sync, t_peak, t_destroy, t_relu_masks, t_infer,
                                        t_conv_path, t_profile, t_pin_batch};

extern "C" gv_status nn_gpu_create(const dev_id *dev, const nn_layout *L, const nn_trainer_opts *opts,
                                   nn_trainer **out, gv_err *err)
{
    *out = NULL;
    if (opts->dtype != NN_FP32 && opts->dtype != NN_BF16)
        return gv_fail(err, GV_ERR_INPUT, "the GPU trainer runs fp32 or bf16 (asked for %s)", nn_dtype_name(opts->dtype));
    if (opts->max_batch <= 0)
        return gv_fail(err, GV_ERR_INPUT, "max_batch must be positive");
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || dev->index >= count) {
        (void)cudaGetLastError();
        return gv_fail(err, GV_ERR_ENV, "GPU %d is not available (%s); run 'gpuvet smoke'", dev->index,
                       e != cudaSuccess ? cudaGetErrorString(e) : "not enough GPUs");
    }
    GV_GPU_TRY(cudaSetDevice(dev->index), err);
    gt *s = (gt *)calloc(1, sizeof *s);
    if (!s)
        return gv_fail(err, GV_ERR_ENV, "out of host memory");
    s->L = L;
    s->o = *opts;
    s->dt = opts->dtype == NN_BF16 ? GPU_BF16 : GPU_F32;
    s->es = s->dt == GPU_BF16 ? 2 : 4;
    s->C = L->cfg.channels;
    s->nb = L->cfg.blocks;
    s->bn = L->cfg.norm == NN_NORM_BATCH;
    s->maxn = opts->max_batch;
    s->io = opts->infer_only != 0;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev->index) == cudaSuccess) {
        s->sm_count = p.multiProcessorCount;
        s->conv_impl = own_conv_impl(&p, dev->index);
    }
    gv_status rc;
    e = cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        rc = gv_fail(err, GV_ERR_ENV, "creating a GPU stream: %s", cudaGetErrorString(e));
        goto fail;
    }
    if ((rc = gpu_blas_create(&s->blas, s->st, err)) != GV_OK)
        goto fail;
    if ((rc = setup(s, err)) != GV_OK)
        goto fail;
    if ((rc = dnn_open(s, err)) != GV_OK)
        goto fail;
    {
        nn_trainer *t = (nn_trainer *)calloc(1, sizeof *t);
        if (!t) {
            rc = gv_fail(err, GV_ERR_ENV, "out of host memory");
            goto fail;
        }
        t->ops = s->dt == GPU_BF16 ? &ops_bf16 : &ops_fp32;
        t->L = L;
        t->opts = *opts;
        t->impl = s;
        *out = t;
    }
    return GV_OK;
fail:
    free_all(s);
    return rc;
}
