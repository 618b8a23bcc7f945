/* gb_batch.c: the batch runner. Host renderers run in the same OpenMP loop as the cores
 * (instance i's frame is emulated, then rendered, by one thread); a single instance
 * renders its lines on all threads instead. With a device renderer each frame is one
 * parallel pass over the instances (device_frame): collect frame k-2's results, emulate
 * frame k, pack its logs into pinned staging, while one thread submits frame k-1; the
 * device works on frame k-1 while the cores emulate frame k. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/gb/gb_host.h"
#include "emu/gb/gb_batch.h"
#include "emu/gb/gb_gpu.h"
#include "emu/gb/gb_xxh3.h"

static const char *const rnames[] = {"native", "host", "device", "none"};

const char *gb_renderer_name(gb_renderer r)
{
    return (unsigned)r < 4 ? rnames[r] : "?";
}

int gb_renderer_parse(const char *s, gb_renderer *r)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, rnames[i])) {
            *r = (gb_renderer)i;
            return 0;
        }
    return -1;
}

typedef struct {
    gb *g;
    gb_vstate *vs;
    uint8_t *fb;
    uint8_t *pk;
    size_t pkcap;
    int16_t *ab;
    int abcap;
    gv_hasher *vh, *ah;
    size_t vsz, asz;
    int an[2];      /* samples of the frame in each device slot */
    int trapped;
} gb_inst;

struct gb_batch {
    gb_batch_cfg cfg;
    int n;
    gb_inst *in;
    gb_gpu *gpu;
    int pending[2];   /* slot submitted, results not collected yet */
    int staged;       /* slot packed, not submitted yet, or -1 */
    int astride[2];
    size_t vcap, acap;          /* bytes of each instance's fixed place in the staging */
    size_t vreq[2], areq[2];    /* staging bytes asked for so far (it never moves below) */
    size_t vbytes[2], abytes[2]; /* bytes to transfer of a packed slot */
    int16_t *keep;
    size_t nkeep, capkeep;
    int phases;       /* GV_GB_PHASES is set: time the device frame's phases */
    double ph[5];     /* seconds in: emulate, pack, wait for the device, collect, submit */
};

enum { PH_EMU, PH_PACK, PH_WAIT, PH_COLLECT, PH_SUBMIT };

static double ph_mark(gb_batch *b, int ph, double t0)
{
    if (!b->phases)
        return 0;
    double t = gv_now();
    b->ph[ph] += t - t0;
    return t;
}

static int threads_of(const gb_batch *b)
{
    return b->cfg.threads > 0 ? b->cfg.threads : gv_cpu_count();
}

gv_status gb_batch_new(const gb_batch_cfg *cfg, gb_batch **out, gv_err *err)
{
    *out = NULL;
    if (cfg->instances < 1)
        return gv_fail(err, GV_ERR_INPUT, "--instances must be at least 1");
    if (cfg->trap && cfg->instances != 1)
        return gv_fail(err, GV_ERR_INPUT, "--test-rom runs a single instance (--instances 1)");
    gb_batch *b = calloc(1, sizeof *b);
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    b->cfg = *cfg;
    b->n = cfg->instances;
    b->phases = getenv("GV_GB_PHASES") != NULL;
    b->staged = -1;
    /* A frame log without a snapshot, with room for 1,024 VRAM/palette and 256 register
     * writes; audio: 64 keyframes. Both grow when frames need more. */
    b->vcap = (sizeof(gb_packed_hdr) + 8 + sizeof(((gb_frame_log *)0)->line) + 1024 * sizeof(gb_memw) +
               256 * sizeof(gb_regw) + 255) & ~(size_t)255;
    b->acap = (sizeof(gb_apacked_hdr) + 64 * sizeof(gb_apu_key) + 255) & ~(size_t)255;
    b->in = calloc((size_t)b->n, sizeof *b->in);
    gv_status st = GV_OK;
    if (!b->in) {
        st = gv_fail(err, GV_ERR_ENV, "out of memory for %d instances", b->n);
        goto fail;
    }
    unsigned outs = 0;
    if (cfg->video == GB_R_NATIVE)
        outs |= GB_OUT_VIDEO_NATIVE;
    if (cfg->video == GB_R_HOST || cfg->video == GB_R_DEVICE)
        outs |= GB_OUT_VIDEO_LOG;
    if (cfg->audio == GB_R_NATIVE)
        outs |= GB_OUT_AUDIO_NATIVE;
    for (int i = 0; i < b->n; i++) {
        gb_inst *in = &b->in[i];
        if ((st = gb_new(cfg->cart, cfg->model, outs, &in->g, err)) != GV_OK)
            goto fail;
        if (cfg->state && (st = gb_state_load(in->g, cfg->state, cfg->state_len, err)) != GV_OK)
            goto fail;
        if (cfg->battery) {
            int loaded;
            if ((st = gb_battery_load(in->g, cfg->battery, &loaded, err)) != GV_OK)
                goto fail;
        }
        in->vh = gv_hasher_new();
        in->ah = gv_hasher_new();
        if (cfg->video == GB_R_HOST) {
            in->vs = gv_aligned_alloc(sizeof *in->vs);
            in->fb = malloc(GB_FB_BYTES);
            if (!in->vs || !in->fb) {
                st = gv_fail(err, GV_ERR_ENV, "out of memory for %d host renderers", b->n);
                goto fail;
            }
            memset(in->vs, 0, sizeof *in->vs);
        }
        if (i == 0 && cfg->trace)
            gb_set_trace(in->g, cfg->trace);
        if (cfg->trap)
            gb_set_trap(in->g, 1);
    }
    if (cfg->video == GB_R_DEVICE || cfg->audio == GB_R_DEVICE) {
        uint8_t secret[GB_XXH3_SECRET_SIZE];
        gb_xxh3_secret(secret);
        if ((st = gb_gpu_open(b->n, cfg->video == GB_R_DEVICE, cfg->audio == GB_R_DEVICE, secret,
                              gb_cart_lfsr(cfg->cart), &b->gpu, err)) != GV_OK)
            goto fail;
    }
    *out = b;
    return GV_OK;
fail:
    gb_batch_free(b);
    return st;
}

void gb_batch_free(gb_batch *b)
{
    if (!b)
        return;
    gb_gpu_close(b->gpu);
    for (int i = 0; b->in && i < b->n; i++) {
        gb_inst *in = &b->in[i];
        gb_free(in->g);
        free(in->vs);
        free(in->fb);
        free(in->pk);
        free(in->ab);
        if (in->vh)
            gv_hasher_free(in->vh);
        if (in->ah)
            gv_hasher_free(in->ah);
    }
    free(b->in);
    free(b->keep);
    free(b);
}

static void hash_u64(gv_hasher *h, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    gv_hasher_update(h, le, 8);
}

static void keep_audio(gb_batch *b, const int16_t *lr, int n)
{
    if (b->nkeep + (size_t)n > b->capkeep) {
        b->capkeep = (b->nkeep + (size_t)n) * 2 + 4096;
        b->keep = gv_xrealloc(b->keep, b->capkeep * 2 * sizeof(int16_t));
    }
    memcpy(b->keep + b->nkeep * 2, lr, (size_t)n * 2 * sizeof(int16_t));
    b->nkeep += (size_t)n;
}

static int16_t *abuf(gb_inst *in, int n)
{
    if (n > in->abcap) {
        in->abcap = n + 256;
        in->ab = gv_xrealloc(in->ab, (size_t)in->abcap * 2 * sizeof(int16_t));
    }
    return in->ab;
}

/* Post-filter samples of instance i for this frame: hash (and keep for instance 0). */
static void audio_out(gb_batch *b, int i, const int16_t *lr, int n)
{
    if (n <= 0)
        return;
    gv_hasher_update(b->in[i].ah, lr, (size_t)n * 2 * sizeof(int16_t));
    if (i == 0 && b->cfg.keep_audio)
        keep_audio(b, lr, n);
}

/* The host side of one instance's frame: native or host renderers, or none. */
static gv_status host_frame(gb_batch *b, int i, gv_err *err)
{
    gb_inst *in = &b->in[i];
    gb *g = in->g;
    if (gb_run_frame(g)) {
        in->trapped = 1;
        return GV_OK;
    }
    if (b->cfg.video == GB_R_NATIVE) {
        hash_u64(in->vh, gv_hash64(gb_native_fb(g), GB_FB_BYTES));
    } else if (b->cfg.video == GB_R_HOST) {
        const gb_frame_log *lg = gb_video_log(g);
        size_t need = gb_log_packed_size(lg);
        if (need > in->pkcap) {
            free(in->pk);
            in->pkcap = need * 2;
            if (!(in->pk = gv_aligned_alloc(in->pkcap)))
                return gv_fail(err, GV_ERR_ENV, "out of memory for a frame log");
        }
        gb_log_pack(lg, in->pk);
        gv_status st = gb_render_host(in->vs, in->pk, in->fb, b->n == 1, err);
        if (st != GV_OK)
            return st;
        hash_u64(in->vh, gv_hash64(in->fb, GB_FB_BYTES));
    }
    if (b->cfg.audio == GB_R_NATIVE) {
        int n;
        const int16_t *lr = gb_native_audio(g, &n);
        audio_out(b, i, lr, n);
    } else if (b->cfg.audio == GB_R_HOST) {
        const gb_audio_log *al = gb_audio_keys(g);
        int16_t *lr = abuf(in, (int)al->n);
        gb_audio_block(al, gb_cart_lfsr(b->cfg.cart), lr);
        gb_audio_filter(g, lr, (int)al->n);
        audio_out(b, i, lr, (int)al->n);
    }
    return GV_OK;
}

/* Instance i's results of the frame in a device slot: its video hash, its audio samples
 * through the host's high-pass filter. */
static void collect_one(gb_batch *b, int i, int slot, const uint64_t *hashes, const int16_t *samples)
{
    gb_inst *in = &b->in[i];
    if (b->cfg.video == GB_R_DEVICE)
        hash_u64(in->vh, hashes[i]);
    if (b->cfg.audio == GB_R_DEVICE) {
        int n = in->an[slot];
        int16_t *lr = abuf(in, n);
        memcpy(lr, samples + (size_t)i * b->astride[slot] * 2, (size_t)n * 2 * sizeof(int16_t));
        gb_audio_filter(in->g, lr, n);
        audio_out(b, i, lr, n);
    }
}

/* Waits for a slot and collects every instance's results (the end of a run). */
static gv_status device_collect(gb_batch *b, int slot, gv_err *err)
{
    const uint64_t *hashes;
    const int16_t *samples;
    double t = b->phases ? gv_now() : 0;
    gv_status st = gb_gpu_wait(b->gpu, slot, &hashes, &samples, err);
    if (st != GV_OK)
        return st;
    t = ph_mark(b, PH_WAIT, t);
    b->pending[slot] = 0;
#pragma omp parallel for schedule(static) num_threads(threads_of(b)) if (b->n > 1)
    for (int i = 0; i < b->n; i++)
        collect_one(b, i, slot, hashes, samples);
    ph_mark(b, PH_COLLECT, t);
    return GV_OK;
}

/* Starts the device on the slot packed by the previous device_frame. */
static gv_status device_submit(gb_batch *b, gv_err *err)
{
    int slot = b->staged;
    double t = b->phases ? gv_now() : 0;
    gv_status st = gb_gpu_submit(b->gpu, slot, b->vbytes[slot], b->abytes[slot], b->astride[slot], err);
    b->staged = -1;
    if (st == GV_OK)
        b->pending[slot] = 1;
    ph_mark(b, PH_SUBMIT, t);
    return st;
}

/* Packs the logs of instance i that did not fit their fixed place, from *vo / *ao on. */
static void pack_overflow(gb_batch *b, int i, uint8_t *vbuf, uint8_t *abuf_, uint32_t *voff, uint32_t *aoff,
                          size_t *vo, size_t *ao)
{
    gb_inst *in = &b->in[i];
    if (in->vsz > b->vcap) {
        voff[i] = (uint32_t)*vo;
        gb_log_pack(gb_video_log(in->g), vbuf + *vo);
        *vo += in->vsz;
    }
    if (in->asz > b->acap) {
        aoff[i] = (uint32_t)*ao;
        gb_alog_pack(gb_audio_keys(in->g), abuf_ + *ao);
        *ao += (in->asz + 7) & ~(size_t)7;
    }
}

/* One frame with a device renderer, in one parallel pass over the instances: each thread
 * collects instance i's results of frame k-2 (its slot's previous use, long finished),
 * emulates frame k and packs its logs straight into the pinned staging of slot k & 1, at
 * i * vcap (logs that do not fit go after the fixed places once the pass is over); one
 * thread meanwhile submits frame k-1, so that the host never waits on the device's API.
 * The device thus renders frame k-1 while the cores emulate frame k. */
static gv_status device_frame(gb_batch *b, int slot, gv_err *err)
{
    int video = b->cfg.video == GB_R_DEVICE, audio = b->cfg.audio == GB_R_DEVICE;
    gv_status st = GV_OK, sub = GV_OK;
    gv_err suberr;
    int nthr = threads_of(b);
    const uint64_t *hashes = NULL;
    const int16_t *samples = NULL;
    int collect = b->pending[slot];
    double t = b->phases ? gv_now() : 0;
    if (collect) {
        if ((st = gb_gpu_wait(b->gpu, slot, &hashes, &samples, err)) != GV_OK)
            return st;
        b->pending[slot] = 0;
    }
    t = ph_mark(b, PH_WAIT, t);
    uint8_t *vbuf, *abuf_;
    uint32_t *voff, *aoff;
    size_t vcap = b->vcap, acap = b->acap, n = (size_t)b->n;
    size_t vfix = video ? n * vcap : 0, afix = audio ? n * acap : 0; /* the fixed places */
    if ((st = gb_gpu_staging(b->gpu, slot, vfix, afix, &vbuf, &abuf_, &voff, &aoff, err)) != GV_OK)
        return st;
    int over = 0;
#pragma omp parallel num_threads(nthr) if (b->n > 1)
    {
#pragma omp single nowait
        if (b->staged >= 0)
            sub = device_submit(b, &suberr);
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < b->n; i++) {
            gv_err e;
            gb_inst *in = &b->in[i];
            if (collect)
                collect_one(b, i, slot, hashes, samples);
            if (host_frame(b, i, &e) != GV_OK) {
#pragma omp critical
                {
                    st = GV_ERR_ENV;
                    *err = e;
                }
            }
            const gb_audio_log *al = gb_audio_keys(in->g);
            in->an[slot] = (int)al->n;
            in->vsz = video ? gb_log_packed_size(gb_video_log(in->g)) : 0;
            in->asz = audio ? gb_alog_packed_size(al) : 0;
            if (in->trapped)
                continue;
            if (video && in->vsz <= vcap)
                gb_log_pack(gb_video_log(in->g), vbuf + (size_t)i * vcap);
            if (audio && in->asz <= acap)
                gb_alog_pack(al, abuf_ + (size_t)i * acap);
            if (in->vsz > vcap || in->asz > acap) {
#pragma omp atomic write
                over = 1;
            }
        }
    }
    if (sub != GV_OK) {
        *err = suberr;
        return sub;
    }
    if (st != GV_OK || b->in[0].trapped)
        return st; /* a trapped frame is incomplete: nothing to render */
    t = ph_mark(b, PH_EMU, t);
    int stride = 1;
    size_t vo = vfix, ao = afix;
    for (int i = 0; i < b->n; i++) {
        gb_inst *in = &b->in[i];
        if (in->an[slot] > stride)
            stride = in->an[slot];
        voff[i] = (uint32_t)((size_t)i * vcap);
        aoff[i] = (uint32_t)((size_t)i * acap);
        if (over) {
            vo += in->vsz > vcap ? in->vsz : 0;
            ao += in->asz > acap ? (in->asz + 7) & ~(size_t)7 : 0;
        }
    }
    if (vo > UINT32_MAX || ao > UINT32_MAX)
        return gv_fail(err, GV_ERR_ENV, "a frame's logs for %d instances exceed 4 GiB; use fewer instances", b->n);
    if (over) {
        /* Staging grown to hold the overflow moves: then every log is packed again. */
        int moved = vo > b->vreq[slot] || ao > b->areq[slot];
        if ((st = gb_gpu_staging(b->gpu, slot, vo, ao, &vbuf, &abuf_, &voff, &aoff, err)) != GV_OK)
            return st;
        if (moved) {
            for (int i = 0; i < b->n; i++) {
                voff[i] = (uint32_t)((size_t)i * vcap);
                aoff[i] = (uint32_t)((size_t)i * acap);
            }
#pragma omp parallel for schedule(static) num_threads(nthr) if (b->n > 1)
            for (int i = 0; i < b->n; i++) {
                gb_inst *in = &b->in[i];
                if (video && in->vsz <= vcap)
                    gb_log_pack(gb_video_log(in->g), vbuf + (size_t)i * vcap);
                if (audio && in->asz <= acap)
                    gb_alog_pack(gb_audio_keys(in->g), abuf_ + (size_t)i * acap);
            }
        }
        vo = vfix;
        ao = afix;
        for (int i = 0; i < b->n; i++)
            pack_overflow(b, i, vbuf, abuf_, voff, aoff, &vo, &ao);
        /* The fixed places grow to fit what overflowed, except logs with a VRAM snapshot
         * (the first frame), so that most frames pack in the one pass. */
        for (int i = 0; i < b->n; i++) {
            gb_inst *in = &b->in[i];
            if (in->vsz > b->vcap && !gb_video_log(in->g)->snapshot)
                b->vcap = (in->vsz + 255) & ~(size_t)255;
            if (in->asz > b->acap)
                b->acap = (in->asz + 255) & ~(size_t)255;
        }
    }
    if (vo > b->vreq[slot])
        b->vreq[slot] = vo;
    if (ao > b->areq[slot])
        b->areq[slot] = ao;
    ph_mark(b, PH_PACK, t);
    b->vbytes[slot] = vo;
    b->abytes[slot] = ao;
    b->astride[slot] = stride;
    b->staged = slot;
    return GV_OK;
}

gv_status gb_batch_run(gb_batch *b, int frames, int *done, gv_err *err)
{
    gv_status st = GV_OK;
    int f;
    *done = 0;
    for (f = 0; f < frames; f++) {
        if (b->gpu) {
            st = device_frame(b, f & 1, err);
        } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_of(b)) if (b->n > 1)
            for (int i = 0; i < b->n; i++) {
                gv_err e;
                if (host_frame(b, i, &e) != GV_OK) {
#pragma omp critical
                    {
                        st = GV_ERR_ENV;
                        *err = e;
                    }
                }
            }
        }
        if (st != GV_OK || b->in[0].trapped)
            break;
    }
    if (b->gpu && b->staged >= 0) {
        gv_status s2 = st == GV_OK ? device_submit(b, err) : GV_OK;
        b->staged = -1;
        if (st == GV_OK)
            st = s2;
    }
    for (int s = 0; b->gpu && s < 2; s++) {
        int slot = (f + s) & 1; /* oldest first */
        if (b->pending[slot]) {
            gv_status s2 = device_collect(b, slot, err);
            if (st == GV_OK)
                st = s2;
        }
    }
    *done = f;
    if (b->phases && b->gpu) {
        fprintf(stderr, "gb phases, %d frames x %d instances: emulate %.3f s, pack %.3f s, wait %.3f s, collect %.3f s, submit %.3f s\n",
                f, b->n, b->ph[PH_EMU], b->ph[PH_PACK], b->ph[PH_WAIT], b->ph[PH_COLLECT], b->ph[PH_SUBMIT]);
        memset(b->ph, 0, sizeof b->ph);
    }
    return st;
}

uint64_t gb_batch_video_hash(const gb_batch *b, int i)
{
    return gv_hasher_digest(b->in[i].vh);
}

uint64_t gb_batch_audio_hash(const gb_batch *b, int i)
{
    return gv_hasher_digest(b->in[i].ah);
}

int gb_batch_mismatches(const gb_batch *b)
{
    int bad = 0;
    uint64_t v0 = gb_batch_video_hash(b, 0), a0 = gb_batch_audio_hash(b, 0);
    for (int i = 1; i < b->n; i++)
        if (gb_batch_video_hash(b, i) != v0 || gb_batch_audio_hash(b, i) != a0)
            bad++;
    return bad;
}

gb *gb_batch_machine(gb_batch *b, int i)
{
    return b->in[i].g;
}

gv_status gb_batch_last_frame(gb_batch *b, uint8_t *rgb, gv_err *err)
{
    switch (b->cfg.video) {
    case GB_R_NATIVE: memcpy(rgb, gb_native_fb(b->in[0].g), GB_FB_BYTES); return GV_OK;
    case GB_R_HOST: memcpy(rgb, b->in[0].fb, GB_FB_BYTES); return GV_OK;
    case GB_R_DEVICE: return gb_gpu_frame(b->gpu, 0, rgb, err);
    default: return gv_fail(err, GV_ERR_INPUT, "no frame: the video renderer is 'none'");
    }
}

const int16_t *gb_batch_audio(const gb_batch *b, size_t *n)
{
    *n = b->nkeep;
    return b->keep;
}
