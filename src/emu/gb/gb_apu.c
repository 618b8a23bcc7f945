/* gb_apu.c: the APU's timing side. It keeps what the CPU can observe (register reads,
 * NR52 channel status, PCM12/PCM34 on CGB, wave RAM) and the frame sequencer (512 Hz,
 * clocked by falling edges of system counter bit 12, bit 13 in double speed): length
 * counters on steps 0/2/4/6, sweep on 2/6, envelopes on 7. At each audio event (register
 * write, sequencer step that changes something) it advances the four generators to that
 * dot in closed form and appends a keyframe; the synthesisers (gb_audio.c, device) turn
 * keyframes into samples. Channels: 0-1 square (1 with sweep), 2 wave, 3 noise. */
#include <string.h>

#include "emu/gb/gb_int.h"

/* Read masks: bits that read back as 1 ($FF10-$FF2F). */
static const uint8_t apu_rmask[0x20] = {
    0x80, 0x3F, 0x00, 0xFF, 0xBF, 0xFF, 0x3F, 0x00, 0xFF, 0xBF, 0x7F, 0xFF, 0x9F, 0xFF, 0xBF, 0xFF,
    0xFF, 0x00, 0x00, 0xBF, 0x00, 0x00, 0x70, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* Offsets (from $FF10) of NRx2 and NRx4 per channel. */
static const uint8_t nrx2[4] = {0x02, 0x07, 0x0C, 0x11};
static const uint8_t nrx4[4] = {0x04, 0x09, 0x0E, 0x13};

static uint32_t chan_period(const gb_apu_state *a, int ch)
{
    if (ch < 2)
        return (2048u - a->freq[ch]) * 4u;
    if (ch == 2)
        return (2048u - a->freq[2]) * 2u;
    uint8_t r = a->reg[0x12];
    unsigned div = r & 7, sh = r >> 4;
    if (sh >= 14)
        return 0; /* shifts 14 and 15 stop the LFSR */
    return (div ? div * 16u : 8u) << sh;
}

static void set_period(gb_apu_state *a, int ch)
{
    gb_apu_gen *c = &a->gen.ch[ch];
    c->period = chan_period(a, ch);
    if (c->ctr == 0)
        c->ctr = c->period ? c->period : 1;
}

/* Brings the generators to dot t. */
static void gen_sync(gb *g, uint64_t t)
{
    gb_apu_key *k = &g->s.apu.gen;
    if (t <= k->t)
        return;
    for (int ch = 0; ch < 4; ch++)
        gb_gen_advance(&k->ch[ch], ch, t - k->t, g->lfsr);
    k->t = t;
}

/* Appends the current generator state as a keyframe (replacing one at the same dot). */
static void emit_key(gb *g)
{
    gb_vec *v = &g->keys[g->keys_cur];
    gb_apu_key *last = v->n ? (gb_apu_key *)v->v + v->n - 1 : NULL;
    if (last && last->t == g->s.apu.gen.t) {
        *last = g->s.apu.gen;
        return;
    }
    gb_apu_key *k = gb_vec_push(v, sizeof *k);
    *k = g->s.apu.gen;
}

void gb_apu_fs_schedule(gb *g)
{
    int b = 13 + g->s.double_speed; /* falling edge of bit 12 (13): multiples of 2^(b) */
    uint64_t c = gb_sysclk(g, g->s.clk);
    uint64_t target = ((c >> b) + 1) << b;
    gb_sched(g, GB_EV_FS, gb_sysclk_time(g, target));
}

void gb_apu_reset(gb *g)
{
    gb_apu_state *a = &g->s.apu;
    memset(a, 0, sizeof *a);
    a->gen.t = g->s.clk;
    for (int ch = 0; ch < 4; ch++)
        a->gen.ch[ch].ctr = 1;
}

/* Sweep frequency calculation; disables channel 1 on overflow past 2047. */
static int sweep_calc(gb_apu_state *a)
{
    uint8_t r = a->reg[0x00];
    int d = a->sweep_shadow >> (r & 7);
    int nf = (r & 8) ? a->sweep_shadow - d : a->sweep_shadow + d;
    if (nf > 2047) {
        a->gen.ch[0].on = 0;
        return -1;
    }
    return nf;
}

static void trigger(gb_apu_state *a, int ch)
{
    gb_apu_gen *c = &a->gen.ch[ch];
    c->on = c->dac;
    if (a->len[ch] == 0)
        a->len[ch] = ch == 2 ? 256 : 64;
    c->period = chan_period(a, ch);
    c->ctr = c->period ? c->period : 1;
    if (ch != 2) {
        c->vol = a->reg[nrx2[ch]] >> 4;
        a->env_timer[ch] = a->reg[nrx2[ch]] & 7;
    } else {
        c->pos = 0;
    }
    if (ch == 3)
        c->lfsr = 0x7FFF;
    if (ch == 0) {
        uint8_t r = a->reg[0x00];
        a->sweep_shadow = a->freq[0];
        a->sweep_timer = ((r >> 4) & 7) ? ((r >> 4) & 7) : 8;
        a->sweep_en = ((r >> 4) & 7) || (r & 7);
        if (r & 7)
            sweep_calc(a);
    }
}

uint8_t gb_apu_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    gb_apu_state *ap = &s->apu;
    unsigned r = a - 0xFF10u;
    if (a == 0xFF76 || a == 0xFF77) {
        /* CGB PCM12/PCM34: the channels' digital outputs now. */
        gb_apu_key k = ap->gen;
        int amp[4];
        for (int ch = 0; ch < 4; ch++) {
            gb_gen_advance(&k.ch[ch], ch, s->clk - k.t, g->lfsr);
            amp[ch] = gb_gen_amp(&k.ch[ch], ch, k.wave);
        }
        return a == 0xFF76 ? (uint8_t)(amp[0] | (amp[1] << 4)) : (uint8_t)(amp[2] | (amp[3] << 4));
    }
    if (r >= 0x20) {
        /* While channel 3 plays, wave RAM reads return the byte being played (CGB
         * behaviour, used for both models). */
        if (ap->gen.ch[2].on) {
            gb_apu_gen c = ap->gen.ch[2];
            gb_gen_advance(&c, 2, s->clk - ap->gen.t, g->lfsr);
            return ap->gen.wave[c.pos >> 1];
        }
        return ap->gen.wave[r - 0x20];
    }
    if (r == 0x16) {
        uint8_t v = (uint8_t)(0x70 | (ap->power << 7));
        for (int ch = 0; ch < 4; ch++)
            if (ap->gen.ch[ch].on)
                v |= (uint8_t)(1 << ch);
        return v;
    }
    return ap->reg[r] | apu_rmask[r];
}

void gb_apu_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    gb_apu_state *ap = &s->apu;
    unsigned r = a - 0xFF10u;
    gen_sync(g, s->clk);
    if (r >= 0x20) {
        ap->reg[r] = v;
        ap->gen.wave[r - 0x20] = v;
        emit_key(g);
        return;
    }
    if (!ap->power && r != 0x16)
        return; /* registers are read-only while the APU is off */
    ap->reg[r] = v;
    gb_apu_key *k = &ap->gen;
    switch (r) {
    case 0x01: case 0x06: case 0x10: {
        int ch = r == 0x01 ? 0 : r == 0x06 ? 1 : 3;
        ap->len[ch] = (uint16_t)(64 - (v & 63));
        if (ch < 2)
            k->ch[ch].mode = v >> 6;
        break;
    }
    case 0x0B:
        ap->len[2] = (uint16_t)(256 - v);
        break;
    case 0x02: case 0x07: case 0x11: {
        int ch = r == 0x02 ? 0 : r == 0x07 ? 1 : 3;
        k->ch[ch].dac = (v & 0xF8) != 0;
        if (!k->ch[ch].dac)
            k->ch[ch].on = 0;
        break;
    }
    case 0x0A:
        k->ch[2].dac = (v & 0x80) != 0;
        if (!k->ch[2].dac)
            k->ch[2].on = 0;
        break;
    case 0x0C:
        k->ch[2].vol = (v >> 5) & 3;
        break;
    case 0x03: case 0x08: case 0x0D: {
        int ch = r == 0x03 ? 0 : r == 0x08 ? 1 : 2;
        ap->freq[ch] = (uint16_t)((ap->freq[ch] & 0x700) | v);
        set_period(ap, ch);
        break;
    }
    case 0x04: case 0x09: case 0x0E: case 0x13: {
        int ch = r == 0x04 ? 0 : r == 0x09 ? 1 : r == 0x0E ? 2 : 3;
        if (ch < 3) {
            ap->freq[ch] = (uint16_t)((ap->freq[ch] & 0xFF) | ((v & 7) << 8));
            set_period(ap, ch);
        }
        if (v & 0x80)
            trigger(ap, ch);
        break;
    }
    case 0x12:
        k->ch[3].mode = (v >> 3) & 1;
        set_period(ap, 3);
        break;
    case 0x14:
        k->nr50 = v;
        break;
    case 0x15:
        k->nr51 = v;
        break;
    case 0x16:
        if (!(v & 0x80) && ap->power) {
            /* Power off clears every register but wave RAM and stops the channels. */
            uint8_t wave[16];
            memcpy(wave, k->wave, 16);
            uint64_t t = k->t;
            memset(ap, 0, sizeof *ap);
            memcpy(ap->reg + 0x20, wave, 16);
            memcpy(k->wave, wave, 16);
            k->t = t;
            for (int ch = 0; ch < 4; ch++)
                k->ch[ch].ctr = 1;
        } else if ((v & 0x80) && !ap->power) {
            ap->power = 1;
            ap->fs_step = 0;
            k->ch[0].pos = k->ch[1].pos = 0;
        }
        ap->reg[0x16] = v & 0x80;
        break;
    default:
        break;
    }
    emit_key(g);
}

/* One frame-sequencer step at dot t. */
static void fs_step(gb *g, uint64_t t)
{
    gb_apu_state *ap = &g->s.apu;
    if (!ap->power)
        return;
    gen_sync(g, t);
    gb_apu_key before = ap->gen;
    int step = ap->fs_step;
    if (!(step & 1)) {
        for (int ch = 0; ch < 4; ch++)
            if ((ap->reg[nrx4[ch]] & 0x40) && ap->len[ch] > 0 && --ap->len[ch] == 0)
                ap->gen.ch[ch].on = 0;
    }
    if ((step == 2 || step == 6) && ap->sweep_timer > 0 && --ap->sweep_timer == 0) {
        uint8_t r = ap->reg[0x00];
        ap->sweep_timer = ((r >> 4) & 7) ? ((r >> 4) & 7) : 8;
        if (ap->sweep_en && ((r >> 4) & 7)) {
            int nf = sweep_calc(ap);
            if (nf >= 0 && (r & 7)) {
                ap->sweep_shadow = (uint16_t)nf;
                ap->freq[0] = (uint16_t)nf;
                ap->reg[0x03] = (uint8_t)nf;
                ap->reg[0x04] = (uint8_t)((ap->reg[0x04] & 0xF8) | (nf >> 8));
                set_period(ap, 0);
                sweep_calc(ap);
            }
        }
    }
    if (step == 7) {
        for (int ch = 0; ch < 4; ch++) {
            if (ch == 2)
                continue;
            uint8_t r = ap->reg[nrx2[ch]];
            if (!(r & 7) || !ap->env_timer[ch] || --ap->env_timer[ch])
                continue;
            ap->env_timer[ch] = r & 7;
            gb_apu_gen *c = &ap->gen.ch[ch];
            if ((r & 8) && c->vol < 15)
                c->vol++;
            else if (!(r & 8) && c->vol > 0)
                c->vol--;
        }
    }
    ap->fs_step = (uint8_t)((step + 1) & 7);
    if (memcmp(&before, &ap->gen, sizeof before) != 0)
        emit_key(g);
}

void gb_apu_fs_event(gb *g, uint64_t t)
{
    fs_step(g, t);
    int b = 13 + g->s.double_speed;
    uint64_t target = ((gb_sysclk(g, t) >> b) + 1) << b;
    gb_sched(g, GB_EV_FS, gb_sysclk_time(g, target));
}

/* DIV was reset at s.clk; old is the counter before. A high sequencer bit falls. */
void gb_apu_div_reset(gb *g, uint64_t old)
{
    if ((old >> (12 + g->s.double_speed)) & 1)
        fs_step(g, g->s.clk);
    gb_apu_fs_schedule(g);
}

/* The frame period ended at dot t: the keys up to t form the completed frame's audio
 * log; the new period starts with the state at t followed by any later keys. */
void gb_apu_period_switch(gb *g, uint64_t t)
{
    gb_vec *old = &g->keys[g->keys_cur];
    gb_vec *nw = &g->keys[g->keys_cur ^ 1];
    gb_apu_key *k = old->v;
    uint32_t j = gb_key_find(k, old->n, t);
    nw->n = 0;
    gb_apu_key *first = gb_vec_push(nw, sizeof *first);
    *first = k[j];
    for (int ch = 0; ch < 4; ch++)
        gb_gen_advance(&first->ch[ch], ch, t - first->t, g->lfsr);
    first->t = t;
    for (uint32_t i = j + 1; i < old->n; i++)
        *(gb_apu_key *)gb_vec_push(nw, sizeof *first) = ((gb_apu_key *)old->v)[i];
    old->n = j + 1;
    uint64_t k1 = gb_sample_first_at(t);
    g->alog.k0 = g->s.sample_k;
    g->alog.n = (uint32_t)(k1 - g->s.sample_k);
    g->alog.nkeys = old->n;
    g->alog.keys = old->v;
    g->s.sample_k = k1;
    g->keys_cur ^= 1;
}
