/* test_nes_5b.c: the Sunsoft 5B's sound (the expansion audio of the FME-7 test ROM,
 * tests/roms/nes/fme7_test.s) against the wiki's formula: channel A alone with period 254
 * sounds at CPU / (32 x 254) = 220.2 Hz; measured by rising zero crossings in gpuvet's WAV
 * over frames 15-50, where only that tone plays; from frame 70 channel B (envelope) and
 * C (noise) join, so the sound gets louder. The native and block renderers' equality is
 * test_nes_roms.sh's (every renderer gives the same audio hash). */
#include "nes_test.h"

int main(void)
{
    size_t n;
    int16_t *s = nes_run_wav("5B", "fme7", 140, &n);
    if (!s)
        return t_done();
    double rms_a, rms_all;
    double hz = crossings_hz(s, (long)(15 * SPF), (long)(50 * SPF), &rms_a);
    double want = CPU_HZ / (32.0 * 254);
    t_check(fabs(hz - want) <= 0.002 * want && rms_a > 100, "5B tone A (period 254)",
            "%.2f Hz measured, %.2f Hz from the register (rms %.0f)", hz, want, rms_a);
    crossings_hz(s, (long)(80 * SPF), (long)(135 * SPF), &rms_all);
    t_check(rms_all > rms_a * 1.2, "5B channels B and C join", "rms %.0f with envelope and noise, %.0f with tone A alone",
            rms_all, rms_a);
    free(s);
    return t_done();
}
