/* nes_board_mmc2.c: the MMC2 (PxROM, mapper 9) and MMC4 (FxROM, mapper 10), from the
 * NESdev wiki's pages. Each 4 KiB half of the pattern tables has two bank registers, one
 * for latch value $FD and one for $FE, and a latch that the PPU's own pattern fetches set:
 * after a read of $0FD8 (MMC4: $0FD8-$0FDF) latch 0 selects the $FD bank, after $0FE8
 * ($0FE8-$0FEF) the $FE bank; after $1FD8-$1FDF / $1FE8-$1FEF the same for latch 1. A
 * tile $FD or $FE in the background or in a sprite switches the bank from the next fetch
 * on, so a picture can change banks in the middle of a line: the PPU stops at each watched
 * fetch (watch_stop in nes_ppu.c), and the switch is logged at the dot after it like any
 * bank change, so every renderer draws it alike. PRG: the MMC2 an 8 KiB bank at $8000 and
 * the last three fixed; the MMC4 a 16 KiB bank at $8000 and the last fixed, with PRG-RAM. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t prg;
    uint8_t chr[4]; /* $FD/0000, $FE/0000, $FD/1000, $FE/1000 */
    uint8_t mirror;
    uint8_t latch[2]; /* 0: $FD, 1: $FE (power-on value not documented: $FD here) */
} mmc2;

enum { PX_MMC2, PX_MMC4 };

static const char *mmc2_check(const nes_cart *c)
{
    if (c->chr_size > 131072 || !c->chr_size)
        return "MMC2/MMC4 boards have CHR-ROM, at most 128 KiB";
    return c->prg_size > 262144 ? "MMC2/MMC4 boards have at most 256 KiB PRG" : NULL;
}

static void mmc2_write(nes *m, uint16_t a, uint8_t v)
{
    mmc2 *p = NES_BS(m, mmc2);
    switch (a >> 12) {
    case 0xA: p->prg = v & 0x0F; break;
    case 0xB: p->chr[0] = v & 0x1F; break;
    case 0xC: p->chr[1] = v & 0x1F; break;
    case 0xD: p->chr[2] = v & 0x1F; break;
    case 0xE: p->chr[3] = v & 0x1F; break;
    case 0xF: p->mirror = v & 1; break;
    default: return; /* $8000-$9FFF: nothing */
    }
    nes_board_update(m);
}

static void mmc2_maps(nes *m, nes_maps *o)
{
    const mmc2 *p = NES_BS(m, mmc2);
    int last = (int)(m->cart->prg_size / 8192) - 1;
    if (m->bd->variant == PX_MMC2) {
        o->prg[0] = p->prg;
        for (int i = 1; i < 4; i++)
            o->prg[i] = last - 3 + i;
    } else {
        o->prg[0] = p->prg * 2;
        o->prg[1] = p->prg * 2 + 1;
        o->prg[2] = last - 1;
        o->prg[3] = last;
    }
    for (int i = 0; i < 4; i++) {
        o->chr[i] = p->chr[p->latch[0]] * 4 + i;
        o->chr[4 + i] = p->chr[2 + p->latch[1]] * 4 + i;
    }
    nes_maps_mirror(o, p->mirror ? NES_MIRROR_H : NES_MIRROR_V);
}

/* A fetch of a watched pattern address (see watch_mask): sets the latch of its half. */
static void mmc2_ppu_read(nes *m, uint16_t a)
{
    mmc2 *p = NES_BS(m, mmc2);
    int half = (a >> 12) & 1, tile = (a >> 4) & 0xFF, row = a & 0x0F;
    /* the MMC2's latch 0 reacts to the first row of the high plane only; the rest to all */
    int exact = m->bd->variant == PX_MMC2 && half == 0;
    if ((tile != 0xFD && tile != 0xFE) || row < 8 || (exact && row != 8))
        return;
    uint8_t l = tile == 0xFE;
    if (p->latch[half] != l) {
        p->latch[half] = l;
        nes_board_update(m);
    }
}

static void mmc2_state(nes_st *s, nes *m)
{
    mmc2 *p = NES_BS(m, mmc2);
    NES_ST(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->latch);
}

static const char *mmc2_state_check(const nes *m)
{
    const mmc2 *p = NES_BS(m, mmc2);
    return p->latch[0] > 1 || p->latch[1] > 1 ? "MMC2/MMC4 latch out of range" : NULL;
}

/* The watched addresses: $xFD8-$xFDF and $xFE8-$xFEF pass (a & $0FC8) == $0FC8 (with $xFC8
 * and $xFF8, which mmc2_ppu_read passes over). */
const nes_board nes_board_mmc2 = {
    .mapper = 9, .name = "MMC2", .variant = PX_MMC2, .size = sizeof(mmc2), .check = mmc2_check,
    .maps = mmc2_maps, .write = mmc2_write, .ppu_read = mmc2_ppu_read, .watch_mask = 0x0FC8, .watch_val = 0x0FC8,
    .state = mmc2_state, .state_check = mmc2_state_check,
};

const nes_board nes_board_mmc4 = {
    .mapper = 10, .name = "MMC4", .variant = PX_MMC4, .size = sizeof(mmc2), .check = mmc2_check,
    .maps = mmc2_maps, .write = mmc2_write, .ppu_read = mmc2_ppu_read, .watch_mask = 0x0FC8, .watch_val = 0x0FC8,
    .state = mmc2_state, .state_check = mmc2_state_check,
};
