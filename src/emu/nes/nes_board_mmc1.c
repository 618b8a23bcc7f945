/* nes_board_mmc1.c: the MMC1 (SxROM boards, mapper 1): a 5-bit serial port at
 * $8000-$FFFF loads four registers (control, CHR bank 0, CHR bank 1, PRG bank). Writing a
 * byte with bit 7 set resets the port and fixes the last PRG bank at $C000. Writes on
 * consecutive CPU cycles (the double write of a read-modify-write instruction) are ignored
 * after the first. The boards with 8 KiB of CHR-RAM use the CHR bank lines they do not need
 * for other things (the NESdev wiki's "SxROM" and "NES 2.0 submappers"): SNROM disables its
 * PRG-RAM with bit 4, SOROM (16 KiB PRG-RAM) takes the RAM's A13 from bit 3, SXROM (32 KiB)
 * its A13-A14 from bits 2-3, and the 512 KiB boards (SUROM, SXROM) PRG A18 from bit 4; the
 * variant follows from the sizes. SEROM/SHROM (submapper 5) wire no PRG banking. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t shift, count, ctrl, chr0, chr1, prg;
    uint64_t last; /* cycle of the last serial write */
} mmc1;

/* The boards (nes_board.variant): what CHR bank 0's upper bits drive. */
enum { SX_PLAIN, SX_SNROM, SX_SOROM, SX_SUROM, SX_SXROM, SX_SEROM };

static int chr_ram_8k(const nes_cart *c)
{
    return !c->chr_size && c->chr_ram_size == 8192;
}

static int match_serom(const nes_cart *c)
{
    return c->nes2 && c->submapper == 5;
}

static int match_sxrom(const nes_cart *c)
{
    return chr_ram_8k(c) && c->prg_ram_size == 32768;
}

static int match_surom(const nes_cart *c)
{
    return chr_ram_8k(c) && c->prg_size == 524288;
}

static int match_sorom(const nes_cart *c)
{
    return chr_ram_8k(c) && c->prg_ram_size == 16384;
}

static int match_snrom(const nes_cart *c)
{
    return chr_ram_8k(c) && c->prg_ram_size == 8192 && c->prg_size <= 262144;
}

static const char *mmc1_check(const nes_cart *c)
{
    if (c->prg_size > 524288 || c->chr_size > 131072)
        return "MMC1 has at most 512 KiB PRG and 128 KiB CHR";
    if (c->prg_ram_size > 32768)
        return "SxROM boards have at most 32 KiB PRG-RAM";
    return NULL;
}

static void mmc1_power(nes *m)
{
    mmc1 *p = NES_BS(m, mmc1);
    p->ctrl = 0x0C; /* the MMC1 powers up with the last bank fixed at $C000 */
    p->last = NES_NEVER - 1;
}

static void mmc1_write(nes *m, uint16_t a, uint8_t v)
{
    mmc1 *p = NES_BS(m, mmc1);
    uint64_t prev = p->last;
    p->last = m->cyc;
    if (m->cyc == prev + 1)
        return;
    if (v & 0x80) {
        p->shift = 0;
        p->count = 0;
        p->ctrl |= 0x0C;
        nes_board_update(m);
        return;
    }
    p->shift = (uint8_t)((p->shift >> 1) | ((v & 1) << 4));
    if (++p->count < 5)
        return;
    uint8_t val = p->shift & 0x1F;
    switch ((a >> 13) & 3) {
    case 0: p->ctrl = val; break;
    case 1: p->chr0 = val; break;
    case 2: p->chr1 = val; break;
    default: p->prg = val; break;
    }
    p->shift = 0;
    p->count = 0;
    nes_board_update(m);
}

static void mmc1_maps(nes *m, nes_maps *o)
{
    const mmc1 *p = NES_BS(m, mmc1);
    const nes_cart *c = m->cart;
    int board = m->bd->variant;
    static const int mir[4] = {NES_MIRROR_1A, NES_MIRROR_1B, NES_MIRROR_V, NES_MIRROR_H};
    nes_maps_mirror(o, mir[p->ctrl & 3]);
    /* 512 KiB boards take PRG A18 from CHR bank 0's bit 4 (the hardware drives it from the
     * CHR register of the pattern half the PPU addressed last in 4 KiB mode; bank 0 here) */
    int outer = (c->prg_size > 262144 && (p->chr0 & 0x10)) ? 16 : 0;
    int bank = (p->prg & 0x0F) | outer;
    int last = ((int)(c->prg_size / 16384) - 1) & 0x0F;
    int lo, hi;
    switch ((p->ctrl >> 2) & 3) {
    case 0:
    case 1: /* 32 KiB mode: low bit ignored */
        lo = bank & ~1;
        hi = lo | 1;
        break;
    case 2: /* first bank fixed at $8000 */
        lo = outer;
        hi = bank;
        break;
    default: /* last bank fixed at $C000 */
        lo = bank;
        hi = last | outer;
        break;
    }
    if (board == SX_SEROM) { /* 32 KiB, PRG A14 not wired to the MMC1 */
        lo = 0;
        hi = 1;
    }
    o->prg[0] = lo * 2;
    o->prg[1] = lo * 2 + 1;
    o->prg[2] = hi * 2;
    o->prg[3] = hi * 2 + 1;
    if (p->ctrl & 0x10) { /* two 4 KiB CHR banks */
        for (int i = 0; i < 4; i++) {
            o->chr[i] = p->chr0 * 4 + i;
            o->chr[4 + i] = p->chr1 * 4 + i;
        }
    } else { /* one 8 KiB bank, low bit ignored */
        for (int i = 0; i < 8; i++)
            o->chr[i] = (p->chr0 & 0x1E) * 4 + i;
    }
    if (board == SX_SOROM) /* PRG-RAM A13 */
        o->wram = (p->chr0 >> 3) & 1;
    else if (board == SX_SXROM) /* PRG-RAM A13-A14 */
        o->wram = (p->chr0 >> 2) & 3;
    /* PRG-RAM disable: the PRG register's bit 4 (MMC1B and later); on SNROM CHR bit 4 too */
    if ((p->prg & 0x10) || (board == SX_SNROM && (p->chr0 & 0x10)))
        o->wram = NES_MAP_OFF;
}

static void mmc1_state(nes_st *s, nes *m)
{
    mmc1 *p = NES_BS(m, mmc1);
    NES_ST(s, p->shift);
    NES_ST(s, p->count);
    NES_ST(s, p->ctrl);
    NES_ST(s, p->chr0);
    NES_ST(s, p->chr1);
    NES_ST(s, p->prg);
    NES_ST(s, p->last);
}

static const char *mmc1_state_check(const nes *m)
{
    return NES_BS(m, mmc1)->count > 4 ? "MMC1 shift count out of range" : NULL;
}

static void mmc1_legacy(nes *m, const nes_legacy_map *old)
{
    mmc1 *p = NES_BS(m, mmc1);
    p->shift = old->m1_shift;
    p->count = old->m1_count;
    p->ctrl = old->m1_ctrl;
    p->chr0 = old->m1_chr0;
    p->chr1 = old->m1_chr1;
    p->prg = old->m1_prg;
    p->last = old->m1_last;
}

#define SXROM_BOARD(id, nm, var, fn)                                                               \
    const nes_board id = {                                                                         \
        .mapper = 1, .name = nm, .variant = var, .size = sizeof(mmc1), .match = fn, .check = mmc1_check, \
        .power = mmc1_power, .maps = mmc1_maps, .write = mmc1_write, .state = mmc1_state,               \
        .state_check = mmc1_state_check, .legacy = mmc1_legacy,                                        \
    }

SXROM_BOARD(nes_board_serom, "MMC1 (SEROM/SHROM)", SX_SEROM, match_serom);
SXROM_BOARD(nes_board_sxrom_32k, "MMC1 (SXROM)", SX_SXROM, match_sxrom);
SXROM_BOARD(nes_board_surom, "MMC1 (SUROM)", SX_SUROM, match_surom);
SXROM_BOARD(nes_board_sorom, "MMC1 (SOROM)", SX_SOROM, match_sorom);
SXROM_BOARD(nes_board_snrom, "MMC1 (SNROM)", SX_SNROM, match_snrom);
SXROM_BOARD(nes_board_sxrom, "MMC1", SX_PLAIN, NULL);
