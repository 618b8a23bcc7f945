/* test_nes_n163.c: the Namco 163's sound (tests/roms/nes/n163_test.s) against the NESdev
 * wiki's formulas and the mixing level of its submapper (3: 11-13 dB over the APU, 12 used):
 * the 163's channel 7 alone, a 16-sample square of frequency 3868, sounds at CPU x 3868 / (15
 * x 65536 x 16) = 440.1 Hz (frames 15-50 of the WAV); the APU's pulse 1 at period 253 at CPU
 * / (16 x 254) = 440.4 Hz (frames 75-110), the 163's fundamental 10^(12/20) = 3.98 times the
 * pulse's (a square from 0 to 15 at volume 15, and the pulse at volume 15); with four
 * channels enabled and frequency x 4 the same pitch (frames 135-170) heard a quarter of the
 * time (the channels take turns at the DAC): a quarter of the fundamental; then a constant
 * wave, which only the turns make heard (frames 195-230), then a wave of samples 8 at volume
 * 15, silent (frames 255-290).
 * Pitches by rising zero crossings (the four channels' after a moving average: their whine
 * near the update rate would cross too), fundamentals by a single-frequency DFT. The
 * native and block renderers' equality is test_nes_roms.sh's. */
#include "nes_test.h"

/* The amplitude of the f Hz component of samples [a, b). */
static double fundamental(const int16_t *s, long a, long b, double f)
{
    double re = 0, im = 0;
    for (long i = a; i < b; i++) {
        double w = 2 * M_PI * f * (double)(i - a) / 48000.0;
        re += s[i] * cos(w);
        im += s[i] * sin(w);
    }
    return 2 * sqrt(re * re + im * im) / (double)(b - a);
}

/* crossings_hz over a 32-sample moving average of s (the multiplexing's whine, far above
 * the tone, would add crossings of its own). */
static double smooth_hz(const int16_t *s, long a, long b, double *rms)
{
    int16_t *m = malloc(sizeof *m * (size_t)(b - a));
    long acc = 0;
    for (long i = a; i < b; i++) {
        acc += s[i] - (i - 32 >= a ? s[i - 32] : 0);
        m[i - a] = (int16_t)(acc / 32);
    }
    double hz = crossings_hz(m, 32, b - a, rms);
    free(m);
    return hz;
}

int main(void)
{
    size_t n;
    int16_t *s = nes_run_wav("n163", "n163", 300, &n);
    if (!s)
        return t_done();
    double rms, f_apu = CPU_HZ / (16.0 * 254), f_163 = CPU_HZ * 3868 / (15.0 * 65536 * 16);
    long a0 = (long)(75 * SPF), a1 = (long)(110 * SPF), b0 = (long)(15 * SPF), b1 = (long)(50 * SPF);
    long c0 = (long)(135 * SPF), c1 = (long)(170 * SPF);
    double hz = crossings_hz(s, a0, a1, &rms);
    t_check(fabs(hz - f_apu) <= 0.002 * f_apu && rms > 100, "n163 APU pulse (period 253)",
            "%.2f Hz measured, %.2f Hz from the register (rms %.0f)", hz, f_apu, rms);
    hz = crossings_hz(s, b0, b1, &rms);
    t_check(fabs(hz - f_163) <= 0.002 * f_163 && rms > 100, "n163 channel 7 (frequency 3868, length 16)",
            "%.2f Hz measured, %.2f Hz from the registers (rms %.0f)", hz, f_163, rms);
    hz = smooth_hz(s, c0, c1, &rms);
    t_check(fabs(hz - f_163) <= 0.002 * f_163 && rms > 100, "n163 four channels (frequency 15472)",
            "%.2f Hz measured (smoothed), %.2f Hz from the registers: each channel updated every 60 cycles "
            "(rms %.0f)", hz, f_163, rms);
    double apu = fundamental(s, a0, a1, f_apu), one = fundamental(s, b0, b1, f_163), four = fundamental(s, c0, c1, f_163);
    double want = pow(10.0, 12.0 / 20.0);
    t_check(apu > 100 && fabs(one / apu - want) <= 0.02 * want, "n163 level against the APU",
            "fundamental %.0f against the pulse's %.0f: %.3f (10^(12/20) = %.3f: submapper 3, 11-13 dB)", one, apu,
            one / apu, want);
    t_check(one > 100 && fabs(four / one - 0.25) <= 0.005, "n163 time-multiplexed channels",
            "four channels enabled: fundamental %.0f against one channel's %.0f: %.4f (0.25: a quarter of the "
            "time at the DAC)", four, one, four / one);
    crossings_hz(s, (long)(195 * SPF), (long)(230 * SPF), &rms);
    t_check(rms > 300, "n163 the turns at the DAC",
            "a constant wave at volume 15 with four channels enabled: rms %.0f (channel 7's level a quarter of the "
            "time, the other three's rest level between: a whine at 29.8 kHz, aliased; a sum of the channels would "
            "be a constant the filters remove)", rms);
    crossings_hz(s, (long)(255 * SPF), (long)(290 * SPF), &rms);
    t_check(rms < 20, "n163 silence of samples 8", "rms %.1f with channel 7 at volume 15 on samples 8, the "
            "other three at volume 0: (sample - 8) x volume in every turn", rms);
    free(s);
    return t_done();
}
