/* nes_audio.h: the sound rules of the NES APU (2A03), written once for the native audio
 * path (in the core, sample by sample) and the block renderers (host threads and device
 * over the frame's spans). The audible state of the five channels between two changes is a
 * nes_osc; its output is summed over CPU cycles exactly, in integers, so every path gives
 * the same sample stream. Recurrent filters are not here: they run on the host (nes_aout.c). */
#ifndef GV_EMU_NES_NES_AUDIO_H
#define GV_EMU_NES_NES_AUDIO_H

#include <stdint.h>

#include "dev/gpu_common.h" /* GV_INLINE */
#include "emu/common/emu_search.h"

/* The console's regions (docs/NES.md "Regions"): NTSC (2A03 CPU, 2C02 PPU), PAL (2A07,
 * 2C07) and Dendy (the Russian famiclone: PAL's frame, NTSC's CPU/PPU ratio and APU). */
enum { NES_REGION_NTSC = 0, NES_REGION_PAL = 1, NES_REGION_DENDY = 2 };

/* Output sample rate and its clock: sample n ends at CPU cycle floor(n * num / den), the
 * region's CPU clock over 48000: NTSC 236.25 MHz / 11 / 12 (13125 / 352), PAL
 * 26.6017125 MHz / 16 (709379 / 20480), Dendy 26.6017125 MHz / 15 (709379 / 19200). */
#define NES_AUDIO_HZ 48000

GV_INLINE uint64_t nes_sample_end(int region, uint64_t n)
{
    switch (region) {
    case NES_REGION_PAL: return n * 709379u / 20480u;
    case NES_REGION_DENDY: return n * 709379u / 19200u;
    default: return n * 13125u / 352u;
    }
}

/* Index of the first sample whose end cycle is >= c. */
GV_INLINE uint64_t nes_sample_at_or_after(int region, uint64_t c)
{
    switch (region) {
    case NES_REGION_PAL: return (c * 20480u + 709379u - 1) / 709379u;
    case NES_REGION_DENDY: return (c * 19200u + 709379u - 1) / 709379u;
    default: return (c * 352u + 13125u - 1) / 13125u;
    }
}

/* Audible state of the channels from cycle t0 (frame-relative) until the next change.
 * Channel c steps at next[c], next[c] + per[c], ... (c: pulse 1, pulse 2, triangle, noise,
 * DMC output unit). 64 bytes, plain data, copied into frame logs as a span. */
typedef struct {
    uint32_t t0;
    uint32_t next[5];
    uint32_t per[5];
    uint16_t lfsr;     /* noise shift register (15 bits) */
    uint8_t pos[3];    /* pulse duty step 0-7 (x2), triangle step 0-31 */
    uint8_t duty[2];   /* pulse duty 0-3 */
    uint8_t vol[2];    /* pulse volume 0-15; 0 when the length counter or sweep silences it */
    uint8_t tri_run;   /* triangle sequencer clocked: length and linear counters non-zero */
    uint8_t nvol;      /* noise volume 0-15; 0 when its length counter is 0 */
    uint8_t nmode;     /* noise short mode: feedback from bit 6 instead of bit 1 */
    uint8_t dshift;    /* DMC output shift register */
    uint8_t dsilent;   /* DMC silence flag */
    uint8_t dlevel;    /* DMC output level 0-127 */
    uint8_t spare[5];
} nes_osc;

/* Mixer tables (integer, 1.0 = 65536) and the noise jump matrices. Built by
 * nes_atab_init() (nes_aout.c) and shared read-only by every renderer. */
#define NES_JUMP_BITS 20
typedef struct {
    uint32_t pulse[31];  /* 95.52 / (8128 / n + 100) */
    uint32_t tnd[203];   /* 163.67 / (24329 / n + 100), n = 3 tri + 2 noise + dmc */
    uint16_t jump[2][NES_JUMP_BITS][15]; /* columns of M^(2^i) for the two feedback taps */
    /* expansion sound chips (nes_xaudio.h): the Sunsoft 5B's level table and the columns
     * of its 17-bit noise register's M^(2^i) */
    uint32_t x5b_level[32];
    uint32_t x5b_jump[NES_JUMP_BITS][17];
    uint32_t xvrc6_step; /* one step of the VRC6's DAC: pulse[15] / 15 (nes_vrc6.h) */
    uint32_t xmmc5_pcm_step; /* one step of the MMC5's PCM DAC: tnd[127] / 127 (nes_mmc5.h) */
    /* the VRC7 (nes_vrc7.h, nes_vrc7.c): its log-sin and exponent tables, computed from their
     * definitions at start-up, and a level step in mixer units x 4096 */
    uint16_t xvrc7_logsin[256], xvrc7_exp[256];
    uint32_t xvrc7_mul;
} nes_atab;

/* Pulse duty waveforms 12.5%, 25%, 50%, 25% negated, as bit 7-pos of a byte. */
GV_INLINE int nes_pulse_bit(int duty, int pos)
{
    return (int)((0x9F786040u >> (duty * 8)) >> (7 - pos)) & 1;
}

/* Triangle output: 15, 14, ..., 0, 0, 1, ..., 15. */
GV_INLINE int nes_tri_out(int pos)
{
    return pos < 16 ? 15 - pos : pos - 16;
}

/* One step of the noise shift register: feedback = bit 0 xor bit 1 (or bit 6). */
GV_INLINE uint16_t nes_lfsr_step(uint16_t s, int mode)
{
    int fb = (s ^ (s >> (mode ? 6 : 1))) & 1;
    return (uint16_t)((s >> 1) | (fb << 14));
}

/* k steps of the noise register at once through the precomputed matrix powers. */
GV_INLINE uint16_t nes_lfsr_jump(const nes_atab *tab, uint16_t s, uint32_t k, int mode)
{
    while (k) {
        uint32_t part = k & ((1u << NES_JUMP_BITS) - 1);
        if (!part)
            part = 1u << (NES_JUMP_BITS - 1); /* k >= 2^20: take it in halves of the top power */
        k -= part;
        for (int i = 0; i < NES_JUMP_BITS; i++) {
            if (!((part >> i) & 1))
                continue;
            uint16_t o = 0;
            for (int j = 0; j < 15; j++)
                if ((s >> j) & 1)
                    o ^= tab->jump[mode][i][j];
            s = o;
        }
    }
    return s;
}

/* One DMC output-unit clock: with the silence flag clear the next bit moves the level by +-2
 * when it stays inside 0..127; the shift register moves either way. */
GV_INLINE void nes_dmc_clock(nes_osc *o)
{
    if (!o->dsilent) {
        if (o->dshift & 1) {
            if (o->dlevel <= 125)
                o->dlevel += 2;
        } else if (o->dlevel >= 2) {
            o->dlevel -= 2;
        }
    }
    o->dshift >>= 1;
}

/* k DMC clocks at once: after eight clocks the register is empty and each further clock
 * (a 0 bit) lowers the level by 2 while it is at least 2. */
GV_INLINE void nes_dmc_clocks(nes_osc *o, uint32_t k)
{
    uint32_t i = 0;
    for (; i < k && i < 8; i++)
        nes_dmc_clock(o);
    if (i < k && !o->dsilent) {
        uint32_t n = k - i, half = o->dlevel / 2u;
        o->dlevel = (uint8_t)(o->dlevel - 2 * (n < half ? n : half));
    }
}

/* Applies the `k` steps of channel c. */
GV_INLINE void nes_osc_steps(const nes_atab *tab, nes_osc *o, int c, uint32_t k)
{
    switch (c) {
    case 0:
    case 1:
        o->pos[c] = (uint8_t)((o->pos[c] + k) & 7);
        break;
    case 2:
        if (o->tri_run)
            o->pos[2] = (uint8_t)((o->pos[2] + k) & 31);
        break;
    case 3:
        if (k <= 24) {
            for (uint32_t i = 0; i < k; i++)
                o->lfsr = nes_lfsr_step(o->lfsr, o->nmode);
        } else {
            o->lfsr = nes_lfsr_jump(tab, o->lfsr, k, o->nmode);
        }
        break;
    default:
        nes_dmc_clocks(o, k);
        break;
    }
}

/* Channels whose steps change the output (the others hold a constant output): bit c. */
GV_INLINE int nes_osc_live(const nes_osc *o)
{
    return (o->vol[0] ? 1 : 0) | (o->vol[1] ? 2 : 0) | (o->tri_run ? 4 : 0) | (o->nvol ? 8 : 0) |
           (!o->dsilent ? 16 : 0);
}

/* Applies every step of the channels in `which` due at or before cycle t (closed form). */
GV_INLINE void nes_osc_advance_some(const nes_atab *tab, nes_osc *o, uint32_t t, int which)
{
    for (int c = 0; c < 5; c++) {
        if (!((which >> c) & 1) || o->next[c] > t)
            continue;
        uint32_t k = (t - o->next[c]) / o->per[c] + 1;
        o->next[c] += k * o->per[c];
        nes_osc_steps(tab, o, c, k);
    }
}

/* Applies every step due at or before cycle t, on every channel. */
GV_INLINE void nes_osc_advance(const nes_atab *tab, nes_osc *o, uint32_t t)
{
    nes_osc_advance_some(tab, o, t, 31);
}

/* Mixer output for the current state (non-linear, via the tables). */
GV_INLINE uint32_t nes_osc_mix(const nes_atab *tab, const nes_osc *o)
{
    int p = (nes_pulse_bit(o->duty[0], o->pos[0]) ? o->vol[0] : 0) +
            (nes_pulse_bit(o->duty[1], o->pos[1]) ? o->vol[1] : 0);
    int n = (o->lfsr & 1) ? 0 : o->nvol;
    return tab->pulse[p] + tab->tnd[3 * nes_tri_out(o->pos[2]) + 2 * n + o->dlevel];
}

/* The live channels (nes_osc_live) as a list: live[0..n), n returned. */
GV_INLINE int nes_osc_live_list(const nes_osc *o, int *live)
{
    int nl = 0, mask = nes_osc_live(o);
    for (int c = 0; c < 5; c++)
        if ((mask >> c) & 1)
            live[nl++] = c;
    return nl;
}

/* The cycle of the first step among the nl live channels, or lim when none comes before. */
GV_INLINE uint32_t nes_osc_next_step(const nes_osc *o, const int *live, int nl, uint32_t lim)
{
    uint32_t m = lim;
    for (int i = 0; i < nl; i++)
        if (o->next[live[i]] < m)
            m = o->next[live[i]];
    return m;
}

/* Applies the steps of the live channels due at cycle m (their next step); returns the new
 * mixer output. */
GV_INLINE uint32_t nes_osc_step_at(const nes_atab *tab, nes_osc *o, const int *live, int nl, uint32_t m)
{
    for (int i = 0; i < nl; i++) {
        int c = live[i];
        if (o->next[c] == m) {
            o->next[c] += o->per[c];
            nes_osc_steps(tab, o, c, 1);
        }
    }
    return nes_osc_mix(tab, o);
}

/* Sum of the mixer output over cycles [a, b). Only the live channels (nes_osc_live) are
 * walked, step by step; the others keep a constant output and are left where they are.
 * Precondition: the live channels' steps due at or before a are applied; on return those
 * due at or before b are. */
GV_INLINE uint64_t nes_osc_integrate(const nes_atab *tab, nes_osc *o, uint32_t a, uint32_t b)
{
    int live[5], nl = nes_osc_live_list(o, live);
    uint64_t sum = 0;
    uint32_t t = a;
    uint32_t out = nes_osc_mix(tab, o);
    for (;;) {
        uint32_t m = nes_osc_next_step(o, live, nl, b);
        sum += (uint64_t)out * (m - t);
        if (m >= b)
            break;
        t = m;
        out = nes_osc_step_at(tab, o, live, nl, m);
    }
    nes_osc_advance_some(tab, o, b, nes_osc_live(o));
    return sum;
}

/* The sums of nes_osc_integrate over [a, cut[0]), [cut[0], cut[1]), ..., [cut[ncut - 1], b)
 * into piece[0..ncut] (a <= cut[0] <= ... <= cut[ncut - 1] <= b), in one walk: the live
 * channels are found and the mixer read once for the whole interval, not once per piece
 * (the native audio path cuts at every sample end, some 37 cycles apart). Same
 * precondition and result on o as nes_osc_integrate(tab, o, a, b). */
GV_INLINE void nes_osc_integrate_cut(const nes_atab *tab, nes_osc *o, uint32_t a, uint32_t b,
                                     const uint32_t *cut, uint32_t ncut, uint64_t *piece)
{
    int live[5], nl = nes_osc_live_list(o, live);
    uint64_t sum = 0;
    uint32_t t = a, k = 0;
    uint32_t out = nes_osc_mix(tab, o);
    for (;;) {
        uint32_t lim = k < ncut ? cut[k] : b, m = nes_osc_next_step(o, live, nl, lim);
        sum += (uint64_t)out * (m - t);
        t = m;
        if (m == lim) { /* a piece ends (its steps at m, if any, on the next turn) */
            piece[k] = sum;
            sum = 0;
            if (k == ncut)
                break;
            k++;
            continue;
        }
        out = nes_osc_step_at(tab, o, live, nl, m);
    }
    nes_osc_advance_some(tab, o, b, nes_osc_live(o));
}

/* sum = the sum over [a, b) of a frame whose audible states are span[0..n) (span[0].t0 ==
 * 0, increasing t0), each valid until the next one starts: from the last span starting at
 * or before a, each span's state is moved on to the piece with ADVANCE(tab, &o, t) and
 * summed with INTEGRATE(tab, &o, from, to). Shared by the APU's spans and the expansion
 * chips' (nes_xaudio.h); used by the block renderers for one piece. */
#define NES_SPANS_SUM(sum, tab, span, n, a, b, type, ADVANCE, INTEGRATE)                        \
    do {                                                                                        \
        uint32_t first_;                                                                        \
        EMU_FIND_LAST_LE(first_, span, n, t0, a);                                               \
        uint32_t t_ = (a);                                                                      \
        for (uint32_t s_ = first_; s_ < (n) && t_ < (b); s_++) {                                   \
            type o_ = (span)[s_];                                                               \
            uint32_t end_ = (s_ + 1 < (n) && (span)[s_ + 1].t0 < (b)) ? (span)[s_ + 1].t0 : (b); \
            if (t_ > o_.t0)                                                                     \
                ADVANCE(tab, &o_, t_);                                                          \
            if (end_ > t_)                                                                      \
                (sum) += INTEGRATE(tab, &o_, t_, end_);                                         \
            t_ = end_;                                                                          \
        }                                                                                       \
    } while (0)

/* Moves the live channels of o to t (the others hold a constant output). */
GV_INLINE void nes_osc_advance_live(const nes_atab *tab, nes_osc *o, uint32_t t)
{
    nes_osc_advance_some(tab, o, t, nes_osc_live(o));
}

/* Sum over [a, b) of the frame whose spans are span[0..n). */
GV_INLINE uint64_t nes_spans_integrate(const nes_atab *tab, const nes_osc *span, uint32_t n,
                                       uint32_t a, uint32_t b)
{
    uint64_t sum = 0;
    NES_SPANS_SUM(sum, tab, span, n, a, b, nes_osc, nes_osc_advance_live, nes_osc_integrate);
    return sum;
}

#endif
