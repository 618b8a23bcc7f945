/* nes_board_fcg.c: Bandai's FCG boards (mappers 16, 153 and 159), from the NESdev wiki's
 * "Bandai FCG board", "INES Mapper 016", "INES Mapper 153" and "INES Mapper 159". Sixteen
 * registers, mirrored every 16 bytes: 0-7 the 1 KiB CHR banks, 8 the 16 KiB PRG bank at
 * $8000 ($C000 holds the last), 9 the mirroring (vertical, horizontal, one-screen lower,
 * upper), A the IRQ control (bit 0 counts; a write acknowledges), B-C the IRQ counter's low
 * and high byte, D the serial EEPROM's lines. The chips differ in where the registers sit
 * and in the counter: the FCG-1/2 (16.4) answers at $6000-$7FFF and B-C write the counter
 * itself; the LZ93D50 (16.5, 153, 159) answers at $8000-$FFFF, B-C write a latch that a
 * write of A copies into the counter; submapper 0 (iNES 1.0) has both at their addresses.
 * Enabled, the 16-bit counter counts down every CPU cycle and raises the IRQ when it
 * reaches 0 (it goes on from $FFFF); enabling it while it holds 0 raises the IRQ at once.
 * The LZ93D50's EEPROM (16.5: a 24C02 of 256 bytes; 159: Xicor's X24C01 of 128) is an I2C
 * device driven through D (bit 5 SCL, bit 6 SDA, bit 7 the board's SDA released for
 * reading) and read at $6000-$7FFF bit 4; its contents are the cartridge's PRG-NVRAM
 * (m->prg_ram, the battery file). The 153 has 8 KiB of battery RAM at $6000 (D bit 5
 * enables it), unbanked CHR-RAM, and bit 0 of registers 0-3 as PRG A18 (512 KiB; the
 * games write all four alike: the bits are ORed). */
#include "emu/nes/nes_cycle_irq.h"

/* The I2C EEPROM (24C02 or X24C01): its state between SCL and SDA edges. */
typedef struct {
    uint8_t scl, sda; /* the lines as last seen */
    uint8_t state;    /* EE_* */
    uint8_t bit;      /* SCL rises in this byte: 1-8 its bits, 9 the acknowledge clock */
    uint8_t shift;    /* the byte coming in or going out */
    uint8_t addr;     /* the word address */
    uint8_t out;      /* the EEPROM's SDA: 0 pulling low, 1 released */
    uint8_t rw;       /* the read bit of the command */
} fcg_eeprom;

enum { EE_IDLE, EE_DEVICE, EE_ADDR, EE_WRITE, EE_READ, EE_NSTATES };

typedef struct {
    uint8_t chr[8];
    uint8_t prg, mirror;
    uint8_t irq_on;      /* register A bit 0 */
    uint16_t counter;    /* as at the end of cycle `at` */
    uint16_t latch;      /* the LZ93D50's B-C */
    uint64_t at;
    uint8_t port;        /* register D as last written */
    fcg_eeprom ee;
} fcg;

/* The members of the family (nes_board.variant). */
enum { FCG_ANY, FCG_FCG12, FCG_LZ93D50, FCG_153, FCG_159 };

static int kind(const nes *m)
{
    return m->bd->variant;
}

/* Mapper 16: submapper 0 (both chips), 4 (FCG-1/2), 5 (LZ93D50). */
static int match_any(const nes_cart *c)
{
    return !c->nes2 || c->submapper == 0;
}

static int match_fcg12(const nes_cart *c)
{
    return c->nes2 && c->submapper == 4;
}

static int match_lz(const nes_cart *c)
{
    return c->nes2 && c->submapper == 5;
}

/* iNES 1.0: no RAM size field. A battery means the 24C02 (mapper 16) or the X24C01 (159),
 * else no EEPROM; the 153's 8 KiB of RAM is what the header already says. */
static void fcg_ines(nes_cart *c)
{
    if (c->mapper == 153)
        return;
    uint32_t ee = c->mapper == 159 ? 128 : 256;
    c->prg_ram_size = c->prg_nvram_size ? ee : 0;
    c->prg_nvram_size = c->prg_ram_size;
}

static const char *fcg_check(const nes_cart *c)
{
    if (c->mapper == 153) {
        if (c->prg_size > 524288 || c->chr_size)
            return "mapper 153 boards have at most 512 KiB PRG and CHR-RAM only";
        return c->prg_ram_size && c->prg_ram_size != 8192 ? "mapper 153 boards have 8 KiB of PRG-RAM" : NULL;
    }
    if (c->prg_size > 262144 || c->chr_size > 262144)
        return "Bandai FCG boards have at most 256 KiB PRG and 256 KiB CHR";
    uint32_t ee = c->mapper == 159 ? 128 : 256;
    if (c->nes2 && c->mapper == 16 && c->submapper == 4 && c->prg_ram_size)
        return "the FCG-1/2 has no save memory (PRG-RAM 0)";
    if (c->prg_ram_size && (c->prg_ram_size != ee || c->prg_nvram_size != ee))
        return c->mapper == 159 ? "mapper 159's X24C01 EEPROM is 128 bytes of PRG-NVRAM (or none)"
                                : "mapper 16's 24C02 EEPROM is 256 bytes of PRG-NVRAM (or none)";
    return NULL;
}

static void fcg_power(nes *m)
{
    fcg *p = NES_BS(m, fcg);
    p->at = m->cyc;
    p->ee.scl = p->ee.sda = p->ee.out = 1;
}

/* ---- the IRQ counter ------------------------------------------------------------------ */

/* Brings the counter from the end of cycle p->at to the end of cycle t; reaching 0 on the
 * way raises the IRQ (the board's event lands on the first, so t is its cycle). Reaching 0
 * is the wrap of the counter less one (nes_cycle_irq.h's down-counter). */
static void irq_catch_up(nes *m, uint64_t t)
{
    fcg *p = NES_BS(m, fcg);
    uint16_t c = (uint16_t)(p->counter - 1);
    uint64_t zero = nes_down16_run(&c, &p->at, t, p->irq_on);
    p->counter = (uint16_t)(c + 1);
    if (zero != NES_NEVER)
        nes_irq_set(m, NES_IRQ_MAPPER, zero);
}

static void irq_schedule(nes *m)
{
    const fcg *p = NES_BS(m, fcg);
    nes_board_schedule(m, p->irq_on ? nes_down16_wrap((uint16_t)(p->counter - 1), p->at) : NES_NEVER);
}

static void fcg_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* ---- the EEPROM ------------------------------------------------------------------------- */

/* The byte at the word address for reading: the address moves on to the next. */
static void ee_load(nes *m, fcg_eeprom *e)
{
    uint32_t size = m->cart->prg_ram_size;
    e->shift = m->prg_ram[e->addr % size];
    e->addr = (uint8_t)((e->addr + 1) % size);
}

/* A whole byte received (the acknowledge clock just ended): what it means in this state. */
static void ee_byte(nes *m, fcg_eeprom *e)
{
    int x24c01 = kind(m) == FCG_159;
    switch (e->state) {
    case EE_DEVICE: /* X24C01: the word address and R/W; 24C02: the device code 1010 */
        e->rw = e->shift & 1;
        if (x24c01)
            e->addr = e->shift >> 1;
        else if ((e->shift & 0xF0) != 0xA0) {
            e->state = EE_IDLE;
            return;
        }
        e->state = e->rw ? EE_READ : x24c01 ? EE_WRITE : EE_ADDR;
        break;
    case EE_ADDR:
        e->addr = e->shift;
        e->state = EE_WRITE;
        break;
    case EE_WRITE: { /* page write: the address's low bits wrap within the page */
        uint8_t page = x24c01 ? 3 : 7;
        m->prg_ram[e->addr % m->cart->prg_ram_size] = e->shift;
        e->addr = (uint8_t)((e->addr & ~page) | ((e->addr + 1) & page));
        break;
    }
    default: break;
    }
    if (e->state == EE_READ) { /* the first data bit goes out now */
        ee_load(m, e);
        e->out = e->shift >> 7;
    }
}

/* The lines after a register D write: SCL, and SDA as the board and the EEPROM drive it
 * (open drain: either pulls it low; bit 7 releases the board's). A falling SDA while SCL
 * is high starts a command, a rising one stops it; bits move on SCL's edges, in on a
 * rising edge, out after a falling one, most significant first. */
static void ee_lines(nes *m, fcg_eeprom *e, int scl, int sda_in)
{
    int sda = sda_in & e->out;
    if (scl && e->scl && sda != e->sda) { /* a start or a stop */
        e->state = sda ? EE_IDLE : EE_DEVICE;
        e->bit = 0;
        e->out = 1;
        e->sda = (uint8_t)(sda_in & 1);
        return;
    }
    if (scl && !e->scl) { /* rising: a bit in, or the master's acknowledge */
        if (e->state != EE_IDLE && e->state != EE_READ && e->bit < 8)
            e->shift = (uint8_t)(e->shift << 1 | sda);
        if (e->state == EE_READ && e->bit == 8 && sda) /* no acknowledge: the read ends */
            e->state = EE_IDLE;
        if (e->state != EE_IDLE)
            e->bit++;
    } else if (!scl && e->scl && e->state != EE_IDLE) { /* falling: the next bit out */
        if (e->state == EE_READ) {
            if (e->bit < 8) {
                e->out = (e->shift >> (7 - e->bit)) & 1;
            } else if (e->bit == 8) {
                e->out = 1; /* released for the master's acknowledge */
            } else {        /* acknowledged: the next byte */
                ee_load(m, e);
                e->bit = 0;
                e->out = e->shift >> 7;
            }
        } else if (e->bit == 8) { /* acknowledge, unless a 24C02 hears another device code */
            e->out = e->state == EE_DEVICE && kind(m) != FCG_159 && (e->shift & 0xF0) != 0xA0;
        } else if (e->bit == 9) {
            e->out = 1;
            e->bit = 0;
            ee_byte(m, e);
        }
    }
    e->scl = (uint8_t)scl;
    e->sda = (uint8_t)(sda_in & e->out);
}

static int has_eeprom(const nes *m)
{
    return kind(m) != FCG_153 && kind(m) != FCG_FCG12 && m->cart->prg_ram_size;
}

/* $6000-$7FFF reads: the EEPROM's SDA at bit 4, the rest open bus; the 153's RAM. */
static uint8_t fcg_read_low(nes *m, uint16_t a, int peek)
{
    (void)peek;
    const fcg *p = NES_BS(m, fcg);
    if (a < 0x6000 || !has_eeprom(m))
        return nes_wram_read(m, a);
    int sda = ((p->port & 0x80) ? 1 : (p->port >> 6) & 1) & p->ee.out;
    return (uint8_t)((m->bus & ~0x10) | sda << 4);
}

/* ---- registers -------------------------------------------------------------------------- */

/* Register r (0-15) := v; lz: the LZ93D50's copy (at $8000-$FFFF). */
static void reg_write(nes *m, int r, uint8_t v, int lz)
{
    fcg *p = NES_BS(m, fcg);
    if (r < 8) {
        p->chr[r] = v;
    } else if (r == 8) {
        p->prg = v & 0x0F;
    } else if (r == 9) {
        p->mirror = v & 3;
    } else if (r <= 12) { /* the IRQ: bring the counter up to now first */
        irq_catch_up(m, m->cyc);
        if (r == 10) {
            p->irq_on = v & 1;
            nes_irq_clear(m, NES_IRQ_MAPPER);
            if (lz)
                p->counter = p->latch;
            if (p->irq_on && !p->counter)
                nes_irq_set(m, NES_IRQ_MAPPER, m->cyc);
        } else {
            uint16_t *w = lz ? &p->latch : &p->counter;
            *w = r == 11 ? (uint16_t)((*w & 0xFF00) | v) : (uint16_t)((*w & 0x00FF) | v << 8);
        }
        irq_schedule(m);
        return;
    } else if (r == 13 && lz) {
        p->port = v;
        if (has_eeprom(m)) {
            ee_lines(m, &p->ee, (v >> 5) & 1, (v & 0x80) ? 1 : (v >> 6) & 1);
            return;
        }
    } else {
        return;
    }
    nes_board_update(m);
}

static void fcg_write(nes *m, uint16_t a, uint8_t v)
{
    if (kind(m) != FCG_FCG12)
        reg_write(m, a & 15, v, 1);
}

static void fcg_write_low(nes *m, uint16_t a, uint8_t v)
{
    if (a >= 0x6000 && (kind(m) == FCG_FCG12 || kind(m) == FCG_ANY))
        reg_write(m, a & 15, v, 0);
    else
        nes_wram_write(m, a, v);
}

static void fcg_maps(nes *m, nes_maps *o)
{
    const fcg *p = NES_BS(m, fcg);
    int outer = 0;
    if (kind(m) == FCG_153) {
        outer = ((p->chr[0] | p->chr[1] | p->chr[2] | p->chr[3]) & 1) << 4;
        o->wram = (p->port & 0x20) && m->cart->prg_ram_size ? 0 : NES_MAP_OFF;
    } else {
        for (int i = 0; i < 8; i++)
            o->chr[i] = p->chr[i];
        o->wram = NES_MAP_OFF; /* the EEPROM's bit (fcg_read_low), or open bus */
    }
    o->prg[0] = (outer | p->prg) * 2;
    o->prg[1] = (outer | p->prg) * 2 + 1;
    o->prg[2] = (outer | 15) * 2;
    o->prg[3] = (outer | 15) * 2 + 1;
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->mirror]);
}

static void fcg_state(nes_st *s, nes *m)
{
    fcg *p = NES_BS(m, fcg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->prg);
    NES_ST(s, p->mirror);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->counter);
    NES_ST(s, p->latch);
    NES_ST(s, p->at);
    NES_ST(s, p->port);
    fcg_eeprom *e = &p->ee;
    NES_ST(s, e->scl);
    NES_ST(s, e->sda);
    NES_ST(s, e->state);
    NES_ST(s, e->bit);
    NES_ST(s, e->shift);
    NES_ST(s, e->addr);
    NES_ST(s, e->out);
    NES_ST(s, e->rw);
    irq_schedule(m);
}

static const char *fcg_state_check(const nes *m)
{
    const fcg *p = NES_BS(m, fcg);
    const fcg_eeprom *e = &p->ee;
    if (p->at > m->cyc || p->prg > 15 || p->mirror > 3 || p->irq_on > 1)
        return "Bandai FCG state out of range";
    if (e->state >= EE_NSTATES || e->bit > 9 || e->scl > 1 || e->sda > 1 || e->out > 1 || e->rw > 1)
        return "Bandai FCG EEPROM state out of range";
    return NULL;
}

#define FCG_BOARD(sym, num, nm, var, fn_match)                                                                    \
    const nes_board sym = {                                                                                      \
        .mapper = num, .name = nm, .variant = var, .size = sizeof(fcg), .match = fn_match, .check = fcg_check,    \
        .ines = fcg_ines, .power = fcg_power, .maps = fcg_maps, .write = fcg_write, .write_low = fcg_write_low,    \
        .read_low = fcg_read_low, .cpu_event = fcg_event, .state = fcg_state, .state_check = fcg_state_check,     \
    }

FCG_BOARD(nes_board_fcg16, 16, "Bandai FCG", FCG_ANY, match_any);
FCG_BOARD(nes_board_fcg16_4, 16, "Bandai FCG-1/2", FCG_FCG12, match_fcg12);
FCG_BOARD(nes_board_fcg16_5, 16, "Bandai LZ93D50 (24C02)", FCG_LZ93D50, match_lz);
FCG_BOARD(nes_board_fcg153, 153, "Bandai LZ93D50 (SRAM)", FCG_153, NULL);
FCG_BOARD(nes_board_fcg159, 159, "Bandai LZ93D50 (X24C01)", FCG_159, NULL);
