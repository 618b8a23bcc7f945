/* test_snes_dsp.c: tests of the S-DSP (src/emu/snes/snes_dsp.c).
 *   - documented facts checked directly: the Gaussian table's sums (7FFh..801h), the rate
 *     table's periods and offsets, hand-worked BRR, interpolation, envelope and resampler
 *     values;
 *   - sample by sample against tests/snes/dsp_model.py, a plain-Python model written from the
 *     documentation: 3,000 BRR groups (all headers, extreme history values), 1,792
 *     interpolations, the resampler, and four whole-DSP runs (BRR through the voices, the
 *     envelopes, echo, noise / pitch modulation / KON-KOFF / FLG), comparing every output
 *     sample and every ENDX, ENVX and OUTX value;
 *   - save states: a run interrupted by save/load equals the straight run; bad images refused;
 *   - end to end: an SPC700 program (tests/roms/snes/dsp_play.s, assembled with our ca65
 *     macro pack) plays a BRR sample with ADSR and echo through the $F2/$F3 hook; its output
 *     is checked at spot values worked out by hand in this file and by a pinned hash. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/gv.h"
#include "core/hash.h"
#include "emu/snes/snes_dsp.h"
#include "emu/snes/snes_spc.h"

/* ---- documented facts and hand-worked values ------------------------------------------- */

static void test_tables(void)
{
    /* fullsnes: each four entries gauss[i], [255-i], [256+i], [511-i] sum to 7FFh..801h */
    int lo = 1 << 30, hi = 0;
    for (int i = 0; i < 256; i++) {
        int s = snes_dsp_gauss[i] + snes_dsp_gauss[255 - i] + snes_dsp_gauss[256 + i] + snes_dsp_gauss[511 - i];
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    t_check(lo == 0x7FF && hi == 0x801 && snes_dsp_gauss[0] == 0 && snes_dsp_gauss[511] == 0x519 &&
                snes_dsp_gauss[256] == 0x176,
            "dsp gauss table", "sums of the four taps %03X..%03X (documented 7FF..801), [0]=%X [256]=%X [511]=%X", lo,
            hi, snes_dsp_gauss[0], snes_dsp_gauss[256], snes_dsp_gauss[511]);

    /* rates: count the steps over one full counter cycle (30720 samples): 30720/period; the
     * first step of rate 1 (period 2048, offset 0) at counter 0, of rate 2 (1536, offset 1040)
     * at 496, of rate 3 (1280, offset 536) at 744; rate 0 never. */
    int ok = 1, first[4] = {-1, -1, -1, -1};
    static const int period[32] = {0,   2048, 1536, 1280, 1024, 768, 640, 512, 384, 320, 256, 192, 160, 128, 96, 80,
                                   64,  48,   40,   32,   24,   20,  16,  12,  10,  8,   6,   5,   4,   3,   2,  1};
    for (int r = 0; r < 32; r++) {
        int n = 0;
        for (uint32_t c = 0; c < 30720; c++) {
            if (snes_dsp_rate_fires(r, c)) {
                n++;
                if (r < 4 && first[r] < 0)
                    first[r] = (int)c;
            }
        }
        ok &= n == (r ? 30720 / period[r] : 0);
    }
    t_check(ok && first[0] == -1 && first[1] == 0 && first[2] == 496 && first[3] == 744, "dsp rate table",
            "steps per 30720 samples = 30720/period for all 32 rates; first step of rates 1-3 at %d, %d, %d "
            "(expected 0, 496, 744)", first[1], first[2], first[3]);
}

static void test_hand(void)
{
    int16_t o[4];
    /* shift 12, filter 0, nibbles 7 8 1 F: (n << 12) >> 1 = 14336, -16384, 2048, -2048 */
    snes_dsp_brr_group(0xC0, 0x78, 0x1F, 0, 0, o);
    int ok1 = o[0] == 14336 && o[1] == -16384 && o[2] == 2048 && o[3] == -2048;
    /* shift 13 acts as 12 with nibble >> 3: 7 -> 0, -8 -> -1 -> -2048 */
    int16_t o2[4];
    snes_dsp_brr_group(0xD0, 0x78, 0x00, 0, 0, o2);
    int ok2 = o2[0] == 0 && o2[1] == -2048;
    /* filter 1 with old = 16000, nibble 0: 16000 + (-16000 >> 4) = 15000; next 15000 - 938 = 14062 */
    int16_t o3[4];
    snes_dsp_brr_group(0x04, 0x00, 0x00, 16000, 0, o3);
    int ok3 = o3[0] == 15000 && o3[1] == 14062;
    /* filter 2, old = older = 0x3FFF, shift 12 nibble 7: 14336 + 32766 + (-49149 >> 5 = -1536)
     * - 16383 + 1023 = 30206 -> 15-bit wrap: 30206 - 32768 = -2562 */
    int16_t o4[4];
    snes_dsp_brr_group(0xC8, 0x70, 0x00, 0x3FFF, 0x3FFF, o4);
    int ok4 = o4[0] == -2562;
    t_check(ok1 && ok2 && ok3 && ok4, "dsp brr by hand",
            "f0 s12: %d %d %d %d (14336 -16384 2048 -2048); s13: %d %d (0 -2048); f1: %d %d (15000 14062); "
            "f2 15-bit wrap: %d (-2562)", o[0], o[1], o[2], o[3], o2[0], o2[1], o3[0], o3[1], o4[0]);

    /* a constant 14336 at index 0: (370*14336>>10) + (1305*...) + (374*...) + 0 = 5180 + 18270 +
     * 5236 = 28686, halved 14343 */
    int g = snes_dsp_gauss_interp(0, 14336, 14336, 14336, 14336);
    /* four -4000h at index 0: the three terms -5920 -20880 -5984 = -32784 wrap to +32752 (no
     * overflow handling there), + 0, halved: +3FF8h, the glitch fullsnes documents */
    int g2 = snes_dsp_gauss_interp(0, -0x4000, -0x4000, -0x4000, -0x4000);
    t_check(g == 14343 && g2 == 0x3FF8, "dsp gauss by hand", "constant 14336 -> %d (14343); -4000h x4 -> %d (16376 = +3FF8h)", g,
            g2);

    /* resampler: 32 kHz L = 0, 300, 600, 900 (R the negatives) after the implicit 0: outputs
     * at input positions -1, -1/3, 1/3, 1, 5/3, 7/3 (every 2/3): 0, 0, 100, 300, 500, 700;
     * R[5] = floor((2*-600 + -900 + 1) / 3) = floor(-699.67) = -700 */
    snes_dsp_resampler rs = {0};
    int16_t in[8] = {0, 0, 300, -300, 600, -600, 900, -900}, out[16];
    size_t m = snes_dsp_resample(&rs, in, 4, out);
    t_check(m == 6 && out[0] == 0 && out[2] == 0 && out[4] == 100 && out[6] == 300 && out[8] == 500 && out[10] == 700 &&
                out[11] == -700 && out[9] == -500,
            "dsp resampler by hand", "4 inputs -> %zu outputs (6): L %d %d %d %d %d %d (0 0 100 300 500 700), R[5] %d (-700)",
            m, out[0], out[2], out[4], out[6], out[8], out[10], out[11]);
}

/* KON timing and envelope curves by hand. KON polling happens in even samples (0, 2, ...):
 * a KON written at cycle 32 (during sample 1) is taken in sample 2; the 5 delay samples are
 * 2-6; the first envelope step is in sample 7. GAIN linear increase at rate 31 (+32 a sample,
 * every sample): env 32(k+1) in sample 7+k, so ENVX 2 in sample 7, 126 in sample 69 (7E0h)
 * and 127 in sample 70 (800h clamped to 7FFh). KOFF written during sample 99 is taken in
 * sample 100: release -8 a sample: 2039 in 100, 7 in 354, 0 in 355. With KOFF cleared again,
 * two KON writes in one poll period: only the second takes effect. */
/* The echo unit's address and write enable, by hand. One-entry buffer (EDL 0), no voices,
 * FIR7 = $40 (x1 on the newest entry), EVOLL = $40 (x1/2), MVOL 0: the left output is
 * ((word >> 1) * 64 >> 6) * 64 >> 7 = word >> 2 for the entry's left word. ARAM $2000 holds
 * $1000 (out 1024), $3000 holds $2000 (out 2048), $0000 holds 0.
 *   - ESA is read a sample before its use (fullsnes "Echo Buffer Notes"): ESA $20 written
 *     before sample 0 is used from sample 1 (sample 0 reads base $00: 0), ESA $30 written
 *     before sample 2 from sample 3: 0, 1024, 1024, 2048 (all at once would be 1024, 1024,
 *     2048, 2048);
 *   - echo writes need FLG bit 5 clear AND the SPC's TEST bit 1 (RAM writes) set (fullsnes
 *     "SPC700 I/O Ports": "RAM Write Enable ... SPC700 & S-DSP writes"): with TEST = $08 the
 *     entry at $3000 keeps $2000 although FLG allows writes; with TEST = $0A the sample writes
 *     the echo input, 0 + (fir * EFB 0) = 0. */
static void test_echo_hand(void)
{
    snes_spc *s = malloc(sizeof *s);
    snes_dsp *d = malloc(sizeof *d);
    snes_spc_power(s);
    snes_dsp_power(d, s->ram);
    snes_dsp_attach(d, s);
    s->ram[0x2000] = 0x00, s->ram[0x2001] = 0x10;
    s->ram[0x3000] = 0x00, s->ram[0x3001] = 0x20;
    static const uint8_t regs[][2] = {{0x6C, 0x20}, {0x7D, 0x00}, {0x7F, 0x40}, {0x2C, 0x40}, {0x6D, 0x20}};
    for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
        snes_dsp_write(d, regs[i][0], regs[i][1], 0);
    int16_t out[2 * 8] = {0};
    d->env.out = out, d->env.out_cap = 8;
    snes_dsp_run(d, 64);
    snes_dsp_write(d, SNES_DSP_ESA, 0x30, 64);
    snes_dsp_run(d, 128);
    t_check(out[0] == 0 && out[2] == 1024 && out[4] == 1024 && out[6] == 2048, "dsp echo ESA read a sample early",
            "left out of samples 0-3 %d %d %d %d (0 1024 1024 2048: ESA $20 from sample 1, $30 from sample 3)", out[0],
            out[2], out[4], out[6]);
    snes_spc_bus_write(s, 0xF0, 0x08, 4 * 32, 0); /* TEST: timers on, RAM writes off */
    snes_dsp_write(d, SNES_DSP_FLG, 0x00, 4 * 32); /* FLG: echo writes on */
    snes_dsp_run(d, 6 * 32);
    int kept = s->ram[0x3000] | s->ram[0x3001] << 8;
    snes_spc_bus_write(s, 0xF0, 0x0A, 6 * 32, 0); /* RAM writes on again */
    snes_dsp_run(d, 7 * 32);
    int now = s->ram[0x3000] | s->ram[0x3001] << 8;
    t_check(kept == 0x2000 && now == 0, "dsp echo writes off with TEST bit 1",
            "entry at $3000 after 2 samples with TEST $08, FLG $00: $%04X ($2000 kept); after 1 with TEST $0A: $%04X "
            "($0000 written)", kept, now);
    free(d), free(s);
}

static void test_kon_env_hand(void)
{
    uint8_t *ram = calloc(65536, 1);
    static const uint8_t blk[9] = {0xC3, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77};
    memcpy(ram + 0x1000, blk, 9);
    ram[0x200] = 0x00, ram[0x201] = 0x10, ram[0x202] = 0x00, ram[0x203] = 0x10;
    snes_dsp *d = malloc(sizeof *d);
    snes_dsp_power(d, ram);
    static const uint8_t regs[][2] = {{0x6C, 0x20}, {0x5D, 0x02}, {0x03, 0x10}, {0x05, 0x00}, {0x07, 0xDF},
                                      {0x00, 0x40}, {0x0C, 0x7F}, {0x13, 0x10}, {0x17, 0x7F}};
    for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
        snes_dsp_write(d, regs[i][0], regs[i][1], 0);
    snes_dsp_write(d, SNES_DSP_KON, 0x01, 32);
    int env[400], envx[400], out7 = 0;
    for (int n = 0; n < 400; n++) {
        if (n == 99)
            snes_dsp_write(d, SNES_DSP_KOFF, 0x01, 32 * 99 + 5);
        if (n == 110)
            snes_dsp_write(d, SNES_DSP_KOFF, 0x00, 32 * 110);
        if (n == 120) {
            snes_dsp_write(d, SNES_DSP_KON, 0x01, 32 * 120 + 1);
            snes_dsp_write(d, SNES_DSP_KON, 0x02, 32 * 120 + 20);
        }
        snes_dsp_run(d, 32ull * (n + 1));
        env[n] = d->v[0].env;
        envx[n] = d->reg[SNES_DSP_ENVX];
        if (n == 7)
            out7 = d->v[0].out;
    }
    int ok = env[6] == 0 && envx[7] == 2 && env[7] == 32 && out7 == 224 && envx[69] == 126 && envx[70] == 127 &&
             env[99] == 0x7FF && env[100] == 2039 && env[354] == 7 && env[355] == 0;
    t_check(ok, "dsp kon and envelope by hand",
            "env in sample 6 %d (0), 7 %d (32, ENVX %d, voice out %d = (14343*32)>>11 = 224); ENVX 69 %d (126), 70 %d "
            "(127); release: 99 %d (2047), 100 %d (2039), 354 %d (7), 355 %d (0)",
            env[6], env[7], envx[7], out7, envx[69], envx[70], env[99], env[100], env[354], env[355]);
    t_check(d->v[0].env_mode == SNES_DSP_ENV_RELEASE && d->v[1].env_mode != SNES_DSP_ENV_RELEASE && d->v[1].env > 0,
            "dsp kon latch", "KON 01 then 02 within one poll period: voice 0 stays released (env %d), voice 1 keyed "
            "on (env %d)", d->v[0].env, d->v[1].env);
    free(d);
    free(ram);
}

/* ---- against the Python model ---------------------------------------------------------- */

static const char *find_python(void)
{
    static char py[512];
    const char *cands[] = {getenv("PYTHON"), "python3", "/usr/bin/python3"};
    for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        char cmd[700];
        snprintf(cmd, sizeof cmd, "'%s' -c 'import sys; sys.exit(sys.version_info < (3, 6))' >/dev/null 2>&1", cands[i]);
        if (system(cmd) == 0) {
            snprintf(py, sizeof py, "%s", cands[i]);
            return py;
        }
    }
    return NULL;
}

enum { NOUT = 19 }; /* L R ENDX ENVX0-7 OUTX0-7 */

typedef struct {
    uint16_t n;
    uint8_t reg, val;
} sc_write;

/* Runs one scenario as the model describes it and compares every sample. The DSP is driven
 * through the cycle interface: the writes for sample n happen at SPC cycle 32n. */
static void run_scenario(FILE *f, const char *name, int nsamples)
{
    uint8_t *ram = calloc(65536, 1);
    sc_write *w = malloc(sizeof *w * 4096);
    int *exp = malloc(sizeof *exp * (size_t)nsamples * NOUT);
    int nw = 0, no = 0, bad = 0;
    char line[8192];
    while (fgets(line, sizeof line, f) && strncmp(line, "end", 3) != 0) {
        if (!strncmp(line, "ram ", 4)) {
            unsigned addr;
            char hex[200];
            if (sscanf(line + 4, "%u %199s", &addr, hex) == 2)
                for (size_t k = 0; hex[2 * k] && hex[2 * k + 1]; k++) {
                    unsigned b;
                    sscanf(hex + 2 * k, "%2x", &b);
                    ram[(addr + k) & 0xFFFF] = (uint8_t)b;
                }
        } else if (!strncmp(line, "w ", 2) && nw < 4096) {
            unsigned n, r, v;
            if (sscanf(line + 2, "%u %u %u", &n, &r, &v) == 3)
                w[nw++] = (sc_write){(uint16_t)n, (uint8_t)r, (uint8_t)v};
        } else if (!strncmp(line, "o ", 2) && no < nsamples) {
            char *p = line + 2;
            for (int k = 0; k < NOUT; k++)
                exp[(size_t)no * NOUT + k] = (int)strtol(p, &p, 10);
            no++;
        }
    }
    snes_dsp *d = malloc(sizeof *d);
    snes_dsp_power(d, ram);
    int16_t *out = malloc(sizeof *out * 2 * (size_t)nsamples);
    d->env.out = out;
    d->env.out_cap = (size_t)nsamples;
    int wi = 0, first_bad = -1, bad_field = -1, got_v = 0;
    static const char *const field[3] = {"L", "R", "ENDX"};
    for (int n = 0; n < no; n++) {
        while (wi < nw && w[wi].n == n) {
            snes_dsp_write(d, w[wi].reg, w[wi].val, (uint64_t)n * 32);
            wi++;
        }
        snes_dsp_run(d, (uint64_t)(n + 1) * 32);
        int got[NOUT] = {out[2 * n], out[2 * n + 1], d->endx};
        for (int v = 0; v < 8; v++) {
            got[3 + v] = d->reg[(v << 4) | SNES_DSP_ENVX];
            got[11 + v] = d->reg[(v << 4) | SNES_DSP_OUTX];
        }
        for (int k = 0; k < NOUT; k++) {
            if (got[k] != exp[(size_t)n * NOUT + k]) {
                if (first_bad < 0) {
                    first_bad = n;
                    bad_field = k;
                    got_v = got[k];
                }
                bad++;
            }
        }
    }
    /* a figure that shows the run is not silent */
    long long energy = 0;
    int peak = 0;
    for (int n = 0; n < no; n++) {
        int a = abs(out[2 * n]);
        energy += a;
        peak = a > peak ? a : peak;
    }
    char tname[120];
    snprintf(tname, sizeof tname, "dsp model scenario %s", name);
    if (first_bad < 0)
        t_check(no == nsamples && nw > 0 && peak > 0, tname,
                "%d samples x %d values (L R ENDX ENVX0-7 OUTX0-7) equal to the Python model; %d register writes; "
                "peak |L| %d, mean |L| %lld", no, NOUT, nw, peak, no ? energy / no : 0);
    else {
        char fname[16];
        snprintf(fname, sizeof fname, "%s", bad_field < 3 ? field[bad_field] : bad_field < 11 ? "ENVX" : "OUTX");
        t_check(0, tname, "%d of %d values differ; first at sample %d, %s%s%d: C %d, model %d", bad, no * NOUT,
                first_bad, fname, bad_field >= 3 ? " voice " : "", bad_field >= 3 ? (bad_field - 3) % 8 : 0, got_v,
                exp[(size_t)first_bad * NOUT + bad_field]);
    }
    free(out);
    free(d);
    free(exp);
    free(w);
    free(ram);
}

static void test_model(void)
{
    const char *py = find_python();
    if (!py) {
        t_skip("dsp model", "no python3 found (set PYTHON): the Python model cannot run");
        return;
    }
    const char *root = getenv("GV_ROOT");
    char cmd[2048], path[] = "/tmp/gv-dsp-model-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        t_check(0, "dsp model", "cannot make a temporary file");
        return;
    }
    close(fd);
    /* GV_DSP_SEED picks other random vectors (default 16, the model's own default) */
    const char *seed = getenv("GV_DSP_SEED");
    int sd = seed && *seed ? atoi(seed) : 16;
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/snes/dsp_model.py' %d > '%s'", py, root && *root ? root : ".", sd, path);
    if (system(cmd) != 0) {
        t_check(0, "dsp model", "%s failed", cmd);
        unlink(path);
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        t_check(0, "dsp model", "cannot read %s", path);
        return;
    }
    char line[8192];
    int nbrr = 0, bad_brr = 0, ngauss = 0, bad_gauss = 0, nrs = 0, bad_rs = 0, nsc = 0;
    char first_brr[200] = "", first_gauss[200] = "", first_rs[200] = "";
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "brr ", 4)) {
            int h, b0, b1, p1, p2, e[4];
            if (sscanf(line + 4, "%d %d %d %d %d : %d %d %d %d", &h, &b0, &b1, &p1, &p2, &e[0], &e[1], &e[2], &e[3]) !=
                9)
                continue;
            int16_t o[4];
            snes_dsp_brr_group((uint8_t)h, (uint8_t)b0, (uint8_t)b1, p1, p2, o);
            nbrr++;
            if (o[0] != e[0] || o[1] != e[1] || o[2] != e[2] || o[3] != e[3]) {
                if (!bad_brr++)
                    snprintf(first_brr, sizeof first_brr, "hdr %02X %02X%02X p %d %d: C %d %d %d %d, model %d %d %d %d",
                             h, b0, b1, p1, p2, o[0], o[1], o[2], o[3], e[0], e[1], e[2], e[3]);
            }
        } else if (!strncmp(line, "gauss ", 6)) {
            int i, s[4], e;
            if (sscanf(line + 6, "%d %d %d %d %d : %d", &i, &s[0], &s[1], &s[2], &s[3], &e) != 6)
                continue;
            int o = snes_dsp_gauss_interp(i, s[0], s[1], s[2], s[3]);
            ngauss++;
            if (o != e && !bad_gauss++)
                snprintf(first_gauss, sizeof first_gauss, "i %d s %d %d %d %d: C %d, model %d", i, s[0], s[1], s[2],
                         s[3], o, e);
        } else if (!strncmp(line, "rs ", 3)) {
            char *p = line + 3;
            int n = (int)strtol(p, &p, 10);
            int16_t *in = malloc(sizeof *in * 2 * (size_t)n), *out = malloc(sizeof *out * 2 * snes_dsp_resample_cap((size_t)n));
            for (int k = 0; k < n; k++)
                in[2 * k] = in[2 * k + 1] = (int16_t)strtol(p, &p, 10);
            /* fed in two pieces, to show the state carries across calls */
            snes_dsp_resampler r = {0};
            size_t m = snes_dsp_resample(&r, in, (size_t)n / 2, out);
            m += snes_dsp_resample(&r, in + 2 * (n / 2), (size_t)(n - n / 2), out + 2 * m);
            p = strchr(p, ':');
            size_t k = 0;
            int ok = p != NULL;
            for (p = p ? p + 1 : p; ok; k++) {
                char *q;
                long e = strtol(p, &q, 10);
                if (q == p)
                    break;
                p = q;
                ok &= k < m && out[2 * k] == e && out[2 * k + 1] == e;
            }
            ok &= k == m;
            nrs++;
            if (!ok && !bad_rs++)
                snprintf(first_rs, sizeof first_rs, "%d inputs: C gave %zu outputs, the model %zu (or values differ)",
                         n, m, k);
            free(in);
            free(out);
        } else if (!strncmp(line, "scenario ", 9)) {
            char name[64];
            int ns;
            if (sscanf(line + 9, "%63s %d", name, &ns) == 2 && ns > 0 && ns < 1000000) {
                run_scenario(f, name, ns);
                nsc++;
            }
        }
    }
    fclose(f);
    unlink(path);
    t_check(nbrr == 3000 && !bad_brr, "dsp model brr groups", "%d groups (every header byte, random and extreme "
            "history) equal to the model%s%s", nbrr - bad_brr, bad_brr ? "; first difference: " : "", first_brr);
    t_check(ngauss == 1792 && !bad_gauss, "dsp model gauss", "%d interpolations (all 256 indices) equal to the "
            "model%s%s", ngauss - bad_gauss, bad_gauss ? "; first difference: " : "", first_gauss);
    t_check(nrs == 6 && !bad_rs, "dsp model resampler", "%d streams (1-301 samples, one full-scale alternation) equal "
            "to the model, fed in two pieces%s%s", nrs - bad_rs, bad_rs ? "; " : "", first_rs);
    t_check(nsc == 4, "dsp model scenarios", "%d of 4 whole-DSP scenarios found in the model's output", nsc);
}

/* ---- save states ----------------------------------------------------------------------- */

/* A busy setup: two voices with echo; run 3000 samples straight, and again with a save at
 * 1234 loaded into a fresh DSP (with a copy of ARAM); the outputs must be equal. */
static void setup_busy(snes_dsp *d)
{
    uint8_t *ram = d->env.aram;
    static const uint8_t blk[18] = {0xB0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0,
                                    0xB7, 0x71, 0x17, 0x26, 0x62, 0xE1, 0x1E, 0xD4, 0x4D};
    memcpy(ram + 0x1000, blk, sizeof blk);
    ram[0x200] = 0x00, ram[0x201] = 0x10, ram[0x202] = 0x09, ram[0x203] = 0x10;
    static const uint8_t regs[][2] = {
        {0x6C, 0x05}, {0x5D, 0x02}, {0x0C, 0x70}, {0x1C, 0x70}, {0x2C, 0x30}, {0x3C, 0xD0}, {0x0D, 0x60},
        {0x4D, 0x03}, {0x6D, 0x40}, {0x7D, 0x01}, {0x0F, 0x40}, {0x1F, 0x20}, {0x7F, 0x10}, {0x00, 0x50},
        {0x01, 0x30}, {0x03, 0x0C}, {0x05, 0xB6}, {0x06, 0x4A}, {0x10, 0x60}, {0x11, 0x60}, {0x12, 0x80},
        {0x13, 0x07}, {0x15, 0x00}, {0x17, 0xDB}, {0x2D, 0x02}, {0x3D, 0x00}, {0x4C, 0x03},
    };
    for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
        snes_dsp_write(d, regs[i][0], regs[i][1], 0);
}

static void test_states(void)
{
    enum { N = 3000, CUT = 1234 };
    uint8_t *ram1 = calloc(65536, 1), *ram2 = calloc(65536, 1), *img = malloc(SNES_DSP_STATE_BYTES);
    snes_dsp *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    int16_t *oa = calloc(2 * N, sizeof *oa), *ob = calloc(2 * N, sizeof *ob);
    snes_dsp_power(a, ram1);
    a->env.out = oa, a->env.out_cap = N;
    setup_busy(a);
    snes_dsp_run(a, 32ull * CUT);
    snes_dsp_state_save(a, img);
    memcpy(ram2, ram1, 65536);
    snes_dsp_write(a, SNES_DSP_KOFF, 0x01, 32ull * 2000);
    snes_dsp_run(a, 32ull * N);
    snes_dsp_power(b, ram2);
    b->env.out = ob + 2 * CUT, b->env.out_cap = N - CUT;
    gv_err e;
    gv_status st = snes_dsp_state_load(b, img, SNES_DSP_STATE_BYTES, &e);
    snes_dsp_write(b, SNES_DSP_KOFF, 0x01, 32ull * 2000);
    snes_dsp_run(b, 32ull * N);
    int same = st == GV_OK && !memcmp(oa + 2 * CUT, ob + 2 * CUT, sizeof *oa * 2 * (N - CUT)) &&
               !memcmp(a, b, SNES_DSP_STATE_BYTES) && !memcmp(ram1, ram2, 65536);
    int nz = 0;
    for (int i = 2 * CUT; i < 2 * N; i++)
        nz += oa[i] != 0;
    t_check(same && nz > 1000, "dsp state round trip", "save at sample %d, load into a fresh DSP, run to %d: outputs, "
            "state (%zu bytes) and ARAM equal (%d non-zero output values)", CUT, N, (size_t)SNES_DSP_STATE_BYTES, nz);

    snes_dsp_state_save(a, img);
    memcpy(b, a, sizeof *b);
    int r1 = snes_dsp_state_load(b, img, SNES_DSP_STATE_BYTES - 1, &e) == GV_ERR_INPUT;
    snes_dsp_voice *vs = (snes_dsp_voice *)(img + offsetof(snes_dsp, v));
    vs[3].brr_off = 2;
    int r2 = snes_dsp_state_load(b, img, SNES_DSP_STATE_BYTES, &e) == GV_ERR_INPUT;
    snes_dsp_state_save(a, img);
    vs[5].env = 0x800;
    int r3 = snes_dsp_state_load(b, img, SNES_DSP_STATE_BYTES, &e) == GV_ERR_INPUT;
    int untouched = !memcmp(a, b, SNES_DSP_STATE_BYTES);
    t_check(r1 && r2 && r3 && untouched, "dsp state bad images", "short image, brr_off 2, env 800h refused with "
            "GV_ERR_INPUT (%s); the DSP left untouched", e.msg);
    free(oa), free(ob), free(a), free(b), free(img), free(ram1), free(ram2);
}

/* The phases one sample is split into: without PMON the eight voice calls give the same
 * output in any order (here 7..0 against 0..7); with PMON they do not (voice 1 then reads
 * voice 0's output of the previous sample), which shows the comparison can fail. Also the
 * DSP's speed on 8 busy voices with echo (information only). */
static int16_t *run_split(int pmon, int reverse, int n)
{
    uint8_t *ram = calloc(65536, 1);
    snes_dsp *d = malloc(sizeof *d);
    int16_t *out = calloc(2 * (size_t)n, sizeof *out);
    snes_dsp_power(d, ram);
    d->env.out = out, d->env.out_cap = (size_t)n;
    setup_busy(d);
    snes_dsp_write(d, SNES_DSP_PMON, (uint8_t)(pmon ? 0x02 : 0x00), 0);
    for (int i = 0; i < n; i++) {
        snes_dsp_sample_begin(d);
        for (int k = 0; k < SNES_DSP_VOICES; k++)
            snes_dsp_sample_voice(d, reverse ? SNES_DSP_VOICES - 1 - k : k);
        snes_dsp_sample_end(d);
    }
    free(d);
    free(ram);
    return out;
}

static void test_split(void)
{
    enum { N = 4000 };
    int16_t *a = run_split(0, 0, N), *b = run_split(0, 1, N), *c = run_split(1, 0, N), *e = run_split(1, 1, N);
    int same = !memcmp(a, b, sizeof *a * 2 * N), differ = memcmp(c, e, sizeof *c * 2 * N) != 0;
    t_check(same && differ, "dsp voices separable", "no PMON: voices run 7..0 give the same %d samples as 0..7; with "
            "PMON bit 1 the orders differ (%s)", N, differ ? "they do" : "they do not");
    free(a), free(b), free(c), free(e);

    uint8_t *ram = calloc(65536, 1);
    snes_dsp *d = malloc(sizeof *d);
    snes_dsp_power(d, ram);
    setup_busy(d);
    for (int v = 2; v < 8; v++) { /* six more voices like voice 1 */
        for (int r = 0; r < 8; r++)
            snes_dsp_write(d, (uint8_t)((v << 4) | r), d->reg[0x10 | r], 0);
    }
    snes_dsp_write(d, SNES_DSP_KON, 0xFF, 0);
    enum { NS = 320000 };
    double t0 = gv_now();
    snes_dsp_run(d, 32ull * NS);
    double dt = gv_now() - t0;
    printf("info dsp speed: %.2f million samples/s with 8 voices and echo (%.0fx real time; a 60 Hz frame is "
           "533 samples)\n", NS / dt / 1e6, NS / dt / 32000.0);
    free(d);
    free(ram);
}

/* ---- end to end: an SPC700 program drives the DSP ---------------------------------------- */

static uint8_t *assemble_play(const char *root, size_t *len)
{
    if (system("command -v ca65 >/dev/null 2>&1 && command -v ld65 >/dev/null 2>&1") != 0)
        return NULL;
    char dir[] = "/tmp/gv-dsp-e2e-XXXXXX", cmd[4096], path[1100];
    if (!mkdtemp(dir))
        return NULL;
    snprintf(cmd, sizeof cmd, "ca65 -I '%s/src/emu/snes' -o '%s/p.o' '%s/tests/roms/snes/dsp_play.s' 2>'%s/err' && "
             "ld65 -t none -S '$0200' -o '%s/p.bin' '%s/p.o' 2>>'%s/err'", root, dir, root, dir, dir, dir, dir);
    uint8_t *bin = NULL;
    gv_err e;
    snprintf(path, sizeof path, "%s/p.bin", dir);
    if (system(cmd) != 0 || gv_read_file(path, 0, &bin, len, &e) != GV_OK)
        bin = NULL;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return bin;
}

/* Expected values, worked out by hand (docs/SNES_DSP.md has the rules):
 * the sample block is shift 12, filter 0, nibbles 7: every sample (7 << 12) >> 1 = 14336; at
 * pitch $1000 the Gaussian index stays 0, so the interpolation is 14343 (test_hand). The
 * ADSR attack rate 15 steps +1024 every sample: the first sound sample n0 has envelope 1024,
 * then 2047 (clamped) for good (sustain level 7 is reached at once, sustain rate 0).
 *   n0:   voice (14343*1024)>>11 = 7171; L (7171*64)>>6 = 7171, R (7171*32)>>6 = 3585;
 *         main L (7171*127)>>7 = 910717>>7 = 7114, R (3585*127)>>7 = 455295>>7 = 3556.
 *   n0+1: voice (14343*2047)>>11 = 29360121>>11 = 14335; L 14335, R 7167;
 *         main L 1820545>>7 = 14223, R 910209>>7 = 7111.
 * Echo (EDL 1 = 512 entries, FIR0 = $7F on the oldest of the 8 taps, EVOL $40): what the
 * voice sent in sample n (L 7171 & ~1 = 7170) is read back at n+512 as 7170>>1 = 3585 and
 * reaches FIR0 7 samples later: (3585*127)>>6 = 7113, echo out (7113*64)>>7 = 3556:
 *   n0+519: L 14223 + 3556 = 17779; R: 3585&~1 = 3584 -> 1792 -> (1792*127)>>6 = 3556 ->
 *           1778, R 7111 + 1778 = 8889.
 *   n0+520: L: 14334 -> 7167 -> (7167*127)>>6 = 14222 -> 7111: 14223 + 7111 = 21334; R: 7166 -> 3583 ->
 *           7110 -> 3555: 10666.
 * Before n0 the output is 0 (nothing sounds, the echo buffer at $8000 holds zeros). */
static void test_e2e(const char *root)
{
    size_t len = 0;
    uint8_t *bin = assemble_play(root, &len);
    if (!bin) {
        t_skip("dsp end to end", "ca65/ld65 not installed (Debian package cc65) or dsp_play.s did not assemble");
        return;
    }
    snes_spc *s = malloc(sizeof *s);
    snes_dsp *d = malloc(sizeof *d);
    snes_spc_power(s);
    memcpy(s->ram + 0x200, bin, len);
    s->pc = 0x0200;
    snes_dsp_power(d, s->ram);
    snes_dsp_attach(d, s);
    enum { N = 48000 }; /* 1.5 s */
    int16_t *out = calloc(2 * N, sizeof *out);
    d->env.out = out, d->env.out_cap = N;
    snes_spc_run(s, 32ull * N);
    snes_dsp_run(d, 32ull * N);
    int n0 = -1;
    for (int n = 0; n < N && n0 < 0; n++)
        if (out[2 * n] || out[2 * n + 1])
            n0 = n;
    int ok = n0 > 0 && n0 + 521 < N;
    int v[10] = {0};
    if (ok) {
        int at[5] = {n0, n0 + 1, n0 + 518, n0 + 519, n0 + 520};
        for (int k = 0; k < 5; k++)
            v[2 * k] = out[2 * at[k]], v[2 * k + 1] = out[2 * at[k] + 1];
        ok = v[0] == 7114 && v[1] == 3556 && v[2] == 14223 && v[3] == 7111 && v[4] == 14223 && v[5] == 7111 &&
             v[6] == 17779 && v[7] == 8889 && v[8] == 21334 && v[9] == 10666;
    }
    t_check(ok, "dsp end to end spot values", "SPC700 program keys on at sample %d: (L,R) at n0 (%d,%d) n0+1 (%d,%d) "
            "n0+518 (%d,%d) n0+519 (%d,%d) n0+520 (%d,%d); by hand (7114,3556) (14223,7111) (14223,7111) (17779,8889) "
            "(21334,10666)", n0, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    /* key-off: the program waits for timer 0 (32768 cycles = 1024 samples after it starts it)
     * and writes KOFF; release takes 2047/8 -> 256 samples; by the end the voice is silent. */
    t_check(d->v[0].env_mode == SNES_DSP_ENV_RELEASE && d->v[0].env == 0 && (d->endx & 1) && d->env.out_n == N &&
                d->samples == N,
            "dsp end to end key-off", "after 1.5 s: voice 0 in release with envelope %d (0), ENDX %02X (bit 0: the "
            "looping block's end flag), %llu samples produced", d->v[0].env, d->endx,
            (unsigned long long)d->samples);
    /* the pinned hash of the whole output and of its 48 kHz resampling */
    size_t cap = snes_dsp_resample_cap(N);
    int16_t *o48 = malloc(sizeof *o48 * 2 * cap);
    snes_dsp_resampler rs = {0};
    size_t m = snes_dsp_resample(&rs, out, N, o48);
    uint64_t h32 = gv_hash64(out, sizeof *out * 2 * N), h48 = gv_hash64(o48, sizeof *o48 * 2 * m);
    const uint64_t want32 = 0x0711cf3e115fa776ull, want48 = 0xf1feff57d530f7bdull;
    t_check(h32 == want32 && h48 == want48 && m == 72000, "dsp end to end hash",
            "32 kHz output %016llx (pinned %016llx), 48 kHz %zu samples %016llx (pinned %016llx)",
            (unsigned long long)h32, (unsigned long long)want32, m, (unsigned long long)h48,
            (unsigned long long)want48);
    free(o48), free(out), free(d), free(s), free(bin);
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root || !*root)
        root = ".";
    test_tables();
    test_hand();
    test_kon_env_hand();
    test_echo_hand();
    test_model();
    test_states();
    test_split();
    test_e2e(root);
    return t_done();
}
