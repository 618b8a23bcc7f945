/* nes_board_sunsoft.c: Sunsoft's mapper ASICs Sunsoft-3 (mapper 67) and Sunsoft-4 (68), from
 * the NESdev wiki's "INES Mapper 067" and "INES Mapper 068" (Sunsoft-1 and -2 are latch boards:
 * nes_board_discrete.c, nes_board_latch.c; the FME-7: nes_board_fme7.c). Both map a 16 KiB
 * PRG bank at $8000 (the last fixed at $C000), four 2 KiB CHR banks (the registers count
 * 2 KiB) and the mirroring 0 vertical, 1 horizontal, 2 one-screen lower, 3 upper.
 * Sunsoft-3, registers by A15-A11 (mask $F800): $8800/$9800/$A800/$B800 the CHR banks,
 * $C800 the IRQ counter (written twice: high byte, then low, setting the counter itself),
 * $D800 bit 4 counting on (a write also resets the $C800 toggle; it does not acknowledge),
 * $E800 the mirroring, $F800 the PRG bank; a write with A11 clear ($8000, $9000, ...)
 * acknowledges the IRQ. While on, the counter decreases every CPU cycle; when it wraps from
 * $0000 to $FFFF it raises the IRQ and stops counting. It runs in closed form; the machine
 * wakes the board at the wrap's cycle.
 * Sunsoft-4, registers by A15-A12: $8000-$B000 the CHR banks, $C000/$D000 two 1 KiB CHR-ROM
 * pages for the nametables (bit 7 set: the last 128 KiB of CHR), $E000 bits 0-1 the mirroring
 * and bit 4 the nametables from those CHR-ROM pages (arranged as the mirroring arranges
 * the two CIRAM pages), $F000 bits 0-3 the PRG bank and bit 4 the PRG-RAM at $6000 (off: open
 * bus). Not modelled: the licensing timer of Nantettatte!! Baseball's option cartridge
 * (writes to $6000-$7FFF with the RAM off), which gates a ROM outside the image. */
#include "emu/nes/nes_cycle_irq.h"

typedef struct {
    uint8_t prg, chr[4], mirror;
    uint8_t nt[2];      /* Sunsoft-4: $C000, $D000 */
    uint8_t irq_on;     /* Sunsoft-3: $D800 bit 4 */
    uint8_t toggle;     /* Sunsoft-3: the next $C800 write is the low byte */
    uint16_t counter;   /* Sunsoft-3: as at the end of CPU cycle `at` */
    uint64_t at;
} sunsoft;

enum { SUNSOFT3, SUNSOFT4 };

static const char *sunsoft_check(const nes_cart *c)
{
    return c->prg_size > 262144 || c->chr_size > 262144 ? "Sunsoft-3/4 boards have at most 256 KiB PRG and CHR" : NULL;
}

static void sunsoft_power(nes *m)
{
    NES_BS(m, sunsoft)->at = m->cyc;
}

/* ---- the Sunsoft-3's counter -------------------------------------------------------------- */

/* Brings the counter from the end of cycle p->at to the end of cycle t; the wrap on the way
 * raises the IRQ from its cycle on and stops the counting. */
static void irq_catch_up(nes *m, uint64_t t)
{
    sunsoft *p = NES_BS(m, sunsoft);
    uint64_t wrap = nes_down16_run(&p->counter, &p->at, t, p->irq_on);
    if (wrap == NES_NEVER)
        return;
    p->counter = 0xFFFF;
    p->irq_on = 0;
    nes_irq_set(m, NES_IRQ_MAPPER, wrap);
}

static void irq_schedule(nes *m)
{
    const sunsoft *p = NES_BS(m, sunsoft);
    nes_board_schedule(m, p->irq_on ? nes_down16_wrap(p->counter, p->at) : NES_NEVER);
}

static void sunsoft3_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* ---- registers ---------------------------------------------------------------------------- */

static void sunsoft_write(nes *m, uint16_t a, uint8_t v)
{
    sunsoft *p = NES_BS(m, sunsoft);
    int r = (a >> 12) & 7; /* $8000 0 .. $F000 7 */
    if (m->bd->variant == SUNSOFT3) {
        if (!(a & 0x800)) { /* A11 clear: acknowledge */
            nes_irq_clear(m, NES_IRQ_MAPPER);
            return;
        }
        if (r == 4 || r == 5) { /* $C800, $D800: the counter */
            irq_catch_up(m, m->cyc);
            if (r == 5) {
                p->irq_on = (v >> 4) & 1;
                p->toggle = 0;
            } else if (p->toggle ^= 1) {
                p->counter = (uint16_t)((p->counter & 0x00FF) | v << 8);
            } else {
                p->counter = (uint16_t)((p->counter & 0xFF00) | v);
            }
            irq_schedule(m);
            return;
        }
    }
    if (r < 4)
        p->chr[r] = v;
    else if (r < 6)
        p->nt[r - 4] = v & 0x7F; /* Sunsoft-4 */
    else if (r == 6)
        p->mirror = v & 0x13;
    else
        p->prg = v & 0x1F;
    nes_board_update(m);
}

static void sunsoft_maps(nes *m, nes_maps *o)
{
    const sunsoft *p = NES_BS(m, sunsoft);
    int last = (int)(m->cart->prg_size / 8192) - 1;
    o->prg[0] = (p->prg & 0x0F) * 2;
    o->prg[1] = (p->prg & 0x0F) * 2 + 1;
    o->prg[2] = last - 1;
    o->prg[3] = last;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i >> 1] * 2 + (i & 1);
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->mirror & 3]);
    if (m->bd->variant == SUNSOFT4) {
        if ((p->mirror & 0x10) && m->cart->chr) /* CHR-ROM pages as the nametables */
            for (int i = 0; i < 4; i++)
                o->nt[i] = NES_MAP_CHR | (0x80 | p->nt[o->nt[i] & 1]);
        if (!(p->prg & 0x10))
            o->wram = NES_MAP_OFF;
    }
}

static void sunsoft_state(nes_st *s, nes *m)
{
    sunsoft *p = NES_BS(m, sunsoft);
    NES_ST(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->nt);
    NES_ST(s, p->irq_on);
    NES_ST(s, p->toggle);
    NES_ST(s, p->counter);
    NES_ST(s, p->at);
    if (m->bd->variant == SUNSOFT3) /* (on a load: the loaded counter's wrap) */
        irq_schedule(m);
}

static const char *sunsoft_state_check(const nes *m)
{
    const sunsoft *p = NES_BS(m, sunsoft);
    if (p->irq_on > 1 || p->toggle > 1 || p->nt[0] > 0x7F || p->nt[1] > 0x7F)
        return "Sunsoft board state out of range";
    return p->at > m->cyc ? "Sunsoft-3 IRQ time out of range" : NULL;
}

const nes_board nes_board_sunsoft3 = {
    .mapper = 67, .name = "Sunsoft-3", .variant = SUNSOFT3, .size = sizeof(sunsoft), .check = sunsoft_check,
    .power = sunsoft_power, .maps = sunsoft_maps, .write = sunsoft_write, .cpu_event = sunsoft3_event,
    .state = sunsoft_state, .state_check = sunsoft_state_check,
};

const nes_board nes_board_sunsoft4 = {
    .mapper = 68, .name = "Sunsoft-4", .variant = SUNSOFT4, .size = sizeof(sunsoft), .check = sunsoft_check,
    .power = sunsoft_power, .maps = sunsoft_maps, .write = sunsoft_write, .state = sunsoft_state,
    .state_check = sunsoft_state_check,
};
