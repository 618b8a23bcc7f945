/* nes_mmc5.h: the sound rules of Nintendo's MMC5 (the NESdev wiki's "MMC5 audio"), written
 * once for every audio path like the APU's in nes_audio.h. Two pulse channels that work as
 * the APU's pulses do (a timer of 2 x (period + 1) CPU cycles stepping an 8-step duty
 * sequence, restarted by a $5003/$5007 write), without a sweep unit, so periods below 8
 * still sound; their volume (envelope or constant, 0 once the length counter runs out) is
 * set by the board (nes_board_mmc5.c), which clocks envelopes and length counters at its
 * fixed 240 Hz. And an 8-bit PCM DAC. Levels: the pulses sound as loud as the APU's pulses
 * and share one DAC, so their sum goes through the APU's non-linear pulse table; the PCM is
 * as loud as the APU's DMC for the same value (one step: the tnd table's entry 127 over 127),
 * and twice that at 255. The MMC5's inverted polarity is not kept (the output filters make
 * it inaudible). Integers only. Plain C, __host__ __device__ under nvcc/hipcc. */
#ifndef GV_EMU_NES_NES_MMC5_H
#define GV_EMU_NES_NES_MMC5_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"

/* The audible state from one change to the next: pulse c steps at next[c], next[c] + per[c],
 * ... (frame-relative CPU cycles). 24 bytes. */
typedef struct {
    uint32_t next[2];
    uint32_t per[2];
    uint8_t pos[2];  /* duty sequencer step 0-7 */
    uint8_t duty[2]; /* duty 0-3 */
    uint8_t vol[2];  /* 0-15; 0 while the length counter is 0 */
    uint8_t pcm;     /* the PCM DAC's value */
    uint8_t spare;
} nes_mmc5_osc;

GV_INLINE uint32_t nes_mmc5_mix(const nes_atab *tab, const nes_mmc5_osc *o)
{
    int p = (nes_pulse_bit(o->duty[0], o->pos[0]) ? o->vol[0] : 0) +
            (nes_pulse_bit(o->duty[1], o->pos[1]) ? o->vol[1] : 0);
    return tab->pulse[p] + (uint32_t)o->pcm * tab->xmmc5_pcm_step;
}

/* Applies every step of the pulses due at or before cycle t (a silent pulse's sequencer
 * moves on too: its phase shows when it sounds again). */
GV_INLINE void nes_mmc5_advance(nes_mmc5_osc *o, uint32_t t)
{
    for (int c = 0; c < 2; c++) {
        if (o->next[c] > t)
            continue;
        uint32_t k = (t - o->next[c]) / o->per[c] + 1;
        o->next[c] += k * o->per[c];
        o->pos[c] = (uint8_t)((o->pos[c] + k) & 7);
    }
}

/* Sum of the output over cycles [a, b), walking the sounding pulses step by step. */
GV_INLINE uint64_t nes_mmc5_integrate(const nes_atab *tab, nes_mmc5_osc *o, uint32_t a, uint32_t b)
{
    int live = (o->vol[0] ? 1 : 0) | (o->vol[1] ? 2 : 0);
    uint64_t sum = 0;
    uint32_t t = a, out = nes_mmc5_mix(tab, o);
    for (;;) {
        uint32_t m = b;
        for (int c = 0; c < 2; c++)
            if (((live >> c) & 1) && o->next[c] < m)
                m = o->next[c];
        sum += (uint64_t)out * (m - t);
        if (m >= b)
            break;
        t = m;
        for (int c = 0; c < 2; c++)
            if (((live >> c) & 1) && o->next[c] == m) {
                o->next[c] += o->per[c];
                o->pos[c] = (uint8_t)((o->pos[c] + 1) & 7);
            }
        out = nes_mmc5_mix(tab, o);
    }
    nes_mmc5_advance(o, b);
    return sum;
}

#endif
