/* nn_bench.c: the training and inference benchmark engines (see nn_bench.h). */
#include "nn/nn_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness.h"
#include "core/record.h"

typedef struct {
    const dev_id *dev;
    nn_dtype dt;
    nn_norm norm;
    int channels, batch;
    long steps;            /* per timed run */
    double loss;           /* of the last untimed step (NaN when none was taken) */
    size_t peak;           /* the trainer's peak memory (device bytes on a GPU, host bytes on the CPU) */
    double *lat;           /* inference: the latency of every timed call (seconds) */
    double *lat_in;        /* the part of it that set_batch took (the positions in) */
    long nlat, cap_lat;
    double lat_median, lat_p99, lat_min, in_median; /* of lat and lat_in, kept by teardown */
    double *logits, *value; /* inference outputs (batch*7, batch) */
    nn_layout L;
    nn_state s0;
    nn_batch b;
    nn_trainer *t;
    char conv[200];        /* a GPU trainer's 3x3 convolution path (nn_trainer_conv_path), kept by teardown */
} config;

typedef struct {
    const nn_bench_opts *o;
    config *c;
    int infer;             /* bench infer: runs are inference calls, not training steps */
} ctx_t;

static int on_gpu(void *cx, int k)
{
    return ((ctx_t *)cx)->c[k].dev->kind == DEV_GPU;
}

static void label(void *cx, int k, char *buf, size_t len)
{
    const config *c = &((ctx_t *)cx)->c[k];
    snprintf(buf, len, "%s %s %s c%d b%d", c->dev->label, nn_dtype_name(c->dt), nn_norm_name(c->norm), c->channels,
             c->batch);
}

static gv_status setup(void *cx, int k, gv_err *err)
{
    const nn_bench_opts *o = ((ctx_t *)cx)->o;
    config *c = &((ctx_t *)cx)->c[k];
    nn_config cfg = {c->channels, o->blocks, c->norm};
    nn_trainer_opts to = {.dtype = c->dt, .tf32 = o->tf32, .max_batch = c->batch, .threads = o->threads,
                          .cpu_conv = o->cpu_conv, .infer_only = ((ctx_t *)cx)->infer};
    nn_layout_init(&c->L, &cfg);
    gv_status s = nn_fits(c->dev, &c->L, &to, err);
    if (s != GV_OK) {
        nn_layout_free(&c->L);
        return s;
    }
    nn_state_alloc(&c->s0, &c->L);
    nn_state_init_random(&c->s0, o->seed);
    /* inference: positions in the form asked for (cells: self-play's, drop7_agent.c) */
    nn_batch_alloc_as(&c->b, c->batch, ((ctx_t *)cx)->infer ? o->positions : NN_POS_F64);
    nn_batch_random(&c->b, o->seed + 1);
    c->loss = NAN;
    if (((ctx_t *)cx)->infer) {
        c->logits = gv_xcalloc((size_t)c->batch * NN_POLICY, sizeof(double));
        c->value = gv_xcalloc((size_t)c->batch, sizeof(double));
    }
    s = nn_trainer_open(c->dev, &c->L, to, &c->t, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(c->t, &c->s0, err);
    if (s == GV_OK)
        s = nn_trainer_set_batch(c->t, &c->b, err);
    return s;
}

static void teardown(void *cx, int k)
{
    config *c = &((ctx_t *)cx)->c[k];
    if (c->t) {
        c->peak = nn_trainer_peak_bytes(c->t);
        const char *conv = nn_trainer_conv_path(c->t);
        snprintf(c->conv, sizeof c->conv, "%s", conv ? conv : "");
        nn_trainer_destroy(c->t);
    }
    c->t = NULL;
    if (c->lat) {
        c->lat_median = gv_quantile(c->lat, (int)c->nlat, 0.5);
        c->lat_p99 = gv_quantile(c->lat, (int)c->nlat, 0.99);
        c->lat_min = gv_quantile(c->lat, (int)c->nlat, 0);
        c->in_median = gv_quantile(c->lat_in, (int)c->nlat, 0.5);
    }
    free(c->lat), free(c->lat_in), free(c->logits), free(c->value);
    c->lat = c->lat_in = c->logits = c->value = NULL;
    if (c->L.t) {
        nn_batch_free(&c->b);
        nn_state_free(&c->s0);
        nn_layout_free(&c->L);
    }
}

/* The warm-up run: the untimed steps (their loss must be finite), then, without --steps,
 * one more step on its own to size the timed runs at about half a second (on the GPU the
 * first step also captures the step's graph and sets up the BLAS). */
static gv_status warm(const nn_bench_opts *o, config *c, gv_err *err)
{
    nn_trainer *t = c->t;
    gv_status s = GV_OK;
    for (long i = 0; i < o->warmup && s == GV_OK; i++)
        s = nn_trainer_step(t, &c->loss, err);
    if (s == GV_OK)
        s = nn_trainer_sync(t, err);
    if (s == GV_OK && o->warmup > 0 && !isfinite(c->loss))
        return gv_fail(err, GV_ERR_WRONG, "%s %s: the warm-up loss is not finite (%g)", c->dev->label,
                       nn_dtype_name(c->dt), c->loss);
    c->steps = o->steps;
    if (s == GV_OK && c->steps <= 0) {
        double t0 = gv_now();
        s = nn_trainer_step(t, NULL, err);
        if (s == GV_OK)
            s = nn_trainer_sync(t, err);
        double per = gv_now() - t0;
        long n = per > 0 ? (long)ceil(0.5 / per) : 1;
        c->steps = n < 1 ? 1 : n > 1000 ? 1000 : n;
    }
    return s;
}

/* One inference call as self-play makes it: the positions in (set_batch: on a GPU staged
 * and copied to the device, cells expanded there), the eval-mode forward, logits and value out. *t_in (when
 * not NULL) gets the seconds set_batch took: the host's part of the way in (a GPU's copies
 * run on after it returns, ahead of the forward). */
static gv_status infer_call(config *c, double *t_in, gv_err *err)
{
    double t0 = t_in ? gv_now() : 0;
    gv_status s = nn_trainer_set_batch(c->t, &c->b, err);
    if (t_in)
        *t_in = gv_now() - t0;
    return s == GV_OK ? nn_trainer_infer(c->t, c->logits, c->value, err) : s;
}

/* The inference warm-up: one call (weights packed, the GPU's graph captured), then one more
 * timed alone to size the timed runs at about min_time seconds; its outputs must be finite. */
static gv_status infer_warm(const nn_bench_opts *o, config *c, int repeats, gv_err *err)
{
    gv_status s = infer_call(c, NULL, err);
    double t0 = gv_now();
    if (s == GV_OK)
        s = infer_call(c, NULL, err);
    double per = gv_now() - t0;
    if (s != GV_OK)
        return s;
    for (int i = 0; i < c->batch; i++)
        if (!isfinite(c->value[i]) || !isfinite(c->logits[(size_t)i * NN_POLICY]))
            return gv_fail(err, GV_ERR_WRONG, "%s %s: inference output %d is not finite", c->dev->label,
                           nn_dtype_name(c->dt), i);
    c->steps = o->steps > 0 ? o->steps : per > 0 ? (long)ceil(o->min_time / per) : 1;
    c->steps = c->steps < 1 ? 1 : c->steps > 100000 ? 100000 : c->steps;
    c->cap_lat = c->steps * repeats;
    c->lat = gv_xcalloc((size_t)c->cap_lat, sizeof(double));
    c->lat_in = gv_xcalloc((size_t)c->cap_lat, sizeof(double));
    c->nlat = 0;
    return GV_OK;
}

static gv_status infer_run(const nn_bench_opts *o, config *c, double *units, gv_err *err)
{
    gv_status s = GV_OK;
    for (long i = 0; i < c->steps && s == GV_OK; i++) {
        double t0 = gv_now(), t_in = 0;
        s = infer_call(c, &t_in, err);
        if (c->nlat < c->cap_lat) {
            c->lat_in[c->nlat] = t_in;
            c->lat[c->nlat++] = gv_now() - t0;
        }
    }
    *units = (double)c->batch * (double)c->steps;
    return s;
}

static gv_status run(void *cx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    const nn_bench_opts *o = ((ctx_t *)cx)->o;
    config *c = &((ctx_t *)cx)->c[k];
    if (((ctx_t *)cx)->infer)
        return timed ? infer_run(o, c, units, err) : infer_warm(o, c, o->repeats, err);
    if (!timed)
        return warm(o, c, err);
    gv_status s = GV_OK;
    for (long i = 0; i < c->steps && s == GV_OK; i++)
        s = nn_trainer_step(c->t, NULL, err);
    if (s == GV_OK)
        s = nn_trainer_sync(c->t, err); /* the clock is read after the device is done */
    *units = (double)c->batch * (double)c->steps;
    return s;
}

/* The configurations of o (devices x dtypes x norms x channels x batches, skipping the
 * dtypes a device does not run) into x->c, *n of them. GV_ERR_INPUT when there are none. */
static gv_status plan_configs(const nn_bench_opts *o, ctx_t *x, nn_bench_result *r, int *count, gv_err *err)
{
    memset(r, 0, sizeof *r);
    *count = 0;
    for (int i = 0; i < o->nchannels; i++) {
        nn_config cfg = {o->channels[i], o->blocks, NN_NORM_GROUP};
        gv_status s = nn_config_check(&cfg, err);
        if (s != GV_OK)
            return s;
    }
    size_t most = (size_t)o->ndev * o->ndtypes * o->nnorms * o->nchannels * o->nbatches;
    x->o = o;
    x->c = gv_xcalloc(most + 1, sizeof(config));
    int n = 0;
    for (int d = 0; d < o->ndev; d++)
        for (int t = 0; t < o->ndtypes; t++) {
            if (!nn_dtype_on(&o->devs[d], o->dtypes[t])) {
                r->skipped++;
                continue;
            }
            for (int m = 0; m < o->nnorms; m++)
                for (int ci = 0; ci < o->nchannels; ci++)
                    for (int bi = 0; bi < o->nbatches; bi++) {
                        config *c = &x->c[n++];
                        c->dev = &o->devs[d];
                        c->dt = o->dtypes[t];
                        c->norm = o->norms[m];
                        c->channels = o->channels[ci];
                        c->batch = o->batches[bi];
                    }
        }
    if (!n) {
        free(x->c);
        x->c = NULL;
        return gv_fail(err, GV_ERR_INPUT, "nothing to measure: no device asked for runs the dtypes asked for "
                       "(the CPU runs fp32, a GPU fp32 and bf16)");
    }
    *count = n;
    return GV_OK;
}

/* The "cpu" object (the BLAS) of the record, once. */
static void record_cpu(cJSON *rec)
{
    if (cJSON_GetObjectItemCaseSensitive(rec, "cpu"))
        return;
    dev_blas_info bi;
    dev_blas_query(&bi);
    cJSON *cpu = gv_json_add_obj(rec, "cpu");
    cJSON_AddStringToObject(cpu, "blas", bi.name);
    cJSON_AddStringToObject(cpu, "blas_version", bi.version);
    cJSON_AddStringToObject(cpu, "blas_core", bi.core);
}

/* The keys every entry of both benchmarks has: what was run, and its memory. */
static cJSON *entry_new(const nn_bench_opts *o, const config *c)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "device", c->dev->label);
    cJSON_AddStringToObject(e, "impl", "gpuvet");
    cJSON_AddNumberToObject(e, "channels", c->channels);
    cJSON_AddNumberToObject(e, "blocks", o->blocks);
    cJSON_AddStringToObject(e, "norm", nn_norm_name(c->norm));
    cJSON_AddStringToObject(e, "dtype", nn_dtype_name(c->dt));
    cJSON_AddBoolToObject(e, "tf32", o->tf32 && c->dev->kind == DEV_GPU && c->dt == NN_FP32);
    cJSON_AddNumberToObject(e, "batch", c->batch);
    cJSON_AddNumberToObject(e, "threads", o->threads > 0 ? o->threads : gv_cpu_count());
    if (c->dev->kind == DEV_CPU)
        cJSON_AddStringToObject(e, "cpu_conv", nn_cpu_conv_name(o->cpu_conv));
    else if (c->conv[0])
        cJSON_AddStringToObject(e, "conv", c->conv);
    return e;
}

static void entry_memory(const config *c, cJSON *e)
{
    gv_json_add_num(e, c->dev->kind == DEV_GPU ? "peak_device_bytes" : "host_bytes", (double)c->peak);
    if (c->dev->kind == DEV_GPU) {
        dev_gpu_info gi;
        gv_err e2;
        if (c->peak && dev_gpu_query(c->dev->index, &gi, &e2) == GV_OK && gi.mem_total) {
            cJSON_AddNumberToObject(e, "device_pool_bytes", (double)gi.mem_total);
            gv_json_add_num(e, "peak_share", (double)c->peak / (double)gi.mem_total);
        }
    } else {
        cJSON_AddNullToObject(e, "peak_device_bytes");
    }
}

/* Every GPU entry gets its samples/s over that of the CPU fp32 entry of the same shape. */
static void add_speedups(cJSON *arr)
{
    /* not dtype: the CPU runs fp32 only, and a GPU's fp32 and bf16 both compare with it */
    static const char *const twin[] = {"norm", "channels", "batch"};
    bench_speedups(arr, "samples_per_s_median", twin, (int)GV_ARRAY_LEN(twin));
}

/* The crossover of each GPU (device, dtype, channels, norm) series of bench_infer entries. */
static void infer_crossover(cJSON *arr, cJSON *rec)
{
    static const char *const keys[] = {"device", "dtype", "norm", "channels"};
    bench_crossover(arr, gv_json_add_arr(rec, "bench_infer_crossover"), keys, (int)GV_ARRAY_LEN(keys));
}

/* Both benchmarks: plan, run through the harness, one entry per configuration ("bench_train"
 * or "bench_infer"), GPU speedups; for inference the crossover too. */
static gv_status bench_nn(const nn_bench_opts *o, int infer, cJSON *rec, nn_bench_result *r, gv_err *err)
{
    ctx_t x = {0};
    x.infer = infer;
    int n;
    gv_status ps = plan_configs(o, &x, r, &n, err);
    if (ps != GV_OK)
        return ps;
    record_cpu(rec);
    const char *name = infer ? "bench infer" : "bench train", *key = infer ? "bench_infer" : "bench_train";
    bench_plan p = {name, "samples_per_s", 1.0, n, 1, o->repeats, &x, setup, run, teardown, label, o->tel, on_gpu};
    bench_outcome out;
    gv_status st = bench_run(&p, &out, err);
    if (st == GV_OK) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, key);
        if (!arr)
            arr = gv_json_add_arr(rec, key);
        for (int k = 0; k < n; k++) {
            config *c = &x.c[k];
            cJSON *e = entry_new(o, c);
            if (infer) {
                cJSON_AddNumberToObject(e, "calls", (double)c->steps);
                cJSON_AddStringToObject(e, "positions", nn_positions_name(o->positions));
                /* the trainer held no training buffers: the memory is inference's (setup) */
                cJSON_AddBoolToObject(e, "inference_only", 1);
                bench_entry_add(&p, &out, k, e);
                gv_json_add_num(e, "latency_ms_median", 1000.0 * c->lat_median);
                gv_json_add_num(e, "latency_ms_p99", 1000.0 * c->lat_p99);
                gv_json_add_num(e, "latency_ms_min", 1000.0 * c->lat_min);
                gv_json_add_num(e, "input_ms_median", 1000.0 * c->in_median);
                cJSON_AddNumberToObject(e, "latency_samples", (double)c->nlat);
            } else {
                cJSON_AddNumberToObject(e, "steps", (double)c->steps);
                cJSON_AddNumberToObject(e, "warmup_steps", (double)o->warmup);
                bench_entry_add(&p, &out, k, e);
                gv_json_add_num(e, "step_ms_median", 1000.0 * out.st[k].secs_median / (double)c->steps);
                gv_json_add_num(e, "loss_warmup", c->loss);
            }
            entry_memory(c, e);
            cJSON_AddItemToArray(arr, e);
            r->entries++;
        }
        add_speedups(arr);
        if (infer)
            infer_crossover(arr, rec);
        bench_outcome_record(&out, rec);
    }
    bench_outcome_free(&out);
    free(x.c);
    return st;
}

gv_status nn_bench_train(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err)
{
    return bench_nn(o, 0, rec, r, err);
}

gv_status nn_bench_infer(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err)
{
    return bench_nn(o, 1, rec, r, err);
}
