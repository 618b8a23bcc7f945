/* snes_dsp.c: the S-DSP at sample level. Each sample (32 SPC cycles) runs, in this order:
 * the KON/KOFF poll (every other sample) and FLG bit 7, the noise LFSR, the eight voices in
 * order (pitch, Gaussian interpolation or noise, envelope, output, pitch counter advance with
 * BRR decoding of the next 4-sample group), the mixer, the echo unit (read the buffer entry,
 * FIR, feedback, write the entry), the main/echo volumes and the output.
 *
 * The arithmetic follows the documented formulas (fullsnes "SNES APU DSP ..." sections, the
 * SNESdev wiki "DSP envelopes" period/offset table); docs/SNES_DSP.md lists each rule with
 * its source and the places where we had to choose. tests/snes/dsp_model.py is a second,
 * independent implementation of the same rules that the tests compare against. */
#include <string.h>

#include "emu/snes/snes_dsp.h"
#include "emu/snes/snes_spc.h"

_Static_assert(sizeof(snes_dsp_voice) == 38 && sizeof(snes_dsp_resampler) == 8 &&
                   offsetof(snes_dsp, pad_) + sizeof(((snes_dsp *)0)->pad_) == SNES_DSP_STATE_BYTES &&
                   offsetof(snes_dsp, rs) == offsetof(snes_dsp, reg) + 128,
               "snes_dsp has padding");

/* The Gaussian interpolation table, 512 12-bit entries held in the chip's mask ROM, as
 * listed (in hex) in fullsnes, "SNES APU DSP BRR Pitch", "4-Point Gaussian Interpolation". */
const int16_t snes_dsp_gauss[512] = {
    0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,0x000,
    0x001,0x001,0x001,0x001,0x001,0x001,0x001,0x001,0x001,0x001,0x001,0x002,0x002,0x002,0x002,0x002,
    0x002,0x002,0x003,0x003,0x003,0x003,0x003,0x004,0x004,0x004,0x004,0x004,0x005,0x005,0x005,0x005,
    0x006,0x006,0x006,0x006,0x007,0x007,0x007,0x008,0x008,0x008,0x009,0x009,0x009,0x00A,0x00A,0x00A,
    0x00B,0x00B,0x00B,0x00C,0x00C,0x00D,0x00D,0x00E,0x00E,0x00F,0x00F,0x00F,0x010,0x010,0x011,0x011,
    0x012,0x013,0x013,0x014,0x014,0x015,0x015,0x016,0x017,0x017,0x018,0x018,0x019,0x01A,0x01B,0x01B,
    0x01C,0x01D,0x01D,0x01E,0x01F,0x020,0x020,0x021,0x022,0x023,0x024,0x024,0x025,0x026,0x027,0x028,
    0x029,0x02A,0x02B,0x02C,0x02D,0x02E,0x02F,0x030,0x031,0x032,0x033,0x034,0x035,0x036,0x037,0x038,
    0x03A,0x03B,0x03C,0x03D,0x03E,0x040,0x041,0x042,0x043,0x045,0x046,0x047,0x049,0x04A,0x04C,0x04D,
    0x04E,0x050,0x051,0x053,0x054,0x056,0x057,0x059,0x05A,0x05C,0x05E,0x05F,0x061,0x063,0x064,0x066,
    0x068,0x06A,0x06B,0x06D,0x06F,0x071,0x073,0x075,0x076,0x078,0x07A,0x07C,0x07E,0x080,0x082,0x084,
    0x086,0x089,0x08B,0x08D,0x08F,0x091,0x093,0x096,0x098,0x09A,0x09C,0x09F,0x0A1,0x0A3,0x0A6,0x0A8,
    0x0AB,0x0AD,0x0AF,0x0B2,0x0B4,0x0B7,0x0BA,0x0BC,0x0BF,0x0C1,0x0C4,0x0C7,0x0C9,0x0CC,0x0CF,0x0D2,
    0x0D4,0x0D7,0x0DA,0x0DD,0x0E0,0x0E3,0x0E6,0x0E9,0x0EC,0x0EF,0x0F2,0x0F5,0x0F8,0x0FB,0x0FE,0x101,
    0x104,0x107,0x10B,0x10E,0x111,0x114,0x118,0x11B,0x11E,0x122,0x125,0x129,0x12C,0x130,0x133,0x137,
    0x13A,0x13E,0x141,0x145,0x148,0x14C,0x150,0x153,0x157,0x15B,0x15F,0x162,0x166,0x16A,0x16E,0x172,
    0x176,0x17A,0x17D,0x181,0x185,0x189,0x18D,0x191,0x195,0x19A,0x19E,0x1A2,0x1A6,0x1AA,0x1AE,0x1B2,
    0x1B7,0x1BB,0x1BF,0x1C3,0x1C8,0x1CC,0x1D0,0x1D5,0x1D9,0x1DD,0x1E2,0x1E6,0x1EB,0x1EF,0x1F3,0x1F8,
    0x1FC,0x201,0x205,0x20A,0x20F,0x213,0x218,0x21C,0x221,0x226,0x22A,0x22F,0x233,0x238,0x23D,0x241,
    0x246,0x24B,0x250,0x254,0x259,0x25E,0x263,0x267,0x26C,0x271,0x276,0x27B,0x280,0x284,0x289,0x28E,
    0x293,0x298,0x29D,0x2A2,0x2A6,0x2AB,0x2B0,0x2B5,0x2BA,0x2BF,0x2C4,0x2C9,0x2CE,0x2D3,0x2D8,0x2DC,
    0x2E1,0x2E6,0x2EB,0x2F0,0x2F5,0x2FA,0x2FF,0x304,0x309,0x30E,0x313,0x318,0x31D,0x322,0x326,0x32B,
    0x330,0x335,0x33A,0x33F,0x344,0x349,0x34E,0x353,0x357,0x35C,0x361,0x366,0x36B,0x370,0x374,0x379,
    0x37E,0x383,0x388,0x38C,0x391,0x396,0x39B,0x39F,0x3A4,0x3A9,0x3AD,0x3B2,0x3B7,0x3BB,0x3C0,0x3C5,
    0x3C9,0x3CE,0x3D2,0x3D7,0x3DC,0x3E0,0x3E5,0x3E9,0x3ED,0x3F2,0x3F6,0x3FB,0x3FF,0x403,0x408,0x40C,
    0x410,0x415,0x419,0x41D,0x421,0x425,0x42A,0x42E,0x432,0x436,0x43A,0x43E,0x442,0x446,0x44A,0x44E,
    0x452,0x455,0x459,0x45D,0x461,0x465,0x468,0x46C,0x470,0x473,0x477,0x47A,0x47E,0x481,0x485,0x488,
    0x48C,0x48F,0x492,0x496,0x499,0x49C,0x49F,0x4A2,0x4A6,0x4A9,0x4AC,0x4AF,0x4B2,0x4B5,0x4B7,0x4BA,
    0x4BD,0x4C0,0x4C3,0x4C5,0x4C8,0x4CB,0x4CD,0x4D0,0x4D2,0x4D5,0x4D7,0x4D9,0x4DC,0x4DE,0x4E0,0x4E3,
    0x4E5,0x4E7,0x4E9,0x4EB,0x4ED,0x4EF,0x4F1,0x4F3,0x4F5,0x4F6,0x4F8,0x4FA,0x4FB,0x4FD,0x4FF,0x500,
    0x502,0x503,0x504,0x506,0x507,0x508,0x50A,0x50B,0x50C,0x50D,0x50E,0x50F,0x510,0x511,0x511,0x512,
    0x513,0x514,0x514,0x515,0x516,0x516,0x517,0x517,0x517,0x518,0x518,0x518,0x518,0x518,0x519,0x519,
};

/* Envelope and noise rates: samples between steps (fullsnes "ADSR/Gain (and Noise) Rates";
 * 0 = never), and the phase offset of each (SNESdev wiki "DSP envelopes", period table):
 * rate r steps in the samples where (counter + offset[r]) % period[r] == 0, the counter
 * counting samples modulo 30720 (a multiple of every period). */
enum { RATE_COUNTER_WRAP = 30720 };
static const uint16_t rate_period[32] = {
    0,    2048, 1536, 1280, 1024, 768, 640, 512, 384, 320, 256, 192, 160, 128, 96, 80,
    64,   48,   40,   32,   24,   20,  16,  12,  10,  8,   6,   5,   4,   3,   2,  1,
};
static const uint16_t rate_offset[32] = {
    1,   0, 1040, 536, 0, 1040, 536, 0, 1040, 536, 0, 1040, 536, 0, 1040, 536,
    0, 1040, 536,   0, 1040, 536, 0, 1040, 536, 0, 1040, 536, 0, 1040, 0,   0,
};

int snes_dsp_rate_fires(int r, uint32_t c)
{
    return r > 0 && (c + rate_offset[r]) % rate_period[r] == 0;
}

static inline int clamp16(int x)
{
    return x < -32768 ? -32768 : x > 32767 ? 32767 : x;
}

/* ---- BRR ------------------------------------------------------------------------------ */

/* fullsnes "SNES APU DSP BRR Samples": sample = (nibble << shift) >> 1, shifts 13-15 act as
 * 12 with nibble >> 3; the filters in their exact integer form; the result clamped to 16
 * bits, then kept to 15 bits with the sign lost (bit 15 dropped, bit 14 becomes the sign). */
void snes_dsp_brr_group(uint8_t hdr, uint8_t b0, uint8_t b1, int p1, int p2, int16_t out[4])
{
    int shift = hdr >> 4, filter = (hdr >> 2) & 3;
    int nib[4] = {b0 >> 4, b0 & 15, b1 >> 4, b1 & 15};
    for (int k = 0; k < 4; k++) {
        int n = nib[k] >= 8 ? nib[k] - 16 : nib[k];
        int s = shift <= 12 ? (n * (1 << shift)) >> 1 : ((n >> 3) * (1 << 12)) >> 1;
        switch (filter) {
        case 1: s += p1 + ((-p1) >> 4); break;
        case 2: s += p1 * 2 + ((-p1 * 3) >> 5) - p2 + (p2 >> 4); break;
        case 3: s += p1 * 2 + ((-p1 * 13) >> 6) - p2 + ((p2 * 3) >> 4); break;
        default: break;
        }
        s = clamp16(s);
        s = (int16_t)(uint16_t)((unsigned)s << 1) >> 1; /* 15-bit wrap: +$4000..+$7FFF -> -$4000..-1 */
        out[k] = (int16_t)s;
        p2 = p1;
        p1 = s;
    }
}

/* ---- Gaussian interpolation ------------------------------------------------------------ */

/* fullsnes "4-Point Gaussian Interpolation": the first three products summed with 16-bit
 * wrap-around, the fourth added with saturation, the result halved to 15 bits. */
int snes_dsp_gauss_interp(int i, int s0, int s1, int s2, int s3)
{
    int out = (snes_dsp_gauss[255 - i] * s0) >> 10;
    out += (snes_dsp_gauss[511 - i] * s1) >> 10;
    out += (snes_dsp_gauss[256 + i] * s2) >> 10;
    out = (int16_t)(uint16_t)out;
    out += (snes_dsp_gauss[i] * s3) >> 10;
    return clamp16(out) >> 1;
}

/* ---- voices ---------------------------------------------------------------------------- */

static uint16_t dir_entry(const snes_dsp *d, int srcn, int which)
{
    uint16_t a = (uint16_t)(d->reg[SNES_DSP_DIR] * 256 + srcn * 4 + which * 2);
    return (uint16_t)(d->env.aram[a] | d->env.aram[(uint16_t)(a + 1)] << 8);
}

/* Decodes the voice's next 4-sample group into the ring (replacing the oldest group) and
 * moves through the block; at the end of a block with the end flag: jump to the loop address
 * of the current SRCN, and without the loop flag, release with the envelope at 0. ENDX is
 * set when the first group of a block with the end flag is decoded. */
static void brr_decode_group(snes_dsp *d, int v)
{
    snes_dsp_voice *vs = &d->v[v];
    const uint8_t *ram = d->env.aram;
    uint8_t hdr = ram[vs->brr_addr];
    if (vs->brr_off == 1 && (hdr & 1))
        d->endx |= (uint8_t)(1 << v);
    int p1 = vs->buf[(vs->buf_pos + 11) % 12], p2 = vs->buf[(vs->buf_pos + 10) % 12];
    snes_dsp_brr_group(hdr, ram[(uint16_t)(vs->brr_addr + vs->brr_off)], ram[(uint16_t)(vs->brr_addr + vs->brr_off + 1)],
                       p1, p2, &vs->buf[vs->buf_pos]);
    vs->buf_pos = (uint8_t)((vs->buf_pos + 4) % 12);
    vs->brr_off = (uint8_t)(vs->brr_off + 2);
    if (vs->brr_off > 7) {
        vs->brr_off = 1;
        if (hdr & 1) {
            vs->brr_addr = dir_entry(d, d->reg[(v << 4) | SNES_DSP_SRCN], 1);
            if (!(hdr & 2)) {
                vs->env_mode = SNES_DSP_ENV_RELEASE;
                vs->env = vs->env_raw = 0;
            }
        } else {
            vs->brr_addr = (uint16_t)(vs->brr_addr + 9);
        }
    }
}

/* One sample of the envelope. fullsnes "ADSR/Gain Envelope" and the SNESdev wiki: release
 * -8 every sample; otherwise the rate of the phase (ADSR) or of GAIN steps when the rate
 * counter fires; direct GAIN sets the level at once. The phase is tracked in GAIN modes too
 * (the sustain boundary then comes from GAIN bits 7-5). The level is clamped to 0-$7FF;
 * the new value cut to 11 bits instead (a negative one becomes large) is kept for bent
 * GAIN's "below $600" test in the next sample (fullsnes "Misc Notes"). */
static void env_step(snes_dsp_voice *vs, uint8_t adsr1, uint8_t adsr2, uint8_t gain, uint32_t c)
{
    int env = vs->env;
    if (vs->env_mode == SNES_DSP_ENV_RELEASE) {
        env -= 8;
        vs->env_raw = (int16_t)(env & 0x7FF);
        vs->env = (int16_t)(env < 0 ? 0 : env);
        return;
    }
    int rate = 0, step = 0, sl;
    int exp_step = -(((env - 1) >> 8) + 1);
    if (adsr1 & 0x80) {
        sl = adsr2 >> 5;
        if (vs->env_mode == SNES_DSP_ENV_ATTACK) {
            rate = (adsr1 & 15) * 2 + 1;
            step = rate == 31 ? 1024 : 32;
        } else if (vs->env_mode == SNES_DSP_ENV_DECAY) {
            rate = ((adsr1 >> 4) & 7) * 2 + 16;
            step = exp_step;
        } else {
            rate = adsr2 & 31;
            step = exp_step;
        }
    } else {
        sl = gain >> 5;
        if (!(gain & 0x80)) {
            env = (gain & 0x7F) * 16;
        } else {
            rate = gain & 31;
            switch ((gain >> 5) & 3) {
            case 0: step = -32; break;
            case 1: step = exp_step; break;
            case 2: step = 32; break;
            default: step = vs->env_raw < 0x600 ? 32 : 8; break;
            }
        }
    }
    if (snes_dsp_rate_fires(rate, c))
        env += step;
    if (vs->env_mode == SNES_DSP_ENV_ATTACK && env >= 0x7E0)
        vs->env_mode = SNES_DSP_ENV_DECAY;
    else if (vs->env_mode == SNES_DSP_ENV_DECAY && env <= (sl + 1) * 0x100)
        vs->env_mode = SNES_DSP_ENV_SUSTAIN;
    vs->env_raw = (int16_t)(env & 0x7FF);
    vs->env = (int16_t)(env < 0 ? 0 : env > 0x7FF ? 0x7FF : env);
}

static void key_on(snes_dsp *d, int v)
{
    snes_dsp_voice *vs = &d->v[v];
    memset(vs->buf, 0, sizeof vs->buf);
    vs->brr_addr = dir_entry(d, d->reg[(v << 4) | SNES_DSP_SRCN], 0);
    vs->brr_off = 1;
    vs->buf_pos = 0;
    vs->counter = 0;
    vs->env = vs->env_raw = 0;
    vs->out = 0;
    vs->env_mode = SNES_DSP_ENV_ATTACK;
    vs->kon_delay = 5;
    d->endx &= (uint8_t)~(1 << v);
}

/* One sample of voice v: its output (15-bit, after the envelope) in vs->out. `mod` is the
 * output of voice v-1 in this sample (used when PMON has bit v). */
static void voice_step(snes_dsp *d, int v, int mod, uint32_t c)
{
    snes_dsp_voice *vs = &d->v[v];
    uint8_t *r = &d->reg[v << 4];
    if (vs->kon_delay) {
        /* the 5 samples after key-on: silent; the last three fill the ring with the block's
         * first 12 samples */
        if (vs->kon_delay <= 3)
            brr_decode_group(d, v);
        vs->kon_delay--;
        vs->out = 0;
    } else {
        int step = (r[SNES_DSP_PITCHL] | r[SNES_DSP_PITCHH] << 8) & 0x3FFF;
        if (v > 0 && (d->reg[SNES_DSP_PMON] >> v & 1)) {
            step = (step * ((mod >> 4) + 0x400)) >> 10;
            step = step > 0x3FFF ? 0x3FFF : step;
        }
        env_step(vs, r[SNES_DSP_ADSR1], r[SNES_DSP_ADSR2], r[SNES_DSP_GAIN], c);
        int s = 0; /* the sample is multiplied by the envelope: at 0 the output is 0 anyway */
        if (vs->env && (d->reg[SNES_DSP_NON] >> v & 1)) {
            s = (int16_t)(uint16_t)(d->noise << 1) >> 1;
        } else if (vs->env) {
            int p = vs->buf_pos + (vs->counter >> 12), p1 = p + 1, p2 = p + 2, p3 = p + 3;
            p -= p >= 12 ? 12 : 0, p1 -= p1 >= 12 ? 12 : 0, p2 -= p2 >= 12 ? 12 : 0, p3 -= p3 >= 12 ? 12 : 0;
            s = snes_dsp_gauss_interp((vs->counter >> 4) & 0xFF, vs->buf[p], vs->buf[p1], vs->buf[p2], vs->buf[p3]);
        }
        vs->out = (int16_t)((s * vs->env) >> 11);
        vs->counter = (uint16_t)(vs->counter + step);
        if (vs->counter >= 0x4000) {
            vs->counter -= 0x4000;
            brr_decode_group(d, v);
        }
    }
    r[SNES_DSP_ENVX] = (uint8_t)(vs->env >> 4);
    r[SNES_DSP_OUTX] = (uint8_t)(vs->out >> 7);
}

/* ---- one sample ------------------------------------------------------------------------ */

static void emit(snes_dsp *d, int l, int r)
{
    if (d->env.out && d->env.out_n < d->env.out_cap) {
        d->env.out[2 * d->env.out_n] = (int16_t)l;
        d->env.out[2 * d->env.out_n + 1] = (int16_t)r;
        d->env.out_n++;
    } else {
        d->env.out_dropped++;
    }
}

/* Phase 1 of a sample: KON/KOFF (polled every other sample) and FLG bit 7 (every sample),
 * fullsnes "KON/KOFF Notes": release on KOFF or reset (reset also zeroes the envelope), then
 * key-on from the latch, which is then cleared; then the noise LFSR (fullsnes "NON") at the
 * FLG rate. */
void snes_dsp_sample_begin(snes_dsp *d)
{
    uint8_t *reg = d->reg;
    uint8_t flg = reg[SNES_DSP_FLG];
    int poll = d->poll == 0;
    d->poll ^= 1;
    for (int v = 0; v < SNES_DSP_VOICES; v++) {
        if (flg & 0x80) {
            d->v[v].env_mode = SNES_DSP_ENV_RELEASE;
            d->v[v].env = d->v[v].env_raw = 0;
        }
        if (poll) {
            if (reg[SNES_DSP_KOFF] >> v & 1)
                d->v[v].env_mode = SNES_DSP_ENV_RELEASE;
            if (d->kon_latch >> v & 1)
                key_on(d, v);
        }
    }
    if (poll)
        d->kon_latch = 0;
    if (snes_dsp_rate_fires(flg & 31, d->rate_counter))
        d->noise = (uint16_t)((d->noise >> 1) | (((d->noise ^ (d->noise >> 1)) & 1) << 14));
}

/* Phase 2: one voice. Reads the registers, ARAM, the noise level, the rate counter and (with
 * PMON bit v) voice v-1's output of this sample; writes only voice v's state and registers. */
void snes_dsp_sample_voice(snes_dsp *d, int v)
{
    voice_step(d, v, v ? d->v[v - 1].out : 0, d->rate_counter);
}

/* Phase 3: the mixers in voice order (fullsnes "Output Mixer": clamped after every
 * addition), the echo unit (fullsnes "Echo Registers", the FIR formula), main and echo
 * volumes, mute, the output, and the sample counters. */
void snes_dsp_sample_end(snes_dsp *d)
{
    uint8_t *reg = d->reg;
    uint8_t flg = reg[SNES_DSP_FLG];
    int ml = 0, mr = 0, el = 0, er = 0;
    for (int v = 0; v < SNES_DSP_VOICES; v++) {
        int o = d->v[v].out;
        int l = (o * (int8_t)reg[(v << 4) | SNES_DSP_VOLL]) >> 6;
        int r = (o * (int8_t)reg[(v << 4) | SNES_DSP_VOLR]) >> 6;
        ml = clamp16(ml + l);
        mr = clamp16(mr + r);
        if (reg[SNES_DSP_EON] >> v & 1) {
            el = clamp16(el + l);
            er = clamp16(er + r);
        }
    }

    uint8_t *ram = d->env.aram;
    /* the base is ESA as read one sample earlier (fullsnes "Echo Buffer Notes": ESA is read
     * 32 cycles before the value is used), so a new ESA takes effect a sample late */
    uint16_t addr = (uint16_t)(d->esa * 256 + d->echo_idx * 4);
    /* FLG bit 5 disables echo writes, and so does the SPC's TEST bit 1 (RAM writes off: fullsnes
     * "SPC700 I/O Ports", anomie's SPC700 document: "this also disables S-DSP buffer writes") */
    int echo_write = !(flg & 0x20) && (!d->env.ram_write || *d->env.ram_write);
    d->fir_pos = (d->fir_pos + 1) & 7;
    int fir_out[2], ein[2] = {el, er};
    for (int ch = 0; ch < 2; ch++) {
        uint16_t a = (uint16_t)(addr + 2 * ch);
        d->fir[ch][d->fir_pos] = (int16_t)(ram[a] | ram[(uint16_t)(a + 1)] << 8) >> 1;
        int sum = 0; /* the seven oldest taps wrap at 16 bits, the newest saturates */
        for (int k = 0; k < 7; k++)
            sum += (d->fir[ch][(d->fir_pos + 1 + k) & 7] * (int8_t)reg[(k << 4) | SNES_DSP_FIR]) >> 6;
        sum = (int16_t)(uint16_t)sum;
        sum = clamp16(sum + ((d->fir[ch][d->fir_pos] * (int8_t)reg[0x70 | SNES_DSP_FIR]) >> 6));
        fir_out[ch] = sum;
        int e = clamp16(ein[ch] + ((sum * (int8_t)reg[SNES_DSP_EFB]) >> 7)) & ~1;
        if (echo_write) {
            ram[a] = (uint8_t)e;
            ram[(uint16_t)(a + 1)] = (uint8_t)(e >> 8);
        }
    }
    if (d->echo_idx == 0)
        d->echo_len = (uint16_t)((reg[SNES_DSP_EDL] & 15) << 9);
    if (++d->echo_idx >= d->echo_len)
        d->echo_idx = 0;
    d->esa = reg[SNES_DSP_ESA];

    int l = clamp16((ml * (int8_t)reg[SNES_DSP_MVOLL]) >> 7);
    int r = clamp16((mr * (int8_t)reg[SNES_DSP_MVOLR]) >> 7);
    l = clamp16(l + ((fir_out[0] * (int8_t)reg[SNES_DSP_EVOLL]) >> 7));
    r = clamp16(r + ((fir_out[1] * (int8_t)reg[SNES_DSP_EVOLR]) >> 7));
    if (flg & 0x40)
        l = r = 0;
    emit(d, l, r);

    reg[SNES_DSP_ENDX] = d->endx;
    d->rate_counter = d->rate_counter + 1 == RATE_COUNTER_WRAP ? 0 : d->rate_counter + 1;
    d->samples++;
}

static void sample_step(snes_dsp *d)
{
    snes_dsp_sample_begin(d);
    for (int v = 0; v < SNES_DSP_VOICES; v++)
        snes_dsp_sample_voice(d, v);
    snes_dsp_sample_end(d);
}

/* ---- interface ------------------------------------------------------------------------- */

void snes_dsp_power(snes_dsp *d, uint8_t *aram)
{
    memset(d, 0, sizeof *d);
    d->env.aram = aram;
    d->reg[SNES_DSP_FLG] = 0xE0;
    d->noise = 0x4000;
    for (int v = 0; v < SNES_DSP_VOICES; v++)
        d->v[v].brr_off = 1;
}

void snes_dsp_run(snes_dsp *d, uint64_t cycle)
{
    while (d->cycle + SNES_DSP_CYCLES_PER_SAMPLE <= cycle) {
        sample_step(d);
        d->cycle += SNES_DSP_CYCLES_PER_SAMPLE;
    }
}

uint8_t snes_dsp_read(snes_dsp *d, uint8_t reg, uint64_t cycle)
{
    snes_dsp_run(d, cycle);
    reg &= 0x7F;
    return reg == SNES_DSP_ENDX ? d->endx : d->reg[reg];
}

void snes_dsp_write(snes_dsp *d, uint8_t reg, uint8_t v, uint64_t cycle)
{
    snes_dsp_run(d, cycle);
    reg &= 0x7F;
    d->reg[reg] = v;
    if (reg == SNES_DSP_KON)
        d->kon_latch = v;
    else if (reg == SNES_DSP_ENDX)
        d->endx = d->reg[SNES_DSP_ENDX] = 0;
}

static uint8_t hook_read(void *ctx, uint8_t reg, uint64_t cycle)
{
    return snes_dsp_read(ctx, reg, cycle);
}

static void hook_write(void *ctx, uint8_t reg, uint8_t v, uint64_t cycle)
{
    snes_dsp_write(ctx, reg, v, cycle);
}

void snes_dsp_attach(snes_dsp *d, snes_spc *s)
{
    d->env.aram = s->ram;
    d->env.ram_write = &s->ram_write;
    s->env.dsp.read = hook_read;
    s->env.dsp.write = hook_write;
    s->env.dsp.ctx = d;
    if (d->cycle < s->cycles)
        d->cycle = s->cycles - s->cycles % SNES_DSP_CYCLES_PER_SAMPLE;
}

/* ---- 32 kHz -> 48 kHz ------------------------------------------------------------------ */

/* Output j lies at input position 2j/3: between x[n-1] and x[n] with weight f/3 on x[n],
 * f = 0 and 2 for one input, 1 for the next. y = floor((x0*(3-f) + x1*f + 1) / 3), i.e. the
 * nearest integer (never a tie). The first input pairs with prev = 0. */
static int16_t lerp3(int x0, int x1, int f)
{
    int v = x0 * (3 - f) + x1 * f + 1 + 3 * 32768; /* made non-negative so / is floor */
    return (int16_t)(v / 3 - 32768);
}

size_t snes_dsp_resample_cap(size_t n)
{
    return n + n / 2 + 1;
}

size_t snes_dsp_resample(snes_dsp_resampler *r, const int16_t *in, size_t n, int16_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int x[2] = {in[2 * i], in[2 * i + 1]};
        if (r->phase == 0) {
            for (int ch = 0; ch < 2; ch++) {
                out[2 * m + ch] = lerp3(r->prev[ch], x[ch], 0);
                out[2 * m + 2 + ch] = lerp3(r->prev[ch], x[ch], 2);
            }
            m += 2;
        } else {
            for (int ch = 0; ch < 2; ch++)
                out[2 * m + ch] = lerp3(r->prev[ch], x[ch], 1);
            m += 1;
        }
        r->phase ^= 1;
        r->prev[0] = (int16_t)x[0];
        r->prev[1] = (int16_t)x[1];
    }
    return m;
}

/* ---- save states ----------------------------------------------------------------------- */

void snes_dsp_state_save(const snes_dsp *d, uint8_t *buf)
{
    memcpy(buf, d, SNES_DSP_STATE_BYTES);
}

gv_status snes_dsp_state_load(snes_dsp *d, const uint8_t *buf, size_t len, gv_err *err)
{
    if (len != SNES_DSP_STATE_BYTES)
        return gv_fail(err, GV_ERR_INPUT, "S-DSP state: %zu bytes, expected %zu", len, (size_t)SNES_DSP_STATE_BYTES);
    snes_dsp t;
    memcpy(&t, buf, SNES_DSP_STATE_BYTES);
    int ok = t.cycle % SNES_DSP_CYCLES_PER_SAMPLE == 0 && t.rate_counter < RATE_COUNTER_WRAP && t.noise < 0x8000 &&
             t.fir_pos < 8 && t.poll <= 1 && t.echo_len <= (15 << 9) && t.echo_idx < (t.echo_len ? t.echo_len : 1) &&
             t.rs.phase <= 1 && t.endx == t.reg[SNES_DSP_ENDX];
    for (int v = 0; v < SNES_DSP_VOICES; v++) {
        const snes_dsp_voice *vs = &t.v[v];
        ok &= (vs->brr_off & 1) && vs->brr_off <= 7 && vs->buf_pos % 4 == 0 && vs->buf_pos < 12 && vs->env >= 0 &&
              vs->env <= 0x7FF && vs->env_raw >= 0 && vs->env_raw <= 0x7FF && vs->env_mode <= 3 && vs->kon_delay <= 5 && vs->counter < 0x4000;
    }
    for (size_t i = 0; i < sizeof t.pad_; i++)
        ok &= t.pad_[i] == 0;
    for (size_t i = 0; i < sizeof t.rs.pad_; i++)
        ok &= t.rs.pad_[i] == 0;
    if (!ok)
        return gv_fail(err, GV_ERR_INPUT, "S-DSP state: inconsistent fields (corrupt image)");
    memcpy(d, buf, SNES_DSP_STATE_BYTES);
    return GV_OK;
}
