/* input_test.c: gpuvet's controller test ROM. Once per frame it reads the joypad through
 * P1 (bit 5 low: the action buttons A, B, Select, Start in bits 0-3; bit 4 low: the
 * directions Right, Left, Up, Down), pressed buttons reading 0. It expects, in this
 * order: Start alone, then A with Right, with nothing or the same buttons held in
 * between, and reports "Passed"; anything else fails with the buttons it read (bit 0 A ...
 * bit 3 Start, bit 4 Right ... bit 7 Down). Without input it never finishes
 * (tests/emu/input_gb.txt is the movie that passes it). */
#include "common.h"

static uint8_t read_pad(void)
{
    rP1 = 0x10; /* select the action buttons */
    uint8_t a = rP1;
    a = rP1;    /* the lines settle after a few cycles */
    rP1 = 0x20; /* select the directions */
    uint8_t d = rP1;
    d = rP1;
    rP1 = 0x30;
    return (uint8_t)((~a & 0x0F) | ((~d & 0x0F) << 4));
}

void main(void)
{
    uint8_t stage = 0;
    for (;;) {
        wait_vblank();
        uint8_t b = read_pad();
        if (!b)
            continue;
        if (stage == 0 && b == 0x08) {
            stage = 1;
        } else if (stage == 1 && b == 0x08) {
            continue;
        } else if (stage == 1 && b == 0x11) {
            ser_puts("input ok\n");
            report(1);
        } else {
            ser_puts("unexpected buttons ");
            ser_hex8(b);
            ser_putc('\n');
            report(0);
        }
    }
}
