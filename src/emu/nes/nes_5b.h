/* nes_5b.h: the sound rules of the Sunsoft 5B (the FME-7 with a Yamaha YM2149F inside; the
 * NESdev wiki's "Sunsoft 5B audio"), written once for every audio path like the APU's in
 * nes_audio.h. Three square-wave tones, one noise generator and one envelope generator,
 * shared by the channels through the mixer register. The chip divides the CPU clock by 2
 * before the YM2149F's own /16: a tone's output flips every 16 x period CPU cycles (tone
 * frequency = clock / (32 x period)), the 17-bit noise register steps every 32 x period
 * cycles, the envelope takes one of its 32 steps every 16 x period cycles; a period of 0
 * acts as 1. A channel sounds when (tone or tone disabled) and (noise or noise disabled),
 * at a 5-bit level: 2 v + 1 for register volume v (0 silent), or the envelope's. Levels
 * are logarithmic, 1.5 dB a step; the three channels add. Integers only, so every path
 * gives the same sums. Plain C, __host__ __device__ under nvcc/hipcc. */
#ifndef GV_EMU_NES_NES_5B_H
#define GV_EMU_NES_NES_5B_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"

/* The audible state from one register write to the next. Units 0-2 are the tones, 3 the
 * noise, 4 the envelope; each steps at next[u], next[u] + per[u], ... (frame-relative CPU
 * cycles). */
typedef struct {
    uint32_t next[5];
    uint32_t per[5];
    uint32_t lfsr;    /* noise shift register (17 bits) */
    uint8_t tone;     /* the three tone outputs, bit c */
    uint8_t mixer;    /* register 7: bits 0-2 tone disable, 3-5 noise disable */
    uint8_t vol[3];   /* registers 8-10: bit 4 envelope, bits 0-3 volume */
    uint8_t shape;    /* register 13: continue, attack, alternate, hold */
    uint8_t env_pos;  /* step 0-31 of the current ramp */
    uint8_t env_up;   /* the ramp rises */
    uint8_t env_hold; /* the envelope has stopped: 0 running, else 1 + the level held */
    uint8_t spare[3];
} nes_5b_osc;

/* The output of one channel at 5-bit level n (1.0 = 65536, as the APU mixer's tables):
 * level 31 equals one APU pulse channel at volume 15 (the 5B's mix level relative to the
 * APU is not documented: a chosen constant), each step below 1.5 dB (x 0.841395) less. */
GV_INLINE void nes_5b_levels(uint32_t *level)
{
    uint64_t v = 9792ull << 20;
    for (int n = 31; n >= 1; n--) {
        level[n] = (uint32_t)((v + (1u << 19)) >> 20);
        v = v * 841395u / 1000000u;
    }
    level[0] = 0;
}

/* One step of the noise register: feedback = bit 0 xor bit 3 into bit 16. */
GV_INLINE uint32_t nes_5b_lfsr_step(uint32_t s)
{
    return (s >> 1) | (((s ^ (s >> 3)) & 1u) << 16);
}

/* k steps of the noise register through the matrix powers jump[i] = M^(2^i) (columns). */
GV_INLINE uint32_t nes_5b_lfsr_jump(const uint32_t (*jump)[17], uint32_t s, uint32_t k)
{
    while (k) {
        uint32_t part = k & ((1u << NES_JUMP_BITS) - 1);
        if (!part)
            part = 1u << (NES_JUMP_BITS - 1);
        k -= part;
        for (int i = 0; i < NES_JUMP_BITS; i++) {
            if (!((part >> i) & 1))
                continue;
            uint32_t o = 0;
            for (int j = 0; j < 17; j++)
                if ((s >> j) & 1)
                    o ^= jump[i][j];
            s = o;
        }
    }
    return s;
}

/* The envelope's current 5-bit level. */
GV_INLINE int nes_5b_env_level(const nes_5b_osc *o)
{
    if (o->env_hold)
        return o->env_hold - 1;
    return o->env_up ? o->env_pos : 31 - o->env_pos;
}

/* k envelope steps at once. At the end of a ramp: without "continue" the level drops to 0
 * and stays; with "hold" it stays at the ramp's end level, flipped by "alternate"; else a
 * new ramp starts, in the other direction with "alternate". */
GV_INLINE void nes_5b_env_steps(nes_5b_osc *o, uint32_t k)
{
    if (o->env_hold || !k)
        return;
    uint32_t left = 32u - o->env_pos;
    if (k < left) {
        o->env_pos = (uint8_t)(o->env_pos + k);
        return;
    }
    int cont = (o->shape >> 3) & 1, alt = (o->shape >> 1) & 1, hold = o->shape & 1;
    if (!cont) {
        o->env_hold = 1;
        return;
    }
    if (hold) {
        o->env_hold = (uint8_t)(1 + (((o->env_up ^ alt) & 1) ? 31 : 0));
        return;
    }
    uint32_t rest = k - left;
    if (alt)
        o->env_up ^= (uint8_t)((1u + rest / 32u) & 1u);
    o->env_pos = (uint8_t)(rest % 32u);
}

/* Applies the k steps of unit u. */
GV_INLINE void nes_5b_steps(const nes_atab *tab, nes_5b_osc *o, int u, uint32_t k)
{
    if (u < 3) {
        o->tone ^= (uint8_t)((k & 1u) << u);
    } else if (u == 4) {
        nes_5b_env_steps(o, k);
    } else if (k <= 24) {
        for (uint32_t i = 0; i < k; i++)
            o->lfsr = nes_5b_lfsr_step(o->lfsr);
    } else {
        o->lfsr = nes_5b_lfsr_jump(tab->x5b_jump, o->lfsr, k);
    }
}

/* The level of channel c now. */
GV_INLINE int nes_5b_level(const nes_5b_osc *o, int c)
{
    int v = o->vol[c];
    return (v & 0x10) ? nes_5b_env_level(o) : (v & 15) ? 2 * (v & 15) + 1 : 0;
}

/* Units whose steps change the output now (bit u). */
GV_INLINE int nes_5b_live(const nes_5b_osc *o)
{
    int live = 0;
    for (int c = 0; c < 3; c++) {
        int audible = (o->vol[c] & 0x10) || (o->vol[c] & 15);
        if (!audible)
            continue;
        if (!((o->mixer >> c) & 1))
            live |= 1 << c;
        if (!((o->mixer >> (3 + c)) & 1))
            live |= 8;
        if (o->vol[c] & 0x10)
            live |= 16;
    }
    if (o->env_hold)
        live &= ~16;
    return live;
}

/* The chip's output now: the channels' levels through the DAC table, added. */
GV_INLINE uint32_t nes_5b_mix(const nes_atab *tab, const nes_5b_osc *o)
{
    uint32_t out = 0;
    int noise = (int)(o->lfsr & 1u);
    for (int c = 0; c < 3; c++) {
        int t = ((o->tone >> c) & 1) | ((o->mixer >> c) & 1);
        int n = noise | ((o->mixer >> (3 + c)) & 1);
        if (t & n)
            out += tab->x5b_level[nes_5b_level(o, c)];
    }
    return out;
}

/* Applies every step of the units in `which` due at or before cycle t. */
GV_INLINE void nes_5b_advance_some(const nes_atab *tab, nes_5b_osc *o, uint32_t t, int which)
{
    for (int u = 0; u < 5; u++) {
        if (!((which >> u) & 1) || o->next[u] > t)
            continue;
        uint32_t k = (t - o->next[u]) / o->per[u] + 1;
        o->next[u] += k * o->per[u];
        nes_5b_steps(tab, o, u, k);
    }
}

/* Sum of the output over cycles [a, b), walking the live units step by step (the others
 * hold the output and are moved on in closed form at the end). The live units' steps due
 * at or before a must be applied. */
GV_INLINE uint64_t nes_5b_integrate(const nes_atab *tab, nes_5b_osc *o, uint32_t a, uint32_t b)
{
    int mask = nes_5b_live(o);
    uint64_t sum = 0;
    uint32_t t = a, out = nes_5b_mix(tab, o);
    for (;;) {
        uint32_t m = b;
        for (int u = 0; u < 5; u++)
            if (((mask >> u) & 1) && o->next[u] < m)
                m = o->next[u];
        sum += (uint64_t)out * (m - t);
        if (m >= b)
            break;
        t = m;
        for (int u = 0; u < 5; u++)
            if (((mask >> u) & 1) && o->next[u] == m) {
                o->next[u] += o->per[u];
                nes_5b_steps(tab, o, u, 1);
            }
        mask = nes_5b_live(o); /* the envelope may have stopped */
        out = nes_5b_mix(tab, o);
    }
    nes_5b_advance_some(tab, o, b, 31);
    return sum;
}

/* The derived parts of the state from the 16 registers r: periods, mixer, volumes, shape. */
GV_INLINE void nes_5b_regs(nes_5b_osc *o, const uint8_t *r)
{
    for (int c = 0; c < 3; c++) {
        uint32_t p = (uint32_t)r[2 * c] | (uint32_t)(r[2 * c + 1] & 15) << 8;
        o->per[c] = 16u * (p ? p : 1u);
    }
    o->per[3] = 32u * ((r[6] & 31) ? (r[6] & 31u) : 1u);
    uint32_t e = (uint32_t)r[11] | (uint32_t)r[12] << 8;
    o->per[4] = 16u * (e ? e : 1u);
    o->mixer = r[7] & 0x3F;
    for (int c = 0; c < 3; c++)
        o->vol[c] = r[8 + c] & 0x1F;
    o->shape = r[13] & 15;
}

/* After a period write at cycle t: a unit whose new period is shorter than its remaining
 * wait steps one new period from t. */
GV_INLINE void nes_5b_retime(nes_5b_osc *o, uint32_t t)
{
    for (int u = 0; u < 5; u++)
        if (o->next[u] > t + o->per[u])
            o->next[u] = t + o->per[u];
}

/* A write of register 13: the envelope restarts its first ramp (rising with "attack"). */
GV_INLINE void nes_5b_env_restart(nes_5b_osc *o, uint32_t t)
{
    o->env_pos = 0;
    o->env_up = (o->shape >> 2) & 1;
    o->env_hold = 0;
    o->next[4] = t + o->per[4];
}

#endif
