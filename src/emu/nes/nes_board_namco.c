/* nes_board_namco.c: Namco's 129/163 (mapper 19), 175 and 340 (mapper 210), from the NESdev
 * wiki's "Namco 163", "INES Mapper 019", "INES Mapper 210" and "Namco 163 audio". Registers
 * fill $800 bytes each: $8000-$BFFF the eight 1 KiB CHR banks, $E000, $E800, $F000 the 8 KiB
 * PRG banks at $8000, $A000, $C000 (bits 0-5; $E000 holds the last). The 175 (210.1) has
 * hard-wired mirroring and up to 2 KiB of RAM at $6000 (mirrored), enabled by $C000 bit 0;
 * the 340 (210.2) has no RAM and takes the mirroring from $E000 bits 6-7 (0 one-screen lower,
 * 1 vertical, 2 one-screen upper, 3 horizontal). Submapper 0 of 210 runs as the 175 until a
 * write sets $E000 bit 6 or 7, which makes it a 340 from then on (the wiki's heuristic).
 * The 163 adds: $C000-$D800 the four nametables (values $E0-$FF the console's CIRAM pages,
 * even and odd; below, a 1 KiB CHR-ROM page); $E000 bit 6 switches its sound off; $F800 the
 * address (bits 0-6, bit 7 auto-increment) of its 128 bytes of RAM, read and written at
 * $4800-$4FFF, and the protection of the 8 KiB of PRG-RAM at $6000 (writes go through when
 * the high nibble is 4 and the 2 KiB quarter's bit 0-3 is clear); $5000-$57FF and
 * $5800-$5FFF the 15-bit IRQ counter's low 8 and high 7 bits (bit 7: counting), read back
 * too: counting, it goes up every CPU cycle and at $7FFF raises the IRQ and stops; writes
 * acknowledge. The chip RAM is the last 128 bytes of m->prg_ram (nes_board.chip_ram), kept
 * by the battery with the header's battery bit; it holds the sound's wavetables and channel
 * registers (nes_n163.h; mapper 19 submappers 1-2 have no sound, 3-5 the mixing levels).
 * Not modelled: CHR bank values $E0-$FF as CIRAM pattern tables ($E800 bits 6-7 clear:
 * they select CHR-ROM banks here). */
#include "emu/nes/nes_int.h"

#include <string.h>

typedef struct {
    uint8_t chr[8], prg[3];
    uint8_t e000;      /* $E000 as last written (the 340's mirroring bits, the 163's sound) */
    uint8_t ram_on;    /* 175: $C000 bit 0 */
    uint8_t is340;     /* 210.0: a 340 by the heuristic */
    uint8_t nt[4];     /* 163: $C000-$D800 */
    uint8_t e800;      /* 163: $E800 bits 6-7 */
    uint8_t f800;      /* 163: the RAM address and the PRG-RAM protection */
    uint8_t irq_on;    /* 163: $5800 bit 7 */
    uint16_t counter;  /* 163: the IRQ counter, as at the end of cycle `at` */
    uint64_t at;
    uint8_t synced;    /* 163: the sound's phases came from the RAM (a battery file loads it
                        * after power: the first write takes them from there) */
} namco;

/* The members of the family (nes_board.variant). */
enum { NAMCO_210, NAMCO_175, NAMCO_340, NAMCO_163, NAMCO_163Q };

static int is163(const nes *m)
{
    return m->bd->variant >= NAMCO_163;
}

/* Mapper 19: submappers 0 and 3-5 with the sound, 1-2 without. */
static int match_163(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0 || (c->submapper >= 3 && c->submapper <= 5);
}

static int match_163q(const nes_cart *c)
{
    return c->nes2 && (c->submapper == 1 || c->submapper == 2);
}

static int match_210(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0;
}

static int match_175(const nes_cart *c)
{
    return c->nes2 && c->submapper == 1;
}

static int match_340(const nes_cart *c)
{
    return c->nes2 && c->submapper == 2;
}

static const char *namco_check(const nes_cart *c)
{
    if (c->prg_size > 524288 || c->chr_size > 262144)
        return "Namco 129/163/175/340 boards have at most 512 KiB PRG and 256 KiB CHR";
    if (c->mapper == 19)
        return c->prg_ram_size - NES_N163_RAM > 8192 ? "Namco 163 boards have at most 8 KiB of PRG-RAM" : NULL;
    return c->nes2 && c->submapper == 2 && c->prg_ram_size ? "the Namco 340 has no PRG-RAM" : NULL;
}

/* ---- the 163: its RAM, IRQ counter and sound ---------------------------------------------- */

static uint8_t *chip_ram(nes *m)
{
    return m->prg_ram + m->cart->prg_ram_size - NES_N163_RAM;
}

/* Its 8 KiB of PRG-RAM, when the cartridge has them. */
static int has_wram(const nes *m)
{
    return m->cart->prg_ram_size >= 8192 + NES_N163_RAM;
}

static void irq_catch_up(nes *m, uint64_t t)
{
    namco *p = NES_BS(m, namco);
    if (t <= p->at)
        return;
    uint64_t n = t - p->at, left = 0x7FFFu - p->counter;
    p->at = t;
    if (!p->irq_on || !left)
        return;
    if (n >= left) {
        p->counter = 0x7FFF;
        nes_irq_set(m, NES_IRQ_MAPPER, t - n + left);
    } else {
        p->counter = (uint16_t)(p->counter + n);
    }
}

static void irq_schedule(nes *m)
{
    const namco *p = NES_BS(m, namco);
    nes_board_schedule(m, p->irq_on && p->counter < 0x7FFF ? p->at + (0x7FFFu - p->counter) : NES_NEVER);
}

static void n163_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

static void n163_power(nes *m)
{
    NES_BS(m, namco)->at = m->cyc;
    if (m->bd->xaudio == NES_XA_N163) {
        m->xmem = chip_ram(m);
        m->xmem_len = NES_N163_RAM;
    }
}

/* The mixing level of the cartridge's submapper (nes_aout.c's xn163_step). */
static void n163_xaudio_power(nes *m)
{
    int sub = m->cart->nes2 ? m->cart->submapper : 0;
    m->apu.xosc.u.n163.level = (uint8_t)(sub == 4 ? 1 : sub == 5 ? 2 : 0);
}

/* A chip RAM byte written (the sound up to now with the old RAM, then the new channels). */
static void chip_write(nes *m, int a, uint8_t v)
{
    uint8_t *ram = chip_ram(m);
    if (m->bd->xaudio != NES_XA_N163) {
        ram[a] = v;
        return;
    }
    nes_n163_osc *o = &m->apu.xosc.u.n163;
    namco *p = NES_BS(m, namco);
    nes_xaudio_begin(m);
    if (p->synced)
        nes_n163_phases_out(o, ram);
    p->synced = 1;
    ram[a] = v;
    nes_n163_regs(o, ram);
    nes_xaudio_end(m);
}

/* A chip RAM byte read: the running phase where it is an enabled channel's (from a copy of
 * the sound brought up to now: nothing changes). */
static uint8_t chip_read(nes *m, int a)
{
    uint8_t *ram = chip_ram(m);
    if (m->bd->xaudio != NES_XA_N163 || !NES_BS(m, namco)->synced || a < 0x40 || !(a & 1) || (a & 7) == 7)
        return ram[a];
    nes_n163_osc o = m->apu.xosc.u.n163;
    if (m->cyc > m->apu.audio_t)
        nes_n163_advance(&o, ram, nes_xaudio_now(m));
    int c = (a >> 3) - 8;
    return c >= 8 - o.count ? (uint8_t)(o.phase[c] >> (8 * ((a & 7) >> 1))) : ram[a];
}

static void sound_switch(nes *m, int on)
{
    nes_n163_osc *o = &m->apu.xosc.u.n163;
    if (m->bd->xaudio != NES_XA_N163 || o->on == on)
        return;
    nes_xaudio_begin(m);
    o->on = (uint8_t)on;
    o->out = NES_N163_REST;
    nes_xaudio_end(m);
}

static void n163_write_low(nes *m, uint16_t a, uint8_t v)
{
    namco *p = NES_BS(m, namco);
    if (a >= 0x6000) { /* PRG-RAM: the quarter's bit clear and the high nibble 4 */
        if (has_wram(m) && (p->f800 & 0xF0) == 0x40 && !((p->f800 >> ((a - 0x6000) >> 11)) & 1))
            m->prg_ram[a & 0x1FFF] = v;
    } else if (a >= 0x5000) {
        irq_catch_up(m, m->cyc);
        if (a < 0x5800) {
            p->counter = (uint16_t)((p->counter & 0x7F00) | v);
        } else {
            p->counter = (uint16_t)((p->counter & 0x00FF) | (v & 0x7F) << 8);
            p->irq_on = v >> 7;
        }
        nes_irq_clear(m, NES_IRQ_MAPPER);
        if (p->irq_on && p->counter == 0x7FFF)
            nes_irq_set(m, NES_IRQ_MAPPER, m->cyc);
        irq_schedule(m);
    } else if (a >= 0x4800) {
        chip_write(m, p->f800 & 0x7F, v);
        if (p->f800 & 0x80)
            p->f800 = (uint8_t)((p->f800 & 0x80) | ((p->f800 + 1) & 0x7F));
    }
}

static uint8_t n163_read_low(nes *m, uint16_t a, int peek)
{
    namco *p = NES_BS(m, namco);
    if (a >= 0x6000)
        return nes_wram_read(m, a);
    if (a >= 0x5000) {
        uint16_t c = p->counter;
        if (p->irq_on && m->cyc > p->at) /* the count now, without moving anything */
            c = (uint16_t)(m->cyc - p->at >= 0x7FFFu - c ? 0x7FFF : c + (m->cyc - p->at));
        return a < 0x5800 ? (uint8_t)c : (uint8_t)(p->irq_on << 7 | c >> 8);
    }
    if (a >= 0x4800) {
        uint8_t v = chip_read(m, p->f800 & 0x7F);
        if (!peek && (p->f800 & 0x80))
            p->f800 = (uint8_t)((p->f800 & 0x80) | ((p->f800 + 1) & 0x7F));
        return v;
    }
    return m->bus;
}

static int is340(const nes *m)
{
    return m->bd->variant == NAMCO_340 || (m->bd->variant == NAMCO_210 && NES_BS(m, namco)->is340);
}

static void namco_write(nes *m, uint16_t a, uint8_t v)
{
    namco *p = NES_BS(m, namco);
    int r = (a - 0x8000) >> 11; /* 0-15, $800 bytes each */
    if (r < 8) {
        p->chr[r] = v;
    } else if (r < 12) {
        if (is163(m))
            p->nt[r - 8] = v;
        else if (r == 8)
            p->ram_on = v & 1;
        else
            return; /* $C800-$DFFF: the 163's nametable registers */
    } else if (r < 15) {
        p->prg[r - 12] = v & 0x3F;
        if (r == 12) {
            p->e000 = v;
            if (v & 0xC0)
                p->is340 = 1;
            if (is163(m))
                sound_switch(m, !(v & 0x40));
        } else if (r == 13) {
            p->e800 = v & 0xC0;
        }
    } else {
        if (is163(m))
            p->f800 = v; /* the sound address and the PRG-RAM protection */
        return;
    }
    nes_board_update(m);
}

static void namco_maps(nes *m, nes_maps *o)
{
    const namco *p = NES_BS(m, namco);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i];
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    if (is163(m)) { /* nametables: CIRAM pages, or CHR-ROM pages */
        for (int i = 0; i < 4; i++)
            o->nt[i] = p->nt[i] >= 0xE0 ? p->nt[i] & 1 : NES_MAP_CHR | p->nt[i];
        o->wram = has_wram(m) ? 0 : NES_MAP_OFF;
    } else if (is340(m)) {
        static const int mir[4] = {NES_MIRROR_1A, NES_MIRROR_V, NES_MIRROR_1B, NES_MIRROR_H};
        nes_maps_mirror(o, mir[p->e000 >> 6]);
        o->wram = NES_MAP_OFF;
    } else if (!p->ram_on) {
        o->wram = NES_MAP_OFF;
    }
}

static void namco_state(nes_st *s, nes *m)
{
    namco *p = NES_BS(m, namco);
    NES_ST_ARR(s, p->chr);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->e000);
    NES_ST(s, p->ram_on);
    NES_ST(s, p->is340);
}

static void n163_state(nes_st *s, nes *m)
{
    namco *p = NES_BS(m, namco);
    namco_state(s, m);
    NES_ST_ARR(s, p->nt);
    NES_ST(s, p->e800);
    NES_ST(s, p->f800);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->counter);
    NES_ST(s, p->at);
    NES_ST(s, p->synced);
    if (m->bd->xaudio == NES_XA_N163) { /* the sound's running state; the rest is in its RAM */
        nes_n163_osc *o = &m->apu.xosc.u.n163;
        NES_ST(s, o->next);
        NES_ST_ARR(s, o->phase);
        NES_ST(s, o->cur);
        NES_ST(s, o->on);
        NES_ST(s, o->out);
        uint32_t phase[8];
        memcpy(phase, o->phase, sizeof phase);
        nes_n163_regs(o, chip_ram(m));
        memcpy(o->phase, phase, sizeof phase);
        n163_xaudio_power(m);
    }
    irq_schedule(m);
}

static const char *namco_state_check(const nes *m)
{
    const namco *p = NES_BS(m, namco);
    return p->ram_on > 1 || p->is340 > 1 ? "Namco 175/340 state out of range" : NULL;
}

static const char *n163_state_check(const nes *m)
{
    const namco *p = NES_BS(m, namco);
    const nes_n163_osc *o = &m->apu.xosc.u.n163;
    if (p->at > m->cyc || p->irq_on > 1 || p->counter > 0x7FFF || (p->e800 & 0x3F) || p->synced > 1)
        return "Namco 163 state out of range";
    uint32_t t = (uint32_t)(m->apu.audio_t - m->apu.frame_c0);
    if (m->bd->xaudio == NES_XA_N163 &&
        (o->next <= t || o->next - t > 15 || o->cur > 7 || o->cur < 8 - o->count || o->on > 1 || o->out > 225))
        return "Namco 163 sound state out of range";
    return namco_state_check(m);
}

const nes_board nes_board_namco210 = {
    .mapper = 210, .name = "Namco 175/340", .variant = NAMCO_210, .size = sizeof(namco), .match = match_210,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};

const nes_board nes_board_namco175 = {
    .mapper = 210, .name = "Namco 175", .variant = NAMCO_175, .size = sizeof(namco), .match = match_175,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};

const nes_board nes_board_namco340 = {
    .mapper = 210, .name = "Namco 340", .variant = NAMCO_340, .size = sizeof(namco), .match = match_340,
    .check = namco_check, .maps = namco_maps, .write = namco_write, .state = namco_state,
    .state_check = namco_state_check,
};

const nes_board nes_board_namco163 = {
    .mapper = 19, .name = "Namco 163", .variant = NAMCO_163, .size = sizeof(namco), .match = match_163,
    .check = namco_check, .power = n163_power, .maps = namco_maps, .write = namco_write,
    .write_low = n163_write_low, .read_low = n163_read_low, .cpu_event = n163_event, .state = n163_state,
    .state_check = n163_state_check, .xaudio = NES_XA_N163, .chip_ram = NES_N163_RAM,
    .xaudio_power = n163_xaudio_power,
};

const nes_board nes_board_namco163q = {
    .mapper = 19, .name = "Namco 129/163 (no sound)", .variant = NAMCO_163Q, .size = sizeof(namco),
    .match = match_163q, .check = namco_check, .power = n163_power, .maps = namco_maps, .write = namco_write,
    .write_low = n163_write_low, .read_low = n163_read_low, .cpu_event = n163_event, .state = n163_state,
    .state_check = n163_state_check, .chip_ram = NES_N163_RAM,
};
