/* nes_mapper.c: the cartridge boards: NROM (0), UxROM (2), CNROM (3), AxROM (7) here, MMC1 (1)
 * in nes_mmc1.c and MMC3 (4) in nes_mmc3.c. A board's registers decide three maps: the CPU's PRG
 * windows ($8000-$FFFF in 8 KiB), the PPU's pattern windows ($0000-$1FFF in 1 KiB) and the
 * nametable slots ($2000-$2FFF in 1 KiB). nes_mapper_update recomputes them from the
 * registers and tells the PPU which drawing windows changed (for the frame log). */
#include "emu/nes/nes_int.h"

#include <string.h>

/* nes_mmc1.c / nes_mmc3.c */
void nes_mmc1_write(nes *m, uint16_t a, uint8_t v);
void nes_mmc1_maps(nes *m, int *prg8, int *chr1k, int *mirror);
void nes_mmc3_write(nes *m, uint16_t a, uint8_t v);
void nes_mmc3_maps(nes *m, int *prg8, int *chr1k, int *mirror);
void nes_mmc3_a12_edge(nes *m, uint64_t t);

/* Nametable slot offsets for each mirroring (slots $2000, $2400, $2800, $2C00). */
static void nt_offsets(int mirror, uint16_t *nt)
{
    static const uint16_t tab[5][4] = {
        {0, 0, 0x400, 0x400},     /* horizontal: $2000 = $2400, $2800 = $2C00 */
        {0, 0x400, 0, 0x400},     /* vertical: $2000 = $2800, $2400 = $2C00 */
        {0, 0x400, 0x800, 0xC00}, /* four-screen (4 KiB on the board) */
        {0, 0, 0, 0},             /* one-screen, lower page */
        {0x400, 0x400, 0x400, 0x400}, /* one-screen, upper page */
    };
    memcpy(nt, tab[mirror], sizeof tab[0]);
}

void nes_mapper_power(nes *m)
{
    memset(&m->map, 0, sizeof m->map);
    m->map.m1_ctrl = 0x0C; /* MMC1 powers up with the last bank fixed at $C000 */
    m->map.m1_last = NES_NEVER - 1;
    m->map.m3_ram = 0x80; /* PRG-RAM enabled and writable, as most boards behave */
    nes_mapper_update(m);
}

void nes_mapper_write(nes *m, uint16_t a, uint8_t v)
{
    if (a < 0x8000) {
        if (a >= 0x6000 && m->prg_ram_on && !m->prg_ram_ro && m->cart->prg_ram_size)
            m->prg_ram[(a - 0x6000) % m->cart->prg_ram_size] = v;
        return;
    }
    /* Bank changes must land at the right PPU dot: bring the PPU up to now first. */
    nes_ppu_sync(m);
    switch (m->cart->mapper) {
    case 1:
        nes_mmc1_write(m, a, v);
        return; /* nes_mmc1.c calls nes_mapper_update when a register completes */
    case 4:
        nes_mmc3_write(m, a, v);
        break;
    case 2:
    case 3:
    case 7:
        m->map.bank = v;
        break;
    default:
        return; /* NROM has no registers */
    }
    nes_mapper_update(m);
}

void nes_mapper_a12_edge(nes *m, uint64_t t)
{
    if (m->cart->mapper == 4)
        nes_mmc3_a12_edge(m, t);
}

void nes_mapper_update(nes *m)
{
    const nes_cart *c = m->cart;
    int prg8[4], chr1k[8], mirror = c->mirroring;
    int last8 = (int)(c->prg_size / 8192) - 1;
    m->prg_ram_on = 1;
    m->prg_ram_ro = 0;
    switch (c->mapper) {
    case 1:
        nes_mmc1_maps(m, prg8, chr1k, &mirror);
        break;
    case 4:
        nes_mmc3_maps(m, prg8, chr1k, &mirror);
        break;
    case 2: /* 16 KiB switchable at $8000, last 16 KiB fixed at $C000 */
        prg8[0] = m->map.bank * 2;
        prg8[1] = m->map.bank * 2 + 1;
        prg8[2] = last8 - 1;
        prg8[3] = last8;
        for (int i = 0; i < 8; i++)
            chr1k[i] = i;
        break;
    case 3: /* 8 KiB CHR bank */
        for (int i = 0; i < 4; i++)
            prg8[i] = i;
        for (int i = 0; i < 8; i++)
            chr1k[i] = m->map.bank * 8 + i;
        break;
    case 7: /* 32 KiB PRG bank, one-screen mirroring page from bit 4 */
        for (int i = 0; i < 4; i++)
            prg8[i] = (m->map.bank & 7) * 4 + i;
        for (int i = 0; i < 8; i++)
            chr1k[i] = i;
        mirror = (m->map.bank & 0x10) ? NES_MIRROR_1B : NES_MIRROR_1A;
        break;
    default: /* NROM: 16 KiB images appear twice */
        for (int i = 0; i < 4; i++)
            prg8[i] = i;
        for (int i = 0; i < 8; i++)
            chr1k[i] = i;
        break;
    }
    if (c->mirroring == NES_MIRROR_4)
        mirror = NES_MIRROR_4; /* four-screen boards ignore the mirroring register */
    int nprg = (int)(c->prg_size / 8192);
    for (int i = 0; i < 4; i++)
        m->prg_rd[i] = c->prg + (size_t)(((prg8[i] % nprg) + nprg) % nprg) * 8192;
    uint32_t old_chr[8];
    uint16_t old_nt[4];
    nes_pregs *r = &m->ppu.pl.r;
    memcpy(old_chr, r->chr_map, sizeof old_chr);
    memcpy(old_nt, r->nt_map, sizeof old_nt);
    uint32_t chr_total = c->chr ? c->chr_size : c->chr_ram_size;
    int n1k = (int)(chr_total / 1024);
    for (int i = 0; i < 8; i++) {
        uint32_t off = (uint32_t)(((chr1k[i] % n1k) + n1k) % n1k) * 1024;
        r->chr_map[i] = c->chr ? off : (NES_CHR_RAM | off);
    }
    nt_offsets(mirror, r->nt_map);
    nes_ppu_maps_changed(m, old_chr, old_nt);
}
