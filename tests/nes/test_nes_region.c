/* test_nes_region.c: what the region changes that the region ROMs' own checks cannot see
 * (tests/roms/nes/region_test.s checks the timing itself, through --test-rom in
 * test_nes_roms.sh): the picture's colour emphasis (PPUMASK bit 5 is red on the NTSC PPU,
 * green on the PAL and Dendy ones: the NESdev wiki's "Colour emphasis"), the sample clock
 * (48000 samples a second of the region's CPU clock: 236.25 MHz / 11 / 12, 26.6017125 MHz
 * / 16 and / 15), the noise channel's periods (the ROM ends on short-mode noise, period
 * index 8: 202 cycles a step on the NTSC APU, 188 on the PAL one, 93 steps a period,
 * measured by the autocorrelation of the WAV), and the PAL APU's pitches and DMC rates
 * (apu_test.nes run with --region pal: pulse 1662607 / (16 x 254) Hz, DMC rate 0 = 398
 * cycles a bit). */
#include "emu/nes/nes.h"
#include "nes_test.h"

#define CPU_PAL (26601712.5 / 16.0)
#define CPU_DENDY (26601712.5 / 15.0)
#define FPS_NTSC (236250000.0 / 11.0 / 4.0 / 89341.5)
#define FPS_50 (26601712.5 / 5.0 / 106392.0)

/* The lag in [lo, hi) (samples) where the autocorrelation of s[a, b) peaks. */
static int peak_lag(const int16_t *s, long a, long b, int lo, int hi)
{
    double mean = 0;
    for (long i = a; i < b; i++)
        mean += s[i];
    mean /= (double)(b - a);
    double best = -1e300;
    int at = lo;
    for (int lag = lo; lag < hi; lag++) {
        double c = 0;
        for (long i = a; i + lag < b; i++)
            c += (s[i] - mean) * (s[i + lag] - mean);
        if (c > best) {
            best = c;
            at = lag;
        }
    }
    return at;
}

static void region_rom(const char *name, int emph, double cpu, double dots_per_cycle, double fps)
{
    const char *rom = nes_rom(name);
    if (!rom)
        return;
    enum { FRAMES = 420 };
    char what[96];
    snprintf(what, sizeof what, "%s emphasis", name);
    uint8_t *rgb = nes_run_png(what, rom, FRAMES);
    if (rgb) {
        /* the background is colour $21 all over; PPUMASK = $3E: bit 5, the emphasis index
         * of the colour table (bit 0 red, 1 green, 2 blue) is 1 on NTSC, 2 elsewhere */
        const uint8_t *want = nes_palette_rgb + 3 * (0x21 | emph << 6), *got = rgb + 3 * (10 * 256 + 10);
        t_check(!memcmp(want, got, 3), what, "pixel (10, 10) #%02X%02X%02X, colour $21 with %s emphasis #%02X%02X%02X",
                got[0], got[1], got[2], emph == 1 ? "red" : "green", want[0], want[1], want[2]);
        free(rgb);
    }
    snprintf(what, sizeof what, "%s.wav", name);
    const char *wav = nes_run_to(name, rom, FRAMES, "--wav", what);
    int16_t *s = NULL;
    size_t n = 0;
    int rate = 0, ch = 0;
    gv_err err;
    if (!wav || gv_wav_read_s16(wav, &s, &n, &rate, &ch, &err) != GV_OK) {
        t_check(0, name, "no WAV read back");
        return;
    }
    /* the first frame from power-on is 240 lines of the region's; then FRAMES - 1 whole ones */
    double secs = (FRAMES - 1) / fps + 240.0 * 341 / dots_per_cycle / cpu;
    snprintf(what, sizeof what, "%s sample clock", name);
    t_check(fabs((double)n - 48000 * secs) < 2, what, "%zu samples in %d frames, %.1f at 48 kHz of the region's CPU clock",
            n, FRAMES, 48000 * secs);
    /* the last 40 frames: short-mode noise */
    int period = cpu == CPU_PAL ? 188 : 202;
    double want = 48000.0 * 93 * period / cpu;
    int lag = peak_lag(s, (long)n - 12000, (long)n, 300, 700);
    snprintf(what, sizeof what, "%s noise period", name);
    t_check(fabs(lag - want) <= 2, what, "autocorrelation peak at %d samples, 93 x %d cycles = %.1f samples", lag, period,
            want);
    free(s);
}

/* apu_test.nes's channels (tests/nes/test_nes_apu.c) on the PAL machine. */
static void apu_pal(void)
{
    const char *rom = nes_rom("apu_test");
    if (!rom)
        return;
    const char *wav = nes_run_to("apu_test --region pal", rom, 245, "--region pal --wav", "apu_pal.wav");
    int16_t *s = NULL;
    size_t n = 0;
    int rate = 0, ch = 0;
    gv_err err;
    if (!wav || gv_wav_read_s16(wav, &s, &n, &rate, &ch, &err) != GV_OK) {
        t_check(0, "apu_test --region pal", "no WAV read back");
        return;
    }
    struct {
        const char *name;
        int start;
        double hz;
    } parts[] = {
        {"PAL pulse 1 (period 253)", 30, CPU_PAL / (16.0 * 254)},
        {"PAL triangle (period 200)", 110, CPU_PAL / (32.0 * 201)},
        {"PAL DMC (rate index 0: 398 cycles)", 190, CPU_PAL / (398.0 * 8)},
    };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        double spf = 48000.0 / FPS_50, rms;
        long a = (long)((parts[k].start + 8) * spf), b = (long)((parts[k].start + 23) * spf);
        double hz = crossings_hz(s, a, b, &rms);
        t_check(fabs(hz - parts[k].hz) <= 0.005 * parts[k].hz, parts[k].name, "%.2f Hz measured, %.2f Hz from the registers",
                hz, parts[k].hz);
    }
    free(s);
}

int main(void)
{
    region_rom("region_ntsc", 1, CPU_HZ, 3.0, FPS_NTSC);
    region_rom("region_pal", 2, CPU_PAL, 3.2, FPS_50);
    region_rom("region_dendy", 2, CPU_DENDY, 3.0, FPS_50);
    apu_pal();
    return t_done();
}
