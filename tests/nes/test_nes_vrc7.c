/* test_nes_vrc7.c: the VRC7's FM sound (tests/roms/nes/vrc7_test.s, both wirings) against
 * the NESdev wiki's formulas and the YM2413's documented envelope:
 * - the pitch of the custom instrument's plain sine, F-number 290, octave 4, multiplier 1:
 *   (CPU clock / 36) x 290 x 2^(4 - 19) = 440.0 Hz (frames 15-50 of the WAV, rising zero
 *   crossings);
 * - the decay of the note keyed on again at NMI frame 61 with decay rate 4 (no key rate
 *   scaling: rate 4 x 4 + octave / 2 = 18): a step of 0.375 dB taken at 6 of every 8
 *   opportunities, one opportunity every 2^(13 - 18 / 4) samples of CPU clock / 36 Hz, so
 *   0.375 x 6 / 8 x 49716 / 512 = 27.3 dB/s (the slope of the per-10 ms peaks in dB, fitted
 *   from 2 to 20 dB below the note's level); then it holds at sustain level 8: 24 dB down;
 * - the sound's reset bit (NMI frames 130-150) silences the chip and the note written
 *   meanwhile does not sound;
 * - the fixed instruments that follow sound.
 * The native and block renderers' equality is test_nes_roms.sh's (every renderer gives
 * the same audio hash). */
#include "nes_test.h"

/* Peak of |s| over [a, b). */
static int peak(const int16_t *s, long a, long b)
{
    int p = 0;
    for (long i = a; i < b; i++)
        if ((s[i] < 0 ? -s[i] : s[i]) > p)
            p = s[i] < 0 ? -s[i] : s[i];
    return p;
}

static double rms(const int16_t *s, long a, long b)
{
    double acc = 0;
    for (long i = a; i < b; i++)
        acc += (double)s[i] * s[i];
    return sqrt(acc / (double)(b - a));
}

static void check_rom(const char *name)
{
    size_t n;
    int16_t *s = nes_run_wav(name, name, 240, &n);
    if (!s)
        return;
    char what[80];
    const double fs = CPU_HZ / 36.0;
    double rms_note;
    double hz = crossings_hz(s, (long)(15 * SPF), (long)(50 * SPF), &rms_note), want = fs * 290.0 / 32768.0;
    snprintf(what, sizeof what, "%s sine (F-number 290, octave 4)", name);
    t_check(fabs(hz - want) <= 0.002 * want && rms_note > 300, what, "%.2f Hz measured, %.2f Hz from the registers (rms %.0f)",
            hz, want, rms_note);

    /* the decayed note: its key-on after frame 60.5 (the release of the first note silenced
     * the channel), then the peaks of 10 ms windows */
    const long win = 480;
    long on = -1;
    for (long i = (long)(60.5 * SPF); i < (long)(66 * SPF); i++)
        if (s[i] > 600 || s[i] < -600) {
            on = i;
            break;
        }
    int p0 = peak(s, (long)(20 * SPF), (long)(50 * SPF));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (long a = on; on >= 0 && a + win < (long)(130 * SPF); a += win) {
        double db = 20.0 * log10((double)peak(s, a, a + win) / p0), t = (double)(a - on) / 48000.0;
        if (db > -2.0 || db < -20.0)
            continue;
        sx += t;
        sy += db;
        sxx += t * t;
        sxy += t * db;
        k++;
    }
    double slope = k > 2 ? -(k * sxy - sx * sy) / (k * sxx - sx * sx) : 0, want_slope = 0.375 * 6 / 8 * fs / 512.0;
    snprintf(what, sizeof what, "%s decay rate 4", name);
    t_check(fabs(slope - want_slope) <= 0.03 * want_slope, what,
            "%.2f dB/s fitted over %d windows from 2 to 20 dB down, %.2f dB/s from the rate", slope, k, want_slope);
    double sus = 20.0 * log10(rms(s, (long)(118 * SPF), (long)(128 * SPF)) / rms_note);
    snprintf(what, sizeof what, "%s sustain level 8", name);
    t_check(fabs(sus + 24.0) <= 1.0, what, "held %.2f dB below the note (24 dB from the register)", -sus);

    double quiet = rms(s, (long)(134 * SPF), (long)(158 * SPF));
    snprintf(what, sizeof what, "%s sound reset", name);
    t_check(quiet < 1.0, what, "rms %.2f while $E000 bit 6 holds the chip and after (a note written meanwhile)", quiet);
    double chord = rms(s, (long)(170 * SPF), (long)(220 * SPF));
    snprintf(what, sizeof what, "%s fixed instruments", name);
    t_check(chord > 300, what, "rms %.0f with five channels keyed on", chord);
    free(s);
}

int main(void)
{
    check_rom("vrc7a");
    check_rom("vrc7b");
    return t_done();
}
