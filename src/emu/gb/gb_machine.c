/* gb_machine.c: the machine: creation in the post-boot state, the event queue, the run
 * loop of one frame period and the switch between periods (where the finished frame's
 * logs and native outputs become readable). */
#include <stdlib.h>
#include <string.h>

#include "emu/gb/gb_int.h"

void *gb_vec_push(gb_vec *v, size_t elem)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 256;
        v->v = gv_xrealloc(v->v, (size_t)v->cap * elem);
    }
    return (uint8_t *)v->v + (size_t)v->n++ * elem;
}

/* ---- events --------------------------------------------------------------------------- */

/* The earliest event; of events due at the same dot, the one listed first in GB_EV_*. */
void gb_sched_all(gb *g)
{
    int e = 0;
    for (int i = 1; i < GB_EV_N; i++)
        if (g->s.ev[i] < g->s.ev[e])
            e = i;
    g->next_ev = e;
    g->next_event = g->s.ev[e];
}

void gb_sched(gb *g, int ev, uint64_t t)
{
    g->s.ev[ev] = t;
    if (t < g->next_event || (t == g->next_event && ev <= g->next_ev)) {
        g->next_event = t;
        g->next_ev = ev;
    } else if (ev == g->next_ev) { /* the earliest event moved later: look again */
        gb_sched_all(g);
    }
}

/* A PPU event at dot t. */
static void ppu_event(gb *g, uint64_t t)
{
    if (g->s.ev[GB_EV_DMA] != GB_NEVER) /* the PPU may read OAM: the DMA's bytes before t */
        gb_dma_catchup(g, t);
    gb_ppu_event(g, t);
}

static void event_fire(gb *g)
{
    gb_state *s = &g->s;
    int e = g->next_ev;
    uint64_t t = s->ev[e];
    switch (e) {
    case GB_EV_PPU: ppu_event(g, t); break;
    case GB_EV_TIMER: gb_timer_event(g, t); break;
    case GB_EV_FS: gb_apu_fs_event(g, t); break;
    case GB_EV_SERIAL: gb_serial_event(g, t); break;
    case GB_EV_DMA: gb_dma_event(g, t); break;
    default:
        gb_sched(g, GB_EV_FRAME, GB_NEVER);
        gb_period_end(g, t);
        break;
    }
}

void gb_sync(gb *g)
{
    while (g->next_event <= g->s.clk)
        event_fire(g);
}

void gb_period_end(gb *g, uint64_t t)
{
    if (g->s.period_end == GB_NEVER)
        g->s.period_end = t;
    g->cpu_brk = 1;
}

/* ---- creation ------------------------------------------------------------------------- */

/* DMG compatibility mode: the palettes the CGB boot ROM loads for a cartridge with no
 * entry of its own (palettes ID $00, the "dark green" set: BG white, light green, dark
 * blue, black; both OBJ palettes white, light red, dark red, black), as 15-bit BGR. The
 * boot ROM's per-title table (Nintendo-licensed titles, looked up by title checksum) is
 * not reproduced: every DMG cartridge gets these. */
static const uint16_t compat_bg[4] = {0x7FFF, 0x1BEF, 0x6180, 0x0000};
static const uint16_t compat_obj[4] = {0x7FFF, 0x421F, 0x1CF2, 0x0000};

/* The ® the DMG boot ROM draws after the logo (tile 25): 8 rows, leftmost pixel first,
 * '#' colour 1. */
static const char *const boot_reg_mark[8] = {
    "..####..", ".#....#.", "#.###..#", "#.#..#.#", "#.###..#", "#.#..#.#", ".#....#.", "..####..",
};

/* One nibble of the header's logo, each bit doubled into two pixels (bit 3 leftmost). */
static uint8_t boot_logo_widen(unsigned n)
{
    uint8_t r = 0;
    for (int i = 3; i >= 0; i--)
        r = (uint8_t)(r << 2 | ((n >> i) & 1) * 3);
    return r;
}

/* VRAM as the boot ROM leaves it (Pan Docs, "Power Up Sequence"): every boot ROM unpacks
 * the logo of the cartridge header ($0104-$0133, 48 bytes) into tiles 1-24 ($8010-$818F):
 * each byte gives four rows of a tile, its high nibble the first two and its low nibble
 * the next two, every pixel doubled in width, colour 1 (the second bit plane stays 0), so
 * two header bytes make one tile. The DMG's adds its ® as tile 25 and the logo's tile
 * map: tiles 1-12 at $9904-$990F, 25 at $9910, 13-24 at $9924-$992F. The CGB's writes
 * that map only in DMG compatibility mode when the title checksum it leaves in B is $43
 * or $58 (where it also leaves HL = $991A); what else its animation draws is not
 * reproduced (bank 0 only).
 * The rest of VRAM is zero. */
static void boot_vram(gb *g, int dmg_map)
{
    uint8_t *v = g->s.vram;
    for (int i = 0; i < 48; i++) {
        uint8_t b = g->rom[0x104 + i];
        uint8_t *t = v + 0x10 + 8 * i;
        t[0] = t[2] = boot_logo_widen(b >> 4);
        t[4] = t[6] = boot_logo_widen(b & 15);
    }
    if (!dmg_map)
        return;
    if (!g->s.cgb_hw)
        for (int r = 0; r < 8; r++)
            for (int x = 0; x < 8; x++)
                v[0x190 + 2 * r] |= (uint8_t)((boot_reg_mark[r][x] == '#') << (7 - x));
    for (int i = 0; i < 12; i++) {
        v[0x1904 + i] = (uint8_t)(1 + i);
        v[0x1924 + i] = (uint8_t)(13 + i);
    }
    v[0x1910] = 25;
}

/* Registers as the boot ROM leaves them at PC=$0100 (Pan Docs, "Power Up Sequence"). The
 * PPU is on line 153 (LY already reads 0, mode 1) 400 dots in. The system counter is $ABCC
 * on the DMG (DIV $AB, 52 dots before it steps); on the CGB the boot ROM's duration depends
 * on the header (Pan Docs): for a DMG cartridge it is $2678 (DIV $26), the value and phase
 * mooneye's boot_div-cgbABCDE measures (a header of another licensee than Nintendo), and
 * for a CGB cartridge $1EA0 (DIV $1E), where nothing documents one. WRAM, HRAM and OAM are zero, VRAM
 * holds the logo (boot_vram); CGB palettes white. A DMG cartridge on the CGB runs in DMG compatibility mode:
 * the registers of the "CGB (DMG mode)" column (B is the title checksum when the
 * licensee is Nintendo, HL $991A when that is $43 or $58, else $007C), OPRI 1 (objects
 * ordered by X), BG palette 0 and OBJ palettes 0-1 loaded with the compatibility
 * palettes, through which BGP, OBP0 and OBP1 then pick their colours. */
static void post_boot(gb *g)
{
    gb_state *s = &g->s;
    const gb_cart_info *ci = gb_cart_get_info(g->cart);
    if (s->cgb_hw && !s->cgb) {
        const uint8_t *rom = gb_cart_rom(g->cart);
        uint8_t sum = 0;
        for (int i = 0x134; i < 0x144; i++)
            sum = (uint8_t)(sum + rom[i]);
        int nintendo = rom[0x14B] == 0x33 ? (rom[0x144] == '0' && rom[0x145] == '1') : rom[0x14B] == 0x01;
        s->a = 0x11, s->f = 0x80, s->b = nintendo ? sum : 0x00, s->c = 0x00;
        s->d = 0x00, s->e = 0x08;
        int logo_map = s->b == 0x43 || s->b == 0x58;
        s->h = logo_map ? 0x99 : 0x00;
        s->l = logo_map ? 0x1A : 0x7C;
        boot_vram(g, logo_map);
        s->div_base = 0x2678;
        s->dma_reg = 0x00;
        s->obp0 = s->obp1 = 0x00;
        s->opri = 1;
        for (int i = 0; i < GB_PAL_BYTES; i += 2)
            s->pal[i] = 0xFF, s->pal[i + 1] = 0x7F;
        for (int c = 0; c < 4; c++) {
            s->pal[2 * c] = (uint8_t)compat_bg[c], s->pal[2 * c + 1] = (uint8_t)(compat_bg[c] >> 8);
            for (int p = 0; p < 2; p++) {
                int i = 64 + p * 8 + 2 * c;
                s->pal[i] = (uint8_t)compat_obj[c], s->pal[i + 1] = (uint8_t)(compat_obj[c] >> 8);
            }
        }
    } else if (s->cgb) {
        s->a = 0x11, s->f = 0x80, s->b = 0x00, s->c = 0x00;
        s->d = 0xFF, s->e = 0x56, s->h = 0x00, s->l = 0x0D;
        s->div_base = 0x1EA0;
        s->dma_reg = 0x00;
        s->obp0 = s->obp1 = 0x00;
        for (int i = 0; i < GB_PAL_BYTES; i += 2)
            s->pal[i] = 0xFF, s->pal[i + 1] = 0x7F;
        boot_vram(g, 0);
    } else {
        s->a = 0x01;
        s->f = (uint8_t)(0x80 | (ci->header_checksum ? 0x30 : 0));
        s->b = 0x00, s->c = 0x13, s->d = 0x00, s->e = 0xD8, s->h = 0x01, s->l = 0x4D;
        s->div_base = 0xABCC;
        s->dma_reg = 0xFF;
        s->obp0 = s->obp1 = 0xFF;
        boot_vram(g, 1);
    }
    s->sp = 0xFFFE, s->pc = 0x0100;
    s->iflag = 0x01, s->lcdc = 0x91, s->stat = 0x00, s->bgp = 0xFC;
    s->hdma_len = 0x7F, s->rom_bank = 1;
    s->clk = 400, s->div_clk = s->clk, s->line_clk = 0;
    s->ly = 153, s->ly_reg = 0, s->mode = 1, s->ppu_ev = GB_PPU_LINE, s->lyc_eq = 1;
    s->period_start = 0, s->period_end = GB_NEVER, s->wake_clk = GB_NEVER;
    for (int i = 0; i < GB_EV_N; i++)
        s->ev[i] = GB_NEVER;
    s->ev[GB_EV_PPU] = GB_DOTS_LINE + 4; /* line 0's GB_PPU_LINE */
    /* APU after the boot chime: on, channel 1 playing at volume 0, NR50 $77, NR51 $F3. */
    gb_apu_reset(g);
    gb_apu_state *ap = &s->apu;
    ap->power = 1;
    ap->reg[0x00] = 0x00, ap->reg[0x01] = 0x80, ap->reg[0x02] = 0xF3, ap->reg[0x03] = 0xC1;
    ap->reg[0x04] = 0x07, ap->reg[0x0A] = 0x00, ap->reg[0x0C] = 0x00, ap->reg[0x14] = 0x77;
    ap->reg[0x15] = 0xF3, ap->reg[0x16] = 0x80;
    ap->freq[0] = 0x7C1;
    ap->gen.ch[0].on = 1, ap->gen.ch[0].dac = 1, ap->gen.ch[0].mode = 2;
    ap->gen.ch[0].period = (2048u - 0x7C1) * 4u;
    ap->gen.ch[0].ctr = ap->gen.ch[0].period;
    ap->gen.nr5x[0] = 0x77, ap->gen.nr5x[1] = 0xF3; /* NR50, NR51 after the boot ROM */
    ap->gen.t = 0; /* the first period and its first keyframe start at dot 0 */
    s->sample_k = gb_sample_first_at(0);
}

gv_status gb_new(const gb_cart *cart, gb_model model, unsigned outputs, gb **out, gv_err *err)
{
    *out = NULL;
    const gb_cart_info *ci = gb_cart_get_info(cart);
    gb *g = calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a Game Boy machine");
    g->cart = cart;
    g->rom = gb_cart_rom(cart);
    g->rom_mask = (uint32_t)(ci->rom_size / 0x4000 - 1);
    g->lfsr = gb_cart_lfsr(cart);
    g->cram_size = (uint32_t)ci->ram_size;
    g->outputs = outputs;
    if (g->cram_size && !(g->cram = calloc(1, g->cram_size)))
        goto oom;
    gb_cart_ram_init(g);
    if (outputs & GB_OUT_VIDEO_NATIVE) {
        for (int i = 0; i < 2; i++) {
            if (!(g->fb[i] = malloc(GB_FB_BYTES + 4))) /* + 4: the renderer stores 4 bytes per pixel */
                goto oom;
            memset(g->fb[i], 0xFF, GB_FB_BYTES);
        }
    }
    g->s.cgb_hw = model == GB_MODEL_CGB;
    g->s.cgb = g->s.cgb_hw && (ci->cgb_flag & 0x80); /* else DMG compatibility mode */
    gb_power(g);
    *out = g;
    return GV_OK;
oom:
    gb_free(g);
    return gv_fail(err, GV_ERR_ENV, "out of memory for a Game Boy machine");
}

void gb_free(gb *g)
{
    if (!g)
        return;
    free(g->cram);
    for (int i = 0; i < 2; i++) {
        GV_FREE(g->fb[i], g->memw[i].v, g->regw[i].v, g->keys[i].v);
    }
    free(g->abuf);
    free(g->serial);
    free(g);
}

void gb_power(gb *g)
{
    /* Everything that evolves goes back to its state at creation, but for what the
     * cartridge's battery keeps (gb_cart_power); buffers are kept. */
    int cgb = g->s.cgb, cgb_hw = g->s.cgb_hw;
    gb_cart_kept kept;
    gb_cart_keep(g, &kept);
    memset(&g->s, 0, sizeof g->s);
    gb_state *s = &g->s;
    s->cgb = (uint8_t)cgb;
    s->cgb_hw = (uint8_t)cgb_hw;
    for (int i = 0; i < 2; i++) {
        if (g->fb[i])
            memset(g->fb[i], 0xFF, GB_FB_BYTES);
        g->memw[i].n = g->regw[i].n = g->keys[i].n = 0;
        memset(&g->log[i], 0, sizeof g->log[i]);
    }
    g->trap_hit = 0;
    g->cpu_brk = 0;
    g->fb_cur = g->log_cur = g->keys_cur = 0;
    g->m3_nw = 0;
    g->m3_close = 0;
    g->oam_rows_h = 0;
    g->want_snapshot = 0;
    memset(&g->alog, 0, sizeof g->alog);
    g->an = 0;
    g->nserial = 0;
    g->md = 4;
    post_boot(g);
    gb_cart_power(g, &kept);
    gb_map_update(g);
    gb_pal_rgb_refresh(g);
    gb_native_init(g);
    gb_sched_all(g);
    gb_apu_fs_schedule(g);
    gb_timer_schedule(g);
    gb_apu_key *k0 = gb_vec_push(&g->keys[0], sizeof *k0);
    *k0 = s->apu.gen;
    g->log[0].cgb = g->log[1].cgb = gb_log_mode(s);
    g->log[0].snapshot = 1;
    memcpy(g->log[0].vram, s->vram, GB_VRAM_BYTES);
    memcpy(g->log[0].pal, s->pal, GB_PAL_BYTES);
}

/* ---- running -------------------------------------------------------------------------- */

static void period_switch(gb *g)
{
    gb_state *s = &g->s;
    uint64_t t = s->period_end;
    gb_apu_period_switch(g, t);
    if (g->outputs & GB_OUT_AUDIO_NATIVE) {
        int n = (int)g->alog.n;
        if (n > g->acap) {
            g->acap = n + 64;
            g->abuf = gv_xrealloc(g->abuf, (size_t)g->acap * 2 * sizeof(int16_t));
        }
        gb_audio_native(&g->alog, g->abuf);
        gb_hpf_run(s->hpf_cap, gb_hpf_charge(s->cgb_hw), g->abuf, n);
        g->an = n;
    }
    s->period_start = t;
    s->period_end = GB_NEVER;
    s->frames++;
    gb_ppu_period_begin(g);
}

int gb_run_frame(gb *g)
{
    gb_state *s = &g->s;
    while (s->period_end == GB_NEVER) {
        if (g->next_event <= s->clk) {
            gb_sync(g);
            continue;
        }
        if (s->halted | s->stopped | s->locked) {
            uint64_t until = g->next_event;
            if (s->halted) {
                if (s->ie & s->iflag & 0x1F) {
                    s->halted = 0;
                    s->wake_clk = GB_NEVER;
                    /* The DMG resumes at once, at the boundary where a run of NOPs would
                     * have been interrupted (mooneye's halt_ime1_timing2-GS); the CGB,
                     * on which that test fails, takes one M-cycle more. */
                    if (s->cgb_hw)
                        s->clk += g->md;
                    continue;
                }
                if (__builtin_expect(s->wake_clk != GB_NEVER, 0)) { /* the HALT after a speed switch */
                    if (s->clk >= s->wake_clk) {
                        s->halted = 0;
                        s->wake_clk = GB_NEVER;
                        continue;
                    }
                    if (s->wake_clk < until)
                        until = s->wake_clk;
                }
            } else if (s->stopped && (gb_joyp(g) & 0x0F) != 0x0F) { /* a selected button ends STOP mode */
                s->stopped = 0;
                continue;
            }
            /* Nothing runs until the next event: skip there on the M-cycle grid (md is 4
             * or 2, so rounding up is a mask). */
            uint64_t d = until - s->clk;
            s->clk += (d + g->md - 1) & ~(uint64_t)(g->md - 1);
            continue;
        }
        gb_cpu_run(g);
        if (g->trap_hit)
            return 1;
    }
    period_switch(g);
    return 0;
}

/* ---- accessors ------------------------------------------------------------------------ */

uint64_t gb_frame_count(const gb *g) { return g->s.frames; }
gb_model gb_get_model(const gb *g) { return g->s.cgb_hw ? GB_MODEL_CGB : GB_MODEL_DMG; }
int gb_compat_mode(const gb *g) { return g->s.cgb_hw && !g->s.cgb; }
const gb_cart *gb_get_cart(const gb *g) { return g->cart; }

const uint8_t *gb_native_fb(const gb *g)
{
    return g->fb[g->fb_cur ^ 1];
}

const int16_t *gb_native_audio(const gb *g, int *n)
{
    *n = g->an;
    return g->abuf;
}

const gb_frame_log *gb_video_log(const gb *g)
{
    return &g->log[g->log_cur ^ 1];
}

const gb_audio_log *gb_audio_keys(const gb *g)
{
    return &g->alog;
}

void gb_request_snapshot(gb *g)
{
    g->want_snapshot = 1;
}

void gb_audio_filter(gb *g, int16_t *lr, int n)
{
    gb_hpf_run(g->s.hpf_cap, gb_hpf_charge(g->s.cgb_hw), lr, n);
}

const uint8_t *gb_serial_output(const gb *g, size_t *len)
{
    *len = g->nserial;
    return g->serial;
}

void gb_set_buttons(gb *g, uint8_t buttons)
{
    /* A button going down while its group is selected requests the joypad interrupt (a
     * high-to-low change of a P1 input line). */
    uint8_t before = gb_joyp(g);
    g->s.buttons = buttons;
    if ((before & ~gb_joyp(g)) & 0x0F)
        g->s.iflag |= 0x10;
}

void gb_set_trap(gb *g, int on)
{
    g->trap_on = on;
    g->trap_hit = 0;
}

int gb_trap_hit(const gb *g)
{
    return g->trap_hit;
}

void gb_get_regs(const gb *g, gb_regs *r)
{
    const gb_state *s = &g->s;
    r->a = s->a, r->f = s->f, r->b = s->b, r->c = s->c, r->d = s->d, r->e = s->e;
    r->h = s->h, r->l = s->l, r->sp = s->sp, r->pc = s->pc;
}

void gb_set_trace(gb *g, emu_line_fn fn, void *ctx)
{
    g->trace = fn;
    g->trace_ctx = ctx;
}
