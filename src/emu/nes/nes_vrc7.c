/* nes_vrc7.c: the VRC7's FM synthesiser (nes_vrc7.h), run by the core one sample per 36 CPU
 * cycles. The facts: the registers, the fixed instruments and the feedback and multiplier
 * tables from the NESdev wiki's "VRC7 audio"; the output frequency 49716 Hz x F-number x
 * 2^(octave - 19) x multiplier (the wiki's formula); the log-sin and exponent tables of the
 * Yamaha OPL family from their published definitions; the key scale level table of the
 * YM3812/YM2413 manuals (dB per F-number at octave 7, 3 dB less an octave); the envelope's
 * 0.375 dB steps, its 6-bit rate from 4 x R + the key scale, a step opportunity every
 * 2^(13 - rate / 4) samples taken 4, 5, 6 or 7 times in 8 (rate mod 4), sustain levels in
 * 3 dB steps, and the datasheet's attack times (about 10.5 steps from silence), as the
 * SMSPower YM2413 reverse-engineering notes measured them; the LFOs' rates from the test
 * register (tremolo one step per 64 samples, 3.7 Hz; vibrato one per 1024). Modelled as
 * stated there, not as the die does it: the attack curve (eg -= eg / 4 + eg / 8 + 1 per
 * step), the vibrato depth (F-number +-(F / 64) x {0, 1, 2, 1} / 4), the modulator's
 * phase input (its output / 2: 4 pi at full level, the same scale as feedback 7 = 4 pi);
 * the damp stage before an attack and the channels' time-multiplexed output are not. */
#include "emu/nes/nes_int.h"

#include <math.h>
#include <string.h>

/* The fixed instruments 1-15, registers $00-$07 each, as the wiki lists them (dumped from
 * the chip in its debug mode); instrument 0 is the custom one. */
static const uint8_t rom_patch[16][8] = {
    {0},
    {0x03, 0x21, 0x05, 0x06, 0xE8, 0x81, 0x42, 0x27}, /* buzzy bell */
    {0x13, 0x41, 0x14, 0x0D, 0xD8, 0xF6, 0x23, 0x12}, /* guitar */
    {0x11, 0x11, 0x08, 0x08, 0xFA, 0xB2, 0x20, 0x12}, /* wurly */
    {0x31, 0x61, 0x0C, 0x07, 0xA8, 0x64, 0x61, 0x27}, /* flute */
    {0x32, 0x21, 0x1E, 0x06, 0xE1, 0x76, 0x01, 0x28}, /* clarinet */
    {0x02, 0x01, 0x06, 0x00, 0xA3, 0xE2, 0xF4, 0xF4}, /* synth */
    {0x21, 0x61, 0x1D, 0x07, 0x82, 0x81, 0x11, 0x07}, /* trumpet */
    {0x23, 0x21, 0x22, 0x17, 0xA2, 0x72, 0x01, 0x17}, /* organ */
    {0x35, 0x11, 0x25, 0x00, 0x40, 0x73, 0x72, 0x01}, /* bells */
    {0xB5, 0x01, 0x0F, 0x0F, 0xA8, 0xA5, 0x51, 0x02}, /* vibes */
    {0x17, 0xC1, 0x24, 0x07, 0xF8, 0xF8, 0x22, 0x12}, /* vibraphone */
    {0x71, 0x23, 0x11, 0x06, 0x65, 0x74, 0x18, 0x16}, /* tutti */
    {0x01, 0x02, 0xD3, 0x05, 0xC9, 0x95, 0x03, 0x02}, /* fretless */
    {0x61, 0x63, 0x0C, 0x00, 0x94, 0xC0, 0x33, 0xF6}, /* synth bass */
    {0x21, 0x72, 0x0D, 0x00, 0xC1, 0xD5, 0x56, 0x06}, /* sweep */
};

/* Multipliers 1/2, 1, 2, ..., 10, 10, 12, 12, 15, 15 (the wiki's table), times 2. */
static const uint8_t mult2[16] = {1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 20, 24, 24, 30, 30};

/* Key scale level at octave 7 for F-number bits 8-5, in 0.375 dB steps: the manuals' 0, 9,
 * 12, 13.875, 15, 16.125, 16.875, 17.625, 18, 18.75, 19.125, 19.5, 19.875, 20.25, 20.625
 * and 21 dB; 3 dB (8 steps) less an octave down, never below 0. */
static const uint8_t ksl_db[16] = {0, 24, 32, 37, 40, 43, 45, 47, 48, 50, 51, 52, 53, 54, 55, 56};

/* The envelope's step patterns over 8 opportunities (bit i: opportunity i steps), by rate
 * mod 4: 0,1,0,1,0,1,0,1 / 0,1,0,1,1,1,0,1 / 0,1,1,1,0,1,1,1 / 0,1,1,1,1,1,1,1. */
static const uint8_t eg_seq[4] = {0xAA, 0xBA, 0xEE, 0xFE};

/* The vibrato's 8 steps (x F-number / 256). */
static const int8_t pm_steps[8] = {0, 1, 2, 1, 0, -1, -2, -1};

void nes_vrc7_tables(uint16_t *logsin, uint16_t *expt)
{
    const double pi = acos(-1.0);
    for (int i = 0; i < 256; i++) {
        /* the rising quarter of a sine as -log2 in 1/256ths; 2^(i / 256) - 1 in 1/1024ths */
        logsin[i] = (uint16_t)lround(-log2(sin((i + 0.5) * pi / 512.0)) * 256.0);
        expt[i] = (uint16_t)lround((exp2(i / 256.0) - 1.0) * 1024.0);
    }
}

void nes_vrc7_power(nes_vrc7 *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 12; i++) {
        c->op[i].eg = 127;
        c->op[i].stage = NES_VRC7_RELEASE;
    }
}

void nes_vrc7_reset(nes_vrc7 *c, int on)
{
    if (on && !c->silent) { /* the registers and the tremolo clear; the vibrato LFO and the clock do not */
        uint16_t pm = c->pm_cnt;
        uint32_t eg = c->eg_cnt;
        uint64_t tick = c->tick;
        nes_vrc7_power(c);
        c->pm_cnt = pm;
        c->eg_cnt = eg;
        c->tick = tick;
    }
    c->silent = (uint8_t)(on != 0);
}

/* The instrument of channel ch: registers $00-$07 of a fixed one or the custom one. */
static const uint8_t *patch_of(const nes_vrc7 *c, int ch)
{
    int ins = c->insvol[ch] >> 4;
    return ins ? rom_patch[ins] : c->patch;
}

void nes_vrc7_write(nes_vrc7 *c, uint8_t v)
{
    unsigned r = c->addr;
    if (r < 8) {
        c->patch[r] = v;
    } else if (r == 0x0F) {
        c->test = v & 15;
    } else if (r >= 0x10 && r < 0x16) {
        c->fnum[r - 0x10] = v;
    } else if (r >= 0x20 && r < 0x26) {
        int ch = (int)r - 0x20;
        uint8_t old = c->ctl[ch];
        c->ctl[ch] = v & 0x3F;
        nes_vrc7_op *m = &c->op[2 * ch], *k = m + 1;
        if (!(old & 0x10) && (v & 0x10)) { /* key on: both operators attack from phase 0 */
            for (nes_vrc7_op *o = m; o <= k; o++) {
                o->stage = NES_VRC7_ATTACK;
                o->phase = 0;
                o->out[0] = o->out[1] = 0;
            }
        } else if ((old & 0x10) && !(v & 0x10)) { /* key off: a sustained modulator holds */
            k->stage = NES_VRC7_RELEASE;
            if (!(patch_of(c, ch)[0] & 0x20))
                m->stage = NES_VRC7_RELEASE;
        }
    } else if (r >= 0x30 && r < 0x36) {
        c->insvol[r - 0x30] = v;
    }
}

/* v / 2^n rounded down (>> of a negative number is not portable C). */
static int floor_shift(int v, int n)
{
    return v >= 0 ? v >> n : ~(~v >> n);
}

/* The envelope's steps at this sample for rate r (0-63), from the sample counter. */
static unsigned eg_steps(unsigned r, uint32_t cnt)
{
    if (r < 4)
        return 0;
    unsigned k = r >> 2, seq = eg_seq[r & 3];
    if (k <= 13) {
        unsigned sh = 13 - k;
        if (cnt & ((1u << sh) - 1))
            return 0;
        return (seq >> ((cnt >> sh) & 7)) & 1;
    }
    return ((seq >> (cnt & 7)) & 1) << (k - 13);
}

/* The 6-bit rate of a 4-bit rate setting R with key scale rks (R = 0: no change). */
static unsigned rate_of(unsigned R, unsigned rks)
{
    unsigned r = 4 * R + rks;
    return R ? (r > 63 ? 63 : r) : 0;
}

/* One sample of operator o's envelope. k: 0 modulator, 1 carrier; p its instrument; sus
 * the channel's sustain bit (release at rate 5 instead of the instrument's). */
static void eg_run(nes_vrc7_op *o, const uint8_t *p, int k, unsigned rks, int sus, uint32_t cnt)
{
    unsigned n, eg = o->eg;
    switch (o->stage) {
    case NES_VRC7_ATTACK: {
        unsigned r = rate_of(p[4 + k] >> 4, rks);
        if (r >= 60) {
            eg = 0;
        } else {
            for (n = eg_steps(r, cnt); n && eg; n--)
                eg -= (eg >> 2) + (eg >> 3) + 1;
        }
        if (eg == 0)
            o->stage = NES_VRC7_DECAY;
        break;
    }
    case NES_VRC7_DECAY:
        if (eg >= (unsigned)(p[6 + k] >> 4) * 8u) { /* the sustain level: sustained tones hold there */
            o->stage = (p[k] & 0x20) ? NES_VRC7_SUSTAIN : NES_VRC7_RELEASE;
            break;
        }
        eg += eg_steps(rate_of(p[4 + k] & 15, rks), cnt);
        break;
    case NES_VRC7_RELEASE:
        eg += eg_steps(rate_of(sus ? 5 : p[6 + k] & 15, rks), cnt);
        break;
    default: /* sustain */
        break;
    }
    o->eg = (uint8_t)(eg > 127 ? 127 : eg);
}

/* An operator's output at wave index idx (10 bits) and total attenuation att (0-127):
 * the log-sin of the quarter wave plus the attenuation, back through the exponent table;
 * the second half negative, or 0 for the half-wave rectified wave. +-4084 at full level. */
static int op_out(const nes_atab *t, unsigned idx, unsigned att, int rect)
{
    unsigned q = idx & 0xFF;
    if (idx & 0x100)
        q ^= 0xFF;
    unsigned L = t->xvrc7_logsin[q] + (att << 4), sh = L >> 8;
    int mag = sh > 12 ? 0 : (int)(((t->xvrc7_exp[~L & 0xFF] + 1024u) << 1) >> sh);
    if (idx & 0x200)
        return rect ? 0 : -mag;
    return mag;
}

int16_t nes_vrc7_tick(const nes_atab *t, nes_vrc7 *c)
{
    c->tick++;
    if (c->silent) {
        c->last = 0;
        return 0;
    }
    unsigned am_pos = c->am_cnt >> 6, am = (am_pos < 105 ? am_pos : 209 - am_pos) >> 3; /* 0-13: 4.875 dB */
    int pm = pm_steps[c->pm_cnt >> 10], sum = 0;
    for (int ch = 0; ch < 6; ch++) {
        const uint8_t *p = patch_of(c, ch);
        unsigned fnum = c->fnum[ch] | (c->ctl[ch] & 1u) << 8, block = (c->ctl[ch] >> 1) & 7u;
        unsigned key = block << 1 | fnum >> 8; /* the key scale's 4 bits */
        int ksl_base = ksl_db[fnum >> 5] - 8 * (7 - (int)block), mod = 0;
        for (int k = 0; k < 2; k++) {
            nes_vrc7_op *o = &c->op[2 * ch + k];
            unsigned flags = p[k], ksl = (p[2 + k] >> 6) & 3, att;
            /* attenuation: the envelope (test bit 0: 0), the output level (modulator: 0.75
             * dB steps) or the channel volume (carrier: 3 dB), key scale, tremolo */
            att = (c->test & 1) ? 0 : o->eg;
            att += k ? (c->insvol[ch] & 15u) * 8u : (p[2] & 63u) * 2u;
            if (ksl && ksl_base > 0)
                att += ksl == 1 ? (unsigned)ksl_base >> 1 : ksl == 2 ? (unsigned)ksl_base : (unsigned)ksl_base << 1;
            if (flags & 0x80)
                att += am;
            if (att > 127)
                att = 127;
            /* the phase input: the modulator's own feedback, or the modulator for the carrier */
            int fb = p[3] & 7, in;
            if (k)
                in = floor_shift(mod, 1);
            else
                in = fb ? floor_shift(o->out[0] + o->out[1], 9 - fb) : 0;
            int v = op_out(t, ((o->phase >> 9) + (unsigned)in) & 0x3FF, att, (p[3] >> (k ? 4 : 3)) & 1);
            o->out[1] = o->out[0];
            o->out[0] = (int16_t)v;
            if (k)
                sum += v;
            else
                mod = v;
            /* the phase steps by (F-number, vibrato) << octave x multiplier */
            unsigned f = fnum;
            if ((flags & 0x40) && pm) {
                unsigned d = ((unsigned)(pm < 0 ? -pm : pm) * (fnum >> 6)) >> 2;
                f = pm < 0 ? f - d : f + d;
            }
            o->phase = (c->test & 4) ? 0 : (o->phase + (((f << block) * mult2[flags & 15]) >> 1)) & 0x7FFFF;
            eg_run(o, p, k, (flags & 0x10) ? key : key >> 2, (c->ctl[ch] >> 5) & 1, c->eg_cnt);
        }
    }
    c->eg_cnt++;
    if (c->test & 2) { /* the LFOs held at 0 */
        c->am_cnt = c->pm_cnt = 0;
    } else { /* test bit 3: a step every sample */
        c->am_cnt = (uint16_t)((c->am_cnt + ((c->test & 8) ? 64u : 1u)) % (64u * 210u));
        c->pm_cnt = (uint16_t)((c->pm_cnt + ((c->test & 8) ? 1024u : 1u)) & 8191u);
    }
    c->last = (int16_t)sum;
    return c->last;
}
