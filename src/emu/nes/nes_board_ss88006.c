/* nes_board_ss88006.c: Jaleco's SS 88006 (mapper 18), from the NESdev wiki's "INES Mapper
 * 018". The chip sees A12-A14, A0-A1 and D0-D3, so every 8-bit register is two nibble
 * registers at consecutive addresses (low nibble first): $8000/$8002/$9000 the 8 KiB PRG
 * banks at $8000, $A000, $C000 ($E000 holds the last), $9002 the PRG-RAM (bit 0 enables it,
 * bit 1 its writes), $A000-$D003 the eight 1 KiB CHR banks, $E000-$E003 the IRQ's 16-bit
 * reload value a nibble each; $F000 reloads the counter and acknowledges, $F001 the control
 * (bit 0 counts; bits 1-3 the width: 0 16 bits, 1 12, 2-3 8, 4-7 4) and acknowledges,
 * $F002 the mirroring (horizontal, vertical, one-screen lower, upper). Counting, the
 * counter's low `width` bits count down every CPU cycle and the bits above hold; when the
 * counting bits wrap from 0 to all ones the IRQ is raised. $F003 drives the speech chip
 * (a uPD7756C on some boards): not modelled, the writes are ignored. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t prg[3], chr[8];
    uint8_t ram;       /* $9002 */
    uint8_t mirror;
    uint16_t reload;   /* $E000-$E003 */
    uint16_t counter;  /* as at the end of cycle `at` */
    uint8_t ctrl;      /* $F001 */
    uint64_t at;
} ss88006;

static const char *ss_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "SS 88006 boards have at most 512 KiB PRG and 256 KiB CHR" : NULL;
}

static void ss_power(nes *m)
{
    NES_BS(m, ss88006)->at = m->cyc;
}

/* The counting bits of the counter for control c. */
static uint16_t ss_mask(uint8_t c)
{
    return (c & 8) ? 0x000F : (c & 4) ? 0x00FF : (c & 2) ? 0x0FFF : 0xFFFF;
}

/* Brings the counter from the end of cycle p->at to the end of cycle t; a wrap of the
 * counting bits on the way raises the IRQ (the event lands on the first, so t is its cycle). */
static void irq_catch_up(nes *m, uint64_t t)
{
    ss88006 *p = NES_BS(m, ss88006);
    if (t <= p->at)
        return;
    uint64_t n = t - p->at;
    p->at = t;
    if (!(p->ctrl & 1))
        return;
    uint16_t mask = ss_mask(p->ctrl), v = p->counter & mask;
    if (n > v)
        nes_irq_set(m, NES_IRQ_MAPPER, t - n + v + 1);
    p->counter = (uint16_t)((p->counter & ~mask) | ((v - n) & mask));
}

static void irq_schedule(nes *m)
{
    const ss88006 *p = NES_BS(m, ss88006);
    nes_board_schedule(m, (p->ctrl & 1) ? p->at + (p->counter & ss_mask(p->ctrl)) + 1u : NES_NEVER);
}

static void ss_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* Sets nibble (odd: the high one) of register r to v. */
static void nibble(uint8_t *r, int odd, uint8_t v)
{
    *r = odd ? (uint8_t)((*r & 0x0F) | (v & 0x0F) << 4) : (uint8_t)((*r & 0xF0) | (v & 0x0F));
}

static void ss_write(nes *m, uint16_t a, uint8_t v)
{
    ss88006 *p = NES_BS(m, ss88006);
    int r = a & 3, hi = (a >> 12) & 7; /* $8000 -> 0, ..., $F000 -> 7 */
    if (hi <= 1 && !(hi == 1 && r >= 2)) { /* $8000-$8003, $9000-$9001: PRG */
        nibble(&p->prg[hi * 2 + (r >> 1)], r & 1, v);
    } else if (hi == 1) {
        if (r == 2)
            p->ram = v & 3;
        else
            return; /* $9003: nothing */
    } else if (hi <= 5) { /* $A000-$D003: CHR */
        nibble(&p->chr[(hi - 2) * 2 + (r >> 1)], r & 1, v);
    } else if (hi == 6) { /* $E000-$E003: the reload value */
        p->reload = (uint16_t)((p->reload & ~(0xF << 4 * r)) | (v & 0x0F) << 4 * r);
        return;
    } else if (r <= 1) { /* $F000 reload, $F001 control: both acknowledge */
        irq_catch_up(m, m->cyc);
        if (r == 0)
            p->counter = p->reload;
        else
            p->ctrl = v & 0x0F;
        nes_irq_clear(m, NES_IRQ_MAPPER);
        irq_schedule(m);
        return;
    } else if (r == 2) {
        p->mirror = v & 3;
    } else {
        return; /* $F003: the speech chip, not modelled */
    }
    nes_board_update(m);
}

static void ss_maps(nes *m, nes_maps *o)
{
    const ss88006 *p = NES_BS(m, ss88006);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i] & 0x3F;
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    static const int mir[4] = {NES_MIRROR_H, NES_MIRROR_V, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->mirror]);
    if (!(p->ram & 1))
        o->wram = NES_MAP_OFF;
    else if (!(p->ram & 2))
        o->wram |= NES_MAP_RO;
}

static void ss_state(nes_st *s, nes *m)
{
    ss88006 *p = NES_BS(m, ss88006);
    NES_ST_ARR(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->ram);
    NES_ST(s, p->mirror);
    NES_ST(s, p->reload);
    NES_ST(s, p->counter);
    NES_ST(s, p->ctrl);
    NES_ST(s, p->at);
    irq_schedule(m);
}

static const char *ss_state_check(const nes *m)
{
    const ss88006 *p = NES_BS(m, ss88006);
    return p->at > m->cyc || p->ram > 3 || p->mirror > 3 || p->ctrl > 15 ? "SS 88006 state out of range" : NULL;
}

const nes_board nes_board_ss88006 = {
    .mapper = 18, .name = "Jaleco SS 88006", .size = sizeof(ss88006), .check = ss_check, .power = ss_power,
    .maps = ss_maps, .write = ss_write, .cpu_event = ss_event, .state = ss_state, .state_check = ss_state_check,
};
