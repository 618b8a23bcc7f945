/* test_nes_mmc5.c: the MMC5's sound (tests/roms/nes/mmc5x_test.s) against the NESdev wiki's
 * "MMC5 audio" and "APU Mixer" pages, measured in the WAV (the ROM's screen starts at frame
 * 43; its NMI steps the sound every 50 or 35 frames):
 *   - MMC5 pulse 1 with period 253 sounds at CPU / (16 x 254) = 440.4 Hz (frames 50-85),
 *     as loud as the APU's pulse 1 with the same registers (frames 100-135: the same RMS);
 *   - MMC5 pulse 2 at volume 8 (frames 150-185) against pulse 1 at 15: the ratio of the
 *     APU's non-linear pulse table, 95.52 / (8128 / n + 100), 0.575 (linear would be 0.533);
 *   - the PCM DAC: the same square wave (the ROM's main loop) on $5011 from $01 to $80
 *     (frames 198-222) and on the DMC's $4011 from $00 to $7F (frames 233-257): the PCM's
 *     127 steps are the DMC's level 127 alone, tnd[127], while the DMC's own sits on the
 *     triangle's output 15 (never started, it holds step 0): tnd[172] - tnd[45], with tnd[n]
 *     = 163.67 / (24329 / n + 100); so PCM / DMC = 1.329. From $01 to $FF (frames 268-292)
 *     the PCM is twice as loud;
 *   - then silence (frames 305-395).
 * Levels by RMS over whole periods of the same waveform, so the output filters scale them
 * alike. The native and block renderers' equality is test_nes_roms.sh's. */
#include "nes_test.h"

static double pulse_level(int n)
{
    return 95.52 / (8128.0 / n + 100.0);
}

static double tnd_level(int n)
{
    return 163.67 / (24329.0 / n + 100.0);
}

static double rms_of(const int16_t *s, int f0, int f1)
{
    double rms;
    crossings_hz(s, (long)(f0 * SPF), (long)(f1 * SPF), &rms);
    return rms;
}

int main(void)
{
    size_t n;
    int16_t *s = nes_run_wav("mmc5x", "mmc5x", 400, &n);
    if (!s)
        return t_done();
    double rms1, rms_apu, rms2;
    double want = CPU_HZ / (16.0 * 254);
    double hz = crossings_hz(s, (long)(50 * SPF), (long)(85 * SPF), &rms1);
    t_check(fabs(hz - want) <= 0.002 * want && rms1 > 100, "MMC5 pulse 1 pitch (period 253)",
            "%.2f Hz measured, %.2f Hz from the register (rms %.0f)", hz, want, rms1);
    hz = crossings_hz(s, (long)(100 * SPF), (long)(135 * SPF), &rms_apu);
    t_check(fabs(hz - want) <= 0.002 * want && fabs(rms1 / rms_apu - 1) < 0.01, "MMC5 pulse 1 level = APU pulse 1",
            "rms %.0f against the APU pulse's %.0f (%.2f Hz)", rms1, rms_apu, hz);
    hz = crossings_hz(s, (long)(150 * SPF), (long)(185 * SPF), &rms2);
    double ratio = pulse_level(8) / pulse_level(15);
    t_check(fabs(hz - want) <= 0.002 * want && fabs(rms2 / rms1 / ratio - 1) < 0.01,
            "MMC5 pulse 2 at volume 8: non-linear level",
            "rms %.0f / %.0f = %.4f, table %.4f (linear %.4f), %.2f Hz", rms2, rms1, rms2 / rms1, ratio, 8.0 / 15,
            hz);
    double pcm = rms_of(s, 198, 222), dmc = rms_of(s, 233, 257), pcm2 = rms_of(s, 268, 292);
    ratio = tnd_level(127) / (tnd_level(127 + 45) - tnd_level(45));
    t_check(pcm > 100 && fabs(pcm / dmc / ratio - 1) < 0.01, "MMC5 PCM level ($01-$80) against the DMC's ($00-$7F)",
            "rms %.0f / %.0f = %.4f, the mixer formulas %.4f", pcm, dmc, pcm / dmc, ratio);
    t_check(fabs(pcm2 / pcm - 254.0 / 127) < 0.02, "MMC5 PCM $01-$FF: twice $01-$80", "rms %.0f / %.0f = %.4f",
            pcm2, pcm, pcm2 / pcm);
    double q = rms_of(s, 305, 395);
    t_check(q < 20, "silence after", "rms %.1f with the PCM still and every channel off", q);
    free(s);
    return t_done();
}
