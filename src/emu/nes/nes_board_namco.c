/* nes_board_namco.c: Namco's 175 and 340 (mapper 210), from the NESdev wiki's "INES Mapper
 * 210" and "Namco 163". Twelve registers, each filling $800 bytes: $8000-$BFFF the eight 1
 * KiB CHR banks, $E000, $E800, $F000 the 8 KiB PRG banks at $8000, $A000, $C000 (bits 0-5;
 * $E000 holds the last). The 175 (210.1) has hard-wired mirroring and up to 2 KiB of RAM
 * at $6000 (mirrored), enabled by $C000 bit 0; the 340 (210.2) has no RAM and takes the
 * mirroring from $E000 bits 6-7 (0 one-screen lower, 1 vertical, 2 one-screen upper, 3
 * horizontal). Submapper 0 runs as the 175 until a write sets $E000 bit 6 or 7, which makes
 * it a 340 from then on (the wiki's heuristic). */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t chr[8], prg[3];
    uint8_t e000;      /* $E000 as last written (the 340's mirroring bits) */
    uint8_t ram_on;    /* 175: $C000 bit 0 */
    uint8_t is340;     /* 210.0: a 340 by the heuristic */
} namco;

/* The members of the family (nes_board.variant). */
enum { NAMCO_210, NAMCO_175, NAMCO_340 };

static int match_210(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0;
}

static int match_175(const nes_cart *c)
{
    return c->nes2 && c->submapper == 1;
}

static int match_340(const nes_cart *c)
{
    return c->nes2 && c->submapper == 2;
}

static const char *namco_check(const nes_cart *c)
{
    if (c->prg_size > 524288 || c->chr_size > 262144)
        return "Namco 175/340 boards have at most 512 KiB PRG and 256 KiB CHR";
    return c->nes2 && c->submapper == 2 && c->prg_ram_size ? "the Namco 340 has no PRG-RAM" : NULL;
}

static int is340(const nes *m)
{
    return m->bd->variant == NAMCO_340 || (m->bd->variant == NAMCO_210 && NES_BS(m, namco)->is340);
}

static void namco_write(nes *m, uint16_t a, uint8_t v)
{
    namco *p = NES_BS(m, namco);
    int r = (a - 0x8000) >> 11; /* 0-15, $800 bytes each */
    if (r < 8) {
        p->chr[r] = v;
    } else if (r == 8) {
        p->ram_on = v & 1;
    } else if (r < 12) {
        return; /* $C800-$DFFF: the 163's nametable registers */
    } else if (r < 15) {
        p->prg[r - 12] = v & 0x3F;
        if (r == 12) {
            p->e000 = v;
            if (v & 0xC0)
                p->is340 = 1;
        }
    } else {
        return; /* $F800: the 163's sound address and RAM protection */
    }
    nes_board_update(m);
}

static void namco_maps(nes *m, nes_maps *o)
{
    const namco *p = NES_BS(m, namco);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i];
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    if (is340(m)) {
        static const int mir[4] = {NES_MIRROR_1A, NES_MIRROR_V, NES_MIRROR_1B, NES_MIRROR_H};
        nes_maps_mirror(o, mir[p->e000 >> 6]);
        o->wram = NES_MAP_OFF;
    } else if (!p->ram_on) {
        o->wram = NES_MAP_OFF;
    }
}

static void namco_state(nes_st *s, nes *m)
{
    namco *p = NES_BS(m, namco);
    NES_ST_ARR(s, p->chr);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->e000);
    NES_ST(s, p->ram_on);
    NES_ST(s, p->is340);
}

static const char *namco_state_check(const nes *m)
{
    const namco *p = NES_BS(m, namco);
    return p->ram_on > 1 || p->is340 > 1 ? "Namco 175/340 state out of range" : NULL;
}

const nes_board nes_board_namco210 = {
    .mapper = 210, .name = "Namco 175/340", .variant = NAMCO_210, .size = sizeof(namco), .match = match_210,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};

const nes_board nes_board_namco175 = {
    .mapper = 210, .name = "Namco 175", .variant = NAMCO_175, .size = sizeof(namco), .match = match_175,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};

const nes_board nes_board_namco340 = {
    .mapper = 210, .name = "Namco 340", .variant = NAMCO_340, .size = sizeof(namco), .match = match_340,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};
