/* nes_vrc7.h: the sound of Konami's VRC7 (the NESdev wiki's "VRC7 audio"): six channels of
 * two-operator FM, a derivative of Yamaha's YM2413 (OPLL). Unlike the APU and the other
 * expansion chips (nes_xaudio.h), FM has no closed form between two register writes: the
 * operators' phases, envelopes and the modulator's feedback change every sample. So the
 * core runs the synthesiser (nes_vrc7.c), one output sample per tick of 36 CPU cycles (the
 * chip's 3.58 MHz clock / 72 = 49716 Hz, taken as exactly 36 CPU cycles: tick k holds CPU
 * cycles [36k, 36k + 36)), and records each tick's level, the sum of the six carriers, as
 * an int16 in the frame log (nes_framelog.h: h->nfm levels, level i for tick a_c0 / 36 + i).
 * Every audio path, the core's native one included, sums those levels over its cycles with
 * nes_vrc7_sum, in integers, so native = host = device. This header holds what the paths
 * share: the synthesiser's state (plain data, in the board's registers and save states),
 * the level's value in the APU mixer's units and the exact sum. Plain C, __host__
 * __device__ under nvcc/hipcc. */
#ifndef GV_EMU_NES_NES_VRC7_H
#define GV_EMU_NES_NES_VRC7_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"

#define NES_VRC7_TICK 36u /* CPU cycles per output sample */

/* Envelope stages. */
enum { NES_VRC7_ATTACK = 0, NES_VRC7_DECAY = 1, NES_VRC7_SUSTAIN = 2, NES_VRC7_RELEASE = 3 };

/* One operator (a channel's modulator or carrier). */
typedef struct {
    uint32_t phase; /* 19-bit phase counter; the wave's index is its top 10 bits */
    int16_t out[2]; /* the last two outputs, [0] the newer (the modulator's feedback) */
    uint8_t eg;     /* envelope attenuation 0-127, 0.375 dB a step (127: silent) */
    uint8_t stage;  /* NES_VRC7_ATTACK ... NES_VRC7_RELEASE */
} nes_vrc7_op;

/* The chip: its registers and running state. */
typedef struct {
    uint8_t patch[8];   /* $00-$07: the custom instrument (instrument 0) */
    uint8_t fnum[6];    /* $10-$15: F-number bits 0-7 */
    uint8_t ctl[6];     /* $20-$25: bit 5 sustain, 4 key, 3-1 octave (block), 0 F-number bit 8 */
    uint8_t insvol[6];  /* $30-$35: instrument (bits 4-7), volume (0-3, 3 dB a step, 0 loudest) */
    uint8_t test;       /* $0F: the test register (bits 0-3) */
    uint8_t addr;       /* the register $9010 selected */
    uint8_t silent;     /* $E000 bit 6: held in reset, silent, writes ignored */
    uint8_t spare;
    uint16_t am_cnt;    /* tremolo LFO: one of 210 steps every 64 samples (0 .. 13439) */
    uint16_t pm_cnt;    /* vibrato LFO: one of 8 steps every 1024 samples (0 .. 8191) */
    uint32_t eg_cnt;    /* the envelope generators' sample counter */
    int16_t last;       /* the level of the last tick run */
    int16_t spare2[3];
    uint64_t tick;      /* the next tick to run (it starts at CPU cycle 36 tick) */
    nes_vrc7_op op[12]; /* channel c: op[2c] its modulator, op[2c + 1] its carrier */
} nes_vrc7;

/* A level's value in the APU mixer's units (1.0 = 65536) for each of its CPU cycles. A
 * carrier swings +-4084 at full level; the mix level relative to the APU is not on the
 * wiki, so it is a chosen constant: a channel at full level swings as far as one APU pulse
 * at volume 15 (peak to peak), i.e. 4084 -> pulse[15] / 2 (tab->xvrc7_mul / 4096 per
 * level step). The level is offset by 32768 to keep every sum unsigned: a constant the
 * output's high-pass filters remove. */
GV_INLINE uint32_t nes_vrc7_mix(const nes_atab *tab, int level)
{
    return ((uint32_t)(level + 32768) * tab->xvrc7_mul) >> 12;
}

/* Sum of the chip's output over the frame-relative cycles [a, b) of the frame that starts at
 * absolute cycle c0, from its levels lv[0..n) (lv[i]: tick c0 / 36 + i). */
GV_INLINE uint64_t nes_vrc7_sum(const nes_atab *tab, const int16_t *lv, uint32_t n, uint64_t c0, uint32_t a,
                                uint32_t b)
{
    uint64_t x = c0 + a, y = c0 + b, k0 = c0 / NES_VRC7_TICK, sum = 0;
    for (uint64_t k = x / NES_VRC7_TICK; k * NES_VRC7_TICK < y; k++) {
        uint64_t s = k * NES_VRC7_TICK > x ? k * NES_VRC7_TICK : x;
        uint64_t e = (k + 1) * NES_VRC7_TICK < y ? (k + 1) * NES_VRC7_TICK : y;
        int level = k - k0 < n ? lv[k - k0] : 0;
        sum += (uint64_t)nes_vrc7_mix(tab, level) * (e - s);
    }
    return sum;
}

#endif
