/* nes_machine.c: the NES as a whole: power and reset, the CPU's memory map ($0000 RAM, $2000
 * PPU, $4000 APU and I/O, $4014 OAM DMA, $6000 PRG-RAM, $8000 PRG-ROM through the mapper),
 * the event scheduler that wakes the PPU and APU when something the CPU can see is due,
 * the interrupt lines, and the frame loop. */
#include "emu/nes/nes_int.h"

#include <stdlib.h>
#include <string.h>

/* The region's timing (the NESdev wiki's "Cycle reference chart", "Clock rate", "Colour
 * emphasis"; Dendy's from its NTSC-like CPU divider and PAL-like PPU). The open bus decays
 * in 600 ms of the PPU's clock: 5369318 Hz (NTSC: 236.25 MHz / 11 / 4), 5320342.5 Hz
 * (26.6017125 MHz / 5). */
static nes_timing timing_of(int region)
{
    nes_timing t = {0};
    t.pre = region == NES_REGION_NTSC ? 261 : 311;
    t.vbl = region == NES_REGION_DENDY ? 291 : 241;
    t.dots16 = t.pal_apu = region == NES_REGION_PAL;
    t.odd_skip = region == NES_REGION_NTSC;
    t.emph_swap = region != NES_REGION_NTSC;
    t.io_decay = region == NES_REGION_NTSC ? 3ull * 1789773 * 6 / 10 : 5320342ull * 6 / 10;
    return t;
}

gv_status nes_new(const nes_cart *cart, const nes_opts *o, nes **out, gv_err *err)
{
    *out = NULL;
    nes *m = calloc(1, sizeof *m);
    if (!m)
        return gv_fail(err, GV_ERR_ENV, "out of memory creating a NES machine");
    m->cart = cart;
    m->opt = *o;
    m->tm = timing_of(o->region);
    m->bd = nes_board_find(cart);
    if (!m->bd) {
        free(m);
        return gv_fail(err, GV_ERR_INPUT, "mapper %d is not supported", cart->mapper);
    }
    m->bs = calloc(1, m->bd->size ? m->bd->size : 1);
    m->prg_ram = calloc(cart->prg_ram_size ? cart->prg_ram_size : 1, 1);
    m->chr_ram = calloc(cart->chr_ram_size ? cart->chr_ram_size : 1, 1);
    m->tab = malloc(sizeof *m->tab);
    m->abuf_cap = 2048;
    m->abuf = malloc(m->abuf_cap * sizeof *m->abuf);
    m->lh = calloc(1, sizeof *m->lh);
    m->lchr = malloc(cart->chr_ram_size ? cart->chr_ram_size : 1);
    m->lev_cap = 1024;
    m->lev = malloc(m->lev_cap * sizeof *m->lev);
    m->lspan_cap = 256;
    m->lspan = malloc(m->lspan_cap * sizeof *m->lspan);
    m->lxspan_cap = 64;
    m->lxspan = malloc(m->lxspan_cap * sizeof *m->lxspan);
    m->lxmem_cap = 4096;
    m->lxmem = malloc(m->lxmem_cap);
    m->lfm_cap = 1024;
    m->lfm = malloc(m->lfm_cap * sizeof *m->lfm);
    if (o->video_native)
        m->fb = calloc((size_t)NES_W * NES_H * 3, 1);
    if (!m->bs || !m->prg_ram || !m->chr_ram || !m->tab || !m->abuf || !m->lh || !m->lchr || !m->lev || !m->lspan || !m->lxspan || !m->lxmem || !m->lfm ||
        (o->video_native && !m->fb)) {
        nes_free(m);
        return gv_fail(err, GV_ERR_ENV, "out of memory creating a NES machine");
    }
    nes_atab_init(m->tab);
    nes_palette_rgb32(m->rgb32);
    nes_power(m);
    *out = m;
    return GV_OK;
}

void nes_free(nes *m)
{
    if (!m)
        return;
    GV_FREE(m->bs, m->prg_ram, m->chr_ram, m->tab, m->abuf, m->lh, m->lchr, m->lev, m->lspan, m->lxspan, m->lxmem, m->lfm, m->fb, m);
}

void nes_power(nes *m)
{
    memset(m->ram, 0, sizeof m->ram);
    memset(&m->cpu, 0, sizeof m->cpu);
    m->cyc = 0;
    m->next_ev = 0;
    m->bus = 0;
    m->nmi_pending = 0;
    m->irq_src = 0;
    m->nmi_at = m->irq_at = 0;
    m->frame = 0;
    m->frame_done = 0;
    m->pad_strobe = m->pad_shift = m->pad_out = 0;
    m->pad_rd_at = m->pad_out_at = NES_NEVER;
    m->dma = m->oam_page = 0;
    m->dmc_dma_at = 0;
    if (m->fb)
        memset(m->fb, 0, (size_t)NES_W * NES_H * 3);
    nes_ppu_power(m);
    nes_board_power(m);
    nes_apu_power(m);
    memset(&m->aout, 0, sizeof m->aout);
    m->aout.region = m->opt.region;
    m->aout.n = 1; /* sample 0 ends at cycle 0; sample 1 is the first with cycles */
    if (m->fm) /* the VRC7's idle level (nes_vrc7_mix) as the filter's past input: no step */
        m->aout.hp1_x = nes_vrc7_mix(m->tab, 0);
    m->lh->nev = m->lh->nmem = m->lh->nspan = m->lh->nxspan = m->lh->nxmem = m->lh->nfm = 0;
    m->lfm_n = 0;
    nes_ppu_begin_log(m);
    nes_cpu_power(m);
}

void nes_reset(nes *m)
{
    nes_ppu_reset(m);
    nes_apu_reset(m);
    nes_board_reset(m);
    m->nmi_pending = 0;
    nes_cpu_reset(m);
}

/* ---- events and interrupt lines ------------------------------------------------------- */

void nes_events(nes *m)
{
    if (m->cyc >= m->board_ev) /* the board's cycle counter (it schedules its next event) */
        m->bd->cpu_event(m);
    nes_ppu_sync(m);
    nes_apu_sync(m);
    uint64_t a = nes_ppu_next_event(m), b = nes_apu_next_event(m);
    m->next_ev = a < b ? a : b;
    if (m->board_ev < m->next_ev)
        m->next_ev = m->board_ev;
    if (m->dma) { /* the read cycle that a pending DMA may halt takes the slow path */
        uint64_t d = m->cyc + 1;
        if (!(m->dma & NES_DMA_OAM) && m->dmc_dma_at > d)
            d = m->dmc_dma_at;
        if (d < m->next_ev)
            m->next_ev = d;
    }
}

void nes_resched(nes *m)
{
    if (m->next_ev > m->cyc + 1)
        m->next_ev = m->cyc + 1;
}

void nes_irq_set(nes *m, int src, uint64_t at)
{
    if (!m->irq_src || at < m->irq_at)
        m->irq_at = at;
    m->irq_src |= (uint8_t)src;
}

void nes_irq_clear(nes *m, int src)
{
    m->irq_src &= (uint8_t)~src;
}

/* ---- memory map ------------------------------------------------------------------------ */

#define APU_WINDOW(a) (((a) & 0xFFE0) == 0x4000)

/* DMA (the NESdev wiki's "DMA"). Cycles alternate between get (even cycle numbers: the DMA
 * may read) and put (odd: it may write). A DMA halts the CPU only on a read cycle; every
 * cycle it holds the CPU without using the bus itself repeats the CPU's read of a.
 * OAM DMA: a halt cycle, an alignment cycle when the next one is a put, then 256 get/put
 * pairs from page oam_page to $2004 (513 or 514 cycles). DMC DMA: a halt cycle, a dummy
 * cycle, an alignment cycle when needed, then its get (3 or 4 cycles); during an OAM DMA
 * the OAM cycles count as its halt and dummy cycles and its get takes the OAM DMA's place,
 * which then realigns. */
void nes_dma(nes *m, uint16_t a)
{
    int oam = m->dma & NES_DMA_OAM, oam_halted = 0, oam_have = 0, dmc_stage = 0;
    unsigned oam_i = 0;
    uint8_t oam_v = 0;
    m->dma &= (uint8_t)~NES_DMA_OAM;
    for (;;) {
        int dmc = (m->dma & NES_DMA_DMC) && m->cyc >= m->dmc_dma_at;
        if (!oam && !dmc)
            return;
        int get = !(m->cyc & 1);
        if (dmc && dmc_stage == 2 && get) {
            nes_apu_dmc_get(m, a);
            dmc = 0;
            dmc_stage = 0;
        } else if (oam && oam_halted && get && !oam_have) {
            uint16_t da = (uint16_t)(m->oam_page << 8 | oam_i);
            /* the CPU's internal address bus carries the 6502's address or a DMA's; the APU
             * registers answer only while bits 15-5 of the 6502's own address are $4000-$401F
             * (the NESdev wiki): an OAM DMA from page $40 reads open bus there, and the
             * registers ($4015's flags, the pads) see no read */
            oam_v = APU_WINDOW(da) && !APU_WINDOW(a) ? m->bus : nes_access(m, da);
            oam_have = 1;
        } else if (oam && oam_have && !get) {
            m->bus = oam_v;
            nes_ppu_oam_write(m, oam_v);
            oam_have = 0;
            if (++oam_i == 256)
                oam = 0;
        } else {
            nes_access(m, a);
        }
        oam_halted = 1;
        if (dmc && dmc_stage < 2)
            dmc_stage++;
        nes_tick(m);
    }
}

/* The controller's OUT0 line as the pad sees it at the current cycle: the CPU's OUT pins
 * take the written value at the transition from a get cycle to a put cycle (the NESdev
 * wiki), so a value held for one cycle only may never reach the pad. While it is high the
 * pad reloads its buttons: the next bit read is A's. */
static void pad_sync(nes *m)
{
    if (m->pad_out_at <= m->cyc) {
        m->pad_out_at = NES_NEVER;
        m->pad_strobe = m->pad_out;
    }
    if (m->pad_strobe)
        m->pad_shift = 0;
}

/* A read of controller port 1 ($4016; port 2 has nothing) through its /OE line: the pad
 * shifts once per run of reads in consecutive cycles (a DMA halting a read repeats it). */
static uint8_t pad_read(nes *m)
{
    pad_sync(m);
    int bit = m->pad_shift < 8 ? (m->pad_buttons >> m->pad_shift) & 1 : 1;
    if (!m->pad_strobe && m->pad_shift < 8 && m->pad_rd_at != m->cyc - 1)
        m->pad_shift++;
    m->pad_rd_at = m->cyc;
    return (uint8_t)bit;
}

/* What a DMA's read of da carries on the CPU's internal bus while the 6502 is halted on a
 * read of a; v is what the cartridge or RAM put on the external bus. The APU registers
 * answer while bits 15-5 of the 6502's address are $4000-$401F, and then decode bits 4-0 of
 * the DMA's (the NESdev wiki's "DMA", register conflicts): a DMC fetch from $xx15 reads
 * $4015 (the frame interrupt flag clears; the DMC gets the status), one from $xx16 clocks
 * pad 1 (a run of $4016 reads it continues clocks it once), $xx17 pad 2 (nothing there);
 * bits 5-7 of the pads' reads come from the external bus. */
uint8_t nes_dma_read_at(nes *m, uint16_t a, uint16_t da, uint8_t v)
{
    if (!APU_WINDOW(a))
        return v;
    switch (da & 0x1F) {
    case 0x15:
        return (uint8_t)((nes_apu_read_status(m) & ~0x20) | (v & 0x20));
    case 0x16:
        return (uint8_t)((v & 0xE0) | pad_read(m));
    case 0x17:
        return (uint8_t)(v & 0xE0);
    default:
        return v;
    }
}

uint8_t nes_io_read(nes *m, uint16_t a)
{
    if (a < 0x4000)
        return nes_ppu_read(m, a & 7);
    if (a < 0x4020) {
        if (a == 0x4015)
            return (uint8_t)((nes_apu_read_status(m) & ~0x20) | (m->bus & 0x20));
        /* standard controller on port 1 (buttons A, B, Select, Start, Up, Down, Left,
         * Right, then 1s; while the strobe is high, A); nothing on port 2 */
        if (a == 0x4016)
            return (uint8_t)((m->bus & 0xE0) | pad_read(m));
        if (a == 0x4017)
            return (uint8_t)(m->bus & 0xE0);
        return m->bus;
    }
    return nes_board_read_low(m, a, 0); /* and $8000 up to m->prg_direct: a board watches those */
}

void nes_io_write(nes *m, uint16_t a, uint8_t v)
{
    if (a < 0x4000) {
        nes_ppu_write(m, a & 7, v);
        if ((m->hooks & NES_HOOK_MASK) && a == 0x2001) /* the MMC5 watches rendering switch */
            m->bd->ppu_mask(m, v);
    } else if (a < 0x4020) {
        if (a == 0x4014) {
            m->oam_page = v; /* the DMA halts the CPU's next read cycle */
            m->dma |= NES_DMA_OAM;
            nes_resched(m);
        } else if (a == 0x4016) {
            /* OUT0 follows at the next get-to-put transition (pad_sync): a write on a get
             * cycle reaches the pad in the next cycle, one on a put cycle two cycles later;
             * a value overwritten before its transition is never seen */
            pad_sync(m);
            m->pad_out = v & 1;
            m->pad_out_at = m->cyc + ((m->cyc & 1) ? 2 : 1);
        } else if (a <= 0x4017) {
            nes_apu_write(m, a, v);
        }
    } else {
        nes_board_write(m, a, v);
    }
}

uint8_t nes_peek(const nes *m, uint16_t a)
{
    if (a < 0x2000)
        return m->ram[a & 0x7FF];
    if (a < 0x4000)
        return nes_ppu_peek(m, a & 7);
    if (a >= 0x8000)
        return m->prg_rd[(a >> 13) & 3][a & 0x1FFF];
    if (a >= 0x4020) /* the board promises a peek changes nothing */
        return nes_board_read_low((nes *)m, a, 1);
    return m->bus;
}

/* ---- frames --------------------------------------------------------------------------- */

void nes_run_frame(nes *m)
{
    nes_apu_frame_begin(m);
    m->frame_done = 0;
    nes_cpu_run_frame(m);
    nes_ppu_sync(m);
    nes_apu_frame_end(m);
    m->lh->frame = (uint32_t)m->frame;
    m->frame++;
}

nes_logview nes_log_view(const nes *m)
{
    nes_logview v;
    v.h = m->lh;
    v.chr_ram = m->lchr;
    v.ev = m->lev;
    v.span = m->lspan;
    v.xspan = m->lxspan;
    v.xmem = m->lxmem;
    v.fm = m->lfm;
    return v;
}

int nes_test_status(const nes *m, char *msg, size_t len)
{
    if (len)
        msg[0] = 0;
    if (!m->cart->prg_ram_size || nes_peek(m, 0x6001) != 0xDE || nes_peek(m, 0x6002) != 0xB0 ||
        nes_peek(m, 0x6003) != 0x61)
        return -1;
    size_t n = 0;
    for (uint16_t a = 0x6004; a < 0x8000 && n + 1 < len; a++) {
        uint8_t c = nes_peek(m, a);
        if (!c)
            break;
        msg[n++] = (char)((c >= 0x20 && c < 0x7F) ? c : ' ');
    }
    while (n && msg[n - 1] == ' ')
        n--;
    if (len)
        msg[n] = 0;
    return nes_peek(m, 0x6000);
}
