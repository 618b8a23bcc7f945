/* nes_board_mmc3.c: the MMC3 (TxROM boards, mapper 4): eight bank registers behind a select
 * port, switchable mirroring, PRG-RAM protection, and the scanline counter clocked by
 * filtered rising edges of PPU address line 12 (the PPU's fetch pattern gives one per
 * rendered line with the usual background $0000 / sprites $1000 setup), which raises an
 * IRQ when it reaches 0. Its relatives, from the NESdev wiki's pages of each:
 * the MMC6 (HKROM, mapper 4 submapper 1): 1 KiB of RAM inside the chip at $7000-$7FFF,
 * enabled by bank-select bit 5, each 512-byte half with its own read and write enable in
 * $A001, and the counter's revision-A behaviour (blargg's mmc3_test 6-MMC6);
 * TxSROM (118): bit 7 of the CHR bank of each 1 KiB of PPU $0000-$0FFF picks the CIRAM
 * page of the matching nametable slot, in place of the mirroring register;
 * TQROM (119): bank values with bit 6 set select the board's 8 KiB of CHR-RAM;
 * Namco 108 (206, the MMC3's predecessor): only the bank registers at $8000-$9FFF (no
 * PRG/CHR modes, 6-bit CHR and 4-bit PRG banks), header mirroring, no IRQ; and the boards
 * that wire it differently (the wiki's pages of each and "Namcot 108 family pinout"):
 * NAMCOT-3446 (76): R2-R5 select 2 KiB banks at $0000-$1800 (R0, R1 unused), 128 KiB;
 * NAMCOT-3443 (88): PPU A12 drives CHR A16, so R0-R1 map the first 64 KiB and R2-R5 the
 * second; NAMCOT-3453 (154): the same, and bit 6 of any write to $8000-$FFFF selects the
 * one-screen page; NAMCOT-3425 (95): CHR A15 (bank bit 5) of the bank that PPU A10-A11 select
 * drives CIRAM A10, so R0 picks the CIRAM page of $2000-$27FF and R1 that of $2800-$2FFF. */
#include "emu/nes/nes_int.h"
#include "emu/nes/nes_mmc3_irq.h"

typedef struct {
    uint8_t sel, bank[8], mirror, ram;
    uint8_t latch, counter, reload, irq_on;
} mmc3;

/* The members of the family (nes_board.variant): the Namco 108's from TX_NAMCO108 on. */
enum { TX_MMC3, TX_MMC6, TX_TXSROM, TX_TQROM, TX_NAMCO108, TX_NAMCO3446, TX_NAMCO3443, TX_NAMCO3453, TX_NAMCO3425 };

static int match_mmc6(const nes_cart *c)
{
    return c->nes2 && c->submapper == 1;
}

/* Mapper 4's other submappers: 0, and 4 for the MMC3A (the NEC revision A). */
static int match_mmc3(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0 || c->submapper == 4;
}

/* TQROM carries 8 KiB of CHR-RAM beside its CHR-ROM (an iNES 1.0 header cannot say so). */
static void tqrom_ines(nes_cart *c)
{
    c->chr_ram_size = 8192;
}

static const char *mmc3_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "MMC3 has at most 512 KiB PRG and 256 KiB CHR" : NULL;
}

static void mmc3_power(nes *m)
{
    if (m->bd->variant != TX_MMC6)
        NES_BS(m, mmc3)->ram = 0x80; /* PRG-RAM enabled and writable, as most boards behave */
}

static void mmc3_write(nes *m, uint16_t a, uint8_t v)
{
    mmc3 *p = NES_BS(m, mmc3);
    int odd = a & 1, kind = m->bd->variant;
    if (kind >= TX_NAMCO108) { /* $8000-$9FFF only; no mode bits */
        if (kind == TX_NAMCO3453) { /* the one-screen page: bit 6 of any write */
            p->mirror = (v >> 6) & 1;
            nes_board_update(m);
        }
        if (a >= 0xA000)
            return;
        if (!odd)
            p->sel = v & 7;
        else
            p->bank[p->sel] = (uint8_t)(v & ((p->sel & 6) == 6 ? 0x0F : 0x3F));
        nes_board_update(m);
        return;
    }
    switch ((a >> 13) & 3) {
    case 0: /* $8000 bank select / $8001 bank data */
        if (!odd) {
            p->sel = v;
            if (kind == TX_MMC6 && !(v & 0x20))
                p->ram = 0; /* RAM disabled: the protect bits are held at 0 */
        } else {
            p->bank[p->sel & 7] = v;
        }
        break;
    case 1: /* $A000 mirroring / $A001 PRG-RAM protect */
        if (!odd)
            p->mirror = v & 1;
        else if (kind != TX_MMC6 || (p->sel & 0x20)) /* MMC6: ignored while its RAM is disabled */
            p->ram = v;
        break;
    case 2: /* $C000 IRQ latch / $C001 reload at the next edge */
        if (!odd) {
            p->latch = v;
        } else {
            p->counter = 0;
            p->reload = 1;
        }
        break;
    default: /* $E000 IRQ disable and acknowledge / $E001 enable */
        if (!odd) {
            p->irq_on = 0;
            nes_irq_clear(m, NES_IRQ_MAPPER);
        } else {
            p->irq_on = 1;
        }
        m->a12_irq = p->irq_on;
        nes_resched(m);
        break;
    }
    nes_board_update(m);
}

/* The Namco 108 boards' CHR and nametable wiring (o->chr holds the 108's own outputs). */
static void namco108_maps(const mmc3 *p, int kind, nes_maps *o, int mirroring)
{
    nes_maps_mirror(o, mirroring);
    switch (kind) {
    case TX_NAMCO3446: /* PPU A11-A12 select R2-R5, whose outputs move up to CHR A11-A16 */
        for (int i = 0; i < 8; i++)
            o->chr[i] = p->bank[2 + (i >> 1)] * 2 + (i & 1);
        break;
    case TX_NAMCO3443: /* PPU A12 as CHR A16 */
    case TX_NAMCO3453:
        for (int i = 4; i < 8; i++)
            o->chr[i] |= 0x40;
        if (kind == TX_NAMCO3453)
            nes_maps_mirror(o, p->mirror ? NES_MIRROR_1B : NES_MIRROR_1A);
        break;
    case TX_NAMCO3425: /* CHR A15 of R0 / R1 as CIRAM A10 */
        for (int i = 0; i < 4; i++)
            o->nt[i] = (o->chr[(i >> 1) * 2] >> 5) & 1;
        break;
    default: break;
    }
}

static void mmc3_maps(nes *m, nes_maps *o)
{
    const mmc3 *p = NES_BS(m, mmc3);
    int kind = m->bd->variant;
    int last = (int)(m->cart->prg_size / 8192) - 1;
    int r6 = p->bank[6] & 0x3F, r7 = p->bank[7] & 0x3F;
    if (p->sel & 0x40) {
        o->prg[0] = last - 1;
        o->prg[2] = r6;
    } else {
        o->prg[0] = r6;
        o->prg[2] = last - 1;
    }
    o->prg[1] = r7;
    o->prg[3] = last;
    /* R0/R1 are 2 KiB banks (low bit ignored), R2-R5 1 KiB; bit 7 of the select swaps halves. */
    int c[8] = {p->bank[0] & 0xFE, (p->bank[0] & 0xFE) | 1, p->bank[1] & 0xFE, (p->bank[1] & 0xFE) | 1,
                p->bank[2], p->bank[3], p->bank[4], p->bank[5]};
    int inv = (p->sel & 0x80) ? 4 : 0;
    for (int i = 0; i < 8; i++)
        o->chr[i ^ inv] = c[i];
    nes_maps_mirror(o, p->mirror ? NES_MIRROR_H : NES_MIRROR_V);
    if (kind == TX_TXSROM) { /* CHR A17 of PPU $0000-$0FFF drives CIRAM A10 instead */
        for (int i = 0; i < 4; i++)
            o->nt[i] = (o->chr[i] >> 7) & 1;
    } else if (kind == TX_TQROM) { /* bit 6: the 8 KiB of CHR-RAM */
        for (int i = 0; i < 8; i++)
            o->chr[i] = (o->chr[i] & 0x40) ? (o->chr[i] & 7) | NES_MAP_RAM : o->chr[i] & 0x3F;
    } else if (kind >= TX_NAMCO108) {
        namco108_maps(p, kind, o, m->cart->mirroring);
    }
    if (kind == TX_MMC6 || kind >= TX_NAMCO108)
        return; /* MMC6: its own RAM (mmc6_read / mmc6_write); Namco 108: as the header says */
    if (!(p->ram & 0x80))
        o->wram = NES_MAP_OFF;
    else if (p->ram & 0x40)
        o->wram |= NES_MAP_RO;
}

/* MMC6: the 1 KiB at $7000-$7FFF (mirrored), halves $x000-$x1FF and $x200-$x3FF. With
 * neither half readable the area is open bus; a half not readable while the other is
 * reads 0; a half is writable when its read and write bits are both set. $6000-$6FFF is
 * open bus. */
static uint8_t mmc6_read(nes *m, uint16_t a, int peek)
{
    const mmc3 *p = NES_BS(m, mmc3);
    if (a < 0x7000 || !(p->sel & 0x20) || !(p->ram & 0xA0))
        return m->bus;
    int rd = (a & 0x200) ? 0x80 : 0x20;
    return (p->ram & rd) ? m->prg_ram[a & 0x3FF & (m->cart->prg_ram_size - 1)] : 0;
}

static void mmc6_write(nes *m, uint16_t a, uint8_t v)
{
    const mmc3 *p = NES_BS(m, mmc3);
    int half = (a & 0x200) ? 0xC0 : 0x30; /* read and write enable of the half */
    if (a >= 0x7000 && (p->sel & 0x20) && (p->ram & half) == half)
        m->prg_ram[a & 0x3FF & (m->cart->prg_ram_size - 1)] = v;
}

static const char *mmc6_check(const nes_cart *c)
{
    const char *why = mmc3_check(c);
    if (why)
        return why;
    return c->prg_ram_size != 1024 ? "the MMC6 has 1 KiB of PRG-RAM inside (PRG-NVRAM 64 << 4)" : NULL;
}

static const char *tqrom_check(const nes_cart *c)
{
    if (c->prg_size > 131072 || c->chr_size > 65536)
        return "TQROM has at most 128 KiB PRG and 64 KiB CHR-ROM";
    return c->chr_ram_size != 8192 ? "TQROM has 8 KiB of CHR-RAM beside its CHR-ROM" : NULL;
}

static const char *namco108_check(const nes_cart *c)
{
    return c->prg_size > 131072 || c->chr_size > 65536 ? "Namco 108 boards have at most 128 KiB PRG and 64 KiB CHR" : NULL;
}

/* NAMCOT-3446, -3443, -3453: 128 KiB of CHR. */
static const char *namco128_check(const nes_cart *c)
{
    return c->prg_size > 131072 || c->chr_size > 131072 ? "this Namco 108 board has at most 128 KiB PRG and CHR" : NULL;
}

/* One filtered A12 rising edge at dot time t: reload from the latch when 0 (or when a
 * reload was asked), else count down; reaching 0 with IRQs enabled asserts the IRQ, which
 * the CPU sees from the cycle holding dot t - 1 on (nes_cycle_at; on NTSC cycle c holds dots
 * 3c-3 to 3c-1; an edge on a cycle's first dot is seen a cycle early: mmc3_test_2
 * 4-scanline_timing #3, sprites at $1000). */
static void mmc3_a12(nes *m, uint64_t t)
{
    mmc3 *p = NES_BS(m, mmc3);
    /* revision A (--mmc3-rev A) asserts it only when the counter was counted down to 0 or
     * reloaded after a $C001 write, not when a 0 is reloaded from a latch of 0 */
    int zero = nes_mmc3_clock(&p->counter, &p->reload, p->latch);
    int rev_a = m->opt.mmc3_rev_a || m->bd->variant == TX_MMC6 || (m->cart->nes2 && m->cart->submapper == 4);
    if (p->irq_on && (zero == NES_MMC3_ZERO || (zero == NES_MMC3_ZERO_RELOADED && !rev_a)))
        nes_irq_set(m, NES_IRQ_MAPPER, nes_cycle_at(m, t));
}

static void mmc3_state(nes_st *s, nes *m)
{
    mmc3 *p = NES_BS(m, mmc3);
    NES_ST(s, p->sel);
    NES_ST_ARR(s, p->bank);
    NES_ST(s, p->mirror);
    NES_ST(s, p->ram);
    NES_ST(s, p->latch);
    NES_ST(s, p->counter);
    NES_ST(s, p->reload);
    NES_ST(s, p->irq_on);
    m->a12_irq = p->irq_on;
}

static void mmc3_legacy(nes *m, const nes_legacy_map *old)
{
    mmc3 *p = NES_BS(m, mmc3);
    p->sel = old->m3_sel;
    for (int i = 0; i < 8; i++)
        p->bank[i] = old->m3_bank[i];
    p->mirror = old->m3_mirror;
    p->ram = old->m3_ram;
    p->latch = old->m3_latch;
    p->counter = old->m3_counter;
    p->reload = old->m3_reload;
    p->irq_on = old->m3_irq_on;
    m->a12_irq = p->irq_on;
}

const nes_board nes_board_mmc3 = {
    .mapper = 4, .name = "MMC3", .variant = TX_MMC3, .size = sizeof(mmc3), .match = match_mmc3, .check = mmc3_check,
    .power = mmc3_power, .maps = mmc3_maps, .write = mmc3_write, .a12 = mmc3_a12, .state = mmc3_state,
    .legacy = mmc3_legacy,
};

const nes_board nes_board_mmc6 = {
    .mapper = 4, .name = "MMC6", .variant = TX_MMC6, .size = sizeof(mmc3), .match = match_mmc6,
    .check = mmc6_check, .power = mmc3_power, .maps = mmc3_maps, .write = mmc3_write, .a12 = mmc3_a12,
    .write_low = mmc6_write, .read_low = mmc6_read, .state = mmc3_state,
};

const nes_board nes_board_txsrom = {
    .mapper = 118, .name = "TxSROM (MMC3)", .variant = TX_TXSROM, .size = sizeof(mmc3), .check = mmc3_check,
    .power = mmc3_power, .maps = mmc3_maps, .write = mmc3_write, .a12 = mmc3_a12, .state = mmc3_state,
};

const nes_board nes_board_tqrom = {
    .mapper = 119, .name = "TQROM (MMC3)", .variant = TX_TQROM, .size = sizeof(mmc3), .check = tqrom_check,
    .ines = tqrom_ines, .power = mmc3_power, .maps = mmc3_maps, .write = mmc3_write, .a12 = mmc3_a12,
    .state = mmc3_state, .chr_both = 1,
};

const nes_board nes_board_namco108 = {
    .mapper = 206, .name = "Namco 108", .variant = TX_NAMCO108, .size = sizeof(mmc3), .check = namco108_check,
    .maps = mmc3_maps, .write = mmc3_write, .state = mmc3_state,
};

#define NAMCO108_BOARD(id, num, nm, kind, check_fn)                                                           \
    const nes_board id = {                                                                                  \
        .mapper = num, .name = nm, .variant = kind, .size = sizeof(mmc3), .check = check_fn,                 \
        .maps = mmc3_maps, .write = mmc3_write, .state = mmc3_state,                                        \
    }

NAMCO108_BOARD(nes_board_namco3446, 76, "NAMCOT-3446 (Namco 108)", TX_NAMCO3446, namco128_check);
NAMCO108_BOARD(nes_board_namco3443, 88, "NAMCOT-3443 (Namco 108)", TX_NAMCO3443, namco128_check);
NAMCO108_BOARD(nes_board_namco3453, 154, "NAMCOT-3453 (Namco 108)", TX_NAMCO3453, namco128_check);
NAMCO108_BOARD(nes_board_namco3425, 95, "NAMCOT-3425 (Namco 108)", TX_NAMCO3425, namco108_check);
