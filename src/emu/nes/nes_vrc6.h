/* nes_vrc6.h: the sound rules of Konami's VRC6 (the NESdev wiki's "VRC6 audio"), written once
 * for every audio path like the APU's in nes_audio.h. Two pulse channels and a sawtooth,
 * each with a 12-bit period F: a channel's divider steps it every F + 1 CPU cycles ($9003
 * can shift F right by 4 or 8, or halt every channel). A pulse takes 16 steps per period and
 * outputs its 4-bit volume while its step is at or below the duty D (3 bits; mode bit 7:
 * always); disabled, it outputs 0 and restarts. The saw takes 14 steps: on every second step
 * its 8-bit accumulator adds the rate A (6 bits), the 14th clears it; it outputs the
 * accumulator's high 5 bits. The three outputs add in a linear 6-bit DAC; a pulse at volume
 * 15 sounds as loud as an APU pulse at volume 15 (the wiki's mixing note), so one DAC step
 * is the APU pulse table's entry 15 over 15 (the VRC6's inverted polarity is not kept: the
 * output filters make it inaudible). Integers only. Plain C, __host__ __device__ under
 * nvcc/hipcc. */
#ifndef GV_EMU_NES_NES_VRC6_H
#define GV_EMU_NES_NES_VRC6_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"

/* The audible state from one register write to the next: channels 0-1 the pulses, 2 the
 * saw; each steps at next[c], next[c] + per[c], ... (frame-relative CPU cycles). */
typedef struct {
    uint32_t next[3];
    uint32_t per[3];
    uint8_t pos[3];   /* pulse: step 15..0 (counting down); saw: step 0..13 */
    uint8_t ctrl[2];  /* pulse $x000: mode, duty, volume */
    uint8_t rate;     /* saw $B000: accumulator rate (6 bits) */
    uint8_t on;       /* bit c: channel c enabled ($x002 bit 7) */
    uint8_t halt;     /* $9003 bit 0: every channel holds */
    uint8_t spare[3];
} nes_vrc6_osc;

/* The output of channel c now, in DAC steps. */
GV_INLINE int nes_vrc6_out(const nes_vrc6_osc *o, int c)
{
    if (!((o->on >> c) & 1))
        return 0;
    if (c == 2)
        return (((o->pos[2] >> 1) * o->rate) & 0xFF) >> 3;
    int v = o->ctrl[c] & 15, duty = (o->ctrl[c] >> 4) & 7;
    return ((o->ctrl[c] & 0x80) || o->pos[c] <= duty) ? v : 0;
}

/* Channels whose steps change the output now (bit c). */
GV_INLINE int nes_vrc6_live(const nes_vrc6_osc *o)
{
    if (o->halt)
        return 0;
    int live = 0;
    for (int c = 0; c < 2; c++)
        if (((o->on >> c) & 1) && !(o->ctrl[c] & 0x80) && (o->ctrl[c] & 15))
            live |= 1 << c;
    if (((o->on >> 2) & 1) && o->rate)
        live |= 4;
    return live;
}

GV_INLINE uint32_t nes_vrc6_mix(const nes_atab *tab, const nes_vrc6_osc *o)
{
    return (uint32_t)(nes_vrc6_out(o, 0) + nes_vrc6_out(o, 1) + nes_vrc6_out(o, 2)) * tab->xvrc6_step;
}

/* k steps of channel c. */
GV_INLINE void nes_vrc6_steps(nes_vrc6_osc *o, int c, uint32_t k)
{
    if (c < 2)
        o->pos[c] = (uint8_t)((o->pos[c] + 16u - k % 16u) % 16u);
    else
        o->pos[2] = (uint8_t)((o->pos[2] + k) % 14u);
}

/* Applies every step of the channels in `which` due at or before cycle t (none while
 * halted or disabled: their dividers hold). */
GV_INLINE void nes_vrc6_advance_some(nes_vrc6_osc *o, uint32_t t, int which)
{
    for (int c = 0; c < 3; c++) {
        if (!((which >> c) & 1) || o->next[c] > t)
            continue;
        uint32_t k = (t - o->next[c]) / o->per[c] + 1;
        o->next[c] += k * o->per[c];
        if (!o->halt && ((o->on >> c) & 1))
            nes_vrc6_steps(o, c, k);
    }
}

/* Sum of the output over cycles [a, b), walking the live channels step by step. */
GV_INLINE uint64_t nes_vrc6_integrate(const nes_atab *tab, nes_vrc6_osc *o, uint32_t a, uint32_t b)
{
    int mask = nes_vrc6_live(o);
    uint64_t sum = 0;
    uint32_t t = a, out = nes_vrc6_mix(tab, o);
    for (;;) {
        uint32_t m = b;
        for (int c = 0; c < 3; c++)
            if (((mask >> c) & 1) && o->next[c] < m)
                m = o->next[c];
        sum += (uint64_t)out * (m - t);
        if (m >= b)
            break;
        t = m;
        for (int c = 0; c < 3; c++)
            if (((mask >> c) & 1) && o->next[c] == m) {
                o->next[c] += o->per[c];
                nes_vrc6_steps(o, c, 1);
            }
        out = nes_vrc6_mix(tab, o);
    }
    nes_vrc6_advance_some(o, b, 7);
    return sum;
}

/* The state's register parts from the chip's registers r: r[0..2] pulse 1 ($9000-$9002),
 * r[3..5] pulse 2, r[6..8] the saw, r[9] $9003. A channel being disabled restarts it. */
GV_INLINE void nes_vrc6_regs(nes_vrc6_osc *o, const uint8_t *r)
{
    int shift = (r[9] & 4) ? 8 : (r[9] & 2) ? 4 : 0;
    o->halt = r[9] & 1;
    o->on = 0;
    for (int c = 0; c < 3; c++) {
        uint32_t f = (uint32_t)r[3 * c + 1] | (uint32_t)(r[3 * c + 2] & 15) << 8;
        o->per[c] = (f >> shift) + 1u;
        if (r[3 * c + 2] & 0x80)
            o->on |= (uint8_t)(1 << c);
        else
            o->pos[c] = c < 2 ? 15 : 0;
    }
    o->ctrl[0] = r[0];
    o->ctrl[1] = r[3];
    o->rate = r[6] & 0x3F;
}

/* After a period write at cycle t: a channel whose new period is shorter than its remaining
 * wait steps one new period from t. */
GV_INLINE void nes_vrc6_retime(nes_vrc6_osc *o, uint32_t t)
{
    for (int c = 0; c < 3; c++)
        if (o->next[c] > t + o->per[c])
            o->next[c] = t + o->per[c];
}

#endif
