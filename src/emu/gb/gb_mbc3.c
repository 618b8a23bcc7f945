/* gb_mbc3.c: the MBC3's real-time clock (Pan Docs, "MBC3", with the register details of its
 * pull request 637: the bit widths, what unused bits read, counting from invalid values, the
 * sub-second counter, the latch of the MBC3B). The clock counts the ticks of its 32768 Hz
 * crystal, one every 128 dots of emulated time, so a run never depends on the wall clock; its
 * battery footer is the widely used 48-byte form (docs/GB.md). */
#include <string.h>

#include "emu/gb/gb_int.h"

#define TICKS_PER_SECOND 32768u

/* The registers' widths: S and M 6 bits, H 5, DL 8, DH bits 0 (day bit 8), 6 (halt) and 7
 * (day carry). Unused bits are not stored and read 0. */
static const uint8_t rtc_mask[5] = {0x3F, 0x3F, 0x1F, 0xFF, 0xC1};

/* One second. Seconds, minutes and hours roll over at 60, 60 and 24 with a carry; a value
 * written beyond those counts on to the end of its bits and wraps to 0 without a carry
 * (30:59:63 becomes 30:59:00, a minute later 31:00:00). The 9-bit day counter sets the
 * carry flag (DH bit 7) when it overflows; the flag stays until written 0. */
static void rtc_tick(uint8_t *r)
{
    r[0] = (r[0] + 1) & 0x3F;
    if (r[0] != 60)
        return;
    r[0] = 0;
    r[1] = (r[1] + 1) & 0x3F;
    if (r[1] != 60)
        return;
    r[1] = 0;
    r[2] = (r[2] + 1) & 0x1F;
    if (r[2] != 24)
        return;
    r[2] = 0;
    unsigned day = (unsigned)r[3] | ((unsigned)(r[4] & 1) << 8);
    day++;
    if (day > 511) {
        day = 0;
        r[4] |= 0x80;
    }
    r[3] = (uint8_t)day;
    r[4] = (uint8_t)((r[4] & 0xFE) | (day >> 8));
}

/* secs seconds at once: one by one while a register holds an out-of-range value, then in
 * closed form (a long run that never reads the clock costs no more than one that does). */
static void rtc_advance(uint8_t *r, uint64_t secs)
{
    while (secs && (r[0] >= 60 || r[1] >= 60 || r[2] >= 24)) {
        rtc_tick(r);
        secs--;
    }
    if (!secs)
        return;
    uint64_t t = r[0] + 60u * r[1] + 3600u * r[2] + secs;
    r[0] = (uint8_t)(t % 60);
    t /= 60;
    r[1] = (uint8_t)(t % 60);
    t /= 60;
    r[2] = (uint8_t)(t % 24);
    uint64_t day = ((uint64_t)r[3] | ((uint64_t)(r[4] & 1) << 8)) + t / 24;
    if (day > 511)
        r[4] |= 0x80;
    day &= 511;
    r[3] = (uint8_t)day;
    r[4] = (uint8_t)((r[4] & 0xFE) | (day >> 8));
}

void gb_rtc_update(gb *g)
{
    gb_state *s = &g->s;
    uint64_t ticks = gb_crystal_ticks(g);
    if (s->rtc[4] & 0x40) /* halted: the sub-second counter stops too */
        return;
    uint64_t tot = ticks + s->rtc_sub;
    s->rtc_sub = (uint32_t)(tot % TICKS_PER_SECOND);
    rtc_advance(s->rtc, tot / TICKS_PER_SECOND);
}

uint8_t gb_mbc3_rtc_read(gb *g, int reg)
{
    gb_state *s = &g->s;
    if (s->rtc_latched_on)
        return s->rtc_latched[reg];
    gb_rtc_update(g);
    return s->rtc[reg];
}

void gb_mbc3_rtc_write(gb *g, int reg, uint8_t v)
{
    gb_state *s = &g->s;
    gb_rtc_update(g); /* up to now at the old values (and the old halt bit) */
    s->rtc[reg] = v & rtc_mask[reg];
    if (reg == 0)
        s->rtc_sub = 0; /* writing the seconds restarts the second */
}

/* $6000-$7FFF, as the MBC3B does it: an even value shows the running clock in the registers
 * (as at power-on), an odd one latches it (copies it into the registers) when they show the
 * running clock, and does nothing when they are latched already. $00 then $01, what games
 * write, latches on every MBC3. */
void gb_mbc3_latch(gb *g, uint8_t v)
{
    gb_state *s = &g->s;
    if (!(v & 1)) {
        s->rtc_latched_on = 0;
        return;
    }
    if (s->rtc_latched_on)
        return;
    gb_rtc_update(g);
    memcpy(s->rtc_latched, s->rtc, sizeof s->rtc);
    s->rtc_latched_on = 1;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The 48-byte footer: the five clock registers (S M H DL DH), then the five latched ones,
 * each a 32-bit little-endian word, then a 64-bit little-endian timestamp. */
void gb_mbc3_footer_get(gb *g, uint8_t *f)
{
    gb_rtc_update(g);
    for (int i = 0; i < 5; i++) {
        put32(f + 4 * i, g->s.rtc[i]);
        put32(f + 20 + 4 * i, g->s.rtc_latched[i]);
    }
    for (int i = 0; i < 8; i++)
        f[40 + i] = (uint8_t)(g->s.board.unix_time >> (8 * i));
}

/* n is 48, or 44 with a 32-bit timestamp. The registers keep their bits (the others are
 * dropped); the clock counts on from the start of a second. */
void gb_mbc3_footer_set(gb *g, const uint8_t *f, size_t n)
{
    gb_state *s = &g->s;
    for (int i = 0; i < 5; i++) {
        s->rtc[i] = f[4 * i] & rtc_mask[i];
        s->rtc_latched[i] = f[20 + 4 * i] & rtc_mask[i];
    }
    uint64_t t = 0;
    for (size_t i = 0; i < n - 40; i++)
        t |= (uint64_t)f[40 + i] << (8 * i);
    s->board.unix_time = t;
    s->rtc_clk = s->clk;
    s->rtc_sub = 0;
}
