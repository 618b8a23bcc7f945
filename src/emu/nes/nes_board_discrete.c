/* nes_board_discrete.c: the boards made of discrete logic (and the small Camerica chip): a
 * latch that takes the CPU's written value and drives the upper PRG and CHR address lines
 * and the nametable select. NROM (0) has none, and NROM-368 decodes 46 KiB of ROM at
 * $4800-$FFFF; UxROM (2), CNROM (3), AxROM (7), Color Dreams (11), CPROM (13), BNROM (34)
 * and GxROM (66) latch any write to $8000-$FFFF (and so does the CNROM board of mapper 185,
 * whose latch only enables its CHR-ROM); NINA-001 (34) has three registers at
 * $7FFD-$7FFF; Camerica (71) a bank register at $C000-$FFFF and, on Fire Hawk, a mirroring
 * register at $9000. Their windows follow from the latched values, so the CPU's PRG reads
 * stay plain pointer reads (nes_board_update). Facts from the NESdev wiki's page of each. */
#include "emu/nes/nes_int.h"

/* The latched values. */
typedef struct {
    uint8_t reg;       /* the $8000-$FFFF latch */
    uint8_t chr[2];    /* NINA-001's CHR registers */
    uint8_t mirror_on; /* Camerica: the one-screen register has been written (iNES 1.0 images) */
    uint8_t mirror;    /* Camerica: its value */
} latch;

static const char *nrom_check(const nes_cart *c)
{
    return c->prg_size > 32768 || c->chr_size > 8192 ? "NROM has at most 32 KiB PRG and 8 KiB CHR" : NULL;
}

static const char *cnrom_check(const nes_cart *c)
{
    return c->prg_size > 32768 ? "CNROM has at most 32 KiB PRG" : NULL;
}

/* NROM-368: 48 KiB of PRG in the image, its first 2 KiB unused; the rest at $4800-$FFFF. */
static int match_nrom368(const nes_cart *c)
{
    return c->prg_size == 49152;
}

static const char *nrom368_check(const nes_cart *c)
{
    if (c->chr_size > 8192)
        return "NROM-368 has at most 8 KiB CHR";
    return c->prg_ram_size ? "NROM-368 has ROM where PRG-RAM would be (PRG-RAM size must be 0)" : NULL;
}

/* An iNES 1.0 header implies 8 KiB of PRG-RAM; NROM-368 has ROM there. */
static void nrom368_ines(nes_cart *c)
{
    c->prg_ram_size = c->prg_nvram_size = 0;
}

static void nrom368_maps(nes *m, nes_maps *o)
{
    for (int i = 0; i < 4; i++)
        o->prg[i] = 2 + i; /* $8000 is image offset $4000 */
    o->wram = NES_MAP_OFF;
}

static uint8_t nrom368_read(nes *m, uint16_t a, int peek)
{
    return a >= 0x4800 ? m->cart->prg[a - 0x4000] : m->bus;
}

static void rom_write_low(nes *m, uint16_t a, uint8_t v)
{
    /* ROM: writes go nowhere */
}

/* Any write to $8000-$FFFF loads the latch. */
static void latch_write(nes *m, uint16_t a, uint8_t v)
{
    NES_BS(m, latch)->reg = v;
    nes_board_update(m);
}

/* UxROM: a 16 KiB bank at $8000, the last 16 KiB fixed at $C000. */
static void uxrom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg, last8 = (int)(m->cart->prg_size / 8192) - 1;
    o->prg[0] = r * 2;
    o->prg[1] = r * 2 + 1;
    o->prg[2] = last8 - 1;
    o->prg[3] = last8;
}

/* CNROM: an 8 KiB CHR bank. */
static void cnrom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg;
    for (int i = 0; i < 8; i++)
        o->chr[i] = r * 8 + i;
}

/* Mapper 185, CNROM used to disable the CHR-ROM (the NESdev wiki's "INES Mapper 185" and
 * "NES 2.0 submappers"): submappers 4-7 enable it while bits 0-1 of the latch are 0-3;
 * submapper 0 (and iNES 1.0) by the wiki's heuristic: while (latch & $0F) is not 0 and the
 * latch is not $13. Disabled, the pattern tables are open bus (read here as $FF). */
static int match_cnrom185(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0 || (c->submapper >= 4 && c->submapper <= 7);
}

static void cnrom185_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg, sub = m->cart->nes2 ? m->cart->submapper : 0;
    int on = sub >= 4 ? (r & 3) == sub - 4 : (r & 0x0F) && r != 0x13;
    if (!on)
        for (int i = 0; i < 8; i++)
            o->chr[i] = NES_MAP_OPEN;
}

static const char *cnrom185_check(const nes_cart *c)
{
    return c->prg_size > 32768 || !c->chr_size ? "mapper 185 boards have at most 32 KiB PRG and a CHR-ROM" : NULL;
}

/* AxROM: a 32 KiB PRG bank from bits 0-2, the one-screen nametable page from bit 4. */
static void axrom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg;
    for (int i = 0; i < 4; i++)
        o->prg[i] = (r & 7) * 4 + i;
    nes_maps_mirror(o, (r & 0x10) ? NES_MIRROR_1B : NES_MIRROR_1A);
}

/* Color Dreams: CCCC LLPP: a 32 KiB PRG bank from bits 0-1, an 8 KiB CHR bank from bits
 * 4-7 (bits 2-3 drive the lockout defeat). */
static void colordreams_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg;
    for (int i = 0; i < 4; i++)
        o->prg[i] = (r & 3) * 4 + i;
    for (int i = 0; i < 8; i++)
        o->chr[i] = (r >> 4) * 8 + i;
}

/* CPROM: 16 KiB of CHR-RAM; $0000-$0FFF fixed to its first 4 KiB, $1000-$1FFF the 4 KiB
 * page of bits 0-1. */
static void cprom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg & 3;
    for (int i = 0; i < 4; i++)
        o->chr[4 + i] = r * 4 + i;
}

static const char *cprom_check(const nes_cart *c)
{
    return c->prg_size > 32768 || c->chr_size ? "CPROM has 32 KiB PRG and CHR-RAM only" : NULL;
}

static void cprom_ines(nes_cart *c)
{
    c->chr_ram_size = 16384; /* the board's 16 KiB of CHR-RAM */
}

/* BNROM: a 32 KiB PRG bank from the whole latch (the original board uses bits 0-1). */
static void bnrom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg;
    for (int i = 0; i < 4; i++)
        o->prg[i] = r * 4 + i;
}

/* Mapper 34: NINA-001 by submapper 1, BNROM by 2; iNES 1.0 images by their CHR: NINA-001
 * has more than 8 KiB of CHR-ROM, BNROM 8 KiB of CHR-RAM. */
static int match_nina001(const nes_cart *c)
{
    return c->nes2 && c->submapper ? c->submapper == 1 : c->chr_size > 8192;
}

static int match_bnrom(const nes_cart *c)
{
    return c->nes2 && c->submapper ? c->submapper == 2 : c->chr_size <= 8192;
}

/* NINA-001: $7FFD a 32 KiB PRG bank (bit 0), $7FFE and $7FFF 4 KiB CHR banks for $0000
 * and $1000 (bits 0-3); the writes reach the PRG-RAM underneath too. */
static void nina001_write_low(nes *m, uint16_t a, uint8_t v)
{
    latch *p = NES_BS(m, latch);
    nes_wram_write(m, a, v);
    if (a < 0x7FFD)
        return;
    if (a == 0x7FFD)
        p->reg = v & 1;
    else
        p->chr[a - 0x7FFE] = v & 0x0F;
    nes_board_update(m);
}

static void nina001_maps(nes *m, nes_maps *o)
{
    const latch *p = NES_BS(m, latch);
    for (int i = 0; i < 4; i++) {
        o->prg[i] = p->reg * 4 + i;
        o->chr[i] = p->chr[0] * 4 + i;
        o->chr[4 + i] = p->chr[1] * 4 + i;
    }
}

/* GxROM: --PP --CC: a 32 KiB PRG bank from bits 4-5, an 8 KiB CHR bank from bits 0-1. */
static void gxrom_maps(nes *m, nes_maps *o)
{
    int r = NES_BS(m, latch)->reg;
    for (int i = 0; i < 4; i++)
        o->prg[i] = ((r >> 4) & 3) * 4 + i;
    for (int i = 0; i < 8; i++)
        o->chr[i] = (r & 3) * 8 + i;
}

/* Camerica BF909x: $C000-$FFFF selects the 16 KiB bank at $8000 (the last is fixed at
 * $C000); Fire Hawk's BF9097 (submapper 1) selects the one-screen page with bit 4 of
 * $8000-$9FFF. An iNES 1.0 image keeps its header's mirroring until $9000-$9FFF is written
 * (other Camerica games write $00 to $8000 at start): the wiki's compatibility rule. */
static void camerica_write(nes *m, uint16_t a, uint8_t v)
{
    latch *p = NES_BS(m, latch);
    if (a >= 0xC000) {
        p->reg = v;
    } else if (a < 0xA000 && (a >= 0x9000 || (m->cart->nes2 && m->cart->submapper == 1))) {
        p->mirror = (v >> 4) & 1;
        p->mirror_on = 1;
    } else {
        return;
    }
    nes_board_update(m);
}

static void camerica_power(nes *m)
{
    NES_BS(m, latch)->mirror_on = m->cart->nes2 && m->cart->submapper == 1;
}

static void camerica_maps(nes *m, nes_maps *o)
{
    const latch *p = NES_BS(m, latch);
    uxrom_maps(m, o);
    if (p->mirror_on)
        nes_maps_mirror(o, p->mirror ? NES_MIRROR_1B : NES_MIRROR_1A);
}

static void latch_state(nes_st *s, nes *m)
{
    latch *p = NES_BS(m, latch);
    NES_ST(s, p->reg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->mirror_on);
    NES_ST(s, p->mirror);
}

static void latch_legacy(nes *m, const nes_legacy_map *old)
{
    NES_BS(m, latch)->reg = old->bank;
}

const nes_board nes_board_nrom = {
    .mapper = 0, .name = "NROM", .size = sizeof(latch), .check = nrom_check, .state = latch_state,
};

const nes_board nes_board_nrom368 = {
    .mapper = 0, .name = "NROM-368", .size = sizeof(latch), .match = match_nrom368, .check = nrom368_check,
    .ines = nrom368_ines, .maps = nrom368_maps, .read_low = nrom368_read, .write_low = rom_write_low,
    .state = latch_state,
};

const nes_board nes_board_uxrom = {
    .mapper = 2, .name = "UxROM", .size = sizeof(latch), .maps = uxrom_maps, .write = latch_write,
    .state = latch_state, .legacy = latch_legacy, .conflicts = NES_CONFLICT_SUB2,
};

const nes_board nes_board_cnrom = {
    .mapper = 3, .name = "CNROM", .size = sizeof(latch), .check = cnrom_check, .maps = cnrom_maps,
    .write = latch_write, .state = latch_state, .legacy = latch_legacy, .conflicts = NES_CONFLICT_SUB2,
};

const nes_board nes_board_axrom = {
    .mapper = 7, .name = "AxROM", .size = sizeof(latch), .maps = axrom_maps, .write = latch_write,
    .state = latch_state, .legacy = latch_legacy, .conflicts = NES_CONFLICT_SUB2,
};

const nes_board nes_board_colordreams = {
    .mapper = 11, .name = "Color Dreams", .size = sizeof(latch), .maps = colordreams_maps,
    .write = latch_write, .state = latch_state, .conflicts = NES_CONFLICT_ALWAYS,
};

const nes_board nes_board_cprom = {
    .mapper = 13, .name = "CPROM", .size = sizeof(latch), .check = cprom_check, .ines = cprom_ines,
    .maps = cprom_maps, .write = latch_write, .state = latch_state, .conflicts = NES_CONFLICT_ALWAYS,
};

const nes_board nes_board_nina001 = {
    .mapper = 34, .name = "NINA-001", .size = sizeof(latch), .match = match_nina001, .maps = nina001_maps,
    .write_low = nina001_write_low, .state = latch_state,
};

const nes_board nes_board_bnrom = {
    .mapper = 34, .name = "BNROM", .size = sizeof(latch), .match = match_bnrom, .maps = bnrom_maps, .write = latch_write,
    .state = latch_state, .conflicts = NES_CONFLICT_ALWAYS,
};

const nes_board nes_board_gxrom = {
    .mapper = 66, .name = "GxROM", .size = sizeof(latch), .maps = gxrom_maps, .write = latch_write,
    .state = latch_state, .conflicts = NES_CONFLICT_ALWAYS,
};

const nes_board nes_board_camerica = {
    .mapper = 71, .name = "Camerica BF909x", .size = sizeof(latch), .power = camerica_power,
    .maps = camerica_maps, .write = camerica_write, .state = latch_state,
};

const nes_board nes_board_cnrom185 = {
    .mapper = 185, .name = "CNROM with CHR disable", .size = sizeof(latch), .match = match_cnrom185,
    .check = cnrom185_check, .maps = cnrom185_maps, .write = latch_write, .state = latch_state,
    .conflicts = NES_CONFLICT_ALWAYS, .chr_off = 1,
};
