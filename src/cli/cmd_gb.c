/* cmd_gb.c: `gpuvet run gb` (run a Game Boy / Color ROM headless: PNG, WAV, trace,
 * test-ROM verdict, save states, battery RAM) and `gpuvet bench gb` (throughput per
 * video/audio renderer and instance count, every run's hashes checked against the
 * native renderers'). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/record.h"
#include "core/stats.h"
#include "emu/common/media.h"
#include "emu/gb/gb.h"
#include "emu/gb/gb_host.h"
#include "emu/gb/gb_batch.h"

/* ---- shared --------------------------------------------------------------------------- */

static int status_exit(gv_status st, const gv_err *err, const char *cmd)
{
    fprintf(stderr, "gpuvet %s: %s\n", cmd, err->msg);
    return gv_status_exit(st);
}

static gv_status open_rom(const char *path, const char *model_s, gb_cart **cart, gb_model *model, gv_err *err)
{
    gv_status st = gb_cart_load_file(path, cart, err);
    if (st != GV_OK)
        return st;
    *model = gb_cart_default_model(*cart);
    if (model_s)
        *model = !strcmp(model_s, "cgb") ? GB_MODEL_CGB : GB_MODEL_DMG;
    if (*model == GB_MODEL_CGB && !(gb_cart_get_info(*cart)->cgb_flag & 0x80)) {
        gb_cart_free(*cart);
        *cart = NULL;
        return gv_fail(err, GV_ERR_INPUT, "%s: --model cgb: the header ($0143) says this is a DMG-only cartridge", path);
    }
    return GV_OK;
}

static const char *mbc_name(int mbc)
{
    return mbc == GB_MBC1 ? "MBC1" : mbc == GB_MBC3 ? "MBC3" : mbc == GB_MBC5 ? "MBC5" : "no MBC";
}

static void hex64(uint64_t v, char *buf)
{
    snprintf(buf, 17, "%016llx", (unsigned long long)v);
}

/* The CPU model line of /proc/cpuinfo (for result records). */
static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ')
                    p++;
                p[strcspn(p, "\n")] = 0;
                snprintf(buf, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

static int parse_renderers(const char *cmd, const char *flag, const char *s, gb_renderer *r)
{
    if (gb_renderer_parse(s, r) != 0) {
        fprintf(stderr, "gpuvet %s: %s: '%s' is not one of native, host, device, none\n", cmd, flag, s);
        return -1;
    }
    return 0;
}

/* ---- run gb --------------------------------------------------------------------------- */

typedef struct {
    long frames, instances, threads;
    const char *model, *video, *audio, *png, *wav, *save_state, *load_state, *battery, *trace, *json;
    int test_rom, quiet;
} run_opts;

/* Test-ROM verdict from the serial output and the LD B,B register signature:
 * 1 passed, 0 failed, -1 no result yet. */
static int test_verdict(gb *g, int trapped, char *why, size_t len)
{
    size_t n;
    const uint8_t *ser = gb_serial_output(g, &n);
    char *text = gv_xmalloc(n + 1);
    if (n)
        memcpy(text, ser, n);
    text[n] = 0;
    int sp = strstr(text, "Passed") != NULL, sf = strstr(text, "Failed") != NULL;
    free(text);
    if (trapped) {
        gb_regs r;
        gb_get_regs(g, &r);
        int sig = r.b == 3 && r.c == 5 && r.d == 8 && r.e == 13 && r.h == 21 && r.l == 34;
        snprintf(why, len, "LD B,B with B,C,D,E,H,L = %u,%u,%u,%u,%u,%u%s", r.b, r.c, r.d, r.e, r.h, r.l,
                 sig ? " (pass signature)" : " (not the pass signature)");
        return sig && !sf;
    }
    if (sp || sf) {
        snprintf(why, len, "serial output says %s", sf ? "Failed" : "Passed");
        return sf ? 0 : 1;
    }
    return -1;
}

static void print_serial(FILE *f, const uint8_t *s, size_t n)
{
    fputs("serial: \"", f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            fputs("\\n", f);
        else if (s[i] == '"' || s[i] == '\\')
            fprintf(f, "\\%c", s[i]);
        else if (s[i] >= 0x20 && s[i] < 0x7F)
            fputc(s[i], f);
        else
            fprintf(f, "\\x%02x", s[i]);
    }
    fputs("\"\n", f);
}

int cmd_run_gb(int argc, char **argv)
{
    run_opts o = {.frames = 60, .instances = 1, .threads = 0};
    long frames_given = -1;
    const args_spec specs[] = {
        {"--frames", ARGS_INT, &frames_given, "N", "frame periods to run (default 60; with --test-rom, the time limit: 6000)", 1, 10000000, 0, 0, NULL},
        {"--model", ARGS_CHOICE, &o.model, "M", "dmg or cgb (default: cgb for CGB cartridges, else dmg)", 0, 0, 0, 0, "dmg,cgb"},
        {"--video", ARGS_CHOICE, &o.video, "R", "video renderer: native, host, device, none (default native)", 0, 0, 0, 0, "native,host,device,none"},
        {"--audio", ARGS_CHOICE, &o.audio, "R", "audio renderer: native, host, device, none (default native)", 0, 0, 0, 0, "native,host,device,none"},
        {"--instances", ARGS_INT, &o.instances, "N", "independent copies run together; all must agree (default 1)", 1, 65535, 0, 0, NULL},
        {"--threads", ARGS_INT, &o.threads, "N", "host threads (default: all cores)", 1, 4096, 0, 0, NULL},
        {"--png", ARGS_STR, &o.png, "FILE", "write the last frame as PNG", 0, 0, 0, 0, NULL},
        {"--wav", ARGS_STR, &o.wav, "FILE", "write the audio (48 kHz 16-bit stereo) as WAV", 0, 0, 0, 0, NULL},
        {"--save-state", ARGS_STR, &o.save_state, "FILE", "write a save state at the end", 0, 0, 0, 0, NULL},
        {"--load-state", ARGS_STR, &o.load_state, "FILE", "start from a save state", 0, 0, 0, 0, NULL},
        {"--battery", ARGS_STR, &o.battery, "FILE", "battery RAM file: loaded if present, written at the end", 0, 0, 0, 0, NULL},
        {"--test-rom", ARGS_FLAG, &o.test_rom, NULL, "stop at the test ROM's verdict (serial Passed/Failed or LD B,B signature); exit 1 unless passed", 0, 0, 0, 0, NULL},
        {"--trace", ARGS_STR, &o.trace, "FILE", "one line per instruction, Gameboy Doctor layout", 0, 0, 0, 0, NULL},
        {"--json", ARGS_STR, &o.json, "FILE", "write the run's JSON record to FILE (atomically)", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &o.quiet, NULL, "print only results and errors", 0, 0, 0, 0, NULL},
    };
    const char *pos[1];
    int npos = 0, code;
    if (!cli_parse("run gb", "gpuvet run gb ROM [options]",
                   "Runs a Game Boy / Game Boy Color ROM headless and prints the video and audio hashes.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, pos, 1, &npos, &o.quiet, &code))
        return code;
    if (npos != 1) {
        fprintf(stderr, "gpuvet run gb: give one ROM file (gpuvet run gb --help)\n");
        return GV_EXIT_USAGE;
    }
    o.frames = frames_given > 0 ? frames_given : o.test_rom ? 6000 : 60;
    gv_err err = {{0}};
    gb_batch_cfg cfg = {0};
    cfg.instances = (int)o.instances;
    cfg.threads = (int)o.threads;
    cfg.video = GB_R_NATIVE;
    cfg.audio = GB_R_NATIVE;
    if ((o.video && parse_renderers("run gb", "--video", o.video, &cfg.video)) ||
        (o.audio && parse_renderers("run gb", "--audio", o.audio, &cfg.audio)))
        return GV_EXIT_USAGE;
    if (o.png && cfg.video == GB_R_NONE) {
        fprintf(stderr, "gpuvet run gb: --png needs a video renderer (not --video none)\n");
        return GV_EXIT_USAGE;
    }
    if (o.wav && cfg.audio == GB_R_NONE) {
        fprintf(stderr, "gpuvet run gb: --wav needs an audio renderer (not --audio none)\n");
        return GV_EXIT_USAGE;
    }
    gb_cart *cart = NULL;
    gb_model model;
    gv_status st = open_rom(pos[0], o.model, &cart, &model, &err);
    if (st != GV_OK)
        return status_exit(st, &err, "run gb");
    const gb_cart_info *ci = gb_cart_get_info(cart);
    if (o.battery && !ci->has_battery) {
        gb_cart_free(cart);
        fprintf(stderr, "gpuvet run gb: --battery: %s has no battery-backed RAM (type $%02X)\n", pos[0], ci->type);
        return GV_EXIT_USAGE;
    }
    uint8_t *state = NULL;
    size_t state_len = 0;
    FILE *trace = NULL;
    gb_batch *b = NULL;
    int rc = GV_EXIT_OK;
    if (o.load_state && (st = gv_read_file(o.load_state, 64u << 20, &state, &state_len, &err)) != GV_OK) {
        rc = status_exit(st, &err, "run gb");
        goto out;
    }
    if (o.trace && !(trace = fopen(o.trace, "w"))) {
        fprintf(stderr, "gpuvet run gb: --trace: cannot create '%s'\n", o.trace);
        rc = GV_EXIT_ENV;
        goto out;
    }
    cfg.cart = cart;
    cfg.model = model;
    cfg.trap = o.test_rom;
    cfg.trace = trace;
    cfg.keep_audio = o.wav != NULL;
    cfg.state = state;
    cfg.state_len = state_len;
    cfg.battery = o.battery;
    if ((st = gb_batch_new(&cfg, &b, &err)) != GV_OK) {
        if (o.load_state && st == GV_ERR_INPUT)
            fprintf(stderr, "gpuvet run gb: --load-state %s: %s\n", o.load_state, err.msg);
        else
            fprintf(stderr, "gpuvet run gb: %s\n", err.msg);
        rc = gv_status_exit(st);
        goto out;
    }
    double t0 = gv_now();
    int done = 0, verdict = -1;
    char why[160] = "";
    if (o.test_rom) {
        /* one frame at a time, looking for the verdict */
        for (long f = 0; f < o.frames && verdict < 0; f++) {
            int d;
            if ((st = gb_batch_run(b, 1, &d, &err)) != GV_OK)
                break;
            gb *g = gb_batch_machine(b, 0);
            verdict = test_verdict(g, gb_trap_hit(g), why, sizeof why);
            done += d;
            if (gb_trap_hit(g))
                break;
        }
    } else {
        st = gb_batch_run(b, (int)o.frames, &done, &err);
    }
    double secs = gv_now() - t0;
    if (st != GV_OK) {
        rc = status_exit(st, &err, "run gb");
        goto out;
    }
    gb *g0 = gb_batch_machine(b, 0);
    char vh[17], ah[17];
    hex64(gb_batch_video_hash(b, 0), vh);
    hex64(gb_batch_audio_hash(b, 0), ah);
    int mism = gb_batch_mismatches(b);
    if (!o.quiet)
        printf("rom: %s \"%s\" (%s, %zu KiB ROM, %zu KiB RAM) model %s\n", pos[0], ci->title, mbc_name(ci->mbc),
               ci->rom_size / 1024, ci->ram_size / 1024, model == GB_MODEL_CGB ? "cgb" : "dmg");
    printf("frames: %d  video: %s  audio: %s  instances: %ld  (%.1f instance-frames/s)\n", done,
           gb_renderer_name(cfg.video), gb_renderer_name(cfg.audio), o.instances,
           secs > 0 ? done * (double)o.instances / secs : 0.0);
    printf("video_hash: %s\naudio_hash: %s\n", cfg.video == GB_R_NONE ? "none" : vh, cfg.audio == GB_R_NONE ? "none" : ah);
    size_t nser;
    const uint8_t *ser = gb_serial_output(g0, &nser);
    if (nser)
        print_serial(stdout, ser, nser);
    if (mism) {
        fprintf(stderr, "gpuvet run gb: %d of %ld instances produced different hashes from instance 0\n", mism, o.instances);
        rc = GV_EXIT_FAIL;
    }
    if (o.test_rom) {
        if (verdict < 0)
            snprintf(why, sizeof why, "no verdict after %d frames", done);
        printf("test-rom: %s (%s)\n", verdict == 1 ? "passed" : "failed", why);
        if (verdict != 1)
            rc = GV_EXIT_FAIL;
    }
    if (o.png) {
        uint8_t *rgb = gv_xmalloc(GB_FB_BYTES);
        if ((st = gb_batch_last_frame(b, rgb, &err)) == GV_OK)
            st = gv_png_write_rgb(o.png, rgb, GB_W, GB_H, &err);
        free(rgb);
        if (st != GV_OK) {
            rc = status_exit(st, &err, "run gb");
            goto out;
        }
    }
    if (o.wav) {
        size_t n;
        const int16_t *lr = gb_batch_audio(b, &n);
        if ((st = gv_wav_write_s16(o.wav, lr, n, GB_AUDIO_RATE, 2, &err)) != GV_OK) {
            rc = status_exit(st, &err, "run gb");
            goto out;
        }
    }
    if (o.save_state) {
        uint8_t *data;
        size_t len;
        if ((st = gb_state_save(g0, &data, &len, &err)) == GV_OK) {
            st = gv_write_file_atomic(o.save_state, data, len, &err);
            free(data);
        }
        if (st != GV_OK) {
            fprintf(stderr, "gpuvet run gb: --save-state %s: %s\n", o.save_state, err.msg);
            rc = gv_status_exit(st);
            goto out;
        }
    }
    if (o.battery && (st = gb_battery_save(g0, o.battery, &err)) != GV_OK) {
        rc = status_exit(st, &err, "run gb");
        goto out;
    }
    if (o.json) {
        cJSON *rec = gv_record_new("run gb", argc, argv);
        cJSON *r = gv_json_add_obj(rec, "run_gb");
        char rh[17];
        hex64(ci->hash, rh);
        cJSON_AddStringToObject(r, "rom", pos[0]);
        cJSON_AddStringToObject(r, "rom_hash", rh);
        cJSON_AddStringToObject(r, "title", ci->title);
        cJSON_AddStringToObject(r, "model", model == GB_MODEL_CGB ? "cgb" : "dmg");
        cJSON_AddStringToObject(r, "video", gb_renderer_name(cfg.video));
        cJSON_AddStringToObject(r, "audio", gb_renderer_name(cfg.audio));
        cJSON_AddNumberToObject(r, "instances", (double)o.instances);
        cJSON_AddNumberToObject(r, "frames", done);
        cJSON_AddStringToObject(r, "video_hash", vh);
        cJSON_AddStringToObject(r, "audio_hash", ah);
        cJSON_AddNumberToObject(r, "mismatched_instances", mism);
        gv_json_add_num(r, "seconds", secs);
        if (o.test_rom)
            cJSON_AddStringToObject(r, "test_rom", verdict == 1 ? "passed" : "failed");
        char *sers = gv_xmalloc(nser + 1);
        if (nser)
            memcpy(sers, ser, nser);
        sers[nser] = 0;
        cJSON_AddStringToObject(r, "serial", sers);
        free(sers);
        if ((st = gv_record_finish_write(rec, rc, o.json, &err)) != GV_OK) {
            cJSON_Delete(rec);
            rc = status_exit(st, &err, "run gb");
            goto out;
        }
        cJSON_Delete(rec);
    }
out:
    gb_batch_free(b);
    if (trace)
        fclose(trace);
    free(state);
    gb_cart_free(cart);
    return rc;
}

/* ---- bench gb ------------------------------------------------------------------------- */

typedef struct {
    gb_renderer video, audio;
    int instances;
    double fps_median, fps_best;
    uint64_t vhash, ahash;
    int ok;
    double ratio; /* device video over native video, same audio and instances; <0 if n/a */
} bench_row;

/* One timed batch run: F frames on N instances. Fails on any hash that differs from the
 * reference (native) hashes. */
static gv_status bench_once(const gb_batch_cfg *base, int n, int frames, uint64_t rv, uint64_t ra, double *secs,
                            uint64_t *vh, uint64_t *ah, int *bad, gv_err *err)
{
    gb_batch_cfg cfg = *base;
    cfg.instances = n;
    gb_batch *b;
    gv_status st = gb_batch_new(&cfg, &b, err);
    if (st != GV_OK)
        return st;
    int done;
    double t0 = gv_now();
    st = gb_batch_run(b, frames, &done, err);
    *secs = gv_now() - t0;
    *bad = 0;
    if (st == GV_OK) {
        *vh = gb_batch_video_hash(b, 0);
        *ah = gb_batch_audio_hash(b, 0);
        for (int i = 0; i < n; i++) {
            if (cfg.video != GB_R_NONE && gb_batch_video_hash(b, i) != rv)
                (*bad)++;
            else if (cfg.audio != GB_R_NONE && gb_batch_audio_hash(b, i) != ra)
                (*bad)++;
        }
    }
    gb_batch_free(b);
    return st;
}

int cmd_bench_gb(int argc, char **argv)
{
    long frames = 600, repeats = 3, threads = 0, warmup = 60;
    const char *model_s = NULL, *json = NULL;
    int quiet = 0;
    args_str_list vlist = {0}, alist = {0};
    args_int_list ilist = {0};
    const args_spec specs[] = {
        {"--frames", ARGS_INT, &frames, "F", "frames per instance per run (default 600)", 1, 10000000, 0, 0, NULL},
        {"--repeats", ARGS_INT, &repeats, "R", "timed runs per configuration (default 3)", 1, 1000, 0, 0, NULL},
        {"--warmup", ARGS_INT, &warmup, "F", "frames of the untimed warm-up run (default 60)", 0, 1000000, 0, 0, NULL},
        {"--video", ARGS_CHOICE_LIST, &vlist, "LIST", "video renderers (default native)", 0, 0, 0, 0, "native,host,device,none"},
        {"--audio", ARGS_CHOICE_LIST, &alist, "LIST", "audio renderers (default native)", 0, 0, 0, 0, "native,host,device,none"},
        {"--instances", ARGS_INT_LIST, &ilist, "LIST", "instance counts, e.g. 1,16,64,256,1024 (default 1)", 1, 65535, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "host threads (default: all cores)", 1, 4096, 0, 0, NULL},
        {"--model", ARGS_CHOICE, &model_s, "M", "dmg or cgb (default from the header)", 0, 0, 0, 0, "dmg,cgb"},
        {"--json", ARGS_STR, &json, "FILE", "write the run's JSON record to FILE (atomically)", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "print only results and errors", 0, 0, 0, 0, NULL},
    };
    const char *pos[1];
    int npos = 0, code;
    if (!cli_parse("bench gb", "gpuvet bench gb ROM [options]",
                   "Measures Game Boy emulation throughput (instance-frames per second) per video/audio renderer\n"
                   "and instance count; every run's hashes must equal the native renderers' (exit 1 otherwise).",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, pos, 1, &npos, &quiet, &code))
        return code;
    if (npos != 1) {
        fprintf(stderr, "gpuvet bench gb: give one ROM file (gpuvet bench gb --help)\n");
        return GV_EXIT_USAGE;
    }
    if (!vlist.n)
        strcpy(vlist.v[vlist.n++], "native");
    if (!alist.n)
        strcpy(alist.v[alist.n++], "native");
    if (!ilist.n)
        ilist.v[ilist.n++] = 1;
    gv_err err = {{0}};
    gb_cart *cart;
    gb_model model;
    gv_status st = open_rom(pos[0], model_s, &cart, &model, &err);
    if (st != GV_OK)
        return status_exit(st, &err, "bench gb");
    gb_batch_cfg base = {0};
    base.cart = cart;
    base.model = model;
    base.threads = (int)threads;
    int nthreads = threads > 0 ? (int)threads : gv_cpu_count();
    /* reference hashes: native video and audio, one instance */
    uint64_t rv = 0, ra = 0;
    double secs;
    int bad;
    base.video = GB_R_NATIVE;
    base.audio = GB_R_NATIVE;
    uint64_t vh, ah;
    if ((st = bench_once(&base, 1, (int)frames, 0, 0, &secs, &rv, &ra, &bad, &err)) != GV_OK) {
        gb_cart_free(cart);
        return status_exit(st, &err, "bench gb");
    }
    int nrows = vlist.n * alist.n * ilist.n, rc = GV_EXIT_OK;
    bench_row *rows = gv_xcalloc((size_t)nrows, sizeof *rows);
    cJSON *rec = gv_record_new("bench gb", argc, argv);
    char cpu[256], rh[17], hv[17], ha[17];
    cpu_model(cpu, sizeof cpu);
    cJSON_AddStringToObject(cJSON_GetObjectItem(rec, "host"), "cpu_model", cpu);
    cJSON *arr = gv_json_add_arr(rec, "bench_gb");
    hex64(gb_cart_get_info(cart)->hash, rh);
    if (!quiet)
        printf("rom %s (%s), %ld frames x %ld repeats, %d host threads, CPU %s\n", pos[0],
               model == GB_MODEL_CGB ? "cgb" : "dmg", frames, repeats, nthreads, cpu);
    printf("%-7s %-7s %9s %14s %14s %8s  %s\n", "video", "audio", "instances", "fps_median", "fps_best", "vs_nat", "hashes");
    /* Every configuration is warmed up, then the timed runs go round the configurations
     * (repeat k of each before repeat k+1 of any), so that a drift in the machine's speed
     * (clocks, other load) during the benchmark falls on all of them alike. */
    double *fps = gv_xcalloc((size_t)nrows * (size_t)repeats, sizeof *fps);
    cJSON **runs = gv_xcalloc((size_t)nrows, sizeof *runs);
    int r = 0;
    for (int vi = 0; vi < vlist.n; vi++)
        for (int ai = 0; ai < alist.n; ai++)
            for (int ii = 0; ii < ilist.n; ii++, r++) {
                bench_row *row = &rows[r];
                gb_renderer_parse(vlist.v[vi], &row->video);
                gb_renderer_parse(alist.v[ai], &row->audio);
                row->instances = (int)ilist.v[ii];
                row->ratio = -1;
                row->ok = 1;
                runs[r] = cJSON_CreateArray();
            }
    for (int k = -1; k < repeats; k++) /* k = -1: the warm-up runs */
        for (r = 0; r < nrows; r++) {
            bench_row *row = &rows[r];
            base.video = row->video;
            base.audio = row->audio;
            if (k < 0) {
                if (warmup > 0 &&
                    (st = bench_once(&base, row->instances, (int)GV_MIN(warmup, frames), rv, ra, &secs, &vh, &ah, &bad, &err)) != GV_OK)
                    goto fail;
                continue;
            }
            if ((st = bench_once(&base, row->instances, (int)frames, rv, ra, &secs, &vh, &ah, &bad, &err)) != GV_OK)
                goto fail;
            fps[(size_t)r * repeats + k] = secs > 0 ? (double)frames * row->instances / secs : 0;
            if (bad)
                row->ok = 0;
            row->vhash = vh;
            row->ahash = ah;
            cJSON *h = cJSON_CreateObject();
            hex64(vh, hv);
            hex64(ah, ha);
            cJSON_AddStringToObject(h, "video", row->video == GB_R_NONE ? "none" : hv);
            cJSON_AddStringToObject(h, "audio", row->audio == GB_R_NONE ? "none" : ha);
            cJSON_AddNumberToObject(h, "mismatched_instances", bad);
            cJSON_AddItemToArray(runs[r], h);
        }
    for (r = 0; r < nrows; r++) {
        bench_row *row = &rows[r];
        gv_stats sts;
        gv_stats_compute(fps + (size_t)r * repeats, repeats, &sts);
        row->fps_median = sts.median;
        row->fps_best = sts.max;
        if (!row->ok)
            rc = GV_EXIT_FAIL;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "rom", pos[0]);
        cJSON_AddStringToObject(e, "rom_hash", rh);
        cJSON_AddStringToObject(e, "model", model == GB_MODEL_CGB ? "cgb" : "dmg");
        cJSON_AddStringToObject(e, "video", gb_renderer_name(row->video));
        cJSON_AddStringToObject(e, "audio", gb_renderer_name(row->audio));
        cJSON_AddNumberToObject(e, "instances", row->instances);
        cJSON_AddNumberToObject(e, "frames", (double)frames);
        cJSON_AddNumberToObject(e, "repeats", (double)repeats);
        gv_json_add_num(e, "fps_median", sts.median);
        gv_json_add_num(e, "fps_best", sts.max);
        gv_json_add_num(e, "cv", sts.cv);
        cJSON_AddNumberToObject(e, "threads", nthreads);
        hex64(row->vhash, hv);
        hex64(row->ahash, ha);
        cJSON_AddStringToObject(e, "video_hash", row->video == GB_R_NONE ? "none" : hv);
        cJSON_AddStringToObject(e, "audio_hash", row->audio == GB_R_NONE ? "none" : ha);
        cJSON_AddBoolToObject(e, "hashes_match_native", row->ok);
        cJSON_AddItemToObject(e, "hashes_per_run", runs[r]);
        runs[r] = NULL;
        cJSON_AddItemToArray(arr, e);
    }
    free(fps);
    free(runs);
    /* device over native, per (audio, instances) */
    for (int i = 0; i < nrows; i++) {
        if (rows[i].video != GB_R_DEVICE)
            continue;
        for (int j = 0; j < nrows; j++)
            if (rows[j].video == GB_R_NATIVE && rows[j].audio == rows[i].audio &&
                rows[j].instances == rows[i].instances && rows[j].fps_median > 0)
                rows[i].ratio = rows[i].fps_median / rows[j].fps_median;
        if (rows[i].ratio >= 0)
            gv_json_add_num(cJSON_GetArrayItem(arr, i), "device_over_native", rows[i].ratio);
    }
    for (int i = 0; i < nrows; i++) {
        char ratio[16] = "-";
        if (rows[i].ratio >= 0)
            snprintf(ratio, sizeof ratio, "%.2fx", rows[i].ratio);
        /* A 'none' renderer has no output to compare: say which output was compared. */
        int nv = rows[i].video == GB_R_NONE, na = rows[i].audio == GB_R_NONE;
        const char *what = nv && na ? "none (no output)" : nv ? "match native (audio only)"
                                                        : na ? "match native (video only)" : "match native";
        printf("%-7s %-7s %9d %14.1f %14.1f %8s  %s\n", gb_renderer_name(rows[i].video),
               gb_renderer_name(rows[i].audio), rows[i].instances, rows[i].fps_median, rows[i].fps_best, ratio,
               rows[i].ok ? what : "MISMATCH");
    }
    /* verdict: correctness, then the crossover where the device video overtakes native */
    cJSON *verdict = gv_json_add_arr(rec, "verdict");
    char line[400];
    int mism = 0;
    for (int i = 0; i < nrows; i++)
        mism += !rows[i].ok;
    if (mism)
        snprintf(line, sizeof line,
                 "Game Boy: %d configuration(s) produced hashes different from the native renderers: do not trust them.", mism);
    else
        snprintf(line, sizeof line, "Game Boy: every renderer and instance produced the native renderers' video and audio hashes.");
    printf("verdict: %s\n", line);
    cJSON_AddItemToArray(verdict, cJSON_CreateString(line));
    int crossover = -1;
    double best_ratio = -1;
    for (int i = 0; i < nrows; i++)
        if (rows[i].ratio >= 0) {
            if (rows[i].ratio > best_ratio)
                best_ratio = rows[i].ratio;
            if (rows[i].ratio >= 1.0 && (crossover < 0 || rows[i].instances < crossover))
                crossover = rows[i].instances;
        }
    if (best_ratio >= 0) {
        if (crossover > 0)
            snprintf(line, sizeof line,
                     "Game Boy: device video overtakes native video from %d instances on; best %.2fx native.", crossover, best_ratio);
        else
            snprintf(line, sizeof line, "Game Boy: device video stays below native video at every instance count measured (best %.2fx).",
                     best_ratio);
        printf("verdict: %s\n", line);
        cJSON_AddItemToArray(verdict, cJSON_CreateString(line));
        if (crossover > 0)
            cJSON_AddNumberToObject(rec, "gb_crossover_instances", crossover);
    }
    /* End to end: every output on the device against every output native, where both
     * rows were measured (the ratios above hold the audio renderer fixed). */
    for (int i = 0; i < nrows; i++) {
        if (rows[i].video != GB_R_DEVICE || rows[i].audio != GB_R_DEVICE)
            continue;
        for (int j = 0; j < nrows; j++)
            if (rows[j].video == GB_R_NATIVE && rows[j].audio == GB_R_NATIVE &&
                rows[j].instances == rows[i].instances && rows[j].fps_median > 0) {
                double e2e = rows[i].fps_median / rows[j].fps_median;
                snprintf(line, sizeof line,
                         "Game Boy: with video and audio both on the device, %d instances run %.2fx as fast as with both native.",
                         rows[i].instances, e2e);
                printf("verdict: %s\n", line);
                cJSON_AddItemToArray(verdict, cJSON_CreateString(line));
                gv_json_add_num(cJSON_GetArrayItem(arr, i), "device_both_over_native_both", e2e);
            }
    }
    if (json && (st = gv_record_finish_write(rec, rc, json, &err)) != GV_OK) {
        fprintf(stderr, "gpuvet bench gb: %s\n", err.msg);
        rc = gv_status_exit(st);
    }
    cJSON_Delete(rec);
    free(rows);
    gb_cart_free(cart);
    return rc;
fail:
    for (r = 0; r < nrows; r++)
        cJSON_Delete(runs[r]);
    free(runs);
    free(fps);
    fprintf(stderr, "gpuvet bench gb: %s\n", err.msg);
    free(rows);
    cJSON_Delete(rec);
    gb_cart_free(cart);
    return gv_status_exit(st);
}
