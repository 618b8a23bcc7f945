/* test_gb_devsim.c: the batch runner's device path without a device. This program
 * defines the gb_gpu_* entry points itself (taking the place of gb_gpu.cu or its no-GPU
 * twin at link time) as a host simulation that does what the kernels do, block by block:
 * resident per-instance VRAM/palette state, gb_render_packed, the lane-parallel XXH3 of
 * each framebuffer, and per-sample audio from the packed keyframes, with two slots of
 * staging buffers. It then checks that --video/--audio device through gb_batch gives the
 * native renderers' hashes on many instances and random scenes. What it cannot check is
 * CUDA itself: bench/gb/run_h200.sh does that on a GPU. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "check.h"
#include "emu/gb/gb.h"
#include "emu/gb/gb_batch.h"
#include "emu/gb/gb_gpu.h"
#include "emu/gb/gb_video.h"
#include "emu/gb/gb_xxh3.h"

/* ---- the simulated device ---------------------------------------------------------------- */

#define STATE_STRIDE (GB_VRAM_BYTES + GB_PAL_BYTES)

typedef struct {
    uint8_t *v, *a;
    size_t cap_v, cap_a;
    uint32_t *voff, *aoff;
    uint64_t *hash;
    int16_t *samp;
    size_t cap_samp;
    int submitted;
} sim_slot;

struct gb_gpu {
    int n, video, audio;
    uint8_t secret[GB_XXH3_SECRET_SIZE];
    const gb_lfsr_jump *J;
    uint8_t *state, *fb;
    sim_slot s[2];
    int submits, waits;
};

static int sim_submits, sim_overlapped;

gv_status gb_gpu_open(int n, int video, int audio, const uint8_t *secret, const gb_lfsr_jump *J, gb_gpu **out,
                      gv_err *err)
{
    gb_gpu *g = calloc(1, sizeof *g);
    g->n = n;
    g->video = video;
    g->audio = audio;
    memcpy(g->secret, secret, GB_XXH3_SECRET_SIZE);
    g->J = J;
    g->state = calloc((size_t)n, STATE_STRIDE);
    g->fb = malloc((size_t)n * GB_FB_BYTES);
    for (int k = 0; k < 2; k++) {
        g->s[k].voff = calloc((size_t)n, 4);
        g->s[k].aoff = calloc((size_t)n, 4);
        g->s[k].hash = calloc((size_t)n, 8);
    }
    *out = g;
    return GV_OK;
}

gv_status gb_gpu_staging(gb_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
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

/* What gb_k_video does for block i (one thread here). */
static void sim_video_block(gb_gpu *g, sim_slot *s, int i)
{
    _Alignas(16) uint8_t vram[GB_VRAM_BYTES];
    _Alignas(16) uint8_t pal[GB_PAL_BYTES];
    const uint8_t *p = s->v + s->voff[i];
    const gb_packed_hdr *h = (const gb_packed_hdr *)p;
    uint8_t *st = g->state + (size_t)i * STATE_STRIDE;
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
        acc[l] = gb_xxh3_lane(out, GB_FB_BYTES, g->secret, l);
    s->hash[i] = gb_xxh3_merge(acc, GB_FB_BYTES, g->secret);
}

gv_status gb_gpu_submit(gb_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    sim_slot *s = &g->s[slot & 1];
    s->submitted = 1;
    sim_submits++;
#ifdef _OPENMP
    if (omp_in_parallel()) /* from inside the next frame's emulation pass: the two overlap */
        sim_overlapped++;
#endif
    if (g->video)
        for (int i = 0; i < g->n; i++)
            sim_video_block(g, s, i);
    if (g->audio) {
        size_t need = (size_t)g->n * (size_t)astride * 2;
        if (need > s->cap_samp) {
            free(s->samp);
            s->samp = malloc((s->cap_samp = need) * sizeof(int16_t));
        }
        for (int i = 0; i < g->n; i++) { /* what gb_k_audio does, one "thread" per sample */
            const uint8_t *p = s->a + s->aoff[i];
            const gb_apacked_hdr *h = (const gb_apacked_hdr *)p;
            const gb_apu_key *keys = (const gb_apu_key *)(p + sizeof *h);
            for (uint32_t k = 0; k < h->n; k++) {
                uint64_t t = gb_sample_time(h->k0 + k);
                int16_t *o = s->samp + ((size_t)i * astride + k) * 2;
                gb_apu_sample(&keys[gb_key_find(keys, h->nkeys, t)], t, g->J, &o[0], &o[1]);
            }
        }
    }
    return GV_OK;
}

gv_status gb_gpu_wait(gb_gpu *g, int slot, const uint64_t **hashes, const int16_t **samples, gv_err *err)
{
    sim_slot *s = &g->s[slot & 1];
    if (!s->submitted)
        return gv_fail(err, GV_ERR_WRONG, "wait on slot %d that was not submitted", slot);
    s->submitted = 0;
    *hashes = s->hash;
    *samples = s->samp;
    return GV_OK;
}

gv_status gb_gpu_frame(gb_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    memcpy(rgb, g->fb + (size_t)i * GB_FB_BYTES, GB_FB_BYTES);
    return GV_OK;
}

void gb_gpu_close(gb_gpu *g)
{
    if (!g)
        return;
    for (int k = 0; k < 2; k++) {
        free(g->s[k].v);
        free(g->s[k].a);
        free(g->s[k].voff);
        free(g->s[k].aoff);
        free(g->s[k].hash);
        free(g->s[k].samp);
    }
    free(g->state);
    free(g->fb);
    free(g);
}

/* ---- the test ----------------------------------------------------------------------------- */

/* A program that writes random values to video and audio registers and VRAM in a loop
 * (so logs carry mid-line writes, VRAM writes in every part of the frame, keyframes). */
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

static uint64_t st = 88172645463325252ull;
static uint8_t rnd8(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return (uint8_t)(st >> 24);
}

static gb_cart *make_cart(int cgb)
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
    gb_cart *c;
    gv_err e;
    if (gb_cart_load(r, 32768, "devsim.gb", &c, &e) != GV_OK) {
        printf("FAIL devsim cart: %s\n", e.msg);
        exit(1);
    }
    free(r);
    return c;
}

static void run(gb_cart *c, gb_model m, gb_renderer v, gb_renderer a, int n, int frames, uint64_t *vh, uint64_t *ah,
                int *mism)
{
    gb_batch_cfg cfg = {0};
    cfg.cart = c;
    cfg.model = m;
    cfg.instances = n;
    cfg.video = v;
    cfg.audio = a;
    cfg.threads = 2;
    gb_batch *b;
    gv_err e;
    int done;
    if (gb_batch_new(&cfg, &b, &e) != GV_OK || gb_batch_run(b, frames, &done, &e) != GV_OK) {
        printf("FAIL devsim run: %s\n", e.msg);
        exit(1);
    }
    *vh = gb_batch_video_hash(b, 0);
    *ah = gb_batch_audio_hash(b, 0);
    *mism = gb_batch_mismatches(b);
    gb_batch_free(b);
}

int main(void)
{
    for (int cgb = 0; cgb < 2; cgb++) {
        gb_cart *c = make_cart(cgb);
        gb_model m = cgb ? GB_MODEL_CGB : GB_MODEL_DMG;
        uint64_t nv, na, dv, da;
        int mism;
        run(c, m, GB_R_NATIVE, GB_R_NATIVE, 1, 90, &nv, &na, &mism);
        sim_submits = sim_overlapped = 0;
        run(c, m, GB_R_DEVICE, GB_R_DEVICE, 7, 90, &dv, &da, &mism);
        t_check(dv == nv && da == na && mism == 0, cgb ? "gb devsim cgb" : "gb devsim dmg",
                "7 instances x 90 frames through the batch device path (%d submissions): video %016llx audio %016llx"
                " == native", sim_submits, (unsigned long long)dv, (unsigned long long)da);
        t_check(sim_overlapped == 89, cgb ? "gb devsim overlap cgb" : "gb devsim overlap dmg",
                "%d of 89 frames before the last went to the device from inside the next frame's emulation pass",
                sim_overlapped);
        run(c, m, GB_R_DEVICE, GB_R_NATIVE, 3, 40, &dv, &da, &mism);
        uint64_t nv40, na40;
        run(c, m, GB_R_NATIVE, GB_R_NATIVE, 1, 40, &nv40, &na40, &mism);
        t_check(dv == nv40 && da == na40, cgb ? "gb devsim mixed cgb" : "gb devsim mixed dmg",
                "device video with native audio == native");
        gb_cart_free(c);
    }
    return t_done();
}
