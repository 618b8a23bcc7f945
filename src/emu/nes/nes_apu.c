/* nes_apu.c: the 2A03's APU, control side: registers $4000-$4017, length counters, envelopes,
 * sweep units, the triangle's linear counter, the frame counter (4- and 5-step, IRQ) and the
 * DMC's memory reader (DMA reads that stall the CPU, IRQ). Its audible result is kept in a
 * nes_osc (nes_audio.h) that changes only at these events; between them the native audio
 * path sums the mixer output sample by sample, and the block renderers get the same states
 * as the frame's spans. */
#include "emu/nes/nes_int.h"

#include <string.h>

_Static_assert(sizeof(nes_xosc) == 128, "nes_xosc: 128 bytes (a chip's state fits the union's 120)");

static const uint8_t length_table[32] = {
    10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14,
    12, 16, 24, 18, 48, 20, 96, 22, 192, 24, 72, 26, 16, 28, 32, 30,
};
/* Noise timer periods and DMC rates in CPU cycles: NTSC (and Dendy), PAL (the NESdev wiki's
 * "APU Noise" and "APU DMC"; nes_timing.pal_apu picks the row). */
static const uint16_t noise_period[2][16] = {
    {4, 8, 16, 32, 64, 96, 128, 160, 202, 254, 380, 508, 762, 1016, 2034, 4068},
    {4, 8, 14, 30, 60, 88, 118, 148, 188, 236, 354, 472, 708, 944, 1890, 3778},
};
static const uint16_t dmc_rate[2][16] = {
    {428, 380, 340, 320, 286, 254, 226, 214, 190, 160, 142, 128, 106, 84, 72, 54},
    {398, 354, 316, 298, 276, 236, 210, 198, 176, 148, 132, 118, 98, 78, 66, 50},
};

/* Frame counter steps, in CPU cycles from the start of the sequence, of the 4- and 5-step
 * modes: NTSC (and Dendy, whose frame counter runs at 59 Hz on its faster CPU), then PAL
 * (the APU cycles 4156.5, 8313.5, 12469.5, 16626-16627 and 20782.5 of the wiki's "APU
 * Frame Counter"; blargg's pal_apu_tests readme gives the same steps 1 cycle apart). */
enum { FC_Q = 1, FC_H = 2, FC_IRQ = 4, FC_WRAP = 8 };
static const uint32_t fc_time[2][2][6] = {
    {{7457, 14913, 22371, 29828, 29829, 29830}, {7457, 14913, 22371, 37281, 37282, 0}},
    {{8313, 16627, 24939, 33252, 33253, 33254}, {8313, 16627, 24939, 41565, 41566, 0}},
};
static const uint8_t fc_kind[2][6] = {
    {FC_Q, FC_Q | FC_H, FC_Q, FC_IRQ, FC_Q | FC_H | FC_IRQ, FC_IRQ | FC_WRAP},
    {FC_Q, FC_Q | FC_H, FC_Q, FC_Q | FC_H, FC_WRAP, 0},
};

/* ---- audible state ------------------------------------------------------------------ */

/* The VRC7 (nes_vrc7.h): runs its ticks that start before cycle t, appending their levels
 * to the frame's (m->lfm). */
static void fm_to(nes *m, uint64_t t)
{
    nes_vrc7 *c = m->fm;
    uint64_t end = (t + NES_VRC7_TICK - 1) / NES_VRC7_TICK;
    while (c->tick < end) {
        if (m->lfm_n == m->lfm_cap) {
            m->lfm_cap *= 2;
            m->lfm = gv_xrealloc(m->lfm, m->lfm_cap * sizeof *m->lfm);
        }
        m->lfm[m->lfm_n++] = nes_vrc7_tick(m->tab, c);
    }
}

/* Brings the sound up to absolute cycle t: the native path sums the mixer output and
 * completes every sample that ends on the way; otherwise the state just moves on. */
static void audio_to(nes *m, uint64_t t)
{
    nes_apu *a = &m->apu;
    if (t <= a->audio_t)
        return;
    int chip = a->xosc.kind != NES_XA_NONE;
    if (m->fm)
        fm_to(m, t);
    if (!m->opt.audio_native) {
        nes_osc_advance(m->tab, &a->osc, (uint32_t)(t - a->frame_c0));
        if (chip)
            nes_xosc_advance_img(m->tab, &a->xosc, m->xmem, (uint32_t)(t - a->frame_c0));
        a->audio_t = t;
        return;
    }
    nes_aout *o = &m->aout;
    uint64_t at = a->audio_t;
    while (at < t) { /* up to 64 samples per walk (nes_osc_integrate_cut) */
        uint32_t cut[64], ncut = 0;
        uint64_t piece[65], stop = t;
        for (uint64_t end; ncut < 64 && (end = nes_sample_end(o->region, o->n + ncut)) <= t; ncut++) {
            cut[ncut] = (uint32_t)(end - a->frame_c0);
            stop = end;
        }
        if (ncut < 64)
            stop = t;
        uint32_t from = (uint32_t)(at - a->frame_c0);
        nes_osc_integrate_cut(m->tab, &a->osc, from, (uint32_t)(stop - a->frame_c0), cut, ncut, piece);
        for (uint32_t k = 0; chip && k <= ncut; k++) { /* the cartridge's sound chip joins the mix */
            uint32_t to = k < ncut ? cut[k] : (uint32_t)(stop - a->frame_c0);
            piece[k] += m->fm ? nes_vrc7_sum(m->tab, m->lfm, m->lfm_n, a->frame_c0, from, to) /* its levels */
                              : nes_xosc_integrate_img(m->tab, &a->xosc, m->xmem, from, to);
            from = to;
        }
        while (m->abuf_n + ncut > m->abuf_cap) {
            m->abuf_cap *= 2;
            m->abuf = gv_xrealloc(m->abuf, m->abuf_cap * sizeof *m->abuf);
        }
        nes_aout_pieces(o, o->n, piece, ncut + 1, m->abuf, &m->abuf_n);
        at = stop;
    }
    nes_osc_advance(m->tab, &a->osc, (uint32_t)(t - a->frame_c0)); /* the silent channels too */
    if (chip)
        nes_xosc_advance_img(m->tab, &a->xosc, m->xmem, (uint32_t)(t - a->frame_c0));
    a->audio_t = t;
}

/* Records the chip's state from now on as a span of the frame log. */
static void log_xspan(nes *m)
{
    nes_apu *a = &m->apu;
    if (a->xosc.kind == NES_XA_VRC7) /* its sound travels as levels (m->lfm), not spans */
        return;
    uint32_t t0 = (uint32_t)(a->audio_t - a->frame_c0);
    a->xosc.t0 = t0;
    if (!m->opt.log_audio)
        return;
    nes_loghead *h = m->lh;
    if (m->xmem) { /* the chip's memory: an image per span (the last one when unchanged) */
        uint32_t n = m->xmem_len;
        if (h->nxmem < n || memcmp(m->lxmem + h->nxmem - n, m->xmem, n)) {
            while (h->nxmem + n > m->lxmem_cap) {
                m->lxmem_cap *= 2;
                m->lxmem = gv_xrealloc(m->lxmem, m->lxmem_cap);
            }
            memcpy(m->lxmem + h->nxmem, m->xmem, n);
            h->nxmem += n;
        }
        nes_xosc_set_image(&a->xosc, h->nxmem - n);
    }
    if (h->nxspan && m->lxspan[h->nxspan - 1].t0 == t0) {
        h->nxspan--; /* a later change at the same cycle replaces the span */
    } else if (h->nxspan == m->lxspan_cap) {
        m->lxspan_cap *= 2;
        m->lxspan = gv_xrealloc(m->lxspan, m->lxspan_cap * sizeof *m->lxspan);
    }
    m->lxspan[h->nxspan++] = a->xosc;
}

void nes_xaudio_begin(nes *m)
{
    nes_apu_sync(m);
    audio_to(m, m->cyc);
}

void nes_xaudio_end(nes *m)
{
    log_xspan(m);
}

static int env_out(const nes_apu *a, int i)
{
    return (a->env_reg[i] & 0x10) ? (a->env_reg[i] & 0x0F) : a->env_decay[i];
}

/* Sweep target period of pulse i (pulse 1 negates with one's complement). */
static int sweep_target(const nes_apu *a, int i)
{
    int p = a->period[i], d = p >> (a->sw_reg[i] & 7);
    if (a->sw_reg[i] & 0x08) {
        int t = p - d - (i == 0 ? 1 : 0);
        return t < 0 ? 0 : t;
    }
    return p + d;
}

static int sweep_mutes(const nes_apu *a, int i)
{
    return a->period[i] < 8 || sweep_target(a, i) > 0x7FF;
}

/* Recomputes the derived audible state after a change and, when logging, records it as a
 * new span starting now. */
static void refresh(nes *m)
{
    nes_apu *a = &m->apu;
    nes_osc *o = &a->osc;
    for (int i = 0; i < 2; i++) {
        o->per[i] = 2u * (a->period[i] + 1u);
        o->duty[i] = a->duty_reg[i] >> 6;
        o->vol[i] = (uint8_t)((a->len[i] && !sweep_mutes(a, i)) ? env_out(a, i) : 0);
    }
    o->per[2] = a->tri_period + 1u;
    o->tri_run = a->len[2] && a->lin_ctr;
    o->per[3] = noise_period[m->tm.pal_apu][a->noise_reg & 0x0F];
    o->nmode = (a->noise_reg >> 7) & 1;
    o->nvol = (uint8_t)(a->len[3] ? env_out(a, 2) : 0);
    o->per[4] = dmc_rate[m->tm.pal_apu][a->dmc_ctrl & 0x0F];
    if (!m->opt.log_audio)
        return;
    uint32_t t0 = (uint32_t)(a->audio_t - a->frame_c0);
    nes_loghead *h = m->lh;
    if (h->nspan && m->lspan[h->nspan - 1].t0 == t0) {
        h->nspan--; /* a later change at the same cycle replaces the span */
    } else if (h->nspan == m->lspan_cap) {
        m->lspan_cap *= 2;
        m->lspan = gv_xrealloc(m->lspan, m->lspan_cap * sizeof *m->lspan);
    }
    o->t0 = t0;
    m->lspan[h->nspan++] = *o;
}

/* ---- frame counter clocks ------------------------------------------------------------ */

static void quarter_clock(nes_apu *a)
{
    for (int i = 0; i < 3; i++) {
        if (a->env_start[i]) {
            a->env_start[i] = 0;
            a->env_decay[i] = 15;
            a->env_div[i] = a->env_reg[i] & 0x0F;
        } else if (a->env_div[i] == 0) {
            a->env_div[i] = a->env_reg[i] & 0x0F;
            if (a->env_decay[i])
                a->env_decay[i]--;
            else if (a->env_reg[i] & 0x20)
                a->env_decay[i] = 15;
        } else {
            a->env_div[i]--;
        }
    }
    if (a->lin_reload)
        a->lin_ctr = a->lin_reg & 0x7F;
    else if (a->lin_ctr)
        a->lin_ctr--;
    if (!(a->lin_reg & 0x80))
        a->lin_reload = 0;
}

/* t: the cycle of the clock (a halt written just before it is not yet in effect). */
static void half_clock(nes_apu *a, uint64_t t)
{
    const uint8_t *halt = t == a->halt_old_at ? a->halt_old : a->halt;
    for (int i = 0; i < 4; i++)
        if (a->len[i] && !halt[i])
            a->len[i]--;
    for (int i = 0; i < 2; i++) {
        int pdiv = (a->sw_reg[i] >> 4) & 7;
        if (a->sw_div[i] == 0 && (a->sw_reg[i] & 0x80) && (a->sw_reg[i] & 7) && !sweep_mutes(a, i))
            a->period[i] = (uint16_t)sweep_target(a, i);
        if (a->sw_div[i] == 0 || a->sw_reload[i]) {
            a->sw_div[i] = (uint8_t)pdiv;
            a->sw_reload[i] = 0;
        } else {
            a->sw_div[i]--;
        }
    }
}

/* ---- DMC memory reader ----------------------------------------------------------------- */

static void dmc_restart(nes_apu *a)
{
    a->dmc_addr = (uint16_t)(0xC000 + a->dmc_addr_reg * 64);
    a->dmc_remain = (uint16_t)(a->dmc_len_reg * 16 + 1);
}

/* The reader wants the empty sample buffer filled: a DMC DMA that tries to halt the CPU
 * from cycle `at` on (the byte arrives in its get cycle, nes_apu_dmc_get). */
static void dmc_request(nes *m, uint64_t at)
{
    nes_apu *a = &m->apu;
    if (a->dmc_buf_full || !a->dmc_remain || (m->dma & NES_DMA_DMC))
        return;
    m->dma |= NES_DMA_DMC;
    m->dmc_dma_at = at;
    nes_resched(m);
}

void nes_apu_dmc_get(nes *m, uint16_t cpu_a)
{
    nes_apu *a = &m->apu;
    m->dma &= (uint8_t)~NES_DMA_DMC;
    if (a->dmc_buf_full || !a->dmc_remain)
        return;
    uint8_t v = m->prg_rd[(a->dmc_addr >> 13) & 3][a->dmc_addr & 0x1FFF];
    m->bus = v;
    a->dmc_buf = nes_dma_read_at(m, cpu_a, a->dmc_addr, v);
    a->dmc_buf_full = 1;
    a->dmc_addr = a->dmc_addr == 0xFFFF ? 0x8000 : (uint16_t)(a->dmc_addr + 1);
    if (--a->dmc_remain == 0) {
        if (a->dmc_ctrl & 0x40) {
            dmc_restart(a);
        } else if (a->dmc_ctrl & 0x80) {
            a->dmc_irq = 1;
            nes_irq_set(m, NES_IRQ_DMC, m->cyc);
        }
    }
}

static int dmc_active(const nes_apu *a)
{
    return !a->osc.dsilent || a->dmc_buf_full || a->dmc_remain;
}

/* Moves an idle output unit's next reload past cycle t (idle reloads change nothing). */
static void dmc_catch_up(nes_apu *a, uint64_t t)
{
    if (a->dmc_reload >= t)
        return;
    uint64_t cyc8 = 8ull * a->osc.per[4];
    a->dmc_reload += ((t - a->dmc_reload) / cyc8 + 1) * cyc8;
}

/* The eighth bit clock of an output cycle: the shift register takes the sample buffer (or
 * the unit goes silent) and the reader refills the buffer. */
static void dmc_reload(nes *m, uint64_t t)
{
    nes_apu *a = &m->apu;
    audio_to(m, t);
    if (a->dmc_buf_full) {
        a->osc.dshift = a->dmc_buf;
        a->osc.dsilent = 0;
        a->dmc_buf_full = 0;
    } else {
        a->osc.dsilent = 1;
    }
    a->dmc_reload = t + 8ull * a->osc.per[4];
    /* this "reload" DMA tries to halt on a put cycle (odd cycle numbers) */
    dmc_request(m, t + !(t & 1));
    refresh(m);
}

/* ---- events ----------------------------------------------------------------------------- */

uint64_t nes_apu_next_event(nes *m)
{
    nes_apu *a = &m->apu;
    uint64_t t = a->fc_start + fc_time[m->tm.pal_apu][a->fc_mode][a->fc_step];
    if (a->fc_reset < t)
        t = a->fc_reset;
    if (dmc_active(a) && a->dmc_reload < t)
        t = a->dmc_reload;
    return t;
}

static void fc_step(nes *m, uint64_t t)
{
    nes_apu *a = &m->apu;
    int k = fc_kind[a->fc_mode][a->fc_step];
    audio_to(m, t);
    if (k & FC_Q)
        quarter_clock(a);
    if (k & FC_H)
        half_clock(a, t);
    if ((k & FC_IRQ) && !a->fc_inhibit) {
        a->fc_irq = 1;
        nes_irq_set(m, NES_IRQ_FRAME, t);
    }
    if (k & FC_WRAP) {
        a->fc_start += fc_time[m->tm.pal_apu][a->fc_mode][a->fc_step];
        a->fc_step = 0;
    } else {
        a->fc_step++;
    }
    if (k & (FC_Q | FC_H))
        refresh(m);
}

void nes_apu_sync(nes *m)
{
    nes_apu *a = &m->apu;
    for (;;) {
        uint64_t fc = a->fc_start + fc_time[m->tm.pal_apu][a->fc_mode][a->fc_step];
        uint64_t dm = dmc_active(a) ? a->dmc_reload : NES_NEVER;
        uint64_t t = fc < a->fc_reset ? fc : a->fc_reset;
        if (dm < t)
            t = dm;
        if (t > m->cyc)
            break;
        if (t == dm) {
            dmc_reload(m, t);
        } else if (t == a->fc_reset) {
            audio_to(m, t);
            a->fc_reset = NES_NEVER;
            a->fc_mode = a->fc_pending >> 7;
            a->fc_start = t;
            a->fc_step = 0;
            if (a->fc_mode) { /* 5-step mode clocks everything at once on the write */
                quarter_clock(a);
                half_clock(a, t);
                refresh(m);
            }
        } else {
            fc_step(m, t);
        }
    }
}

/* ---- registers ---------------------------------------------------------------------- */

uint8_t nes_apu_read_status(nes *m)
{
    nes_apu *a = &m->apu;
    nes_apu_sync(m);
    uint8_t v = (uint8_t)((a->dmc_irq ? 0x80 : 0) | (a->fc_irq ? 0x40 : 0) | (a->dmc_remain ? 0x10 : 0));
    for (int i = 0; i < 4; i++)
        if (a->len[i])
            v |= (uint8_t)(1 << i);
    a->fc_irq = 0; /* reading acknowledges the frame interrupt */
    nes_irq_clear(m, NES_IRQ_FRAME);
    return v;
}

/* A write in the cycle just before a length clock lands together with it (blargg's
 * len_halt_timing, len_reload_timing): the clock still sees the old halt flag; a reload
 * of a counter that is not 0 is lost, and one of a counter at 0 comes after the clock. */
static int len_clock_next(const nes *m)
{
    const nes_apu *a = &m->apu;
    return a->fc_start + fc_time[m->tm.pal_apu][a->fc_mode][a->fc_step] == m->cyc + 1 &&
           (fc_kind[a->fc_mode][a->fc_step] & FC_H) && a->fc_reset > m->cyc + 1;
}

/* Keeps the halt flags as they are for the length clock of the next cycle. */
static void keep_halt(nes_apu *a, uint64_t t)
{
    if (a->halt_old_at != t)
        memcpy(a->halt_old, a->halt, sizeof a->halt);
    a->halt_old_at = t;
}

static void set_halt(nes *m, int i, uint8_t h)
{
    if (len_clock_next(m))
        keep_halt(&m->apu, m->cyc + 1);
    m->apu.halt[i] = h;
}

static void reload_len(nes *m, int i, uint8_t v)
{
    nes_apu *a = &m->apu;
    if (!(a->enabled & (1 << i)))
        return;
    if (len_clock_next(m)) {
        if (a->len[i])
            return;
        keep_halt(a, m->cyc + 1);
        a->halt_old[i] = 1; /* the clock passes this counter by: the reload follows it */
    }
    a->len[i] = length_table[v >> 3];
}

void nes_apu_write(nes *m, uint16_t addr, uint8_t v)
{
    nes_apu *a = &m->apu;
    nes_apu_sync(m);
    audio_to(m, m->cyc);
    int i = (addr >> 2) & 1;
    switch (addr) {
    case 0x4000:
    case 0x4004:
        a->duty_reg[i] = v;
        a->env_reg[i] = v & 0x3F;
        set_halt(m, i, (v >> 5) & 1);
        break;
    case 0x4001:
    case 0x4005:
        a->sw_reg[i] = v;
        a->sw_reload[i] = 1;
        break;
    case 0x4002:
    case 0x4006:
        a->period[i] = (uint16_t)((a->period[i] & 0x700) | v);
        break;
    case 0x4003:
    case 0x4007:
        a->period[i] = (uint16_t)((a->period[i] & 0xFF) | ((v & 7) << 8));
        reload_len(m, i, v);
        a->osc.pos[i] = 0; /* the sequencer restarts; the timer does not */
        a->env_start[i] = 1;
        break;
    case 0x4008:
        a->lin_reg = v;
        set_halt(m, 2, (v >> 7) & 1);
        break;
    case 0x400A:
        a->tri_period = (uint16_t)((a->tri_period & 0x700) | v);
        break;
    case 0x400B:
        a->tri_period = (uint16_t)((a->tri_period & 0xFF) | ((v & 7) << 8));
        reload_len(m, 2, v);
        a->lin_reload = 1;
        break;
    case 0x400C:
        a->env_reg[2] = v & 0x3F;
        set_halt(m, 3, (v >> 5) & 1);
        break;
    case 0x400E:
        a->noise_reg = v;
        break;
    case 0x400F:
        reload_len(m, 3, v);
        a->env_start[2] = 1;
        break;
    case 0x4010: {
        /* the new rate applies from the next bit clock on; the reload moves with it */
        uint64_t dnext = a->frame_c0 + a->osc.next[4];
        dmc_catch_up(a, m->cyc);
        uint64_t bits_left = (a->dmc_reload - dnext) / a->osc.per[4] + 1;
        a->dmc_ctrl = v;
        a->osc.per[4] = dmc_rate[m->tm.pal_apu][v & 0x0F];
        a->dmc_reload = dnext + (bits_left - 1) * a->osc.per[4];
        if (!(v & 0x80)) {
            a->dmc_irq = 0;
            nes_irq_clear(m, NES_IRQ_DMC);
        }
        break;
    }
    case 0x4011:
        a->osc.dlevel = v & 0x7F;
        break;
    case 0x4012:
        a->dmc_addr_reg = v;
        break;
    case 0x4013:
        a->dmc_len_reg = v;
        break;
    case 0x4015:
        a->enabled = v & 0x0F;
        for (int c = 0; c < 4; c++)
            if (!(v & (1 << c)))
                a->len[c] = 0;
        a->dmc_irq = 0;
        nes_irq_clear(m, NES_IRQ_DMC);
        if (!(v & 0x10)) {
            a->dmc_remain = 0;
            m->dma &= (uint8_t)~NES_DMA_DMC;
        } else if (!a->dmc_remain) {
            dmc_catch_up(a, m->cyc);
            dmc_restart(a);
            /* the first, "load" DMA tries to halt on the get cycle of the second APU cycle
             * after this one (get cycles have even numbers) */
            dmc_request(m, m->cyc + 3 + !(m->cyc & 1));
        }
        break;
    case 0x4017:
        a->fc_pending = v;
        a->fc_inhibit = (v >> 6) & 1;
        if (a->fc_inhibit) {
            a->fc_irq = 0;
            nes_irq_clear(m, NES_IRQ_FRAME);
        }
        a->fc_reset = m->cyc + ((m->cyc & 1) ? 3 : 4);
        break;
    default:
        return;
    }
    refresh(m);
    nes_resched(m);
}

/* ---- power, frames --------------------------------------------------------------------- */

void nes_apu_power(nes *m)
{
    nes_apu *a = &m->apu;
    memset(a, 0, sizeof *a);
    a->halt_old_at = NES_NEVER;
    a->osc.lfsr = 1;
    a->osc.dsilent = 1;
    a->osc.next[0] = a->osc.next[1] = 2;
    a->osc.next[2] = 1;
    a->osc.next[3] = 4;
    a->osc.next[4] = dmc_rate[m->tm.pal_apu][0];
    a->dmc_reload = a->osc.next[4] + 7ull * a->osc.next[4];
    a->fc_reset = NES_NEVER;
    a->fc_start = 0;
    nes_xosc_power(&a->xosc, m->bd->xaudio);
    if (m->bd->xaudio_power)
        m->bd->xaudio_power(m);
    refresh(m);
}

void nes_apu_reset(nes *m)
{
    nes_apu *a = &m->apu;
    audio_to(m, m->cyc);
    a->enabled = 0;
    for (int c = 0; c < 4; c++)
        a->len[c] = 0;
    a->dmc_remain = 0;
    m->dma &= (uint8_t)~NES_DMA_DMC;
    a->dmc_irq = a->fc_irq = 0;
    nes_irq_clear(m, NES_IRQ_DMC | NES_IRQ_FRAME);
    a->fc_reset = m->cyc + 3; /* $4017 is written again with its last value */
    refresh(m);
}

void nes_apu_refresh(nes *m)
{
    refresh(m);
}

void nes_apu_frame_begin(nes *m)
{
    m->abuf_n = 0;
    if (m->fm) { /* the frame's levels start with the tick under its first cycle */
        m->lfm_n = 0;
        if (m->fm->tick > m->apu.frame_c0 / NES_VRC7_TICK)
            m->lfm[m->lfm_n++] = m->fm->last;
    }
    if (m->opt.log_audio) {
        m->lh->nspan = 0;
        refresh(m); /* the frame's first span, at t0 = 0 */
        m->lh->nxspan = m->lh->nxmem = 0;
        if (m->apu.xosc.kind != NES_XA_NONE)
            log_xspan(m);
    }
}

void nes_apu_frame_end(nes *m)
{
    nes_apu *a = &m->apu;
    nes_apu_sync(m);
    audio_to(m, m->cyc);
    uint32_t len = (uint32_t)(m->cyc - a->frame_c0);
    if (m->opt.log_audio) {
        m->lh->a_c0 = a->frame_c0;
        m->lh->a_len = len;
        m->lh->region = (uint32_t)m->opt.region;
        m->lh->nfm = m->fm ? m->lfm_n : 0;
    }
    /* rebase the audible state on the next frame */
    for (int c = 0; c < 5; c++)
        a->osc.next[c] -= len;
    nes_xosc_rebase(&a->xosc, len);
    a->frame_c0 = m->cyc;
}
