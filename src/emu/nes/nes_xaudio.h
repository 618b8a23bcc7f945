/* nes_xaudio.h: expansion sound, the chips on the cartridge whose output joins the APU's at
 * the cartridge connector. Like the APU's channels (nes_audio.h), a chip's audible state
 * from one register write to the next is one record, a nes_xosc, stepped in closed form and
 * summed over CPU cycles exactly, in integers, in the APU mixer's units (1.0 = 65536): the
 * native path sums it sample by sample in the core, the block renderers (host threads and
 * the device) from the frame log's second span array, and the sums add to the APU's before
 * the output filters, so every path gives the same samples. A chip is a kind below, its
 * rules header (nes_5b.h, nes_vrc6.h, nes_mmc5.h, nes_n163.h) and a case in each switch; its board owns the registers and
 * calls nes_xaudio_begin / nes_xaudio_end around a write (nes_int.h). A chip whose sound reads
 * a memory too big for the record (the Namco 163's 128 bytes of wavetable RAM, nes_n163.h)
 * gets an image of it per span: the frame log keeps the images after the spans, the record
 * the offset of its own (nes_xosc_image), the native path the live memory (m->xmem).
 * The VRC7's FM (nes_vrc7.h) has no closed form: the core runs it sample by sample (one per
 * 36 CPU cycles) and the frame log carries its levels, an int16 array per frame (h->nfm),
 * which every path sums exactly with nes_vrc7_sum; its nes_xosc stays empty (no spans). */
#ifndef GV_EMU_NES_NES_XAUDIO_H
#define GV_EMU_NES_NES_XAUDIO_H

#include <stdint.h>

#include "emu/nes/nes_5b.h"
#include "emu/nes/nes_audio.h"
#include "emu/nes/nes_mmc5.h"
#include "emu/nes/nes_n163.h"
#include "emu/nes/nes_vrc6.h"
#include "emu/nes/nes_vrc7.h"

enum { NES_XA_NONE = 0, NES_XA_5B = 1, NES_XA_VRC6 = 2 };
enum { NES_XA_MMC5 = 5 };
enum { NES_XA_VRC7 = 85 }; /* (its mapper's number) levels in the frame log, not spans (nes_vrc7.h) */
enum { NES_XA_N163 = 19 }; /* the Namco 163 (its mapper's number, clear of the others' kinds) */

/* A chip's audible state from cycle t0 (frame-relative) on. 128 bytes, plain data. */
typedef struct {
    uint32_t t0;
    uint32_t kind; /* NES_XA_* */
    union {
        nes_5b_osc s5b;
        nes_vrc6_osc vrc6;
        nes_mmc5_osc mmc5;
        nes_n163_osc n163;
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
    } else if (kind == NES_XA_N163) {
        nes_n163_osc *c = &o->u.n163; /* the RAM all 0: one channel, 7, silent */
        c->next = 15;
        c->cur = 7;
        c->count = 1;
        c->on = 1;
        c->out = NES_N163_REST;
        for (int k = 0; k < 8; k++)
            c->len[k] = 256;
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
    case NES_XA_N163: o->u.n163.next -= len; break;
    default: break;
    }
}

/* ---- chips with a memory image (nes_n163.h) ---------------------------------------------- */

/* The span's memory image within the frame's images xmem (NULL: the chip has none). */
GV_INLINE const uint8_t *nes_xosc_image(const nes_xosc *o, const uint8_t *xmem)
{
    return o->kind == NES_XA_N163 && xmem ? xmem + o->u.n163.mem : (const uint8_t *)0;
}

/* Records where the span's image is in the frame's images. */
GV_INLINE void nes_xosc_set_image(nes_xosc *o, uint32_t off)
{
    if (o->kind == NES_XA_N163)
        o->u.n163.mem = off;
}

/* nes_xosc_advance and nes_xosc_integrate for every chip, img being the memory its sound
 * reads (nes_xosc_image; the live memory on the native path). */
GV_INLINE void nes_xosc_advance_img(const nes_atab *tab, nes_xosc *o, const uint8_t *img, uint32_t t)
{
    if (o->kind == NES_XA_N163)
        nes_n163_advance(&o->u.n163, img, t);
    else
        nes_xosc_advance(tab, o, t);
}

GV_INLINE uint64_t nes_xosc_integrate_img(const nes_atab *tab, nes_xosc *o, const uint8_t *img, uint32_t a, uint32_t b)
{
    if (o->kind == NES_XA_N163)
        return nes_n163_integrate(tab, &o->u.n163, img, a, b);
    return nes_xosc_integrate(tab, o, a, b);
}

/* The span walk's steps with the span's memory image (xmem_: the frame's images). */
#define NES_XOSC_ADVANCE_LOG(tab, o, t) nes_xosc_advance_img(tab, o, nes_xosc_image(o, xmem_), t)
#define NES_XOSC_INTEGRATE_LOG(tab, o, a, b) nes_xosc_integrate_img(tab, o, nes_xosc_image(o, xmem_), a, b)

/* Sum over [a, b) of the frame whose chip spans are span[0..n) (span[0].t0 == 0) and whose
 * chip memory images are xmem (NULL: none). */
GV_INLINE uint64_t nes_xspans_integrate(const nes_atab *tab, const nes_xosc *span, uint32_t n, const uint8_t *xmem,
                                        uint32_t a, uint32_t b)
{
    uint64_t sum = 0;
    const uint8_t *xmem_ = xmem;
    NES_SPANS_SUM(sum, tab, span, n, a, b, nes_xosc, NES_XOSC_ADVANCE_LOG, NES_XOSC_INTEGRATE_LOG);
    return sum;
}

#endif
