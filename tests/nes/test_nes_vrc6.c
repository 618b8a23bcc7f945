/* test_nes_vrc6.c: the VRC6's sound (tests/roms/nes/vrc6_test.s, both wirings) against the
 * NESdev wiki's formulas: pulse 1 with period 253 sounds at CPU / (16 x 254) = 440.4 Hz
 * (frames 15-50 of the WAV), the saw with period 253 at CPU / (14 x 254) = 503.3 Hz (frames
 * 75-110), then silence (frames 140-180); measured by rising zero crossings. The native and
 * block renderers' equality is test_nes_roms.sh's (every renderer gives the same audio
 * hash). */
#include "nes_test.h"

static void check_rom(const char *name)
{
    size_t n;
    int16_t *s = nes_run_wav(name, name, 190, &n);
    if (!s)
        return;
    char what[64];
    double rms_p, rms_s, rms_q;
    double hz = crossings_hz(s, (long)(15 * SPF), (long)(50 * SPF), &rms_p);
    double want = CPU_HZ / (16.0 * 254);
    snprintf(what, sizeof what, "%s pulse 1 (period 253)", name);
    t_check(fabs(hz - want) <= 0.002 * want && rms_p > 100, what, "%.2f Hz measured, %.2f Hz from the register (rms %.0f)",
            hz, want, rms_p);
    hz = crossings_hz(s, (long)(75 * SPF), (long)(110 * SPF), &rms_s);
    want = CPU_HZ / (14.0 * 254);
    snprintf(what, sizeof what, "%s saw (period 253, rate 42)", name);
    t_check(fabs(hz - want) <= 0.002 * want && rms_s > 100, what, "%.2f Hz measured, %.2f Hz from the register (rms %.0f)",
            hz, want, rms_s);
    crossings_hz(s, (long)(140 * SPF), (long)(180 * SPF), &rms_q);
    snprintf(what, sizeof what, "%s silence after", name);
    t_check(rms_q < 20, what, "rms %.1f with every channel off", rms_q);
    free(s);
}

int main(void)
{
    check_rom("vrc6a");
    check_rom("vrc6b");
    return t_done();
}
