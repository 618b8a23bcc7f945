/* emu_run.h: the engine of `gpuvet run`: one ROM of any console, headless, through the
 * batch runner; outputs (PNG, WAV, save state, battery, trace, per-frame hashes) written
 * atomically; the test-ROM verdict (testrom.h); a record section "run_<console>". The
 * caller (the command, `gpuvet all`, tests) renders the result. */
#ifndef GV_EMU_EMU_RUN_H
#define GV_EMU_EMU_RUN_H

#include <cJSON.h>

#include "emu/common/emu_batch.h"
#include "emu/common/testrom.h"

typedef struct {
    const char *rom;            /* the ROM file */
    const char *console;        /* a console's name, or NULL to pick it from the file */
    emu_opts opts;
    long frames;                /* frames to run; 0: 60, or with test_rom the limit below */
    int instances, threads;
    dev_id dev;                 /* the GPU of the device renderers (dev/dev.h) */
    emu_renderer video, audio;
    const char *png, *wav;      /* the last frame, the whole sound */
    const char *save_state, *load_state;
    const char *battery;        /* battery file (default: the ROM's name with .sav) */
    int no_battery;             /* neither read nor write a battery file */
    const char *trace;          /* one line per instruction of instance 0 */
    const char *frame_hashes;   /* one line per frame: number, video hash, audio hash */
    int test_rom;               /* run until the ROM's verdict (at most `frames`, default 6000) */
    int verify;                 /* with video native: draw every frame from its log too */
    const char *input;          /* controller input movie (input.h), or NULL */
    const long *reset_at;       /* press reset before these frames (machine frame numbers) */
    int nreset;
} emu_run_opts;

#define EMU_RUN_TEST_FRAMES 6000 /* 100 s of emulated time */

typedef struct {
    const emu_console *con;
    char cart[256];             /* the cartridge, described */
    char warning[256];          /* "" or the cartridge's one-line warning (cart_warning) */
    uint64_t rom_hash;
    const char *model;          /* the model emulated, or NULL */
    long frames;                /* frames completed */
    double seconds;
    double cpu_seconds;         /* CPU time of the frames, all threads */
    uint64_t video_hash, audio_hash;
    int mismatched;             /* instances whose hashes differ from instance 0's */
    int battery_loaded;         /* a battery file was read */
    int resets;                 /* --reset-at resets done */
    uint64_t movie_hash;        /* the input movie's XXH3-64 */
    int movie_events;
    const char *battery_path;   /* the battery file used (NULL: none) */
    emu_test test;              /* with test_rom */
    char test_line[640];
    uint8_t *serial;            /* bytes out of the serial port (malloc'd copy), or NULL */
    size_t serial_len;
    int exit_code;              /* GV_EXIT_*: 1 when instances disagree or the test did not pass */
} emu_run_result;

/* Runs o; fills r (free it with emu_run_result_free) and, when rec is not NULL, adds the
 * section "run_<console>" to it. An error (bad ROM, flag, file; no device; I/O) is
 * returned with err filled and nothing written; a wrong result is GV_OK with
 * r->exit_code = GV_EXIT_FAIL. */
gv_status emu_run(const emu_run_opts *o, emu_run_result *r, cJSON *rec, gv_err *err);
void emu_run_result_free(emu_run_result *r);

/* Loads a ROM file and picks its console (name given, or from the header and extension),
 * and describes the cartridge in describe[0..dlen). warning[0..dlen) gets the console's
 * one-line warning on the header (cart_warning) or "". The caller frees the cartridge with
 * (*con)->cart_free. */
gv_status emu_rom_open(const char *path, const char *console, const emu_console **con, void **cart, char *describe,
                       char *warning, size_t dlen, gv_err *err);

#endif
