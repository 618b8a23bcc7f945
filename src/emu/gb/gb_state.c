/* gb_state.c: save states. Layout (little-endian, this build's struct layout):
 *   "GVGBSTAT", u32 version, u32 sizeof(gb_state), u32 cartridge RAM size, u32 model,
 *   u64 ROM hash, u64 XXH3 of the payload, then the payload: gb_state, cartridge RAM,
 *   u32 number of audio keyframes of the current period and the keyframes.
 * u32 model: bit 0 CGB hardware, bit 1 CGB mode (a CGB without it runs a DMG cartridge in
 * DMG compatibility mode). Version 2 gave the wave channel its sample buffer (gb_apu_gen.buf, formerly padding)
 * and the APU its sweep/envelope/wave flags, and the machine its CGB-hardware flag (all
 * formerly padding), and added wake_clk after tima_ref; version 1 states load with the buffer set to the sample at the
 * channel's position (what version 1 played) and the hardware flag from the CGB flag.
 * Version 3 appended gb_board (the MBC7, HuC1, HuC3 and MMM01, the tilt input, the clock
 * file's timestamp), counts the MBC3 clock's sub-second in crystal ticks (it was dots) and
 * keeps whether its registers are latched (it was the last value written to $6000); older
 * states load with the board at its power-on values, the sub-second divided by 128 and the
 * registers latched when that value was odd.
 * The keyframes' noise clocks (gb_apu_key.nz_*) were padding before: states saved
 * without them read them as 0, a power-on's state (the first noise step may then come a
 * few pulses off).
 * States are taken between frame periods (after gb_run_frame returned 0), where the
 * video side of the period is empty; loading validates every field the machine uses
 * as an index or a time, so a crafted state cannot make it read out of bounds or spin.
 * Saving, loading and saving again gives the same bytes. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emu/common/emu_state.h"
#include "emu/gb/gb_int.h"

#define STATE_MAGIC "GVGBSTAT"
#define STATE_VERSION 3u
#define STATE_HDR EMU_STATE_HEAD
#define MAX_KEYS (1u << 20)
/* Version 2's gb_state: this one without the board; version 1's: that without wake_clk
 * (everything else was padding then). */
#define V2_STATE_BYTES offsetof(gb_state, board)
#define V1_STATE_BYTES (V2_STATE_BYTES - sizeof(uint64_t))
#define V1_SPLIT offsetof(gb_state, wake_clk)

/* Bytes of gb_state in a state of version v (1, 2 or STATE_VERSION). */
static size_t state_bytes(uint32_t v)
{
    return v == 1u ? V1_STATE_BYTES : v == 2u ? V2_STATE_BYTES : sizeof(gb_state);
}

gv_status gb_state_save(const gb *g, uint8_t **data, size_t *len, gv_err *err)
{
    *data = NULL;
    *len = 0;
    if (g->s.lines_drawn || g->memw[g->log_cur].n || g->regw[g->log_cur].n || g->s.period_end != GB_NEVER)
        return gv_fail(err, GV_ERR_INPUT, "a save state can only be taken between frames (not after a test-ROM trap)");
    const gb_vec *kv = &g->keys[g->keys_cur];
    size_t n = STATE_HDR + sizeof(gb_state) + g->cram_size + 4 + (size_t)kv->n * sizeof(gb_apu_key);
    uint8_t *b = emu_state_new(n - STATE_HDR, STATE_MAGIC, STATE_VERSION, (uint32_t)sizeof(gb_state), g->cram_size,
                               (uint32_t)(g->s.cgb_hw | (g->s.cgb << 1)), gb_cart_get_info(g->cart)->hash);
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a save state");
    uint8_t *p = b + STATE_HDR;
    memcpy(p, &g->s, sizeof(gb_state));
    p += sizeof(gb_state);
    if (g->cram_size)
        memcpy(p, g->cram, g->cram_size);
    p += g->cram_size;
    emu_put32(p, kv->n);
    p += 4;
    if (kv->n)
        memcpy(p, kv->v, (size_t)kv->n * sizeof(gb_apu_key));
    emu_state_seal(b, n);
    *data = b;
    *len = n;
    return GV_OK;
}

static int gen_ok(const gb_apu_gen *c, int ch)
{
    if (c->on > 1 || c->dac > 1 || c->mode > 3 || (c->period && !c->ctr) || c->buf > (ch == 2 ? 15 : ch == 3 ? 0 : 1))
        return 0;
    if (ch == 2)
        return c->pos < 32 && c->vol <= 3;
    return c->pos < 8 && c->vol <= 15 && (ch != 3 || (c->lfsr < 0x8000 && c->mode <= 1));
}

static int key_ok(const gb_apu_key *k)
{
    for (int ch = 0; ch < 4; ch++)
        if (!gen_ok(&k->ch[ch], ch))
            return 0;
    return k->nz_count < 0x4000u && k->nz_div <= 7 && k->nz_wait <= 10;
}

/* Returns NULL when s is usable, else what is wrong. */
static const char *state_check(const gb_state *s, const gb_state *m)
{
    if (s->cgb_hw != m->cgb_hw)
        return m->cgb_hw ? "the state is of a DMG machine, this one is CGB" : "the state is of a CGB machine, this one is DMG";
    if (s->cgb != m->cgb)
        return m->cgb ? "the state is of a CGB in DMG compatibility mode, this one runs in CGB mode"
                      : "the state is of a CGB in CGB mode, this one runs in DMG compatibility mode";
    if (s->ime > 1 || s->ime_delay > 2 || s->halted > 1 || s->halt_bug > 1 || s->stopped > 1 ||
        s->locked > 1 || s->double_speed > 1 || s->key1 > 1 || s->tima_delay > 2 || s->gdma_pending > 1 ||
        s->cgb_hw > 1 || s->cgb > s->cgb_hw)
        return "CPU flags out of range";
    if (s->period_end != GB_NEVER || s->lines_drawn)
        return "the state was not taken between frames";
    if (s->period_start > s->clk || s->clk - s->period_start > 4u * GB_DOTS_FRAME)
        return "frame period out of range";
    for (int i = 0; i < GB_EV_N; i++)
        if (s->ev[i] != GB_NEVER && (s->ev[i] + 4u * GB_DOTS_FRAME < s->clk || s->ev[i] > s->clk + (1ull << 32)))
            return "event time out of range";
    if (s->wake_clk != GB_NEVER && (!s->halted || s->wake_clk > s->clk + 0x20000u))
        return "HALT time-out out of range";
    if (s->clk > (1ull << 62))
        return "clock out of range";
    if (s->dma_done > 160 || s->dma_old_idx > 160 ||
        (s->ev[GB_EV_DMA] != GB_NEVER && s->ev[GB_EV_DMA] > s->clk + 162u * 4))
        return "OAM DMA out of range";
    if (!(s->lcdc & 0x80) && s->ev[GB_EV_FRAME] == GB_NEVER)
        return "LCD off without a frame deadline";
    if ((s->lcdc & 0x80) && (s->ev[GB_EV_PPU] == GB_NEVER || s->line_clk > s->clk + GB_DOTS_LINE ||
                             s->clk - s->line_clk > 2u * GB_DOTS_LINE))
        return "PPU timing out of range";
    if (s->div_clk > s->clk + 8200)
        return "system counter out of range";
    uint64_t sc = s->clk <= s->div_clk ? s->div_base : s->div_base + ((s->clk - s->div_clk) << s->double_speed);
    /* A running timer overflows at least every 2^18 counts, which refreshes its reference;
     * a stopped one is re-referenced when it starts. */
    if ((s->tac & 4) && (s->tima_ref > sc || sc - s->tima_ref > (1u << 20)))
        return "timer reference out of range";
    if (s->rtc_clk > s->clk || s->rtc_sub >= 60u * 32768u || s->rtc_latched_on > 1)
        return "RTC out of range";
    const gb_board *bd = &s->board;
    if (s->ram_bank > 15 || bd->ee_state > 4 || bd->ee_bits > 16 || bd->ee_addr > 127 || bd->ee_we > 1 ||
        bd->ee_do > 1 || bd->ram_en2 > 1 || bd->accel_armed > 1 || bd->ir_led > 1 || (bd->mmm01[0] | bd->mmm01[1] |
        bd->mmm01[2] | bd->mmm01[3]) > 0x7F)
        return "cartridge register out of range";
    if (s->ly > 153 || s->ly_reg > 153 || s->ppu_ev >= GB_PPU_NEV || s->mode > 3 || s->lyc_eq > 1 ||
        s->lcdon_line > 1 || s->nobj > GB_LINE_OBJS || s->vbk > 1 || s->svbk > 7 || s->mbc1_bank2 > 3 || s->fine > 7 ||
        s->stat_line > 1 || s->line_win > 1)
        return "PPU or bank register out of range";
    for (int i = 0; i < s->nobj; i++)
        if (s->obj_idx[i] >= 40)
            return "object index out of range";
    const gb_apu_state *a = &s->apu;
    if (a->fs_step > 7 || a->power > 1 || a->sweep_shadow > 2047 || a->freq[0] > 2047 || a->freq[1] > 2047 ||
        a->freq[2] > 2047 || a->sweep_neg > 1 || a->env_run > 15 || a->wave_fresh > 1 || a->phase > 7 ||
        (a->env_kick & ~0x0Bu) || a->sweep_due > 40 || a->sweep_skip > 1 || a->fs_skip > 1)
        return "APU register out of range";
    for (int ch = 0; ch < 4; ch++)
        if (a->len[ch] > 256)
            return "APU length counter out of range";
    if (!key_ok(&a->gen) || a->gen.t > s->clk || s->clk - a->gen.t > 4u * GB_DOTS_FRAME)
        return "APU generator state out of range";
    if (s->sample_k != gb_sample_first_at(s->period_start))
        return "audio sample counter out of range";
    return NULL;
}

gv_status gb_state_load(gb *g, const uint8_t *data, size_t len, gv_err *err)
{
    if (len < STATE_HDR || memcmp(data, STATE_MAGIC, 8) != 0)
        return gv_fail(err, GV_ERR_INPUT, "not a gpuvet Game Boy save state (bad magic)");
    if (emu_get32(data + 8) < 1u || emu_get32(data + 8) > STATE_VERSION)
        return gv_fail(err, GV_ERR_INPUT, "save state version %u, this build reads version %u", emu_get32(data + 8),
                       STATE_VERSION);
    size_t sb = state_bytes(emu_get32(data + 8));
    if (emu_get32(data + 12) != sb || emu_get32(data + 16) != g->cram_size)
        return gv_fail(err, GV_ERR_INPUT, "save state layout does not match this build and cartridge");
    if (emu_get64(data + 24) != gb_cart_get_info(g->cart)->hash)
        return gv_fail(err, GV_ERR_INPUT, "save state is of another ROM");
    size_t fixed = STATE_HDR + sb + g->cram_size + 4;
    if (len < fixed)
        return gv_fail(err, GV_ERR_INPUT, "save state truncated: %zu bytes, at least %zu expected", len, fixed);
    uint32_t nkeys = emu_get32(data + fixed - 4);
    if (nkeys < 1 || nkeys > MAX_KEYS || len != fixed + (size_t)nkeys * sizeof(gb_apu_key))
        return gv_fail(err, GV_ERR_INPUT, "save state has a bad size (%zu bytes, %u keyframes)", len, nkeys);
    if (!emu_state_sealed(data, len))
        return gv_fail(err, GV_ERR_INPUT, "save state checksum mismatch (the file is corrupt)");
    return gb_state_load_unchecked(g, data, len, err);
}

/* Everything after the checksum: separate so the fuzzer can reach it. */
gv_status gb_state_load_unchecked(gb *g, const uint8_t *data, size_t len, gv_err *err)
{
    if (len < STATE_HDR)
        return gv_fail(err, GV_ERR_INPUT, "save state truncated");
    uint32_t ver = emu_get32(data + 8);
    int v1 = ver == 1u;
    size_t sb = state_bytes(ver);
    size_t fixed = STATE_HDR + sb + g->cram_size + 4;
    if (len < fixed)
        return gv_fail(err, GV_ERR_INPUT, "save state truncated");
    uint32_t nkeys = emu_get32(data + fixed - 4);
    if (nkeys < 1 || nkeys > MAX_KEYS || len != fixed + (size_t)nkeys * sizeof(gb_apu_key))
        return gv_fail(err, GV_ERR_INPUT, "save state has a bad size");
    gb_state *s = malloc(sizeof *s);
    if (!s)
        return gv_fail(err, GV_ERR_ENV, "out of memory loading a save state");
    memset(s, 0, sizeof *s);
    if (v1) {
        memcpy(s, data + STATE_HDR, V1_SPLIT);
        s->wake_clk = GB_NEVER;
        memcpy((uint8_t *)s + V1_SPLIT + sizeof(uint64_t), data + STATE_HDR + V1_SPLIT, V1_STATE_BYTES - V1_SPLIT);
        s->cgb_hw = s->cgb; /* version 1 had no compatibility mode: CGB meant CGB mode */
    } else {
        memcpy(s, data + STATE_HDR, sb);
    }
    if (ver < 3u) { /* the board at power-on; the clock's sub-second and latch as version 3 keeps them */
        s->board.accel[0] = s->board.accel[1] = 0x8000;
        s->board.ee_do = 1;
        s->rtc_sub /= 128;
        s->rtc_latched_on &= 1;
    }
    const char *why = state_check(s, &g->s);
    const uint8_t *kp = data + fixed;
    for (uint32_t i = 0; !why && i < nkeys; i++) {
        gb_apu_key k;
        memcpy(&k, kp + (size_t)i * sizeof k, sizeof k);
        uint64_t prev = i ? emu_get64(kp + (size_t)(i - 1) * sizeof k) : 0;
        if (!key_ok(&k) || k.t > s->clk || (i == 0 && k.t != s->period_start) || (i && k.t <= prev))
            why = "audio keyframe out of range";
    }
    if (why) {
        free(s);
        return gv_fail(err, GV_ERR_INPUT, "save state rejected: %s", why);
    }
    g->s = *s;
    free(s);
    if (g->cram_size)
        memcpy(g->cram, data + STATE_HDR + sb, g->cram_size);
    gb_vec *kv = &g->keys[g->keys_cur];
    kv->n = 0;
    for (uint32_t i = 0; i < nkeys; i++) {
        gb_apu_key *k = gb_vec_push(kv, sizeof(gb_apu_key));
        memcpy(k, kp + (size_t)i * sizeof(gb_apu_key), sizeof(gb_apu_key));
        if (v1) /* version 1 played the sample at the position: that is the buffer */
            k->ch[2].buf = (uint8_t)gb_wave_nibble(k->wave, k->ch[2].pos);
    }
    if (v1) {
        gb_apu_state *a = &g->s.apu;
        a->gen.ch[2].buf = (uint8_t)gb_wave_nibble(a->gen.wave, a->gen.ch[2].pos);
        for (int ch = 0; ch < 4; ch++)
            if (ch != 2 && a->gen.ch[ch].on)
                a->env_run |= (uint8_t)(1 << ch);
    }
    g->md = g->s.double_speed ? 2 : 4;
    gb_map_update(g);
    gb_pal_rgb_refresh(g);
    gb_oam_changed(g);
    gb_sched_all(g);
    /* The video side of the period starts over: empty log with a snapshot, white frame. */
    g->memw[g->log_cur].n = g->regw[g->log_cur].n = 0;
    g->m3_nw = 0; /* no mode 3 in progress (the state was taken between frames) */
    g->m3_close = 0;
    gb_frame_log *lg = &g->log[g->log_cur];
    memset(lg->line, 0, sizeof lg->line);
    lg->cgb = gb_log_mode(&g->s);
    lg->snapshot = 1;
    memcpy(lg->vram, g->s.vram, GB_VRAM_BYTES);
    memcpy(lg->pal, g->s.pal, GB_PAL_BYTES);
    if (g->fb[g->fb_cur])
        memset(g->fb[g->fb_cur], 0xFF, GB_FB_BYTES);
    g->trap_hit = 0;
    return GV_OK;
}
