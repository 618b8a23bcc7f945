/* nes_test.h: helpers for the NES C tests: our test ROMs (built once per test program by
 * build_roms.sh into $GV_BUILD/roms/nes), running the gpuvet binary, reading files. */
#ifndef GV_TESTS_NES_TEST_H
#define GV_TESTS_NES_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "emu/common/media.h"

/* Path of our test ROM `name` (e.g. "ppu_scene"), building the ROMs first. Returns NULL
 * after a SKIP line when ca65 is missing (or a FAIL line when a ROM does not build). */
__attribute__((unused)) static const char *nes_rom(const char *name)
{
    static int built = -1;
    static char path[1024];
    const char *b = getenv("GV_BUILD"), *root = getenv("GV_ROOT");
    if (!b || !root) {
        t_check(0, "environment", "GV_BUILD and GV_ROOT must be set (run through make test)");
        return NULL;
    }
    if (built < 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "sh '%s/tests/nes/build_roms.sh' '%s/roms/nes'", root, b);
        int rc = system(cmd);
        built = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
    }
    if (built == 3) {
        t_skip(name, "ca65/ld65 are not installed (Debian package cc65), so the test ROMs cannot be built");
        return NULL;
    }
    if (built != 0) {
        t_check(0, name, "tests/nes/build_roms.sh failed");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/roms/nes/%s.nes", b, name);
    return path;
}

/* A scratch file path under $GV_BUILD/tmp-nes (created). */
__attribute__((unused)) static const char *nes_tmp(const char *file)
{
    static char path[4][1024];
    static int k;
    char *p = path[k++ & 3];
    snprintf(p, 1024, "%s/tmp-nes", getenv("GV_BUILD"));
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    if (system(cmd) != 0)
        return NULL;
    snprintf(p, 1024, "%s/tmp-nes/%s", getenv("GV_BUILD"), file);
    return p;
}

/* Runs `$GPUVET args` (args already quoted as needed); returns the exit status. */
__attribute__((unused)) static int nes_gpuvet(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s", getenv("GPUVET"), args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Reads a whole file into a malloc'd buffer; NULL on failure. */
__attribute__((unused)) static uint8_t *nes_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return d;
}

/* Runs `gpuvet run nes ROM --frames N <out_flag> FILE` (out_flag: "--png" or "--wav") into
 * the scratch file `file`; prints a FAIL line and returns NULL when it fails. */
__attribute__((unused)) static const char *nes_run_to(const char *name, const char *rom, int frames,
                                                      const char *out_flag, const char *file)
{
    const char *path = nes_tmp(file);
    char args[2048];
    snprintf(args, sizeof args, "run nes '%s' --frames %d %s '%s' -q > /dev/null", rom, frames, out_flag, path);
    int rc = nes_gpuvet(args);
    if (!t_check(rc == 0, name, "gpuvet run nes %s --frames %d %s exited %d", strrchr(rom, '/') + 1, frames, out_flag, rc))
        return NULL;
    return path;
}

/* The last frame of `frames` frames of ROM as 256 x 240 RGB (malloc'd), or NULL after a
 * FAIL line. */
__attribute__((unused)) static uint8_t *nes_run_png(const char *name, const char *rom, int frames)
{
    const char *png = nes_run_to(name, rom, frames, "--png", "frame.png");
    if (!png)
        return NULL;
    uint8_t *rgb = NULL;
    int w = 0, h = 0;
    gv_err err;
    gv_status st = gv_png_read_rgb(png, &rgb, &w, &h, &err);
    if (!t_check(st == GV_OK && w == 256 && h == 240, name, "%s", st == GV_OK ? "the PNG is 256 x 240 RGB" : err.msg)) {
        free(rgb);
        return NULL;
    }
    return rgb;
}

/* The sound test ROMs' set-up: `frames` frames of our test ROM `rom_name` into a WAV,
 * read back and checked to be mono 48 kHz with (frames - 5) * 790 samples or more (checks
 * "<label> run" and "<label> WAV"). Returns the samples (the caller frees them), their
 * count in *n; NULL after a FAIL line, or when the ROM is missing (nes_rom said why). */
__attribute__((unused)) static int16_t *nes_run_wav(const char *label, const char *rom_name, int frames, size_t *n)
{
    const char *rom = nes_rom(rom_name);
    if (!rom)
        return NULL;
    char what[96], wavname[96];
    snprintf(what, sizeof what, "%s run", label);
    snprintf(wavname, sizeof wavname, "%s.wav", rom_name);
    const char *wav = nes_run_to(what, rom, frames, "--wav", wavname);
    if (!wav)
        return NULL;
    int16_t *s = NULL;
    int rate = 0, ch = 0;
    gv_err err;
    gv_status st = gv_wav_read_s16(wav, &s, n, &rate, &ch, &err);
    snprintf(what, sizeof what, "%s WAV", label);
    if (!t_check(st == GV_OK && rate == 48000 && ch == 1 && *n > (size_t)(frames - 5) * 790, what,
                 "%zu samples at %d Hz, %d channel(s)", st == GV_OK ? *n : 0, rate, ch)) {
        if (st == GV_OK)
            free(s);
        return NULL;
    }
    return s;
}

/* The NTSC CPU clock (236.25 MHz / 11 / 12) and the samples of a frame at 48 kHz. */
#define CPU_HZ (236250000.0 / 11.0 / 12.0)
#define SPF (48000.0 / 60.0988)

/* Rising zero crossings per second over samples [a, b) (with hysteresis: a tenth of the
 * peak); *rms gets their RMS. */
__attribute__((unused)) static double crossings_hz(const int16_t *s, long a, long b, double *rms)
{
    int peak = 0;
    double acc = 0;
    for (long i = a; i < b; i++) {
        int v = s[i] < 0 ? -s[i] : s[i];
        if (v > peak)
            peak = v;
        acc += (double)s[i] * s[i];
    }
    *rms = sqrt(acc / (double)(b - a));
    int h = peak / 10 > 20 ? peak / 10 : 20, state = 0, n = 0;
    long first = -1, last = -1;
    for (long i = a; i < b; i++) {
        if (state <= 0 && s[i] > h) {
            if (state < 0) {
                if (first < 0)
                    first = i;
                last = i;
                n++;
            }
            state = 1;
        } else if (state >= 0 && s[i] < -h) {
            state = -1;
        }
    }
    /* periods between the first and the last counted crossing */
    return n > 1 ? (double)(n - 1) * 48000.0 / (double)(last - first) : 0;
}

#endif
