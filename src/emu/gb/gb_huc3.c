/* gb_huc3.c: the HuC3's I/O registers and its clock MCU (Pan Docs, "HuC-3"). Register $0000
 * selects what $A000-$BFFF shows; in modes $B-$D the game talks to a 4-bit microcontroller
 * that keeps the time in 256 nibbles of its own memory: a mailbox of a command (bits 6-4)
 * and an argument (bits 3-0), a semaphore that runs it, a result nibble. The MCU counts
 * minutes of emulated time (its crystal's 32768 Hz ticks, one every 128 dots): the minute
 * of the day at nibbles $10-$12 (rolling over at 1440 into the day counter at $13-$15).
 * Commands take no emulated time (the semaphore reads ready at once); the tone generator and
 * the event alarm are kept in the memory but make no sound. */
#include <string.h>

#include "emu/gb/gb_int.h"

#define TICKS_PER_MINUTE (60u * 32768u)
#define DAY_MINUTES 1440u

static unsigned nib(const gb *g, unsigned i)
{
    const uint8_t *m = g->s.board.huc3_mem;
    return (m[(i & 0xFF) >> 1] >> (4 * (i & 1))) & 0xF;
}

static void set_nib(gb *g, unsigned i, unsigned v)
{
    uint8_t *m = &g->s.board.huc3_mem[(i & 0xFF) >> 1];
    int sh = 4 * (i & 1);
    *m = (uint8_t)((*m & ~(0xF << sh)) | ((v & 0xF) << sh));
}

/* n nibbles from i, least significant first, as one number; and back. */
static unsigned get_field(const gb *g, unsigned i, int n)
{
    unsigned v = 0;
    for (int k = n - 1; k >= 0; k--)
        v = v << 4 | nib(g, i + (unsigned)k);
    return v;
}

static void set_field(gb *g, unsigned i, int n, unsigned v)
{
    for (int k = 0; k < n; k++, v >>= 4)
        set_nib(g, i + (unsigned)k, v);
}

/* A time (minute of the day at i, 3 nibbles; day at i+3, 3 nibbles) moved on by d minutes:
 * the day counter wraps at 4096. A minute counter written at 1440 or beyond counts on to the
 * end of its 12 bits and wraps to 0 without a carry into the day. */
static void time_add(gb *g, unsigned i, uint64_t d)
{
    unsigned min = get_field(g, i, 3), day = get_field(g, i + 3, 3);
    if (min >= DAY_MINUTES && d) {
        uint64_t to_wrap = 4096u - min;
        if (d < to_wrap) {
            set_field(g, i, 3, min + (unsigned)d);
            return;
        }
        d -= to_wrap;
        min = 0;
    }
    uint64_t t = min + d;
    set_field(g, i, 3, (unsigned)(t % DAY_MINUTES));
    set_field(g, i + 3, 3, (unsigned)((day + t / DAY_MINUTES) & 0xFFF));
}

/* The clock up to the current dot. */
static void huc3_update(gb *g)
{
    gb_state *s = &g->s;
    uint64_t tot = gb_crystal_ticks(g) + s->rtc_sub;
    s->rtc_sub = (uint32_t)(tot % TICKS_PER_MINUTE);
    if (tot >= TICKS_PER_MINUTE)
        time_add(g, 0x10, tot / TICKS_PER_MINUTE);
}

/* Minutes since day 0 of the time at nibble i (for the difference of two times). */
static uint64_t time_minutes(const gb *g, unsigned i)
{
    return (uint64_t)get_field(g, i + 3, 3) * DAY_MINUTES + get_field(g, i, 3);
}

/* Extended command (command 6) e. */
static void huc3_extended(gb *g, unsigned e)
{
    gb_board *b = &g->s.board;
    if (e == 0) { /* the current time to $00-$06 */
        for (unsigned k = 0; k < 7; k++)
            set_nib(g, k, nib(g, 0x10 + k));
    } else if (e == 1) { /* $00-$06 to the current time; the event keeps its distance */
        const uint64_t span = 4096u * DAY_MINUTES;
        uint64_t old = time_minutes(g, 0x10), now = time_minutes(g, 0x00);
        uint64_t ev = time_minutes(g, 0x58) % span;
        for (unsigned k = 0; k < 7; k++)
            set_nib(g, 0x10 + k, nib(g, k));
        g->s.rtc_sub = 0; /* the new time starts its minute */
        ev = (ev + span + now % span - old % span) % span;
        set_field(g, 0x58, 3, (unsigned)(ev % DAY_MINUTES));
        set_field(g, 0x5B, 3, (unsigned)(ev / DAY_MINUTES));
    } else if (e == 2) { /* a status request at start-up: games go on only on 1 */
        b->huc3_result = 1;
    }
    /* $E twice sounds the tone generator: not emulated (the cartridge's own speaker) */
}

/* The semaphore was written with bit 0 clear: the MCU runs the mailbox's command. */
static void huc3_execute(gb *g)
{
    gb_board *b = &g->s.board;
    unsigned cmd = (b->huc3_cmd >> 4) & 7, arg = b->huc3_cmd & 0xF;
    huc3_update(g);
    switch (cmd) {
    case 1: b->huc3_result = (uint8_t)nib(g, b->huc3_addr++); break;    /* read, address + 1 */
    case 3: set_nib(g, b->huc3_addr++, arg); break;                      /* write, address + 1 */
    case 4: b->huc3_addr = (uint8_t)((b->huc3_addr & 0xF0) | arg); break; /* address bits 0-3 */
    case 5: b->huc3_addr = (uint8_t)((b->huc3_addr & 0x0F) | arg << 4); break; /* bits 4-7 */
    case 6: huc3_extended(g, arg); break;
    default: break; /* 0, 2, 7: not documented, nothing here */
    }
}

/* Modes $B-$E. Data line D7 is not connected: bit 7 reads 1 (open bus), writes lose it. */
uint8_t gb_huc3_read(gb *g)
{
    const gb_board *b = &g->s.board;
    switch (g->s.board.mode) {
    case 0x0C: return (uint8_t)(0x80 | (b->huc3_cmd & 0x70) | (b->huc3_result & 0xF));
    case 0x0D: return 0xFF; /* bit 0: ready for a command (always, here); the rest not driven */
    case 0x0E: return 0xC0; /* the IR receiver: $C1 saw light, $C0 did not */
    default: return 0xFF;   /* $B: the mailbox is write-only */
    }
}

void gb_huc3_io_write(gb *g, uint8_t v)
{
    gb_board *b = &g->s.board;
    if (b->mode == 0x0B)
        b->huc3_cmd = v & 0x7F;
    else if (b->mode == 0x0D && !(v & 1))
        huc3_execute(g);
}

/* The 136-byte footer: the MCU's 256 nibbles in 128 bytes (nibble 2i in the low half of
 * byte i), then a 64-bit little-endian timestamp (as the MBC3's: docs/GB.md). */
void gb_huc3_footer_get(gb *g, uint8_t *f)
{
    huc3_update(g);
    memcpy(f, g->s.board.huc3_mem, 128);
    for (int i = 0; i < 8; i++)
        f[128 + i] = (uint8_t)(g->s.board.unix_time >> (8 * i));
}

void gb_huc3_footer_set(gb *g, const uint8_t *f)
{
    gb_state *s = &g->s;
    memcpy(s->board.huc3_mem, f, 128);
    uint64_t t = 0;
    for (int i = 0; i < 8; i++)
        t |= (uint64_t)f[128 + i] << (8 * i);
    s->board.unix_time = t;
    s->rtc_clk = s->clk;
    s->rtc_sub = 0;
}
