/* apu_pcm_test.c: gpuvet's test ROM for the APU channels at the M-cycle (DMG and CGB).
 * Each case power-cycles the APU, sets a channel up, then runs a timed sequence (a
 * write, n1 NOPs, a second write, n2 NOPs, a read) and compares the read with what the
 * documented rules give for that M-cycle. The channels' digital outputs are read through
 * PCM12/PCM34 (CGB mode only); what the DMG can see (NR52) is checked on both models.
 *
 * The rules (SameSuite's apu tests and their comments, Pan Docs "Audio Details"), in
 * single speed, where one M-cycle is one tick of the APU's 1 MHz clock:
 *  - square channels: a trigger restarts the period divider; the first duty step comes
 *    period + 2 ticks after the trigger's M-cycle (period + 1 when the channel was
 *    playing), then one every period. Until its first step a channel that was not
 *    playing outputs 0. The position is never reset by a trigger: the first step plays
 *    the position after the one it stopped at (stopping a channel freezes it). The duty
 *    bit is latched at each step with the duty of that moment;
 *  - envelopes: NRx2 written while the channel plays moves the volume by the CGB-E's
 *    "zombie" rules (SameSuite channel_1_volume); enabling the envelope (period 0 to
 *    another) also makes it step at the next odd sequencer step (the second after a DIV
 *    reset), besides its regular steps at step 7 (channel_1_nrx2_speed_change);
 *  - the sweep (channel_1_sweep, channel_1_sweep_restart, channel_1_sweep_restart_2):
 *    its overflow checks stop the channel late, one 1 MHz tick per bit of the shift
 *    plus one after the sweep clock, or after the tick that follows a trigger, deciding
 *    with NR10 as it is then (shift 0 cancels); a sweep clock less than 3 ticks after a
 *    trigger is not counted. Seen through NR52 on both models;
 *  - the frame sequencer: powered on while DIV's bit 4 is set, it does not step at that
 *    bit's next fall (div_write_trigger_10; NR52, both models);
 *  - the noise channel (channel_4_delay, align, frequency_alignment, lfsr_restart,
 *    lfsr_7_15, freq_change): its divider, its pulse count and the first LFSR steps after
 *    a trigger, a retrigger, a width switch and a divisor change (rules at test_noise). */
#include "common.h"

/* ---- the timed sequence ------------------------------------------------------------------ */

/* Inputs of run_timed: the first write ($FF00 + w1_reg := w1_val, M-cycle W), n1 NOPs, the
 * second write ($FF00 + w2_reg := w2_val at W + 7 + n1), n2 NOPs, the read of $FF00 + rd_reg
 * at W + 7 + n1 + 6 + n2 into out_v. n1 <= 2112 (a sequencer step is 2048 M-cycles),
 * n2 <= 64. w2_reg $80 (HRAM) when no second write is wanted. run_wr: the first write,
 * n2 NOPs and the read at W + 3 + n2. */
uint8_t w1_reg, w1_val, w2_reg, w2_val, n2, rd_reg, out_v;
uint16_t n1;

#define T_W2(n1) (7u + (n1))             /* M-cycles from the first write to the second */
#define T_RD(n1, n2) (13u + (n1) + (n2)) /* ... and to the read */
#define T_WR(n) (3u + (n))               /* run_wr: from the write to the read */

/* HL -= DE. */
void hl_sub_de(void) __naked
{
    __asm
        ld a, l
        sub a, e
        ld l, a
        ld a, h
        sbc a, d
        ld h, a
        ret
    __endasm;
}

/* nz_mode 1 or 2: the first write is preceded by channel 4's set-up from a power-on:
 * the APU powered off and on (M-cycle P), NR42 := $F0 (P + 5), NR43 := nz43 (P + 12), and
 * the first write at P + 21 (mode 1) or P + 20 (mode 2). 0: none. */
uint8_t nz_mode, nz43;

/* The NOP counts are reached by returning into two NOP slides at their end - n: the
 * addresses are pushed first (read-side slide, then the write-side one), so both jumps
 * are RETs of 4 M-cycles whatever n is. */
void run_timed(void) __naked
{
    __asm
        ld hl, #9$
        push hl
        ld hl, #2$
        ld a, (_n2)
        ld e, a
        ld d, #0
        call _hl_sub_de
        push hl
        ld hl, #1$
        ld a, (_n1)
        ld e, a
        ld a, (_n1 + 1)
        ld d, a
        call _hl_sub_de
        push hl
        ld a, (_rd_reg)
        ld e, a
        ld d, #0xFF
        ld a, (_w2_reg)
        ld c, a
        ld a, (_w2_val)
        ld b, a
        ld a, (_w1_reg)
        ld l, a
        ld h, #0xFF
        ld a, (_nz_mode)
        or a, a
        jr z, 6$
        dec a
        ld a, #0
        ldh (0x26), a
        ld a, #0x80
        ldh (0x26), a
        ld a, #0xF0
        ldh (0x21), a
        ld a, (_nz43)
        ldh (0x22), a
        jr z, 6$ ; taken (mode 1): one M-cycle more
    6$:
        ld a, (_w1_val)
        ld (hl), a
        ret
        .rept 2112
        nop
        .endm
    1$:
        ld a, b
        ldh (c), a
        ret
        .rept 64
        nop
        .endm
    2$:
        ld a, (de)
        ld (_out_v), a
        ret
    9$:
        ret
    __endasm;
}

/* The write, then a JP (HL) of one M-cycle into the slide. */
void run_wr(void) __naked
{
    __asm
        ld hl, #1$
        ld a, (_n2)
        ld e, a
        ld d, #0
        call _hl_sub_de
        ld a, (_rd_reg)
        ld e, a
        ld d, #0xFF
        ld a, (_w1_reg)
        ld c, a
        ld a, (_w1_val)
        ldh (c), a
        jp (hl)
        .rept 64
        nop
        .endm
    1$:
        ld a, (de)
        ld (_out_v), a
        ret
    __endasm;
}

static void apu_restart(void)
{
    rNR52 = 0;
    rNR52 = 0x80;
    rNR51 = 0;
}

/* Runs the timed sequence with the channel set up by the caller. */
static uint8_t timed(uint8_t r1, uint8_t v1, uint16_t a, uint8_t r2, uint8_t v2, uint8_t b, uint8_t rd)
{
    w1_reg = r1, w1_val = v1, n1 = a, w2_reg = r2, w2_val = v2, n2 = b, rd_reg = rd, nz_mode = 0;
    run_timed();
    return out_v;
}

/* One write, b NOPs, one read. */
static uint8_t wr(uint8_t r1, uint8_t v1, uint8_t b, uint8_t rd)
{
    w1_reg = r1, w1_val = v1, n2 = b, rd_reg = rd;
    run_wr();
    return out_v;
}

/* ---- square channels -------------------------------------------------------------------- */

static uint8_t duty_bit(uint8_t duty, uint8_t pos)
{
    static const uint8_t pat[4] = {0x80, 0x81, 0xE1, 0x7E};
    return (uint8_t)((pat[duty] >> (pos & 7)) & 1);
}

/* Steps of a square channel triggered at tick 0 and seen at tick r: the first comes
 * period + first ticks after the trigger, then one every period. */
static uint8_t sq_steps(uint8_t period, uint8_t first, uint8_t r)
{
    if (r < period + first)
        return 0;
    return (uint8_t)(1 + (r - period - first) / period);
}

/* Channel ch (0, 1): NRx1 duty, NRx2 $F0 (volume 15, DAC on), the period in ticks. */
static void sq_setup(uint8_t ch, uint8_t duty, uint8_t period)
{
    uint8_t b = ch ? 0x15 : 0x10;
    REG(0xFF01 + b) = (uint8_t)(duty << 6);
    REG(0xFF02 + b) = 0xF0;
    REG(0xFF03 + b) = (uint8_t)(0 - period);
}

/* Channel ch's nibble of PCM12 (ch 0, 1) or PCM34 (ch 2, 3). */
static uint8_t nib(uint8_t ch, uint8_t pcm)
{
    return (ch & 1) ? (uint8_t)(pcm >> 4) : (uint8_t)(pcm & 15);
}

static void test_square(uint8_t ch)
{
    uint8_t nr = ch ? 0x19 : 0x14, nr1 = ch ? 0x16 : 0x11, nr2 = ch ? 0x17 : 0x12;
    /* trigger delay: 16 ticks a step, 75 % duty (steps 1-6 high), read from tick 13 on */
    for (uint8_t n = 0; n < 24; n++) {
        apu_restart();
        sq_setup(ch, 3, 16);
        uint8_t v = nib(ch, timed(nr, 0x87, n, 0x80, 0, 0, 0x76));
        uint8_t k = sq_steps(16, 2, (uint8_t)T_RD(n, 0));
        uint8_t want = k && duty_bit(3, k) ? 15 : 0;
        check(v == want, ch ? "ch2 trigger delay" : "ch1 trigger delay", v, want);
    }
    /* retrigger while playing: one tick shorter, the position goes on; 3 ticks a step,
     * 50 % duty (steps 5-7 and 0 high) */
    for (uint8_t a = 0; a < 24; a += 3) {
        for (uint8_t b = 0; b < 30; b += 5) {
            apu_restart();
            sq_setup(ch, 2, 3);
            uint8_t v = nib(ch, timed(nr, 0x87, a, nr, 0x87, b, 0x76));
            uint8_t p = sq_steps(3, 2, (uint8_t)T_W2(a));
            uint8_t k = sq_steps(3, 1, (uint8_t)(T_RD(a, b) - T_W2(a)));
            uint8_t want = (p + k) && duty_bit(2, (uint8_t)(p + k)) ? 15 : 0;
            check(v == want, ch ? "ch2 retrigger keeps the position" : "ch1 retrigger keeps the position", v, want);
        }
    }
    /* stopped (DAC off) at W + 7 + a: the position freezes; a trigger later goes on from it */
    for (uint8_t a = 0; a < 40; a += 3) {
        apu_restart();
        sq_setup(ch, 2, 3);
        timed(nr, 0x87, a, nr2, 0x00, 0, 0x76);
        uint8_t p = sq_steps(3, 2, (uint8_t)T_W2(a));
        REG(0xFF00 + nr2) = 0xF0;
        uint8_t v = nib(ch, timed(nr, 0x87, 0, 0x80, 0, 0, 0x76));
        uint8_t k = sq_steps(3, 2, (uint8_t)T_RD(0, 0));
        uint8_t want = duty_bit(2, (uint8_t)(p + k)) ? 15 : 0;
        check(v == want, ch ? "ch2 stop keeps the position" : "ch1 stop keeps the position", v, want);
    }
    /* duty written at W + 7 + a: the step latches the duty of its moment; 4 ticks a step,
     * 12.5 % then 75 % */
    for (uint8_t a = 0; a < 40; a += 2) {
        apu_restart();
        sq_setup(ch, 0, 4);
        uint8_t v = nib(ch, timed(nr, 0x87, a, nr1, 0xC0, 2, 0x76));
        uint8_t w2 = (uint8_t)T_W2(a), r = (uint8_t)T_RD(a, 2);
        uint8_t k = sq_steps(4, 2, r);
        /* the step of the bit seen: at tick 6 + 4 (k - 1); a step in the write's own M-cycle
         * comes before it */
        uint8_t duty = k && (uint8_t)(6 + 4 * (k - 1)) > w2 ? 3 : 0;
        uint8_t want = k && duty_bit(duty, k) ? 15 : 0;
        check(v == want, ch ? "ch2 duty latched at the step" : "ch1 duty latched at the step", v, want);
    }
    apu_restart();
}

/* ---- envelopes ----------------------------------------------------------------------------- */

/* DIV reset twice (a reset while DIV's bit 4 is set is a sequencer step itself): the next
 * step comes 8192 dots (32 DIV counts) later. */
static void div_sync(void)
{
    rDIV = 0;
    rDIV = 0;
}

/* Waits until DIV has counted to at least d since div_sync (d < $100). */
static void div_wait(uint8_t d)
{
    while (rDIV < d)
        ;
}

/* Channel ch (0, 1) triggered with NRx2 = nrx2, period 1024 ticks, 75 % duty, the APU
 * powered on just after a DIV reset; returns at DIV 17, after its first step (1026 ticks,
 * 4104 dots), from which PCM12 shows its volume for 1024 ticks. */
static void sq_hold(uint8_t ch, uint8_t nrx2)
{
    uint8_t b = ch ? 0x15 : 0x10;
    div_sync();
    apu_restart(); /* the sequencer's next step, 0, comes at DIV $20 */
    REG(0xFF01 + b) = 0xC0;
    REG(0xFF02 + b) = nrx2;
    REG(0xFF03 + b) = 0x00;
    REG(0xFF04 + b) = 0x84;
    div_wait(17); /* 4352 dots: the first step was played */
}

/* The zombie rules of the CGB-E (SameSuite channel_1/2_volume): the new volume after an
 * NRx2 write while the channel plays with volume vol, its envelope running. */
static uint8_t zombie_want(uint8_t vol, uint8_t old, uint8_t v)
{
    uint8_t oup = old & 8, nup = v & 8, op = old & 7, np = v & 7;
    if (oup && !nup) /* to decrease: 16 - volume, one step down when enabled from 0 */
        return (uint8_t)((16 - vol - (!op && np ? 1 : 0)) & 15);
    if (!oup && nup) /* to increase: 15 - volume from period 0, else 14 - volume */
        return (uint8_t)((op ? 14 - vol : 15 - vol) & 15);
    if (nup) /* increase: one step up when the old period was 0 */
        return (uint8_t)((vol + (op ? 0 : 1)) & 15);
    return (uint8_t)((vol - (!op && np ? 1 : 0)) & 15); /* decrease: one down when enabled */
}

static void test_envelope(uint8_t ch)
{
    static const uint8_t modes[4] = {0x00, 0x01, 0x08, 0x09}; /* decrease/increase, period 0/1 */
    uint8_t nr2 = ch ? 0x17 : 0x12;
    for (uint8_t vol = 1; vol < 16; vol += 7) {
        for (uint8_t i = 0; i < 4; i++) {
            for (uint8_t j = 0; j < 4; j++) {
                uint8_t old = (uint8_t)(vol << 4 | modes[i]), v = (uint8_t)(0xF0 | modes[j]);
                sq_hold(ch, old);
                REG(0xFF00 + nr2) = v;
                uint8_t got = nib(ch, REG(0xFF76));
                check(got == zombie_want(vol, old, v), ch ? "ch2 zombie volume" : "ch1 zombie volume", got,
                      zombie_want(vol, old, v));
            }
        }
    }
    /* enabling the envelope (increase, period 0 to 1, volume 0): +1 at once, one more step at
     * the second sequencer step (the next odd one), then one at step 7 (the 8th) */
    sq_hold(ch, 0x08);
    REG(0xFF00 + nr2) = 0x09;
    uint8_t v0 = nib(ch, REG(0xFF76));
    div_wait(0x24);
    uint8_t v1 = nib(ch, REG(0xFF76));
    div_wait(0x44);
    uint8_t v2 = nib(ch, REG(0xFF76));
    div_wait(0xE4);
    uint8_t v7 = nib(ch, REG(0xFF76));
    while (rDIV >= 0xE4)
        ;
    div_wait(17); /* (the duty position is high at each of these reads) */
    uint8_t v8 = nib(ch, REG(0xFF76));
    check(v0 == 1, ch ? "ch2 envelope enabled: +1 at once" : "ch1 envelope enabled: +1 at once", v0, 1);
    check(v1 == 1, ch ? "ch2 envelope enabled: no step at step 0" : "ch1 envelope enabled: no step at step 0", v1, 1);
    check(v2 == 2, ch ? "ch2 envelope enabled: a step at step 1" : "ch1 envelope enabled: a step at step 1", v2, 2);
    check(v7 == 2, ch ? "ch2 envelope enabled: none until step 7" : "ch1 envelope enabled: none until step 7", v7, 2);
    check(v8 == 3, ch ? "ch2 envelope enabled: step 7" : "ch1 envelope enabled: step 7", v8, 3);
    apu_restart();
}

/* ---- the sweep ---------------------------------------------------------------------------- */

/* Channel 1 set up (NR10 nr10, 50 % duty, volume 15, frequency $700 | lo), triggered
 * or not, the APU powered on just after a DIV reset; returns once the sequencer's steps 0
 * and 1 have passed and DIV's bit 4 is clear, so that a DIV reset made now (no step of
 * its own) puts step 2, a sweep clock, 2048 M-cycles after it. */
static void sweep_setup(uint8_t nr10, uint8_t lo, uint8_t trig)
{
    div_sync();
    apu_restart();
    rNR10 = nr10;
    rNR11 = 0x80;
    rNR12 = 0xF0;
    rNR13 = lo;
    rNR14 = trig ? 0x87 : 0x07;
    div_wait(0x40);
}

#define ON1(x) ((uint8_t)((x) & 1))

/* Channel 1 at $7FF (once NR14 is written) with shift 7, whose next frequency overflows. */
static void sweep_overflowing(void)
{
    div_sync();
    apu_restart();
    rNR10 = 0x07;
    rNR11 = 0x80;
    rNR12 = 0xF0;
    rNR13 = 0xFF;
}

static void test_sweep(void)
{
    /* a trigger's overflow check (shift 7: $7FF + $F) stops the channel 9 ticks after the
     * write: the tick after it, then one per bit of the shift plus one */
    for (uint8_t n = 0; n < 10; n++) {
        sweep_overflowing();
        uint8_t on = ON1(wr(0x14, 0x87, n, 0x26));
        check(on == (T_WR(n) < 9 ? 1 : 0), "sweep check 9 ticks after a trigger", on, T_WR(n) < 9 ? 1 : 0);
    }
    /* an NR10 write before then decides with its shift; shift 0 cancels the check */
    for (uint8_t v = 0; v < 2; v++) {
        sweep_overflowing();
        uint8_t on = ON1(timed(0x14, 0x87, 0, 0x10, v, 0, 0x26));
        check(on == (v ? 0 : 1), v ? "sweep check with the shift of an NR10 write" : "sweep check cancelled by shift 0", on,
              v ? 0 : 1);
    }
    /* a sweep clock writes $7F0 + $F back and checks $7FF + $F 8 ticks later (shift 7) */
    for (uint8_t m = 4; m < 12; m++) {
        sweep_setup(0x17, 0xF0, 1);
        uint8_t on = ON1(timed(0x04, 0, (uint16_t)(2035u + m), 0x80, 0, 0, 0x26));
        check(on == (m < 8 ? 1 : 0), "sweep check 8 ticks after the sweep clock", on, m < 8 ? 1 : 0);
    }
    /* an overflow of the sweep clock's own calculation (shift 0: $7FF + $7FF) a tick later */
    for (uint8_t m = 0; m < 2; m++) {
        sweep_setup(0x10, 0xFF, 1);
        uint8_t on = ON1(timed(0x04, 0, (uint16_t)(2035u + m), 0x80, 0, 0, 0x26));
        check(on == (m < 1 ? 1 : 0), "sweep overflow a tick after the sweep clock", on, m < 1 ? 1 : 0);
    }
    /* a trigger 2 ticks or less before the sweep clock: the clock does not count */
    for (uint8_t j = 1; j < 6; j++) {
        sweep_setup(0x10, 0xFF, 0);
        uint8_t on = ON1(timed(0x04, 0, (uint16_t)(2041u - j), 0x14, 0x87, 4, 0x26));
        check(on == (j < 3 ? 1 : 0), "sweep clock just after a trigger", on, j < 3 ? 1 : 0);
    }
    apu_restart();
}

/* ---- the noise channel ---------------------------------------------------------------------- */

/* The rules (SameSuite's channel_4 tests), in dots from the APU's power-on: with divisor
 * code r of 1-7 a divider counts the edges of a 512 kHz clock (dots 1 mod 8) and pulses
 * every r edges; a trigger reloads it, so its first pulse is the (r + 1)th edge after the
 * trigger; code 0 pulses at every 1 MHz tick (dots 3 mod 4). The channel counts the pulses
 * from 10 dots after the trigger; the LFSR steps when the count's bit s (the shift) goes
 * from 0 to 1. The count is reset only by the power-on, not by a trigger. The LFSR: 15 bits
 * set by a trigger, each step shifts right with bit 0 XOR bit 1 entering bit 14 (and bit 6
 * in 7-bit mode); the channel outputs its volume while bit 0 is 0. */

/* Pulses the channel counts from its trigger at dot t (a multiple of 4) to dot e. */
static uint16_t nz_pulses(uint8_t r, uint16_t t, uint16_t e)
{
    uint16_t p, d = r ? (uint16_t)(8u * r) : 4u;
    if (r) {
        p = (uint16_t)(((t + 7u) & ~7u) + 1u + d); /* the (r + 1)th edge after t (t is even) */
    } else {
        p = (uint16_t)(t + 3u);
    }
    while (p < t + 10u)
        p += d;
    return e < p ? 0 : (uint16_t)(1u + (e - p) / d);
}

/* LFSR steps among the counts c0 + 1 .. c0 + n at shift s. */
static uint16_t nz_steps(uint8_t s, uint16_t c0, uint16_t n)
{
    uint16_t h = (uint16_t)(1u << s);
    return (uint16_t)((c0 + n + h) / (2u * h) - (c0 + h) / (2u * h));
}

static uint16_t lfsr_run(uint16_t l, uint8_t w7, uint16_t n)
{
    while (n--) {
        uint16_t fb = (l ^ (l >> 1)) & 1u;
        l = (uint16_t)((l >> 1) | (fb << 14));
        if (w7)
            l = (uint16_t)((l & ~0x40u) | (fb << 6));
    }
    return l;
}

static uint8_t nz_out(uint16_t l)
{
    return (l & 1) ? 0 : 15;
}

/* run_timed after channel 4's set-up (nz_mode 2 - odd): the first write, the second and
 * the read, in dots from the power-on. */
#define NZ_T(odd) ((uint16_t)(4u * (20u + (odd))))
#define NZ_W2(odd, n1) ((uint16_t)(NZ_T(odd) + 4u * T_W2(n1)))
#define NZ_RD(odd, n1, n2) ((uint16_t)(NZ_T(odd) + 4u * T_RD(n1, n2)))

static uint8_t nz_timed(uint8_t v43, uint8_t odd, uint16_t a, uint8_t r2, uint8_t v2, uint8_t b)
{
    nz43 = v43;
    w1_reg = 0x23, w1_val = 0x80, n1 = a, w2_reg = r2, w2_val = v2, n2 = b, rd_reg = 0x77;
    nz_mode = (uint8_t)(2 - odd);
    run_timed();
    return (uint8_t)(out_v >> 4);
}

/* The divisor and shift written while playing (NR43 v43 to w43 at dot t2): the counts go
 * on, but the divider reloads its count 4 dots after each pulse with the divisor of that
 * moment. Played dot by dot from the trigger at t to the read at e; the LFSR in 7-bit
 * mode (both values have bit 3 set). */
static uint8_t nz_switch(uint8_t v43, uint8_t w43, uint16_t t, uint16_t t2, uint16_t e)
{
    uint8_t r = v43 & 7, s = v43 >> 4, cnt = (uint8_t)(r + 1);
    uint16_t c = 0, l = 0x7FFF, reload = 0;
    for (uint16_t d = (uint16_t)(t + 1u); d <= e; d++) {
        uint8_t pulse = 0;
        if (d == t2)
            r = w43 & 7, s = w43 >> 4;
        if (d == reload)
            cnt = r;
        if (!r) {
            if ((d & 3) == 3)
                pulse = 1, reload = (uint16_t)(d + 4u);
        } else if ((d & 7) == 1) {
            cnt = (uint8_t)((cnt - 1) & 7);
            if (!cnt)
                pulse = 1, reload = (uint16_t)(d + 4u);
        }
        if (pulse && d >= t + 10u) {
            c++;
            if ((c & (2u << s) - 1u) == 1u << s)
                l = lfsr_run(l, 1, 1);
        }
    }
    return nz_out(l);
}

static void test_noise(void)
{
    /* the first steps after a trigger, both alignments to the 512 kHz clock: 7-bit mode
     * outputs the volume from the 7th step on */
    static const uint8_t codes[8] = {0x08, 0x18, 0x28, 0x09, 0x0A, 0x29, 0x0B, 0x1A};
    for (uint8_t i = 0; i < 8; i++) {
        uint8_t v43 = codes[i], r = v43 & 7, s = v43 >> 4;
        uint16_t per = (uint16_t)((r ? 16u * r : 8u) << s);
        /* reads around the 7th step: about per / 2 + 6 periods after the trigger */
        uint16_t m = (uint16_t)((per / 2u + 6u * per) / 4u), n = m > 17u ? (uint16_t)(m - 17u) : 0;
        for (uint8_t odd = 0; odd < 2; odd++) {
            for (uint8_t b = 0; b < 8; b++) {
                uint8_t v = nz_timed(v43, odd, n, 0x80, 0, b);
                uint16_t k = nz_steps(s, 0, nz_pulses(r, NZ_T(odd), NZ_RD(odd, n, b)));
                uint8_t want = nz_out(lfsr_run(0x7FFF, 1, k));
                check(v == want, "ch4 first steps after a trigger", v, want);
            }
        }
    }
    /* a retrigger restarts the LFSR and the divider but not the pulse count: code $08
     * (a step every 2 pulses), retriggered after a pulses counted */
    for (uint8_t a = 0; a < 12; a++) {
        for (uint8_t b = 0; b < 40; b += 3) {
            uint8_t v = nz_timed(0x08, 0, a, 0x23, 0x80, b);
            uint16_t t2 = NZ_W2(0, a), c = nz_pulses(0, NZ_T(0), t2);
            uint16_t k = nz_steps(0, c, nz_pulses(0, t2, NZ_RD(0, a, b)));
            uint8_t want = nz_out(lfsr_run(0x7FFF, 1, k));
            check(v == want, "ch4 retrigger keeps the pulse count", v, want);
        }
    }
    /* the width switched from 7 to 15 bits while playing: the LFSR goes on */
    for (uint8_t b = 0; b < 64; b += 3) {
        uint8_t v = nz_timed(0x08, 0, 64, 0x22, 0x00, b);
        uint16_t t2 = NZ_W2(0, 64);
        uint16_t k1 = nz_steps(0, 0, nz_pulses(0, NZ_T(0), t2));
        uint16_t k = nz_steps(0, 0, nz_pulses(0, NZ_T(0), NZ_RD(0, 64, b)));
        uint8_t want = nz_out(lfsr_run(lfsr_run(0x7FFF, 1, k1), 0, (uint16_t)(k - k1)));
        check(v == want, "ch4 width switch keeps the LFSR", v, want);
    }
    /* the divisor changed at four M-cycles in a row: codes $18 and $09 to $1A (as in
     * SameSuite's channel_4_freq_change) */
    static const uint8_t from[2] = {0x18, 0x09};
    for (uint8_t i = 0; i < 2; i++) {
        for (uint8_t a = 0; a < 4; a++) {
            for (uint8_t b = 0; b < 32; b++) {
                uint8_t v = nz_timed(from[i], 0, (uint16_t)(112u + a), 0x22, 0x1A, b);
                uint8_t want = nz_switch(from[i], 0x1A, NZ_T(0), NZ_W2(0, 112u + a), NZ_RD(0, 112u + a, b));
                check(v == want, "ch4 divisor written while playing", v, want);
            }
        }
    }
    rNR52 = 0;
    apu_restart();
}

/* ---- the frame sequencer ------------------------------------------------------------------ */

/* Waits for DIV's bit 4 (the sequencer's bit) to be set, counting from a DIV reset. */
static void div_bit4(void)
{
    div_sync();
    div_wait(0x10);
}

/* The APU powered on while DIV's bit 4 is set: the sequencer does not step at that bit's
 * next fall, and as that fall clocks no length counter, a trigger enabling the length
 * clocks it once more (SameSuite div_write_trigger_10). Channel 1, length 1 + k, is
 * triggered with its length enabled, then e sequencer steps are forced by DIV writes made
 * while the bit is set (each such write is a fall of it). */
static void test_power_on_bit4(void)
{
    for (uint8_t k = 0; k < 3; k++) {
        for (uint8_t e = 0; e < 7; e++) {
            div_bit4();
            apu_restart();
            rNR11 = (uint8_t)(0xBF - k);
            rNR12 = 0xF0;
            rNR13 = 0xFF;
            rNR14 = 0xC1;
            for (uint8_t i = 0; i < e; i++)
                div_bit4();
            uint8_t on = rNR52 & 1;
            /* the trigger's extra clock: 1 + k - 1, and 0 reloads 63 */
            uint8_t len = k ? k : 63, want = 1;
            for (uint8_t i = 1; i < e; i++) /* the first fall is no step; then steps 0, 1, ... */
                if (!((i - 1) & 1) && --len == 0)
                    want = 0;
            check(on == want, "power on with DIV bit 4 set: the first fall is no step", on, want);
        }
    }
    apu_restart();
}

void main(void)
{
    ser_puts(IS_CGB() ? "apu_pcm_test CGB\n" : "apu_pcm_test DMG\n");
    rIE = 0;
    if (IS_CGB()) {
        test_square(0);
        test_square(1);
        test_envelope(0);
        test_envelope(1);
        test_noise();
    }
    test_sweep();
    test_power_on_bit4();
    rNR52 = 0;
    report_checks();
}
