/* nes_xaudio.h: expansion sound, the chips on the cartridge whose output joins the APU's at
 * the cartridge connector. Like the APU's channels (nes_audio.h), a chip's audible state
 * from one register write to the next is one record, a nes_xosc, stepped in closed form and
 * summed over CPU cycles exactly, in integers, in the APU mixer's units (1.0 = 65536): the
 * native path sums it sample by sample in the core, the block renderers (host threads and
 * the device) from the frame log's second span array, and the sums add to the APU's before
 * the output filters, so every path gives the same samples. A chip is a kind below, its
 * rules header (nes_5b.h, nes_vrc6.h, nes_mmc5.h) and a case in each switch; its board owns the registers and
 * calls nes_xaudio_begin / nes_xaudio_end around a write (nes_int.h).
 * The VRC7's FM (nes_vrc7.h) has no closed form: the core runs it sample by sample (one per
 * 36 CPU cycles) and the frame log carries its levels, an int16 array per frame (h->nfm),
 * which every path sums exactly with nes_vrc7_sum; its nes_xosc stays empty (no spans). */
#ifndef GV_EMU_NES_NES_XAUDIO_H
#define GV_EMU_NES_NES_XAUDIO_H

#include <stdint.h>

#include "emu/nes/nes_5b.h"
#include "emu/nes/nes_audio.h"
#include "emu/nes/nes_mmc5.h"
#include "emu/nes/nes_vrc6.h"
#include "emu/nes/nes_vrc7.h"

enum { NES_XA_NONE = 0, NES_XA_5B = 1, NES_XA_VRC6 = 2 };
enum { NES_XA_MMC5 = 5 };
enum { NES_XA_VRC7 = 85 }; /* (its mapper's number) levels in the frame log, not spans (nes_vrc7.h) */

/* A chip's audible state from cycle t0 (frame-relative) on. 128 bytes, plain data. */
typedef struct {
    uint32_t t0;
    uint32_t kind; /* NES_XA_* */
    union {
        nes_5b_osc s5b;
        nes_vrc6_osc vrc6;
        nes_mmc5_osc mmc5;
        uint32_t raw[30];
    } u;
} nes_xosc;

/* The chip's state at power-on (registers 0), of kind `kind`. */
GV_INLINE void nes_xosc_power(nes_xosc *o, int kind)
{
    for (int i = 0; i < 30; i++)
        o->u.raw[i] = 0;
    o->t0 = 0;
    o->kind = (uint32_t)kind;
    if (kind == NES_XA_5B) {
        static const uint8_t zero[16] = {0};
        nes_5b_osc *c = &o->u.s5b;
        nes_5b_regs(c, zero);
        for (int u = 0; u < 5; u++)
            c->next[u] = c->per[u];
        c->lfsr = 1;
        c->env_hold = 1; /* level 0 until register 13 is written */
    } else if (kind == NES_XA_VRC6) {
        static const uint8_t zero[10] = {0};
        nes_vrc6_osc *c = &o->u.vrc6;
        nes_vrc6_regs(c, zero);
        for (int u = 0; u < 3; u++)
            c->next[u] = c->per[u];
    } else if (kind == NES_XA_MMC5) {
        nes_mmc5_osc *c = &o->u.mmc5; /* period 0: a step every 2 cycles */
        c->per[0] = c->per[1] = c->next[0] = c->next[1] = 2;
    }
}

/* Applies every step due at or before cycle t. */
GV_INLINE void nes_xosc_advance(const nes_atab *tab, nes_xosc *o, uint32_t t)
{
    switch (o->kind) {
    case NES_XA_5B: nes_5b_advance_some(tab, &o->u.s5b, t, 31); break;
    case NES_XA_VRC6: nes_vrc6_advance_some(&o->u.vrc6, t, 7); break;
    case NES_XA_MMC5: nes_mmc5_advance(&o->u.mmc5, t); break;
    default: break;
    }
}

/* Sum of the chip's output over cycles [a, b) (its steps due at or before a applied). */
GV_INLINE uint64_t nes_xosc_integrate(const nes_atab *tab, nes_xosc *o, uint32_t a, uint32_t b)
{
    switch (o->kind) {
    case NES_XA_5B: return nes_5b_integrate(tab, &o->u.s5b, a, b);
    case NES_XA_VRC6: return nes_vrc6_integrate(tab, &o->u.vrc6, a, b);
    case NES_XA_MMC5: return nes_mmc5_integrate(tab, &o->u.mmc5, a, b);
    default: return 0;
    }
}

/* Moves the frame-relative step times back by len cycles (the next frame's origin). */
GV_INLINE void nes_xosc_rebase(nes_xosc *o, uint32_t len)
{
    switch (o->kind) {
    case NES_XA_5B:
        for (int u = 0; u < 5; u++)
            o->u.s5b.next[u] -= len;
        break;
    case NES_XA_VRC6:
        for (int c = 0; c < 3; c++)
            o->u.vrc6.next[c] -= len;
        break;
    case NES_XA_MMC5:
        for (int c = 0; c < 2; c++)
            o->u.mmc5.next[c] -= len;
        break;
    default: break;
    }
}

/* Sum over [a, b) of the frame whose chip spans are span[0..n) (span[0].t0 == 0). */
GV_INLINE uint64_t nes_xspans_integrate(const nes_atab *tab, const nes_xosc *span, uint32_t n, uint32_t a, uint32_t b)
{
    uint64_t sum = 0;
    NES_SPANS_SUM(sum, tab, span, n, a, b, nes_xosc, nes_xosc_advance, nes_xosc_integrate);
    return sum;
}

#endif
