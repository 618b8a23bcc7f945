/* nes_n163.h: the sound rules of the Namco 163 (the NESdev wiki's "Namco 163 audio"), written
 * once for every audio path like the APU's in nes_audio.h. The chip's 128 bytes of RAM hold
 * the wavetables (4-bit samples, the low nibble first) and, from $40 up, eight channels'
 * registers of 8 bytes: frequency (18 bits in $x0, $x2, $x4 bits 0-1), phase (24 bits in
 * $x1, $x3, $x5), wave length 256 - 4 L ($x4 bits 2-7 L), wave address ($x6), volume ($x7 bits
 * 0-3); $7F bits 4-6 are the enabled channels less one (channels 8 - n to 7). The chip
 * updates one channel every 15 CPU cycles, 7 first and down to 8 - n, then 7 again: the phase
 * adds the frequency modulo the length << 16, and the DAC then holds that channel's
 * (sample at address + phase >> 16, minus 8) x volume until the next update: the channels
 * are time-multiplexed, each heard 1/n of the time. The level here is that plus 120 (0-225,
 * never negative; the constant is removed by the output's high-pass filters), in DAC steps
 * of nes_atab.xn163_step[level] (the board's mixing resistor, nes_aout.c). While the chip's
 * sound is off ($E000 bit 6) nothing updates and the DAC rests at 120.
 * The state below holds the channels as the registers set them and the phases as they run;
 * the samples come from the RAM itself (an image of it per span, nes_xaudio.h): a sample
 * address that falls on an enabled channel's phase byte reads the running phase. Integers
 * only. Plain C, __host__ __device__ under nvcc/hipcc. */
#ifndef GV_EMU_NES_NES_N163_H
#define GV_EMU_NES_NES_N163_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"

#define NES_N163_RAM 128
#define NES_N163_REST 120 /* the DAC level of a sample of 8 (or of the sound off) */

/* The audible state from one event (a RAM write, the sound switched) to the next. */
typedef struct {
    uint32_t next;     /* the frame-relative CPU cycle of the next channel update */
    uint32_t phase[8]; /* 24-bit phase of channels 0-7 */
    uint32_t freq[8];  /* 18-bit frequency */
    uint16_t len[8];   /* wave length in samples, 4-256 */
    uint8_t addr[8];   /* wave address in samples */
    uint8_t vol[8];    /* 0-15 */
    uint8_t cur;       /* the channel updated next, 7 down to 8 - count */
    uint8_t count;     /* enabled channels, 1-8 */
    uint8_t on;        /* the chip's sound on ($E000 bit 6 clear) */
    uint8_t out;       /* the DAC now, 0-225 */
    uint32_t mem;      /* the offset of this span's RAM image in the frame log (nes_xaudio.h) */
    uint8_t level;     /* the mixing level: an index of nes_atab.xn163_step */
    uint8_t spare[3];
} nes_n163_osc;

/* Sample i (0-255) of the RAM image: a nibble, or the running phase where i falls on an
 * enabled channel's phase byte ($x1, $x3, $x5). */
GV_INLINE int nes_n163_sample(const nes_n163_osc *o, const uint8_t *ram, uint32_t i)
{
    uint32_t b = (i & 0xFF) >> 1, v;
    int c = (int)(b >> 3) - 8;
    if (b >= 0x40 && (b & 1) && (b & 7) != 7 && c >= 8 - o->count)
        v = o->phase[c] >> (8 * ((b & 7) >> 1));
    else
        v = ram[b];
    return (int)((i & 1) ? (v >> 4) & 15 : v & 15);
}

/* The update of the channel due (o->cur): its phase moves on, the DAC takes its sample. */
GV_INLINE void nes_n163_update(nes_n163_osc *o, const uint8_t *ram)
{
    int c = o->cur;
    o->phase[c] = (uint32_t)(((uint64_t)o->phase[c] + o->freq[c]) % ((uint32_t)o->len[c] << 16));
    int s = nes_n163_sample(o, ram, (o->phase[c] >> 16) + o->addr[c]);
    o->out = (uint8_t)((s - 8) * o->vol[c] + NES_N163_REST);
    o->cur = (uint8_t)(c == 8 - o->count ? 7 : c - 1);
}

/* Applies every update due at or before cycle t: k at once, each channel's phase moved by
 * its share of them in closed form, the last one done in full (it sets the DAC). */
GV_INLINE void nes_n163_advance(nes_n163_osc *o, const uint8_t *ram, uint32_t t)
{
    if (o->next > t)
        return;
    uint32_t k = (t - o->next) / 15 + 1;
    o->next += 15 * k;
    if (!o->on)
        return;
    uint32_t n = o->count, pos0 = 7u - o->cur, before = k - 1;
    for (uint32_t p = 0; p < n && before; p++) { /* position p: channel 7 - p */
        uint32_t c = 7 - p, share = before / n + ((p + n - pos0) % n < before % n ? 1u : 0u);
        if (share) /* (a channel not updated keeps a phase the CPU wrote past its length) */
            o->phase[c] = (uint32_t)(((uint64_t)o->phase[c] + (uint64_t)share * o->freq[c]) % ((uint32_t)o->len[c] << 16));
    }
    o->cur = (uint8_t)(7 - (pos0 + before) % n);
    nes_n163_update(o, ram);
}

/* Sum of the output in DAC steps times the level's step over cycles [a, b), walking the
 * updates (the ones due at or before a applied; on return those at or before b). */
GV_INLINE uint64_t nes_n163_integrate(const nes_atab *tab, nes_n163_osc *o, const uint8_t *ram, uint32_t a,
                                      uint32_t b)
{
    uint64_t sum = 0;
    uint32_t t = a;
    if (o->on) {
        while (o->next < b) {
            sum += (uint64_t)o->out * (o->next - t);
            t = o->next;
            o->next += 15;
            nes_n163_update(o, ram);
        }
    }
    sum += (uint64_t)o->out * (b - t);
    nes_n163_advance(o, ram, b);
    return sum * tab->xn163_step[o->level & 3];
}

/* The channel fields from the RAM (the phases included: the caller has written the running
 * ones back first); the channel due stays in the enabled range. */
GV_INLINE void nes_n163_regs(nes_n163_osc *o, const uint8_t *ram)
{
    for (int c = 0; c < 8; c++) {
        const uint8_t *r = ram + 0x40 + 8 * c;
        o->freq[c] = (uint32_t)r[0] | (uint32_t)r[2] << 8 | (uint32_t)(r[4] & 3) << 16;
        o->phase[c] = (uint32_t)r[1] | (uint32_t)r[3] << 8 | (uint32_t)r[5] << 16;
        o->len[c] = (uint16_t)(256 - (r[4] & 0xFC));
        o->addr[c] = r[6];
        o->vol[c] = r[7] & 15;
    }
    o->count = (uint8_t)(((ram[0x7F] >> 4) & 7) + 1);
    if (o->cur < 8 - o->count)
        o->cur = 7;
}

/* The running phases of the enabled channels into their RAM bytes. */
GV_INLINE void nes_n163_phases_out(const nes_n163_osc *o, uint8_t *ram)
{
    for (int c = 8 - o->count; c < 8; c++) {
        uint8_t *r = ram + 0x40 + 8 * c;
        r[1] = (uint8_t)o->phase[c];
        r[3] = (uint8_t)(o->phase[c] >> 8);
        r[5] = (uint8_t)(o->phase[c] >> 16);
    }
}

#endif
