/* test_emu_devsim.c: the batch runner's device path without a device, for every console.
 * This program defines the emu_gpu_* entry points itself (taking the place of emu_gpu.cu
 * or its no-GPU twin at link time) as a host simulation of the pipeline, in which the
 * "device" copies a slot's staging and runs its kernels as late as it may: when the slot
 * is waited for (so a host that touched a slot in flight would be caught). The consoles'
 * kernels are simulated by device ops given to the batch (emu_batch_cfg.gpu_ops) that do
 * on the host what the kernels do, block by block: for the Game Boy resident per-instance
 * VRAM/palette state, gb_render_packed and the lane-parallel XXH3 of each frame, and
 * per-sample audio from the packed keyframes; for the NES the line prepass, the line
 * renderer and the audio piece sums over the packed logs. It then checks that device
 * renderers through emu_batch give the native renderers' hashes on several instances,
 * and that frame k-1 goes to the device while frame k is emulated. What it cannot check
 * is CUDA itself: bench/gb/run_h200.sh and bench/nes/run_h200.sh do that on a GPU. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "check.h"
#include "dev/xxh3_hd.h"
#include "emu/common/emu_batch.h"
#include "emu/common/frame_reduce.h"
#include "emu/gb/gb.h"
#include "emu/gb/gb_audio.h"
#include "emu/gb/gb_video.h"
#include "emu/nes/nes_gpu.h"
#include "emu/nes/nes_int.h"
#include "emu/snes/snes_int.h"
#include "emu/snes/snes_video.h"
#include "nes/nes_test.h"

/* ---- the simulated pipeline --------------------------------------------------------------- */

typedef struct {
    uint8_t *v, *a;       /* staging */
    size_t cap_v, cap_a;
    uint32_t *voff, *aoff;
    uint8_t *dv, *da;     /* the "device" copies, made when the slot is waited for */
    uint32_t *dvoff, *daoff;
    uint8_t *vres, *ares; /* results */
    size_t cap_ares;
    size_t vbytes, abytes;
    int astride, submitted;
} sim_slot;

struct emu_gpu {
    const emu_gpu_ops *ops;
    void *dev;
    int n, video, audio;
    sim_slot s[2];
    int last;     /* the slot submitted last */
    uint8_t *obs; /* emu_gpu_obs's output */
};

static int sim_submits, sim_overlapped;

gv_status emu_gpu_open(const dev_id *dev, const emu_gpu_ops *ops, const void *cart, const void *m0, int n,
                       int video, int audio, emu_gpu **out, gv_err *err)
{
    emu_gpu *g = calloc(1, sizeof *g);
    g->ops = ops;
    g->n = n;
    g->video = video;
    g->audio = audio;
    for (int k = 0; k < 2; k++) {
        sim_slot *s = &g->s[k];
        s->voff = calloc((size_t)n, 4);
        s->aoff = calloc((size_t)n, 4);
        s->dvoff = calloc((size_t)n, 4);
        s->daoff = calloc((size_t)n, 4);
        s->vres = calloc((size_t)n, ops->vres_bytes);
    }
    *out = g;
    g->dev = calloc(1, ops->dev_bytes);
    return ops->open(g->dev, cart, m0, n, video, audio, err);
}

gv_status emu_gpu_staging(emu_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                          uint32_t **voff, uint32_t **aoff, gv_err *err)
{
    sim_slot *s = &g->s[slot & 1];
    if (s->submitted)
        return gv_fail(err, GV_ERR_WRONG, "staging of slot %d reused before its results were collected", slot);
    if (vbytes > s->cap_v) {
        free(s->v);
        s->v = gv_aligned_alloc(s->cap_v = vbytes + 64);
    }
    if (abytes > s->cap_a) {
        free(s->a);
        s->a = gv_aligned_alloc(s->cap_a = abytes + 64);
    }
    *vbuf = s->v;
    *abuf = s->a;
    *voff = s->voff;
    *aoff = s->aoff;
    return GV_OK;
}

gv_status emu_gpu_submit(emu_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    sim_slot *s = &g->s[slot & 1];
    s->submitted = 1;
    g->last = slot & 1;
    s->vbytes = vbytes;
    s->abytes = abytes;
    s->astride = astride;
    sim_submits++;
#ifdef _OPENMP
    if (omp_in_parallel()) /* from inside the next frame's emulation pass: the two overlap */
        sim_overlapped++;
#endif
    return GV_OK;
}

gv_status emu_gpu_wait(emu_gpu *g, int slot, const uint8_t **vres, const uint8_t **ares, gv_err *err)
{
    sim_slot *s = &g->s[slot & 1];
    if (!s->submitted)
        return gv_fail(err, GV_ERR_WRONG, "wait on slot %d that was not submitted", slot);
    s->submitted = 0;
    /* the copies in, as late as the stream could make them */
    free(s->dv);
    free(s->da);
    s->dv = gv_aligned_alloc(s->vbytes + 64);
    s->da = gv_aligned_alloc(s->abytes + 64);
    if (s->vbytes) /* a stream that is off has no host buffer (memcpy from NULL is undefined) */
        memcpy(s->dv, s->v, s->vbytes);
    if (s->abytes)
        memcpy(s->da, s->a, s->abytes);
    memcpy(s->dvoff, s->voff, (size_t)g->n * 4);
    memcpy(s->daoff, s->aoff, (size_t)g->n * 4);
    size_t need = (size_t)g->n * (size_t)s->astride * g->ops->ares_unit;
    if (g->audio && need > s->cap_ares) {
        free(s->ares);
        s->ares = malloc(s->cap_ares = need);
    }
    emu_gpu_io io = {g->n, g->video, g->audio, s->dv, s->da, s->dvoff, s->daoff, s->vres, s->ares, s->astride, NULL};
    gv_status st = g->ops->launch(g->dev, &io, err);
    *vres = s->vres;
    *ares = s->ares;
    return st;
}

gv_status emu_gpu_frame(emu_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    return g->ops->frame(g->dev, NULL, i, rgb, err);
}

/* emu_k_reduce's threads, one per output byte, over the frames where the device keeps them. */
gv_status emu_gpu_obs(emu_gpu *g, size_t slot, const int32_t *dims, int fw, int fh, int down, int grey,
                      const uint8_t **out, int *device, gv_err *err)
{
    (void)err;
    const uint8_t *frames = g->ops->vres_is_hash ? g->ops->frames(g->dev) : g->s[g->last].vres;
    size_t total = (size_t)g->n * (size_t)(fw / down) * (size_t)(fh / down) * (grey ? 1 : 3);
    free(g->obs);
    g->obs = malloc(total);
    for (size_t t = 0; t < total; t++)
        g->obs[t] = emu_reduce_at(frames, slot, dims, fw, fh, down, grey, t);
    *out = g->obs;
    *device = 0;
    return GV_OK;
}

const char *emu_gpu_name(const emu_gpu *g)
{
    return "simulated device";
}

void emu_gpu_close(emu_gpu *g)
{
    if (!g)
        return;
    g->ops->close(g->dev);
    free(g->dev);
    for (int k = 0; k < 2; k++) {
        sim_slot *s = &g->s[k];
        free(s->v), free(s->a), free(s->voff), free(s->aoff), free(s->dv), free(s->da);
        free(s->dvoff), free(s->daoff), free(s->vres), free(s->ares);
    }
    free(g->obs);
    free(g);
}

/* ---- the Game Boy's kernels, on the host -------------------------------------------------- */

#define GB_STATE_STRIDE (GB_VRAM_BYTES + GB_PAL_BYTES)

typedef struct {
    int n;
    uint8_t secret[DEV_XXH3_SECRET_SIZE];
    const gb_lfsr_jump *J;
    uint8_t *state, *fb;
} gb_sim;

static gv_status gb_sim_open(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err)
{
    gb_sim *g = dev;
    g->n = n;
    dev_xxh3_secret(g->secret);
    g->J = gb_cart_lfsr(cart);
    g->state = calloc((size_t)n, GB_STATE_STRIDE);
    g->fb = malloc((size_t)n * GB_FB_BYTES);
    return GV_OK;
}

/* What gb_k_video does for block i. */
static void gb_sim_video_block(gb_sim *g, const emu_gpu_io *io, int i)
{
    _Alignas(16) uint8_t vram[GB_VRAM_BYTES];
    _Alignas(16) uint8_t pal[GB_PAL_BYTES];
    const uint8_t *p = io->vlog + io->voff[i];
    const gb_packed_hdr *h = (const gb_packed_hdr *)p;
    uint8_t *st = g->state + (size_t)i * GB_STATE_STRIDE;
    if (!h->snapshot) {
        memcpy(vram, st, GB_VRAM_BYTES);
        memcpy(pal, st + GB_VRAM_BYTES, GB_PAL_BYTES);
    }
    uint8_t *out = g->fb + (size_t)i * GB_FB_BYTES;
    gb_render_packed(p, vram, pal, out, 0, 1);
    memcpy(st, vram, GB_VRAM_BYTES);
    memcpy(st + GB_VRAM_BYTES, pal, GB_PAL_BYTES);
    uint64_t acc[8];
    for (int l = 0; l < 8; l++)
        acc[l] = dev_xxh3_lane(out, GB_FB_BYTES, g->secret, l);
    uint64_t hash = dev_xxh3_merge(acc, GB_FB_BYTES, g->secret);
    memcpy(io->vres + (size_t)i * 8, &hash, 8); /* the device is little-endian, like this host */
}

static gv_status gb_sim_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    gb_sim *g = dev;
    for (int i = 0; io->video && i < io->n; i++)
        gb_sim_video_block(g, io, i);
    for (int i = 0; io->audio && i < io->n; i++) { /* gb_k_audio, one "thread" per sample */
        const uint8_t *p = io->alog + io->aoff[i];
        const gb_apacked_hdr *h = (const gb_apacked_hdr *)p;
        const gb_apu_key *keys = (const gb_apu_key *)(p + sizeof *h);
        for (uint32_t k = 0; k < h->n; k++) {
            uint64_t t = gb_sample_time(h->k0 + k);
            int16_t *o = (int16_t *)io->ares + ((size_t)i * io->astride + k) * 2;
            gb_apu_sample(&keys[gb_key_find(keys, h->nkeys, t)], t, g->J, &o[0], &o[1]);
        }
    }
    return GV_OK;
}

static gv_status gb_sim_frame(void *dev, void *stream, int i, uint8_t *rgb, gv_err *err)
{
    memcpy(rgb, ((gb_sim *)dev)->fb + (size_t)i * GB_FB_BYTES, GB_FB_BYTES);
    return GV_OK;
}

static void gb_sim_close(void *dev)
{
    gb_sim *g = dev;
    free(g->state);
    free(g->fb);
}

static const uint8_t *gb_sim_frames(void *dev)
{
    return ((gb_sim *)dev)->fb;
}

static const emu_gpu_ops gb_sim_ops = {8, 1, 4, sizeof(gb_sim), gb_sim_open, gb_sim_launch, gb_sim_frame, gb_sim_close,
                                       gb_sim_frames};

/* ---- the NES's kernels, on the host ------------------------------------------------------- */

typedef struct {
    const nes_cart *cart;
    uint32_t pal[512];
    nes_atab tab;
    nes_linestart ls[NES_H];
} nes_sim;

static gv_status nes_sim_open(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err)
{
    nes_sim *g = dev;
    g->cart = cart;
    nes_palette_rgb32(g->pal);
    nes_atab_init(&g->tab);
    return GV_OK;
}

static gv_status nes_sim_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    nes_sim *g = dev;
    for (int i = 0; i < io->n; i++) {
        nes_logview lv = nes_log_unpack(io->vlog + io->voff[i]);
        if (io->video) { /* nes_k_prepass, then nes_k_lines */
            nes_log_prepass(&lv, g->ls);
            for (int L = 0; L < NES_H; L++) {
                nes_pline p;
                nes_log_draw_line(&lv, g->ls, L, g->cart->chr, g->pal,
                                  io->vres + (size_t)i * NES_RGB_BYTES + (size_t)L * NES_W * 3, &p);
            }
        }
        if (io->audio) { /* nes_k_audio */
            uint64_t n0;
            uint32_t np;
            nes_log_pieces(lv.h, &n0, &np);
            uint64_t *pieces = (uint64_t *)io->ares + (size_t)i * io->astride;
            for (uint32_t k = 0; k < (uint32_t)io->astride; k++)
                pieces[k] = k < np ? nes_log_piece(&g->tab, &lv, n0, np, k) : 0;
        }
    }
    return GV_OK;
}

static void nes_sim_close(void *dev)
{
    (void)dev; /* nothing beyond the struct, which the pipeline frees */
}

static const emu_gpu_ops nes_sim_ops = {NES_RGB_BYTES, 0, 8, sizeof(nes_sim), nes_sim_open, nes_sim_launch, NULL, nes_sim_close,
                                        NULL};

/* ---- the SNES's kernel, on the host ------------------------------------------------------- */

/* snes_k_video's block: SNES_SIM_THREADS threads of an OpenMP team stand for the block's
 * threads (snes_render_frame's barriers become the team's), over the instance's resident
 * memories; then the 8 XXH3 lanes of the frame. */
#define SNES_SIM_THREADS 8

typedef struct {
    uint8_t secret[DEV_XXH3_SECRET_SIZE];
    uint8_t *mem, *fb;
} snes_sim;

static int snes_team_short; /* a team got fewer threads than asked: the split was not simulated */
static int snes_mid_frame;  /* frame logs with memory writes between two drawn lines */
static int snes_blocks;     /* instance frames drawn */
static int snes_big_frames; /* of them hi-res, interlaced or 239 lines */

static gv_status snes_sim_open(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err)
{
    (void)cart, (void)m0, (void)video;
    if (audio) /* as snes_gpu_ops.open */
        return gv_fail(err, GV_ERR_INPUT, "--audio device: the SNES has no device audio renderer (its sound is made in the core)");
    snes_sim *g = dev;
    dev_xxh3_secret(g->secret);
    g->mem = calloc((size_t)n, SNES_VM_BYTES);
    g->fb = malloc((size_t)n * SNES_FB_BYTES);
    if (!g->mem || !g->fb)
        return gv_fail(err, GV_ERR_ENV, "out of memory for the SNES device simulation");
    return GV_OK;
}

static gv_status snes_sim_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    snes_sim *g = dev;
    for (int i = 0; io->video && i < io->n; i++) {
        const uint8_t *pk = io->vlog + io->voff[i];
        const snes_vpacked *h = (const snes_vpacked *)pk;
        const snes_vseg *sg = (const snes_vseg *)(pk + h->off_segs);
        for (int k = 0; k < h->nsegs; k++)
            if (sg[k].stamp > 0 && sg[k].stamp < h->lines) {
                snes_mid_frame++;
                break;
            }
        snes_blocks++;
        uint8_t *out = g->fb + (size_t)i * SNES_FB_BYTES, *mem = g->mem + (size_t)i * SNES_VM_BYTES;
#pragma omp parallel num_threads(SNES_SIM_THREADS)
        {
            if (omp_get_num_threads() != SNES_SIM_THREADS) {
#pragma omp atomic write
                snes_team_short = 1;
            }
            snes_vview v = snes_vview_packed(pk);
            snes_render_frame(&v, mem, out, omp_get_thread_num(), omp_get_num_threads());
        }
        snes_vview vv = snes_vview_packed(pk);
        uint32_t bytes = snes_vview_bytes(&vv); /* as snes_k_video: the frame at its size */
        if (h->wide || h->il || h->lines != SNES_VH_STD)
            snes_big_frames++;
        uint64_t acc[8];
        for (int l = 0; l < 8; l++)
            acc[l] = dev_xxh3_lane(out, bytes, g->secret, l);
        uint64_t hash = dev_xxh3_merge(acc, bytes, g->secret);
        memcpy(io->vres + (size_t)i * 8, &hash, 8);
    }
    return GV_OK;
}

static gv_status snes_sim_frame(void *dev, void *stream, int i, uint8_t *rgb, gv_err *err)
{
    memcpy(rgb, ((snes_sim *)dev)->fb + (size_t)i * SNES_FB_BYTES, SNES_FB_BYTES);
    return GV_OK;
}

static void snes_sim_close(void *dev)
{
    snes_sim *g = dev;
    free(g->mem);
    free(g->fb);
}

static const uint8_t *snes_sim_frames(void *dev)
{
    return ((snes_sim *)dev)->fb;
}

static const emu_gpu_ops snes_sim_ops = {8, 1, 4, sizeof(snes_sim), snes_sim_open, snes_sim_launch, snes_sim_frame,
                                         snes_sim_close, snes_sim_frames};

/* ---- the test ----------------------------------------------------------------------------- */

/* A Game Boy program that writes random values to video and audio registers and VRAM in a
 * loop (so logs carry mid-line writes, VRAM writes in every part of the frame, keyframes). */
static const uint8_t prog[] = {
    0x3E, 0x80, 0xE0, 0x26,             /* NR52 on */
    0x21, 0x00, 0x10,                   /* ld hl,$1000 */
    0x2A, 0xE0, 0x43, 0x2A, 0xE0, 0x47, 0x2A, 0xF6, 0x80, 0xE0, 0x40, /* SCX BGP LCDC|$80 */
    0x2A, 0xE6, 0x0F, 0xC6, 0x10, 0x4F, 0x2A, 0xE2, /* an APU register $FF10-$FF1F */
    0x2A, 0xEA, 0x00, 0x98,             /* ld ($9800),a: a BG map write (lost in mode 3) */
    0x2A, 0xE0, 0x42, 0x2A, 0xE0, 0x48, /* SCY OBP0 */
    0x7C, 0xFE, 0x40, 0x20, 0xDE,       /* until $4000 */
    0x21, 0x00, 0x10, 0x18, 0xD9,
};

static uint64_t rs = 88172645463325252ull;
static uint8_t rnd8(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint8_t)(rs >> 24);
}

static void *make_gb_cart(int cgb)
{
    uint8_t *r = calloc(1, 32768);
    r[0x100] = 0x00, r[0x101] = 0xC3, r[0x102] = 0x50, r[0x103] = 0x01;
    memcpy(r + 0x134, "DEVSIM", 6);
    r[0x143] = cgb ? 0x80 : 0;
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - r[i] - 1);
    r[0x14D] = x;
    memcpy(r + 0x150, prog, sizeof prog);
    for (int i = 0x1000; i < 0x4000; i++)
        r[i] = rnd8();
    void *c = NULL;
    gv_err e;
    if (gb_console.cart_load(r, 32768, "devsim.gb", &c, &e) != GV_OK) {
        printf("FAIL devsim cart: %s\n", e.msg);
        exit(1);
    }
    free(r);
    return c;
}

static void *load_nes(const char *name)
{
    const char *path = nes_rom(name);
    if (!path)
        return NULL;
    size_t len;
    uint8_t *d = nes_slurp(path, &len);
    void *c = NULL;
    gv_err e;
    if (!d || nes_console.cart_load(d, len, path, &c, &e) != GV_OK)
        printf("FAIL devsim %s: cannot load %s\n", name, path);
    free(d);
    return c;
}

typedef struct {
    uint64_t v, a;
    int mism, quiet, w, h;       /* w, h: the last frame's size */
    uint8_t last[SNES_FB_BYTES]; /* the largest frame of the consoles here */
    /* with device video: every instance's frame through emu_batch_device_obs, as it is (RGB)
     * and made smaller and grey (by obs_down: 2 where it divides the frame, else 1) */
    uint8_t obs_rgb[7 * SNES_FB_BYTES], obs_grey[7 * SNES_FB_BYTES / 3];
    int nobs, obs_w, obs_h, obs_down;
    char err[sizeof ((gv_err *)0)->msg];
} outcome;

static int run(const emu_console *con, const void *cart, emu_renderer v, emu_renderer a, int n, int frames,
               outcome *o)
{
    emu_batch_cfg cfg = {0};
    cfg.con = con;
    cfg.cart = cart;
    cfg.instances = n;
    cfg.video = v;
    cfg.audio = a;
    cfg.threads = 2;
    cfg.gpu_ops = con == &gb_console ? &gb_sim_ops : con == &snes_console ? &snes_sim_ops : &nes_sim_ops;
    emu_batch *b;
    gv_err e;
    int done;
    if (emu_batch_new(&cfg, &b, &e) != GV_OK || emu_batch_run(b, frames, &done, &e) != GV_OK ||
        emu_batch_last_frame(b, o->last, &e) != GV_OK) {
        snprintf(o->err, sizeof o->err, "%s", e.msg);
        if (!o->quiet)
            printf("FAIL devsim %s run: %s\n", con->name, e.msg);
        return 0;
    }
    emu_batch_frame_size(b, &o->w, &o->h);
    o->nobs = 0;
    if (v == EMU_R_DEVICE && n <= 7) {
        const uint8_t *rgb, *grey;
        int d1, d2, w1, h1;
        o->obs_down = o->w % 2 || o->h % 2 ? 1 : 2;
        /* each result is valid until the next call: copied at once */
        if (emu_batch_device_obs(b, 1, 0, &rgb, &d1, &w1, &h1, &e) == GV_OK) {
            memcpy(o->obs_rgb, rgb, (size_t)n * w1 * h1 * 3);
            if (emu_batch_device_obs(b, o->obs_down, 1, &grey, &d2, &o->obs_w, &o->obs_h, &e) == GV_OK &&
                w1 == o->obs_w && h1 == o->obs_h) {
                memcpy(o->obs_grey, grey, (size_t)n * (w1 / o->obs_down) * (h1 / o->obs_down));
                o->nobs = n;
            }
        }
    }
    o->v = emu_batch_video_hash(b, 0);
    o->a = emu_batch_audio_hash(b, 0);
    o->mism = emu_batch_mismatches(b);
    emu_batch_free(b);
    return 1;
}

static void check_console(const emu_console *con, const void *cart, const char *what, int frames)
{
    static outcome nat, dev;
    char name[96];
    if (!run(con, cart, EMU_R_NATIVE, EMU_R_NATIVE, 1, frames, &nat))
        return;
    sim_submits = sim_overlapped = 0;
    if (!run(con, cart, EMU_R_DEVICE, EMU_R_DEVICE, 7, frames, &dev))
        return;
    snprintf(name, sizeof name, "%s devsim %s", con->name, what);
    t_check(dev.v == nat.v && dev.a == nat.a && dev.mism == 0 && dev.w == nat.w && dev.h == nat.h &&
                !memcmp(dev.last, nat.last, (size_t)nat.w * nat.h * 3), name,
            "7 instances x %d frames through the batch device path (%d submissions): video %016llx audio %016llx, "
            "last frame (%dx%d) == native", frames, sim_submits, (unsigned long long)dev.v, (unsigned long long)dev.a, nat.w,
            nat.h);
    static uint8_t greyref[SNES_FB_BYTES / 3];
    int32_t dims[2] = {nat.w, nat.h};
    int dn = dev.obs_down;
    size_t nb = (size_t)nat.w * nat.h * 3, ngb = (size_t)(nat.w / dn) * (nat.h / dn);
    emu_frame_reduce_ref(nat.last, 1, nb, dims, nat.w, nat.h, dn, 1, greyref);
    int obs_ok = dev.nobs == 7 && dev.obs_w == nat.w && dev.obs_h == nat.h;
    for (int i = 0; obs_ok && i < 7; i++)
        obs_ok = !memcmp(dev.obs_rgb + i * nb, nat.last, nb) && !memcmp(dev.obs_grey + i * ngb, greyref, ngb);
    snprintf(name, sizeof name, "%s devsim obs %s", con->name, what);
    t_check(obs_ok, name, "emu_batch_device_obs of %d instances (emu_k_reduce's threads on the host), %dx%d: RGB == "
            "native's last frame, %dx%d grey == emu_frame_reduce_ref of it", dev.nobs, dev.obs_w, dev.obs_h, dn, dn);
    snprintf(name, sizeof name, "%s devsim overlap %s", con->name, what);
    t_check(sim_overlapped == frames - 1, name,
            "%d of %d frames before the last went to the device from inside the next frame's emulation pass",
            sim_overlapped, frames - 1);
    if (!run(con, cart, EMU_R_DEVICE, EMU_R_NATIVE, 3, frames, &dev))
        return;
    snprintf(name, sizeof name, "%s devsim video only %s", con->name, what);
    t_check(dev.v == nat.v && dev.a == nat.a && dev.mism == 0, name, "device video with native audio == native");
    if (!run(con, cart, EMU_R_NATIVE, EMU_R_DEVICE, 3, frames, &dev))
        return;
    snprintf(name, sizeof name, "%s devsim audio only %s", con->name, what);
    t_check(dev.v == nat.v && dev.a == nat.a && dev.mism == 0, name, "native video with device audio == native");
}

/* The SNES: device video against native on one of our ROMs (built here with ca65); device
 * audio is refused (the sound is made in the core). */
static void check_snes(const char *name, int frames)
{
    static int built = -1;
    const char *b = getenv("GV_BUILD"), *root = getenv("GV_ROOT");
    char path[1024], cmd[2300];
    if (!b || !root) {
        t_check(0, "environment", "GV_BUILD and GV_ROOT must be set (run through make test)");
        return;
    }
    if (built < 0) {
        snprintf(cmd, sizeof cmd, "sh '%s/tests/roms/snes/build.sh' '%s/roms/snes' >/dev/null 2>&1", root, b);
        built = system(cmd) == 0;
    }
    snprintf(path, sizeof path, "snes devsim %s", name);
    if (!built) {
        t_skip(path, "the SNES test ROMs did not build (cc65 and python3 needed)");
        return;
    }
    snprintf(path, sizeof path, "%s/roms/snes/%s.sfc", b, name);
    size_t len;
    uint8_t *d = nes_slurp(path, &len);
    void *c = NULL;
    gv_err e;
    if (!d || snes_console.cart_load(d, len, path, &c, &e) != GV_OK) {
        printf("FAIL snes devsim %s: cannot load %s\n", name, path);
        free(d);
        return;
    }
    free(d);
    static outcome nat, dev;
    char what[96];
    if (run(&snes_console, c, EMU_R_NATIVE, EMU_R_NATIVE, 1, frames, &nat)) {
        sim_submits = sim_overlapped = 0;
        snes_team_short = snes_mid_frame = snes_blocks = snes_big_frames = 0;
        if (run(&snes_console, c, EMU_R_DEVICE, EMU_R_NATIVE, 7, frames, &dev)) {
            snprintf(what, sizeof what, "snes devsim %s", name);
            t_check(dev.v == nat.v && dev.a == nat.a && dev.mism == 0 && dev.w == nat.w && dev.h == nat.h &&
                        !memcmp(dev.last, nat.last, (size_t)nat.w * nat.h * 3) && !snes_team_short &&
                        snes_blocks == 7 * frames,
                    what, "7 instances x %d frames, device video (%d blocks of %d threads, %d logs with writes "
                    "between lines, %d frames not 256x224) + native audio: video %016llx == native %016llx, audio "
                    "%016llx, last frame %dx%d == native %dx%d",
                    frames, snes_blocks, SNES_SIM_THREADS, snes_mid_frame, snes_big_frames, (unsigned long long)dev.v,
                    (unsigned long long)nat.v, (unsigned long long)dev.a, dev.w, dev.h, nat.w, nat.h);
            snprintf(what, sizeof what, "snes devsim overlap %s", name);
            t_check(sim_overlapped == frames - 1, what,
                    "%d of %d frames before the last went to the device from inside the next frame's emulation pass",
                    sim_overlapped, frames - 1);
        }
        dev.quiet = 1;
        snprintf(what, sizeof what, "snes devsim no device audio %s", name);
        int ran = run(&snes_console, c, EMU_R_DEVICE, EMU_R_DEVICE, 2, 2, &dev);
        t_check(!ran && strstr(dev.err, "no device audio renderer"), what, "--audio device refused: %s",
                ran ? "(it ran)" : dev.err);
        dev.quiet = 0;
    }
    snes_console.cart_free(c);
}

int main(void)
{
    omp_set_max_active_levels(2); /* the SNES's simulated block is a team inside the batch's pass */
    for (int cgb = 0; cgb < 2; cgb++) {
        void *c = make_gb_cart(cgb);
        check_console(&gb_console, c, cgb ? "cgb random scene" : "dmg random scene", 90);
        gb_console.cart_free(c);
    }
    /* the console's ROMs, then one per board family: mid-frame CHR banking (MMC2/MMC4 latches,
     * CPROM CHR-RAM banks, TQROM ROM and RAM, a JF-17 latch), the VRC4 and FME-7 IRQs, the
     * 5B's and the VRC6's sound, the MMC5 (scanline IRQ, ExRAM and fill nametables switched mid-frame),
     * the VRC7's FM levels in the log, the PAL and Dendy frames (312 lines, PAL's 3.2 dots per
     * cycle, their sample clocks), the H3001's and TC0690's IRQ splits, the Sunsoft-4's CHR-ROM
     * nametables, mapper 185's disabled CHR-ROM, the Bandai FCG (cycle IRQ switching CHR banks
     * and mirroring mid-frame), the RAMBO-1 (A12 IRQ), the Namco 163 (its sound from the logged
     * RAM images, CHR-ROM nametables mid-frame) */
    static const char *roms[] = {"ppu_scene", "apu_test", "mmc3_irq", "sxrom",   "cprom",   "tqrom",
                                 "mmc2",      "mmc4",     "vrc4e",    "fme7",    "jf17",    "vrc6b",
                                 "mmc5",      "vrc7a",    "region_pal", "region_dendy", "h3001", "tc0690",
                                 "sunsoft4",  "cnrom185s5", "fcg5",   "fcg153",  "rambo1",  "n163"};
    for (size_t r = 0; r < GV_ARRAY_LEN(roms); r++) {
        void *c = load_nes(roms[r]);
        if (!c)
            continue;
        check_console(&nes_console, c, roms[r], 60);
        nes_console.cart_free(c);
    }
    /* the PPU accuracy ROM: a misaligned sprite evaluation start (logged per line) in its
     * timed frames, and the greyscale writes that recolour the two pixels before (frames
     * 381, 384, ...): 390 frames */
    void *ca = load_nes("acc4_test");
    if (ca) {
        check_console(&nes_console, ca, "acc4_test", 390);
        nes_console.cart_free(ca);
    }
    /* every other NES ROM the suite built (a test ROM per board and the accuracy ROMs): 30
     * frames each, so that every board family's picture and sound go through the device
     * path too; in name order */
    const char *first = nes_rom("ppu_scene");
    if (first) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(first, '/') - first), first);
        struct dirent **list;
        int n = scandir(dir, &list, NULL, alphasort), more = 0;
        for (int i = 0; i < n; i++) {
            char base[256];
            size_t len = strlen(list[i]->d_name);
            int seen = 0;
            if (len > 4 && len < sizeof base && !strcmp(list[i]->d_name + len - 4, ".nes")) {
                snprintf(base, sizeof base, "%.*s", (int)(len - 4), list[i]->d_name);
                for (size_t r = 0; r < GV_ARRAY_LEN(roms); r++)
                    seen |= !strcmp(roms[r], base);
                seen |= !strcmp(base, "acc4_test") || !strcmp(base, "mmc5x");
                void *c = seen ? NULL : load_nes(base);
                if (c) {
                    check_console(&nes_console, c, base, 30);
                    nes_console.cart_free(c);
                    more++;
                }
            }
            free(list[i]);
        }
        free(list);
        t_check(more >= 50, "nes devsim every ROM", "%d more NES ROMs of %s through the device path (at least 50 "
                "expected: the board test ROMs)", more, dir);
    }
    /* the MMC5's vertical split (sprite 0 checks, then the screen's three splits) and its
     * sound (pulse 1 from frame 43): 120 frames */
    void *c5 = load_nes("mmc5x");
    if (c5) {
        check_console(&nes_console, c5, "mmc5x", 120);
        nes_console.cart_free(c5);
    }
    static const char *sroms[] = {"ppu_scene", "bench_scene", "cpu_test", "ppu_direct", "ppu_bright", "opt_test",
                                  "ppu_scroll", "obj_wrap",
                                  "spc_test", "gsu_scene",
                                  "msu_test", "sa1_test"};
    for (size_t r = 0; r < GV_ARRAY_LEN(sroms); r++)
        check_snes(sroms[r], 40);
    /* the frame sizes: 512x224 (mode 5, pseudo-hires), 512x478 (interlace, overscan), 256x239 */
    static const char *sized[] = {"hires_m5", "hires_pseudo", "hires_il", "overscan"};
    for (size_t r = 0; r < GV_ARRAY_LEN(sized); r++)
        check_snes(sized[r], 40);
    /* register writes inside lines (the log's snes_vmid changes, CGRAM patched per line) */
    check_snes("midline_test", 40);
    /* mosaic on mode 5's hi-res BGs, without and with interlace (hires_test.s -D MOSAIC) */
    static const char *mosaic[] = {"hires_mosaic", "hires_il_mosaic"};
    for (size_t r = 0; r < GV_ARRAY_LEN(mosaic); r++)
        check_snes(mosaic[r], 40);
    /* interlace's 263-line frames (il_timing.s: 448-line frames, a frame length that varies) */
    check_snes("il_timing", 40);
    return t_done();
}
