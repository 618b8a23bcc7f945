/* gb_aout.c: audio synthesis from the core's keyframes. The native synthesiser walks the
 * samples in order and steps each channel's generator dot by dot between them; the block
 * synthesiser evaluates every event-free span independently in closed form
 * (gb_apu_sample), which is what the host threads and the device parallelise. Both feed
 * the same integer high-pass filter, so their streams must hash alike. Also the LFSR
 * jump tables. */
#include <stdlib.h>
#include <string.h>

#include "emu/gb/gb_host.h"
#include "emu/gb/gb_int.h"

/* Applies the one-step matrix (given as the images of the 15 unit vectors) to s. */
static uint16_t mat_apply(const uint16_t *cols, uint16_t s)
{
    uint16_t r = 0;
    for (int j = 0; j < 15; j++)
        if ((s >> j) & 1)
            r ^= cols[j];
    return r;
}

void gb_lfsr_jump_init(gb_lfsr_jump *J)
{
    for (int w = 0; w < 2; w++) {
        uint16_t cols[15], next[15];
        for (int j = 0; j < 15; j++)
            cols[j] = gb_lfsr_step((uint16_t)(1u << j), w);
        for (int i = 0; i < GB_LFSR_POW; i++) {
            /* cols is the matrix of 2^i steps: tabulate it by byte. */
            for (int v = 0; v < 256; v++)
                J->t[w][i][v] = mat_apply(cols, (uint16_t)v);
            for (int v = 0; v < 128; v++)
                J->t[w][i][256 + v] = mat_apply(cols, (uint16_t)(v << 8));
            for (int j = 0; j < 15; j++)
                next[j] = mat_apply(cols, cols[j]);
            memcpy(cols, next, sizeof cols);
        }
    }
}

/* Charge factor of the output capacitor per 48 kHz sample, Q16: the per-dot factor
 * 0.999958 (DMG) or 0.998943 (CGB) raised to 4194304/48000, rounded. */
int32_t gb_hpf_charge(int cgb)
{
    return cgb ? 59751 : 65296;
}

/* Steps one generator through dt dots, one waveform step at a time (the wave channel
 * reads each new sample into its buffer, a square channel latches its duty bit). */
static inline __attribute__((always_inline)) void gen_walk(gb_apu_gen *c, int ch, uint64_t dt, const uint8_t *wave)
{
    if (!c->on || !c->period)
        return;
    while (dt >= c->ctr) {
        dt -= c->ctr;
        c->ctr = c->period;
        if (ch == 3) {
            c->lfsr = gb_lfsr_step(c->lfsr, c->mode);
        } else if (ch == 2) {
            c->pos = (uint8_t)((c->pos + 1) & 31);
            c->buf = (uint8_t)gb_wave_nibble(wave, c->pos);
        } else {
            c->pos = (uint8_t)((c->pos + 1) & 7);
            c->buf = (uint8_t)gb_duty_bit(c->mode, c->pos);
        }
    }
    c->ctr -= (uint32_t)dt;
}

/* Mixing weights of the state in k: per channel, what one unit of DAC output adds to the
 * left and right sums (NR51 routing times NR50 volume + 1, times 32), and the constant
 * part of the mix from the channels whose output cannot change (off, DAC on or off). */
typedef struct {
    int wl[4], wr[4];
    int base_l, base_r;
    int active[4], nactive;
} mix_plan;

static void plan_mix(const gb_apu_key *k, mix_plan *m)
{
    int vl = (((k->nr5x[0] >> 4) & 7) + 1) * 32, vr = ((k->nr5x[0] & 7) + 1) * 32;
    m->base_l = m->base_r = 0;
    m->nactive = 0;
    for (int ch = 0; ch < 4; ch++) {
        m->wl[ch] = (k->nr5x[1] & (0x10 << ch)) ? vl : 0;
        m->wr[ch] = (k->nr5x[1] & (0x01 << ch)) ? vr : 0;
        if (k->ch[ch].on) { /* on implies a powered DAC */
            m->active[m->nactive++] = ch;
        } else if (k->ch[ch].dac) { /* DAC on, channel off: output 0 -> -15 */
            m->base_l -= 15 * m->wl[ch];
            m->base_r -= 15 * m->wr[ch];
        }
    }
}

/* One playing channel over a chunk of samples: its generator is walked step by step from
 * one sample's dot to the next (dt[i] dots before sample i) and its DAC output, weighted,
 * is added to the sums. ch is a constant wherever this is inlined, so each channel kind
 * gets its own loop. */
static inline __attribute__((always_inline)) void chan_chunk(gb_apu_gen *c, int ch, const uint8_t *wave,
                                                             const uint64_t *dt, int n, int wl, int wr, int *L,
                                                             int *R)
{
    for (int i = 0; i < n; i++) {
        gen_walk(c, ch, dt[i], wave);
        int v = 2 * gb_gen_amp(c, ch) - 15;
        L[i] += v * wl;
        R[i] += v * wr;
    }
}

/* Sequential synthesis, key span by key span and channel by channel: between keyframes
 * each playing channel's generator is walked step by step from one sample's dot to the
 * next. Equal to gb_apu_sample (closed form) sample for sample; the sums are split by
 * channel, which integer arithmetic allows. */
void gb_audio_native(const gb_audio_log *al, int16_t *lr)
{
    enum { CHUNK = 256 };
    uint64_t end = al->k0 + al->n;
    for (uint32_t j = 0; j < al->nkeys; j++) {
        /* samples of key j: from its dot (key 0 also covers the frame's first ones) to the next key's */
        uint64_t kb = j ? gb_sample_first_at(al->keys[j].t) : al->k0;
        uint64_t ke = j + 1 < al->nkeys ? gb_sample_first_at(al->keys[j + 1].t) : end;
        if (kb < al->k0)
            kb = al->k0;
        if (ke > end)
            ke = end;
        if (kb >= ke)
            continue;
        gb_apu_key cur = al->keys[j];
        mix_plan m;
        plan_mix(&cur, &m);
        uint64_t ct = cur.t;
        for (uint64_t k = kb; k < ke; k += CHUNK) {
            int n = (int)(ke - k < CHUNK ? ke - k : CHUNK);
            uint64_t dt[CHUNK];
            int L[CHUNK], R[CHUNK];
            for (int i = 0; i < n; i++) {
                uint64_t t = gb_sample_time(k + (uint64_t)i);
                dt[i] = t - ct;
                ct = t;
                L[i] = m.base_l;
                R[i] = m.base_r;
            }
            for (int a = 0; a < m.nactive; a++) {
                int ch = m.active[a];
                gb_apu_gen *c = &cur.ch[ch];
                switch (ch) {
                case 0: chan_chunk(c, 0, cur.wave, dt, n, m.wl[0], m.wr[0], L, R); break;
                case 1: chan_chunk(c, 1, cur.wave, dt, n, m.wl[1], m.wr[1], L, R); break;
                case 2: chan_chunk(c, 2, cur.wave, dt, n, m.wl[2], m.wr[2], L, R); break;
                default: chan_chunk(c, 3, cur.wave, dt, n, m.wl[3], m.wr[3], L, R); break;
                }
            }
            int16_t *o = lr + 2 * (k - al->k0);
            for (int i = 0; i < n; i++) {
                o[2 * i] = (int16_t)L[i];
                o[2 * i + 1] = (int16_t)R[i];
            }
        }
    }
}

void gb_audio_block_span(const gb_audio_log *al, const gb_lfsr_jump *J, uint32_t j, int16_t *lr)
{
    const gb_apu_key *k = &al->keys[j];
    uint64_t end = al->k0 + al->n;
    uint64_t kb = gb_sample_first_at(k->t);
    uint64_t ke = j + 1 < al->nkeys ? gb_sample_first_at(al->keys[j + 1].t) : end;
    if (kb < al->k0)
        kb = al->k0;
    if (ke > end)
        ke = end;
    for (uint64_t n = kb; n < ke; n++) {
        uint64_t i = n - al->k0;
        gb_apu_sample(k, gb_sample_time(n), J, &lr[2 * i], &lr[2 * i + 1]);
    }
}

void gb_audio_block(const gb_audio_log *al, const gb_lfsr_jump *J, int16_t *lr)
{
    for (uint32_t j = 0; j < al->nkeys; j++)
        gb_audio_block_span(al, J, j, lr);
}

void gb_hpf_run(int32_t cap[2], int32_t charge, int16_t *lr, int n)
{
    for (int i = 0; i < n; i++) {
        lr[2 * i] = gb_hpf_step(&cap[0], lr[2 * i], charge);
        lr[2 * i + 1] = gb_hpf_step(&cap[1], lr[2 * i + 1], charge);
    }
}
