/* nes_board_irem.c: Irem's two ASICs, from the NESdev wiki's "INES Mapper 032", "INES
 * Mapper 065" and "NES 2.0 submappers". Both have two 8 KiB PRG registers whose first one
 * maps at $8000 or, in the second PRG mode, at $C000 (the second-last bank taking the other
 * place; $E000 is the last bank), and eight 1 KiB CHR registers ($B000-$B007).
 * The G-101 (mapper 32): $8000 PRG 0, $9000 bit 1 the PRG mode and bit 0 the mirroring
 * (0 vertical, 1 horizontal), $A000 PRG 1 (register mask $F007). Submapper 1, Major
 * League: CIRAM A10 tied high (one-screen from the upper page) and the PRG mode fixed at 0:
 * $9000 does nothing.
 * The H3001 (mapper 65): $8000 PRG 0, $A000 PRG 1 (at power 0 and 1), $9000 bit 7 the PRG
 * mode, $9001 bits 7-6 the mirroring (%00 vertical, %10 horizontal, %x1 one-screen lower),
 * and a 16-bit IRQ counter: $9005/$9006 its reload value's high/low byte, $9004 copies the
 * reload value into the counter, $9003 bit 7 enables it; both acknowledge the IRQ. While
 * enabled the counter decreases every CPU cycle; on reaching 0 it raises the IRQ and stops
 * there (no wrap, no reload). It runs in closed form; the machine wakes the board at the
 * cycle it reaches 0. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t prg[2], mode, mirror;
    uint8_t chr[8];
    uint8_t irq_on;   /* H3001: $9003 bit 7 */
    uint16_t reload;  /* H3001: $9005 (high) and $9006 (low) */
    uint16_t counter; /* H3001: the counter as at the end of CPU cycle `at` */
    uint64_t at;
} irem;

enum { G101, H3001 };

static const char *irem_check(const nes_cart *c)
{
    return c->prg_size > 262144 || c->chr_size > 262144 ? "Irem G-101/H3001 boards have at most 256 KiB PRG and CHR"
                                                       : NULL;
}

/* Mapper 32's submappers: 0, and 1 (Major League). */
static int match_g101(const nes_cart *c)
{
    return !c->nes2 || c->submapper <= 1;
}

static void irem_power(nes *m)
{
    irem *p = NES_BS(m, irem);
    if (m->bd->variant == H3001)
        p->prg[1] = 1; /* the H3001's power-on value, which games rely on */
    p->at = m->cyc;
}

/* ---- the H3001's counter ----------------------------------------------------------------- */

/* Brings the counter from the end of cycle p->at to the end of cycle t; reaching 0 on the
 * way raises the IRQ from that cycle on. */
static void irq_catch_up(nes *m, uint64_t t)
{
    irem *p = NES_BS(m, irem);
    if (t <= p->at)
        return;
    uint64_t n = t - p->at, zero = p->at + p->counter;
    p->at = t;
    if (!p->irq_on || !p->counter)
        return;
    if (n < p->counter) {
        p->counter = (uint16_t)(p->counter - n);
        return;
    }
    p->counter = 0;
    nes_irq_set(m, NES_IRQ_MAPPER, zero);
}

static void irq_schedule(nes *m)
{
    const irem *p = NES_BS(m, irem);
    nes_board_schedule(m, p->irq_on && p->counter ? p->at + p->counter : NES_NEVER);
}

static void h3001_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* $9003-$9006. */
static void h3001_irq_write(nes *m, int r, uint8_t v)
{
    irem *p = NES_BS(m, irem);
    irq_catch_up(m, m->cyc);
    switch (r) {
    case 3: p->irq_on = v >> 7; nes_irq_clear(m, NES_IRQ_MAPPER); break;
    case 4: p->counter = p->reload; nes_irq_clear(m, NES_IRQ_MAPPER); break;
    case 5: p->reload = (uint16_t)((p->reload & 0x00FF) | v << 8); break;
    default: p->reload = (uint16_t)((p->reload & 0xFF00) | v); break;
    }
    irq_schedule(m);
}

/* ---- registers --------------------------------------------------------------------------- */

static void irem_write(nes *m, uint16_t a, uint8_t v)
{
    irem *p = NES_BS(m, irem);
    int kind = m->bd->variant;
    switch (a & 0xF000) {
    case 0x8000: p->prg[0] = v & 0x1F; break;
    case 0xA000: p->prg[1] = v & 0x1F; break;
    case 0xB000: p->chr[a & 7] = v; break;
    case 0x9000:
        if (kind == G101) {
            p->mode = (v >> 1) & 1;
            p->mirror = v & 1;
        } else if ((a & 7) == 0) {
            p->mode = v >> 7;
        } else if ((a & 7) == 1) {
            p->mirror = v >> 6;
        } else if ((a & 7) >= 3 && (a & 7) <= 6) {
            h3001_irq_write(m, a & 7, v);
            return;
        }
        break;
    default: return;
    }
    nes_board_update(m);
}

static void irem_maps(nes *m, nes_maps *o)
{
    const irem *p = NES_BS(m, irem);
    int last = (int)(m->cart->prg_size / 8192) - 1;
    int major_league = m->bd->variant == G101 && m->cart->nes2 && m->cart->submapper == 1;
    int mode = p->mode && !major_league;
    o->prg[mode ? 2 : 0] = p->prg[0];
    o->prg[mode ? 0 : 2] = last - 1;
    o->prg[1] = p->prg[1];
    o->prg[3] = last;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    if (m->bd->variant == H3001) /* %00 vertical, %10 horizontal, %01 and %11 one-screen */
        nes_maps_mirror(o, (p->mirror & 1) ? NES_MIRROR_1A : (p->mirror & 2) ? NES_MIRROR_H : NES_MIRROR_V);
    else if (major_league) /* CIRAM A10 tied high */
        nes_maps_mirror(o, NES_MIRROR_1B);
    else
        nes_maps_mirror(o, p->mirror ? NES_MIRROR_H : NES_MIRROR_V);
}

static void irem_state(nes_st *s, nes *m)
{
    irem *p = NES_BS(m, irem);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->mode);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->reload);
    NES_ST(s, p->counter);
    NES_ST(s, p->at);
    if (m->bd->variant == H3001) /* (on a load: when the loaded counter reaches 0) */
        irq_schedule(m);
}

static const char *irem_state_check(const nes *m)
{
    const irem *p = NES_BS(m, irem);
    if (p->mode > 1 || p->mirror > 3 || p->irq_on > 1)
        return "Irem board state out of range";
    return p->at > m->cyc ? "Irem IRQ time out of range" : NULL;
}

const nes_board nes_board_g101 = {
    .mapper = 32, .name = "Irem G-101", .variant = G101, .size = sizeof(irem), .match = match_g101,
    .check = irem_check, .power = irem_power, .maps = irem_maps, .write = irem_write, .state = irem_state,
    .state_check = irem_state_check,
};

const nes_board nes_board_h3001 = {
    .mapper = 65, .name = "Irem H3001", .variant = H3001, .size = sizeof(irem), .check = irem_check,
    .power = irem_power, .maps = irem_maps, .write = irem_write, .cpu_event = h3001_event, .state = irem_state,
    .state_check = irem_state_check,
};
