/* proto_test.c: a test ROM that reports the way older builds of mooneye's suite do: the
 * verdict's six bytes over the serial port (3 5 8 13 21 34 passed, six $42 failed), then
 * LD B,B with registers that are neither signature. Built twice (build.sh):
 * proto_pass.gb (PASS=1) and proto_fail.gb; `gpuvet run --test-rom` must read passed and
 * failed from the serial bytes. */
#include "common.h"

#ifndef PASS
#define PASS 0
#endif

static const uint8_t verdict[6] = {3, 5, 8, 13, 21, 34};

void main(void)
{
    for (uint8_t i = 0; i < 6; i++)
        ser_putc((char)(PASS ? verdict[i] : 0x42));
    __asm
        ld b, #0
        ld c, b
        ld d, b
        ld e, b
        ld h, b
        ld l, b
        ld b, b
        di
    1$:
        halt
        nop
        jr 1$
    __endasm;
}
