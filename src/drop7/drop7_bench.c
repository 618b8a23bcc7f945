/* drop7_bench.c: `gpuvet bench drop7` (see drop7_bench.h): batched games on the CPU and
 * the GPU through the harness, records checked across devices, and the crossover. */
#include "drop7/drop7_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness.h"
#include "core/record.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_gpu.h"

typedef struct {
    const dev_id *dev;
    int player, batch;
    uint64_t *seeds;
    drop7_record *rec;
    drop7_gpu *gpu;
    long calls;            /* batches per timed run (sized by the warm-up to last min_time) */
    double moves;          /* moves played by one call (the same every call: fixed seeds) */
    int match;             /* GPU: records equal to the CPU's (-1: not compared, the CPU itself) */
} config;

typedef struct {
    const drop7_bench_opts *o;
    drop7_rules rules;
    config *c;
    gv_err wrong;          /* the first record difference, reported after the run */
    int nwrong;
} ctx_t;

static const char *player_name(int p)
{
    return p == DROP7_PLAYER_GREEDY ? "greedy" : "random";
}

static int on_gpu(void *cx, int k)
{
    return ((ctx_t *)cx)->c[k].dev->kind == DEV_GPU;
}

static void label(void *cx, int k, char *buf, size_t len)
{
    const config *c = &((ctx_t *)cx)->c[k];
    snprintf(buf, len, "%s %s b%d", c->dev->label, player_name(c->player), c->batch);
}

static gv_status play(ctx_t *x, config *c, gv_err *err)
{
    const drop7_bench_opts *o = x->o;
    if (c->dev->kind == DEV_GPU)
        return drop7_gpu_play(c->gpu, &x->rules, c->player, c->seeds, c->batch, DROP7_DEFAULT_MAX_MOVES, c->rec, NULL,
                              err);
    drop7_game_play_batch(&x->rules, c->player, c->seeds, c->batch, DROP7_DEFAULT_MAX_MOVES, o->threads, c->rec, NULL);
    return GV_OK;
}

/* Seeds and record buffers; on a GPU the context, one untimed batch, and its records
 * compared with the CPU's for the same seeds. */
static gv_status setup(void *cx, int k, gv_err *err)
{
    ctx_t *x = cx;
    config *c = &x->c[k];
    c->seeds = gv_xcalloc((size_t)c->batch, sizeof *c->seeds);
    c->rec = gv_xcalloc((size_t)c->batch, sizeof *c->rec);
    for (int i = 0; i < c->batch; i++)
        c->seeds[i] = x->o->seed + (uint64_t)i;
    c->match = -1;
    if (c->dev->kind != DEV_GPU)
        return GV_OK;
    GV_TRY(drop7_gpu_open(c->dev->index, &c->gpu, err));
    GV_TRY(play(x, c, err));
    drop7_record *cpu = gv_xcalloc((size_t)c->batch, sizeof *cpu);
    drop7_game_play_batch(&x->rules, c->player, c->seeds, c->batch, DROP7_DEFAULT_MAX_MOVES, x->o->threads, cpu, NULL);
    c->match = 1;
    for (int i = 0; i < c->batch; i++) {
        char msg[200];
        if (drop7_record_diff(&c->rec[i], &cpu[i], msg, sizeof msg)) {
            if (!x->nwrong++)
                gv_fail(&x->wrong, GV_ERR_WRONG, "%s %s game %d (seed %llu): the GPU's record differs from the CPU's: %s",
                        c->dev->label, player_name(c->player), i, (unsigned long long)c->seeds[i], msg);
            c->match = 0;
            break;
        }
    }
    free(cpu);
    return GV_OK;
}

static void teardown(void *cx, int k)
{
    config *c = &((ctx_t *)cx)->c[k];
    if (c->gpu)
        drop7_gpu_close(c->gpu);
    c->gpu = NULL;
    free(c->seeds), free(c->rec);
    c->seeds = NULL, c->rec = NULL;
}

static gv_status run(void *cx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    ctx_t *x = cx;
    config *c = &x->c[k];
    if (!timed) { /* the warm-up: one call, timed alone to size the timed runs */
        double t0 = gv_now();
        GV_TRY(play(x, c, err));
        double per = gv_now() - t0;
        c->calls = per > 0 ? (long)ceil(x->o->min_time / per) : 1;
        c->calls = c->calls < 1 ? 1 : c->calls > 1000000 ? 1000000 : c->calls;
        double m = 0;
        for (int i = 0; i < c->batch; i++)
            m += c->rec[i].nmoves;
        c->moves = m;
        *units = c->batch;
        return GV_OK;
    }
    for (long i = 0; i < c->calls; i++)
        GV_TRY(play(x, c, err));
    *units = (double)c->batch * (double)c->calls;
    return GV_OK;
}

gv_status drop7_bench_run(const drop7_bench_opts *o, cJSON *rec, gv_err *err)
{
    ctx_t x = {0};
    x.o = o;
    drop7_rules_init(&x.rules, o->mode);
    int n = 0;
    x.c = gv_xcalloc((size_t)o->ndev * o->nplayers * o->nbatches + 1, sizeof(config));
    for (int d = 0; d < o->ndev; d++)
        for (int p = 0; p < o->nplayers; p++)
            for (int b = 0; b < o->nbatches; b++) {
                config *c = &x.c[n++];
                c->dev = &o->devs[d];
                c->player = o->players[p];
                c->batch = o->batches[b];
            }
    if (!n) {
        free(x.c);
        return gv_fail(err, GV_ERR_INPUT, "bench drop7: nothing to measure (no device, player or batch)");
    }
    bench_plan p = {"bench drop7", "games_per_s", 1.0, n, 1, o->repeats, &x, setup, run, teardown, label, o->tel, on_gpu};
    bench_outcome out;
    gv_status st = bench_run(&p, &out, err);
    if (st == GV_OK) {
        cJSON *arr = gv_json_add_arr(rec, "bench_drop7");
        for (int k = 0; k < n; k++) {
            config *c = &x.c[k];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "device", c->dev->label);
            cJSON_AddStringToObject(e, "player", player_name(c->player));
            cJSON_AddStringToObject(e, "mode", o->mode == DROP7_MODE_HARDCORE ? "hardcore" : "normal");
            cJSON_AddNumberToObject(e, "batch", c->batch);
            cJSON_AddNumberToObject(e, "threads", c->dev->kind == DEV_GPU ? 0 : o->threads > 0 ? o->threads : gv_cpu_count());
            bench_entry_add(&p, &out, k, e);
            cJSON_AddNumberToObject(e, "calls", (double)c->calls);
            cJSON_AddNumberToObject(e, "moves", c->moves);
            gv_json_add_num(e, "moves_per_s_median", out.st[k].st.median * c->moves / c->batch);
            if (c->match >= 0)
                cJSON_AddBoolToObject(e, "records_match_cpu", c->match);
            else
                cJSON_AddNullToObject(e, "records_match_cpu");
            cJSON_AddItemToArray(arr, e);
        }
        static const char *const twin[] = {"player", "batch"}, *const series[] = {"device", "player"};
        bench_speedups(arr, "games_per_s_median", twin, 2);
        bench_crossover(arr, gv_json_add_arr(rec, "bench_drop7_crossover"), series, 2);
        bench_outcome_record(&out, rec);
    }
    bench_outcome_free(&out);
    free(x.c);
    if (st == GV_OK && x.nwrong) {
        *err = x.wrong;
        return GV_ERR_WRONG;
    }
    return st;
}
