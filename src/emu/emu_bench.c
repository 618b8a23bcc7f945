/* emu_bench.c: the emulation benchmark engine (see emu_bench.h). */
#include "emu/emu_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness.h"
#include "core/hash.h"
#include "core/record.h"
#include "emu/emu_run.h"

/* Sizing of runs without --frames: at least this many frames (the frames right after
 * power-on are a small share of a run) and at most this many. */
#define EMU_BENCH_MIN_FRAMES 30
#define EMU_BENCH_MAX_FRAMES 1000000

typedef struct {
    uint64_t v, a;
} hashes;

/* The native single-instance reference, kept running: the hashes after each frame, so a
 * run of any length can be checked against the same frames. */
typedef struct {
    emu_batch *b;
    hashes *h;
    long n, cap;
} reference;

typedef struct {
    emu_renderer video, audio;
    int instances;
    emu_batch *b;
    long frames;
    int bad_runs;              /* runs with an instance off the reference */
    cJSON *runs;               /* hashes of every timed run */
    hashes last;
} config;

typedef struct {
    const emu_bench_opts *o;
    const emu_console *con;
    const void *cart;
    const emu_movie *movie;
    reference ref;
    config *c;
} ctx_t;

static gv_status ref_extend(reference *r, long frames, gv_err *err)
{
    while (r->n < frames) {
        int done;
        gv_status s = emu_batch_run(r->b, 1, &done, err);
        if (s != GV_OK)
            return s;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 4096;
            r->h = gv_xrealloc(r->h, (size_t)r->cap * sizeof *r->h);
        }
        r->h[r->n++] = (hashes){emu_batch_video_hash(r->b, 0), emu_batch_audio_hash(r->b, 0)};
    }
    return GV_OK;
}

/* A configuration uses the GPU when one of its renderers is the device's. */
static int on_gpu(void *cx, int k)
{
    const config *c = &((ctx_t *)cx)->c[k];
    return c->video == EMU_R_DEVICE || c->audio == EMU_R_DEVICE;
}

static void label(void *cx, int k, char *buf, size_t len)
{
    const ctx_t *x = cx;
    const config *c = &x->c[k];
    snprintf(buf, len, "%s video %s audio %s x%d", x->con->name, emu_renderer_name(c->video),
             emu_renderer_name(c->audio), c->instances);
}

static gv_status setup(void *cx, int k, gv_err *err)
{
    ctx_t *x = cx;
    config *c = &x->c[k];
    emu_batch_cfg cfg = {0};
    cfg.con = x->con;
    cfg.cart = x->cart;
    cfg.opts = x->o->opts;
    cfg.instances = c->instances;
    cfg.video = c->video;
    cfg.audio = c->audio;
    cfg.threads = x->o->threads;
    cfg.dev = x->o->dev;
    cfg.movie = x->movie;
    c->runs = cJSON_CreateArray();
    return emu_batch_new(&cfg, &c->b, err);
}

static void teardown(void *cx, int k)
{
    emu_batch_free(((ctx_t *)cx)->c[k].b);
    ((ctx_t *)cx)->c[k].b = NULL;
}

/* The untimed start of every run: its first tenth of frames (none below 10 frames). */
static long preroll(long frames)
{
    return frames / 10;
}

/* One run of `frames` frames from power-on; *dt: the seconds of its timed frames, all but
 * the preroll. Not timed: the power-on, the preroll (the first frames after power-on,
 * waking the thread pool, the cores' clocks coming back after the configuration before
 * this one) and the hash checks after the run. */
static gv_status run_frames(config *c, long frames, double *dt, gv_err *err)
{
    emu_batch_power(c->b);
    long pre = preroll(frames);
    int done;
    gv_status s = pre > 0 ? emu_batch_run(c->b, (int)pre, &done, err) : GV_OK;
    double t0 = gv_now();
    if (s == GV_OK)
        s = emu_batch_run(c->b, (int)(frames - pre), &done, err);
    *dt = gv_now() - t0;
    return s;
}

/* Sizes a configuration's runs (no --frames): runs from power-on, starting at
 * EMU_BENCH_MIN_FRAMES frames and growing from each run's rate, until a run that is not the
 * first (the first pays for first-touch memory, the thread pool's start and the first
 * frames' setup) takes at least `seconds` in its timed frames. That last run, of exactly the chosen length, is
 * the real warm-up; every timed run then lasts about as long. */
static gv_status size_runs(config *c, double seconds, gv_err *err)
{
    long f = EMU_BENCH_MIN_FRAMES;
    for (int pass = 0;; pass++) {
        double dt;
        gv_status s = run_frames(c, f, &dt, err);
        if (s != GV_OK)
            return s;
        if ((pass > 0 && dt >= seconds) || f >= EMU_BENCH_MAX_FRAMES || pass >= 12)
            break;
        if (dt < seconds) { /* 10% over what this run's rate predicts, at most 8 times this run:
                             * the frames right after power-on can be far cheaper than later ones */
            double want = GV_MIN(1.1 * (double)f * seconds / (dt > 1e-9 ? dt : 1e-9), 8.0 * (double)f);
            f = want > EMU_BENCH_MAX_FRAMES ? EMU_BENCH_MAX_FRAMES : want > f ? (long)want + 1 : f + 1;
        }
    }
    c->frames = f;
    return GV_OK;
}

/* One run from power-on; the first warm-up sizes the timed runs when no frame count is given. */
static gv_status run(void *cx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    ctx_t *x = cx;
    config *c = &x->c[k];
    gv_status s;
    double dt;
    if (!timed) {
        s = c->frames > 0 ? run_frames(c, c->frames, &dt, err) : size_runs(c, x->o->seconds, err);
        return s != GV_OK ? s : ref_extend(&x->ref, c->frames, err);
    }
    long frames = c->frames;
    if ((s = run_frames(c, frames, &dt, err)) != GV_OK)
        return s;
    *seconds = dt > 0 ? dt : 1e-9;
    *units = (double)(frames - preroll(frames)) * c->instances;
    hashes want = x->ref.h[frames - 1];
    int bad = 0;
    for (int i = 0; i < c->instances; i++)
        if ((c->video != EMU_R_NONE && emu_batch_video_hash(c->b, i) != want.v) ||
            (c->audio != EMU_R_NONE && emu_batch_audio_hash(c->b, i) != want.a))
            bad++;
    c->last = (hashes){emu_batch_video_hash(c->b, 0), emu_batch_audio_hash(c->b, 0)};
    c->bad_runs += bad != 0;
    char hv[17], ha[17];
    gv_hash_hex(c->last.v, hv);
    gv_hash_hex(c->last.a, ha);
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "video", c->video == EMU_R_NONE ? "none" : hv);
    cJSON_AddStringToObject(h, "audio", c->audio == EMU_R_NONE ? "none" : ha);
    cJSON_AddNumberToObject(h, "mismatched_instances", bad);
    cJSON_AddItemToArray(c->runs, h);
    return GV_OK;
}

gv_status emu_bench(const emu_bench_opts *o, emu_bench_result *r, cJSON *rec, gv_err *err)
{
    memset(r, 0, sizeof *r);
    void *cart;
    gv_status st = emu_rom_open(o->rom, o->console, &r->con, &cart, r->cart, r->warning, sizeof r->cart, err);
    if (st != GV_OK)
        return st;
    const emu_console *con = r->con;
    emu_movie movie = {0};
    if (o->input && (st = emu_movie_load(o->input, con, &movie, err)) != GV_OK) {
        con->cart_free(cart);
        return st;
    }
    int n = o->nvideo * o->naudio * o->ninstances;
    ctx_t x = {o, con, cart, o->input ? &movie : NULL, {0}, gv_xcalloc((size_t)n, sizeof(config))};
    int k = 0;
    for (int v = 0; v < o->nvideo; v++)
        for (int a = 0; a < o->naudio; a++)
            for (int i = 0; i < o->ninstances; i++, k++) {
                x.c[k].video = o->device_default && !con->gpu && o->video[v] == EMU_R_DEVICE ? EMU_R_HOST : o->video[v];
                x.c[k].audio = o->audio[a];
                x.c[k].instances = o->instances[i];
                x.c[k].frames = o->frames;
            }
    emu_batch_cfg rc = {0};
    rc.con = con;
    rc.cart = cart;
    rc.opts = o->opts;
    rc.instances = 1;
    rc.threads = 1;
    rc.movie = x.movie;
    bench_outcome out = {0};
    const char *model = NULL;
    if ((st = emu_batch_new(&rc, &x.ref.b, err)) != GV_OK)
        goto done;
    model = con->machine_model(emu_batch_machine(x.ref.b, 0));
    bench_plan p = {"bench", "fps", 1.0, n, o->warmup > 0 ? o->warmup : 1, o->repeats, &x, setup, run, teardown,
                    label, o->tel, on_gpu};
    char name[32];
    snprintf(name, sizeof name, "bench %s", con->name);
    p.name = name;
    /* The device name is read while the configurations are set up. */
    st = bench_run(&p, &out, err);
    if (st != GV_OK)
        goto done;
    char key[32], rh[17], hv[17], ha[17];
    snprintf(key, sizeof key, "bench_%s", con->name);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, key);
    if (!arr)
        arr = gv_json_add_arr(rec, key);
    gv_hash_hex(con->cart_hash(cart), rh);
    int nthreads = o->threads > 0 ? o->threads : gv_cpu_count();
    for (k = 0; k < n; k++) {
        config *c = &x.c[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "console", con->name);
        cJSON_AddStringToObject(e, "rom", o->rom);
        cJSON_AddStringToObject(e, "rom_hash", rh);
        if (model)
            cJSON_AddStringToObject(e, "model", model);
        cJSON_AddStringToObject(e, "video", emu_renderer_name(c->video));
        cJSON_AddStringToObject(e, "audio", emu_renderer_name(c->audio));
        gv_json_add_num(e, "instances", c->instances);
        gv_json_add_num(e, "frames", (double)c->frames);
        gv_json_add_num(e, "frames_timed", (double)(c->frames - preroll(c->frames)));
        gv_json_add_num(e, "threads", nthreads);
        bench_entry_add(&p, &out, k, e);
        gv_hash_hex(c->last.v, hv);
        gv_hash_hex(c->last.a, ha);
        cJSON_AddStringToObject(e, "video_hash", c->video == EMU_R_NONE ? "none" : hv);
        cJSON_AddStringToObject(e, "audio_hash", c->audio == EMU_R_NONE ? "none" : ha);
        cJSON_AddBoolToObject(e, "hashes_match_native", c->bad_runs == 0);
        cJSON_AddItemToObject(e, "hashes_per_run", c->runs);
        c->runs = NULL;
        r->mismatched += c->bad_runs != 0;
        /* against the native video renderer with the same audio renderer and instances */
        for (int j = 0; j < n; j++) {
            const config *d = &x.c[j];
            if (c->video != EMU_R_NATIVE && d->video == EMU_R_NATIVE && d->audio == c->audio &&
                d->instances == c->instances && out.st[j].st.median > 0)
                gv_json_add_num(e, c->video == EMU_R_DEVICE ? "device_over_native" : c->video == EMU_R_HOST
                                                                                          ? "host_over_native"
                                                                                          : "none_over_native",
                                out.st[k].st.median / out.st[j].st.median);
            if (c->video == EMU_R_DEVICE && c->audio == EMU_R_DEVICE && d->video == EMU_R_NATIVE &&
                d->audio == EMU_R_NATIVE && d->instances == c->instances && out.st[j].st.median > 0)
                gv_json_add_num(e, "device_both_over_native_both", out.st[k].st.median / out.st[j].st.median);
        }
        cJSON_AddItemToArray(arr, e);
        r->entries++;
    }
    bench_outcome_record(&out, rec);
done:
    /* the device's name: from a one-instance batch, when a configuration used the device */
    for (k = 0; st == GV_OK && k < n && !r->gpu_name; k++)
        if (x.c[k].video == EMU_R_DEVICE || x.c[k].audio == EMU_R_DEVICE) {
            emu_batch_cfg one = rc;
            one.video = x.c[k].video;
            one.audio = x.c[k].audio;
            emu_batch *b;
            gv_err e2;
            if (emu_batch_new(&one, &b, &e2) == GV_OK) {
                snprintf(r->gpu_buf, sizeof r->gpu_buf, "%s", emu_batch_gpu_name(b));
                r->gpu_name = r->gpu_buf;
                cJSON_AddStringToObject(rec, "gpu", r->gpu_name);
                emu_batch_free(b);
            }
        }
    for (k = 0; k < n; k++)
        cJSON_Delete(x.c[k].runs);
    bench_outcome_free(&out);
    emu_batch_free(x.ref.b);
    free(x.ref.h);
    free(x.c);
    emu_movie_free(&movie);
    con->cart_free(cart);
    return st;
}
