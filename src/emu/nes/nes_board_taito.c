/* nes_board_taito.c: Taito's mapper ASICs, from the NESdev wiki's "INES Mapper 033",
 * "INES Mapper 048", "INES Mapper 080", "INES Mapper 207" and "Taito X1-017". All have two
 * 2 KiB CHR registers (PPU $0000, $0800) and four 1 KiB ones ($1000-$1C00), 8 KiB PRG
 * banks and the last bank fixed at $E000.
 * TC0190 (33), registers at $8000-$8003 and $A000-$A003: $8000 bits 0-5 PRG at $8000 and
 * bit 6 the mirroring (0 vertical, 1 horizontal), $8001 PRG at $A000 ($C000 the second-last
 * bank), $8002/$8003 the 2 KiB CHR banks (the value counts 2 KiB, its low bit used),
 * $A000-$A003 the 1 KiB ones. TC0690 (48): the same banks with the mirroring at $E000 bit 6
 * (register mask $E003) and the MMC3's scanline counter (nes_mmc3_irq.h): $C000 the latch,
 * written inverted ($06 there is $F9 on an MMC3), $C001 a reload at the next counted
 * edge, $C002 IRQ on, $C003 IRQ off and acknowledged; the IRQ comes 4 CPU cycles later than
 * the MMC3's.
 * X1-005 (80): registers at $7EF0-$7EFF (from $7EF6 on each pair of addresses the same
 * register): $7EF0/$7EF1 the 2 KiB CHR banks (bits 1-7), $7EF2-$7EF5 the 1 KiB ones, $7EF6
 * bit 0 the mirroring (0 horizontal, 1 vertical), $7EF8 = $A3 enables its 128 bytes of
 * RAM at $7F00-$7F7F (mirrored at $7F80; any other value disables it: open bus), $7EFA,
 * $7EFC, $7EFE the PRG banks at $8000, $A000, $C000. Mapper 207 wires CHR A17 to CIRAM A10
 * instead: bit 7 of $7EF0 picks the CIRAM page of $2000-$27FF, of $7EF1 that of
 * $2800-$2FFF ($7EF6 does nothing; 128 KiB of CHR).
 * X1-017 (82): the same CHR registers, with $7EF6 bit 1 swapping the 2 KiB and 1 KiB halves
 * (PPU A12 inverted) and bit 0 the mirroring; 5 KiB of RAM inside at $6000-$73FF in three
 * parts, each enabled by its own value: $7EF7 = $CA $6000-$67FF, $7EF8 = $69 $6800-$6FFF,
 * $7EF9 = $84 $7000-$73FF; $7EFA-$7EFC the PRG banks at $8000, $A000, $C000 (bits 2-7, the
 * iNES bank order); pull-downs in the chip make every read there that nothing answers 0.
 * The X1 chips' RAM is the header's PRG-(NV)RAM when it is large enough (battery saves),
 * else the board's own. Not modelled: the X1-017's IRQ ($7EFD-$7EFF, used by no game). */
#include "emu/nes/nes_int.h"
#include "emu/nes/nes_mmc3_irq.h"

#define X1017_RAM 5120

typedef struct {
    uint8_t prg[3];    /* banks at $8000, $A000, $C000 (the TC chips: the first two) */
    uint8_t chr[6];    /* two 2 KiB, four 1 KiB (as written) */
    uint8_t mirror;    /* TC: bit 6 of its register; X1: $7EF6 */
    uint8_t ram_on[3]; /* X1-005: [0]; X1-017: its three parts */
    uint8_t latch, counter, reload, irq_on; /* TC0690 (MMC3 terms: latch as the MMC3 holds it) */
    uint8_t ram[X1017_RAM]; /* the X1 chips' RAM where the header gives none */
} taito;

enum { TC0190, TC0690, X1005, X1005_207, X1017 };

static const char *tc_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "Taito TC0190/TC0690 boards have at most 512 KiB PRG and 256 KiB CHR"
                                                       : NULL;
}

static const char *x1_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "Taito X1 boards have at most 512 KiB PRG and 256 KiB CHR" : NULL;
}

/* iNES 1.0: the X1 chip's RAM inside is what the header's PRG-RAM stands for. */
static void x1005_ines(nes_cart *c)
{
    c->prg_ram_size = 128;
    c->prg_nvram_size = c->prg_nvram_size ? 128 : 0;
}

static void x1017_ines(nes_cart *c)
{
    c->prg_ram_size = X1017_RAM;
    c->prg_nvram_size = c->prg_nvram_size ? X1017_RAM : 0;
}

/* The X1 chip's RAM: the header's PRG-RAM when it holds `need` bytes, else the board's. */
static uint8_t *x1_ram(nes *m, uint32_t need)
{
    return m->cart->prg_ram_size >= need ? m->prg_ram : NES_BS(m, taito)->ram;
}

/* ---- TC0190 / TC0690 ------------------------------------------------------------------------ */

static void tc_write(nes *m, uint16_t a, uint8_t v)
{
    taito *p = NES_BS(m, taito);
    int r = a & 3, tc0690 = m->bd->variant == TC0690;
    if (!tc0690 && a >= 0xC000) /* the TC0190 answers at $8000-$BFFF */
        return;
    switch (a & (tc0690 ? 0xE000 : 0xA000)) {
    case 0x8000:
        if (r < 2)
            p->prg[r] = v & 0x3F;
        else
            p->chr[r - 2] = v;
        if (r == 0 && !tc0690)
            p->mirror = v;
        break;
    case 0xA000: p->chr[2 + r] = v; break;
    case 0xE000: p->mirror = v; break;
    case 0xC000: /* TC0690: the IRQ */
        if (r == 0) {
            p->latch = v ^ 0xFF;
        } else if (r == 1) {
            p->counter = 0;
            p->reload = 1;
        } else {
            p->irq_on = r == 2;
            if (r == 3)
                nes_irq_clear(m, NES_IRQ_MAPPER);
            m->a12_irq = p->irq_on;
            nes_resched(m);
        }
        return;
    default: return;
    }
    nes_board_update(m);
}

static void tc_maps(nes *m, nes_maps *o)
{
    const taito *p = NES_BS(m, taito);
    o->prg[0] = p->prg[0];
    o->prg[1] = p->prg[1];
    o->prg[2] = (int)(m->cart->prg_size / 8192) - 2;
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 2; i++) { /* the 2 KiB registers count 2 KiB */
        o->chr[2 * i] = p->chr[i] * 2;
        o->chr[2 * i + 1] = p->chr[i] * 2 + 1;
    }
    for (int i = 0; i < 4; i++)
        o->chr[4 + i] = p->chr[2 + i];
    nes_maps_mirror(o, (p->mirror & 0x40) ? NES_MIRROR_H : NES_MIRROR_V);
}

/* A counted A12 edge at dot time t: the MMC3's counter (revision B: a reload of 0 also
 * raises the IRQ), the IRQ seen 4 CPU cycles after the MMC3 would raise it. */
static void tc0690_a12(nes *m, uint64_t t)
{
    taito *p = NES_BS(m, taito);
    if (nes_mmc3_clock(&p->counter, &p->reload, p->latch) != NES_MMC3_NOT_ZERO && p->irq_on)
        nes_irq_set(m, NES_IRQ_MAPPER, nes_cycle_at(m, t) + 4);
}

/* ---- X1-005 / X1-017 -------------------------------------------------------------------------- */

static void x1_write_low(nes *m, uint16_t a, uint8_t v)
{
    taito *p = NES_BS(m, taito);
    int kind = m->bd->variant;
    if (a >= 0x7F00) { /* X1-005: the RAM */
        if (kind != X1017 && p->ram_on[0])
            x1_ram(m, 128)[a & 0x7F] = v;
        return;
    }
    if (a < 0x7EF0) { /* X1-017: the RAM's three parts */
        int part = a < 0x6800 ? 0 : a < 0x7000 ? 1 : 2;
        if (kind == X1017 && a < 0x7400 && p->ram_on[part])
            x1_ram(m, X1017_RAM)[a - 0x6000] = v;
        return;
    }
    int r = a & 15;
    if (r < 6) {
        p->chr[r] = v;
    } else if (kind == X1017) {
        static const uint8_t key[3] = {0xCA, 0x69, 0x84};
        if (r == 6)
            p->mirror = v & 3;
        else if (r <= 9)
            p->ram_on[r - 7] = v == key[r - 7];
        else if (r <= 12)
            p->prg[r - 10] = v >> 2;
        else
            return; /* $7EFD-$7EFF: the IRQ (not modelled) */
    } else {
        r &= ~1; /* $7EF6-$7EFF: each pair of addresses one register */
        if (r == 6)
            p->mirror = v & 1;
        else if (r == 8)
            p->ram_on[0] = v == 0xA3;
        else
            p->prg[(r - 10) / 2] = v;
    }
    nes_board_update(m);
}

/* Reads at $6000-$7FFF: the enabled RAM; elsewhere open bus (X1-017: 0, its pull-downs). */
static uint8_t x1_read_low(nes *m, uint16_t a, int peek)
{
    const taito *p = NES_BS(m, taito);
    if (m->bd->variant == X1017) {
        int part = a < 0x6800 ? 0 : a < 0x7000 ? 1 : 2;
        return a >= 0x6000 && a < 0x7400 && p->ram_on[part] ? x1_ram(m, X1017_RAM)[a - 0x6000] : 0;
    }
    return a >= 0x7F00 && p->ram_on[0] ? x1_ram(m, 128)[a & 0x7F] : m->bus;
}

static void x1_maps(nes *m, nes_maps *o)
{
    const taito *p = NES_BS(m, taito);
    int kind = m->bd->variant;
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i];
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    int inv = kind == X1017 && (p->mirror & 2) ? 4 : 0; /* X1-017: PPU A12 inverted */
    int chr_mask = kind == X1005_207 ? 0x7F : 0xFF;      /* 207: bit 7 is CIRAM A10 */
    for (int i = 0; i < 2; i++) {
        o->chr[(2 * i) ^ inv] = p->chr[i] & chr_mask & 0xFE;
        o->chr[(2 * i + 1) ^ inv] = (p->chr[i] & chr_mask) | 1;
    }
    for (int i = 0; i < 4; i++)
        o->chr[(4 + i) ^ inv] = p->chr[2 + i];
    if (kind == X1005_207) {
        for (int i = 0; i < 4; i++)
            o->nt[i] = p->chr[i >> 1] >> 7;
    } else {
        nes_maps_mirror(o, (p->mirror & 1) ? NES_MIRROR_V : NES_MIRROR_H);
    }
    o->wram = NES_MAP_OFF; /* x1_read_low / x1_write_low */
}

/* ---- the family ---------------------------------------------------------------------------- */

static void taito_state(nes_st *s, nes *m)
{
    taito *p = NES_BS(m, taito);
    int kind = m->bd->variant;
    NES_ST_ARR(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->ram_on);
    NES_ST(s, p->latch);
    NES_ST(s, p->counter);
    NES_ST(s, p->reload);
    NES_ST(s, p->irq_on);
    if ((kind == X1005 || kind == X1005_207) && m->cart->prg_ram_size < 128)
        for (int i = 0; i < 128; i++)
            NES_ST(s, p->ram[i]);
    if (kind == X1017 && m->cart->prg_ram_size < X1017_RAM)
        NES_ST_ARR(s, p->ram);
    m->a12_irq = kind == TC0690 && p->irq_on;
}

static const char *taito_state_check(const nes *m)
{
    const taito *p = NES_BS(m, taito);
    for (int i = 0; i < 3; i++)
        if (p->ram_on[i] > 1)
            return "Taito board state out of range";
    return p->reload > 1 || p->irq_on > 1 ? "Taito board state out of range" : NULL;
}

#define TC_BOARD(id, num, nm, kind, ...)                                                                     \
    const nes_board id = {                                                                                 \
        .mapper = num, .name = nm, .variant = kind, .size = sizeof(taito), .check = tc_check,               \
        .maps = tc_maps, .write = tc_write, .state = taito_state,                     \
        .state_check = taito_state_check, __VA_ARGS__                                                       \
    }

#define X1_BOARD(id, num, nm, kind, ines_fn)                                                                 \
    const nes_board id = {                                                                                 \
        .mapper = num, .name = nm, .variant = kind, .size = sizeof(taito), .check = x1_check,               \
        .ines = ines_fn, .maps = x1_maps, .write_low = x1_write_low,                  \
        .read_low = x1_read_low, .state = taito_state, .state_check = taito_state_check,                   \
    }

TC_BOARD(nes_board_tc0190, 33, "Taito TC0190", TC0190);
TC_BOARD(nes_board_tc0690, 48, "Taito TC0690", TC0690, .a12 = tc0690_a12);
X1_BOARD(nes_board_x1005, 80, "Taito X1-005", X1005, x1005_ines);
X1_BOARD(nes_board_x1005_207, 207, "Taito X1-005 (mirroring by CHR)", X1005_207, x1005_ines);
X1_BOARD(nes_board_x1017, 82, "Taito X1-017", X1017, x1017_ines);
