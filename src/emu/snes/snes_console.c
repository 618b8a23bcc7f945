/* snes_console.c: the SNES behind the console interface (emu/common/console.h). Video:
 * 256x224 RGB, 512 wide with hi-res lines, 239 lines with overscan and twice the lines with
 * interlace (frame_size; docs/SNES.md "Frame sizes"), hashed as the sequence of per-frame
 * hashes of each frame at its size. The three video renderers draw
 * with the same line renderer (snes_video.h): native inside the core; host and device over
 * the frame's packed video log (per-line register snapshots and stamped memory writes),
 * the host's lines on threads, the device's a thread per line (snes_gpu.cu). Audio: 48 kHz
 * stereo from the S-DSP inside the core (the SPC700 reads the DSP back, so the DSP runs
 * with the machine); there is no separate audio renderer (docs/SNES.md).
 * Test ROMs report through the status block at the start of SRAM ($70:0000 LoROM,
 * $20:6000 HiROM). Trace line layout: see trace_layout below. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/snes/snes_gpu.h"
#include "emu/snes/snes_int.h"

static int detect(const uint8_t *d, size_t n) { return snes_cart_detect(d, n); }

static gv_status cart_load(const uint8_t *d, size_t n, const char *name, void **out, gv_err *err)
{
    snes_cart *c;
    gv_status st = snes_cart_load(d, n, name, &c, err);
    *out = st == GV_OK ? c : NULL;
    return st;
}

static void cart_free(void *c) { snes_cart_free(c); }

static void cart_describe(const void *cart, char *buf, size_t len)
{
    const snes_cart_info *ci = snes_cart_get_info(cart);
    snprintf(buf, len, "SNES, \"%s\", %s%s, ROM %zu KiB, SRAM %zu KiB%s%s", ci->title,
             snes_map_name(ci->map), ci->fast ? " FastROM" : "", ci->rom_size / 1024,
             ci->sram_size / 1024, ci->has_battery ? ", battery" : "", ci->copier_header ? ", copier header" : "");
}

static uint64_t cart_hash(const void *c) { return snes_cart_get_info(c)->hash; }
static const char *cart_warning(const void *c) { return snes_cart_warning(c); }

static size_t battery_size(const void *cart)
{
    const snes_cart_info *ci = snes_cart_get_info(cart);
    return ci->has_battery ? ci->sram_size : 0;
}

static gv_status machine_new(const void *cart, const emu_opts *o, unsigned outputs, void **out, gv_err *err)
{
    *out = NULL;
    if (o && o->model)
        return gv_fail(err, GV_ERR_INPUT, "--model %s: the SNES has one model (NTSC)", o->model);
    if (o && o->mmc3_rev)
        return gv_fail(err, GV_ERR_INPUT, "--mmc3-rev %s: the MMC3 is a NES chip (the flag is for NES ROMs)", o->mmc3_rev);
    if (o && o->region)
        return gv_fail(err, GV_ERR_INPUT, "--region %s: the SNES runs NTSC only (the flag is for NES ROMs)", o->region);
    unsigned so = 0;
    if (outputs & EMU_OUT_VIDEO_NATIVE)
        so |= SNES_OUT_VIDEO;
    if (outputs & EMU_OUT_VIDEO_LOG)
        so |= SNES_OUT_VIDEO_LOG;
    if (outputs & EMU_OUT_AUDIO_NATIVE)
        so |= SNES_OUT_AUDIO;
    snes *m;
    gv_status st = snes_new(cart, so, &m, err);
    *out = st == GV_OK ? m : NULL;
    return st;
}

static void machine_free(void *m) { snes_free(m); }
static const uint8_t *work_ram(const void *m, size_t *len)
{
    *len = sizeof ((const snes *)m)->s.wram;
    return ((const snes *)m)->s.wram;
}

static const char *machine_model(const void *m) { return NULL; }
static void power(void *m) { snes_power(m); }
static void reset(void *m) { snes_reset(m); }

static int run_frame(void *m)
{
    snes_run_frame(m);
    return 0;
}

static uint64_t frame_count(const void *m) { return snes_frame_count(m); }
static void set_input(void *m, emu_buttons b) { snes_set_buttons(m, (uint16_t)b); }
static gv_status state_save(const void *m, uint8_t **d, size_t *n, gv_err *err) { return snes_state_save(m, d, n, err); }
static gv_status state_load(void *m, const uint8_t *d, size_t n, gv_err *err) { return snes_state_load(m, d, n, err); }
static gv_status battery_get(const void *m, uint8_t **d, size_t *n, gv_err *err) { return snes_battery_get(m, d, n, err); }

static gv_status battery_set(void *m, const uint8_t *d, size_t n, const char *name, gv_err *err)
{
    return snes_battery_set(m, d, n, name, err);
}

static void set_trace(void *m, emu_line_fn fn, void *ctx) { snes_set_trace(m, fn, ctx); }
static void set_trap(void *m, int on) { (void)m, (void)on; /* SNES test ROMs use the status block */ }

static void test_view(void *mv, emu_test_view *v)
{
    snes *m = mv;
    memset(v, 0, sizeof *v);
    uint32_t at = snes_map_is_hi(m->ci->map) ? 0x206000 : 0x700000;
    v->has_block = m->sram_size >= sizeof v->block;
    v->block_addr = (uint16_t)at;
    v->block_where = snes_map_is_hi(m->ci->map) ? "status block at $20:6000" : "status block at $70:0000";
    if (m->sa1) /* an SA-1 cartridge's BW-RAM starts at $40:0000 */
        at = 0x400000, v->block_addr = 0, v->block_where = "status block at $40:0000";
    for (int i = 0; v->has_block && i < (int)sizeof v->block; i++)
        v->block[i] = snes_peek(m, at + (uint32_t)i);
}

static const uint8_t *native_video(const void *m) { return snes_native_fb(m); }
static void frame_size(const void *m, int *w, int *h) { snes_frame_size(m, w, h); }
static const int16_t *native_audio(const void *m, int *n) { return snes_native_audio(m, n); }

/* ---- the host video renderer ---------------------------------------------------------- */

/* The host renderer's copy of the video memories, as of the end of the last frame drawn. */
typedef struct {
    snes_vmem mem;
    int valid;       /* mem holds a frame's end (a snapshot was seen) */
} host_video_state;

static void *host_video_new(const void *cart)
{
    (void)cart;
    return calloc(1, sizeof(host_video_state));
}

static void host_video_free(void *hv) { free(hv); }

static gv_status host_video(void *hv, void *mv, uint8_t *rgb, int par, gv_err *err)
{
    host_video_state *h = hv;
    snes *m = mv;
    if (!m->vlog || m->vlog->oom)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a SNES video log");
    snes_vview v = snes_vlog_view(m->vlog);
    if (v.snap)
        h->valid = 1;
    if (!h->valid)
        return gv_fail(err, GV_ERR_INTERNAL, "internal error: a SNES video log without a snapshot given to a fresh renderer");
    uint8_t *mem = (uint8_t *)&h->mem;
    if (par) { /* the lines between two stamps on all threads */
#pragma omp parallel
        snes_render_frame(&v, mem, rgb, omp_get_thread_num(), omp_get_num_threads());
    } else {
        snes_render_frame(&v, mem, rgb, 0, 1);
    }
    return GV_OK;
}

/* ---- the device video renderer (snes_gpu.cu): the same packed log -------------------- */

static void pack_sizes(void *mv, int video, int audio, size_t *vbytes, size_t *abytes)
{
    snes *m = mv;
    (void)audio; /* no device audio (snes_gpu_ops.open refuses it) */
    *vbytes = video && m->vlog ? snes_vlog_packed_size(m->vlog) : 0;
    *abytes = 0;
}

static void pack(void *mv, int video, int audio, uint8_t *vdst, uint8_t *adst)
{
    snes *m = mv;
    (void)audio, (void)adst;
    if (video && m->vlog)
        snes_vlog_pack(m->vlog, vdst);
}

const emu_console snes_console = {
    .name = "snes",
    .title = "SNES",
    .exts = ".sfc,.smc",
    .buttons = "B Y Select Start Up Down Left Right A X L R",
    .width = SNES_W,
    .height = SNES_H,
    .audio_rate = SNES_AUDIO_RATE,
    /* 60.10 Hz: the 21.477 MHz master clock, 262 lines of 1364 cycles, one line 4 cycles short
     * every other frame (non-interlaced) */
    .frame_rate = 21477272.7273 / (262 * 1364 - 2),
    .audio_channels = 2,
    .hash_of_frame_hashes = 1,
    .trace_layout = "PC (bank:addr) and the 4 bytes there, A X Y S D DB P E, master clock",
    .detect = detect,
    .cart_load = cart_load,
    .cart_free = cart_free,
    .cart_describe = cart_describe,
    .cart_hash = cart_hash,
    .cart_warning = cart_warning,
    .battery_size = battery_size,
    .machine_new = machine_new,
    .machine_free = machine_free,
    .machine_model = machine_model,
    .power = power,
    .reset = reset,
    .run_frame = run_frame,
    .frame_count = frame_count,
    .set_input = set_input,
    .state_save = state_save,
    .state_load = state_load,
    .battery_get = battery_get,
    .battery_set = battery_set,
    .set_trace = set_trace,
    .set_trap = set_trap,
    .test_view = test_view,
    .work_ram = work_ram,
    .frame_size = frame_size,
    .native_video = native_video,
    .native_audio = native_audio,
    .host_video_new = host_video_new,
    .host_video_free = host_video_free,
    .host_video = host_video,
    .host_audio = NULL,
    .max_audio_frames = SNES_MAX_AUDIO,
    .pack_sizes = pack_sizes,
    .pack = pack,
#ifdef GV_HAVE_GPU
    .gpu = &snes_gpu_ops,
#endif
};
