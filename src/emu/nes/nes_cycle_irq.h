/* nes_cycle_irq.h: the 16-bit CPU-cycle counters that count down every cycle and wrap from
 * $0000 to $FFFF, shared by the FME-7 (nes_board_fme7.c) and the Sunsoft-3
 * (nes_board_sunsoft.c): the counter is kept as it was at the end of a CPU cycle and brought
 * forward in closed form; the board asks to be woken (nes_board_schedule) at the wrap. */
#ifndef GV_EMU_NES_NES_CYCLE_IRQ_H
#define GV_EMU_NES_NES_CYCLE_IRQ_H

#include "emu/nes/nes_int.h"

/* Brings *counter from the end of cycle *at to the end of cycle t, counting while `on`;
 * returns the cycle of its first wrap on the way, NES_NEVER when none. */
static inline uint64_t nes_down16_run(uint16_t *counter, uint64_t *at, uint64_t t, int on)
{
    if (t <= *at)
        return NES_NEVER;
    uint64_t n = t - *at, wrap = *at + *counter + 1u;
    *at = t;
    if (!on)
        return NES_NEVER;
    *counter = (uint16_t)(*counter - n);
    return wrap <= t ? wrap : NES_NEVER;
}

/* The cycle of the counter's next wrap while it counts. */
static inline uint64_t nes_down16_wrap(uint16_t counter, uint64_t at)
{
    return at + counter + 1u;
}

#endif
