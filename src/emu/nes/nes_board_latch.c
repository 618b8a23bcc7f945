/* nes_board_latch.c: the other discrete-logic boards of Japanese and unlicensed makers: one
 * latch (two on the Jaleco JF-17/JF-19) that the CPU writes and whose outputs drive the
 * upper PRG and CHR address lines and, on some, the nametable select. Facts from the
 * NESdev wiki's page of each mapper:
 *   70  Bandai 74161:        $8000-$FFFF PPPP CCCC: 16 KiB PRG at $8000, 8 KiB CHR
 *   152 Bandai/Taito 74161:  $8000-$FFFF MPPP CCCC: as 70, M the one-screen page
 *   78  Irem 74HC161/32:     $8000-$FFFF CCCC MPPP: 16 KiB PRG at $8000, 8 KiB CHR, M:
 *                            submapper 3 (Holy Diver) horizontal/vertical, else (Cosmo
 *                            Carrier, submapper 1) one-screen page
 *   89  Sunsoft-2 (Sunsoft-3 board): $8000-$FFFF CPPP MCCC: CHR bank C (bit 7 its bit 3),
 *                            16 KiB PRG at $8000, M the one-screen page
 *   93  Sunsoft-2 (Sunsoft-3R board): $8000-$FFFF .PPP ...E: 16 KiB PRG at $8000 (E, the
 *                            CHR-RAM enable, is not modelled: CHR-RAM stays on)
 *   94  UN1ROM:              $8000-$FFFF ...P PP..: 16 KiB PRG at $8000
 *   180 UNROM (74HC08):      $8000-$FFFF: 16 KiB PRG at $C000, the first bank fixed at $8000
 *   97  Irem TAM-S1:         $8000-$BFFF MM.P PPPP: 16 KiB PRG at $C000, the last bank fixed
 *                            at $8000; M 0 one-screen lower, 1 horizontal, 2 vertical, 3
 *                            one-screen upper
 *   232 Camerica Quattro:    $8000-$BFFF ...B B...: the 64 KiB block; $C000-$FFFF .... ..PP:
 *                            the 16 KiB page at $8000 ($C000 the block's last page);
 *                            submapper 1 (Aladdin Deck Enhancer) has the block bits swapped
 *   72  Jaleco JF-17 / 92 JF-19: $8000-$FFFF PC.. DDDD: a 0-to-1 edge of P loads D as the 16
 *                            KiB PRG bank ($8000 on JF-17, the last fixed at $C000; $C000 on
 *                            JF-19, the first fixed at $8000), of C as the 8 KiB CHR bank
 *   87  Jaleco J87:          $6000-$7FFF ---- --LH: 8 KiB CHR bank H + 2L (bits swapped)
 *   140 Jaleco JF-11/JF-14:  $6000-$7FFF ..PP CCCC: 32 KiB PRG, 8 KiB CHR
 *   86  Jaleco JF-13:        $6000-$6FFF .CPP ..CC: 32 KiB PRG P, 8 KiB CHR CC + 4C ($7000,
 *                            its speech chip, is not modelled)
 *   184 Sunsoft-1:           $6000-$7FFF .HHH .LLL: 4 KiB CHR at $0000 L, at $1000 H | 4
 *   79  NINA-03/NINA-06:     $4100-$5FFF where (A & $E100) = $4100: ....PCCC: 32 KiB PRG,
 *                            8 KiB CHR
 * The boards with a 74161 on the data bus (70, 152, 78, 89, 93, 94, 180, 72, 92) have bus
 * conflicts. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t reg;     /* the last value written to the latch */
    uint8_t prg, chr; /* JF-17/JF-19: the banks their edges loaded */
    uint8_t block;   /* Quattro: the $8000-$BFFF register */
} latch2;

enum { L70, L152, L78, L89, L93, L94, L180, L97, L232, L72, L92, L87, L140, L86, L184, L79 };

static int last16(const nes *m)
{
    return (int)(m->cart->prg_size / 16384) - 1;
}

/* A 16 KiB bank b at window w (0: $8000, 1: $C000). */
static void prg16(nes_maps *o, int w, int b)
{
    o->prg[2 * w] = 2 * b;
    o->prg[2 * w + 1] = 2 * b + 1;
}

static void prg32(nes_maps *o, int b)
{
    for (int i = 0; i < 4; i++)
        o->prg[i] = 4 * b + i;
}

static void chr8(nes_maps *o, int b)
{
    for (int i = 0; i < 8; i++)
        o->chr[i] = 8 * b + i;
}

static void latch2_write(nes *m, uint16_t a, uint8_t v)
{
    latch2 *p = NES_BS(m, latch2);
    int k = m->bd->variant;
    if (k == L72 || k == L92) { /* rising edges of bits 7 and 6 load the banks */
        if ((v & 0x80) && !(p->reg & 0x80))
            p->prg = v & 0x0F;
        if ((v & 0x40) && !(p->reg & 0x40))
            p->chr = v & 0x0F;
    } else if (k == L97 && a >= 0xC000) {
        return; /* TAM-S1: the register is at $8000-$BFFF */
    } else if (k == L232 && a < 0xC000) {
        p->block = v;
        nes_board_update(m);
        return;
    }
    p->reg = v;
    nes_board_update(m);
}

/* The boards whose register sits below $8000 (87, 140, 86, 184 at $6000, 79 at $4100). */
static void latch2_write_low(nes *m, uint16_t a, uint8_t v)
{
    latch2 *p = NES_BS(m, latch2);
    int k = m->bd->variant, hit;
    switch (k) {
    case L79: hit = (a & 0xE100) == 0x4100; break;
    case L86: hit = a >= 0x6000 && a < 0x7000; break;
    default: hit = a >= 0x6000; break;
    }
    if (!hit) {
        nes_wram_write(m, a, v);
        return;
    }
    p->reg = v;
    nes_board_update(m);
}

static void latch2_maps(nes *m, nes_maps *o)
{
    const latch2 *p = NES_BS(m, latch2);
    int r = p->reg, last = last16(m);
    switch (m->bd->variant) {
    case L70:
        prg16(o, 0, r >> 4);
        prg16(o, 1, last);
        chr8(o, r & 15);
        break;
    case L152:
        prg16(o, 0, (r >> 4) & 7);
        prg16(o, 1, last);
        chr8(o, r & 15);
        nes_maps_mirror(o, (r & 0x80) ? NES_MIRROR_1B : NES_MIRROR_1A);
        break;
    case L78:
        prg16(o, 0, r & 7);
        prg16(o, 1, last);
        chr8(o, r >> 4);
        if (m->cart->nes2 && m->cart->submapper == 3)
            nes_maps_mirror(o, (r & 8) ? NES_MIRROR_V : NES_MIRROR_H);
        else
            nes_maps_mirror(o, (r & 8) ? NES_MIRROR_1B : NES_MIRROR_1A);
        break;
    case L89:
        prg16(o, 0, (r >> 4) & 7);
        prg16(o, 1, last);
        chr8(o, (r & 7) | ((r >> 4) & 8));
        nes_maps_mirror(o, (r & 8) ? NES_MIRROR_1B : NES_MIRROR_1A);
        break;
    case L93:
        prg16(o, 0, (r >> 4) & 7);
        prg16(o, 1, last);
        break;
    case L94:
        prg16(o, 0, (r >> 2) & 7);
        prg16(o, 1, last);
        break;
    case L180:
        prg16(o, 0, 0);
        prg16(o, 1, r & 7);
        break;
    case L97: {
        static const int mir[4] = {NES_MIRROR_1A, NES_MIRROR_H, NES_MIRROR_V, NES_MIRROR_1B};
        prg16(o, 0, last);
        prg16(o, 1, r & 0x1F);
        nes_maps_mirror(o, mir[r >> 6]);
        break;
    }
    case L232: {
        int b = p->block;
        int block = (m->cart->nes2 && m->cart->submapper == 1) ? ((b >> 4) & 1) | ((b >> 2) & 2) : (b >> 3) & 3;
        prg16(o, 0, block * 4 + (r & 3));
        prg16(o, 1, block * 4 + 3);
        break;
    }
    case L72:
        prg16(o, 0, p->prg);
        prg16(o, 1, last);
        chr8(o, p->chr);
        break;
    case L92:
        prg16(o, 0, 0);
        prg16(o, 1, p->prg);
        chr8(o, p->chr);
        break;
    case L87:
        chr8(o, ((r & 1) << 1) | ((r >> 1) & 1));
        break;
    case L140:
        prg32(o, (r >> 4) & 3);
        chr8(o, r & 15);
        break;
    case L86:
        prg32(o, (r >> 4) & 3);
        chr8(o, (r & 3) | ((r >> 4) & 4));
        break;
    case L184:
        for (int i = 0; i < 4; i++) {
            o->chr[i] = 4 * (r & 7) + i;
            o->chr[4 + i] = 4 * (((r >> 4) & 7) | 4) + i;
        }
        break;
    case L79:
        prg32(o, (r >> 3) & 1);
        chr8(o, r & 7);
        break;
    default: break;
    }
}

static void latch2_state(nes_st *s, nes *m)
{
    latch2 *p = NES_BS(m, latch2);
    NES_ST(s, p->reg);
    NES_ST(s, p->prg);
    NES_ST(s, p->chr);
    NES_ST(s, p->block);
}

/* The boards whose register sits in PRG-ROM space. */
#define LATCH_HI(id, num, nm, var, conf)                                                               \
    const nes_board id = {                                                                           \
        .mapper = num, .name = nm, .variant = var, .size = sizeof(latch2), .maps = latch2_maps,        \
        .write = latch2_write, .state = latch2_state, .conflicts = conf,                               \
    }
/* The boards whose register sits below $8000. */
#define LATCH_LO(id, num, nm, var)                                                                     \
    const nes_board id = {                                                                           \
        .mapper = num, .name = nm, .variant = var, .size = sizeof(latch2), .maps = latch2_maps,        \
        .write_low = latch2_write_low, .state = latch2_state,                                          \
    }

LATCH_HI(nes_board_bandai74, 70, "Bandai 74161", L70, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_bandai152, 152, "Bandai 74161 (one-screen)", L152, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_irem78, 78, "Irem 74HC161/32", L78, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_sunsoft89, 89, "Sunsoft-2 (Sunsoft-3 board)", L89, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_sunsoft93, 93, "Sunsoft-2 (Sunsoft-3R board)", L93, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_un1rom, 94, "UN1ROM", L94, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_unrom180, 180, "UNROM (74HC08)", L180, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_tams1, 97, "Irem TAM-S1", L97, NES_CONFLICT_NEVER);
LATCH_HI(nes_board_quattro, 232, "Camerica Quattro", L232, NES_CONFLICT_NEVER);
LATCH_HI(nes_board_jf17, 72, "Jaleco JF-17", L72, NES_CONFLICT_ALWAYS);
LATCH_HI(nes_board_jf19, 92, "Jaleco JF-19", L92, NES_CONFLICT_ALWAYS);
LATCH_LO(nes_board_j87, 87, "Jaleco J87", L87);
LATCH_LO(nes_board_jf11, 140, "Jaleco JF-11/JF-14", L140);
LATCH_LO(nes_board_jf13, 86, "Jaleco JF-13", L86);
LATCH_LO(nes_board_sunsoft1, 184, "Sunsoft-1", L184);
LATCH_LO(nes_board_nina03, 79, "NINA-03/NINA-06", L79);
