/* emu_run.c: the engine of `gpuvet run` (see emu_run.h). */
#include "emu/emu_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/record.h"
#include "emu/common/media.h"
#include "emu/registry.h"

#define ROM_MAX ((size_t)64 << 20)
#define STATE_MAX ((size_t)64 << 20)
#define BATTERY_MAX ((size_t)1 << 20)

gv_status emu_rom_open(const char *path, const char *console, const emu_console **con, void **cart, char *describe,
                       char *warning, size_t dlen, gv_err *err)
{
    warning[0] = 0;
    *con = NULL;
    *cart = NULL;
    uint8_t *data;
    size_t len;
    gv_status st = gv_read_file(path, ROM_MAX, &data, &len, err);
    if (st != GV_OK)
        return st;
    if (console) {
        if (!(*con = emu_console_find(console)))
            st = gv_fail(err, GV_ERR_INPUT, "'%s' is not a console gpuvet emulates (one of %s)", console,
                         emu_console_names());
    } else if (!(*con = emu_console_detect(data, len, path, err))) {
        st = GV_ERR_INPUT;
    }
    if (st == GV_OK)
        st = (*con)->cart_load(data, len, path, cart, err);
    free(data);
    if (st == GV_OK) {
        (*con)->cart_describe(*cart, describe, dlen);
        const char *w = (*con)->cart_warning ? (*con)->cart_warning(*cart) : NULL;
        if (w)
            snprintf(warning, dlen, "%s", w);
    }
    return st;
}

/* ---- streamed text outputs (trace, frame hashes) ------------------------------------- */

typedef struct {
    gv_afile *f;
    char *buf;
    size_t n, cap;
    gv_status st;
    gv_err err;
} textout;

static gv_status text_open(textout *t, const char *path, gv_err *err)
{
    memset(t, 0, sizeof *t);
    t->cap = (size_t)1 << 20;
    t->buf = gv_xmalloc(t->cap);
    return gv_afile_open(path, &t->f, err);
}

static void text_flush(textout *t)
{
    if (t->n && t->st == GV_OK)
        t->st = gv_afile_write(t->f, t->buf, t->n, &t->err);
    t->n = 0;
}

static void text_line(void *ctx, const char *line, size_t len)
{
    textout *t = ctx;
    if (t->n + len + 1 > t->cap)
        text_flush(t);
    if (len + 1 > t->cap)
        return; /* longer than a buffer: never produced by the cores */
    memcpy(t->buf + t->n, line, len);
    t->buf[t->n + len] = '\n';
    t->n += len + 1;
}

/* Commits (ok) or abandons the file; returns the first error. */
static gv_status text_close(textout *t, int ok, gv_err *err)
{
    gv_status st = GV_OK;
    if (t->f) {
        text_flush(t);
        if (ok && t->st == GV_OK) {
            st = gv_afile_commit(t->f, err);
        } else {
            gv_afile_abort(t->f);
            if (t->st != GV_OK) {
                st = t->st;
                *err = t->err;
            }
        }
    }
    free(t->buf);
    memset(t, 0, sizeof *t);
    return st;
}

/* ---- the run -------------------------------------------------------------------------- */

/* The battery file: as given, else the ROM's name with .sav. */
static char *battery_path(const char *rom, const char *flag)
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

/* Runs frame by frame where something must be looked at after each frame (test ROMs,
 * per-frame hashes); otherwise in one call. */
static gv_status run_frames(const emu_run_opts *o, emu_batch *b, emu_run_result *r, textout *fh, gv_err *err)
{
    const emu_console *con = r->con;
    long limit = o->frames > 0 ? o->frames : o->test_rom ? EMU_RUN_TEST_FRAMES : 60;
    gv_status st = GV_OK;
    void *m0 = emu_batch_machine(b, 0);
    /* each --reset-at fires once (a console whose reset is a power cycle counts frames
     * from 0 again) */
    char *fired = gv_xcalloc((size_t)o->nreset + 1, 1);
    if (!o->test_rom && !fh->f) {
        /* in stretches up to the next reset */
        while (r->frames < limit && st == GV_OK) {
            uint64_t now = con->frame_count(m0);
            long n = limit - r->frames;
            for (int i = 0; i < o->nreset; i++) {
                if (fired[i])
                    continue;
                if ((uint64_t)o->reset_at[i] == now) {
                    emu_batch_reset(b);
                    r->resets++;
                    fired[i] = 1;
                } else if ((uint64_t)o->reset_at[i] > now && (long)((uint64_t)o->reset_at[i] - now) < n) {
                    n = (long)((uint64_t)o->reset_at[i] - now);
                }
            }
            int done;
            st = emu_batch_run(b, (int)n, &done, err);
            r->frames += done;
        }
        free(fired);
        return st;
    }
    size_t fbytes = (size_t)con->width * con->height * 3;
    uint8_t *rgb = fh->f ? gv_xmalloc(fbytes) : NULL;
    emu_test_init(&r->test);
    while (r->frames < limit) {
        for (int i = 0; i < o->nreset; i++)
            if (!fired[i] && (uint64_t)o->reset_at[i] == con->frame_count(m0)) {
                emu_batch_reset(b);
                r->resets++;
                fired[i] = 1;
            }
        size_t before;
        emu_batch_audio(b, &before);
        int done;
        if ((st = emu_batch_run(b, 1, &done, err)) != GV_OK)
            break;
        if (o->test_rom) {
            emu_test_view v;
            con->test_view(m0, &v);
            emu_test_action a = emu_test_step(&r->test, &v, r->frames);
            if (a == EMU_TEST_RESUME) {
                continue; /* the batch re-arms the breakpoint and finishes the frame */
            }
            if (a == EMU_TEST_RESET)
                emu_batch_reset(b);
        }
        r->frames += done;
        if (fh->f && done) {
            size_t after;
            const int16_t *s = emu_batch_audio(b, &after);
            if ((st = emu_batch_last_frame(b, rgb, err)) != GV_OK)
                break;
            char line[96], vh[17], ah[17];
            int fw, fhh;
            emu_batch_frame_size(b, &fw, &fhh);
            gv_hash_hex(gv_hash64(rgb, (size_t)fw * fhh * 3), vh);
            gv_hash_hex(gv_hash64(s + before * con->audio_channels,
                                  (after - before) * con->audio_channels * sizeof *s), ah);
            int n = snprintf(line, sizeof line, "%llu %s %s", (unsigned long long)con->frame_count(m0) - 1, vh, ah);
            text_line(fh, line, (size_t)n);
        }
        if (o->test_rom && r->test.verdict != EMU_TEST_NONE)
            break;
    }
    free(rgb);
    free(fired);
    return st;
}

/* key: the 64-bit hash h in hex, or "none" where nothing was hashed. */
static void add_hash(cJSON *obj, const char *key, uint64_t h, int none)
{
    char hex[17];
    gv_hash_hex(h, hex);
    cJSON_AddStringToObject(obj, key, none ? "none" : hex);
}

static void add_record(const emu_run_opts *o, const emu_run_result *r, cJSON *rec)
{
    char key[32];
    snprintf(key, sizeof key, "run_%s", r->con->name);
    cJSON *s = gv_json_add_obj(rec, key);
    cJSON_AddStringToObject(s, "console", r->con->name);
    cJSON_AddStringToObject(s, "rom", o->rom);
    add_hash(s, "rom_hash", r->rom_hash, 0);
    cJSON_AddStringToObject(s, "cart", r->cart);
    if (r->model)
        cJSON_AddStringToObject(s, "model", r->model);
    cJSON_AddStringToObject(s, "video", emu_renderer_name(o->video));
    cJSON_AddStringToObject(s, "audio", emu_renderer_name(o->audio));
    gv_json_add_num(s, "instances", o->instances);
    gv_json_add_num(s, "frames", (double)r->frames);
    gv_json_add_num(s, "seconds", r->seconds);
    gv_json_add_num(s, "cpu_seconds", r->cpu_seconds);
    gv_json_add_num(s, "fps", r->seconds > 0 ? (double)r->frames * o->instances / r->seconds : 0);
    add_hash(s, "video_hash", r->video_hash, o->video == EMU_R_NONE);
    add_hash(s, "audio_hash", r->audio_hash, o->audio == EMU_R_NONE);
    cJSON_AddBoolToObject(s, "instances_agree", r->mismatched == 0);
    gv_json_add_num(s, "mismatched_instances", r->mismatched);
    if (r->battery_path)
        cJSON_AddStringToObject(s, "battery", r->battery_path);
    if (o->input) {
        cJSON *in = gv_json_add_obj(s, "input");
        cJSON_AddStringToObject(in, "movie", o->input);
        add_hash(in, "movie_hash", r->movie_hash, 0);
        gv_json_add_num(in, "events", r->movie_events);
    }
    if (o->nreset)
        gv_json_add_num(s, "resets", r->resets);
    if (o->test_rom) {
        cJSON_AddStringToObject(s, "test_rom", r->test.verdict == EMU_TEST_PASSED   ? "passed"
                                               : r->test.verdict == EMU_TEST_FAILED ? "failed"
                                                                                    : "no verdict");
        if (r->test.protocol)
            cJSON_AddStringToObject(s, "test_protocol", r->test.protocol);
        gv_json_add_num(s, "test_status", r->test.status);
        cJSON_AddStringToObject(s, "test_message", r->test.message);
        gv_json_add_num(s, "test_resets", r->test.resets);
        cJSON_AddStringToObject(s, "test_line", r->test_line);
    }
    if (r->serial_len) {
        char *t = gv_xmalloc(r->serial_len + 1);
        memcpy(t, r->serial, r->serial_len);
        t[r->serial_len] = 0;
        for (size_t i = 0; i < r->serial_len; i++)
            if (!t[i])
                t[i] = ' ';
        cJSON_AddStringToObject(s, "serial", t);
        free(t);
    }
}

gv_status emu_run(const emu_run_opts *o, emu_run_result *r, cJSON *rec, gv_err *err)
{
    memset(r, 0, sizeof *r);
    r->exit_code = GV_EXIT_OK;
    if (o->png && o->video == EMU_R_NONE)
        return gv_fail(err, GV_ERR_INPUT, "--png needs a video renderer (not --video none)");
    if ((o->wav || o->frame_hashes) && o->audio == EMU_R_NONE)
        return gv_fail(err, GV_ERR_INPUT, "%s needs an audio renderer (not --audio none)", o->wav ? "--wav" : "--frame-hashes");
    if (o->frame_hashes && o->video == EMU_R_NONE)
        return gv_fail(err, GV_ERR_INPUT, "--frame-hashes needs a video renderer (not --video none)");
    void *cart;
    gv_status st = emu_rom_open(o->rom, o->console, &r->con, &cart, r->cart, r->warning, sizeof r->cart, err);
    if (st != GV_OK)
        return st;
    const emu_console *con = r->con;
    r->rom_hash = con->cart_hash(cart);
    if (o->battery && !con->battery_size(cart)) {
        con->cart_free(cart);
        return gv_fail(err, GV_ERR_INPUT, "--battery %s: %s has no battery-backed memory (%s)", o->battery, o->rom,
                       r->cart);
    }
    uint8_t *state = NULL, *bat = NULL;
    size_t state_len = 0, bat_len = 0;
    char *batp = NULL;
    gv_lock *batlock = NULL;
    emu_batch *b = NULL;
    textout trace = {0}, fh = {0};
    emu_movie movie = {0};
    if (o->load_state && (st = gv_read_file(o->load_state, STATE_MAX, &state, &state_len, err)) != GV_OK)
        goto out;
    if (o->input && (st = emu_movie_load(o->input, con, &movie, err)) != GV_OK)
        goto out;
    if (con->battery_size(cart) && !o->no_battery) {
        /* Only a file that does not exist means "no save yet": any other failure stops the
         * run before it could overwrite the save. */
        int found;
        batp = battery_path(o->rom, o->battery);
        /* held from the read to the write: two runs of one save never lose each other's game */
        if ((st = gv_lock_output(batp, &batlock, err)) != GV_OK)
            goto out;
        if ((st = gv_read_file_if_exists(batp, BATTERY_MAX, &bat, &bat_len, &found, err)) != GV_OK)
            goto out;
        r->battery_loaded = found;
        r->battery_path = batp; /* owned by r once the run succeeds */
    }
    if (o->trace && (st = text_open(&trace, o->trace, err)) != GV_OK)
        goto out;
    if (o->frame_hashes && (st = text_open(&fh, o->frame_hashes, err)) != GV_OK)
        goto out;
    emu_batch_cfg cfg = {0};
    cfg.con = con;
    cfg.cart = cart;
    cfg.opts = o->opts;
    cfg.instances = o->instances > 0 ? o->instances : 1;
    cfg.video = o->video;
    cfg.audio = o->audio;
    cfg.threads = o->threads;
    cfg.dev = o->dev;
    cfg.keep_audio = o->wav || o->frame_hashes;
    cfg.verify = o->verify;
    cfg.trap = o->test_rom;
    cfg.trace = o->trace ? text_line : NULL;
    cfg.trace_ctx = &trace;
    cfg.state = state;
    cfg.state_len = state_len;
    cfg.battery = bat;
    cfg.battery_len = bat_len;
    cfg.battery_name = batp;
    cfg.movie = o->input ? &movie : NULL;
    if ((st = emu_batch_new(&cfg, &b, err)) != GV_OK) {
        if (o->load_state && st == GV_ERR_INPUT) {
            char m2[GV_ERRLEN];
            memcpy(m2, err->msg, sizeof m2);
            gv_fail(err, st, "--load-state %.200s: %.300s", o->load_state, m2);
        }
        goto out;
    }
    r->model = con->machine_model(emu_batch_machine(b, 0));
    r->movie_hash = movie.hash;
    r->movie_events = movie.n;
    double t0 = gv_now(), c0 = gv_cpu_now();
    st = run_frames(o, b, r, &fh, err);
    r->seconds = gv_now() - t0;
    r->cpu_seconds = gv_cpu_now() - c0;
    if (st != GV_OK)
        goto out;
    r->video_hash = emu_batch_video_hash(b, 0);
    r->audio_hash = emu_batch_audio_hash(b, 0);
    r->mismatched = emu_batch_mismatches(b);
    void *m0 = emu_batch_machine(b, 0);
    emu_test_view v;
    con->test_view(m0, &v);
    if (v.serial_len) {
        r->serial = gv_xmalloc(v.serial_len);
        memcpy(r->serial, v.serial, v.serial_len);
        r->serial_len = v.serial_len;
    }
    if (r->mismatched)
        r->exit_code = GV_EXIT_FAIL;
    if (o->test_rom) {
        emu_test_describe(&r->test, r->frames, r->test_line, sizeof r->test_line);
        if (r->test.verdict != EMU_TEST_PASSED)
            r->exit_code = GV_EXIT_FAIL;
    }
    /* Outputs, each atomic; the first failure stops the rest. */
    if (o->png) {
        uint8_t *rgb = gv_xmalloc((size_t)con->width * con->height * 3);
        int w, h;
        if ((st = emu_batch_last_frame(b, rgb, err)) == GV_OK) {
            emu_batch_frame_size(b, &w, &h);
            st = gv_png_write_rgb(o->png, rgb, w, h, err);
        }
        free(rgb);
        if (st != GV_OK)
            goto out;
    }
    if (o->wav) {
        size_t n;
        const int16_t *s = emu_batch_audio(b, &n);
        if ((st = gv_wav_write_s16(o->wav, s, n, con->audio_rate, con->audio_channels, err)) != GV_OK)
            goto out;
    }
    if (o->save_state) {
        uint8_t *d;
        size_t n;
        if ((st = con->state_save(m0, &d, &n, err)) == GV_OK) {
            st = gv_write_file_atomic(o->save_state, d, n, err);
            free(d);
        }
        if (st != GV_OK)
            goto out;
    }
    if (batp) {
        uint8_t *d;
        size_t n;
        if ((st = con->battery_get(m0, &d, &n, err)) == GV_OK) {
            st = gv_write_file_atomic(batp, d, n, err);
            free(d);
        }
        if (st != GV_OK)
            goto out;
    }
    if ((st = text_close(&trace, 1, err)) != GV_OK || (st = text_close(&fh, 1, err)) != GV_OK)
        goto out;
    if (rec)
        add_record(o, r, rec);
out:;
    gv_err e2; /* a cleanup's own error does not replace the first */
    text_close(&trace, 0, &e2);
    text_close(&fh, 0, &e2);
    emu_batch_free(b);
    emu_movie_free(&movie);
    free(state);
    free(bat);
    gv_unlock_output(batlock);
    if (st != GV_OK) {
        free(batp);
        r->battery_path = NULL;
    }
    con->cart_free(cart);
    return st;
}

void emu_run_result_free(emu_run_result *r)
{
    free(r->serial);
    free((char *)r->battery_path);
    memset(r, 0, sizeof *r);
}
