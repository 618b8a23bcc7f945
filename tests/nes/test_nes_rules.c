/* test_nes_rules.c: the shared picture and sound rules against plain references.
 *   - a line drawn in one span, dot by dot, and in random pieces gives the same pixels and
 *     the same scroll register (the native renderer splits spans wherever the CPU looks;
 *     the log renderers split them at logged writes; a third of the lines with the MMC5's
 *     fetch rules: CHR sets, ExRAM modes, the vertical split), and v moves as the timing side's
 *     closed form (nes_v_span) says; with rendering off the whole groups drawn in one
 *     colour at once match the dot-by-dot pixels (the backdrop, or v's palette entry);
 *   - the mixer sum over an interval equals a cycle-by-cycle walk that steps each channel
 *     at its own times; the noise register's matrix jump equals stepping it;
 *   - the same sums cut at sample ends in one walk (the native path) equal one sum per piece;
 *   - span integration (the block renderers) equals integrating through the same changes;
 *   - the same two for the MMC5's sound (nes_mmc5.h, through nes_xaudio.h).
 * Inputs are random (a fixed seed) over the whole state space, not just what games use. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "emu/nes/nes_int.h"

static uint8_t chr[8192], nt[4096], oam[256];
static uint32_t rgb32[512];

static void random_line_state(gv_rng *r, nes_pline *p)
{
    memset(p, 0, sizeof *p);
    p->r.v = (uint16_t)(gv_rng_u64(r) & 0x7FFF);
    p->r.t = (uint16_t)(gv_rng_u64(r) & 0x7FFF);
    p->r.x = (uint8_t)(gv_rng_u64(r) & 7);
    p->r.ctrl = (uint8_t)gv_rng_u64(r);
    p->r.mask = (uint8_t)gv_rng_u64(r);
    if (gv_rng_below(r, 4) == 0) {
        p->r.mask &= 0xE7; /* sometimes rendering off */
        if (gv_rng_below(r, 2) == 0)
            p->r.v |= 0x3F00; /* v on the palette: the picture shows that entry */
    }
    for (int i = 0; i < 8; i++)
        p->r.chr_map[i] = (uint32_t)gv_rng_below(r, 8) * 1024;
    for (int i = 0; i < 4; i++)
        p->r.nt_map[i] = (uint16_t)(gv_rng_below(r, 4) * 1024);
    if (gv_rng_below(r, 3) == 0) { /* the MMC5's fetch rules: two CHR sets, ExRAM modes, the split */
        static const uint32_t flags[4] = {NES_EX_ATTR, NES_EX_LAST_B, NES_EX_NT0, 0};
        p->r.ex = NES_EX_SETS | 2u | ((uint32_t)gv_rng_below(r, 4) << 16);
        for (int f = 0; f < 4; f++)
            if (gv_rng_below(r, 2))
                p->r.ex |= flags[f];
        for (int i = 0; i < 8; i++)
            p->r.spr_map[i] = (uint32_t)gv_rng_below(r, 8) * 1024;
        if (gv_rng_below(r, 2))
            p->r.split = (uint32_t)(gv_rng_u64(r) & 0xFFFFFF) | NES_SPLIT_ON;
    }
    for (int i = 0; i < 32; i++)
        p->pal[i] = (uint8_t)(gv_rng_u64(r) & 0x3F);
    p->rgb = rgb32;
}

/* Draws dots [257, 341) of line `line` then [0, 257) of line + 1, with the spans cut at the
 * given dot positions (a sorted list of absolute positions 257..597). */
static void draw(nes_pline *p, const nes_pmem *m, int line, const int *cuts, int ncuts, uint8_t *out)
{
    p->out = out;
    int pos = 257, ci = 0;
    while (pos < 598) {
        int next = 598;
        while (ci < ncuts && cuts[ci] <= pos)
            ci++;
        if (ci < ncuts && cuts[ci] < next)
            next = cuts[ci];
        int l = pos < 341 ? line : (line == NES_PRE ? 0 : line + 1);
        int d0 = pos < 341 ? pos : pos - 341, d1 = pos < 341 ? (next < 341 ? next : 341) : next - 341;
        if (pos < 341 && next > 341)
            next = 341;
        nes_line_span(p, m, l, d0, d1);
        pos = next;
    }
}

static void lines(void)
{
    gv_rng r;
    gv_rng_seed(&r, 1234);
    for (size_t i = 0; i < sizeof chr; i++)
        chr[i] = (uint8_t)gv_rng_u64(&r);
    for (size_t i = 0; i < sizeof nt; i++)
        nt[i] = (uint8_t)gv_rng_u64(&r);
    for (size_t i = 0; i < sizeof oam; i++)
        oam[i] = (uint8_t)gv_rng_u64(&r);
    nes_pmem m = {chr, NULL, nt, oam, NULL, 0};
    static uint8_t a[NES_W * 3], b[NES_W * 3], c[NES_W * 3];
    int bad_dot = 0, bad_rand = 0, bad_v = 0, n = 2000;
    for (int k = 0; k < n; k++) {
        nes_pline p0, p1, p2;
        random_line_state(&r, &p0);
        int line = (int)gv_rng_below(&r, NES_H - 1);
        p1 = p0;
        p2 = p0;
        nes_pregs closed = p0.r;
        draw(&p0, &m, line, NULL, 0, a);
        int every[341];
        for (int i = 0; i < 341; i++)
            every[i] = 257 + i;
        draw(&p1, &m, line, every, 341, b);
        int cuts[12];
        for (int i = 0; i < 12; i++)
            cuts[i] = 258 + (int)gv_rng_below(&r, 339);
        for (int i = 1; i < 12; i++) /* insertion sort */
            for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                int t = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = t;
            }
        draw(&p2, &m, line, cuts, 12, c);
        bad_dot += memcmp(a, b, sizeof a) != 0 || p0.r.v != p1.r.v;
        bad_rand += memcmp(a, c, sizeof a) != 0 || p0.r.v != p2.r.v;
        nes_v_span(&closed, line, 257, 341);
        nes_v_span(&closed, line + 1, 0, 257);
        bad_v += closed.v != p0.r.v;
    }
    t_check(!bad_dot, "line in one span vs dot by dot", "%d of %d random lines differ (pixels or v)", bad_dot, n);
    t_check(!bad_rand, "line in one span vs random pieces", "%d of %d random lines differ", bad_rand, n);
    t_check(!bad_v, "drawing moves v as the timing side does", "%d of %d random lines end with another v", bad_v, n);
}

/* ---- sound ------------------------------------------------------------------------- */

static void random_osc(gv_rng *r, nes_osc *o, uint32_t t0)
{
    memset(o, 0, sizeof *o);
    o->t0 = t0;
    for (int c = 0; c < 5; c++) {
        o->per[c] = c < 2 ? 2 * (1 + (uint32_t)gv_rng_below(r, 2048)) : c == 2 ? 1 + (uint32_t)gv_rng_below(r, 2048)
                  : c == 3 ? 4 + (uint32_t)gv_rng_below(r, 4064) : 54 + (uint32_t)gv_rng_below(r, 375);
        o->next[c] = t0 + 1 + (uint32_t)gv_rng_below(r, o->per[c]);
    }
    o->pos[0] = (uint8_t)gv_rng_below(r, 8);
    o->pos[1] = (uint8_t)gv_rng_below(r, 8);
    o->pos[2] = (uint8_t)gv_rng_below(r, 32);
    o->duty[0] = (uint8_t)gv_rng_below(r, 4);
    o->duty[1] = (uint8_t)gv_rng_below(r, 4);
    o->vol[0] = (uint8_t)gv_rng_below(r, 16);
    o->vol[1] = (uint8_t)gv_rng_below(r, 16);
    o->tri_run = (uint8_t)gv_rng_below(r, 2);
    o->nvol = (uint8_t)gv_rng_below(r, 16);
    o->nmode = (uint8_t)gv_rng_below(r, 2);
    o->lfsr = (uint16_t)(1 + gv_rng_below(r, 0x7FFF));
    o->dshift = (uint8_t)gv_rng_u64(r);
    o->dsilent = (uint8_t)gv_rng_below(r, 2);
    o->dlevel = (uint8_t)gv_rng_below(r, 128);
}

/* The reference: cycle by cycle, each channel stepped one step at a time when due. */
static uint64_t naive_sum(const nes_atab *tab, nes_osc *o, uint32_t a, uint32_t b)
{
    uint64_t sum = 0;
    for (uint32_t t = a; t < b; t++) {
        for (int c = 0; c < 5; c++)
            while (o->next[c] <= t) {
                o->next[c] += o->per[c];
                switch (c) {
                case 0:
                case 1: o->pos[c] = (uint8_t)((o->pos[c] + 1) & 7); break;
                case 2: if (o->tri_run) o->pos[2] = (uint8_t)((o->pos[2] + 1) & 31); break;
                case 3: o->lfsr = nes_lfsr_step(o->lfsr, o->nmode); break;
                default: nes_dmc_clock(o); break;
                }
            }
        sum += nes_osc_mix(tab, o);
    }
    return sum;
}

static void sound(void)
{
    static nes_atab tab;
    nes_atab_init(&tab);
    gv_rng r;
    gv_rng_seed(&r, 99);
    int bad_sum = 0, bad_jump = 0, n = 400;
    for (int k = 0; k < n; k++) {
        nes_osc o, ref;
        random_osc(&r, &o, 0);
        ref = o;
        uint32_t a = (uint32_t)gv_rng_below(&r, 3000), b = a + 1 + (uint32_t)gv_rng_below(&r, 3000);
        naive_sum(&tab, &ref, 0, a); /* bring the reference to a */
        uint64_t want = naive_sum(&tab, &ref, a, b);
        nes_osc_advance(&tab, &o, a); /* steps due at or before a, in closed form */
        uint64_t got = nes_osc_integrate(&tab, &o, a, b);
        bad_sum += got != want;
    }
    for (int k = 0; k < 200; k++) {
        uint16_t s = (uint16_t)(1 + gv_rng_below(&r, 0x7FFF)), t = s;
        int mode = (int)gv_rng_below(&r, 2);
        uint32_t steps = (uint32_t)gv_rng_below(&r, 100000);
        for (uint32_t i = 0; i < steps; i++)
            t = nes_lfsr_step(t, mode);
        bad_jump += nes_lfsr_jump(&tab, s, steps, mode) != t;
    }
    int bad_dmc = 0;
    for (int k = 0; k < 2000; k++) {
        nes_osc o, ref;
        random_osc(&r, &o, 0);
        ref = o;
        uint32_t clocks = (uint32_t)gv_rng_below(&r, 300);
        nes_dmc_clocks(&o, clocks);
        for (uint32_t i = 0; i < clocks; i++)
            nes_dmc_clock(&ref);
        bad_dmc += o.dlevel != ref.dlevel || o.dshift != ref.dshift;
    }
    /* one walk cut at sample ends (the native path) vs one nes_osc_integrate per piece */
    int bad_cut = 0, ncuts = 0;
    for (int k = 0; k < 400; k++) {
        nes_osc o, ref;
        random_osc(&r, &o, 0);
        for (int c = 0; k & 1 && c < 5; c++) { /* short periods: many steps per piece */
            o.per[c] = c < 2 ? 2 * (1 + (uint32_t)gv_rng_below(&r, 8)) : c == 4 ? 54 : 1 + (uint32_t)gv_rng_below(&r, 16);
            o.next[c] = 1 + (uint32_t)gv_rng_below(&r, o.per[c]);
        }
        uint32_t a = (uint32_t)gv_rng_below(&r, 3000), b = a + (uint32_t)gv_rng_below(&r, 3000);
        nes_osc_advance(&tab, &o, a);
        ref = o;
        uint32_t cut[64], nc = 0;
        uint64_t piece[65], want[65];
        for (uint32_t c = a + (uint32_t)gv_rng_below(&r, 40); c <= b && nc < 64; c += (uint32_t)gv_rng_below(&r, 60))
            cut[nc++] = c; /* steps of 0 too: empty pieces */
        nes_osc_integrate_cut(&tab, &o, a, b, cut, nc, piece);
        for (uint32_t i = 0, from = a; i <= nc; i++) {
            uint32_t to = i < nc ? cut[i] : b;
            want[i] = nes_osc_integrate(&tab, &ref, from, to);
            from = to;
        }
        bad_cut += memcmp(piece, want, (nc + 1) * sizeof *piece) != 0 || memcmp(&o, &ref, sizeof o) != 0;
        ncuts += (int)nc;
    }
    t_check(!bad_cut, "mixer sums cut at sample ends in one walk vs piece by piece",
            "%d of 400 random intervals (%d cuts) differ in a sum or the state after", bad_cut, ncuts);
    t_check(!bad_dmc, "DMC clocks at once vs one by one", "%d of 2000 random runs differ", bad_dmc);
    t_check(!bad_sum, "mixer sum vs cycle-by-cycle walk", "%d of %d random intervals differ", bad_sum, n);
    t_check(!bad_jump, "noise jump vs stepping", "%d of 200 random jumps (up to 100000 steps) differ", bad_jump);

    /* spans: a frame with random changes; integrating the pieces through the spans equals
     * integrating through the changes in order */
    int bad_span = 0;
    for (int k = 0; k < 50; k++) {
        nes_osc spans[16], cur;
        random_osc(&r, &spans[0], 0);
        cur = spans[0];
        uint64_t seq = 0, t = 0;
        int ns = 1 + (int)gv_rng_below(&r, 15);
        for (int s = 1; s < ns; s++) {
            uint32_t ts = (uint32_t)(t + 1 + gv_rng_below(&r, 2000));
            seq += nes_osc_integrate(&tab, &cur, (uint32_t)t, ts);
            nes_osc_advance(&tab, &cur, ts);
            nes_osc fresh; /* a change at ts: new parameters, the running phases kept */
            random_osc(&r, &fresh, ts);
            cur.vol[0] = fresh.vol[0];
            cur.nvol = fresh.nvol;
            cur.tri_run = fresh.tri_run;
            cur.dsilent = fresh.dsilent;
            cur.per[1] = fresh.per[1];
            cur.t0 = ts;
            spans[s] = cur;
            t = ts;
        }
        uint32_t end = (uint32_t)(t + 1 + gv_rng_below(&r, 2000));
        seq += nes_osc_integrate(&tab, &cur, (uint32_t)t, end);
        /* the same interval cut into random pieces, each summed from the spans alone */
        uint64_t blk = 0;
        uint32_t a = 0;
        while (a < end) {
            uint32_t b2 = a + 1 + (uint32_t)gv_rng_below(&r, 60);
            if (b2 > end)
                b2 = end;
            blk += nes_spans_integrate(&tab, spans, (uint32_t)ns, a, b2);
            a = b2;
        }
        bad_span += blk != seq;
    }
    t_check(!bad_span, "span pieces vs sequential", "%d of 50 random frames differ", bad_span);
}

/* The MMC5's sound (nes_mmc5.h): its sum over random intervals against a cycle-by-cycle walk,
 * and through nes_xspans_integrate in random pieces against the sum through its changes. */
static void random_mmc5(gv_rng *r, nes_xosc *x, uint32_t t0)
{
    nes_xosc_power(x, NES_XA_MMC5);
    x->t0 = t0;
    nes_mmc5_osc *o = &x->u.mmc5;
    for (int c = 0; c < 2; c++) {
        o->per[c] = 2 * (1 + (uint32_t)gv_rng_below(r, gv_rng_below(r, 2) ? 16 : 2048));
        o->next[c] = t0 + 1 + (uint32_t)gv_rng_below(r, o->per[c]);
        o->pos[c] = (uint8_t)gv_rng_below(r, 8);
        o->duty[c] = (uint8_t)gv_rng_below(r, 4);
        o->vol[c] = (uint8_t)gv_rng_below(r, 16);
    }
    o->pcm = (uint8_t)gv_rng_u64(r);
}

static void mmc5_sound(void)
{
    static nes_atab tab;
    nes_atab_init(&tab);
    gv_rng r;
    gv_rng_seed(&r, 5);
    int bad = 0, n = 400;
    for (int k = 0; k < n; k++) {
        nes_xosc x, ref;
        random_mmc5(&r, &x, 0);
        ref = x;
        uint32_t a = (uint32_t)gv_rng_below(&r, 3000), b = a + 1 + (uint32_t)gv_rng_below(&r, 3000);
        uint64_t want = 0;
        nes_mmc5_osc *o = &ref.u.mmc5;
        for (uint32_t t = 0; t < b; t++) {
            for (int c = 0; c < 2; c++)
                while (o->next[c] <= t) {
                    o->next[c] += o->per[c];
                    o->pos[c] = (uint8_t)((o->pos[c] + 1) & 7);
                }
            if (t >= a)
                want += nes_mmc5_mix(&tab, o);
        }
        for (int c = 0; c < 2; c++) /* on return the steps due at or before b are applied */
            while (o->next[c] <= b) {
                o->next[c] += o->per[c];
                o->pos[c] = (uint8_t)((o->pos[c] + 1) & 7);
            }
        nes_xosc_advance(&tab, &x, a);
        bad += nes_xosc_integrate(&tab, &x, a, b) != want || x.u.mmc5.pos[0] != o->pos[0] || x.u.mmc5.pos[1] != o->pos[1];
    }
    t_check(!bad, "MMC5 sound sum vs cycle-by-cycle walk", "%d of %d random intervals differ (sum or phase)", bad, n);
    int bad_span = 0;
    for (int k = 0; k < 50; k++) {
        nes_xosc spans[16], cur;
        random_mmc5(&r, &spans[0], 0);
        cur = spans[0];
        uint64_t seq = 0;
        uint32_t t = 0;
        int ns = 1 + (int)gv_rng_below(&r, 15);
        for (int s = 1; s < ns; s++) {
            uint32_t ts = t + 1 + (uint32_t)gv_rng_below(&r, 2000);
            seq += nes_xosc_integrate(&tab, &cur, t, ts);
            nes_xosc_advance(&tab, &cur, ts);
            nes_xosc fresh; /* a register change at ts: volumes, a period and the DAC */
            random_mmc5(&r, &fresh, ts);
            cur.u.mmc5.vol[0] = fresh.u.mmc5.vol[0];
            cur.u.mmc5.per[1] = fresh.u.mmc5.per[1];
            cur.u.mmc5.pcm = fresh.u.mmc5.pcm;
            cur.t0 = ts;
            spans[s] = cur;
            t = ts;
        }
        uint32_t end = t + 1 + (uint32_t)gv_rng_below(&r, 2000);
        seq += nes_xosc_integrate(&tab, &cur, t, end);
        uint64_t blk = 0;
        for (uint32_t a = 0; a < end;) {
            uint32_t b2 = a + 1 + (uint32_t)gv_rng_below(&r, 60);
            if (b2 > end)
                b2 = end;
            blk += nes_xspans_integrate(&tab, spans, (uint32_t)ns, a, b2);
            a = b2;
        }
        bad_span += blk != seq;
    }
    t_check(!bad_span, "MMC5 sound span pieces vs sequential", "%d of 50 random frames differ", bad_span);
}

int main(void)
{
    nes_palette_rgb32(rgb32);
    lines();
    sound();
    mmc5_sound();
    return t_done();
}
