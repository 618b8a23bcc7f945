/* all.c: the engine of `gpuvet all` (see all.h). Sizes are chosen for about 90 s on a quiet
 * 2-core CPU; on a GPU the benchmarks add bf16 and the larger batches where it pays. */
#include "app/all.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "core/record.h"
#include "dev/smoke.h"
#include "emu/common/demo_roms.h"
#include "emu/emu_bench.h"
#include "nn/nn_bench.h"
#include "nn/nn_check.h"
#include "nn/nn_soak.h"
#include "sys/probe.h"

#define ADD(s, ...) snprintf((s)->line + strlen((s)->line), sizeof (s)->line - strlen((s)->line), __VA_ARGS__)

static int has_gpu(const all_opts *o)
{
    for (int i = 0; i < o->ndev; i++)
        if (o->devs[i].kind == DEV_GPU)
            return 1;
    return 0;
}

/* A step whose engine stopped with an error: the step's line says why; its exit code. */
static int could_not_run(all_step *s, gv_status st, const gv_err *err)
{
    ADD(s, "could not run: %s", err->msg);
    return gv_status_exit(st);
}

/* What the network steps (check, bench train) sweep, in c's NN_SWEEP_MEMBERS: every device,
 * fp32 and, with a GPU, bf16; GroupNorm (c: nn_check_opts or nn_bench_opts). */
#define ALL_NN_SWEEP(c, o)                                                                                       \
    do {                                                                                                         \
        (c).devs = (o)->devs, (c).ndev = (o)->ndev;                                                              \
        (c).dtypes[(c).ndtypes++] = NN_FP32;                                                                     \
        if (has_gpu(o))                                                                                          \
            (c).dtypes[(c).ndtypes++] = NN_BF16;                                                                 \
        (c).norms[(c).nnorms++] = NN_NORM_GROUP;                                                                 \
    } while (0)

/* ---- the steps: each fills its own record and its line, and returns its exit code --- */

static int step_probe(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    cJSON *p = sys_probe_json(NULL);
    if (o->verbose)
        sys_probe_print(p, stdout);
    sys_probe_summary(p, s->line, sizeof s->line);
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(rec, "host"), "probe", p);
    return GV_EXIT_OK;
}

static int step_smoke(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    cJSON *arr = gv_json_add_arr(rec, "smoke");
    int code = GV_EXIT_OK;
    for (int i = 0; i < o->ndev; i++) {
        if (o->devs[i].kind != DEV_GPU)
            continue;
        smoke_report r;
        int passed = dev_gpu_smoke(o->devs[i].index, &r);
        cJSON_AddItemToArray(arr, dev_smoke_json(&r, o->devs[i].index));
        ADD(s, "%s%s GPU %d%s%s: %d/%d stages passed", s->line[0] ? "; " : "", r.backend, o->devs[i].index,
            r.device[0] ? " " : "", r.device, passed, SMOKE_STAGES);
        for (int k = 0; k < SMOKE_STAGES && passed < SMOKE_STAGES; k++)
            if (r.stage[k].ran && !r.stage[k].ok) {
                ADD(s, " (%s failed: %s)", r.stage[k].name, r.stage[k].detail);
                break;
            }
        if (passed < SMOKE_STAGES)
            code = r.stage[0].ok ? GV_EXIT_FAIL : GV_EXIT_ENV;
    }
    return code;
}

static int step_check(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    nn_check_opts c = {0};
    ALL_NN_SWEEP(c, o);
    c.norms[c.nnorms++] = NN_NORM_BATCH;
    c.channels = 64, c.blocks = 2, c.batch = 16, c.gemm_size = 2048;
    c.seed = 1;
    c.out = o->verbose ? stdout : NULL;
    nn_check_result r;
    gv_status st = nn_check_run(&c, rec, &r, err);
    if (st != GV_OK)
        return could_not_run(s, st, err);
    ADD(s, "%d comparisons against float64, %d failed", r.n, r.nfail);
    if (r.nfail) { /* name the first failures: the details are in the record */
        const cJSON *e;
        int shown = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "check"))
            if (!cJSON_IsTrue(cJSON_GetObjectItem(e, "pass")) && shown++ < 2)
                ADD(s, "%s %s %s %s", shown == 1 ? ": " : "; ", gv_json_str(e, "device", ""),
                    gv_json_str(e, "dtype", ""), gv_json_str(e, "what", ""));
    }
    return r.nfail ? GV_EXIT_FAIL : GV_EXIT_OK;
}

static int step_soak(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    nn_soak_opts c = {0};
    c.devs = o->devs, c.ndev = o->ndev;
    c.dtypes[c.ndtypes++] = NN_FP32;
    c.cfg = (nn_config){32, 2, NN_NORM_GROUP};
    c.batch = 64, c.steps = 60, c.min_drop = 3, c.seed = 1;
    c.tel = o->tel;
    c.out = o->verbose ? stdout : NULL;
    nn_soak_result r;
    gv_status st = nn_soak_run(&c, rec, &r, err);
    if (st != GV_OK)
        return could_not_run(s, st, err);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "soak_runs"))
        ADD(s, "%s%s %s: loss %.3f -> %.3f (fell %.1fx, needs %.0fx): %s", s->line[0] ? "; " : "",
            gv_json_str(e, "device", ""), gv_json_str(e, "dtype", ""), gv_json_num(e, "loss_first"),
            gv_json_num(e, "loss_last"), gv_json_num(e, "loss_ratio"), gv_json_num(e, "min_drop"),
            cJSON_IsTrue(cJSON_GetObjectItem(e, "pass")) ? "passed" : "FAILED");
    return r.failed ? GV_EXIT_FAIL : GV_EXIT_OK;
}

static int step_train(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    nn_bench_opts c = {0};
    ALL_NN_SWEEP(c, o);
    c.channels[c.nchannels++] = 64;
    c.batches[c.nbatches++] = 256;
    c.batches[c.nbatches++] = 1024;
    if (has_gpu(o))
        c.batches[c.nbatches++] = 4096;
    c.blocks = 6, c.repeats = 3, c.warmup = 1, c.seed = 1;
    c.tel = o->tel;
    nn_bench_result r;
    gv_status st = nn_bench_train(&c, rec, &r, err);
    if (st != GV_OK)
        return could_not_run(s, st, err);
    /* per device and dtype: the largest batch's median */
    const cJSON *e, *best = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_train"))
    {
        const cJSON *n = e->next;
        best = e;
        if (n && !strcmp(gv_json_str(n, "device", ""), gv_json_str(e, "device", "")) &&
            !strcmp(gv_json_str(n, "dtype", ""), gv_json_str(e, "dtype", "")))
            continue;
        ADD(s, "%s%s %s %.0f samples/s (64 channels, batch %.0f)", s->line[0] ? "; " : "",
            gv_json_str(best, "device", ""), gv_json_str(best, "dtype", ""), gv_json_num(best, "samples_per_s_median"),
            gv_json_num(best, "batch"));
        if (isfinite(gv_json_num(best, "speedup_vs_cpu")))
            ADD(s, ", %.1fx the CPU", gv_json_num(best, "speedup_vs_cpu"));
    }
    return GV_EXIT_OK;
}

static int step_matmul(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    gemm_bench_opts c = {0};
    c.devs = o->devs, c.ndev = o->ndev;
    c.dtypes[c.ndtypes++] = DEV_GEMM_FP32;
    if (has_gpu(o)) {
        c.dtypes[c.ndtypes++] = DEV_GEMM_TF32;
        c.dtypes[c.ndtypes++] = DEV_GEMM_BF16;
    }
    c.sizes[c.nsizes++] = 256;
    c.sizes[c.nsizes++] = 1024;
    c.sizes[c.nsizes++] = 2048;
    c.repeats = 5, c.min_time = 0.1;
    c.tel = o->tel;
    gemm_bench_result r;
    gv_status st = gemm_bench_run(&c, rec, &r, err);
    if (st != GV_OK)
        return could_not_run(s, st, err);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_matmul"))
        if (gv_json_num(e, "n") == 2048)
            ADD(s, "%s%s %s %.0f GFLOP/s (2048)%s", s->line[0] ? "; " : "", gv_json_str(e, "device", ""),
                gv_json_str(e, "dtype", ""), gv_json_num(e, "gflops_median"),
                cJSON_IsTrue(cJSON_GetObjectItem(e, "spot_check_pass")) ? "" : " WRONG");
    return r.wrong ? GV_EXIT_FAIL : GV_EXIT_OK;
}

/* Our own scene ROMs, NES and Game Boy: the renderers against each other, one instance and
 * a batch (the device renderer with a GPU, the host renderer without). */
static int step_emulation(const all_opts *o, cJSON *rec, all_step *s, gv_err *err)
{
    int code = GV_EXIT_OK, gpu = has_gpu(o);
    for (const emu_demo_rom *d = emu_demo_roms; d->name; d++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", o->dir, d->name);
        gv_status st = emu_demo_rom_write(d, path, err);
        if (st != GV_OK)
            return -1; /* an I/O failure: the caller stops */
        emu_bench_opts b = {0};
        b.rom = path;
        b.video[b.nvideo++] = EMU_R_NATIVE;
        b.video[b.nvideo++] = gpu ? EMU_R_DEVICE : EMU_R_HOST;
        b.audio[b.naudio++] = EMU_R_NATIVE;
        b.instances[b.ninstances++] = 1;
        b.instances[b.ninstances++] = gpu ? 256 : 4 * gv_cpu_count();
        b.seconds = 0.3, b.repeats = 3, b.warmup = 1;
        b.tel = o->tel;
        for (int i = 0; i < o->ndev; i++)
            if (o->devs[i].kind == DEV_GPU) {
                b.dev = o->devs[i];
                break;
            }
        emu_bench_result r;
        st = emu_bench(&b, &r, rec, err);
        if (st != GV_OK) {
            ADD(s, "%s%s: could not run: %s", s->line[0] ? "; " : "", d->name, err->msg);
            code = GV_MAX(code, gv_status_exit(st));
            continue;
        }
        char key[32];
        snprintf(key, sizeof key, "bench_%s", d->console);
        double nat1 = NAN, natn = NAN, alt = NAN;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, key))
        {
            if (strcmp(gv_json_str(e, "rom", ""), path))
                continue;
            int one = gv_json_num(e, "instances") == 1;
            if (!strcmp(gv_json_str(e, "video", ""), "native"))
                *(one ? &nat1 : &natn) = gv_json_num(e, "fps_median");
            else if (!one)
                alt = gv_json_num(e, "fps_median");
        }
        ADD(s, "%s%s: %.0f fps for 1 game, %.0f for %d native, %.0f %s (%.2fx)%s", s->line[0] ? "; " : "", d->name,
            nat1, natn, b.instances[1], alt, gpu ? "device" : "host", natn > 0 ? alt / natn : NAN,
            r.mismatched ? ", renderers DISAGREE" : ", renderers agree");
        if (!gpu && GV_MAX(natn, alt) < nat1) /* the CPU-only verdict names the cause from the record */
            ADD(s, ", %d games below 1 game's rate (%.2fx; the verdict says why)", b.instances[1], GV_MAX(natn, alt) / nat1);
        if (r.mismatched)
            code = GV_EXIT_FAIL;
    }
    return code;
}

/* ---- the run -------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *section[4]; /* what moves from the step's record into the combined one */
    int (*fn)(const all_opts *o, cJSON *rec, all_step *s, gv_err *err);
} step_def;

static const step_def steps[] = {
    {"probe", {NULL}, step_probe},
    {"smoke", {"smoke", NULL}, step_smoke},
    {"check", {"check", "check_summary", "seed", NULL}, step_check},
    {"soak", {"soak_runs", "soak", NULL}, step_soak},
    {"train", {"bench_train", "cpu", NULL}, step_train},
    {"matmul", {"bench_matmul", NULL}, step_matmul},
    {"emulation", {"bench_nes", "bench_gb", "gpu", NULL}, step_emulation},
};

/* The busy-machine warnings of the steps, folded into one line for the combined record. */
typedef struct {
    int steps, cores;
    double before, max;
    char names[128];
} busy_acc;

/* Appends the step's warnings to the combined record's, once each; a busy-machine warning
 * (the harness writes one per benchmark, with that benchmark's load) goes into acc. */
static void take_warnings(cJSON *all, const cJSON *sub, const char *step, busy_acc *acc)
{
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(sub, "load");
    int busy = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(load, "busy"));
    if (busy) {
        double b = gv_json_num(load, "before"), m = gv_json_num(load, "max");
        acc->before = acc->steps ? GV_MIN(acc->before, b) : b;
        acc->max = GV_MAX(acc->max, m);
        acc->cores = (int)gv_json_num(load, "cores");
        size_t n = strlen(acc->names);
        snprintf(acc->names + n, sizeof acc->names - n, "%s%s", acc->steps ? ", " : "", step);
        acc->steps++;
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(sub, "warnings"))
    {
        if (!cJSON_IsString(w) || (busy && !strncmp(w->valuestring, "the machine was busy", 20)))
            continue;
        cJSON *aw = cJSON_GetObjectItemCaseSensitive(all, "warnings"), *x;
        if (!aw)
            aw = gv_json_add_arr(all, "warnings");
        int seen = 0;
        cJSON_ArrayForEach(x, aw) seen |= cJSON_IsString(x) && !strcmp(x->valuestring, w->valuestring);
        if (!seen)
            cJSON_AddItemToArray(aw, cJSON_CreateString(w->valuestring));
    }
}

static void add_busy_warning(cJSON *all, const busy_acc *acc)
{
    if (!acc->steps)
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "the machine was busy during %s: load average %.1f before and up to %.1f during the runs on %d usable cores; "
             "other work competes with the benchmarks, so their figures are low and vary (run it on a quiet machine)",
             acc->names, acc->before, acc->max, acc->cores);
    cJSON *aw = cJSON_GetObjectItemCaseSensitive(all, "warnings");
    if (!aw)
        aw = gv_json_add_arr(all, "warnings");
    cJSON_AddItemToArray(aw, cJSON_CreateString(msg));
}

/* Moves key from sub into all (a reference stays valid: "soak" refers into "soak_runs"). */
static void take(cJSON *all, cJSON *sub, const char *key)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(sub, key);
    if (!it)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(all, key);
    cJSON_AddItemToObject(all, key, cJSON_Duplicate(it, 1));
}

gv_status all_run(const all_opts *o, cJSON *all, all_step_fn fn, void *ctx, int *worst, gv_err *err)
{
    *worst = GV_EXIT_OK;
    busy_acc busy = {0};
    for (size_t i = 0; i < GV_ARRAY_LEN(steps); i++) {
        const step_def *d = &steps[i];
        all_step s = {d->name, "", GV_EXIT_OK};
        if (!strcmp(d->name, "smoke") && !has_gpu(o)) {
            snprintf(s.line, sizeof s.line, "skipped: no GPU among the devices");
            fn(ctx, &s);
            continue;
        }
        cJSON *sub = gv_record_new(d->name, 0, NULL);
        gv_err e = {{0}};
        s.code = d->fn(o, sub, &s, &e);
        if (s.code < 0) { /* an output could not be written */
            cJSON_Delete(sub);
            *err = e;
            return GV_ERR_ENV;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", o->dir, d->name);
        gv_status st = gv_record_finish_write(sub, s.code, path, err);
        if (st != GV_OK) {
            cJSON_Delete(sub);
            return st;
        }
        for (int k = 0; d->section[k]; k++)
            take(all, sub, d->section[k]);
        take_warnings(all, sub, d->name, &busy);
        if (!strcmp(d->name, "probe"))
            take(cJSON_GetObjectItemCaseSensitive(all, "host"), cJSON_GetObjectItemCaseSensitive(sub, "host"), "probe");
        cJSON_Delete(sub);
        if (s.code > *worst)
            *worst = s.code;
        fn(ctx, &s);
    }
    add_busy_warning(all, &busy);
    return GV_OK;
}
