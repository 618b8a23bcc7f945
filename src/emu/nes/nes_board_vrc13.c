/* nes_board_vrc13.c: Konami's VRC1 (mapper 75) and VRC3 (mapper 73), from the NESdev wiki's
 * "VRC1" and "VRC3" (the VRC2/4/6 and their shared IRQ: nes_board_vrc24.c, nes_board_vrc6.c,
 * nes_vrc_irq.h). Registers by A15-A12.
 * VRC1: $8000, $A000, $C000 the 8 KiB PRG banks there ($E000 the last); $9000 bit 0 the
 * mirroring (0 vertical, 1 horizontal), bits 1 and 2 bit 4 of the two CHR banks; $E000 and
 * $F000 the low 4 bits of the 4 KiB CHR banks at PPU $0000 and $1000.
 * VRC3: $F000 the 16 KiB PRG bank at $8000 (the last fixed at $C000), 8 KiB of CHR-RAM and
 * the header's mirroring; a 16-bit IRQ counter counting up every CPU cycle while enabled:
 * $8000-$B000 the latch a nibble each (bits 0-3 .. 12-15), $C000 control (bit 0 A: enable
 * after acknowledge, bit 1 E: enable, bit 2 M: 8-bit mode; a write with E reloads the
 * counter from the latch), $D000 acknowledge (A moves to E). When it overflows from $FFFF
 * (in 8-bit mode: its low 8 bits from $FF, the high 8 bits untouched) it raises the IRQ
 * and reloads from the latch (8-bit mode: the low 8 bits). Both writes acknowledge. It runs
 * in closed form; the machine wakes the board at the overflow's cycle. */
#include "emu/nes/nes_int.h"

typedef struct {
    uint8_t prg[3], mirror; /* VRC1: $8000, $A000, $C000 and $9000; VRC3: prg[0] */
    uint8_t chr[2];         /* VRC1: $E000, $F000 (bit 4 from $9000) */
    uint8_t ctrl;           /* VRC3: $C000 bits 0-2 */
    uint16_t latch;         /* VRC3 */
    uint16_t counter;       /* VRC3: as at the end of CPU cycle `at` */
    uint64_t at;
} vrc13;

enum { VRC1, VRC3 };

static const char *vrc1_check(const nes_cart *c)
{
    return c->prg_size > 131072 || c->chr_size > 131072 ? "VRC1 boards have at most 128 KiB PRG and CHR" : NULL;
}

static const char *vrc3_check(const nes_cart *c)
{
    return c->prg_size > 131072 ? "VRC3 boards have at most 128 KiB PRG" : NULL;
}

static void vrc13_power(nes *m)
{
    NES_BS(m, vrc13)->at = m->cyc;
}

/* ---- the VRC3's counter ------------------------------------------------------------------- */

/* Cycles from the counter's value to its next overflow (8-bit mode: of its low 8 bits) and
 * the period after a reload. */
static uint32_t to_overflow(const vrc13 *p, uint16_t v)
{
    return (p->ctrl & 4) ? 256u - (v & 0xFF) : 65536u - v;
}

/* Brings the counter from the end of cycle p->at to the end of cycle t; an overflow on the
 * way reloads it and raises the IRQ from the first overflow's cycle on. */
static void irq_catch_up(nes *m, uint64_t t)
{
    vrc13 *p = NES_BS(m, vrc13);
    if (t <= p->at)
        return;
    uint64_t n = t - p->at, first = to_overflow(p, p->counter);
    uint64_t at0 = p->at;
    p->at = t;
    if (!(p->ctrl & 2))
        return;
    uint16_t hi = (p->ctrl & 4) ? (p->counter & 0xFF00) : 0, mask = (p->ctrl & 4) ? 0xFF : 0xFFFF;
    if (n < first) {
        p->counter = (uint16_t)(hi | ((p->counter + n) & mask));
        return;
    }
    uint64_t period = to_overflow(p, p->latch);
    p->counter = (uint16_t)(hi | ((p->latch + (n - first) % period) & mask));
    nes_irq_set(m, NES_IRQ_MAPPER, at0 + first);
}

static void irq_schedule(nes *m)
{
    const vrc13 *p = NES_BS(m, vrc13);
    nes_board_schedule(m, (p->ctrl & 2) ? p->at + to_overflow(p, p->counter) : NES_NEVER);
}

static void vrc3_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* ---- registers ---------------------------------------------------------------------------- */

static void vrc1_write(nes *m, uint16_t a, uint8_t v)
{
    vrc13 *p = NES_BS(m, vrc13);
    switch (a >> 12) {
    case 0x8: p->prg[0] = v & 0x0F; break;
    case 0xA: p->prg[1] = v & 0x0F; break;
    case 0xC: p->prg[2] = v & 0x0F; break;
    case 0x9:
        p->mirror = v & 1;
        p->chr[0] = (uint8_t)((p->chr[0] & 0x0F) | ((v & 2) << 3));
        p->chr[1] = (uint8_t)((p->chr[1] & 0x0F) | ((v & 4) << 2));
        break;
    case 0xE: p->chr[0] = (uint8_t)((p->chr[0] & 0x10) | (v & 0x0F)); break;
    case 0xF: p->chr[1] = (uint8_t)((p->chr[1] & 0x10) | (v & 0x0F)); break;
    default: return;
    }
    nes_board_update(m);
}

static void vrc1_maps(nes *m, nes_maps *o)
{
    const vrc13 *p = NES_BS(m, vrc13);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i];
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i >> 2] * 4 + (i & 3);
    nes_maps_mirror(o, p->mirror ? NES_MIRROR_H : NES_MIRROR_V);
}

static void vrc3_write(nes *m, uint16_t a, uint8_t v)
{
    vrc13 *p = NES_BS(m, vrc13);
    int r = a >> 12;
    if (r == 0xF) {
        p->prg[0] = v & 0x07;
        nes_board_update(m);
        return;
    }
    if (r == 0xE)
        return;
    irq_catch_up(m, m->cyc);
    if (r <= 0xB) { /* the latch, a nibble each */
        int sh = (r - 8) * 4;
        p->latch = (uint16_t)((p->latch & ~(0xF << sh)) | (v & 0xF) << sh);
    } else if (r == 0xC) {
        p->ctrl = v & 7;
        if (v & 2)
            p->counter = p->latch;
        nes_irq_clear(m, NES_IRQ_MAPPER);
    } else { /* $D000: acknowledge, A moves to E */
        p->ctrl = (uint8_t)((p->ctrl & ~2) | ((p->ctrl & 1) << 1));
        nes_irq_clear(m, NES_IRQ_MAPPER);
    }
    irq_schedule(m);
}

static void vrc3_maps(nes *m, nes_maps *o)
{
    int last = (int)(m->cart->prg_size / 8192) - 1;
    int b = NES_BS(m, vrc13)->prg[0];
    o->prg[0] = b * 2;
    o->prg[1] = b * 2 + 1;
    o->prg[2] = last - 1;
    o->prg[3] = last;
}

static void vrc13_state(nes_st *s, nes *m)
{
    vrc13 *p = NES_BS(m, vrc13);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->mirror);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->ctrl);
    NES_ST(s, p->latch);
    NES_ST(s, p->counter);
    NES_ST(s, p->at);
    if (m->bd->variant == VRC3) /* (on a load: the loaded counter's overflow) */
        irq_schedule(m);
}

static const char *vrc13_state_check(const nes *m)
{
    const vrc13 *p = NES_BS(m, vrc13);
    if (p->ctrl > 7 || p->mirror > 1)
        return "VRC1/VRC3 state out of range";
    return p->at > m->cyc ? "VRC3 IRQ time out of range" : NULL;
}

const nes_board nes_board_vrc1 = {
    .mapper = 75, .name = "VRC1", .variant = VRC1, .size = sizeof(vrc13), .check = vrc1_check,
    .power = vrc13_power, .maps = vrc1_maps, .write = vrc1_write, .state = vrc13_state,
    .state_check = vrc13_state_check,
};

const nes_board nes_board_vrc3 = {
    .mapper = 73, .name = "VRC3", .variant = VRC3, .size = sizeof(vrc13), .check = vrc3_check,
    .power = vrc13_power, .maps = vrc3_maps, .write = vrc3_write, .cpu_event = vrc3_event, .state = vrc13_state,
    .state_check = vrc13_state_check,
};
