/* nes_board_vrc6.c: Konami's VRC6 (mapper 24 VRC6a, 26 VRC6b: A0 and A1 swapped), from the
 * NESdev wiki's "VRC6" and "VRC6 audio". Registers (A15-A12 and A1-A0): $8000-$8003 a 16 KiB
 * PRG bank at $8000; $C000-$C003 an 8 KiB bank at $C000 ($E000 holds the last); $D000-$E003
 * eight CHR registers; $B003 the PPU banking style: bits 0-1 the CHR mode (0: eight 1 KiB
 * banks; 1: four 2 KiB; 2-3: four 1 KiB then two 2 KiB; in 2 KiB banks the register's low bit
 * is replaced by PPU A10 when bit 5 is set), bits 2-3 the mirroring (vertical, horizontal,
 * one-screen lower, upper), bit 7 PRG-RAM enable (clear: $6000-$7FFF open bus); nametables
 * from CHR-ROM (bit 4) and the other modes' mirroring variants are not modelled. $9000-$B002
 * the sound (nes_vrc6.h), $F000-$F002 the VRC IRQ (latch, control, acknowledge:
 * nes_vrc_irq.h). */
#include "emu/nes/nes_vrc_irq.h"

typedef struct {
    uint8_t prg[2];
    uint8_t chr[8];
    uint8_t style;   /* $B003 */
    uint8_t snd[10]; /* $9000-$9002, $A000-$A002, $B000-$B002, $9003 */
    nes_vrc_irq irq;
} vrc6;

static const char *vrc6_check(const nes_cart *c)
{
    return c->prg_size > 262144 || c->chr_size > 262144 ? "VRC6 boards have at most 256 KiB PRG and 256 KiB CHR" : NULL;
}

static void vrc6_power(nes *m)
{
    nes_vrc_irq_power(&NES_BS(m, vrc6)->irq, m);
}

static void vrc6_event(nes *m)
{
    vrc6 *p = NES_BS(m, vrc6);
    nes_vrc_irq_catch_up(&p->irq, m, m->cyc);
    nes_vrc_irq_schedule(&p->irq, m);
}

/* A sound register write: the sound up to now with the old state, then the new one. */
static void sound_write(nes *m, int reg, uint8_t v)
{
    vrc6 *p = NES_BS(m, vrc6);
    nes_xaudio_begin(m);
    p->snd[reg] = v;
    nes_vrc6_osc *o = &m->apu.xosc.u.vrc6;
    nes_vrc6_regs(o, p->snd);
    nes_vrc6_retime(o, nes_xaudio_now(m));
    nes_xaudio_end(m);
}

static void vrc6_write(nes *m, uint16_t a, uint8_t v)
{
    vrc6 *p = NES_BS(m, vrc6);
    int r = m->bd->variant ? ((a & 1) << 1) | ((a >> 1) & 1) : a & 3;
    switch (a >> 12) {
    case 0x8: p->prg[0] = v & 0x0F; break;
    case 0x9:
        sound_write(m, r == 3 ? 9 : r, v);
        return;
    case 0xA:
        if (r < 3)
            sound_write(m, 3 + r, v);
        return;
    case 0xB:
        if (r < 3) {
            sound_write(m, 6 + r, v);
            return;
        }
        p->style = v;
        break;
    case 0xC: p->prg[1] = v & 0x1F; break;
    case 0xD: p->chr[r] = v; break;
    case 0xE: p->chr[4 + r] = v; break;
    default:
        if (r < 3) /* $F000 latch, $F001 control, $F002 acknowledge */
            nes_vrc_irq_write(&p->irq, m, r == 0 ? 4 : r + 1, v);
        return;
    }
    nes_board_update(m);
}

static void vrc6_maps(nes *m, nes_maps *o)
{
    const vrc6 *p = NES_BS(m, vrc6);
    int last = (int)(m->cart->prg_size / 8192) - 1, mode = p->style & 3, a10 = (p->style >> 5) & 1;
    o->prg[0] = p->prg[0] * 2;
    o->prg[1] = p->prg[0] * 2 + 1;
    o->prg[2] = p->prg[1];
    o->prg[3] = last;
    for (int i = 0; i < 8; i++) {
        int r, half;
        if (mode == 0 || (mode >= 2 && i < 4)) { /* 1 KiB */
            o->chr[i] = p->chr[i];
            continue;
        }
        if (mode == 1) {
            r = i >> 1;
            half = i & 1;
        } else {
            r = 4 + ((i - 4) >> 1);
            half = i & 1;
        }
        o->chr[i] = a10 ? (p->chr[r] & ~1) | half : p->chr[r];
    }
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[(p->style >> 2) & 3]);
    if (!(p->style & 0x80))
        o->wram = NES_MAP_OFF;
}

static void vrc6_state(nes_st *s, nes *m)
{
    vrc6 *p = NES_BS(m, vrc6);
    NES_ST_ARR(s, p->prg);
    NES_ST_ARR(s, p->chr);
    NES_ST(s, p->style);
    NES_ST_ARR(s, p->snd);
    nes_vrc_irq_state(s, &p->irq);
    /* the sound's running state; periods, controls and enables follow from the registers */
    nes_vrc6_osc *o = &m->apu.xosc.u.vrc6;
    NES_ST_ARR(s, o->next);
    NES_ST_ARR(s, o->pos);
    nes_vrc6_regs(o, p->snd);
    nes_vrc_irq_schedule(&p->irq, m);
}

static const char *vrc6_state_check(const nes *m)
{
    const vrc6 *p = NES_BS(m, vrc6);
    const nes_vrc6_osc *o = &m->apu.xosc.u.vrc6;
    uint32_t t = (uint32_t)(m->apu.audio_t - m->apu.frame_c0);
    for (int c = 0; c < 3; c++)
        if (o->next[c] <= t || o->next[c] - t > o->per[c] || o->pos[c] > (c < 2 ? 15 : 13))
            return "VRC6 sound state out of range";
    return nes_vrc_irq_check(&p->irq, m);
}

const nes_board nes_board_vrc6a = {
    .mapper = 24, .name = "VRC6a", .variant = 0, .size = sizeof(vrc6), .check = vrc6_check, .power = vrc6_power,
    .maps = vrc6_maps, .write = vrc6_write, .cpu_event = vrc6_event, .state = vrc6_state,
    .state_check = vrc6_state_check, .xaudio = NES_XA_VRC6,
};

const nes_board nes_board_vrc6b = {
    .mapper = 26, .name = "VRC6b", .variant = 1, .size = sizeof(vrc6), .check = vrc6_check, .power = vrc6_power,
    .maps = vrc6_maps, .write = vrc6_write, .cpu_event = vrc6_event, .state = vrc6_state,
    .state_check = vrc6_state_check, .xaudio = NES_XA_VRC6,
};
