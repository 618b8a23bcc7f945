/* nes_console.c: the NES behind the console interface (emu/common/console.h): the
 * cartridge, the machine's operations, and the host and device renderers over its frame
 * logs (nes_host.c, nes_gpu.cu). Video: 256x240 RGB, hashed as one stream of bytes. Audio:
 * 48 kHz mono; the renderers over logs produce 64-bit piece sums that the host turns into
 * samples through the recurrent filters kept in the machine (nes_aout_pieces). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/nes/nes_gpu.h"
#include "emu/nes/nes_host.h"
#include "emu/nes/nes_int.h"

/* ---- cartridge ------------------------------------------------------------------------ */

static int detect(const uint8_t *d, size_t n)
{
    return n >= 16 && !memcmp(d, "NES\x1A", 4) ? 2 : 0;
}

static gv_status cart_load(const uint8_t *d, size_t n, const char *name, void **out, gv_err *err)
{
    *out = NULL;
    nes_cart *c = calloc(1, sizeof *c);
    if (!c)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    gv_status st = nes_cart_parse(d, n, name, c, err);
    if (st != GV_OK) {
        free(c);
        return st;
    }
    *out = c;
    return GV_OK;
}

static void cart_free(void *c)
{
    if (c) {
        nes_cart_free(c);
        free(c);
    }
}

static void cart_describe(const void *cart, char *buf, size_t len)
{
    static const char *mir[] = {"horizontal", "vertical", "four-screen"};
    const nes_cart *c = cart;
    char sub[24] = "", chr[48], ram[48] = "";
    if (c->nes2 && c->submapper)
        snprintf(sub, sizeof sub, ".%d", c->submapper);
    if (c->chr && c->chr_ram_size)
        snprintf(chr, sizeof chr, "CHR %u KiB ROM + %u KiB RAM", c->chr_size / 1024, c->chr_ram_size / 1024);
    else
        snprintf(chr, sizeof chr, "CHR %u KiB %s", (c->chr ? c->chr_size : c->chr_ram_size) / 1024, c->chr ? "ROM" : "RAM");
    if (c->prg_ram_size)
        snprintf(ram, sizeof ram, ", PRG-RAM %u KiB%s", (c->prg_ram_size + 1023) / 1024,
                 c->prg_nvram_size == c->prg_ram_size ? " (battery)" : c->prg_nvram_size ? " (part battery)" : "");
    static const char *timing[] = {"", ", PAL timing", ", multiple-region timing", ", Dendy timing"};
    snprintf(buf, len, "NES, mapper %d%s (%s), PRG %u KiB, %s%s, %s mirroring%s%s", c->mapper, sub, nes_cart_board(c),
             c->prg_size / 1024, chr, ram, mir[c->mirroring], timing[c->timing & 3], c->nes2 ? ", NES 2.0" : "");
}

static uint64_t cart_hash(const void *c)
{
    return ((const nes_cart *)c)->hash;
}

static size_t battery_size(const void *cart)
{
    const nes_cart *c = cart;
    return c->prg_nvram_size; /* the battery-backed part of PRG-RAM (CHR-NVRAM is not kept) */
}

/* ---- machine -------------------------------------------------------------------------- */

/* The region a machine runs: --region's, else the header's timing (a multiple-region image
 * runs as NTSC). -1: not a region's name. */
static int region_of(const nes_cart *c, const char *name)
{
    if (!name)
        return c->timing == NES_TIMING_PAL ? NES_REGION_PAL : c->timing == NES_TIMING_DENDY ? NES_REGION_DENDY : NES_REGION_NTSC;
    if (!strcmp(name, "ntsc"))
        return NES_REGION_NTSC;
    if (!strcmp(name, "pal"))
        return NES_REGION_PAL;
    if (!strcmp(name, "dendy"))
        return NES_REGION_DENDY;
    return -1;
}

static gv_status machine_new(const void *cart, const emu_opts *o, unsigned outputs, void **out, gv_err *err)
{
    *out = NULL;
    if (o && o->model)
        return gv_fail(err, GV_ERR_INPUT, "--model %s: the NES has one model (the flag is for Game Boy ROMs)", o->model);
    nes_opts mo = {0};
    mo.region = region_of(cart, o ? o->region : NULL);
    if (mo.region < 0)
        return gv_fail(err, GV_ERR_INPUT, "--region %s: the NES regions are ntsc, pal and dendy", o->region);
    if (o && o->mmc3_rev) {
        if (!strcmp(o->mmc3_rev, "A"))
            mo.mmc3_rev_a = 1;
        else if (strcmp(o->mmc3_rev, "B"))
            return gv_fail(err, GV_ERR_INPUT, "--mmc3-rev %s: the MMC3 revisions are A and B", o->mmc3_rev);
    }
    mo.video_native = (outputs & EMU_OUT_VIDEO_NATIVE) != 0;
    mo.log_video = (outputs & EMU_OUT_VIDEO_LOG) != 0;
    mo.audio_native = (outputs & EMU_OUT_AUDIO_NATIVE) != 0;
    mo.log_audio = (outputs & EMU_OUT_AUDIO_LOG) != 0;
    nes *m;
    gv_status st = nes_new(cart, &mo, &m, err);
    *out = m;
    return st;
}

static void machine_free(void *m) { nes_free(m); }
static const uint8_t *work_ram(const void *m, size_t *len)
{
    *len = sizeof ((const nes *)m)->ram;
    return ((const nes *)m)->ram;
}

static const char *machine_model(const void *m) { return NULL; }

/* The PPU's clock over the dots of a frame: NTSC's (nes_console.frame_rate); PAL and Dendy
 * 26.6017125 MHz / 5 over 341 x 312 dots (no dot skipped). */
static double machine_frame_rate(const void *m)
{
    return ((const nes *)m)->opt.region == NES_REGION_NTSC ? nes_console.frame_rate : 26601712.5 / 5 / 106392;
}
static void power(void *m) { nes_power(m); }
static void reset(void *m) { nes_reset(m); }

static int run_frame(void *m)
{
    nes_run_frame(m);
    return 0;
}

static uint64_t frame_count(const void *m) { return ((const nes *)m)->frame; }
static void set_input(void *m, emu_buttons b) { ((nes *)m)->pad_buttons = (uint8_t)b; }

static gv_status state_save(const void *m, uint8_t **d, size_t *n, gv_err *err) { return nes_state_save(m, d, n, err); }
static gv_status state_load(void *m, const uint8_t *d, size_t n, gv_err *err) { return nes_state_load(m, d, n, err); }

static gv_status battery_get(const void *mv, uint8_t **data, size_t *len, gv_err *err)
{
    const nes *m = mv;
    size_t n = battery_size(m->cart);
    *data = NULL;
    *len = 0;
    if (!n)
        return gv_fail(err, GV_ERR_INPUT, "this cartridge has no battery-backed RAM");
    if (!(*data = malloc(n)))
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    memcpy(*data, m->prg_ram + (m->cart->prg_ram_size - n), n);
    *len = n;
    return GV_OK;
}

static gv_status battery_set(void *mv, const uint8_t *data, size_t len, const char *name, gv_err *err)
{
    nes *m = mv;
    size_t n = battery_size(m->cart);
    if (!n)
        return gv_fail(err, GV_ERR_INPUT, "%s: this cartridge has no battery-backed RAM", name);
    if (len != n)
        return gv_fail(err, GV_ERR_INPUT, "%s: battery file has %zu bytes, the cartridge has %zu", name, len, n);
    memcpy(m->prg_ram + (m->cart->prg_ram_size - n), data, n);
    return GV_OK;
}

static void set_trace(void *mv, emu_line_fn fn, void *ctx)
{
    nes *m = mv;
    m->trace = fn;
    m->trace_ctx = ctx;
}

static void set_trap(void *m, int on) { (void)m, (void)on; /* no breakpoint protocol on the NES */ }

static void test_view(void *mv, emu_test_view *v)
{
    const nes *m = mv;
    memset(v, 0, sizeof *v);
    v->block_addr = 0x6000;
    v->has_block = m->cart->prg_ram_size != 0;
    for (int i = 0; v->has_block && i < (int)sizeof v->block; i++)
        v->block[i] = nes_peek(m, (uint16_t)(0x6000 + i));
}

static const uint8_t *native_video(const void *m) { return ((const nes *)m)->fb; }

static const int16_t *native_audio(const void *mv, int *n)
{
    const nes *m = mv;
    *n = (int)m->abuf_n;
    return m->abuf;
}

/* ---- renderers over logs -------------------------------------------------------------- */

typedef struct {
    const nes_cart *cart;
    uint32_t rgb32[512];
    nes_linestart ls[NES_H];
} host_video_state;

static void *host_video_new(const void *cart)
{
    host_video_state *h = malloc(sizeof *h);
    if (h) {
        h->cart = cart;
        nes_palette_rgb32(h->rgb32);
    }
    return h;
}

static void host_video_free(void *h) { free(h); }

static gv_status host_video(void *hv, void *m, uint8_t *rgb, int par, gv_err *err)
{
    host_video_state *h = hv;
    nes_logview lv = nes_log_view(m);
    nes_host_video(&lv, 1, h->ls, &rgb, h->cart->chr, h->rgb32, par ? gv_cpu_count() : 1);
    return GV_OK;
}

/* Samples from piece sums: the recurrent filters run here, in order. -1 when the frame has
 * more pieces than the renderers take (never seen: about 800 are used of NES_MAX_PIECES). */
static int finish_pieces(nes *m, uint64_t n0, uint32_t np, const uint64_t *pieces, int16_t *out)
{
    if (np > NES_MAX_PIECES)
        return -1;
    uint32_t n = 0;
    nes_aout_pieces(&m->aout, n0, pieces, np, out, &n);
    return (int)n;
}

static int host_audio(void *mv, int16_t *out)
{
    nes *m = mv;
    uint64_t pieces[NES_MAX_PIECES], n0;
    uint32_t np;
    nes_logview lv = nes_log_view(m);
    nes_log_pieces(lv.h, &n0, &np);
    if (np > NES_MAX_PIECES)
        return -1;
    nes_host_audio(m->tab, &lv, 1, pieces, 1);
    return finish_pieces(m, n0, np, pieces, out);
}

static void pack_sizes(void *m, int video, int audio, size_t *vbytes, size_t *abytes)
{
    *vbytes = video || audio ? nes_log_packed_size(((nes *)m)->lh) : 0;
    *abytes = 0; /* the audio spans travel inside the frame log */
}

static void pack(void *m, int video, int audio, uint8_t *vdst, uint8_t *adst)
{
    nes_logview lv = nes_log_view(m);
    nes_log_pack(&lv, vdst);
}

static void audio_units(void *m, emu_adesc *d)
{
    uint64_t n0;
    uint32_t np;
    nes_log_pieces(((nes *)m)->lh, &n0, &np);
    d->units = NES_MAX_PIECES; /* the kernel's layout: a fixed stride, zeros past np */
    d->count = np;
    d->first = n0;
}

static int audio_collect(void *m, const emu_adesc *d, const uint8_t *ares, int16_t *out)
{
    return finish_pieces(m, d->first, d->count, (const uint64_t *)ares, out);
}

const emu_console nes_console = {
    .name = "nes", .title = "NES", .exts = ".nes",
    .buttons = "A B Select Start Up Down Left Right",
    .width = NES_W, .height = NES_H, .audio_rate = NES_AUDIO_HZ, .audio_channels = 1,
    .hash_of_frame_hashes = 0, .max_audio_frames = 2048,
    /* NTSC: the PPU's 5369318.18 Hz (21.477 MHz / 4) over 341 x 262 - 0.5 dots (an odd
     * frame with rendering on skips a dot) */
    .frame_rate = 21477272.7273 / 4 / 89341.5,
    .trace_layout = "nestest log layout: PC, bytes, disassembly, A X Y P SP, PPU line and dot, CPU cycle",
    EMU_CONSOLE_OPS,
    .machine_frame_rate = machine_frame_rate,
#ifdef GV_HAVE_GPU
    .gpu = &nes_gpu_ops,
#endif
};
