/* nes_board_vrc24.c: Konami's VRC2 and VRC4 (mappers 21, 22, 23, 25), from the NESdev
 * wiki's "VRC2 and VRC4" and "NES 2.0 submappers". The chips decode A15-A12 and
 * two low address lines that each board wires differently (the submapper says which; an
 * iNES 1.0 image of 21, 23 or 25 gets both wirings of its number ORed, as the wiki
 * suggests). Registers: two 8 KiB PRG banks ($8000, $A000; the VRC4 can swap $8000 with
 * the fixed second-last bank at $C000), mirroring, eight 1 KiB CHR banks written a nibble
 * at a time ($B000-$E003), and on the VRC4 the VRC IRQ ($F000-$F003, nes_vrc_irq.h). The
 * VRC2a (22) drops the low bit of its CHR banks; a VRC2 without
 * PRG-RAM answers at $6000-$6FFF with a one-bit latch (its microwire port). */
#include "emu/nes/nes_vrc_irq.h"

typedef struct {
    uint8_t kind;     /* the wiring (kinds[] below), from the cart at power */
    uint8_t prg[2], swap, mirror;
    uint16_t chr[8];
    uint8_t wire_latch; /* VRC2: the $6000 bit without PRG-RAM */
    nes_vrc_irq irq;
} vrc;

/* A board's wiring: chip, CHR shift, and the CPU address lines that drive the chip's A0 and
 * A1 (two per line where an iNES 1.0 number covers two boards: ORed). */
typedef struct {
    uint8_t vrc4, chr_shift;
    uint8_t a0[2], a1[2];
} vrc_kind;

enum { K21, K21A, K21C, K22, K23, K23F, K23E, K23B2, K25, K25B, K25D, K25C2 };
static const vrc_kind kinds[] = {
    [K21] = {1, 0, {1, 6}, {2, 7}},   /* VRC4a (A1, A2) or VRC4c (A6, A7) */
    [K21A] = {1, 0, {1, 1}, {2, 2}},  /* 21.1 VRC4a */
    [K21C] = {1, 0, {6, 6}, {7, 7}},  /* 21.2 VRC4c */
    [K22] = {0, 1, {1, 1}, {0, 0}},   /* VRC2a (A1, A0), CHR bank / 2 */
    [K23] = {1, 0, {0, 2}, {1, 3}},   /* VRC4f / VRC4e / VRC2b */
    [K23F] = {1, 0, {0, 0}, {1, 1}},  /* 23.1 VRC4f (A0, A1) */
    [K23E] = {1, 0, {2, 2}, {3, 3}},  /* 23.2 VRC4e (A2, A3) */
    [K23B2] = {0, 0, {0, 0}, {1, 1}}, /* 23.3 VRC2b (A0, A1) */
    [K25] = {1, 0, {1, 3}, {0, 2}},   /* VRC4b / VRC4d / VRC2c */
    [K25B] = {1, 0, {1, 1}, {0, 0}},  /* 25.1 VRC4b (A1, A0) */
    [K25D] = {1, 0, {3, 3}, {2, 2}},  /* 25.2 VRC4d (A3, A2) */
    [K25C2] = {0, 0, {1, 1}, {0, 0}}, /* 25.3 VRC2c (A1, A0) */
};

static int kind_of(const nes_cart *c)
{
    int sub = c->nes2 ? c->submapper : 0;
    switch (c->mapper) {
    case 21: return sub == 1 ? K21A : sub == 2 ? K21C : K21;
    case 22: return K22;
    case 23: return sub == 1 ? K23F : sub == 2 ? K23E : sub == 3 ? K23B2 : K23;
    default: return sub == 1 ? K25B : sub == 2 ? K25D : sub == 3 ? K25C2 : K25;
    }
}

static int vrc_match(const nes_cart *c)
{
    int sub = c->nes2 ? c->submapper : 0;
    return c->mapper == 22 ? sub == 0 : c->mapper == 21 ? sub <= 2 : sub <= 3;
}

static const char *vrc_check(const nes_cart *c)
{
    return c->prg_size > 262144 || c->chr_size > 524288 ? "VRC2/VRC4 boards have at most 256 KiB PRG and 512 KiB CHR" : NULL;
}

static void vrc_power(nes *m)
{
    vrc *p = NES_BS(m, vrc);
    p->kind = (uint8_t)kind_of(m->cart);
    nes_vrc_irq_power(&p->irq, m);
}

static void vrc_event(nes *m)
{
    vrc *p = NES_BS(m, vrc);
    nes_vrc_irq_catch_up(&p->irq, m, m->cyc);
    nes_vrc_irq_schedule(&p->irq, m);
}

/* ---- registers ------------------------------------------------------------------------- */

static void vrc_write(nes *m, uint16_t a, uint8_t v)
{
    vrc *p = NES_BS(m, vrc);
    const vrc_kind *k = &kinds[p->kind];
    int r = (((a >> k->a0[0]) | (a >> k->a0[1])) & 1) | ((((a >> k->a1[0]) | (a >> k->a1[1])) & 1) << 1);
    switch (a >> 12) {
    case 0x8: p->prg[0] = v & 0x1F; break;
    case 0xA: p->prg[1] = v & 0x1F; break;
    case 0x9:
        if (!k->vrc4 || r < 2)
            p->mirror = v & (k->vrc4 ? 3 : 1);
        else if (r == 2)
            p->swap = (v >> 1) & 1; /* (bit 0, the PRG-RAM control, is not modelled) */
        break;
    case 0xF:
        if (k->vrc4)
            nes_vrc_irq_write(&p->irq, m, r, v);
        return;
    default: { /* $B000-$E003: CHR banks, a nibble at a time */
        int bank = ((a >> 12) - 0xB) * 2 + (r >> 1);
        if (r & 1)
            p->chr[bank] = (uint16_t)((p->chr[bank] & 0x0F) | ((v & (k->vrc4 ? 0x1F : 0x0F)) << 4));
        else
            p->chr[bank] = (uint16_t)((p->chr[bank] & 0x1F0) | (v & 0x0F));
        break;
    }
    }
    nes_board_update(m);
}

static void vrc_maps(nes *m, nes_maps *o)
{
    const vrc *p = NES_BS(m, vrc);
    const vrc_kind *k = &kinds[p->kind];
    int last = (int)(m->cart->prg_size / 8192) - 1;
    o->prg[p->swap ? 2 : 0] = p->prg[0];
    o->prg[1] = p->prg[1];
    o->prg[p->swap ? 0 : 2] = last - 1;
    o->prg[3] = last;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i] >> k->chr_shift;
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->mirror & 3]);
}

/* VRC2 boards without PRG-RAM: $6000-$6FFF holds one bit (bit 0; the rest open bus). */
static uint8_t vrc_read_low(nes *m, uint16_t a, int peek)
{
    const vrc *p = NES_BS(m, vrc);
    if (!kinds[p->kind].vrc4 && !m->cart->prg_ram_size && a >= 0x6000 && a < 0x7000)
        return (uint8_t)((m->bus & 0xFE) | p->wire_latch);
    return nes_wram_read(m, a);
}

static void vrc_write_low(nes *m, uint16_t a, uint8_t v)
{
    vrc *p = NES_BS(m, vrc);
    if (!kinds[p->kind].vrc4 && !m->cart->prg_ram_size && a >= 0x6000 && a < 0x7000)
        p->wire_latch = v & 1;
    else
        nes_wram_write(m, a, v);
}

static void vrc_state(nes_st *s, nes *m)
{
    vrc *p = NES_BS(m, vrc);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->swap);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->wire_latch);
    nes_vrc_irq_state(s, &p->irq);
    if (kinds[p->kind].vrc4) /* (on a load: the next overflow of the loaded counter) */
        nes_vrc_irq_schedule(&p->irq, m);
}

static const char *vrc_state_check(const nes *m)
{
    return nes_vrc_irq_check(&NES_BS(m, vrc)->irq, m);
}

#define VRC_BOARD(id, num, nm)                                                                        \
    const nes_board id = {                                                                          \
        .mapper = num, .name = nm, .size = sizeof(vrc), .match = vrc_match, .check = vrc_check,       \
        .power = vrc_power, .maps = vrc_maps, .write = vrc_write, .read_low = vrc_read_low,           \
        .write_low = vrc_write_low, .cpu_event = vrc_event, .state = vrc_state,                      \
        .state_check = vrc_state_check,                                                              \
    }

VRC_BOARD(nes_board_vrc4_21, 21, "VRC4 (VRC4a/VRC4c)");
VRC_BOARD(nes_board_vrc2_22, 22, "VRC2a");
VRC_BOARD(nes_board_vrc24_23, 23, "VRC2/VRC4 (VRC4f/VRC4e/VRC2b)");
VRC_BOARD(nes_board_vrc24_25, 25, "VRC2/VRC4 (VRC4b/VRC4d/VRC2c)");
