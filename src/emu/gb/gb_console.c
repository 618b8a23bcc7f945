/* gb_console.c: the Game Boy / Game Boy Color behind the console interface
 * (emu/common/console.h): the cartridge, the machine's operations, and the host and
 * device renderers over its frame logs (gb_host.c, gb_aout.c, gb_gpu.cu). Video: 160x144
 * RGB, hashed as the sequence of per-frame hashes (the device hashes its frames and
 * returns 8 bytes each). Audio: 48 kHz stereo, synthesised from keyframes; the high-pass
 * filter runs on the host, in order, with its state in the machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/gb/gb_gpu.h"
#include "emu/gb/gb_int.h"

/* ---- cartridge ------------------------------------------------------------------------ */

/* The header's own checksum over $0134-$014C, and a ROM size code that matches the file
 * (the header at $0100, or an MMM01's in the last 32 KiB). */
static int detect(const uint8_t *d, size_t n)
{
    if (n < 0x8000)
        return 0;
    d += gb_cart_header_at(d, n);
    uint8_t x = 0;
    for (int a = 0x134; a <= 0x14C; a++)
        x = (uint8_t)(x - d[a] - 1);
    return x == d[0x14D] && d[0x148] <= 8 && ((size_t)0x8000 << d[0x148]) == n ? 2 : 0;
}

static gv_status cart_load(const uint8_t *d, size_t n, const char *name, void **out, gv_err *err)
{
    gb_cart *c;
    gv_status st = gb_cart_load(d, n, name, &c, err);
    *out = st == GV_OK ? c : NULL;
    return st;
}

static void cart_free(void *c) { gb_cart_free(c); }

static void cart_describe(const void *cart, char *buf, size_t len)
{
    const gb_cart_info *ci = gb_cart_get_info(cart);
    char ram[32];
    if (ci->ram_size < 1024) /* the MBC2's 512 cells, the MBC7's 256-byte EEPROM */
        snprintf(ram, sizeof ram, "%s %zu bytes", ci->mbc == GB_MBC7 ? "EEPROM" : "RAM", ci->ram_size);
    else
        snprintf(ram, sizeof ram, "RAM %zu KiB", ci->ram_size / 1024);
    snprintf(buf, len, "Game Boy%s, \"%s\", %s, ROM %zu KiB, %s%s%s%s",
             ci->cgb_flag & 0x80 ? (ci->cgb_flag == 0xC0 ? " Color only" : " Color") : "", ci->title,
             gb_cart_board_name(ci->mbc), ci->rom_size / 1024, ram, ci->has_battery ? ", battery" : "",
             ci->has_rtc ? ", clock" : "", ci->mbc == GB_MBC7 ? ", accelerometer (TiltX, TiltY)" : "");
}

static uint64_t cart_hash(const void *c) { return gb_cart_get_info(c)->hash; }

static size_t battery_size(const void *cart) { return gb_cart_battery_size(cart); }

/* ---- machine -------------------------------------------------------------------------- */

static gv_status machine_new(const void *cart, const emu_opts *o, unsigned outputs, void **out, gv_err *err)
{
    *out = NULL;
    gb_model model = gb_cart_default_model(cart);
    if (o && o->mmc3_rev)
        return gv_fail(err, GV_ERR_INPUT, "--mmc3-rev %s: the MMC3 is a NES chip (the flag is for NES ROMs)", o->mmc3_rev);
    if (o && o->region)
        return gv_fail(err, GV_ERR_INPUT, "--region %s: the Game Boy has one timing (the flag is for NES ROMs)", o->region);
    if (o && o->model) {
        if (!strcmp(o->model, "dmg"))
            model = GB_MODEL_DMG;
        else if (!strcmp(o->model, "cgb"))
            model = GB_MODEL_CGB;
        else
            return gv_fail(err, GV_ERR_INPUT, "--model %s: the Game Boy models are dmg and cgb", o->model);
    }
    unsigned gout = 0;
    if (outputs & EMU_OUT_VIDEO_NATIVE)
        gout |= GB_OUT_VIDEO_NATIVE;
    if (outputs & EMU_OUT_VIDEO_LOG)
        gout |= GB_OUT_VIDEO_LOG;
    if (outputs & EMU_OUT_AUDIO_NATIVE)
        gout |= GB_OUT_AUDIO_NATIVE; /* the keyframes of the audio log are always kept */
    gb *g;
    gv_status st = gb_new(cart, model, gout, &g, err);
    *out = st == GV_OK ? g : NULL;
    return st;
}

static void machine_free(void *g) { gb_free(g); }
static const uint8_t *work_ram(const void *g, size_t *len)
{
    const gb *m = g;
    *len = m->s.cgb ? sizeof m->s.wram : 0x2000;
    return m->s.wram;
}

static const char *machine_model(const void *g) { return gb_get_model(g) == GB_MODEL_CGB ? "cgb" : "dmg"; }
static void power(void *g) { gb_power(g); }
static void reset(void *g) { gb_power(g); /* the Game Boy has no reset button: power cycle */ }
static int run_frame(void *g) { return gb_run_frame(g); }
static uint64_t frame_count(const void *g) { return gb_frame_count(g); }
static void set_input(void *g, emu_buttons b) { gb_set_buttons(g, (uint8_t)b); }
static void set_axes(void *g, const int16_t *v) { gb_set_tilt(g, v[0], v[1]); }

static gv_status state_save(const void *g, uint8_t **d, size_t *n, gv_err *err) { return gb_state_save(g, d, n, err); }
static gv_status state_load(void *g, const uint8_t *d, size_t n, gv_err *err) { return gb_state_load(g, d, n, err); }

static gv_status battery_get(const void *g, uint8_t **d, size_t *n, gv_err *err) { return gb_battery_get(g, d, n, err); }

static gv_status battery_set(void *g, const uint8_t *d, size_t n, const char *name, gv_err *err)
{
    return gb_battery_set(g, d, n, name, err);
}

static void set_trace(void *g, emu_line_fn fn, void *ctx) { gb_set_trace(g, fn, ctx); }
static void set_trap(void *g, int on) { gb_set_trap(g, on); }

static void test_view(void *gv, emu_test_view *v)
{
    gb *g = gv;
    memset(v, 0, sizeof *v);
    v->block_addr = 0xA000;
    v->has_block = g->cram_size != 0;
    for (int i = 0; v->has_block && i < (int)sizeof v->block; i++)
        v->block[i] = gb_peek(g, (uint16_t)(0xA000 + i));
    v->serial = gb_serial_output(g, &v->serial_len);
    v->trapped = gb_trap_hit(g);
    gb_regs r;
    gb_get_regs(g, &r);
    v->regs[0] = r.b, v->regs[1] = r.c, v->regs[2] = r.d, v->regs[3] = r.e, v->regs[4] = r.h, v->regs[5] = r.l;
}

static const uint8_t *native_video(const void *g) { return gb_native_fb(g); }
static const int16_t *native_audio(const void *g, int *n) { return gb_native_audio(g, n); }

/* ---- renderers over logs -------------------------------------------------------------- */

#define MAX_AUDIO_FRAMES 4096 /* a frame period is 803 or 804 samples; an LCD switch-on at most doubles it */

typedef struct {
    gb_vstate vs;
    uint8_t *pk; /* the packed log (8-byte aligned) */
    size_t cap;
} host_video_state;

static void *host_video_new(const void *cart)
{
    host_video_state *h = gv_aligned_alloc(sizeof *h);
    if (h)
        memset(h, 0, sizeof *h);
    return h;
}

static void host_video_free(void *hv)
{
    host_video_state *h = hv;
    if (h)
        free(h->pk);
    free(h);
}

static gv_status host_video(void *hv, void *g, uint8_t *rgb, int par, gv_err *err)
{
    host_video_state *h = hv;
    const gb_frame_log *lg = gb_video_log(g);
    size_t need = gb_log_packed_size(lg);
    if (need > h->cap) {
        free(h->pk);
        h->cap = need * 2;
        if (!(h->pk = gv_aligned_alloc(h->cap))) {
            h->cap = 0;
            return gv_fail(err, GV_ERR_ENV, "out of memory for a frame log");
        }
    }
    gb_log_pack(lg, h->pk);
    return gb_render_host(&h->vs, h->pk, rgb, par, err);
}

static int host_audio(void *gv, int16_t *out)
{
    gb *g = gv;
    const gb_audio_log *al = gb_audio_keys(g);
    if (al->n > MAX_AUDIO_FRAMES)
        return -1;
    gb_audio_block(al, gb_cart_lfsr(g->cart), out);
    gb_audio_filter(g, out, (int)al->n);
    return (int)al->n;
}

static void pack_sizes(void *g, int video, int audio, size_t *vbytes, size_t *abytes)
{
    *vbytes = video ? gb_log_packed_size(gb_video_log(g)) : 0;
    *abytes = audio ? gb_alog_packed_size(gb_audio_keys(g)) : 0;
}

static void pack(void *g, int video, int audio, uint8_t *vdst, uint8_t *adst)
{
    if (video)
        gb_log_pack(gb_video_log(g), vdst);
    if (audio)
        gb_alog_pack(gb_audio_keys(g), adst);
}

static void audio_units(void *g, emu_adesc *d)
{
    d->units = d->count = gb_audio_keys(g)->n;
    d->first = gb_audio_keys(g)->k0;
}

static int audio_collect(void *g, const emu_adesc *d, const uint8_t *ares, int16_t *out)
{
    if (d->count > MAX_AUDIO_FRAMES)
        return -1;
    memcpy(out, ares, (size_t)d->count * 2 * sizeof(int16_t));
    gb_audio_filter(g, out, (int)d->count);
    return (int)d->count;
}

const emu_console gb_console = {
    .name = "gb", .title = "Game Boy", .exts = ".gb,.gbc,.sgb",
    .buttons = "A B Select Start Right Left Up Down",
    .axes = "TiltX TiltY", /* the MBC7's accelerometer (gb_set_tilt); other cartridges ignore them */
    .width = GB_W, .height = GB_H, .audio_rate = GB_AUDIO_RATE, .audio_channels = 2,
    .hash_of_frame_hashes = 1, .max_audio_frames = MAX_AUDIO_FRAMES,
    .frame_rate = 4194304.0 / GB_DOTS_FRAME, /* 59.73 Hz: a 4.19 MHz clock, 70224 dots a frame */
    .trace_layout = "Gameboy Doctor layout: A F B C D E H L SP PC and the 4 bytes at PC",
    EMU_CONSOLE_OPS, .set_axes = set_axes,
#ifdef GV_HAVE_GPU
    .gpu = &gb_gpu_ops,
#endif
};
