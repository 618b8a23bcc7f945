/* nes_state.c: save states. One function visits every field of the machine in a fixed order,
 * both to write and to read, so the format has one definition. A state is
 *   "GVNESST\x1A", version, ROM hash, payload length, payload hash (xxHash), payload
 * with every number little-endian. Loading checks all of that, then every field that could
 * steer the core out of its arrays or into an endless catch-up; derived state (bank maps,
 * PRG windows, audible periods) is recomputed, never trusted. States are taken at frame
 * boundaries (the PPU past its visible lines, before the pre-render line). */
#include "emu/nes/nes_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

#define ST_MAGIC "GVNESST\x1A"
#define ST_VERSION 7u /* 2 adds the controller buttons held, 3 the PPU open-bus refresh times, 4 the pending DMAs
                            * the last pad and $2007 reads, 5 the board's own registers (nes_board.h) in
                            * place of one set of mapper fields for every board, 6 the controller's OUT0
                            * latch and the PPU's reset signal, 7 the region (older states are NTSC's);
                            * 1 to 6 are still read */
#define ST_HEAD 36

typedef struct nes_st {
    uint8_t *p; /* save: growing output */
    size_t n, cap;
    const uint8_t *r; /* load: input */
    size_t rlen, rpos;
    int load, short_read;
    unsigned version; /* of the state being read or written */
    uint8_t region;   /* the region the state was saved on (NES_REGION_*) */
} st_io;

/* Whether the output's sample clock is where the sound is (cycle t): sample n - 1 ended by t
 * and sample n ends after it. */
static int sample_clock_ok(const nes_aout *o, uint64_t t)
{
    return o->n > 0 && nes_sample_end(o->region, o->n - 1) <= t && nes_sample_end(o->region, o->n) > t;
}

static void io_raw(st_io *s, void *data, size_t n)
{
    if (s->load) {
        if (s->rpos + n > s->rlen) {
            s->short_read = 1;
            memset(data, 0, n);
            return;
        }
        memcpy(data, s->r + s->rpos, n);
        s->rpos += n;
        return;
    }
    s->p = gv_grow(s->p, &s->cap, s->n + n, 65536);
    memcpy(s->p + s->n, data, n);
    s->n += n;
}

/* Integers go through explicit little-endian bytes. */
static void io_uint(st_io *s, void *v, int size)
{
    uint8_t b[8];
    uint64_t x = 0;
    if (!s->load) {
        switch (size) {
        case 1: x = *(uint8_t *)v; break;
        case 2: x = *(uint16_t *)v; break;
        case 4: x = *(uint32_t *)v; break;
        default: x = *(uint64_t *)v; break;
        }
        for (int i = 0; i < size; i++)
            b[i] = (uint8_t)(x >> (8 * i));
        io_raw(s, b, (size_t)size);
        return;
    }
    io_raw(s, b, (size_t)size);
    for (int i = 0; i < size; i++)
        x |= (uint64_t)b[i] << (8 * i);
    switch (size) {
    case 1: *(uint8_t *)v = (uint8_t)x; break;
    case 2: *(uint16_t *)v = (uint16_t)x; break;
    case 4: *(uint32_t *)v = (uint32_t)x; break;
    default: *(uint64_t *)v = x; break;
    }
}

void nes_st_uint(nes_st *s, void *v, int size)
{
    io_uint(s, v, size);
}

#define U(field) io_uint(s, &(field), (int)sizeof(field))
#define A(arr) do { for (size_t i_ = 0; i_ < sizeof(arr) / sizeof((arr)[0]); i_++) U((arr)[i_]); } while (0)

/* Every field of the machine that is state (not derived, not output), in format order. */
static void visit(st_io *s, nes *m)
{
    /* the region is the machine's (an option), not state: saved to be compared on loading */
    s->region = (uint8_t)m->opt.region;
    if (s->version >= 7)
        U(s->region);
    else if (s->load)
        s->region = NES_REGION_NTSC;
    nes_cpu *c = &m->cpu;
    U(c->pc); U(c->a); U(c->x); U(c->y); U(c->s);
    U(c->fn); U(c->fv); U(c->fd); U(c->fi); U(c->fz); U(c->fc);
    U(c->jammed); U(c->int_next);
    U(m->cyc); A(m->ram); U(m->bus);
    U(m->nmi_pending); U(m->irq_src); U(m->nmi_at); U(m->irq_at);
    U(m->frame); U(m->pad_strobe); U(m->pad_shift);
    if (s->version >= 2)
        U(m->pad_buttons);
    if (s->version >= 4) {
        U(m->pad_rd_at); U(m->dma); U(m->oam_page); U(m->dmc_dma_at);
        U(m->ppu.rd7_at); U(m->ppu.rd7_v);
    } else if (s->load) {
        m->ppu.rd7_at = NES_NEVER;
        m->ppu.rd7_v = 0;
        m->pad_rd_at = NES_NEVER;
        m->dma = m->oam_page = 0;
        m->dmc_dma_at = 0;
    }
    if (s->version >= 6) {
        U(m->pad_out); U(m->pad_out_at); U(m->ppu.rst);
    } else if (s->load) { /* older states: OUT0 already seen by the pad, the PPU out of reset */
        m->pad_out = m->pad_strobe;
        m->pad_out_at = NES_NEVER;
        m->ppu.rst = 0;
    }
    io_raw(s, m->prg_ram, m->cart->prg_ram_size);
    io_raw(s, m->chr_ram, m->cart->chr_ram_size);

    if (s->version >= 5) {
        if (m->bd->state)
            m->bd->state(s, m);
    } else { /* versions 1-4: one set of mapper fields for every board */
        nes_legacy_map o = {0};
        U(o.bank); U(o.m1_shift); U(o.m1_count); U(o.m1_ctrl); U(o.m1_chr0); U(o.m1_chr1);
        U(o.m1_prg); U(o.m1_last); U(o.m3_sel); A(o.m3_bank); U(o.m3_mirror); U(o.m3_ram);
        U(o.m3_latch); U(o.m3_counter); U(o.m3_reload); U(o.m3_irq_on);
        if (s->load && m->bd->legacy)
            m->bd->legacy(m, &o);
    }

    nes_ppu *p = &m->ppu;
    nes_pline *pl = &p->pl;
    U(pl->r.v); U(pl->r.t); U(pl->r.x); U(pl->r.ctrl); U(pl->r.mask);
    A(pl->pal); U(pl->nt_latch); U(pl->spr_on); A(pl->tlo); A(pl->thi); A(pl->tat); A(pl->spr);
    A(p->oam); A(p->nt);
    U(p->line); U(p->dot); U(p->clk); U(p->status); U(p->w); U(p->oamaddr); U(p->rbuf); U(p->io);
    U(p->odd); U(p->vbl_suppress); U(p->short_line); U(p->hit_clk); U(p->ovf_clk);
    U(p->a12); U(p->a12_low); A(p->spr_a12); U(p->here_done);
    if (s->version >= 3) {
        A(p->io_at);
        A(m->apu.halt_old);
        U(m->apu.halt_old_at);
    } else if (s->load) {
        for (int i = 0; i < 3; i++)
            p->io_at[i] = p->clk; /* older states: the open-bus bits as if just refreshed */
        m->apu.halt_old_at = NES_NEVER;
    }

    nes_apu *a = &m->apu;
    A(a->len); A(a->halt); U(a->enabled);
    A(a->env_start); A(a->env_div); A(a->env_decay); A(a->env_reg);
    A(a->sw_reg); A(a->sw_div); A(a->sw_reload); A(a->period); U(a->tri_period);
    U(a->lin_ctr); U(a->lin_reg); U(a->lin_reload); U(a->noise_reg); A(a->duty_reg);
    U(a->dmc_ctrl); U(a->dmc_addr_reg); U(a->dmc_len_reg); U(a->dmc_addr); U(a->dmc_remain);
    U(a->dmc_buf); U(a->dmc_buf_full); U(a->dmc_irq); U(a->dmc_reload);
    U(a->fc_mode); U(a->fc_inhibit); U(a->fc_irq); U(a->fc_step); U(a->fc_start); U(a->fc_reset);
    U(a->fc_pending);
    nes_osc *o = &a->osc;
    A(o->next); U(o->lfsr); A(o->pos); U(o->dshift); U(o->dsilent); U(o->dlevel);
    U(a->frame_c0); U(a->audio_t);

    nes_aout *ao = &m->aout, quiet;
    if (!s->load && !sample_clock_ok(ao, a->audio_t)) {
        /* a run without audio (--audio none) never moves the output's sample clock: saved
         * where the sound is, the current sample empty, so the state loads with audio on */
        quiet = *ao;
        quiet.n = nes_sample_at_or_after(ao->region, a->audio_t + 1);
        quiet.carry = 0;
        ao = &quiet;
    }
    U(ao->n); U(ao->carry); U(ao->hp1_x); U(ao->hp1_y); U(ao->hp2_x); U(ao->hp2_y); U(ao->lp_y);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

gv_status nes_state_save(const nes *m, uint8_t **data, size_t *len, gv_err *err)
{
    st_io s = {0};
    s.version = ST_VERSION;
    uint8_t head[ST_HEAD] = {0};
    io_raw(&s, head, sizeof head);
    visit(&s, (nes *)m); /* a save visit only reads the machine */
    uint64_t plen = s.n - ST_HEAD;
    memcpy(s.p, ST_MAGIC, 8);
    for (int i = 0; i < 4; i++)
        s.p[8 + i] = (uint8_t)(ST_VERSION >> (8 * i));
    put64(s.p + 12, m->cart->hash);
    put64(s.p + 20, plen);
    put64(s.p + 28, gv_hash64(s.p + ST_HEAD, plen));
    *data = s.p;
    *len = s.n;
    return GV_OK;
}

/* Field checks after a load: everything an index, a division or a catch-up loop depends on. */
static const char *check(const nes *m)
{
    const nes_ppu *p = &m->ppu;
    const nes_apu *a = &m->apu;
    if (m->cpu.int_next > NES_INT_IRQ || m->cpu.jammed > 1)
        return "CPU interrupt state out of range";
    if (m->cyc > ((uint64_t)1 << 50))
        return "cycle count out of range";
    if (p->line < NES_H || p->line >= m->tm.pre || p->dot >= NES_DOTS)
        return m->tm.pre == 261 ? "not taken at a frame boundary (the PPU must be in lines 240-260)"
                                : "not taken at a frame boundary (the PPU must be in lines 240-310)";
    if (p->pl.r.x > 7 || p->pl.r.v > 0x7FFF || p->pl.r.t > 0x7FFF || p->w > 1)
        return "PPU scroll registers out of range";
    if (p->rst > 1 || m->pad_out > 1 || m->pad_strobe > 1)
        return "PPU reset or controller strobe state out of range";
    for (int i = 0; i < 32; i++)
        if (p->pl.pal[i] > 0x3F)
            return "palette entry out of range";
    if (p->clk > nes_dots_at(m, m->cyc) || nes_dots_at(m, m->cyc) - p->clk > nes_dots_at(m, 40000))
        return "PPU clock does not match the CPU clock";
    const char *why = m->bd->state_check ? m->bd->state_check(m) : NULL;
    if (why)
        return why;
    if (a->fc_mode > 1 || a->fc_step > (a->fc_mode ? 4 : 5))
        return "frame counter state out of range";
    if (a->fc_start > m->cyc + 8 || m->cyc - a->fc_start > 44000) /* PAL's 5-step sequence: 41566 */
        return "frame counter time out of range";
    if (a->fc_reset != NES_NEVER && (a->fc_reset < m->cyc || a->fc_reset > m->cyc + 8))
        return "frame counter reset time out of range";
    /* an idle DMC's reload time may lag (idle reloads are skipped in one step later) */
    int dmc_busy = !a->osc.dsilent || a->dmc_buf_full || a->dmc_remain;
    if (a->dmc_reload > m->cyc + 8 * 428 + 8 || (dmc_busy && a->dmc_reload + 8 < m->cyc))
        return "DMC timer out of range";
    if (m->dma > (NES_DMA_OAM | NES_DMA_DMC) || ((m->dma & NES_DMA_DMC) && m->dmc_dma_at > m->cyc + 8))
        return "pending DMA out of range";
    if (a->period[0] > 0x7FF || a->period[1] > 0x7FF || a->tri_period > 0x7FF)
        return "APU timer period out of range";
    for (int i = 0; i < 3; i++) /* volumes index the mixer tables */
        if (a->env_decay[i] > 15 || a->env_div[i] > 15)
            return "APU envelope out of range";
    if (a->lin_ctr > 127 || a->osc.dlevel > 127 || a->osc.pos[0] > 7 || a->osc.pos[1] > 7 || a->osc.pos[2] > 31 ||
        a->osc.lfsr > 0x7FFF || a->dmc_buf_full > 1 || a->osc.dsilent > 1)
        return "APU channel state out of range";
    if (a->frame_c0 > a->audio_t || a->audio_t > m->cyc || m->cyc - a->frame_c0 > 200000)
        return "audio clock out of range";
    uint32_t t = (uint32_t)(a->audio_t - a->frame_c0);
    for (int c = 0; c < 5; c++)
        if (a->osc.next[c] <= t || a->osc.next[c] - t > 8192)
            return "audio channel timer out of range";
    const nes_aout *o = &m->aout;
    const int64_t lim = 1 << 20; /* the filters' values stay within +-2^17 */
    if (o->hp1_x < -lim || o->hp1_x > lim || o->hp1_y < -lim || o->hp1_y > lim || o->hp2_x < -lim || o->hp2_x > lim ||
        o->hp2_y < -lim || o->hp2_y > lim || o->lp_y < -lim || o->lp_y > lim)
        return "audio filter state out of range";
    if (!sample_clock_ok(o, a->audio_t) || o->carry > ((uint64_t)1 << 32))
        return "audio sample clock out of range";
    return NULL;
}

gv_status nes_state_load(nes *m, const uint8_t *d, size_t len, gv_err *err)
{
    if (len < ST_HEAD || memcmp(d, ST_MAGIC, 8))
        return gv_fail(err, GV_ERR_INPUT, "not a gpuvet NES save state (bad magic)");
    uint32_t ver = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 | (uint32_t)d[11] << 24;
    if (ver < 1 || ver > ST_VERSION)
        return gv_fail(err, GV_ERR_INPUT, "save state version %u is not supported (this build reads 1 to %u)", ver,
                       ST_VERSION);
    if (get64(d + 12) != m->cart->hash)
        return gv_fail(err, GV_ERR_INPUT, "the save state was made with a different ROM");
    uint64_t plen = get64(d + 20);
    if (plen != len - ST_HEAD)
        return gv_fail(err, GV_ERR_INPUT, "save state is truncated or has trailing bytes (%zu payload bytes, header says %llu)",
                       len - ST_HEAD, (unsigned long long)plen);
    if (gv_hash64(d + ST_HEAD, plen) != get64(d + 28))
        return gv_fail(err, GV_ERR_INPUT, "corrupt save state (checksum mismatch)");
    /* Keep the current state, so a state that fails the field checks leaves m as it was. */
    uint8_t *backup;
    size_t blen;
    nes_state_save(m, &backup, &blen, err);
    st_io s = {0};
    s.load = 1;
    s.version = ver;
    s.r = d + ST_HEAD;
    s.rlen = plen;
    visit(&s, m);
    for (int i = 0; i < 34; i++) /* attribute slots hold 2 bits (refetched before use anyway) */
        m->ppu.pl.tat[i] &= 3;
    static const char *const region_name[] = {"NTSC", "PAL", "Dendy"};
    char other[96];
    if (s.region != (uint8_t)m->opt.region)
        snprintf(other, sizeof other, "it was saved with %s timing, this machine has %s timing (--region)",
                 s.region < 3 ? region_name[s.region] : "unknown", region_name[m->opt.region]);
    const char *why = s.short_read ? "save state is shorter than this ROM's machine"
                      : s.rpos != s.rlen ? "save state is longer than this ROM's machine"
                      : s.region != (uint8_t)m->opt.region ? other : check(m);
    if (why) {
        st_io b = {0};
        b.load = 1;
        b.version = ST_VERSION;
        b.r = backup + ST_HEAD;
        b.rlen = blen - ST_HEAD;
        visit(&b, m);
        free(backup);
        return gv_fail(err, GV_ERR_INPUT, "bad save state: %s", why);
    }
    free(backup);
    m->ppu.log_on = 0;
    m->frame_done = 0;
    nes_board_update(m);
    nes_apu_refresh(m);
    m->next_ev = 0; /* recompute every event time at the next cycle */
    return GV_OK;
}
