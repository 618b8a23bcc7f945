/* nes_board_mmc5.c: Nintendo's MMC5 (ExROM, mapper 5), from the NESdev wiki's "MMC5" and
 * "MMC5 audio" pages.
 * PRG ($5100 mode 0-3; $5113 the $6000 page, $5114-$5117 the banks: bit 7 clear selects
 * PRG-RAM in $8000-$DFFF, $5117 is always ROM), PRG-RAM writes allowed only while $5102 = 2
 * and $5103 = 1, CHR ($5101 mode 0-3: 8/4/2/1 KiB; set A $5120-$5127, set B $5128-$512B,
 * $5130 the upper two bits of the next bank write), nametables ($5105: two bits per
 * quadrant, CIRAM A / B, ExRAM, fill mode with tile $5106 and attribute $5107), ExRAM
 * ($5C00-$5FFF; $5104 mode 0/1 nametable (CPU writes while not rendering store 0), 2
 * RAM, 3 read-only RAM; in modes 2-3 a nametable mapped to ExRAM reads 0), the vertical
 * split ($5200 side and threshold, $5201 its scroll, $5202 its 4 KiB CHR bank; off in ExRAM
 * modes 2-3), the scanline IRQ ($5203 target, $5204 enable / status with the in-frame
 * flag), the multiplier ($5205 x $5206) and the sound ($5000-$5015, below). ExRAM is
 * nametable RAM page 2 and the fill page page 3 (nes_maps.nt), so the frame log carries
 * them as nametable writes.
 * The scanline counter: the wiki's MMC5 sees a new line in the PPU's three identical
 * nametable fetches at dots 337, 339 and 1 of the next line, so the board looks at each
 * line of the picture at dot 2 (a CPU-cycle event): with rendering on, the first line sets
 * in-frame and clears the counter (and the pending flag where the target is 0 or 240-255,
 * as the wiki's measurements say), each later line counts and raises the IRQ where the
 * counter equals the target (target N: line N); line 240 or rendering off clears
 * in-frame. A $2001 write (fully decoded) with bits 3-4 clear clears in-frame at once; one
 * that sets them again after that, and the CPU's fetch of the NMI vector ($FFFA), also
 * acknowledge the IRQ and clear the counter.
 * The two CHR sets, ExRAM mode 1's extended attributes (each background tile's ExRAM byte:
 * 4 KiB bank and palette), ExRAM reading 0 in modes 2-3 and the split are fetch rules of
 * the PPU's (nes_pregs.ex and .split, nes_video.h), logged like bank changes, so every
 * renderer draws them alike.
 * The sound (nes_mmc5.h for what is heard): two pulses, $5000-$5003 and $5004-$5007 as the
 * APU's $4000-$4003 without the sweep ($5001/$5005 do nothing), their envelopes and length
 * counters both clocked by the board's own 240 Hz divider (every 7457 CPU cycles, the
 * APU's quarter-frame rate; the wiki gives 240 Hz); $5015 enables them (a disabled one's
 * length counter is cleared) and reads their length counters' state; the PCM DAC: $5010
 * bit 0 selects read mode, where every CPU read of $8000-$BFFF goes to the DAC, else $5011
 * writes do (ignored in read mode); a value of 0 leaves the DAC and sets the IRQ flag,
 * any other clears it; $5010 bit 7 enables that IRQ; reading $5010 gives the flag (bit 7,
 * while enabled) and the mode (bit 0) and clears the flag. Not modelled: the DMC's sample
 * fetches feeding the PCM in read mode, the chip's reset detection. */
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
    uint8_t split[3];   /* $5200-$5202 */
    uint8_t mask_on;    /* rendering on in the last $2001 write the MMC5 saw */
    /* sound */
    uint8_t snd[8];     /* $5000-$5003, $5004-$5007 */
    uint8_t snd_on;     /* $5015 bits 0-1 */
    uint8_t len[2], env_start[2], env_div[2], env_decay[2];
    uint8_t pcm, pcm_mode, pcm_irq_on, pcm_trip; /* the DAC; $5010 bits 0 and 7; the IRQ flag */
    uint64_t snd_at;    /* CPU cycle of the next 240 Hz clock */
} mmc5;

#define SND_PERIOD 7457 /* CPU cycles per clock of the envelopes and length counters */

static const uint8_t length_table[32] = {
    10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14,
    12, 16, 24, 18, 48, 20, 96, 22, 192, 24, 72, 26, 16, 28, 32, 30,
};

static const char *mmc5_check(const nes_cart *c)
{
    return c->prg_size > 1048576 || c->chr_size > 1048576 ? "MMC5 boards have at most 1 MiB PRG and 1 MiB CHR" : NULL;
}

/* The cartridge's IRQ: the scanline IRQ or the PCM's. */
static void irq_line(nes *m)
{
    const mmc5 *p = NES_BS(m, mmc5);
    if ((p->irq_pending && p->irq_on) || (p->pcm_trip && p->pcm_irq_on))
        nes_irq_set(m, NES_IRQ_MAPPER, m->cyc);
    else
        nes_irq_clear(m, NES_IRQ_MAPPER);
}

/* ---- sound ------------------------------------------------------------------------------ */

/* The audible state's register parts (periods, duties, volumes, the DAC) from the registers. */
static void snd_derive(const mmc5 *p, nes_mmc5_osc *o)
{
    for (int c = 0; c < 2; c++) {
        const uint8_t *r = p->snd + 4 * c;
        o->per[c] = 2u * ((uint32_t)r[2] + ((uint32_t)(r[3] & 7) << 8) + 1u);
        o->duty[c] = r[0] >> 6;
        o->vol[c] = (uint8_t)(p->len[c] ? ((r[0] & 0x10) ? (r[0] & 15) : p->env_decay[c]) : 0);
    }
    o->pcm = p->pcm;
}

/* After the registers changed: the sound up to now with the old state, then the new one
 * (only where what is heard changed, unless force). */
static void snd_update(nes *m, int force)
{
    nes_mmc5_osc *o = &m->apu.xosc.u.mmc5, want = *o;
    snd_derive(NES_BS(m, mmc5), &want);
    if (!force && want.per[0] == o->per[0] && want.per[1] == o->per[1] && want.duty[0] == o->duty[0] &&
        want.duty[1] == o->duty[1] && want.vol[0] == o->vol[0] && want.vol[1] == o->vol[1] && want.pcm == o->pcm)
        return;
    nes_xaudio_begin(m);
    snd_derive(NES_BS(m, mmc5), o);
    nes_xaudio_end(m);
}

/* One 240 Hz clock: the envelopes, then the length counters (as the APU's quarter and half
 * frame clocks do theirs). */
static void snd_clock(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    for (int c = 0; c < 2; c++) {
        uint8_t r0 = p->snd[4 * c];
        if (p->env_start[c]) {
            p->env_start[c] = 0;
            p->env_decay[c] = 15;
            p->env_div[c] = r0 & 15;
        } else if (p->env_div[c] == 0) {
            p->env_div[c] = r0 & 15;
            if (p->env_decay[c])
                p->env_decay[c]--;
            else if (r0 & 0x20)
                p->env_decay[c] = 15;
        } else {
            p->env_div[c]--;
        }
        if (p->len[c] && !(r0 & 0x20))
            p->len[c]--;
    }
    snd_update(m, 0);
}

/* A value for the PCM DAC ($5011 in write mode, a read of $8000-$BFFF in read mode): 0 sets
 * the IRQ flag and leaves the DAC, any other clears the flag and is output. */
static void pcm_put(nes *m, uint8_t v)
{
    mmc5 *p = NES_BS(m, mmc5);
    uint8_t trip = v == 0;
    if (trip != p->pcm_trip) {
        p->pcm_trip = trip;
        irq_line(m);
    }
    if (v && v != p->pcm) {
        p->pcm = v;
        snd_update(m, 0);
    }
}

static void snd_write(nes *m, uint16_t a, uint8_t v)
{
    mmc5 *p = NES_BS(m, mmc5);
    if (a == 0x5010) {
        p->pcm_mode = v & 1;
        p->pcm_irq_on = v >> 7;
        m->prg_direct = p->pcm_mode ? 0xC000 : 0x8000; /* read mode: the board sees $8000-$BFFF */
        irq_line(m);
        return;
    }
    if (a == 0x5011) {
        if (!p->pcm_mode)
            pcm_put(m, v);
        return;
    }
    if (a == 0x5015) {
        p->snd_on = v & 3;
        for (int c = 0; c < 2; c++)
            if (!((v >> c) & 1))
                p->len[c] = 0;
        snd_update(m, 0);
        return;
    }
    if (a > 0x5007)
        return;
    int c = (a >> 2) & 1, r = a & 3;
    nes_xaudio_begin(m);
    p->snd[4 * c + r] = v;
    if (r == 3) { /* the length counter loads, the envelope and the sequencer restart */
        if ((p->snd_on >> c) & 1)
            p->len[c] = length_table[v >> 3];
        p->env_start[c] = 1;
        m->apu.xosc.u.mmc5.pos[c] = 0;
    }
    snd_derive(p, &m->apu.xosc.u.mmc5);
    nes_xaudio_end(m);
}

/* ---- the scanline counter ------------------------------------------------------------------ */

/* The board's next event: dot 2 of line ev_line, or the 240 Hz clock if sooner. */
static void schedule(nes *m)
{
    const mmc5 *p = NES_BS(m, mmc5);
    uint64_t t = nes_ppu_cycle_of(m, p->ev_line, 2);
    nes_board_schedule(m, p->snd_at < t ? p->snd_at : t);
}

static void mmc5_event(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    while (m->cyc >= p->snd_at) {
        snd_clock(m);
        p->snd_at += SND_PERIOD;
    }
    nes_ppu_sync(m);
    int line = m->ppu.line;
    if (line != p->ev_line || m->ppu.dot < 2) { /* not this line's time (the sound's, or early after a state load) */
        schedule(m);
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
    p->ev_line = (uint8_t)(line < NES_H ? line + 1 : 0); /* line 240 ends in-frame; after it, line 0 */
    schedule(m);
}

/* In-frame ends, the IRQ is acknowledged and the counter cleared (the NMI vector fetch; a
 * $2001 write that switches rendering on again after the MMC5 saw it off). */
static void frame_end(nes *m)
{
    mmc5 *p = NES_BS(m, mmc5);
    p->in_frame = 0;
    p->irq_pending = 0;
    p->counter = 0;
    irq_line(m);
}

static void mmc5_ppu_mask(nes *m, uint8_t v)
{
    mmc5 *p = NES_BS(m, mmc5);
    uint8_t on = (v & 0x18) != 0;
    if (!on)
        p->in_frame = 0;
    else if (!p->mask_on)
        frame_end(m);
    p->mask_on = on;
}

static void mmc5_nmi_vector(nes *m)
{
    frame_end(m);
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
    p->snd_at = m->cyc + SND_PERIOD;
    schedule(m);
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
    /* the count of 4 KiB banks (extended attributes, the split) */
    const nes_cart *c = m->cart;
    uint32_t size = c->chr_size ? c->chr_size : c->chr_ram_size;
    o->ex = NES_EX_SETS | (p->last_b ? NES_EX_LAST_B : 0) | (c->chr_size ? 0 : NES_EX_CHR_RAM) |
            (size / 4096 ? size / 4096 : 1);
    if (p->ex_mode == 1)
        o->ex |= NES_EX_ATTR | (uint32_t)(p->chr_upper & 3) << 16;
    if (p->ex_mode >= 2)
        o->ex |= NES_EX_NT0;
    if ((p->split[0] & NES_SPLIT_ON) && p->ex_mode < 2)
        o->split = (uint32_t)p->split[0] | (uint32_t)p->split[1] << 8 | (uint32_t)p->split[2] << 16;
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
    if (a >= 0x5000 && a <= 0x5015) {
        snd_write(m, a, v);
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
    case 0x5200: case 0x5201: case 0x5202:
        p->split[a - 0x5200] = v;
        break;
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
    if (a >= 0x8000) { /* PCM read mode: the byte read goes to the DAC too */
        uint8_t v = m->prg_rd[(a >> 13) & 3][a & 0x1FFF];
        if (!peek && a < 0xC000 && p->pcm_mode)
            pcm_put(m, v);
        return v;
    }
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
    case 0x5010: {
        uint8_t v = (uint8_t)((p->pcm_trip && p->pcm_irq_on) << 7 | p->pcm_mode);
        if (!peek && p->pcm_trip) {
            p->pcm_trip = 0;
            irq_line(m);
        }
        return v;
    }
    case 0x5015: return (uint8_t)((p->len[0] ? 1 : 0) | (p->len[1] ? 2 : 0));
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
    NES_ST_ARR(s, p->split);
    NES_ST(s, p->mask_on);
    NES_ST_ARR(s, p->snd);
    NES_ST(s, p->snd_on);
    NES_ST_ARR(s, p->len);
    NES_ST_ARR(s, p->env_start);
    NES_ST_ARR(s, p->env_div);
    NES_ST_ARR(s, p->env_decay);
    NES_ST(s, p->pcm);
    NES_ST(s, p->pcm_mode);
    NES_ST(s, p->pcm_irq_on);
    NES_ST(s, p->pcm_trip);
    NES_ST(s, p->snd_at);
    /* the sound's running state; periods, duties and volumes follow from the registers */
    nes_mmc5_osc *o = &m->apu.xosc.u.mmc5;
    NES_ST_ARR(s, o->next);
    NES_ST_ARR(s, o->pos);
    snd_derive(p, o);
    m->prg_direct = p->pcm_mode ? 0xC000 : 0x8000;
    nes_board_schedule(m, m->cyc + 1); /* the event finds what is due (the PPU loads later) */
}

static const char *mmc5_state_check(const nes *m)
{
    const mmc5 *p = NES_BS(m, mmc5);
    const nes_mmc5_osc *o = &m->apu.xosc.u.mmc5;
    if (p->ev_line > NES_H)
        return "MMC5 scanline event out of range";
    if (p->snd_at < m->cyc || p->snd_at > m->cyc + SND_PERIOD || p->snd_on > 3 || p->pcm_mode > 1 ||
        p->pcm_irq_on > 1 || p->pcm_trip > 1 || p->mask_on > 1)
        return "MMC5 sound registers out of range";
    uint32_t t = (uint32_t)(m->apu.audio_t - m->apu.frame_c0);
    for (int c = 0; c < 2; c++)
        if (p->env_decay[c] > 15 || p->env_div[c] > 15 || p->env_start[c] > 1 || o->pos[c] > 7 || o->next[c] <= t ||
            o->next[c] - t > o->per[c])
            return "MMC5 sound state out of range";
    return NULL;
}

const nes_board nes_board_mmc5 = {
    .mapper = 5, .name = "MMC5", .size = sizeof(mmc5), .check = mmc5_check, .power = mmc5_power,
    .maps = mmc5_maps, .write = mmc5_write, .write_low = mmc5_write_low, .read_low = mmc5_read_low,
    .cpu_event = mmc5_event, .ppu_mask = mmc5_ppu_mask, .nmi_vector = mmc5_nmi_vector, .state = mmc5_state,
    .state_check = mmc5_state_check, .xaudio = NES_XA_MMC5,
};
