/* nes_board_rambo1.c: Tengen's RAMBO-1 (mapper 64), from the NESdev wiki's "RAMBO-1": the
 * MMC3's registers with more of them. $8000 (even) selects a bank register and the modes:
 * bit 5 K (the four 1 KiB registers R0, R8, R1, R9 in place of R0/R1's 2 KiB banks), bit 6 P
 * (RF at $8000, R6 at $A000, R7 at $C000, else R6, R7, RF), bit 7 C (the CHR halves swapped);
 * $8001 (odd) writes it (R0-R5 CHR, R6-R7 PRG, R8-R9 CHR, RF PRG). $A000 (even) the
 * mirroring (0 vertical, 1 horizontal). The IRQ: $C000 the latch, $C001 bit 0 the clock (0:
 * filtered PPU A12 rises, as the MMC3's; 1: every fourth CPU cycle, the prescaler restarting
 * at the write) and a write asks for a reload; $E000 disables and acknowledges, $E001
 * enables. On each clock: after a $C001 write the counter takes the latch plus one; else
 * a counter of 0 takes the latch; else it counts down, and reaching 0 with the IRQ enabled
 * raises it one CPU cycle after the clock (A12 mode: the chip samples A12 on M2's fall and
 * asserts on the next one: two cycles after the MMC3 would, nes_cycle_at). In cycle mode the
 * counter runs in closed form between register writes and the machine wakes the board at
 * the IRQ's clock. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t sel, bank[16], mirror;
    uint8_t latch, mode, reload, irq_on;
    uint16_t counter;  /* up to 256: the latch plus one */
    uint64_t next;     /* cycle mode: the CPU cycle of the next clock */
} rambo;

static const char *rambo_check(const nes_cart *c)
{
    return c->prg_size > 262144 || c->chr_size > 262144 ? "RAMBO-1 boards have at most 256 KiB PRG and 256 KiB CHR" : NULL;
}

/* One clock of the counter; returns whether it reached 0 (the IRQ, when enabled). */
static int rambo_clock(rambo *p)
{
    if (p->reload) {
        p->counter = (uint16_t)(p->latch + 1);
        p->reload = 0;
        return 0;
    }
    if (!p->counter) {
        p->counter = p->latch;
        return 0;
    }
    return --p->counter == 0;
}

/* Clocks until the next one that reaches 0 (0: none ever, the latch being 0). */
static uint64_t clocks_to_zero(const rambo *p)
{
    if (p->reload)
        return (uint64_t)p->latch + 2;
    if (p->counter)
        return p->counter;
    return p->latch ? (uint64_t)p->latch + 1 : 0;
}

/* k clocks at once (cycle mode), the last at CPU cycle `last`: the IRQ when one of them
 * reached 0 while enabled (the board's event lands on the first). */
static void rambo_clocks(nes *m, uint64_t k, uint64_t last)
{
    rambo *p = NES_BS(m, rambo);
    uint64_t z = clocks_to_zero(p);
    if (z && z <= k && p->irq_on)
        nes_irq_set(m, NES_IRQ_MAPPER, last - 4 * (k - z) + 1);
    if (k && p->reload) {
        rambo_clock(p);
        k--;
    }
    uint64_t d = k < p->counter ? k : p->counter; /* down to 0 */
    p->counter = (uint16_t)(p->counter - d);
    k -= d;
    k %= (uint64_t)p->latch + 1; /* from 0: the latch, down to 0 again, latch + 1 clocks */
    if (k)
        p->counter = (uint16_t)(p->latch - (k - 1));
}

/* Cycle mode: the clocks due by the end of CPU cycle t. */
static void irq_catch_up(nes *m, uint64_t t)
{
    rambo *p = NES_BS(m, rambo);
    if (!(p->mode & 1) || t < p->next)
        return;
    uint64_t k = (t - p->next) / 4 + 1;
    p->next += 4 * k;
    rambo_clocks(m, k, p->next - 4);
}

static void irq_schedule(nes *m)
{
    const rambo *p = NES_BS(m, rambo);
    uint64_t z = (p->mode & 1) && p->irq_on ? clocks_to_zero(p) : 0;
    nes_board_schedule(m, z ? p->next + 4 * (z - 1) : NES_NEVER);
}

static void rambo_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* A filtered A12 rise at dot time t (A12 mode). */
static void rambo_a12(nes *m, uint64_t t)
{
    rambo *p = NES_BS(m, rambo);
    if (p->mode & 1)
        return;
    if (rambo_clock(p) && p->irq_on) /* two cycles after the MMC3 (nes_board_mmc3.c) would */
        nes_irq_set(m, NES_IRQ_MAPPER, nes_cycle_at(m, t) + 2);
}

static void rambo_power(nes *m)
{
    NES_BS(m, rambo)->next = m->cyc + 4;
}

static void rambo_write(nes *m, uint16_t a, uint8_t v)
{
    rambo *p = NES_BS(m, rambo);
    int odd = a & 1;
    switch ((a >> 13) & 3) {
    case 0:
        if (!odd)
            p->sel = v;
        else
            p->bank[p->sel & 15] = v;
        break;
    case 1:
        if (!odd)
            p->mirror = v & 1;
        break;
    default:
        irq_catch_up(m, m->cyc);
        if (a < 0xE000) {
            if (!odd) {
                p->latch = v;
            } else {
                p->mode = v & 1;
                p->reload = 1;
                p->next = m->cyc + 4;
            }
        } else if (!odd) {
            p->irq_on = 0;
            nes_irq_clear(m, NES_IRQ_MAPPER);
        } else {
            p->irq_on = 1;
        }
        m->a12_irq = p->irq_on && !(p->mode & 1);
        irq_schedule(m);
        nes_resched(m);
        return;
    }
    nes_board_update(m);
}

static void rambo_maps(nes *m, nes_maps *o)
{
    const rambo *p = NES_BS(m, rambo);
    const uint8_t *r = p->bank;
    int last = (int)(m->cart->prg_size / 8192) - 1;
    if (p->sel & 0x40) {
        o->prg[0] = r[15];
        o->prg[1] = r[6];
        o->prg[2] = r[7];
    } else {
        o->prg[0] = r[6];
        o->prg[1] = r[7];
        o->prg[2] = r[15];
    }
    o->prg[3] = last;
    int c[8];
    if (p->sel & 0x20) { /* K: 1 KiB banks R0, R8, R1, R9 */
        c[0] = r[0];
        c[1] = r[8];
        c[2] = r[1];
        c[3] = r[9];
    } else {
        c[0] = r[0] & 0xFE;
        c[1] = r[0] | 1;
        c[2] = r[1] & 0xFE;
        c[3] = r[1] | 1;
    }
    for (int i = 0; i < 4; i++)
        c[4 + i] = r[2 + i];
    int inv = (p->sel & 0x80) ? 4 : 0;
    for (int i = 0; i < 8; i++)
        o->chr[i ^ inv] = c[i];
    nes_maps_mirror(o, p->mirror ? NES_MIRROR_H : NES_MIRROR_V);
}

static void rambo_state(nes_st *s, nes *m)
{
    rambo *p = NES_BS(m, rambo);
    NES_ST(s, p->sel);
    NES_ST_ARR(s, p->bank);
    NES_ST(s, p->mirror);
    NES_ST(s, p->latch);
    NES_ST(s, p->mode);
    NES_ST(s, p->reload);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->counter);
    NES_ST(s, p->next);
    m->a12_irq = p->irq_on && !(p->mode & 1);
    irq_schedule(m);
}

static const char *rambo_state_check(const nes *m)
{
    const rambo *p = NES_BS(m, rambo);
    if (p->mirror > 1 || p->mode > 1 || p->reload > 1 || p->irq_on > 1 || p->counter > 256)
        return "RAMBO-1 state out of range";
    return p->next > m->cyc + 4 ? "RAMBO-1 prescaler out of range" : NULL;
}

const nes_board nes_board_rambo1 = {
    .mapper = 64, .name = "Tengen RAMBO-1", .size = sizeof(rambo), .check = rambo_check, .power = rambo_power,
    .maps = rambo_maps, .write = rambo_write, .a12 = rambo_a12, .cpu_event = rambo_event, .state = rambo_state,
    .state_check = rambo_state_check,
};
