/* gb_timer.c: the 16-bit system counter (DIV is its upper byte), the timer (TIMA counts
 * falling edges of a counter bit chosen by TAC), the serial port and the CGB speed switch.
 *
 * The counter is kept as a 64-bit value at a reference dot and advances 1 per dot (2 in
 * double speed), so DIV, TIMA and the APU frame sequencer are computed, not ticked: a
 * falling edge of bit b happens each time the counter crosses a multiple of 2^(b+1).
 * Obscure behaviour kept (Pan Docs, "Timer obscure behaviour"): writing DIV or TAC can
 * produce an extra falling edge (and so a TIMA increment or an APU step), except that on
 * the CGB turning the timer off never does; after TIMA overflows it reads 0 for one
 * M-cycle (A), then TMA is loaded and the interrupt requested (B); writing TIMA in cycle
 * A cancels both, writing TIMA in cycle B is ignored, writing TMA in cycle B loads TIMA
 * too. tima_delay is 1 during cycle A and 2 during cycle B. */
#include "emu/gb/gb_int.h"

static const int tac_bit[4] = {9, 3, 5, 7}; /* 4096, 262144, 65536, 16384 Hz */

uint64_t gb_sysclk(const gb *g, uint64_t t)
{
    const gb_state *s = &g->s;
    if (t <= s->div_clk)
        return s->div_base;
    return s->div_base + ((t - s->div_clk) << s->double_speed);
}

/* First dot at which the counter reaches target. */
uint64_t gb_sysclk_time(const gb *g, uint64_t target)
{
    const gb_state *s = &g->s;
    if (target <= s->div_base)
        return s->div_clk;
    uint64_t d = target - s->div_base;
    return s->div_clk + (s->double_speed ? (d + 1) / 2 : d);
}

/* Brings TIMA up to dot t (no overflow can be pending before t: the event comes first). */
static void timer_update(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    uint64_t now = gb_sysclk(g, t);
    if ((s->tac & 4) && !s->tima_delay) {
        int b = tac_bit[s->tac & 3] + 1;
        uint64_t edges = (now >> b) - (s->tima_ref >> b);
        s->tima = (uint8_t)(s->tima + edges);
    }
    s->tima_ref = now;
}

void gb_timer_schedule(gb *g)
{
    gb_state *s = &g->s;
    if (s->tima_delay)
        return; /* the reload event is already scheduled */
    if (!(s->tac & 4)) {
        gb_sched(g, GB_EV_TIMER, GB_NEVER);
        return;
    }
    int b = tac_bit[s->tac & 3] + 1;
    uint64_t target = ((s->tima_ref >> b) + (256u - s->tima)) << b;
    gb_sched(g, GB_EV_TIMER, gb_sysclk_time(g, target));
}

/* TIMA increments by one at dot t (a glitch edge): may overflow. */
static void timer_bump(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    if (s->tima_delay)
        return;
    if (s->tima == 0xFF) {
        s->tima = 0;
        s->tima_delay = 1;
        gb_sched(g, GB_EV_TIMER, t + g->md);
    } else {
        s->tima++;
    }
}

void gb_timer_event(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    if (!s->tima_delay) {
        /* Overflow: TIMA reads 0 for one M-cycle (A). */
        s->tima = 0;
        s->tima_ref = gb_sysclk(g, t);
        s->tima_delay = 1;
        gb_sched(g, GB_EV_TIMER, t + g->md);
        return;
    }
    if (s->tima_delay == 1) {
        /* Cycle B: TMA loaded, interrupt requested; TIMA follows TMA to the cycle's end. */
        s->tima_delay = 2;
        s->tima = s->tma;
        s->iflag |= 4;
        s->tima_ref = gb_sysclk(g, t);
        gb_sched(g, GB_EV_TIMER, t + g->md);
        return;
    }
    s->tima_delay = 0;
    s->tima_ref = gb_sysclk(g, t);
    gb_timer_schedule(g);
}

uint8_t gb_timer_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    switch (a & 0xFF) {
    case 0x04: return (uint8_t)(gb_sysclk(g, s->clk) >> 8);
    case 0x05: timer_update(g, s->clk); return s->tima;
    case 0x06: return s->tma;
    default: return (uint8_t)(0xF8 | s->tac);
    }
}

/* Is the timer's input (enable AND selected counter bit) high at counter value c? */
static int timer_input(uint8_t tac, uint64_t c)
{
    return (tac & 4) && ((c >> tac_bit[tac & 3]) & 1);
}

void gb_timer_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    uint64_t t = s->clk;
    timer_update(g, t);
    uint64_t c = gb_sysclk(g, t);
    switch (a & 0xFF) {
    case 0x04: {
        /* DIV reset: the counter restarts at 0; a selected bit that was high falls. */
        if (timer_input(s->tac, c))
            timer_bump(g, t);
        s->div_base = 0;
        s->div_clk = t;
        s->tima_ref = 0;
        gb_apu_div_reset(g, c);
        break;
    }
    case 0x05:
        if (s->tima_delay == 2)
            break; /* cycle B: TIMA is TMA at the cycle's end anyway */
        s->tima_delay = 0; /* cycle A: cancels the pending reload and interrupt */
        s->tima = v;
        break;
    case 0x06:
        s->tma = v;
        if (s->tima_delay == 2)
            s->tima = v; /* cycle B: TIMA is loaded from TMA as it changes */
        break;
    default: {
        uint8_t old = s->tac;
        s->tac = v & 7;
        /* the selected input falling; on the CGB, turning the timer off does not count */
        if (timer_input(old, c) && !timer_input(s->tac, c) && (!s->cgb_hw || (s->tac & 4)))
            timer_bump(g, t);
        s->tima_ref = c;
        break;
    }
    }
    gb_timer_schedule(g);
}

/* ---- serial --------------------------------------------------------------------------- */

void gb_serial_write(gb *g, uint8_t v)
{
    gb_state *s = &g->s;
    s->sc = v & (s->cgb ? 0x83 : 0x81);
    if ((v & 0x81) != 0x81) {
        if (!(v & 0x80))
            gb_sched(g, GB_EV_SERIAL, GB_NEVER);
        return;
    }
    /* Internal clock: the byte in SB goes out (captured), 8 bits at 8192 Hz (262144 Hz
     * with the CGB fast bit), twice as fast in double speed. Nothing is connected, so
     * 0xFF comes in. The shift clock is a bit of the system counter, bit 8 (bit 3 for
     * the fast clock): a bit goes out at each of its falling edges, so the byte is done
     * at the eighth edge after the start, whatever the phase of the write. (A DIV write
     * during the transfer does not move its end here.) */
    if (g->nserial == g->capserial) {
        g->capserial = g->capserial ? g->capserial * 2 : 256;
        g->serial = gv_xrealloc(g->serial, g->capserial);
    }
    g->serial[g->nserial++] = s->sb;
    uint64_t per = (s->cgb && (v & 2)) ? 16 : 512, c = gb_sysclk(g, s->clk);
    gb_sched(g, GB_EV_SERIAL, gb_sysclk_time(g, (c / per + 8) * per));
}

void gb_serial_event(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    s->sb = 0xFF;
    s->sc &= 0x7F;
    s->iflag |= 8;
    gb_sched(g, GB_EV_SERIAL, GB_NEVER);
}

/* ---- CGB speed switch (STOP with KEY1 bit 0 set) -------------------------------------- */

void gb_speed_switch(gb *g)
{
    gb_state *s = &g->s;
    uint64_t t = s->clk;
    timer_update(g, t);
    uint64_t c = gb_sysclk(g, t);
    s->double_speed ^= 1;
    s->key1 = 0;
    g->md = s->double_speed ? 2 : 4;
    /* STOP resets DIV; the CPU then waits 8200 dots during which the counter is frozen. */
    s->div_base = 0;
    s->div_clk = t + 8200;
    s->tima_ref = 0;
    gb_apu_div_reset(g, c);
    gb_timer_schedule(g);
    s->clk = t + 8200;
}
