/* machine.c: the NES as a whole: power and reset, the CPU's memory map ($0000 RAM, $2000
 * PPU, $4000 APU and I/O, $4014 OAM DMA, $6000 PRG-RAM, $8000 PRG-ROM through the mapper),
 * the event scheduler that wakes the PPU and APU when something the CPU can see is due,
 * the interrupt lines, and the frame loop. */
#include "emu/nes/nes_int.h"

#include <stdlib.h>
#include <string.h>

gv_status nes_new(const nes_cart *cart, const nes_opts *o, nes **out, gv_err *err)
{
    *out = NULL;
    nes *m = calloc(1, sizeof *m);
    if (!m)
        return gv_fail(err, GV_ERR_ENV, "out of memory creating a NES machine");
    m->cart = cart;
    m->opt = *o;
    m->prg_ram = calloc(cart->prg_ram_size ? cart->prg_ram_size : 1, 1);
    m->chr_ram = calloc(cart->chr_ram_size ? cart->chr_ram_size : 1, 1);
    m->tab = malloc(sizeof *m->tab);
    m->abuf_cap = 2048;
    m->abuf = malloc(m->abuf_cap * sizeof *m->abuf);
    m->lh = calloc(1, sizeof *m->lh);
    m->lchr = malloc(cart->chr_ram_size ? cart->chr_ram_size : 1);
    m->lev_cap = 1024;
    m->lev = malloc(m->lev_cap * sizeof *m->lev);
    m->lspan_cap = 256;
    m->lspan = malloc(m->lspan_cap * sizeof *m->lspan);
    if (o->video_native)
        m->fb = calloc((size_t)NES_W * NES_H * 3, 1);
    if (!m->prg_ram || !m->chr_ram || !m->tab || !m->abuf || !m->lh || !m->lchr || !m->lev || !m->lspan ||
        (o->video_native && !m->fb)) {
        nes_free(m);
        return gv_fail(err, GV_ERR_ENV, "out of memory creating a NES machine");
    }
    nes_atab_init(m->tab);
    nes_palette_rgb32(m->rgb32);
    nes_power(m);
    *out = m;
    return GV_OK;
}

void nes_free(nes *m)
{
    if (!m)
        return;
    GV_FREE(m->prg_ram, m->chr_ram, m->tab, m->abuf, m->lh, m->lchr, m->lev, m->lspan, m->fb, m);
}

void nes_power(nes *m)
{
    memset(m->ram, 0, sizeof m->ram);
    memset(&m->cpu, 0, sizeof m->cpu);
    m->cyc = 0;
    m->next_ev = 0;
    m->bus = 0;
    m->nmi_pending = 0;
    m->irq_src = 0;
    m->nmi_at = m->irq_at = 0;
    m->frame = 0;
    m->frame_done = 0;
    m->pad_strobe = m->pad_shift = 0;
    if (m->fb)
        memset(m->fb, 0, (size_t)NES_W * NES_H * 3);
    nes_ppu_power(m);
    nes_mapper_power(m);
    nes_apu_power(m);
    memset(&m->aout, 0, sizeof m->aout);
    m->aout.n = 1; /* sample 0 ends at cycle 0; sample 1 is the first with cycles */
    m->lh->nev = m->lh->nmem = m->lh->nspan = 0;
    nes_ppu_begin_log(m);
    nes_cpu_power(m);
}

void nes_reset(nes *m)
{
    nes_ppu_reset(m);
    nes_apu_reset(m);
    m->nmi_pending = 0;
    nes_cpu_reset(m);
}

/* ---- events and interrupt lines ------------------------------------------------------- */

void nes_events(nes *m)
{
    for (;;) {
        nes_ppu_sync(m);
        uint64_t c = m->cyc;
        nes_apu_sync(m);
        if (m->cyc == c)
            break; /* else a DMC read stalled the CPU: bring the PPU up again */
    }
    uint64_t a = nes_ppu_next_event(m), b = nes_apu_next_event(m);
    m->next_ev = a < b ? a : b;
}

void nes_resched(nes *m)
{
    if (m->next_ev > m->cyc + 1)
        m->next_ev = m->cyc + 1;
}

void nes_irq_set(nes *m, int src, uint64_t at)
{
    if (!m->irq_src || at < m->irq_at)
        m->irq_at = at;
    m->irq_src |= (uint8_t)src;
}

void nes_irq_clear(nes *m, int src)
{
    m->irq_src &= (uint8_t)~src;
}

/* ---- memory map ------------------------------------------------------------------------ */

/* $4014: the CPU halts while 256 bytes of page v are copied to OAM through $2004, one read
 * and one write cycle each, after one halt cycle (two when it starts on an odd cycle). */
static void oam_dma(nes *m, uint8_t page)
{
    nes_tick(m);
    if (m->cyc & 1)
        nes_tick(m);
    for (int i = 0; i < 256; i++) {
        uint8_t v = nes_read(m, (uint16_t)(page << 8 | i));
        nes_tick(m);
        nes_ppu_oam_write(m, v);
    }
}

uint8_t nes_io_read(nes *m, uint16_t a)
{
    if (a < 0x4000)
        return nes_ppu_read(m, a & 7);
    if (a < 0x4020) {
        if (a == 0x4015)
            return (uint8_t)((nes_apu_read_status(m) & ~0x20) | (m->bus & 0x20));
        if (a == 0x4016 || a == 0x4017) {
            /* standard controller on port 1 (buttons A, B, Select, Start, Up, Down, Left,
             * Right, then 1s; while the strobe is high, A); nothing on port 2 */
            int bit = m->pad_shift < 8 ? (m->pad_buttons >> m->pad_shift) & 1 : 1;
            if (!m->pad_strobe && m->pad_shift < 8)
                m->pad_shift++;
            return (uint8_t)((m->bus & 0xE0) | (a == 0x4016 ? bit : 0));
        }
        return m->bus;
    }
    if (a >= 0x6000 && m->prg_ram_on && m->cart->prg_ram_size)
        return m->prg_ram[(a - 0x6000) % m->cart->prg_ram_size];
    return m->bus;
}

void nes_io_write(nes *m, uint16_t a, uint8_t v)
{
    if (a < 0x4000) {
        nes_ppu_write(m, a & 7, v);
    } else if (a < 0x4020) {
        if (a == 0x4014) {
            oam_dma(m, v);
        } else if (a == 0x4016) {
            m->pad_strobe = v & 1;
            if (m->pad_strobe)
                m->pad_shift = 0;
        } else if (a <= 0x4017) {
            nes_apu_write(m, a, v);
        }
    } else if (a >= 0x6000) {
        nes_mapper_write(m, a, v);
    }
}

uint8_t nes_peek(const nes *m, uint16_t a)
{
    if (a < 0x2000)
        return m->ram[a & 0x7FF];
    if (a < 0x4000)
        return nes_ppu_peek(m, a & 7);
    if (a >= 0x8000)
        return m->prg_rd[(a >> 13) & 3][a & 0x1FFF];
    if (a >= 0x6000 && m->prg_ram_on && m->cart->prg_ram_size)
        return m->prg_ram[(a - 0x6000) % m->cart->prg_ram_size];
    return m->bus;
}

/* ---- frames --------------------------------------------------------------------------- */

void nes_run_frame(nes *m)
{
    nes_apu_frame_begin(m);
    m->frame_done = 0;
    while (!m->frame_done)
        nes_cpu_step(m);
    nes_ppu_sync(m);
    nes_apu_frame_end(m);
    m->lh->frame = (uint32_t)m->frame;
    m->frame++;
}

nes_logview nes_log_view(const nes *m)
{
    nes_logview v;
    v.h = m->lh;
    v.chr_ram = m->lchr;
    v.ev = m->lev;
    v.span = m->lspan;
    return v;
}

int nes_test_status(const nes *m, char *msg, size_t len)
{
    if (len)
        msg[0] = 0;
    if (!m->cart->prg_ram_size || nes_peek(m, 0x6001) != 0xDE || nes_peek(m, 0x6002) != 0xB0 ||
        nes_peek(m, 0x6003) != 0x61)
        return -1;
    size_t n = 0;
    for (uint16_t a = 0x6004; a < 0x8000 && n + 1 < len; a++) {
        uint8_t c = nes_peek(m, a);
        if (!c)
            break;
        msg[n++] = (char)((c >= 0x20 && c < 0x7F) ? c : ' ');
    }
    while (n && msg[n - 1] == ' ')
        n--;
    if (len)
        msg[n] = 0;
    return nes_peek(m, 0x6000);
}
