/* nes_board.c: the list of boards and what every board shares: finding a cartridge's
 * board, power and reset, the CPU's writes and reads at $4020-$FFFF (PRG-RAM, the board's
 * registers, bus conflicts), and nes_board_update, which turns the board's nes_maps into
 * the machine's PRG windows, the PPU's pattern and nametable maps and the $6000 window, and
 * logs what the PPU sees change. A new board is a unit with its nes_board table and a line
 * in nes_boards below (docs/NES.md, "Adding a board"). */
#include "emu/nes/nes_int.h"

#include <string.h>

/* The boards' tables (their units). */
extern const nes_board nes_board_nrom, nes_board_nrom368, nes_board_uxrom, nes_board_cnrom, nes_board_axrom,
    nes_board_colordreams, nes_board_cprom, nes_board_bnrom, nes_board_nina001, nes_board_gxrom, nes_board_camerica;
extern const nes_board nes_board_sxrom, nes_board_snrom, nes_board_sorom, nes_board_surom, nes_board_sxrom_32k,
    nes_board_serom;
extern const nes_board nes_board_mmc3, nes_board_mmc6, nes_board_txsrom, nes_board_tqrom, nes_board_namco108;
extern const nes_board nes_board_mmc2, nes_board_mmc4;
extern const nes_board nes_board_vrc4_21, nes_board_vrc2_22, nes_board_vrc24_23, nes_board_vrc24_25;
extern const nes_board nes_board_fme7, nes_board_vrc6a, nes_board_vrc6b, nes_board_mmc5;
extern const nes_board nes_board_vrc7;
extern const nes_board nes_board_bandai74, nes_board_bandai152, nes_board_irem78, nes_board_sunsoft89,
    nes_board_sunsoft93, nes_board_un1rom, nes_board_unrom180, nes_board_tams1, nes_board_quattro, nes_board_jf17,
    nes_board_jf19, nes_board_j87, nes_board_jf11, nes_board_jf13, nes_board_sunsoft1, nes_board_nina03;
extern const nes_board nes_board_g101, nes_board_h3001;
extern const nes_board nes_board_sunsoft3, nes_board_sunsoft4;
extern const nes_board nes_board_vrc1, nes_board_vrc3;
extern const nes_board nes_board_cnrom185;
extern const nes_board nes_board_namco3446, nes_board_namco3443, nes_board_namco3453, nes_board_namco3425;
extern const nes_board nes_board_tc0190, nes_board_tc0690, nes_board_x1005, nes_board_x1005_207, nes_board_x1017;

/* In match order: a board with a match function before the catch-all of its number. */
const nes_board *const nes_boards[] = {
    &nes_board_nrom368, &nes_board_nrom,
    &nes_board_serom, &nes_board_sxrom_32k, &nes_board_surom, &nes_board_sorom, &nes_board_snrom, &nes_board_sxrom,
    &nes_board_uxrom, &nes_board_cnrom, &nes_board_mmc6, &nes_board_mmc3, &nes_board_axrom,
    &nes_board_mmc2, &nes_board_mmc4, &nes_board_colordreams, &nes_board_cprom,
    &nes_board_vrc4_21, &nes_board_vrc2_22, &nes_board_vrc24_23, &nes_board_vrc24_25,
    &nes_board_nina001, &nes_board_bnrom, &nes_board_gxrom, &nes_board_fme7, &nes_board_camerica,
    &nes_board_txsrom, &nes_board_tqrom, &nes_board_namco108,
    &nes_board_bandai74, &nes_board_bandai152, &nes_board_irem78, &nes_board_sunsoft89, &nes_board_sunsoft93,
    &nes_board_un1rom, &nes_board_unrom180, &nes_board_tams1, &nes_board_quattro, &nes_board_jf17, &nes_board_jf19,
    &nes_board_j87, &nes_board_jf11, &nes_board_jf13, &nes_board_sunsoft1, &nes_board_nina03,
    &nes_board_vrc6a, &nes_board_vrc6b, &nes_board_mmc5,
    &nes_board_vrc7,
    &nes_board_g101, &nes_board_h3001,
    &nes_board_tc0190, &nes_board_tc0690, &nes_board_x1005, &nes_board_x1005_207, &nes_board_x1017,
    &nes_board_sunsoft3, &nes_board_sunsoft4,
    &nes_board_vrc1, &nes_board_vrc3,
    &nes_board_namco3446, &nes_board_namco3443, &nes_board_namco3453, &nes_board_namco3425,
    &nes_board_cnrom185,
    NULL,
};

const nes_board *nes_board_find(const nes_cart *c)
{
    for (int i = 0; nes_boards[i]; i++) {
        const nes_board *b = nes_boards[i];
        if (b->mapper == c->mapper && (!b->match || b->match(c)))
            return b;
    }
    return NULL;
}

const char *nes_cart_board(const nes_cart *c)
{
    const nes_board *b = nes_board_find(c);
    return b ? b->name : nes_mapper_name(c->mapper);
}

/* Mapper numbers that are known but not (yet) supported, for the refusal's message. */
static const struct {
    int mapper;
    const char *name;
} unsupported[] = {
    {6, "FFE F4xxx"}, {8, "FFE F3xxx"}, {12, "MMC3 variant (DBZ5)"}, {15, "100-in-1 multicart"},
    {16, "Bandai FCG"}, {18, "Jaleco SS88006"}, {19, "Namco 163"},
    {64, "Tengen RAMBO-1"},
    {105, "NES-EVENT"}, {113, "NINA-03/06 multicart"},
    {153, "Bandai FCG (LZ93D50 + SRAM)"}, {155, "MMC1A"}, {159, "Bandai FCG (24C01)"},
    {210, "Namco 175/340"}, {228, "Action 52"},
};

const char *nes_mapper_name(int mapper)
{
    for (int i = 0; nes_boards[i]; i++)
        if (nes_boards[i]->mapper == mapper)
            return nes_boards[i]->name;
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (unsupported[i].mapper == mapper)
            return unsupported[i].name;
    return NULL;
}

void nes_maps_mirror(nes_maps *o, int mirror)
{
    static const int tab[5][4] = {
        {0, 0, 1, 1}, /* horizontal: $2000 = $2400, $2800 = $2C00 */
        {0, 1, 0, 1}, /* vertical: $2000 = $2800, $2400 = $2C00 */
        {0, 1, 2, 3}, /* four-screen: the board's 2 KiB as pages 2-3 */
        {0, 0, 0, 0}, /* one-screen, lower page */
        {1, 1, 1, 1}, /* one-screen, upper page */
    };
    memcpy(o->nt, tab[mirror], sizeof o->nt);
}

void nes_board_power(nes *m)
{
    const nes_board *b = m->bd;
    const nes_cart *c = m->cart;
    memset(m->bs, 0, b->size ? b->size : 1);
    m->board_ev = NES_NEVER;
    m->a12_irq = 0;
    m->hooks = (uint8_t)((b->a12 ? NES_HOOK_A12 : 0) | (b->ppu_read ? NES_HOOK_FETCH : 0) |
                         (b->ppu_mask ? NES_HOOK_MASK : 0));
    m->prg_direct = 0x8000;
    m->conflicts = b->conflicts == NES_CONFLICT_ALWAYS ||
                   (b->conflicts == NES_CONFLICT_SUB2 && c->nes2 && c->submapper == 2);
    if (b->power)
        b->power(m);
    nes_board_update(m);
}

void nes_board_reset(nes *m)
{
    if (m->bd->reset)
        m->bd->reset(m);
}

void nes_board_schedule(nes *m, uint64_t t)
{
    m->board_ev = t;
    if (t < m->next_ev)
        m->next_ev = t > m->cyc ? t : m->cyc + 1;
}

void nes_board_write(nes *m, uint16_t a, uint8_t v)
{
    const nes_board *b = m->bd;
    if (a < 0x8000) {
        if (b->write_low) {
            nes_ppu_sync(m); /* a register here may switch banks */
            b->write_low(m, a, v);
        } else {
            nes_wram_write(m, a, v);
        }
        return;
    }
    if (!b->write)
        return;
    if (m->conflicts) /* the ROM drives the data bus too: 0 wins */
        v &= m->prg_rd[(a >> 13) & 3][a & 0x1FFF];
    /* bank changes must land at the right PPU dot: bring the PPU up to now first */
    nes_ppu_sync(m);
    b->write(m, a, v);
}

uint8_t nes_board_read_low(nes *m, uint16_t a, int peek)
{
    if (m->bd->read_low)
        return m->bd->read_low(m, a, peek);
    return nes_wram_read(m, a);
}

/* n modulo count, for bank numbers (count > 0). */
static uint32_t wrap(int n, uint32_t count)
{
    return (uint32_t)n % count;
}

/* The pattern-window word (chr_map) of 1 KiB CHR bank `e` (| NES_MAP_RAM, or NES_MAP_OPEN), or
 * the nametable word (nt_map) when nt: CHR-RAM where asked or where the cart has no CHR-ROM. */
static uint32_t chr_word(const nes_cart *c, int e, int nt)
{
    if ((e & NES_MAP_OPEN) && c->chr_pad && !nt)
        return c->chr_size; /* CHR-ROM disabled: the page of $FF after it */
    int ram = (e & NES_MAP_RAM) || !c->chr;
    if (ram && !c->chr_ram_size)
        ram = 0;
    uint32_t pages = (ram ? c->chr_ram_size : c->chr_size) / 1024;
    uint32_t page = wrap(e & 0x07FFFFFF, pages ? pages : 1);
    if (nt)
        return NES_NT_CHR | (ram ? NES_NT_CHR_RAM : 0) | (page & NES_NT_PAGE);
    return (ram ? NES_CHR_RAM : 0) | page * 1024;
}

void nes_board_update(nes *m)
{
    const nes_cart *c = m->cart;
    nes_maps o;
    for (int i = 0; i < 4; i++)
        o.prg[i] = i;
    for (int i = 0; i < 8; i++)
        o.chr[i] = o.spr[i] = i;
    o.ex = 0;
    o.split = 0;
    nes_maps_mirror(&o, c->mirroring);
    o.wram = c->prg_ram_size ? 0 : NES_MAP_OFF;
    if (m->bd->maps)
        m->bd->maps(m, &o);
    if (c->mirroring == NES_MIRROR_4)
        nes_maps_mirror(&o, NES_MIRROR_4); /* four-screen boards ignore the mirroring register */

    uint32_t nprg = c->prg_size / 8192;
    for (int i = 0; i < 4; i++)
        m->prg_rd[i] = (o.prg[i] & NES_MAP_RAM) && c->prg_ram_size >= 8192
                           ? m->prg_ram + (size_t)wrap(o.prg[i] & 0xFFFF, c->prg_ram_size / 8192) * 8192
                           : c->prg + (size_t)wrap(o.prg[i] & 0xFFFF, nprg) * 8192;

    m->wram_rd = NULL;
    m->wram_wr = NULL;
    m->wram_mask = 0x1FFF;
    if (o.wram != NES_MAP_OFF && (o.wram & NES_MAP_ROM)) {
        m->wram_rd = c->prg + (size_t)wrap(o.wram & 0xFFFF, nprg) * 8192;
    } else if (o.wram != NES_MAP_OFF && c->prg_ram_size) {
        uint32_t size = c->prg_ram_size, off = 0;
        if (size >= 8192) {
            off = wrap(o.wram & 0xFFFF, size / 8192) * 8192;
        } else { /* a smaller RAM is mirrored through the window */
            uint32_t p2 = 1;
            while (p2 * 2 <= size)
                p2 *= 2;
            m->wram_mask = (uint16_t)(p2 - 1);
        }
        m->wram_rd = m->prg_ram + off;
        m->wram_wr = (o.wram & NES_MAP_RO) ? NULL : m->prg_ram + off;
    }

    nes_pregs *r = &m->ppu.pl.r;
    nes_pregs old = *r;
    for (int i = 0; i < 8; i++) {
        r->chr_map[i] = chr_word(c, o.chr[i], 0);
        r->spr_map[i] = chr_word(c, o.spr[i], 0);
    }
    r->ex = o.ex;
    r->split = o.split;
    for (int i = 0; i < 4; i++)
        r->nt_map[i] = (o.nt[i] & NES_MAP_CHR) ? (uint16_t)chr_word(c, o.nt[i] & ~NES_MAP_CHR, 1)
                                               : (uint16_t)((o.nt[i] & 3) * 0x400);
    nes_ppu_maps_changed(m, &old);
}
