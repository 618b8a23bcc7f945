/* nes_vrc_irq.h: the VRC IRQ that Konami's VRC4, VRC6 and VRC7 share (the NESdev wiki's
 * "VRC IRQ"): an 8-bit counter clocked every CPU cycle (cycle mode, control bit 2) or by a
 * prescaler that divides the cycles by 113 2/3 (subtract 3 per cycle, add 341 when it
 * reaches 0 or below: scanline mode); at $FF it is reloaded from the latch and raises the
 * IRQ. Control: bit 0 A (enable after acknowledge), bit 1 E (enable), bit 2 M (cycle mode);
 * writing it resets the prescaler and, with E, reloads the counter; acknowledging moves A to
 * E. The counter runs in closed form between register writes; the machine wakes the board
 * at the overflow's cycle (nes_board_schedule). */
#ifndef GV_EMU_NES_NES_VRC_IRQ_H
#define GV_EMU_NES_NES_VRC_IRQ_H

#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t latch, ctrl, counter;
    int16_t presc; /* prescaler, 1..341 */
    uint64_t at;   /* the counter and prescaler are as at the end of this CPU cycle */
} nes_vrc_irq;

static inline void nes_vrc_irq_power(nes_vrc_irq *q, const nes *m)
{
    q->presc = 341;
    q->at = m->cyc;
}

/* Brings the counter from the end of cycle q->at to the end of cycle t; an overflow on the
 * way reloads it from the latch and raises the IRQ (the board's event lands exactly on the
 * first, so t is its cycle). */
static inline void nes_vrc_irq_catch_up(nes_vrc_irq *q, nes *m, uint64_t t)
{
    if (t <= q->at)
        return;
    uint64_t n = t - q->at, clocks;
    q->at = t;
    if (!(q->ctrl & 2)) /* E clear: the counter holds */
        return;
    if (q->ctrl & 4) {
        clocks = n;
    } else {
        int64_t r = (int64_t)q->presc - 3 * (int64_t)n;
        clocks = r > 0 ? 0 : (uint64_t)((341 - r) / 341);
        q->presc = (int16_t)(r + 341 * (int64_t)clocks);
    }
    uint64_t first = 256u - q->counter;
    if (clocks < first) {
        q->counter = (uint8_t)(q->counter + clocks);
        return;
    }
    q->counter = (uint8_t)(q->latch + (clocks - first) % (256u - q->latch));
    nes_irq_set(m, NES_IRQ_MAPPER, t);
}

/* Asks to be woken at the cycle of the next overflow (none while E is clear). */
static inline void nes_vrc_irq_schedule(const nes_vrc_irq *q, nes *m)
{
    if (!(q->ctrl & 2)) {
        nes_board_schedule(m, NES_NEVER);
        return;
    }
    uint64_t k = 256u - q->counter, n;
    if (q->ctrl & 4)
        n = k;
    else /* the k-th prescaler wrap: 3n >= presc + 341 (k - 1) */
        n = ((uint64_t)q->presc + 341 * (k - 1) + 2) / 3;
    nes_board_schedule(m, q->at + n);
}

/* The board's cpu_event: the counter brought to now (raising the IRQ at an overflow), the
 * next overflow scheduled. */
static inline void nes_vrc_irq_event(nes_vrc_irq *q, nes *m)
{
    nes_vrc_irq_catch_up(q, m, m->cyc);
    nes_vrc_irq_schedule(q, m);
}

/* A write of register r: 0 latch low nibble, 1 latch high nibble, 2 control, 3 acknowledge
 * (the VRC6 and VRC7 have a whole-byte latch: r = 4). */
static inline void nes_vrc_irq_write(nes_vrc_irq *q, nes *m, int r, uint8_t v)
{
    nes_vrc_irq_catch_up(q, m, m->cyc);
    switch (r) {
    case 0: q->latch = (uint8_t)((q->latch & 0xF0) | (v & 0x0F)); break;
    case 1: q->latch = (uint8_t)((q->latch & 0x0F) | (v << 4)); break;
    case 2: /* control: acknowledge, prescaler reset; with E the counter reloads */
        q->ctrl = v & 7;
        q->presc = 341;
        if (v & 2)
            q->counter = q->latch;
        nes_irq_clear(m, NES_IRQ_MAPPER);
        break;
    case 3: /* acknowledge: A moves to E */
        q->ctrl = (uint8_t)((q->ctrl & ~2) | ((q->ctrl & 1) << 1));
        nes_irq_clear(m, NES_IRQ_MAPPER);
        break;
    default: q->latch = v; break;
    }
    nes_vrc_irq_schedule(q, m);
}

static inline void nes_vrc_irq_state(nes_st *s, nes_vrc_irq *q)
{
    NES_ST(s, q->latch);
    NES_ST(s, q->ctrl);
    NES_ST(s, q->counter);
    NES_ST(s, q->presc);
    NES_ST(s, q->at);
}

static inline const char *nes_vrc_irq_check(const nes_vrc_irq *q, const nes *m)
{
    if (q->presc < 1 || q->presc > 341 || q->ctrl > 7)
        return "VRC IRQ state out of range";
    return q->at > m->cyc || m->cyc - q->at > 40000 ? "VRC IRQ time out of range" : NULL;
}

#endif
