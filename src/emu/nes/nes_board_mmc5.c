/* nes_board_mmc5.c: Nintendo's MMC5 (ExROM, mapper 5), from the NESdev wiki's "MMC5" page.
 * PRG ($5100 mode 0-3; $5113 the $6000 page, $5114-$5117 the banks: bit 7 clear selects
 * PRG-RAM in $8000-$DFFF, $5117 is always ROM), PRG-RAM writes allowed only while $5102 = 2
 * and $5103 = 1, CHR ($5101 mode 0-3: 8/4/2/1 KiB; set A $5120-$5127, set B $5128-$512B,
 * $5130 the upper two bits of the next bank write), nametables ($5105: two bits per
 * quadrant, CIRAM A / B, ExRAM, fill mode with tile $5106 and attribute $5107), ExRAM
 * ($5C00-$5FFF; $5104 mode 0/1 nametable (CPU writes while not rendering store 0), 2
 * RAM, 3 read-only RAM), the scanline IRQ ($5203 target, $5204 enable / status with the
 * in-frame flag) and the multiplier ($5205 x $5206). ExRAM is nametable RAM page 2 and the
 * fill page page 3 (nes_maps.nt), so the frame log carries them as nametable writes.
 * The scanline counter: the wiki's MMC5 sees a new line in the PPU's three identical
 * nametable fetches at dots 337, 339 and 1 of the next line, so the board looks at each
 * line of the picture at dot 2 (a CPU-cycle event): with rendering on, the first line sets
 * in-frame and clears the counter (and the pending flag where the target is 0 or 240-255,
 * as the wiki's measurements say), each later line counts and raises the IRQ where the
 * counter equals the target (target N: line N); line 240 or rendering off clears
 * in-frame (the hardware clears it at once on a $2001 write that turns rendering off;
 * here at the next line's check).
 * The two CHR sets and ExRAM mode 1's extended attributes (each background tile's ExRAM
 * byte: 4 KiB bank and palette) are fetch rules of the PPU's (nes_pregs.ex, nes_video.h),
 * logged like bank changes, so every renderer draws them alike.
 * Not done (docs/NES.md): the vertical split ($5200-$5202), the MMC5's sound, ExRAM as a
 * nametable reading 0 in modes 2-3, in-frame ending on reads of $FFFA/$FFFB. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t prg_mode, chr_mode, protect[2], ex_mode, nt, fill_tile, fill_attr;
    uint8_t prg[5];     /* $5113-$5117 */
    uint16_t chr_a[8];  /* $5120-$5127 with the upper bits */
    uint16_t chr_b[4];  /* $5128-$512B */
    uint8_t chr_upper;  /* $5130 */
    uint8_t last_b;     /* the last CHR write went to set B */
    uint8_t irq_target, irq_on, irq_pending, in_frame, counter;
    uint8_t mul[2];
    uint8_t ev_line;    /* the line whose dot 2 the board's event waits for */
} mmc5;

static const char *mmc5_check(const nes_cart *c)
{
    return c->prg_size > 1048576 || c->chr_size > 1048576 ? "MMC5 boards have at most 1 MiB PRG and 1 MiB CHR" : NULL;
}

static void irq_line(nes *m)
{
    const mmc5 *p = NES_BS(m, mmc5);
    if (p->irq_pending && p->irq_on)
        nes_irq_set(m, NES_IRQ_MAPPER, m->cyc);
    else
        nes_irq_clear(m, NES_IRQ_MAPPER);
}

/* The next event: dot 2 of the line after this one (line 240 ends in-frame; after it, line 0). */
static void schedule(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    int line = m->ppu.line;
    p->ev_line = (uint8_t)(line < NES_H ? line + 1 : 0);
    nes_board_schedule(m, nes_ppu_cycle_of(m, p->ev_line, 2));
}

static void mmc5_event(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    nes_ppu_sync(m);
    int line = m->ppu.line;
    if (line != p->ev_line || m->ppu.dot < 2) { /* early (after a state load): wait on */
        nes_board_schedule(m, nes_ppu_cycle_of(m, p->ev_line, 2));
        return;
    }
    if (line < NES_H && nes_rendering(&m->ppu.pl.r)) {
        if (!p->in_frame) {
            p->in_frame = 1;
            p->counter = 0;
            if (!p->irq_target || p->irq_target >= NES_H) /* a target that never fires clears the flag */
                p->irq_pending = 0;
        } else {
            p->counter++;
            if (p->counter == p->irq_target && p->irq_target)
                p->irq_pending = 1;
        }
    } else {
        p->in_frame = 0;
    }
    irq_line(m);
    schedule(m);
}

static void fill_page(nes *m)
{
    const mmc5 *p = NES_BS(m, mmc5);
    for (uint32_t i = 0; i < 960; i++)
        nes_ppu_nt_poke(m, 0xC00 + i, p->fill_tile);
    for (uint32_t i = 960; i < 1024; i++)
        nes_ppu_nt_poke(m, 0xC00 + i, (uint8_t)((p->fill_attr & 3) * 0x55));
}

static void mmc5_power(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    p->prg_mode = 3;
    p->chr_mode = 3;
    p->prg[4] = 0xFF;
    for (int i = 0; i < 8; i++)
        p->chr_a[i] = (uint16_t)i;
    for (int i = 0; i < 4; i++)
        p->chr_b[i] = (uint16_t)i;
    fill_page(m);
    p->ev_line = 0;
    nes_board_schedule(m, nes_ppu_cycle_of(m, 0, 2));
}

static int prg_ram_ok(const mmc5 *p)
{
    return p->protect[0] == 2 && p->protect[1] == 1;
}

/* The PRG entry of register r ($5114 + r) for an 8 KiB slot, bank number b (in 8 KiB). */
static int prg_entry(const mmc5 *p, int r, int b)
{
    if (r < 3 && !(p->prg[1 + r] & 0x80))
        return NES_MAP_RAM | (b & 7);
    return b & 0x7F;
}

static void mmc5_maps(nes *m, nes_maps *o)
{
    const mmc5 *p = NES_BS(m, mmc5);
    switch (p->prg_mode) {
    case 0:
        for (int i = 0; i < 4; i++)
            o->prg[i] = ((p->prg[4] & 0x7C) | i) & 0x7F;
        break;
    case 1:
        o->prg[0] = prg_entry(p, 1, (p->prg[2] & 0x7E));
        o->prg[1] = prg_entry(p, 1, (p->prg[2] & 0x7E) | 1);
        o->prg[2] = (p->prg[4] & 0x7E);
        o->prg[3] = (p->prg[4] & 0x7E) | 1;
        break;
    case 2:
        o->prg[0] = prg_entry(p, 1, (p->prg[2] & 0x7E));
        o->prg[1] = prg_entry(p, 1, (p->prg[2] & 0x7E) | 1);
        o->prg[2] = prg_entry(p, 2, p->prg[3]);
        o->prg[3] = p->prg[4] & 0x7F;
        break;
    default:
        for (int i = 0; i < 3; i++)
            o->prg[i] = prg_entry(p, i, p->prg[1 + i]);
        o->prg[3] = p->prg[4] & 0x7F;
        break;
    }
    o->wram = m->cart->prg_ram_size ? (p->prg[0] & 7) | (prg_ram_ok(p) ? 0 : NES_MAP_RO) : NES_MAP_OFF;

    /* set A: the sprites' windows (o->spr), set B the background's (o->chr); the PPU picks
     * by its sprite size and the set written last (NES_EX_SETS, nes_video.h) */
    for (int i = 0; i < 8; i++) {
        switch (p->chr_mode) {
        case 0:
            o->spr[i] = p->chr_a[7] * 8 + i;
            o->chr[i] = p->chr_b[3] * 8 + i;
            break;
        case 1:
            o->spr[i] = p->chr_a[i < 4 ? 3 : 7] * 4 + (i & 3);
            o->chr[i] = p->chr_b[3] * 4 + (i & 3);
            break;
        case 2:
            o->spr[i] = p->chr_a[(i & 6) | 1] * 2 + (i & 1);
            o->chr[i] = p->chr_b[(i & 2) | 1] * 2 + (i & 1);
            break;
        default:
            o->spr[i] = p->chr_a[i];
            o->chr[i] = p->chr_b[i & 3];
            break;
        }
    }
    o->ex = NES_EX_SETS | (p->last_b ? NES_EX_LAST_B : 0);
    if (p->ex_mode == 1) {
        const nes_cart *c = m->cart;
        uint32_t size = c->chr_size ? c->chr_size : c->chr_ram_size;
        o->ex |= NES_EX_ATTR | (c->chr_size ? 0 : NES_EX_CHR_RAM) | (uint32_t)(p->chr_upper & 3) << 16 |
                 (size / 4096 ? size / 4096 : 1);
    }
    for (int i = 0; i < 4; i++)
        o->nt[i] = (p->nt >> (2 * i)) & 3; /* CIRAM A, B, ExRAM (page 2), fill (page 3) */
}

static void mmc5_write_low(nes *m, uint16_t a, uint8_t v)
{
    mmc5 *p = NES_BS(m, mmc5);
    if (a >= 0x6000) {
        if (prg_ram_ok(p))
            nes_wram_write(m, a, v);
        return;
    }
    if (a >= 0x5C00) { /* ExRAM */
        if (p->ex_mode == 3)
            return;
        if (p->ex_mode < 2 && !p->in_frame)
            v = 0;
        nes_ppu_nt_poke(m, 0x800u + (a & 0x3FF), v);
        return;
    }
    switch (a) {
    case 0x5100: p->prg_mode = v & 3; break;
    case 0x5101: p->chr_mode = v & 3; break;
    case 0x5102: p->protect[0] = v & 3; break;
    case 0x5103: p->protect[1] = v & 3; break;
    case 0x5104: p->ex_mode = v & 3; break;
    case 0x5105: p->nt = v; break;
    case 0x5106:
    case 0x5107:
        if (a == 0x5106)
            p->fill_tile = v;
        else
            p->fill_attr = v & 3;
        fill_page(m);
        return;
    case 0x5113: case 0x5114: case 0x5115: case 0x5116: case 0x5117:
        p->prg[a - 0x5113] = v;
        break;
    case 0x5130: p->chr_upper = v & 3; break;
    case 0x5203: p->irq_target = v; return;
    case 0x5204:
        p->irq_on = v >> 7;
        irq_line(m);
        return;
    case 0x5205: p->mul[0] = v; return;
    case 0x5206: p->mul[1] = v; return;
    default:
        if (a >= 0x5120 && a <= 0x5127) {
            p->chr_a[a - 0x5120] = (uint16_t)(v | p->chr_upper << 8);
            p->last_b = 0;
        } else if (a >= 0x5128 && a <= 0x512B) {
            p->chr_b[a - 0x5128] = (uint16_t)(v | p->chr_upper << 8);
            p->last_b = 1;
        } else {
            return;
        }
        break;
    }
    nes_board_update(m);
}

static uint8_t mmc5_read_low(nes *m, uint16_t a, int peek)
{
    mmc5 *p = NES_BS(m, mmc5);
    if (a >= 0x6000)
        return nes_wram_read(m, a);
    if (a >= 0x5C00)
        return p->ex_mode >= 2 ? m->ppu.nt[0x800 + (a & 0x3FF)] : m->bus;
    switch (a) {
    case 0x5204: {
        uint8_t v = (uint8_t)(p->irq_pending << 7 | p->in_frame << 6);
        if (!peek) {
            p->irq_pending = 0;
            irq_line(m);
        }
        return v;
    }
    case 0x5205: return (uint8_t)(p->mul[0] * p->mul[1]);
    case 0x5206: return (uint8_t)((p->mul[0] * p->mul[1]) >> 8);
    default: return m->bus;
    }
}

/* $8000-$DFFF where PRG-RAM is mapped: the RAM takes the write (protect permitting). */
static void mmc5_write(nes *m, uint16_t a, uint8_t v)
{
    const mmc5 *p = NES_BS(m, mmc5);
    int slot = (a >> 13) & 3;
    const uint8_t *w = m->prg_rd[slot];
    if (!prg_ram_ok(p) || !m->prg_ram || w < m->prg_ram || w >= m->prg_ram + m->cart->prg_ram_size)
        return;
    m->prg_ram[(size_t)(w - m->prg_ram) + (a & 0x1FFF)] = v;
}

static void mmc5_state(nes_st *s, nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    NES_ST(s, p->prg_mode);
    NES_ST(s, p->chr_mode);
    NES_ST_ARR(s, p->protect);
    NES_ST(s, p->ex_mode);
    NES_ST(s, p->nt);
    NES_ST(s, p->fill_tile);
    NES_ST(s, p->fill_attr);
    NES_ST_ARR(s, p->prg);
    NES_ST_ARR(s, p->chr_a);
    NES_ST_ARR(s, p->chr_b);
    NES_ST(s, p->chr_upper);
    NES_ST(s, p->last_b);
    NES_ST(s, p->irq_target);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->irq_pending);
    NES_ST(s, p->in_frame);
    NES_ST(s, p->counter);
    NES_ST_ARR(s, p->mul);
    NES_ST(s, p->ev_line);
}

static const char *mmc5_state_check(const nes *m)
{
    return NES_BS(m, mmc5)->ev_line > NES_H ? "MMC5 scanline event out of range" : NULL;
}

const nes_board nes_board_mmc5 = {
    .mapper = 5, .name = "MMC5", .size = sizeof(mmc5), .check = mmc5_check, .power = mmc5_power,
    .maps = mmc5_maps, .write = mmc5_write, .write_low = mmc5_write_low, .read_low = mmc5_read_low,
    .cpu_event = mmc5_event, .state = mmc5_state, .state_check = mmc5_state_check,
};
