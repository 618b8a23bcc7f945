/* apu_test.c: gpuvet's APU test ROM (DMG and CGB). Plays the segments of apu_spec.py
 * (every channel; duty, panning, sweep, envelope, length, master volume), SEG_FRAMES
 * frames each with silence between, and checks what the CPU can see: NR52's channel bits
 * while a channel plays, after its length counter expires, and after the DACs are off.
 * The sound itself is checked from the WAV by apu_spec.py. */
#include "common.h"
#include "apu_data.h"

static volatile uint8_t frames;
static uint8_t ok = 1;

static void on_vblank(void)
{
    frames++;
}

static void wait_frames(uint8_t n)
{
    uint8_t f0 = frames;
    while ((uint8_t)(frames - f0) < n) {
        __asm
            halt
            nop
        __endasm;
    }
}

static void writes(const uint8_t *w, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++)
        REG(0xFF00 | w[2 * i]) = w[2 * i + 1];
}

static void expect(uint8_t cond, const char *what)
{
    if (!cond) {
        ok = 0;
        ser_puts("FAIL ");
        ser_puts(what);
        ser_putc('\n');
    }
}

void main(void)
{
    rNR52 = 0; /* power cycle: every register cleared */
    rNR52 = 0x80;
    rNR51 = 0;
    rNR50 = 0x77;
    for (uint8_t i = 0; i < 16; i++)
        WAVE_RAM[i] = wave_saw[i];
    hook_vblank = on_vblank;
    rIF = 0;
    rIE = 0x01;
    __asm
        ei
    __endasm;
    wait_frames(10);
    for (uint8_t s = 0; s < NSEG; s++) {
        writes(seg_writes + 2 * seg_start[s], (uint8_t)(seg_start[s + 1] - seg_start[s]));
        if (s == 0) {
            wait_frames(1);
            expect((rNR52 & 0x0F) == 0x01, "NR52 shows channel 1 playing");
            wait_frames(SEG_FRAMES - 1);
        } else if (s == 6) { /* length 64/256 s = 15 frames */
            wait_frames(10);
            expect((rNR52 & 0x01) == 0x01, "NR52 channel 1 on before its length ends");
            wait_frames(10);
            expect((rNR52 & 0x01) == 0x00, "NR52 channel 1 off after its length ends");
            wait_frames(SEG_FRAMES - 20);
        } else {
            wait_frames(SEG_FRAMES);
        }
        writes(silence, sizeof silence / 2);
    }
    expect((rNR52 & 0x0F) == 0x00, "NR52 all channels off with the DACs off");
    expect((rNR52 & 0xF0) == 0xF0, "NR52 reads power on and bits 4-6 set");
    report(ok);
}
