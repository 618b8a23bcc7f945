/* gb_audio.h: the audio side of the frame log and the closed-form channel evaluation
 * shared by the core (to advance generators at events), the block synthesisers on host
 * and device (GV_HD), and the tests.
 *
 * Output stream: 48000 Hz, int16 stereo. Sample k is taken at dot t_k = floor(k * 4194304
 * / 48000) = floor(k * 32768 / 375) of the 4194304 Hz clock counted from power-on (the
 * APU runs at this rate in both CPU speeds). Between audio events the four channel
 * generators evolve deterministically, so the core records a keyframe (the full
 * generator state) at each event and any sample is a pure function of the last keyframe
 * before it. Mixing is integer: each channel's DAC maps amplitude 0..15 to 2*amp-15
 * (0 when the DAC is off), NR51 routes channels to left/right, NR50 scales by vol+1,
 * and the sum is scaled by 32 (at most +-15360); the high-pass filter then runs on the
 * host in Q16 fixed point. */
#ifndef GV_EMU_GB_GB_AUDIO_H
#define GV_EMU_GB_GB_AUDIO_H

#include <stdint.h>

#include "dev/gpu_common.h" /* GV_HD */
#include "emu/common/emu_search.h"

#define GB_AUDIO_RATE 48000
#define GB_CLOCK_HZ 4194304
#define GB_LFSR_POW 32

/* Dot time of output sample k, and the first sample taken at or after dot t. */
GV_HD static inline uint64_t gb_sample_time(uint64_t k)
{
    return k * 32768u / 375u;
}
GV_HD static inline uint64_t gb_sample_first_at(uint64_t t)
{
    return (t * 375u + 32767u) / 32768u;
}

/* One channel's generator: a counter of dots to the next waveform step and the
 * waveform position, plus what the output depends on. */
typedef struct {
    uint32_t ctr;    /* dots until the next step, 1..period */
    uint32_t period; /* dots per step: square (2048-f)*4, wave (2048-f)*2, noise div<<s; 0 = frozen */
    uint16_t lfsr;   /* noise: 15-bit shift register */
    uint8_t pos;     /* square: duty step 0-7; wave: index of the sample last read, 0-31 */
    uint8_t vol;     /* square/noise: envelope volume 0-15; wave: output level code 0-3 */
    uint8_t on;      /* channel enabled (NR52 status bit) */
    uint8_t dac;     /* DAC powered */
    uint8_t mode;    /* square: duty 0-3; noise: 1 for the 7-bit LFSR */
    uint8_t buf;     /* wave: the sample buffer (0-15), the nibble last read from wave RAM; square: the
                        duty bit latched at the last step (0/1); noise: 0 */
} gb_apu_gen;

typedef struct {
    uint64_t t; /* dot from which this state holds */
    gb_apu_gen ch[4];
    uint8_t wave[16];
    uint8_t nr5x[2]; /* NR50, NR51 as written: [0] volumes (left 6-4, right 2-0), [1] panning (left 4+ch, right ch) */
    /* The noise channel's clocks, kept by the core (gb_apu.c) to time its LFSR steps after
     * triggers and NR43 writes; the synthesisers follow ch[3].ctr and period instead. */
    uint16_t nz_count; /* the shift counter: divider pulses counted since power-on, 14 bits */
    uint8_t nz_div;    /* the divider's count: edges left before its next pulse (0-7) */
    uint8_t nz_wait;   /* dots from t before a triggered channel counts pulses (0-10) */
    uint8_t pad[2];
} gb_apu_key;

/* One frame of audio: samples k0 .. k0+n-1, keys[0].t <= t_{k0}, keys sorted by t. */
typedef struct {
    uint64_t k0;
    uint32_t n;
    uint32_t nkeys;
    const gb_apu_key *keys;
} gb_audio_log;

/* Packed form of a frame's audio log (for batching): this header, then nkeys keys. */
typedef struct {
    uint64_t k0;
    uint32_t n, nkeys;
} gb_apacked_hdr;

/* The LFSR is linear over GF(2), so n steps are a matrix power applied to the state.
 * For each width and each power 2^i this holds the product for every low byte
 * (entries 0-255) and every high 7 bits (256-383) of the state: a jump of n steps costs
 * two table lookups per set bit of n. Built by gb_lfsr_jump_init (gb_aout.c). */
typedef struct {
    uint16_t t[2][GB_LFSR_POW][384];
} gb_lfsr_jump;

/* Square duty waveforms (12.5, 25, 50, 75 %), bit p = output at step p. */
GV_HD static inline int gb_duty_bit(int duty, int pos)
{
    const uint8_t pat = (uint8_t)(duty == 0 ? 0x80 : duty == 1 ? 0x81 : duty == 2 ? 0xE1 : 0x7E);
    return (pat >> pos) & 1;
}

/* One LFSR step: bits 0 and 1 are XORed, the register shifts right and the result enters
 * bit 14 (and bit 6 in 7-bit mode). The channel outputs its volume when bit 0 is 0. */
GV_HD static inline uint16_t gb_lfsr_step(uint16_t s, int w7)
{
    unsigned fb = (s ^ (s >> 1)) & 1u;
    unsigned r = (s >> 1) | (fb << 14);
    if (w7)
        r = (r & ~0x40u) | (fb << 6);
    return (uint16_t)r;
}

GV_HD static inline uint16_t gb_lfsr_jump_apply(const gb_lfsr_jump *J, uint16_t s, int w7, uint32_t n)
{
    const int w = w7 ? 1 : 0;
    for (int i = 0; n && i < GB_LFSR_POW; i++, n >>= 1)
        if (n & 1)
            s = (uint16_t)(J->t[w][i][s & 255] ^ J->t[w][i][256 + ((s >> 8) & 127)]);
    return s;
}

/* Number of waveform steps the generator takes in the dt dots after its keyframe. */
GV_HD static inline uint32_t gb_gen_steps(const gb_apu_gen *c, uint64_t dt)
{
    if (!c->on || !c->period || dt < c->ctr)
        return 0;
    return (uint32_t)(1 + (dt - c->ctr) / c->period);
}

/* Sample p (0-31) of wave RAM: the high nibble of byte p/2 first. */
GV_HD static inline int gb_wave_nibble(const uint8_t *wave, int p)
{
    return (wave[p >> 1] >> ((p & 1) ? 0 : 4)) & 15;
}

/* Advances a generator by dt dots in closed form. ch: 0-1 square, 2 wave, 3 noise. The
 * wave channel reads the sample at its new position into its buffer at each step (wave
 * RAM cannot change between two keyframes, so the last read is the one that counts);
 * until its first step after a trigger it keeps playing the sample read before. A square
 * channel latches its duty bit at each step, with the duty of that moment (a duty
 * written between two keyframes is in mode from the second one on), and plays it until
 * its next step. */
GV_HD static inline void gb_gen_advance(gb_apu_gen *c, int ch, uint64_t dt, const gb_lfsr_jump *J,
                                        const uint8_t *wave)
{
    if (!c->on || !c->period)
        return;
    uint32_t n = gb_gen_steps(c, dt);
    if (!n) {
        c->ctr -= (uint32_t)dt;
        return;
    }
    c->ctr = c->period - (uint32_t)((dt - c->ctr) % c->period);
    if (ch == 3)
        c->lfsr = gb_lfsr_jump_apply(J, c->lfsr, c->mode, n);
    else if (ch == 2) {
        c->pos = (uint8_t)((c->pos + n) & 31);
        c->buf = (uint8_t)gb_wave_nibble(wave, c->pos);
    } else {
        c->pos = (uint8_t)((c->pos + n) & 7);
        c->buf = (uint8_t)gb_duty_bit(c->mode, c->pos);
    }
}

/* Digital amplitude 0..15 of a channel whose generator is in state c (already advanced). */
GV_HD static inline int gb_gen_amp(const gb_apu_gen *c, int ch)
{
    if (!c->on)
        return 0;
    if (ch == 3)
        return (c->lfsr & 1) ? 0 : c->vol;
    if (ch == 2) /* the sample buffer, shifted by the output level (code 0 mutes) */
        return c->vol == 0 ? 0 : c->buf >> (c->vol - 1);
    return c->buf ? c->vol : 0; /* the duty bit latched at the last step */
}

/* Mixes four channel amplitudes into one stereo sample before the high-pass filter. */
GV_HD static inline void gb_apu_mix(const gb_apu_key *k, const int *amp, int16_t *l, int16_t *r)
{
    int L = 0, R = 0;
    for (int ch = 0; ch < 4; ch++) {
        int a = k->ch[ch].dac ? 2 * amp[ch] - 15 : 0;
        if (k->nr5x[1] & (0x10 << ch))
            L += a;
        if (k->nr5x[1] & (0x01 << ch))
            R += a;
    }
    *l = (int16_t)(L * (((k->nr5x[0] >> 4) & 7) + 1) * 32);
    *r = (int16_t)(R * ((k->nr5x[0] & 7) + 1) * 32);
}

/* The sample at dot t >= k->t, evaluated in closed form from keyframe k. */
GV_HD static inline void gb_apu_sample(const gb_apu_key *k, uint64_t t, const gb_lfsr_jump *J,
                                       int16_t *l, int16_t *r)
{
    int amp[4];
    for (int ch = 0; ch < 4; ch++) {
        gb_apu_gen c = k->ch[ch];
        gb_gen_advance(&c, ch, t - k->t, J, k->wave);
        amp[ch] = gb_gen_amp(&c, ch);
    }
    gb_apu_mix(k, amp, l, r);
}

/* Index of the last key with keys[i].t <= t (keys[0].t <= t assumed). */
GV_HD static inline uint32_t gb_key_find(const gb_apu_key *keys, uint32_t nkeys, uint64_t t)
{
    uint32_t j;
    EMU_FIND_LAST_LE(j, keys, nkeys, t, t);
    return j;
}

/* The high-pass filter: out = in - cap; cap = in - out * charge, where charge is the
 * capacitor's per-sample factor in Q16 (see gb_aout.c). cap is kept in Q16 and out is
 * formed in Q16 before rounding, so a constant input decays to exactly 0. */
static inline int64_t gb_floor_div65536(int64_t v)
{
    return v >> 16; /* arithmetic shift (floor) on every compiler gpuvet builds with */
}

static inline int16_t gb_hpf_step(int32_t *cap, int32_t in, int32_t charge_q16)
{
    int64_t out_q = (int64_t)in * 65536 - *cap;
    *cap = (int32_t)((int64_t)in * 65536 - gb_floor_div65536(out_q * charge_q16));
    int64_t out = gb_floor_div65536(out_q + 32768);
    if (out > 32767)
        out = 32767;
    if (out < -32768)
        out = -32768;
    return (int16_t)out;
}

#endif
