/* nes_board_fme7.c: Sunsoft's FME-7 and 5B (mapper 69), from the NESdev wiki's "Sunsoft
 * FME-7" and "Sunsoft 5B audio". A command register ($8000-$9FFF) picks what the parameter
 * register ($A000-$BFFF) sets: commands 0-7 the eight 1 KiB CHR banks, 8 the $6000 window
 * (bit 6 RAM instead of ROM, bit 7 RAM enabled: RAM selected but disabled is open bus),
 * 9-B the 8 KiB PRG banks at $8000-$DFFF ($E000 is the last bank), C the mirroring, D-F the
 * IRQ: a 16-bit counter that, when enabled (D bit 7), counts down every CPU cycle and raises
 * the IRQ (D bit 0) when it wraps from $0000 to $FFFF; writing D acknowledges it. The
 * counter runs in closed form; the machine wakes the board at the wrap's cycle. On the 5B,
 * $C000-$DFFF selects one of its 16 sound registers (a value with bits 4-7 set blocks the
 * writes) and $E000-$FFFF writes it (nes_5b.h: the sound through the expansion audio). */
#include "emu/nes/nes_cycle_irq.h"

typedef struct {
    uint8_t cmd;
    uint8_t chr[8];
    uint8_t prg[4]; /* command 8 ($6000 window) and 9-B */
    uint8_t mirror;
    uint8_t irq_ctrl; /* bit 0 IRQ enable, bit 7 counter enable */
    uint16_t counter;
    uint64_t at;      /* the counter is as at the end of this CPU cycle */
    uint8_t snd_sel;  /* 5B: the selected register ($C000) */
    uint8_t snd[16];  /* 5B: its registers */
} fme7;

static const char *fme7_check(const nes_cart *c)
{
    return c->prg_size > 524288 || c->chr_size > 262144 ? "FME-7 boards have at most 512 KiB PRG and 256 KiB CHR" : NULL;
}

static void fme7_power(nes *m)
{
    NES_BS(m, fme7)->at = m->cyc;
}

/* Brings the counter from the end of cycle p->at to the end of cycle t; a wrap on the way
 * raises the IRQ when enabled (the board's event lands on the first). */
static void irq_catch_up(nes *m, uint64_t t)
{
    fme7 *p = NES_BS(m, fme7);
    uint64_t wrap = nes_down16_run(&p->counter, &p->at, t, p->irq_ctrl & 0x80);
    if (wrap != NES_NEVER && (p->irq_ctrl & 1))
        nes_irq_set(m, NES_IRQ_MAPPER, wrap);
}

static void irq_schedule(nes *m)
{
    const fme7 *p = NES_BS(m, fme7);
    nes_board_schedule(m, (p->irq_ctrl & 0x81) == 0x81 ? nes_down16_wrap(p->counter, p->at) : NES_NEVER);
}

static void fme7_event(nes *m)
{
    irq_catch_up(m, m->cyc);
    irq_schedule(m);
}

/* A 5B sound register write: the sound up to now with the old state, then the new one. */
static void sound_write(nes *m, int reg, uint8_t v)
{
    fme7 *p = NES_BS(m, fme7);
    nes_xaudio_begin(m);
    p->snd[reg] = v;
    nes_5b_osc *o = &m->apu.xosc.u.s5b;
    uint32_t t = nes_xaudio_now(m);
    nes_5b_regs(o, p->snd);
    nes_5b_retime(o, t);
    if (reg == 13)
        nes_5b_env_restart(o, t);
    nes_xaudio_end(m);
}

static void fme7_write(nes *m, uint16_t a, uint8_t v)
{
    fme7 *p = NES_BS(m, fme7);
    switch ((a >> 13) & 3) {
    case 0:
        p->cmd = v & 15;
        return;
    case 2:
        p->snd_sel = v;
        return;
    case 3:
        if (!(p->snd_sel & 0xF0))
            sound_write(m, p->snd_sel & 15, v);
        return;
    default:
        break;
    }
    int c = p->cmd;
    if (c < 8) {
        p->chr[c] = v;
    } else if (c < 12) {
        p->prg[c - 8] = v;
    } else if (c == 12) {
        p->mirror = v & 3;
    } else { /* the IRQ: bring the counter up to now first */
        irq_catch_up(m, m->cyc);
        if (c == 13) {
            p->irq_ctrl = v & 0x81;
            nes_irq_clear(m, NES_IRQ_MAPPER);
        } else if (c == 14) {
            p->counter = (uint16_t)((p->counter & 0xFF00) | v);
        } else {
            p->counter = (uint16_t)((p->counter & 0x00FF) | v << 8);
        }
        irq_schedule(m);
        return;
    }
    nes_board_update(m);
}

static void fme7_maps(nes *m, nes_maps *o)
{
    const fme7 *p = NES_BS(m, fme7);
    for (int i = 0; i < 3; i++)
        o->prg[i] = p->prg[1 + i] & 0x3F;
    o->prg[3] = (int)(m->cart->prg_size / 8192) - 1;
    for (int i = 0; i < 8; i++)
        o->chr[i] = p->chr[i];
    static const int mir[4] = {NES_MIRROR_V, NES_MIRROR_H, NES_MIRROR_1A, NES_MIRROR_1B};
    nes_maps_mirror(o, mir[p->mirror]);
    int w = p->prg[0];
    if (!(w & 0x40))
        o->wram = NES_MAP_ROM | (w & 0x3F);
    else if (!(w & 0x80) || !m->cart->prg_ram_size)
        o->wram = NES_MAP_OFF;
    else
        o->wram = w & 0x3F;
}

static void fme7_state(nes_st *s, nes *m)
{
    fme7 *p = NES_BS(m, fme7);
    NES_ST(s, p->cmd);
    NES_ST_ARR(s, p->chr);
    NES_ST_ARR(s, p->prg);
    NES_ST(s, p->mirror);
    NES_ST(s, p->irq_ctrl);
    NES_ST(s, p->counter);
    NES_ST(s, p->at);
    NES_ST(s, p->snd_sel);
    NES_ST_ARR(s, p->snd);
    /* the 5B's running state; its periods, mixer and volumes follow from the registers */
    nes_5b_osc *o = &m->apu.xosc.u.s5b;
    NES_ST_ARR(s, o->next);
    NES_ST(s, o->lfsr);
    NES_ST(s, o->tone);
    NES_ST(s, o->env_pos);
    NES_ST(s, o->env_up);
    NES_ST(s, o->env_hold);
    nes_5b_regs(o, p->snd);
    irq_schedule(m);
}

static const char *fme7_state_check(const nes *m)
{
    const fme7 *p = NES_BS(m, fme7);
    const nes_5b_osc *o = &m->apu.xosc.u.s5b;
    if (p->at > m->cyc || p->cmd > 15 || p->mirror > 3)
        return "FME-7 state out of range";
    uint32_t t = (uint32_t)(m->apu.audio_t - m->apu.frame_c0);
    for (int u = 0; u < 5; u++)
        if (o->next[u] <= t || o->next[u] - t > o->per[u])
            return "5B sound timer out of range";
    if (o->env_pos > 31 || o->env_up > 1 || o->env_hold > 32 || o->tone > 7 || !o->lfsr || o->lfsr >= (1u << 17))
        return "5B sound state out of range";
    return NULL;
}

const nes_board nes_board_fme7 = {
    .mapper = 69, .name = "Sunsoft FME-7/5B", .size = sizeof(fme7), .check = fme7_check, .power = fme7_power,
    .maps = fme7_maps, .write = fme7_write, .cpu_event = fme7_event, .state = fme7_state,
    .state_check = fme7_state_check, .xaudio = NES_XA_5B,
};
