/* test_nes_apu.c: the APU ROM's sound against the channel formulas. The ROM plays each
 * channel alone for 30 frames from NMI 30, 70, 110, 150 and 190 (tests/roms/nes/apu_test.s)
 * with register values given there. A channel's pitch follows from them: pulse
 * f = CPU / (16 (P + 1)), triangle f = CPU / (32 (P + 1)), a DMC byte looping 4 bits up and
 * 4 down f = CPU / (rate * 8), with CPU = 236.25 MHz / 11 / 12. This test measures the
 * frequency in gpuvet's WAV by counting rising zero crossings (with hysteresis) in the
 * middle 15 frames of each part, and checks the gaps are silent and the noise is loud. */
#include "nes_test.h"

int main(void)
{
    size_t n;
    int16_t *s = nes_run_wav("apu", "apu_test", 245, &n);
    if (!s)
        return t_done();
    struct {
        const char *name;
        int start;
        double hz; /* 0: no pitch (noise) */
    } parts[] = {
        {"pulse 1 (period 253)", 30, CPU_HZ / (16.0 * 254)},
        {"pulse 2 (period 126, 25% duty)", 70, CPU_HZ / (16.0 * 127)},
        {"triangle (period 200)", 110, CPU_HZ / (32.0 * 201)},
        {"noise (period index 5)", 150, 0},
        {"DMC (rate 428, byte $0F looped)", 190, CPU_HZ / (428.0 * 8)},
    };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        /* NMI counts lag gpuvet's frames by the two frames before NMIs are on; 8 frames of
         * margin on both sides keep the window inside the part either way */
        long a = (long)((parts[k].start + 8) * SPF), b = (long)((parts[k].start + 23) * SPF);
        double rms, hz = crossings_hz(s, a, b, &rms);
        if (parts[k].hz > 0)
            t_check(fabs(hz - parts[k].hz) <= 0.005 * parts[k].hz, parts[k].name,
                    "%.2f Hz measured, %.2f Hz from the registers (rms %.0f)", hz, parts[k].hz, rms);
        else
            t_check(rms > 500 && hz > 1000, parts[k].name, "rms %.0f, %.0f crossings/s: broadband noise", rms, hz);
        long ga = (long)((parts[k].start + 33) * SPF), gb = (long)((parts[k].start + 38) * SPF);
        double grms;
        crossings_hz(s, ga, gb, &grms);
        char gname[96];
        snprintf(gname, sizeof gname, "silence after %s", parts[k].name);
        t_check(grms < 30, gname, "rms %.1f in frames %d-%d", grms, parts[k].start + 33, parts[k].start + 38);
    }
    free(s);
    return t_done();
}
