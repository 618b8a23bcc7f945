/* cmd_nes.c: `gpuvet run nes` (a ROM headless: PNG, WAV, trace, save states, test-ROM
 * status) and `gpuvet bench nes` (throughput per renderer and instance count, every run's
 * and instance's hashes checked against the native renderer's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/hash.h"
#include "core/record.h"
#include "core/stats.h"
#include "emu/common/media.h"
#include "emu/nes/nes_batch.h"
#include "emu/nes/nes_gpu.h"

/* ---- shared helpers ------------------------------------------------------------------- */

static int load_cart(const char *cmd, const char *path, nes_cart *cart)
{
    gv_err err = {{0}};
    if (nes_cart_load(path, cart, &err) != GV_OK) {
        fprintf(stderr, "gpuvet %s: %s\n", cmd, err.msg);
        return GV_EXIT_USAGE;
    }
    return GV_EXIT_OK;
}

static void describe_cart(const char *path, const nes_cart *c)
{
    static const char *mir[] = {"horizontal", "vertical", "four-screen"};
    gv_info("ROM %s: mapper %d (%s), PRG %u KiB, CHR %u KiB %s, %s mirroring%s%s\n", path, c->mapper,
            nes_mapper_name(c->mapper), c->prg_size / 1024, (c->chr ? c->chr_size : c->chr_ram_size) / 1024,
            c->chr ? "ROM" : "RAM", mir[c->mirroring], c->battery ? ", battery" : "", c->nes2 ? ", NES 2.0" : "");
}

static int renderer_arg(const char *cmd, const char *flag, const char *v)
{
    int k = nes_rkind_parse(v);
    if (k < 0)
        fprintf(stderr, "gpuvet %s: %s: '%s' is not one of native, host, device\n", cmd, flag, v);
    return k;
}

/* ---- run ------------------------------------------------------------------------------- */

/* A growing text buffer, written to its file atomically at the end (trace, frame hashes). */
typedef struct {
    char *buf;
    size_t n, cap;
    int overflow;
} tracebuf;

#define TRACE_MAX ((size_t)1 << 31)

static void buf_add(tracebuf *t, const char *s, size_t n)
{
    if (t->n + n > TRACE_MAX) {
        t->overflow = 1;
        return;
    }
    if (t->n + n > t->cap) {
        t->cap = t->cap ? 2 * t->cap : (1u << 20);
        t->buf = gv_xrealloc(t->buf, t->cap);
    }
    memcpy(t->buf + t->n, s, n);
    t->n += n;
}

static void trace_hook(nes *m, void *ctx)
{
    char line[192];
    int n = nes_trace_line(m, line, sizeof line - 1);
    if (n < 0)
        return;
    line[n++] = '\n';
    buf_add(ctx, line, (size_t)n);
}

/* Battery RAM: ROM.sav beside the ROM unless --sav says otherwise. */
static char *sav_path(const char *rom, const char *flag)
{
    if (flag)
        return gv_xstrdup(flag);
    size_t n = strlen(rom);
    char *p = gv_xmalloc(n + 5);
    memcpy(p, rom, n + 1);
    char *dot = strrchr(p, '.'), *slash = strrchr(p, '/');
    if (dot && (!slash || dot > slash))
        *dot = 0;
    strcat(p, ".sav");
    return p;
}

int cmd_run_nes(int argc, char **argv)
{
    const char *cmd = "run nes";
    long frames = -1, instances = 1, threads = 0, gpu = 0;
    const char *png = NULL, *wav = NULL, *video = "native", *audio = "native", *save = NULL, *load = NULL;
    const char *trace = NULL, *sav = NULL, *json = NULL, *fhash = NULL;
    int test_rom = 0, verify = 0, quiet = 0;
    args_spec specs[] = {
        {"--frames", ARGS_INT, &frames, "N", "frames to run (default 60; with --test-rom at most N, default 1800)", 1, 100000000, 0, 0, NULL},
        {"--png", ARGS_STR, &png, "FILE", "write the last frame as a PNG", 0, 0, 0, 0, NULL},
        {"--wav", ARGS_STR, &wav, "FILE", "write the sound (48 kHz, 16-bit mono) as a WAV", 0, 0, 0, 0, NULL},
        {"--video", ARGS_STR, &video, "X", "video renderer: native (default), host or device", 0, 0, 0, 0, NULL},
        {"--audio", ARGS_STR, &audio, "Y", "audio renderer: native (default), host or device", 0, 0, 0, 0, NULL},
        {"--instances", ARGS_INT, &instances, "N", "run N identical instances (default 1); their hashes must agree", 1, 65536, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "host threads (default: every core)", 1, 4096, 0, 0, NULL},
        {"--gpu", ARGS_INT, &gpu, "N", "GPU index for the device renderer (default 0)", 0, 64, 0, 0, NULL},
        {"--save-state", ARGS_STR, &save, "FILE", "save the machine after the run", 0, 0, 0, 0, NULL},
        {"--load-state", ARGS_STR, &load, "FILE", "load a saved machine before the run", 0, 0, 0, 0, NULL},
        {"--test-rom", ARGS_FLAG, &test_rom, NULL, "read the test-ROM status at $6000 (signature DE B0 61); exit 0 pass, 1 fail", 0, 0, 0, 0, NULL},
        {"--trace", ARGS_STR, &trace, "FILE", "write one nestest-style line per instruction", 0, 0, 0, 0, NULL},
        {"--sav", ARGS_STR, &sav, "FILE", "battery RAM file (default: the ROM's name with .sav)", 0, 0, 0, 0, NULL},
        {"--frame-hashes", ARGS_STR, &fhash, "FILE", "write one line per frame: frame number, hash of its RGB frame, hash of its samples", 0, 0, 0, 0, NULL},
        {"--verify", ARGS_FLAG, &verify, NULL, "with --video native: also draw each frame from its log and fail on any difference", 0, 0, 0, 0, NULL},
        {"--json", ARGS_STR, &json, "FILE", "write the run's JSON record to FILE (atomically)", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "print only results and errors", 0, 0, 0, 0, NULL},
    };
    const char *pos[1];
    int npos = 0, rc;
    if (!cli_parse(cmd, "gpuvet run nes ROM [options]",
                   "Runs a NES ROM headless and prints the hashes of its RGB frames and of its sound.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, pos, 1, &npos, &quiet, &rc))
        return rc;
    if (npos != 1) {
        fprintf(stderr, "gpuvet %s: a ROM file is required (gpuvet run nes ROM)\n", cmd);
        return GV_EXIT_USAGE;
    }
    nes_batch_opts bo = {0};
    if ((bo.video = renderer_arg(cmd, "--video", video)) < 0 || (bo.audio = renderer_arg(cmd, "--audio", audio)) < 0)
        return GV_EXIT_USAGE;
    if (verify && bo.video != NES_R_NATIVE) {
        fprintf(stderr, "gpuvet %s: --verify checks the log renderer against --video native\n", cmd);
        return GV_EXIT_USAGE;
    }
    if (frames < 0)
        frames = test_rom ? 1800 : 60;
    bo.instances = (int)instances;
    bo.threads = (int)threads;
    bo.gpu = (int)gpu;
    bo.keep_audio = wav != NULL || fhash != NULL;
    bo.verify = verify;

    nes_cart cart;
    if ((rc = load_cart(cmd, pos[0], &cart)) != GV_EXIT_OK)
        return rc;
    describe_cart(pos[0], &cart);
    gv_err err = {{0}};
    nes_batch *b = NULL;
    uint8_t *data = NULL;
    char *savp = NULL;
    tracebuf tb = {0}, fh = {0};
    cJSON *rec = gv_record_new(cmd, argc, argv);
    rc = GV_EXIT_OK;
    gv_status s = nes_batch_new(&cart, &bo, &b, &err);
    if (s != GV_OK)
        goto fail;
    if (load) {
        size_t len;
        if ((s = gv_read_file(load, 64u << 20, &data, &len, &err)) != GV_OK)
            goto fail;
        for (int i = 0; i < bo.instances && s == GV_OK; i++)
            s = nes_state_load(nes_batch_machine(b, i), data, len, &err);
        free(data);
        data = NULL;
        if (s != GV_OK) {
            char m2[GV_ERRLEN];
            memcpy(m2, err.msg, sizeof m2);
            gv_fail(&err, s, "%.200s: %.300s", load, m2);
            goto fail;
        }
    }
    if (cart.battery && cart.prg_ram_size) {
        savp = sav_path(pos[0], sav);
        FILE *f = fopen(savp, "rb");
        if (f) {
            fclose(f);
            size_t len;
            if ((s = gv_read_file(savp, 1u << 20, &data, &len, &err)) != GV_OK)
                goto fail;
            if (len != cart.prg_ram_size) {
                s = gv_fail(&err, GV_ERR_INPUT, "%s: battery file has %zu bytes, the cartridge has %u", savp, len,
                            cart.prg_ram_size);
                goto fail;
            }
            for (int i = 0; i < bo.instances; i++)
                memcpy(nes_batch_machine(b, i)->prg_ram, data, len);
            free(data);
            data = NULL;
        }
    }
    if (trace)
        nes_batch_machine(b, 0)->trace = trace_hook, nes_batch_machine(b, 0)->trace_ctx = &tb;

    double t0 = gv_now();
    long ran = 0;
    int status = -1, reset_at = -1;
    char msg[512] = "";
    if (fhash) {
        /* frame by frame, hashing what each frame added */
        for (ran = 0; ran < frames && s == GV_OK; ran++) {
            size_t before = nes_batch_audio0(b)->n;
            if ((s = nes_batch_run(b, 1, &err)) != GV_OK)
                break;
            const gv_sbuf *a = nes_batch_audio0(b);
            char line[96], vh[17], ah[17];
            gv_hash_hex(gv_hash64(nes_batch_rgb0(b), NES_RGB_BYTES), vh);
            gv_hash_hex(gv_hash64(a->s + before, (a->n - before) * sizeof *a->s), ah);
            int n = snprintf(line, sizeof line, "%llu %s %s\n",
                             (unsigned long long)nes_batch_machine(b, 0)->frame - 1, vh, ah);
            buf_add(&fh, line, (size_t)n);
        }
    } else if (!test_rom) {
        s = nes_batch_run(b, (int)frames, &err);
        ran = frames;
    } else {
        for (ran = 0; ran < frames; ran++) {
            if ((s = nes_batch_run(b, 1, &err)) != GV_OK)
                break;
            nes *m = nes_batch_machine(b, 0);
            status = nes_test_status(m, msg, sizeof msg);
            if (status == 0x81 && reset_at < 0) {
                reset_at = (int)ran + 6; /* the protocol asks for a reset after at least 100 ms */
            } else if (reset_at >= 0 && ran >= reset_at) {
                for (int i = 0; i < bo.instances; i++)
                    nes_reset(nes_batch_machine(b, i));
                reset_at = -1;
            } else if (status >= 0 && status < 0x80) {
                ran++;
                break;
            }
        }
    }
    double secs = gv_now() - t0;
    if (s != GV_OK)
        goto fail;
    nes_hashes h0 = nes_batch_hashes(b, 0);
    int disagree = 0;
    for (int i = 1; i < bo.instances; i++) {
        nes_hashes hi = nes_batch_hashes(b, i);
        if (hi.video != h0.video || hi.audio != h0.audio) {
            fprintf(stderr, "gpuvet %s: instance %d's hashes differ from instance 0's\n", cmd, i);
            disagree = 1;
            break;
        }
    }
    char hv[17], ha[17];
    gv_hash_hex(h0.video, hv);
    gv_hash_hex(h0.audio, ha);
    gv_info("ran %ld frames in %.3f s (%.0f frames/s): video %s, audio %s, %ld instance%s\n", ran, secs,
            secs > 0 ? (double)ran * (double)bo.instances / secs : 0.0, video, audio, instances, instances > 1 ? "s" : "");
    printf("video_hash %s\naudio_hash %s\n", hv, ha);
    cJSON *r = gv_json_add_obj(rec, "run_nes");
    cJSON_AddStringToObject(r, "rom", pos[0]);
    char rh[17];
    gv_hash_hex(cart.hash, rh);
    cJSON_AddStringToObject(r, "rom_hash", rh);
    cJSON_AddStringToObject(r, "video", video);
    cJSON_AddStringToObject(r, "audio", audio);
    gv_json_add_num(r, "instances", (double)instances);
    gv_json_add_num(r, "frames", (double)ran);
    cJSON_AddStringToObject(r, "video_hash", hv);
    cJSON_AddStringToObject(r, "audio_hash", ha);
    cJSON_AddBoolToObject(r, "instances_agree", !disagree);
    if (disagree)
        rc = GV_EXIT_FAIL;
    if (png && (s = gv_png_write_rgb(png, nes_batch_rgb0(b), NES_W, NES_H, &err)) != GV_OK)
        goto fail;
    if (wav) {
        const gv_sbuf *a = nes_batch_audio0(b);
        if ((s = gv_wav_write_s16(wav, a->s, a->n, NES_AUDIO_HZ, 1, &err)) != GV_OK)
            goto fail;
    }
    if (save) {
        size_t len;
        if ((s = nes_state_save(nes_batch_machine(b, 0), &data, &len, &err)) != GV_OK ||
            (s = gv_write_file_atomic(save, data, len, &err)) != GV_OK)
            goto fail;
        free(data);
        data = NULL;
    }
    if (savp && (s = gv_write_file_atomic(savp, nes_batch_machine(b, 0)->prg_ram, cart.prg_ram_size, &err)) != GV_OK)
        goto fail;
    if (trace) {
        if (tb.overflow)
            gv_warn("the trace was cut at %zu bytes", (size_t)TRACE_MAX);
        if ((s = gv_write_file_atomic(trace, tb.buf ? tb.buf : "", tb.n, &err)) != GV_OK)
            goto fail;
    }
    if (fhash && (s = gv_write_file_atomic(fhash, fh.buf ? fh.buf : "", fh.n, &err)) != GV_OK)
        goto fail;
    if (test_rom) {
        cJSON_AddNumberToObject(r, "test_status", status);
        cJSON_AddStringToObject(r, "test_message", msg);
        if (status < 0) {
            printf("test ROM: no status signature (DE B0 61 at $6001) after %ld frames\n", ran);
            rc = GV_EXIT_FAIL;
        } else if (status >= 0x80) {
            printf("test ROM: did not finish within %ld frames (status $%02X)%s%s\n", ran, status, msg[0] ? ": " : "", msg);
            rc = GV_EXIT_FAIL;
        } else if (status != 0) {
            printf("test ROM: failed with status $%02X: %s\n", status, msg);
            rc = GV_EXIT_FAIL;
        } else {
            printf("test ROM: passed: %s\n", msg);
        }
    }
    if (json && (s = gv_record_finish_write(rec, rc, json, &err)) != GV_OK)
        goto fail;
    goto done;
fail:
    fprintf(stderr, "gpuvet %s: %s\n", cmd, err.msg);
    rc = gv_status_exit(s);
done:
    free(data);
    free(savp);
    free(tb.buf);
    free(fh.buf);
    cJSON_Delete(rec);
    nes_batch_free(b);
    nes_cart_free(&cart);
    return rc;
}

/* ---- bench ---------------------------------------------------------------------------- */

/* The native single-instance reference, kept running: the cumulative hashes after each
 * frame, so a run of any length can be checked against the same frames. */
typedef struct {
    nes_batch *b;
    nes_hashes *h;
    long n, cap;
} reference;

static gv_status ref_extend(reference *r, long frames, gv_err *err)
{
    while (r->n < frames) {
        gv_status s = nes_batch_run(r->b, 1, err);
        if (s != GV_OK)
            return s;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 4096;
            r->h = gv_xrealloc(r->h, (size_t)r->cap * sizeof *r->h);
        }
        r->h[r->n++] = nes_batch_hashes(r->b, 0);
    }
    return GV_OK;
}

typedef struct {
    int video, audio, instances;
    long frames;
    double fps_median, fps_best, secs_median, load_before, load_after;
    double fps_cpu_median; /* instance-frames per second of this process's CPU time */
    nes_hashes h;
    int ok;
} bench_entry;

/* CPU time this process has used, all threads (seconds). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double load1(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* One configuration: an untimed warm-up run, then `repeats` timed runs from power-on; every
 * run's every instance must give the reference hashes for its frames. */
static gv_status bench_one(const nes_cart *cart, const nes_batch_opts *bo, long frames_opt, double seconds,
                           int repeats, reference *ref, bench_entry *e, cJSON *runs, gv_err *err)
{
    nes_batch *b = NULL;
    gv_status s = nes_batch_new(cart, bo, &b, err);
    if (s != GV_OK)
        return s;
    long frames = frames_opt > 0 ? frames_opt : 60;
    double t0 = gv_now();
    s = nes_batch_run(b, (int)frames, err);
    double warm = gv_now() - t0;
    if (s == GV_OK && frames_opt <= 0) { /* --seconds: size the timed runs from the warm-up */
        double per_frame = warm / (double)frames;
        frames = (long)(seconds / (per_frame > 1e-9 ? per_frame : 1e-9));
        if (frames < 10)
            frames = 10;
        if (frames > 1000000)
            frames = 1000000;
    }
    e->frames = frames;
    if (s == GV_OK)
        s = ref_extend(ref, frames, err);
    double *fps = gv_xcalloc((size_t)repeats, sizeof *fps), *secs = gv_xcalloc((size_t)repeats, sizeof *secs);
    double *fps_cpu = gv_xcalloc((size_t)repeats, sizeof *fps_cpu);
    e->ok = 1;
    e->load_before = load1();
    nes_hashes want = ref->n >= frames ? ref->h[frames - 1] : (nes_hashes){0, 0};
    for (int r = 0; r < repeats && s == GV_OK; r++) {
        nes_batch_power(b);
        double a = gv_now(), ca = cpu_seconds();
        s = nes_batch_run(b, (int)frames, err);
        secs[r] = gv_now() - a;
        fps[r] = (double)frames * bo->instances / secs[r];
        fps_cpu[r] = (double)frames * bo->instances / (cpu_seconds() - ca);
        cJSON *run = cJSON_CreateObject();
        nes_hashes h0 = nes_batch_hashes(b, 0);
        char hv[17], ha[17];
        gv_hash_hex(h0.video, hv);
        gv_hash_hex(h0.audio, ha);
        cJSON_AddStringToObject(run, "video", hv);
        cJSON_AddStringToObject(run, "audio", ha);
        cJSON_AddItemToArray(runs, run);
        for (int i = 0; i < bo->instances; i++) {
            nes_hashes hi = nes_batch_hashes(b, i);
            if (hi.video != want.video || hi.audio != want.audio) {
                if (e->ok)
                    gv_error("bench nes: video %s audio %s, %d instances: run %d instance %d hashes differ from the "
                             "native renderer's over %ld frames", nes_rkind_name(bo->video), nes_rkind_name(bo->audio),
                             bo->instances, r + 1, i, frames);
                e->ok = 0;
            }
        }
        e->h = h0;
    }
    e->load_after = load1();
    gv_stats st;
    gv_stats_compute(fps, repeats, &st);
    e->fps_median = st.median;
    e->fps_best = st.max;
    e->secs_median = gv_median(secs, repeats);
    e->fps_cpu_median = gv_median(fps_cpu, repeats);
    free(fps);
    free(secs);
    free(fps_cpu);
    nes_batch_free(b);
    return s;
}

int cmd_bench_nes(int argc, char **argv)
{
    const char *cmd = "bench nes";
    long frames = 0, repeats = 5, threads = 0, gpu = 0;
    double seconds = 0;
    args_str_list video = {0}, audio = {0};
    args_int_list inst = {0};
    const char *json = NULL;
    int quiet = 0;
    args_spec specs[] = {
        {"--frames", ARGS_INT, &frames, "F", "frames per instance in each run", 1, 10000000, 0, 0, NULL},
        {"--seconds", ARGS_DOUBLE, &seconds, "S", "instead of --frames: size each run to take about S seconds (default 2)", 0, 0, 0.01, 3600, NULL},
        {"--repeats", ARGS_INT, &repeats, "R", "timed runs per configuration (default 5), after one untimed warm-up", 1, 1000, 0, 0, NULL},
        {"--video", ARGS_CHOICE_LIST, &video, "LIST", "video renderers: native, host, device (default native,host; native,device with a GPU)", 0, 0, 0, 0, "native,host,device"},
        {"--audio", ARGS_CHOICE_LIST, &audio, "LIST", "audio renderers (default native)", 0, 0, 0, 0, "native,host,device"},
        {"--instances", ARGS_INT_LIST, &inst, "LIST", "instance counts, e.g. 1,16,64,256,1024 (default 1)", 1, 65536, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "host threads (default: every core)", 1, 4096, 0, 0, NULL},
        {"--gpu", ARGS_INT, &gpu, "N", "GPU index for the device renderer (default 0)", 0, 64, 0, 0, NULL},
        {"--json", ARGS_STR, &json, "FILE", "write the run's JSON record to FILE (atomically)", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "print only results and errors", 0, 0, 0, 0, NULL},
    };
    const char *pos[1];
    int npos = 0, rc;
    if (!cli_parse(cmd, "gpuvet bench nes ROM (--seconds S | --frames F) [--repeats R] [--video LIST] [--audio LIST] [--instances LIST]",
                   "Measures NES emulation throughput (instance-frames per second) per renderer and instance count;\n"
                   "every run's and every instance's hashes must equal the native renderer's.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, pos, 1, &npos, &quiet, &rc))
        return rc;
    if (npos != 1) {
        fprintf(stderr, "gpuvet %s: a ROM file is required (gpuvet bench nes ROM)\n", cmd);
        return GV_EXIT_USAGE;
    }
    if (frames > 0 && seconds > 0) {
        fprintf(stderr, "gpuvet %s: give --frames or --seconds, not both\n", cmd);
        return GV_EXIT_USAGE;
    }
    if (frames <= 0 && seconds <= 0)
        seconds = 2;
    if (!video.n) {
        int has_gpu = nes_gpu_count() > 0;
        snprintf(video.v[0], sizeof video.v[0], "native");
        snprintf(video.v[1], sizeof video.v[1], "%s", has_gpu ? "device" : "host");
        video.n = 2;
    }
    if (!audio.n) {
        snprintf(audio.v[0], sizeof audio.v[0], "native");
        audio.n = 1;
    }
    if (!inst.n) {
        inst.v[0] = 1;
        inst.n = 1;
    }
    nes_cart cart;
    if ((rc = load_cart(cmd, pos[0], &cart)) != GV_EXIT_OK)
        return rc;
    describe_cart(pos[0], &cart);
    gv_err err = {{0}};
    cJSON *rec = gv_record_new(cmd, argc, argv);
    cJSON *arr = gv_json_add_arr(rec, "bench_nes");
    reference ref = {0};
    int nent = video.n * audio.n * inst.n, mismatch = 0;
    bench_entry *ent = gv_xcalloc((size_t)nent, sizeof *ent);
    cJSON **entries = gv_xcalloc((size_t)nent, sizeof *entries);
    const char *gpu_name = NULL;
    nes_batch_opts ro = {0};
    ro.video = NES_R_NATIVE;
    ro.audio = NES_R_NATIVE;
    ro.instances = 1;
    ro.threads = 1;
    gv_status s = nes_batch_new(&cart, &ro, &ref.b, &err);
    char rh[17];
    gv_hash_hex(cart.hash, rh);
    int k = 0;
    for (int vi = 0; vi < video.n && s == GV_OK; vi++)
        for (int ai = 0; ai < audio.n && s == GV_OK; ai++)
            for (int ii = 0; ii < inst.n && s == GV_OK; ii++, k++) {
                nes_batch_opts bo = {0};
                bo.video = nes_rkind_parse(video.v[vi]);
                bo.audio = nes_rkind_parse(audio.v[ai]);
                bo.instances = (int)inst.v[ii];
                bo.threads = (int)threads;
                bo.gpu = (int)gpu;
                bench_entry *e = &ent[k];
                e->video = bo.video;
                e->audio = bo.audio;
                e->instances = bo.instances;
                cJSON *o = cJSON_CreateObject();
                entries[k] = o;
                cJSON *runs = cJSON_CreateArray();
                gv_info("  video %-6s audio %-6s instances %5d ...\n", video.v[vi], audio.v[ai], bo.instances);
                s = bench_one(&cart, &bo, frames, seconds, (int)repeats, &ref, e, runs, &err);
                if (s == GV_OK && bo.video == NES_R_DEVICE && !gpu_name) {
                    nes_batch *tmp;
                    gv_err e3;
                    nes_batch_opts one = bo;
                    one.instances = 1;
                    if (nes_batch_new(&cart, &one, &tmp, &e3) == GV_OK) {
                        gpu_name = gv_xstrdup(nes_batch_gpu_name(tmp));
                        nes_batch_free(tmp);
                    }
                }
                mismatch |= !e->ok;
                char hv[17], ha[17];
                gv_hash_hex(e->h.video, hv);
                gv_hash_hex(e->h.audio, ha);
                cJSON_AddStringToObject(o, "rom", pos[0]);
                cJSON_AddStringToObject(o, "rom_hash", rh);
                cJSON_AddStringToObject(o, "video", video.v[vi]);
                cJSON_AddStringToObject(o, "audio", audio.v[ai]);
                gv_json_add_num(o, "instances", bo.instances);
                gv_json_add_num(o, "frames", (double)e->frames);
                gv_json_add_num(o, "repeats", (double)repeats);
                gv_json_add_num(o, "fps_median", e->fps_median);
                gv_json_add_num(o, "fps_best", e->fps_best);
                gv_json_add_num(o, "seconds_median", e->secs_median);
                gv_json_add_num(o, "fps_per_cpu_second_median", e->fps_cpu_median);
                gv_json_add_num(o, "threads", threads > 0 ? (double)threads : (double)gv_cpu_count());
                cJSON_AddStringToObject(o, "video_hash", hv);
                cJSON_AddStringToObject(o, "audio_hash", ha);
                cJSON_AddBoolToObject(o, "hashes_match_native", e->ok);
                cJSON_AddItemToObject(o, "hashes_per_run", runs);
                gv_json_add_num(o, "load_before", e->load_before);
                gv_json_add_num(o, "load_after", e->load_after);
                cJSON_AddItemToArray(arr, o);
            }
    int done = k;
    /* device over native: same audio renderer and instance count */
    int cross = -1, cross_any = 0;
    double best_ratio = 0;
    int best_n = 0;
    for (int i = 0; i < done; i++) {
        if (ent[i].video == NES_R_NATIVE)
            continue;
        for (int j = 0; j < done; j++)
            if (ent[j].video == NES_R_NATIVE && ent[j].audio == ent[i].audio && ent[j].instances == ent[i].instances &&
                ent[j].fps_median > 0) {
                double ratio = ent[i].fps_median / ent[j].fps_median;
                gv_json_add_num(entries[i], ent[i].video == NES_R_DEVICE ? "device_over_native" : "host_over_native", ratio);
                if (ent[i].video == NES_R_DEVICE) {
                    cross_any = 1;
                    if (ratio > 1 && (cross < 0 || ent[i].instances < cross))
                        cross = ent[i].instances;
                    if (ent[i].instances >= best_n) {
                        best_n = ent[i].instances;
                        best_ratio = ratio;
                    }
                }
            }
    }
    /* the table */
    printf("%-7s %-7s %9s %8s %12s %12s %12s  %s\n", "video", "audio", "instances", "frames", "fps_median", "fps_best",
           "fps/cpu-s", "hashes");
    for (int i = 0; i < done; i++) {
        cJSON *r = cJSON_GetObjectItem(entries[i], "device_over_native");
        if (!r)
            r = cJSON_GetObjectItem(entries[i], "host_over_native");
        printf("%-7s %-7s %9d %8ld %12.0f %12.0f %12.0f  %s", nes_rkind_name(ent[i].video), nes_rkind_name(ent[i].audio),
               ent[i].instances, ent[i].frames, ent[i].fps_median, ent[i].fps_best, ent[i].fps_cpu_median,
               ent[i].ok ? "= native" : "DIFFER");
        if (r)
            printf("  (%.2fx native)", r->valuedouble);
        printf("\n");
    }
    char verdict[512];
    if (s != GV_OK)
        snprintf(verdict, sizeof verdict, "not measured: %.300s", err.msg);
    else if (mismatch)
        snprintf(verdict, sizeof verdict, "%s: a renderer gave hashes that differ from the native renderer's", pos[0]);
    else if (!cross_any)
        snprintf(verdict, sizeof verdict, "%s: renderers agree with the native one; no device entries to compare", pos[0]);
    else if (cross < 0)
        snprintf(verdict, sizeof verdict, "%s: the GPU renderer did not beat native rendering at any measured instance count "
                 "(%.2fx at %d instances)", pos[0], best_ratio, best_n);
    else
        snprintf(verdict, sizeof verdict, "%s: the GPU renderer wins from %d instances on (%.2fx native throughput at %d "
                 "instances)%s", pos[0], cross, best_ratio, best_n, gpu_name ? "" : "");
    printf("verdict: %s\n", verdict);
    cJSON *vv = gv_json_add_arr(rec, "verdict");
    cJSON_AddItemToArray(vv, cJSON_CreateString(verdict));
    if (gpu_name)
        cJSON_AddStringToObject(rec, "gpu", gpu_name);
    rc = s != GV_OK ? gv_status_exit(s) : mismatch ? GV_EXIT_FAIL : GV_EXIT_OK;
    if (s != GV_OK)
        fprintf(stderr, "gpuvet %s: %s\n", cmd, err.msg);
    if (json) {
        gv_err e4;
        if (gv_record_finish_write(rec, rc, json, &e4) != GV_OK) {
            fprintf(stderr, "gpuvet %s: %s\n", cmd, e4.msg);
            if (rc == GV_EXIT_OK)
                rc = GV_EXIT_ENV;
        }
    }
    cJSON_Delete(rec);
    free(ent);
    free(entries);
    free(ref.h);
    free((void *)gpu_name);
    nes_batch_free(ref.b);
    nes_cart_free(&cart);
    return rc;
}
