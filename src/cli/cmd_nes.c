/* cmd_nes.c: `gpuvet run nes` (a ROM headless: PNG, WAV, trace, save states, test-ROM
 * status) and `gpuvet bench nes` (throughput per renderer and instance count, every run's
 * and instance's hashes checked against the native renderer's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/hash.h"
#include "core/record.h"
#include "core/stats.h"
#include "emu/common/media.h"
#include "emu/nes/batch.h"
#include "emu/nes/render_gpu.h"

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

typedef struct {
    char *buf;
    size_t n, cap;
    int overflow;
} tracebuf;

#define TRACE_MAX ((size_t)1 << 31)

static void trace_hook(nes *m, void *ctx)
{
    tracebuf *t = ctx;
    char line[192];
    int n = nes_trace_line(m, line, sizeof line - 1);
    if (n < 0)
        return;
    line[n++] = '\n';
    if (t->n + (size_t)n > TRACE_MAX) {
        t->overflow = 1;
        return;
    }
    if (t->n + (size_t)n > t->cap) {
        t->cap = t->cap ? 2 * t->cap : (1u << 20);
        t->buf = gv_xrealloc(t->buf, t->cap);
    }
    memcpy(t->buf + t->n, line, (size_t)n);
    t->n += (size_t)n;
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
    long frames = -1, instances = 1, threads = 0;
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
            if (fh.n + (size_t)n > fh.cap) {
                fh.cap = fh.cap ? 2 * fh.cap : 65536;
                fh.buf = gv_xrealloc(fh.buf, fh.cap);
            }
            memcpy(fh.buf + fh.n, line, (size_t)n);
            fh.n += (size_t)n;
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

int cmd_bench_nes(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuvet bench nes: not in this build yet\n");
    return GV_EXIT_ENV;
}
