/* nn_bench.c: the training benchmark engine (see nn_bench.h). */
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
    nn_layout L;
    nn_state s0;
    nn_batch b;
    nn_trainer *t;
} config;

typedef struct {
    const nn_bench_opts *o;
    config *c;
} ctx_t;

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
    nn_layout_init(&c->L, &cfg);
    nn_state_alloc(&c->s0, &c->L);
    nn_state_init_random(&c->s0, o->seed);
    nn_batch_alloc(&c->b, c->batch);
    nn_batch_random(&c->b, o->seed + 1);
    c->loss = NAN;
    gv_status s = nn_trainer_open(c->dev, &c->L, c->dt, c->batch, o->threads, o->tf32, 0, &c->t, err);
    if (s == GV_OK)
        s = c->t->ops->set_state(c->t, &c->s0, err);
    if (s == GV_OK)
        s = c->t->ops->set_batch(c->t, &c->b, err);
    return s;
}

static void teardown(void *cx, int k)
{
    config *c = &((ctx_t *)cx)->c[k];
    if (c->t) {
        c->peak = c->t->ops->peak_bytes(c->t);
        nn_trainer_destroy(c->t);
    }
    c->t = NULL;
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
        s = t->ops->step(t, &c->loss, err);
    if (s == GV_OK)
        s = t->ops->sync(t, err);
    if (s == GV_OK && o->warmup > 0 && !isfinite(c->loss))
        return gv_fail(err, GV_ERR_WRONG, "%s %s: the warm-up loss is not finite (%g)", c->dev->label,
                       nn_dtype_name(c->dt), c->loss);
    c->steps = o->steps;
    if (s == GV_OK && c->steps <= 0) {
        double t0 = gv_now();
        s = t->ops->step(t, NULL, err);
        if (s == GV_OK)
            s = t->ops->sync(t, err);
        double per = gv_now() - t0;
        long n = per > 0 ? (long)ceil(0.5 / per) : 1;
        c->steps = n < 1 ? 1 : n > 1000 ? 1000 : n;
    }
    return s;
}

static gv_status run(void *cx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    const nn_bench_opts *o = ((ctx_t *)cx)->o;
    config *c = &((ctx_t *)cx)->c[k];
    if (!timed)
        return warm(o, c, err);
    gv_status s = GV_OK;
    for (long i = 0; i < c->steps && s == GV_OK; i++)
        s = c->t->ops->step(c->t, NULL, err);
    if (s == GV_OK)
        s = c->t->ops->sync(c->t, err); /* the clock is read after the device is done */
    *units = (double)c->batch * (double)c->steps;
    return s;
}

/* The CPU fp32 entry of the same shape as e, or NULL. */
static const cJSON *cpu_twin(const cJSON *arr, const cJSON *e)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "device")), "cpu") &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "dtype")), "fp32") &&
            cJSON_GetNumberValue(cJSON_GetObjectItem(o, "channels")) ==
                cJSON_GetNumberValue(cJSON_GetObjectItem(e, "channels")) &&
            cJSON_GetNumberValue(cJSON_GetObjectItem(o, "batch")) == cJSON_GetNumberValue(cJSON_GetObjectItem(e, "batch")) &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "norm")), cJSON_GetStringValue(cJSON_GetObjectItem(e, "norm"))))
            return o;
    }
    return NULL;
}

gv_status nn_bench_train(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < o->nchannels; i++) {
        nn_config cfg = {o->channels[i], o->blocks, NN_NORM_GROUP};
        gv_status s = nn_config_check(&cfg, err);
        if (s != GV_OK)
            return s;
    }
    size_t most = (size_t)o->ndev * o->ndtypes * o->nnorms * o->nchannels * o->nbatches;
    ctx_t x = {o, gv_xcalloc(most + 1, sizeof(config))};
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
                        config *c = &x.c[n++];
                        c->dev = &o->devs[d];
                        c->dt = o->dtypes[t];
                        c->norm = o->norms[m];
                        c->channels = o->channels[ci];
                        c->batch = o->batches[bi];
                    }
        }
    if (!n) {
        free(x.c);
        return gv_fail(err, GV_ERR_INPUT, "nothing to measure: no device asked for trains in the dtypes asked for "
                       "(the CPU trains fp32, a GPU fp32 and bf16)");
    }
    dev_blas_info bi;
    dev_blas_query(&bi);
    cJSON *cpu = cJSON_GetObjectItemCaseSensitive(rec, "cpu");
    if (!cpu) {
        cpu = gv_json_add_obj(rec, "cpu");
        cJSON_AddStringToObject(cpu, "blas", bi.name);
        cJSON_AddStringToObject(cpu, "blas_version", bi.version);
        cJSON_AddStringToObject(cpu, "blas_core", bi.core);
    }
    bench_plan p = {"bench train", "samples_per_s", 1.0, n, 1, o->repeats, &x, setup, run, teardown, label, o->tel};
    bench_outcome out;
    gv_status st = bench_run(&p, &out, err);
    if (st == GV_OK) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, "bench_train");
        if (!arr)
            arr = gv_json_add_arr(rec, "bench_train");
        for (int k = 0; k < n; k++) {
            config *c = &x.c[k];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "device", c->dev->label);
            cJSON_AddStringToObject(e, "impl", "gpuvet");
            cJSON_AddNumberToObject(e, "channels", c->channels);
            cJSON_AddNumberToObject(e, "blocks", o->blocks);
            cJSON_AddStringToObject(e, "norm", nn_norm_name(c->norm));
            cJSON_AddStringToObject(e, "dtype", nn_dtype_name(c->dt));
            cJSON_AddBoolToObject(e, "tf32", o->tf32 && c->dev->kind == DEV_GPU && c->dt == NN_FP32);
            cJSON_AddNumberToObject(e, "batch", c->batch);
            cJSON_AddNumberToObject(e, "steps", (double)c->steps);
            cJSON_AddNumberToObject(e, "warmup_steps", (double)o->warmup);
            cJSON_AddNumberToObject(e, "threads", o->threads > 0 ? o->threads : gv_cpu_count());
            bench_entry_add(&p, &out, k, e);
            gv_json_add_num(e, "step_ms_median", 1000.0 * out.st[k].secs_median / (double)c->steps);
            gv_json_add_num(e, "loss_warmup", c->loss);
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
            cJSON_AddItemToArray(arr, e);
            r->entries++;
        }
        cJSON *e;
        cJSON_ArrayForEach(e, arr)
        {
            if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "device")), "cpu")) {
                const cJSON *twin = cpu_twin(arr, e);
                double g = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "samples_per_s_median"));
                double cm = twin ? cJSON_GetNumberValue(cJSON_GetObjectItem(twin, "samples_per_s_median")) : NAN;
                cJSON_DeleteItemFromObject(e, "speedup_vs_cpu");
                gv_json_add_num(e, "speedup_vs_cpu", cm > 0 ? g / cm : NAN);
            }
        }
        bench_outcome_record(&out, rec);
    }
    bench_outcome_free(&out);
    free(x.c);
    return st;
}
