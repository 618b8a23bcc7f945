/* gb_apu.c: the APU's timing side. It keeps what the CPU can observe (register reads,
 * NR52 channel status, PCM12/PCM34 on CGB, wave RAM) and the frame sequencer (512 Hz,
 * clocked by falling edges of system counter bit 12, bit 13 in double speed): length
 * counters on steps 0/2/4/6, sweep on 2/6, envelopes on 7. At each audio event (register
 * write, sequencer step that changes something) it advances the four generators to that
 * dot in closed form and appends a keyframe; the synthesisers (gb_aout.c, device) turn
 * keyframes into samples. Channels: 0-1 square (1 with sweep), 2 wave, 3 noise.
 *
 * The documented quirks (Pan Docs, "Audio Details: Obscure Behavior", and the register
 * pages) kept here: extra length clocking when NRx4 enables the length counter while the
 * next sequencer step does not clock lengths (and a trigger that reloads an expired
 * length then loads max - 1); the envelope timer one longer when triggered just before an
 * envelope step; leaving sweep subtract mode after a subtract calculation disables
 * channel 1; power off clears every register but wave RAM (and, on the DMG, the length
 * counters, which NRx1 writes still load while the APU is off); power on restarts the
 * sequencer at step 0, the duty positions and the wave sample buffer. The wave channel
 * starts its first period GB_WAVE_TRIGGER_DELAY dots late, reads sample 1 first and keeps
 * playing its buffer until then; while it plays, wave RAM is the byte it reads (CGB) or
 * reachable only at the dot at which it reads a byte, $FF and ignored otherwise (DMG); a
 * DMG trigger as it reads a byte corrupts the first bytes of wave RAM.
 *
 * At the cycle, as SameSuite's apu tests measure through PCM12/PCM34 and NR52: the square
 * channels step on the APU's 1 MHz ticks (tick_wait: every 4 dots from its power-on) and
 * latch their duty bit at each step, with trigger delays of their own (trigger); the
 * sweep's overflow checks take effect some ticks late (sweep_arm); NRx2 writes while a
 * channel plays change its volume ("zombie" mode, the CGB-E's rules on both models) and
 * enabling an envelope steps it once more at the next odd sequencer step; powered on
 * while DIV's sequencer bit is set, the sequencer lets that bit's next fall pass; the
 * noise channel's LFSR steps at the pulses of its divider (a 512 kHz clock counted by the
 * divisor, or the 1 MHz tick) that its shift counter selects, so its first step after a
 * trigger or an NR43 write depends on where these clocks stand (nz_schedule). */
#include <string.h>

#include "emu/gb/gb_int.h"

/* Channel 3's first period after a trigger is this many dots longer (3 ticks of its
 * 2 MHz clock); a DMG trigger corrupts wave RAM when the channel reads a byte this many
 * dots into the CPU's M-cycle. Both as blargg's dmg_sound/cgb_sound tests 09, 10 and 12
 * measure them on hardware. */
#define GB_WAVE_TRIGGER_DELAY 6u
#define GB_WAVE_TRIGGER_READ 2u

/* Read masks: bits that read back as 1 ($FF10-$FF2F). */
static const uint8_t apu_rmask[0x20] = {
    0x80, 0x3F, 0x00, 0xFF, 0xBF, 0xFF, 0x3F, 0x00, 0xFF, 0xBF, 0x7F, 0xFF, 0x9F, 0xFF, 0xBF, 0xFF,
    0xFF, 0x00, 0x00, 0xBF, 0x00, 0x00, 0x70, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* Offsets (from $FF10) of NRx2 and NRx4 per channel. */
static const uint8_t nrx2[4] = {0x02, 0x07, 0x0C, 0x11};
static const uint8_t nrx4[4] = {0x04, 0x09, 0x0E, 0x13};

static uint32_t chan_period(const gb_apu_state *a, int ch)
{
    if (ch < 2)
        return (2048u - a->freq[ch]) * 4u;
    if (ch == 2)
        return (2048u - a->freq[2]) * 2u;
    uint8_t r = a->reg[0x12];
    unsigned div = r & 7, sh = r >> 4;
    if (sh >= 14)
        return 0; /* shifts 14 and 15 stop the LFSR */
    return (div ? div * 16u : 8u) << sh;
}

static void set_period(gb_apu_state *a, int ch)
{
    gb_apu_gen *c = &a->gen.ch[ch];
    c->period = chan_period(a, ch);
    if (c->ctr == 0)
        c->ctr = c->period ? c->period : 1;
}

/* Brings the generators to dot t (>= their time). */
static void nz_advance(gb_apu_state *a, uint64_t dt);

static void gen_advance(gb *g, uint64_t t)
{
    gb_apu_key *k = &g->s.apu.gen;
    if (t <= k->t)
        return;
    if (k->ch[3].on)
        nz_advance(&g->s.apu, t - k->t);
    if (gb_gen_steps(&k->ch[2], t - k->t))
        g->s.apu.wave_fresh = 0;
    for (int ch = 0; ch < 4; ch++)
        gb_gen_advance(&k->ch[ch], ch, t - k->t, g->lfsr, k->wave);
    if (g->s.apu.sweep_due)
        g->s.apu.sweep_due = (uint8_t)(g->s.apu.sweep_due - (t - k->t));
    k->t = t;
}

static void emit_key(gb *g);
static void sweep_check(gb_apu_state *a);

/* Brings the generators to dot t, making the sweep's overflow check on the way when it
 * falls due (it can turn channel 1 off: a keyframe at its dot). */
static void gen_sync(gb *g, uint64_t t)
{
    gb_apu_state *a = &g->s.apu;
    if (a->sweep_due && t >= a->gen.t + a->sweep_due) {
        gen_advance(g, a->gen.t + a->sweep_due);
        a->sweep_due = 0;
        sweep_check(a);
        emit_key(g);
    }
    gen_advance(g, t);
}

/* Appends the current generator state as a keyframe (replacing one at the same dot). */
static void emit_key(gb *g)
{
    gb_vec *v = &g->keys[g->keys_cur];
    gb_apu_key *last = v->n ? (gb_apu_key *)v->v + v->n - 1 : NULL;
    if (last && last->t == g->s.apu.gen.t) {
        *last = g->s.apu.gen;
        return;
    }
    gb_apu_key *k = gb_vec_push(v, sizeof *k);
    *k = g->s.apu.gen;
}

void gb_apu_fs_schedule(gb *g)
{
    int b = 13 + g->s.double_speed; /* falling edge of bit 12 (13): multiples of 2^(b) */
    uint64_t c = gb_sysclk(g, g->s.clk);
    uint64_t target = ((c >> b) + 1) << b;
    gb_sched(g, GB_EV_FS, gb_sysclk_time(g, target));
}

void gb_apu_reset(gb *g)
{
    gb_apu_state *a = &g->s.apu;
    memset(a, 0, sizeof *a);
    a->gen.t = g->s.clk;
    for (int ch = 0; ch < 4; ch++)
        a->gen.ch[ch].ctr = 1;
}

/* NRx2 written while its channel plays ("zombie" mode), as SameSuite's channel_1/2
 * volume and nrx2_glitch tests measure it on the CGB-E: returns the new volume from the
 * old one, the old and new NRx2 and whether the envelope still runs (has not stopped at a
 * bound). Turning the direction to increase makes it 15 - volume when the old period was
 * 0 and the envelope ran, else 14 - volume; to decrease, 16 - volume. Without such an
 * inversion to increase, the envelope steps once (in the new direction) when its period
 * goes from 0 to another, or stays 0 in increase mode, while it runs. 4 bits kept. */
static uint8_t zombie_volume(uint8_t vol, uint8_t old, uint8_t v, int running)
{
    int up = (v & 8) != 0, w = vol;
    int step = running && (((v & 7) && !(old & 7)) || ((old & 15) == 8 && (v & 15) == 8));
    if ((old ^ v) & 8) {
        if (up) {
            w = (!(old & 7) && running) ? 15 - w : 14 - w;
            step = 0;
        } else {
            w = 16 - w;
        }
    }
    if (step)
        w += up ? 1 : -1;
    return (uint8_t)(w & 15);
}

/* One envelope step of channel ch (0, 1, 3) in the direction of its NRx2; at a bound it
 * stops (env_run: the zombie rules see it). */
static void env_step(gb_apu_state *ap, int ch)
{
    uint8_t r = ap->reg[nrx2[ch]];
    gb_apu_gen *c = &ap->gen.ch[ch];
    if ((r & 8) && c->vol < 15)
        c->vol++;
    else if (!(r & 8) && c->vol > 0)
        c->vol--;
    else
        ap->env_run &= (uint8_t)~(1 << ch);
}

/* Sweep frequency calculation from the shadow frequency and NR10: the new frequency,
 * which may exceed 2047 (an overflow). A calculation in subtract mode is remembered. */
static int sweep_calc(gb_apu_state *a)
{
    uint8_t r = a->reg[0x00];
    int d = a->sweep_shadow >> (r & 7);
    if (r & 8)
        a->sweep_neg = 1;
    return (r & 8) ? a->sweep_shadow - d : a->sweep_shadow + d;
}

/* The sweep's overflow checks take effect late, as SameSuite's channel_1_sweep and
 * channel_1_sweep_restart measure: the calculation runs one 1 MHz tick per bit of the
 * shift plus one (8 ticks, 32 dots, at shift 7), from the sweep clock or from the tick
 * after a trigger, and decides with NR10 as it is then (an NR10 write with shift 0
 * cancels it). Schedules the check d dots after the generators' time. */
static void sweep_arm(gb_apu_state *a, uint32_t d)
{
    a->sweep_due = (uint8_t)d;
}

static uint32_t sweep_delay(const gb_apu_state *a)
{
    return 4u * ((a->reg[0x00] & 7u) + 1u);
}

/* The pending overflow check: channel 1 stops when the next frequency exceeds 2047. */
static void sweep_check(gb_apu_state *a)
{
    if (sweep_calc(a) > 2047)
        a->gen.ch[0].on = 0;
}

/* The next frame-sequencer step does not clock the length counters (steps 1, 3, 5, 7,
 * or the fall of DIV's bit that a power-on with the bit set lets pass). */
static int len_off_step(const gb_apu_state *a)
{
    return (a->fs_step & 1) || a->fs_skip;
}

/* Dots from t to the APU's next 1 MHz tick (0 when one falls at t). The ticks come every
 * 4 dots from the APU's power-on, whatever the CPU's speed; the square channels' period
 * dividers count them. */
static uint32_t tick_wait(const gb_apu_state *a, uint64_t t)
{
    return (uint32_t)((a->phase - t) & 3u);
}

/* ---- the noise channel's clocks ---------------------------------------------------------
 * As SameSuite's channel_4 tests measure through PCM34 (delay, align, frequency_alignment,
 * equivalent_frequencies, lfsr_restart): with a divisor code r of 1-7 a divider counts the
 * edges of a 512 kHz clock (every 8 dots, 1 dot after the APU's power-on's dot mod 8) and
 * pulses every r edges; with code 0 it pulses at every 1 MHz tick (3 dots after the
 * power-on's, mod 4), twice the rate of code 1. A shift counter counts the pulses and the
 * LFSR steps when its bit s (NR43's shift) goes from 0 to 1, so every 2^(s+1) pulses. A
 * trigger reloads the divider with r (its first pulse comes r + 1 edges later) and the
 * channel counts pulses from GB_NOISE_START dots after it; neither a trigger nor an NR43
 * write resets the shift counter (power-on does), so the first step after a retrigger
 * depends on where it stood; an NR43 write may reach the divider's reload
 * (nz_divisor_write). The keyframe's nz_* fields hold this state as of its t. */
#define GB_NOISE_START 10u

/* Dots from t to the first later dot that is ph mod m (m a power of two): 1..m. */
static uint32_t next_at(uint64_t t, uint32_t ph, uint32_t m)
{
    return ((ph - (uint32_t)t - 1u) & (m - 1u)) + 1u;
}

/* The noise divider's pulse period in dots. */
static uint32_t nz_pulse_period(unsigned r)
{
    return r ? 8u * r : 4u;
}

/* Dots from the generators' time to the divider's next pulse. */
static uint32_t nz_first_pulse(const gb_apu_state *a)
{
    unsigned r = a->reg[0x12] & 7u;
    if (!r)
        return next_at(a->gen.t, a->phase + 3u, 4);
    return next_at(a->gen.t, a->phase + 1u, 8) + 8u * a->gen.nz_div;
}

/* Counts the pulses of the dt dots after the generators' time (channel 4 playing). */
static void nz_advance(gb_apu_state *a, uint64_t dt)
{
    gb_apu_key *k = &a->gen;
    unsigned r = a->reg[0x12] & 7u;
    uint64_t p = nz_first_pulse(a), d = nz_pulse_period(r);
    uint64_t n = dt >= p ? 1 + (dt - p) / d : 0, counted = n;
    if (n && p < k->nz_wait) {
        uint64_t early = (k->nz_wait - p + d - 1) / d; /* pulses before the channel counts */
        counted = n > early ? n - early : 0;
    }
    k->nz_count = (uint16_t)((k->nz_count + counted) & 0x3FFFu);
    if (r) {
        uint64_t e1 = next_at(k->t, a->phase + 1u, 8);
        uint64_t edges = dt >= e1 ? 1 + (dt - e1) / 8 : 0;
        if (!n)
            k->nz_div = (uint8_t)(k->nz_div - edges);
        else
            k->nz_div = (uint8_t)(r - 1 - (edges - k->nz_div - 1 - (n - 1) * r));
    }
    k->nz_wait = (uint8_t)(dt >= k->nz_wait ? 0 : k->nz_wait - dt);
}

/* NR43 written (old value old) at the generators' time while channel 4 plays. The
 * divider reloads its count 4 dots after each pulse with the divisor of that moment, so a
 * write between a pulse and its reload sets the count by the new divisor: after a pulse
 * of code 0 (one falls every 4 dots, so one always does) the new r counts from the next
 * 1 MHz tick; after a pulse of r 1-7 3 dots or less before, from that pulse's edge. As
 * SameSuite's channel_4_freq_change measures. */
static void nz_divisor_write(gb_apu_state *a, uint8_t old)
{
    gb_apu_key *k = &a->gen;
    unsigned ro = old & 7u, rn = a->reg[0x12] & 7u;
    if (!rn)
        return;
    if (!ro) {
        /* the reload at the next tick: an edge before it does not count */
        int edge_first = next_at(k->t, a->phase + 1u, 8) <= next_at(k->t, a->phase + 3u, 4);
        k->nz_div = (uint8_t)(edge_first ? rn : rn - 1);
    } else if (k->nz_div == ro - 1 && 8u - next_at(k->t, a->phase + 1u, 8) < 4u) {
        k->nz_div = (uint8_t)(rn - 1); /* the last edge pulsed, its reload is to come */
    }
}

/* Sets channel 4's period and the dots to its next LFSR step from its clocks' state at
 * the generators' time (after a trigger or an NR43 write). Shifts 14 and 15 stop it. */
static void nz_schedule(gb_apu_state *a)
{
    gb_apu_gen *c = &a->gen.ch[3];
    unsigned r = a->reg[0x12] & 7u, sh = a->reg[0x12] >> 4;
    if (sh >= 14) {
        c->period = 0;
        c->ctr = 1;
        return;
    }
    uint32_t d = nz_pulse_period(r), p = nz_first_pulse(a), w = a->gen.nz_wait;
    if (p < w)
        p += (w - p + d - 1) / d * d; /* the first pulse counted */
    uint32_t m = 2u << sh, left = ((1u << sh) - a->gen.nz_count) & (m - 1u);
    c->period = d * m;
    c->ctr = p + ((left ? left : m) - 1u) * d;
}

/* Trigger (NRx4 bit 7) at dot t. len_extra: the length counter is enabled and the next
 * sequencer step does not clock it, so an expired counter reloads one short of its
 * maximum. */
static void trigger(gb_apu_state *a, int ch, int len_extra, uint64_t t)
{
    gb_apu_gen *c = &a->gen.ch[ch];
    int was_on = c->on;
    c->on = c->dac;
    if (a->len[ch] == 0)
        a->len[ch] = (uint16_t)((ch == 2 ? 256 : 64) - (len_extra ? 1 : 0));
    c->period = chan_period(a, ch);
    c->ctr = c->period ? c->period : 1;
    if (ch < 2) {
        /* The divider restarts from the period at the next 1 MHz tick and the duty
         * position goes on from where it stopped. The first step comes two ticks more
         * than a period after that tick, one when the channel was playing; a channel
         * that was not playing outputs 0 until then, a playing one its latched bit. */
        c->ctr = tick_wait(a, t) + c->period + (was_on ? 4u : 8u);
        if (!was_on)
            c->buf = 0;
    }
    if (ch != 2) {
        c->vol = a->reg[nrx2[ch]] >> 4;
        /* just before an envelope step the timer starts one longer */
        a->env_timer[ch] = (uint8_t)((a->reg[nrx2[ch]] & 7) + (a->fs_step == 7 ? 1 : 0));
        a->env_run |= (uint8_t)(1 << ch);
    } else {
        /* the position restarts, the sample buffer is not refilled: the first read (of
         * sample 1) comes a period and GB_WAVE_TRIGGER_DELAY dots later */
        c->pos = 0;
        c->ctr += GB_WAVE_TRIGGER_DELAY;
        a->wave_fresh = 1;
    }
    if (ch == 3) {
        unsigned r = a->reg[0x12] & 7u;
        c->lfsr = 0x7FFF;
        a->gen.nz_div = (uint8_t)(r ? r : 1);
        a->gen.nz_wait = GB_NOISE_START;
        nz_schedule(a);
    }
    if (ch == 0) {
        uint8_t r = a->reg[0x00];
        a->sweep_shadow = a->freq[0];
        a->sweep_timer = ((r >> 4) & 7) ? ((r >> 4) & 7) : 8;
        a->sweep_en = ((r >> 4) & 7) || (r & 7);
        a->sweep_neg = 0;
        sweep_arm(a, 0);
        if (r & 7) {
            sweep_calc(a);
            sweep_arm(a, tick_wait(a, t) + 4u + sweep_delay(a));
        }
    }
}

/* ---- wave RAM while channel 3 plays ----------------------------------------------------- */

/* DMG: the byte channel 3 reads at dot s->clk + d (0 <= d < an M-cycle; the generator
 * is at s->clk), or -1 when it reads none then. Its last read was period - ctr dots
 * before s->clk (unless it has read nothing since its trigger), its next is ctr after. */
static int wave_read_at(gb *g, uint32_t d)
{
    const gb_apu_gen *c = &g->s.apu.gen.ch[2];
    if (!c->period)
        return -1;
    if (d == 0 && c->ctr == c->period && !g->s.apu.wave_fresh)
        return c->pos >> 1;
    if (d > 0 && c->ctr == d)
        return ((c->pos + 1) & 31) >> 1;
    return -1;
}

/* DMG: triggering channel 3 when it reads a byte GB_WAVE_TRIGGER_READ dots into the
 * write's M-cycle rewrites the start of wave RAM: byte 0 with that byte when it is one of
 * the first four, else bytes 0-3 with the aligned four bytes it belongs to. */
static void wave_trigger_corrupt(gb *g)
{
    gb_apu_key *k = &g->s.apu.gen;
    if (!k->ch[2].on)
        return;
    int b = wave_read_at(g, GB_WAVE_TRIGGER_READ);
    if (b < 0)
        return;
    if (b < 4)
        k->wave[0] = k->wave[b];
    else
        memcpy(k->wave, k->wave + (b & ~3), 4);
    memcpy(g->s.apu.reg + 0x20, k->wave, 4);
}

/* The byte of wave RAM the CPU reaches at dot s->clk when it addresses byte i: i itself
 * while channel 3 is off; while it plays, the byte the channel reads (CGB), or on the DMG
 * that byte only if the channel reads it at the very dot of the access, else -1 (reads
 * $FF, writes are lost). */
static int wave_byte(gb *g, int i)
{
    gb_state *s = &g->s;
    const gb_apu_gen *c = &s->apu.gen.ch[2];
    if (!c->on)
        return i;
    if (s->cgb_hw)
        return c->pos >> 1;
    return wave_read_at(g, 0);
}

uint8_t gb_apu_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    gb_apu_state *ap = &s->apu;
    unsigned r = a - 0xFF10u;
    if (a == 0xFF76 || a == 0xFF77) {
        /* CGB PCM12/PCM34: the channels' digital outputs now. */
        if (ap->sweep_due)
            gen_sync(g, s->clk);
        gb_apu_key k = ap->gen;
        int amp[4];
        for (int ch = 0; ch < 4; ch++) {
            gb_gen_advance(&k.ch[ch], ch, s->clk - k.t, g->lfsr, k.wave);
            amp[ch] = gb_gen_amp(&k.ch[ch], ch);
        }
        return a == 0xFF76 ? (uint8_t)(amp[0] | (amp[1] << 4)) : (uint8_t)(amp[2] | (amp[3] << 4));
    }
    if (r >= 0x20) {
        gen_sync(g, s->clk);
        int i = wave_byte(g, (int)r - 0x20);
        return i < 0 ? 0xFF : ap->gen.wave[i];
    }
    if (r == 0x16) {
        if (ap->sweep_due)
            gen_sync(g, s->clk);
        uint8_t v = (uint8_t)(0x70 | (ap->power << 7));
        for (int ch = 0; ch < 4; ch++)
            if (ap->gen.ch[ch].on)
                v |= (uint8_t)(1 << ch);
        return v;
    }
    return ap->reg[r] | apu_rmask[r];
}

void gb_apu_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    gb_apu_state *ap = &s->apu;
    unsigned r = a - 0xFF10u;
    gen_sync(g, s->clk);
    if (r >= 0x20) {
        int i = wave_byte(g, (int)r - 0x20);
        if (i >= 0) {
            ap->reg[0x20 + i] = v;
            ap->gen.wave[i] = v;
            emit_key(g);
        }
        return;
    }
    if (!ap->power) {
        /* Registers are read-only while the APU is off, but on the DMG the length
         * counters still load from NRx1 (not the duty bits). */
        if (!s->cgb_hw && (r == 0x01 || r == 0x06 || r == 0x10))
            ap->len[r == 0x01 ? 0 : r == 0x06 ? 1 : 3] = (uint16_t)(64 - (v & 63));
        else if (!s->cgb_hw && r == 0x0B)
            ap->len[2] = (uint16_t)(256 - v);
        if (r != 0x16)
            return;
    }
    uint8_t old = ap->reg[r];
    ap->reg[r] = v;
    gb_apu_key *k = &ap->gen;
    switch (r) {
    case 0x00:
        /* leaving subtract mode after a subtract calculation disables channel 1; a
         * shift of 0 cancels a pending overflow check */
        if (ap->sweep_neg && (old & 8) && !(v & 8))
            k->ch[0].on = 0;
        if (!(v & 7))
            sweep_arm(ap, 0);
        break;
    case 0x01: case 0x06: case 0x10: {
        int ch = r == 0x01 ? 0 : r == 0x06 ? 1 : 3;
        ap->len[ch] = (uint16_t)(64 - (v & 63));
        if (ch < 2)
            k->ch[ch].mode = v >> 6;
        break;
    }
    case 0x0B:
        ap->len[2] = (uint16_t)(256 - v);
        break;
    case 0x02: case 0x07: case 0x11: {
        int ch = r == 0x02 ? 0 : r == 0x07 ? 1 : 3;
        gb_apu_gen *c = &k->ch[ch];
        int running = (ap->env_run >> ch) & 1;
        if (c->on) {
            c->vol = zombie_volume(c->vol, old, v, running);
            /* Enabling the envelope (period 0 to another) restarts its timer and makes
             * it step once more at the next odd sequencer step. */
            if (!(old & 7) && (v & 7)) {
                ap->env_timer[ch] = v & 7;
                if (running)
                    ap->env_kick |= (uint8_t)(1 << ch);
            }
        }
        c->dac = (v & 0xF8) != 0;
        if (!c->dac)
            c->on = 0;
        break;
    }
    case 0x0A:
        k->ch[2].dac = (v & 0x80) != 0;
        if (!k->ch[2].dac)
            k->ch[2].on = 0;
        break;
    case 0x0C:
        k->ch[2].vol = (v >> 5) & 3;
        break;
    case 0x03: case 0x08: case 0x0D: {
        int ch = r == 0x03 ? 0 : r == 0x08 ? 1 : 2;
        ap->freq[ch] = (uint16_t)((ap->freq[ch] & 0x700) | v);
        set_period(ap, ch);
        break;
    }
    case 0x04: case 0x09: case 0x0E: case 0x13: {
        int ch = r == 0x04 ? 0 : r == 0x09 ? 1 : r == 0x0E ? 2 : 3;
        if (ch < 3) {
            ap->freq[ch] = (uint16_t)((ap->freq[ch] & 0xFF) | ((v & 7) << 8));
            set_period(ap, ch);
        }
        /* Enabling the length counter while the next sequencer step does not clock it
         * clocks it once now; reaching 0 that way disables the channel unless it is
         * triggered in the same write. */
        int extra = len_off_step(ap) && (v & 0x40);
        if (extra && !(old & 0x40) && ap->len[ch] && --ap->len[ch] == 0 && !(v & 0x80))
            k->ch[ch].on = 0;
        if (v & 0x80) {
            if (ch == 2 && !s->cgb_hw)
                wave_trigger_corrupt(g);
            trigger(ap, ch, extra, s->clk);
            /* The trigger reloads the sweep timer 3 ticks after the write: a sweep clock
             * before that does not count it (SameSuite's channel_1_sweep_restart_2). */
            if (ch == 0 && (ap->fs_step == 2 || ap->fs_step == 6) && s->ev[GB_EV_FS] - s->clk < 12)
                ap->sweep_skip = 1;
        }
        break;
    }
    case 0x12:
        /* the divider and the shift counter go on: the next step is where they lead
         * with the new divisor and shift */
        k->ch[3].mode = (v >> 3) & 1;
        if (k->ch[3].on)
            nz_divisor_write(ap, old);
        nz_schedule(ap);
        break;
    case 0x14: /* NR50, NR51: the mixer takes them as written */
    case 0x15:
        k->nr5x[r - 0x14] = v;
        break;
    case 0x16:
        if (!(v & 0x80) && ap->power) {
            /* Power off clears every register but wave RAM (and the DMG's length
             * counters) and stops the channels. */
            uint8_t wave[16];
            uint16_t len[4];
            memcpy(wave, k->wave, 16);
            memcpy(len, ap->len, sizeof len);
            uint64_t t = k->t;
            memset(ap, 0, sizeof *ap);
            memcpy(ap->reg + 0x20, wave, 16);
            memcpy(k->wave, wave, 16);
            if (!s->cgb_hw)
                memcpy(ap->len, len, sizeof len);
            k->t = t;
            for (int ch = 0; ch < 4; ch++)
                k->ch[ch].ctr = 1;
        } else if ((v & 0x80) && !ap->power) {
            /* power on: the sequencer's next step is 0; duty positions and the wave
             * sample buffer start from 0 */
            ap->power = 1;
            ap->fs_step = 0;
            /* powered on while the sequencer's bit of DIV is set, the sequencer does not
             * step at that bit's coming fall (SameSuite's div_write_trigger_10) */
            ap->fs_skip = (uint8_t)((gb_sysclk(g, s->clk) >> (12 + s->double_speed)) & 1);
            ap->phase = (uint8_t)(s->clk & 7);
            k->ch[0].pos = k->ch[1].pos = 0;
            k->ch[0].buf = k->ch[1].buf = 0;
            k->ch[2].buf = 0;
        }
        ap->reg[0x16] = v & 0x80;
        break;
    default:
        break;
    }
    emit_key(g);
}

/* One frame-sequencer step at dot t. */
static void fs_step(gb *g, uint64_t t)
{
    gb_apu_state *ap = &g->s.apu;
    if (!ap->power)
        return;
    if (ap->fs_skip) {
        ap->fs_skip = 0;
        return;
    }
    /* channel 1 steps at this very dot (its divider reloads now) */
    const gb_apu_gen *c0 = &ap->gen.ch[0];
    uint64_t dt = t - ap->gen.t;
    int c0_now = c0->on && c0->period && dt && dt >= c0->ctr && (dt - c0->ctr) % c0->period == 0;
    gen_sync(g, t);
    gb_apu_key before = ap->gen;
    int step = ap->fs_step;
    int skip = ap->sweep_skip;
    ap->sweep_skip = 0;
    if (!(step & 1)) {
        for (int ch = 0; ch < 4; ch++)
            if ((ap->reg[nrx4[ch]] & 0x40) && ap->len[ch] > 0 && --ap->len[ch] == 0)
                ap->gen.ch[ch].on = 0;
    }
    if ((step == 2 || step == 6) && !skip && ap->sweep_timer > 0 && --ap->sweep_timer == 0) {
        uint8_t r = ap->reg[0x00];
        ap->sweep_timer = ((r >> 4) & 7) ? ((r >> 4) & 7) : 8;
        if (ap->sweep_en && ((r >> 4) & 7)) {
            int nf = sweep_calc(ap);
            if (nf > 2047) {
                sweep_arm(ap, sweep_delay(ap));
            } else if (r & 7) {
                /* the new frequency is written back at once (a divider reloading at
                 * this dot takes it); the next one is only checked for overflow */
                uint32_t oldp = ap->gen.ch[0].period;
                ap->sweep_shadow = (uint16_t)nf;
                ap->freq[0] = (uint16_t)nf;
                ap->reg[0x03] = (uint8_t)nf;
                ap->reg[0x04] = (uint8_t)((ap->reg[0x04] & 0xF8) | (nf >> 8));
                set_period(ap, 0);
                if (c0_now && ap->gen.ch[0].ctr == oldp)
                    ap->gen.ch[0].ctr = ap->gen.ch[0].period;
                sweep_calc(ap);
                sweep_arm(ap, sweep_delay(ap));
            }
        }
    }
    if ((step & 1) && ap->env_kick) {
        for (int ch = 0; ch < 4; ch++)
            if (((ap->env_kick >> ch) & 1) && ((ap->env_run >> ch) & 1))
                env_step(ap, ch);
        ap->env_kick = 0;
    }
    if (step == 7) {
        for (int ch = 0; ch < 4; ch++) {
            if (ch == 2)
                continue;
            uint8_t r = ap->reg[nrx2[ch]];
            if (!(r & 7) || !ap->env_timer[ch] || --ap->env_timer[ch])
                continue;
            ap->env_timer[ch] = r & 7;
            env_step(ap, ch);
        }
    }
    ap->fs_step = (uint8_t)((step + 1) & 7);
    if (memcmp(&before, &ap->gen, sizeof before) != 0)
        emit_key(g);
}

void gb_apu_fs_event(gb *g, uint64_t t)
{
    fs_step(g, t);
    int b = 13 + g->s.double_speed;
    uint64_t target = ((gb_sysclk(g, t) >> b) + 1) << b;
    gb_sched(g, GB_EV_FS, gb_sysclk_time(g, target));
}

/* DIV was reset at s.clk; old is the counter before. A high sequencer bit falls. */
void gb_apu_div_reset(gb *g, uint64_t old)
{
    if ((old >> (12 + g->s.double_speed)) & 1)
        fs_step(g, g->s.clk);
    gb_apu_fs_schedule(g);
}

/* The frame period ended at dot t: the keys up to t form the completed frame's audio
 * log; the new period starts with the state at t followed by any later keys. */
void gb_apu_period_switch(gb *g, uint64_t t)
{
    if (g->s.apu.sweep_due)
        gen_sync(g, t); /* a sweep check due by t is part of this period */
    gb_vec *old = &g->keys[g->keys_cur];
    gb_vec *nw = &g->keys[g->keys_cur ^ 1];
    gb_apu_key *k = old->v;
    uint32_t j = gb_key_find(k, old->n, t);
    nw->n = 0;
    gb_apu_key *first = gb_vec_push(nw, sizeof *first);
    *first = k[j];
    for (int ch = 0; ch < 4; ch++)
        gb_gen_advance(&first->ch[ch], ch, t - first->t, g->lfsr, first->wave);
    first->t = t;
    for (uint32_t i = j + 1; i < old->n; i++)
        *(gb_apu_key *)gb_vec_push(nw, sizeof *first) = ((gb_apu_key *)old->v)[i];
    old->n = j + 1;
    uint64_t k1 = gb_sample_first_at(t);
    g->alog.k0 = g->s.sample_k;
    g->alog.n = (uint32_t)(k1 - g->s.sample_k);
    g->alog.nkeys = old->n;
    g->alog.keys = old->v;
    g->s.sample_k = k1;
    g->keys_cur ^= 1;
}
