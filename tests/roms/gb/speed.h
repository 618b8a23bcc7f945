/* speed.h: the CGB's speed switch for gpuvet's own Game Boy test ROMs (Pan Docs, "FF4D -
 * KEY1"): included where a ROM needs it (one static function, so that a ROM that does not
 * include it stays as it was). */
#ifndef GB_TEST_SPEED_H
#define GB_TEST_SPEED_H

/* STOP with KEY1 bit 0 set: the CGB's speed switch (IE is 0 and no button selected: STOP is
 * two bytes, the switch then a HALT that times out). */
static void speed_switch(void) __naked
{
    __asm
        ld a, #0x30
        ldh (0x00), a
        ld a, #1
        ldh (0x4d), a
        stop
        nop
        ret
    __endasm;
}

#endif
