/* nes_board_vrc7.c: Konami's VRC7 (mapper 85), from the NESdev wiki's "VRC7" and "VRC7
 * audio". The chip decodes A15-A12 and one more address line for a group's second
 * register: A4 on the VRC7a board (Lagrange Point; NES 2.0 submapper 2), A3 on the VRC7b
 * (Tiny Toon Adventures 2; submapper 1); an iNES 1.0 image gets both lines ORed. Registers
 * (VRC7a addresses): $8000, $8010, $9000 three 8 KiB PRG banks ($E000 holds the last);
 * $A000-$D010 eight 1 KiB CHR banks; $E000 bits 0-1 the mirroring (vertical, horizontal,
 * one-screen lower, upper), bit 6 the sound's reset (silent, its registers cleared, writes
 * ignored), bit 7 PRG-RAM enable (clear: $6000-$7FFF open bus); $E010 the IRQ latch, $F000
 * its control, $F010 acknowledge (the VRC IRQ, nes_vrc_irq.h); $9010 selects a sound
 * register and $9030 (A5 set) writes it (nes_vrc7.h, nes_vrc7.c). The write delays the wiki
 * asks of programs (6 and 42 CPU cycles) are not enforced. */
#include "emu/nes/nes_vrc_irq.h"

typedef struct {
    uint8_t line;   /* the second register's line: 0 A3 | A4 (iNES 1.0), 1 A3 (VRC7b), 2 A4 (VRC7a) */
    uint8_t prg[3];
    uint8_t chr[8];
    uint8_t ctrl;   /* $E000 */
    nes_vrc_irq irq;
    nes_vrc7 fm;    /* the sound (m->fm points here) */
} vrc7;

static int vrc7_match(const nes_cart *c)
{
    return !c->nes2 || c->submapper <= 2;
}

static const char *vrc7_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "VRC7 boards have at most 512 KiB PRG and 256 KiB CHR" : NULL;
}

static void vrc7_power(nes *m)
{
    vrc7 *p = NES_BS(m, vrc7);
    p->line = (uint8_t)(m->cart->nes2 ? m->cart->submapper : 0);
    nes_vrc_irq_power(&p->irq, m);
    nes_vrc7_power(&p->fm);
    p->fm.tick = (m->cyc + NES_VRC7_TICK - 1) / NES_VRC7_TICK;
    m->fm = &p->fm;
}

static void vrc7_event(nes *m)
{
    nes_vrc_irq_event(&NES_BS(m, vrc7)->irq, m);
}

/* A write to the sound's register select (data 0) or data port (1): the sound up to now
 * with the old registers, then the new. Ignored while the reset bit holds the chip. */
static void sound_write(nes *m, int data, uint8_t v)
{
    vrc7 *p = NES_BS(m, vrc7);
    if (p->fm.silent)
        return;
    if (!data) {
        p->fm.addr = v;
        return;
    }
    nes_xaudio_begin(m);
    nes_vrc7_write(&p->fm, v);
    nes_xaudio_end(m);
}

static void vrc7_write(nes *m, uint16_t a, uint8_t v)
{
    vrc7 *p = NES_BS(m, vrc7);
    int second = p->line == 1 ? (a >> 3) & 1 : p->line == 2 ? (a >> 4) & 1 : ((a >> 3) | (a >> 4)) & 1;
    switch (a >> 12) {
    case 0x8: p->prg[second] = v & 0x3F; break;
    case 0x9:
        if (second) {
            sound_write(m, (a >> 5) & 1, v);
            return;
        }
        p->prg[2] = v & 0x3F;
        break;
    case 0xA:
    case 0xB:
    case 0xC:
    case 0xD: p->chr[((a >> 12) - 0xA) * 2 + second] = v; break;
    case 0xE:
        if (second) { /* the IRQ latch, a whole byte */
            nes_vrc_irq_write(&p->irq, m, 4, v);
            return;
        }
        if ((v ^ p->ctrl) & 0x40) { /* the sound's reset line */
            nes_xaudio_begin(m);
            nes_vrc7_reset(&p->fm, (v >> 6) & 1);
            nes_xaudio_end(m);
        }
        p->ctrl = v;
        break;
    default: /* $F000 control, $F010 acknowledge */
        nes_vrc_irq_write(&p->irq, m, second ? 3 : 2, v);
        return;
    }
    nes_board_update(m);
}

static void vrc7_maps(nes *m, nes_maps *o)
{
    const vrc7 *p = NES_BS(m, vrc7);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[i];
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->ctrl & 3]);
    if (!(p->ctrl & 0x80))
        o->wram = NES_MAP_OFF;
}

static void vrc7_state(nes_st *s, nes *m)
{
    vrc7 *p = NES_BS(m, vrc7);
    NES_ST_ARR(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->ctrl);
    nes_vrc_irq_state(s, &p->irq);
    nes_vrc7 *c = &p->fm;
    NES_ST_ARR(s, c->patch);
    NES_ST_ARR(s, c->fnum);
    NES_ST_ARR(s, c->ctl);
    NES_ST_ARR(s, c->insvol);
    NES_ST(s, c->test);
    NES_ST(s, c->addr);
    NES_ST(s, c->silent);
    NES_ST(s, c->am_cnt);
    NES_ST(s, c->pm_cnt);
    NES_ST(s, c->eg_cnt);
    NES_ST(s, c->last);
    NES_ST(s, c->tick);
    for (int i = 0; i < 12; i++) {
        NES_ST(s, c->op[i].phase);
        NES_ST_ARR(s, c->op[i].out);
        NES_ST(s, c->op[i].eg);
        NES_ST(s, c->op[i].stage);
    }
    nes_vrc_irq_schedule(&p->irq, m);
}

static const char *vrc7_state_check(const nes *m)
{
    const vrc7 *p = NES_BS(m, vrc7);
    const nes_vrc7 *c = &p->fm;
    if (c->test > 15 || c->silent > 1 || c->am_cnt >= 64 * 210 || c->pm_cnt >= 8192 ||
        c->tick != (m->apu.audio_t + NES_VRC7_TICK - 1) / NES_VRC7_TICK)
        return "VRC7 sound state out of range";
    for (int i = 0; i < 6; i++)
        if (c->ctl[i] > 0x3F)
            return "VRC7 sound state out of range";
    for (int i = 0; i < 12; i++) {
        const nes_vrc7_op *o = &c->op[i];
        if (o->phase > 0x7FFFF || o->eg > 127 || o->stage > NES_VRC7_RELEASE || o->out[0] < -4084 ||
            o->out[0] > 4084 || o->out[1] < -4084 || o->out[1] > 4084)
            return "VRC7 operator state out of range";
    }
    return nes_vrc_irq_check(&p->irq, m);
}

const nes_board nes_board_vrc7 = {
    .mapper = 85, .name = "VRC7", .size = sizeof(vrc7), .match = vrc7_match, .check = vrc7_check,
    .power = vrc7_power, .maps = vrc7_maps, .write = vrc7_write, .cpu_event = vrc7_event, .state = vrc7_state,
    .state_check = vrc7_state_check, .xaudio = NES_XA_VRC7,
};
