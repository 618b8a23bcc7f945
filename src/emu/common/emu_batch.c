/* emu_batch.c: the batch runner of every console. Host renderers run in the same OpenMP
 * loop as the cores (instance i's frame is emulated, then rendered, by one thread); a
 * single instance renders its lines on all threads instead. With a device renderer each
 * frame is one parallel pass over the instances (device_frame): collect frame k-2's
 * results, emulate frame k, pack its logs into the pinned staging, while one thread
 * submits frame k-1; the device works on frame k-1 while the cores emulate frame k.
 * GV_EMU_PHASES=1 prints where a device frame's time went. */
#include "emu/common/emu_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

static const char *const rnames[] = {"native", "host", "device", "none"};

const char *emu_renderer_name(emu_renderer r)
{
    return (unsigned)r < 4 ? rnames[r] : "?";
}

int emu_renderer_parse(const char *s, emu_renderer *r)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, rnames[i])) {
            *r = (emu_renderer)i;
            return 0;
        }
    return -1;
}

typedef struct {
    void *m;
    void *hv;          /* host video renderer state (host video, verify) */
    uint8_t *fb;       /* host video: the frame drawn from the log */
    int16_t *ab;       /* audio scratch: max_audio_frames sample frames */
    gv_hasher *vh, *ah;
    size_t vsz, asz;   /* packed log sizes of the frame just run (device) */
    emu_adesc ad[2];   /* the device audio of the frame in each slot */
    int16_t *keep;     /* its kept samples (keep_audio: instance 0; keep_audio_each: all) */
    size_t nkeep, capkeep;
    int trapped;
} inst;

struct emu_batch {
    emu_batch_cfg cfg;
    const emu_console *con;
    int n, nthreads;
    size_t fbytes;            /* one RGB frame */
    inst *in;
    emu_buttons buttons;
    emu_buttons *each;        /* per-instance buttons (emu_batch_set_input_each), or NULL */
    int16_t axes[EMU_MAX_AXES];
    uint8_t *last;            /* instance 0's last frame (not for a device hash), when copied */
    const uint8_t *last_src;  /* where that frame is: its renderer's buffer (unchanged until
                               * the instance's next frame) or `last` (last_settle) */
    const int16_t *fa;        /* instance 0's samples of the last frame (host path) */
    int nfa;
    /* device */
    const emu_gpu_ops *ops;
    emu_gpu *gpu;
    int vdev, adev;           /* video / audio on the device */
    int pending[2];           /* slot submitted, results not collected yet */
    int staged;               /* slot packed, not submitted yet, or -1 */
    int astride[2];
    size_t vcap, acap;        /* bytes of each instance's fixed place in the staging */
    size_t vreq[2], areq[2];  /* staging bytes asked for so far (it never moves below) */
    size_t vbytes[2], abytes[2]; /* bytes to transfer of a packed slot */
    int phases;               /* GV_EMU_PHASES is set: time the device frame's phases */
    double ph[5];             /* seconds in: emulate, pack, wait for the device, collect, submit */
};

enum { PH_EMU, PH_PACK, PH_WAIT, PH_COLLECT, PH_SUBMIT };

#define ALIGN16(n) (((n) + 15) & ~(size_t)15)

static double ph_mark(emu_batch *b, int ph, double t0)
{
    if (!b->phases)
        return 0;
    double t = gv_now();
    b->ph[ph] += t - t0;
    return t;
}

void emu_batch_free(emu_batch *b)
{
    if (!b)
        return;
    emu_gpu_close(b->gpu);
    for (int i = 0; b->in && i < b->n; i++) {
        inst *in = &b->in[i];
        if (in->m)
            b->con->machine_free(in->m);
        if (in->hv)
            b->con->host_video_free(in->hv);
        free(in->fb);
        free(in->ab);
        free(in->keep);
        if (in->vh)
            gv_hasher_free(in->vh);
        if (in->ah)
            gv_hasher_free(in->ah);
    }
    GV_FREE(b->in, b->last, b->each, b);
}

static unsigned outputs_of(const emu_batch_cfg *cfg)
{
    unsigned o = 0;
    if (cfg->video == EMU_R_NATIVE)
        o |= EMU_OUT_VIDEO_NATIVE | (cfg->verify ? EMU_OUT_VIDEO_LOG : 0);
    if (cfg->video == EMU_R_HOST || cfg->video == EMU_R_DEVICE)
        o |= EMU_OUT_VIDEO_LOG;
    if (cfg->audio == EMU_R_NATIVE)
        o |= EMU_OUT_AUDIO_NATIVE;
    if (cfg->audio == EMU_R_HOST || cfg->audio == EMU_R_DEVICE)
        o |= EMU_OUT_AUDIO_LOG;
    return o;
}

static gv_status inst_new(emu_batch *b, int i, gv_err *err)
{
    const emu_batch_cfg *cfg = &b->cfg;
    const emu_console *con = b->con;
    inst *in = &b->in[i];
    gv_status st = con->machine_new(cfg->cart, &cfg->opts, outputs_of(cfg), &in->m, err);
    if (st != GV_OK)
        return st;
    if (cfg->state && (st = con->state_load(in->m, cfg->state, cfg->state_len, err)) != GV_OK)
        return st;
    if (cfg->battery &&
        (st = con->battery_set(in->m, cfg->battery, cfg->battery_len, cfg->battery_name ? cfg->battery_name : "battery",
                               err)) != GV_OK)
        return st;
    in->vh = gv_hasher_new();
    in->ah = gv_hasher_new();
    if (cfg->video == EMU_R_HOST || cfg->verify) {
        in->hv = con->host_video_new(cfg->cart);
        in->fb = malloc(b->fbytes);
        if (!in->hv || !in->fb)
            return gv_fail(err, GV_ERR_ENV, "out of memory for %d host renderers", b->n);
    }
    if (cfg->audio != EMU_R_NATIVE && cfg->audio != EMU_R_NONE &&
        !(in->ab = malloc((size_t)con->max_audio_frames * con->audio_channels * sizeof(int16_t))))
        return gv_fail(err, GV_ERR_ENV, "out of memory for %d audio renderers", b->n);
    if (i == 0 && cfg->trace)
        con->set_trace(in->m, cfg->trace, cfg->trace_ctx);
    if (cfg->trap)
        con->set_trap(in->m, 1);
    return GV_OK;
}

gv_status emu_batch_new(const emu_batch_cfg *cfg, emu_batch **out, gv_err *err)
{
    *out = NULL;
    if (cfg->instances < 1 || cfg->instances > 65535)
        return gv_fail(err, GV_ERR_INPUT, "--instances %d: give 1 to 65535", cfg->instances);
    if (cfg->trap && cfg->instances != 1)
        return gv_fail(err, GV_ERR_INPUT, "--test-rom runs a single instance (--instances 1)");
    if (cfg->verify && cfg->video != EMU_R_NATIVE)
        return gv_fail(err, GV_ERR_INPUT, "--verify checks the log renderer against --video native");
    if (cfg->audio == EMU_R_HOST && !cfg->con->host_audio)
        return gv_fail(err, GV_ERR_INPUT, "--audio host: the %s has no host audio renderer (its sound is made in the core: --audio native)",
                       cfg->con->title);
    /* a console property, refused before any device is looked for (in any build) */
    if (cfg->audio == EMU_R_DEVICE && !cfg->con->audio_collect)
        return gv_fail(err, GV_ERR_INPUT, "--audio device: the %s has no device audio renderer (its sound is made in the "
                       "core: --audio native)", cfg->con->title);
    emu_batch *b = calloc(1, sizeof *b);
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    b->cfg = *cfg;
    b->con = cfg->con;
    b->n = cfg->instances;
    b->nthreads = cfg->threads > 0 ? cfg->threads : gv_cpu_count();
    b->fbytes = (size_t)b->con->width * b->con->height * 3;
    b->phases = getenv("GV_EMU_PHASES") != NULL;
    b->staged = -1;
    b->vdev = cfg->video == EMU_R_DEVICE;
    b->adev = cfg->audio == EMU_R_DEVICE;
    /* The fixed places start at 16 KiB of video log and 2 KiB of audio log per instance
     * and grow to the largest frame seen (a first frame's snapshot excepted). */
    b->vcap = 16384;
    b->acap = 2048;
    gv_status st = GV_OK;
    if (!(b->in = calloc((size_t)b->n, sizeof *b->in)) || !(b->last = calloc(1, b->fbytes))) {
        st = gv_fail(err, GV_ERR_ENV, "out of memory for %d instances", b->n);
        goto fail;
    }
    for (int i = 0; i < b->n && st == GV_OK; i++)
        st = inst_new(b, i, err);
    if (st != GV_OK)
        goto fail;
    if (b->vdev || b->adev) {
        b->ops = cfg->gpu_ops ? cfg->gpu_ops : b->con->gpu;
        if ((st = emu_gpu_open(&cfg->dev, b->ops, cfg->cart, b->in[0].m, b->n, b->vdev, b->adev, &b->gpu, err)) != GV_OK)
            goto fail;
    }
    *out = b;
    return GV_OK;
fail:
    emu_batch_free(b);
    return st;
}

void emu_batch_set_input(emu_batch *b, emu_buttons buttons)
{
    b->buttons = buttons;
    free(b->each);
    b->each = NULL;
}

void emu_batch_set_input_each(emu_batch *b, const emu_buttons *buttons)
{
    if (!b->each)
        b->each = gv_xcalloc((size_t)b->n, sizeof *b->each);
    memcpy(b->each, buttons, (size_t)b->n * sizeof *b->each);
}

void emu_batch_set_axes(emu_batch *b, const int16_t *v)
{
    memcpy(b->axes, v, sizeof b->axes);
}

/* ---- outputs -------------------------------------------------------------------------- */

static void hash_u64(gv_hasher *h, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    gv_hasher_update(h, le, 8);
}

static void last_settle(emu_batch *b);

/* A frame of instance i: into its video hash; instance 0's is remembered where it is, not
 * copied (a frame copy per frame cost the Game Boy 7% of its one-core instructions), except
 * with a breakpoint armed: a run that stops there stops inside a frame, whose drawing has
 * begun to overwrite the buffer that the last whole frame is in. */
static void video_out(emu_batch *b, int i, const uint8_t *rgb)
{
    if (!b->cfg.no_hash && b->con->hash_of_frame_hashes)
        hash_u64(b->in[i].vh, gv_hash64(rgb, b->fbytes));
    else if (!b->cfg.no_hash)
        gv_hasher_update(b->in[i].vh, rgb, b->fbytes);
    if (i == 0) {
        b->last_src = rgb;
        if (b->cfg.trap)
            last_settle(b);
    }
}

/* Instance 0's last frame copied into `last`: before anything but the next frame changes the
 * buffer it is in (power, reset), and for a device slot, which the pipeline reuses. */
static void last_settle(emu_batch *b)
{
    if (b->last_src && b->last_src != b->last)
        memcpy(b->last, b->last_src, b->fbytes);
    b->last_src = b->last;
}

static void keep_audio(emu_batch *b, inst *in, const int16_t *s, int n)
{
    size_t ch = (size_t)b->con->audio_channels;
    if (in->nkeep + (size_t)n > in->capkeep) {
        in->capkeep = (in->nkeep + (size_t)n) * 2 + 4096;
        in->keep = gv_xrealloc(in->keep, in->capkeep * ch * sizeof(int16_t));
    }
    memcpy(in->keep + in->nkeep * ch, s, (size_t)n * ch * sizeof(int16_t));
    in->nkeep += (size_t)n;
}

/* Final samples of instance i for this frame: hash (and keep for instance 0). */
static void audio_out(emu_batch *b, int i, const int16_t *s, int n)
{
    if (n <= 0)
        return;
    if (!b->cfg.no_hash)
        gv_hasher_update(b->in[i].ah, s, (size_t)n * b->con->audio_channels * sizeof(int16_t));
    if (i == 0) {
        b->fa = s;
        b->nfa = n;
    }
    if (b->cfg.keep_audio_each || (i == 0 && b->cfg.keep_audio))
        keep_audio(b, &b->in[i], s, n);
}

/* Draws instance i's frame from its log and compares it with the native one. */
static gv_status verify_frame(emu_batch *b, int i, gv_err *err)
{
    inst *in = &b->in[i];
    gv_status st = b->con->host_video(in->hv, in->m, in->fb, b->n == 1, err);
    if (st != GV_OK)
        return st;
    const uint8_t *nat = b->con->native_video(in->m);
    if (!memcmp(in->fb, nat, b->fbytes))
        return GV_OK;
    int w = b->con->width;
    for (size_t p = 0; p < b->fbytes / 3; p++)
        if (memcmp(in->fb + 3 * p, nat + 3 * p, 3))
            return gv_fail(err, GV_ERR_WRONG,
                           "instance %d, frame %llu: the log renderer differs from the native one at line %zu, x %zu "
                           "(%02x%02x%02x vs %02x%02x%02x)",
                           i, (unsigned long long)b->con->frame_count(in->m) - 1, p / (size_t)w, p % (size_t)w,
                           in->fb[3 * p], in->fb[3 * p + 1], in->fb[3 * p + 2], nat[3 * p], nat[3 * p + 1], nat[3 * p + 2]);
    return GV_OK;
}

/* The host side of one instance's frame: emulation, then the native or host renderers. */
static gv_status host_frame(emu_batch *b, int i, gv_err *err)
{
    const emu_console *con = b->con;
    inst *in = &b->in[i];
    if (in->trapped) { /* stopped at the breakpoint: re-arm it and finish the frame */
        con->set_trap(in->m, 1);
        in->trapped = 0;
    }
    con->set_input(in->m, b->cfg.movie ? emu_movie_at(b->cfg.movie, con->frame_count(in->m))
                                  : b->each ? b->each[i] : b->buttons);
    if (con->set_axes) {
        int16_t ax[EMU_MAX_AXES];
        if (b->cfg.movie)
            emu_movie_axes(b->cfg.movie, con->frame_count(in->m), ax);
        con->set_axes(in->m, b->cfg.movie ? ax : b->axes);
    }
    if (con->run_frame(in->m)) {
        in->trapped = 1;
        return GV_OK;
    }
    gv_status st;
    if (b->cfg.video == EMU_R_NATIVE) {
        video_out(b, i, con->native_video(in->m));
        if (b->cfg.verify && (st = verify_frame(b, i, err)) != GV_OK)
            return st;
    } else if (b->cfg.video == EMU_R_HOST) {
        if ((st = con->host_video(in->hv, in->m, in->fb, b->n == 1, err)) != GV_OK)
            return st;
        video_out(b, i, in->fb);
    }
    int n;
    if (b->cfg.audio == EMU_R_NATIVE) {
        const int16_t *s = con->native_audio(in->m, &n);
        audio_out(b, i, s, n);
    } else if (b->cfg.audio == EMU_R_HOST) {
        if ((n = con->host_audio(in->m, in->ab)) < 0)
            return gv_fail(err, GV_ERR_INTERNAL, "internal error: instance %d: a frame has more audio than the host renderer takes", i);
        audio_out(b, i, in->ab, n);
    }
    return GV_OK;
}

/* ---- the device path ------------------------------------------------------------------ */

/* Instance i's results of the frame in a device slot. */
static gv_status collect_one(emu_batch *b, int i, int slot, const uint8_t *vres, const uint8_t *ares, gv_err *err)
{
    inst *in = &b->in[i];
    if (b->vdev) {
        const uint8_t *r = vres + (size_t)i * b->ops->vres_bytes;
        if (b->ops->vres_is_hash) {
            uint64_t h = 0;
            for (int k = 0; k < 8; k++)
                h |= (uint64_t)r[k] << (8 * k);
            hash_u64(in->vh, h);
        } else {
            video_out(b, i, r);
            if (i == 0)
                last_settle(b);
        }
    }
    if (b->adev) {
        int n = b->con->audio_collect(in->m, &in->ad[slot], ares + (size_t)i * b->astride[slot] * b->ops->ares_unit, in->ab);
        if (n < 0)
            return gv_fail(err, GV_ERR_INTERNAL, "internal error: instance %d: a frame has more audio than the device renderer takes", i);
        audio_out(b, i, in->ab, n);
    }
    return GV_OK;
}

/* Waits for a slot and collects every instance's results (the end of a run). */
static gv_status device_collect(emu_batch *b, int slot, gv_err *err)
{
    const uint8_t *vres, *ares;
    double t = b->phases ? gv_now() : 0;
    gv_status st = emu_gpu_wait(b->gpu, slot, &vres, &ares, err);
    if (st != GV_OK)
        return st;
    t = ph_mark(b, PH_WAIT, t);
    b->pending[slot] = 0;
#pragma omp parallel for schedule(static) num_threads(b->nthreads) if (b->n > 1)
    for (int i = 0; i < b->n; i++) {
        gv_err e;
        gv_status s1 = collect_one(b, i, slot, vres, ares, &e);
        if (s1 != GV_OK) {
#pragma omp critical
            {
                st = s1;
                *err = e;
            }
        }
    }
    ph_mark(b, PH_COLLECT, t);
    return st;
}

/* Starts the device on the slot packed by the previous device_frame. */
static gv_status device_submit(emu_batch *b, gv_err *err)
{
    int slot = b->staged;
    double t = b->phases ? gv_now() : 0;
    gv_status st = emu_gpu_submit(b->gpu, slot, b->vbytes[slot], b->abytes[slot], b->astride[slot], err);
    b->staged = -1;
    if (st == GV_OK)
        b->pending[slot] = 1;
    ph_mark(b, PH_SUBMIT, t);
    return st;
}

/* Packs instance i's logs at its fixed places of the staging, when they fit. */
static int pack_fixed(emu_batch *b, int i, uint8_t *vbuf, uint8_t *abuf)
{
    inst *in = &b->in[i];
    if (in->vsz > b->vcap || in->asz > b->acap)
        return 0;
    b->con->pack(in->m, b->vdev, b->adev, in->vsz ? vbuf + (size_t)i * b->vcap : NULL,
                 in->asz ? abuf + (size_t)i * b->acap : NULL);
    return 1;
}

/* One frame with a device renderer, in one parallel pass over the instances: each thread
 * collects instance i's results of frame k-2 (its slot's previous use, long finished),
 * emulates frame k and packs its logs straight into the pinned staging of slot k & 1 at
 * i * vcap and i * acap (logs that do not fit go after the fixed places once the pass is
 * over); one thread meanwhile submits frame k-1, so that the host never waits on the
 * device's API. The device thus renders frame k-1 while the cores emulate frame k. */
static gv_status device_frame(emu_batch *b, int slot, gv_err *err)
{
    gv_status st = GV_OK, sub = GV_OK;
    gv_err suberr;
    const uint8_t *vres = NULL, *ares = NULL;
    int collect = b->pending[slot];
    double t = b->phases ? gv_now() : 0;
    if (collect) {
        if ((st = emu_gpu_wait(b->gpu, slot, &vres, &ares, err)) != GV_OK)
            return st;
        b->pending[slot] = 0;
    }
    t = ph_mark(b, PH_WAIT, t);
    uint8_t *vbuf, *abuf;
    uint32_t *voff, *aoff;
    size_t n = (size_t)b->n;
    /* The fixed places: the video stream carries everything on some consoles */
    size_t vfix = n * b->vcap, afix = b->adev ? n * b->acap : 0;
    if ((st = emu_gpu_staging(b->gpu, slot, vfix, afix, &vbuf, &abuf, &voff, &aoff, err)) != GV_OK)
        return st;
    int over = 0;
#pragma omp parallel num_threads(b->nthreads) if (b->n > 1)
    {
#pragma omp single nowait
        if (b->staged >= 0)
            sub = device_submit(b, &suberr);
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < b->n; i++) {
            gv_err e;
            inst *in = &b->in[i];
            gv_status s1 = collect ? collect_one(b, i, slot, vres, ares, &e) : GV_OK;
            if (s1 == GV_OK)
                s1 = host_frame(b, i, &e);
            if (s1 != GV_OK) {
#pragma omp critical
                {
                    st = s1;
                    *err = e;
                }
                continue;
            }
            if (in->trapped)
                continue;
            b->con->pack_sizes(in->m, b->vdev, b->adev, &in->vsz, &in->asz);
            in->vsz = ALIGN16(in->vsz);
            in->asz = ALIGN16(in->asz);
            if (b->adev)
                b->con->audio_units(in->m, &in->ad[slot]);
            if (!pack_fixed(b, i, vbuf, abuf)) {
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
    for (int i = 0; i < b->n; i++) {
        voff[i] = (uint32_t)((size_t)i * b->vcap);
        aoff[i] = (uint32_t)((size_t)i * b->acap);
        if (b->adev && (int)b->in[i].ad[slot].units > stride)
            stride = (int)b->in[i].ad[slot].units;
    }
    size_t vo = vfix, ao = afix;
    if (over) {
        for (int i = 0; i < b->n; i++) {
            inst *in = &b->in[i];
            if (in->vsz > b->vcap || in->asz > b->acap) {
                vo += in->vsz;
                ao += in->asz;
            }
        }
        if (vo > UINT32_MAX || ao > UINT32_MAX)
            return gv_fail(err, GV_ERR_ENV, "a frame's logs for %d instances exceed 4 GiB; use fewer instances", b->n);
        /* Staging grown to hold the overflow moves: then every log is packed again. */
        int moved = vo > b->vreq[slot] || ao > b->areq[slot];
        if ((st = emu_gpu_staging(b->gpu, slot, vo, ao, &vbuf, &abuf, &voff, &aoff, err)) != GV_OK)
            return st;
        vo = vfix;
        ao = afix;
        for (int i = 0; i < b->n; i++) {
            inst *in = &b->in[i];
            voff[i] = (uint32_t)((size_t)i * b->vcap);
            aoff[i] = (uint32_t)((size_t)i * b->acap);
            if (in->vsz > b->vcap || in->asz > b->acap) {
                voff[i] = (uint32_t)vo;
                aoff[i] = (uint32_t)ao;
                b->con->pack(in->m, b->vdev, b->adev, in->vsz ? vbuf + vo : NULL, in->asz ? abuf + ao : NULL);
                vo += in->vsz;
                ao += in->asz;
            } else if (moved) {
                pack_fixed(b, i, vbuf, abuf);
            }
        }
        /* The fixed places grow to fit what overflowed, so that most frames pack in the
         * one pass; a log far above the typical size (a snapshot) does not grow them. */
        for (int i = 0; i < b->n; i++) {
            inst *in = &b->in[i];
            if (in->vsz > b->vcap && in->vsz <= 4 * b->vcap)
                b->vcap = ALIGN16(in->vsz + in->vsz / 8);
            if (in->asz > b->acap && in->asz <= 4 * b->acap)
                b->acap = ALIGN16(in->asz + in->asz / 8);
        }
    }
    if (vo > b->vreq[slot])
        b->vreq[slot] = vo;
    if (ao > b->areq[slot])
        b->areq[slot] = ao;
    ph_mark(b, PH_PACK, t);
    /* A stream the device does not read is not transferred. */
    size_t vused = 0, aused = 0;
    for (int i = 0; i < b->n; i++) {
        vused |= b->in[i].vsz;
        aused |= b->in[i].asz;
    }
    b->vbytes[slot] = vused ? vo : 0;
    b->abytes[slot] = aused ? ao : 0;
    b->astride[slot] = stride;
    b->staged = slot;
    return GV_OK;
}

gv_status emu_batch_run(emu_batch *b, int frames, int *done, gv_err *err)
{
    gv_status st = GV_OK;
    int f;
    *done = 0;
    for (f = 0; f < frames; f++) {
        b->nfa = 0;
        if (b->gpu) {
            st = device_frame(b, f & 1, err);
        } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->nthreads) if (b->n > 1)
            for (int i = 0; i < b->n; i++) {
                gv_err e;
                gv_status s1 = host_frame(b, i, &e);
                if (s1 != GV_OK) {
#pragma omp critical
                    {
                        st = s1;
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
        fprintf(stderr, "%s phases, %d frames x %d instances: emulate %.3f s, pack %.3f s, wait %.3f s, collect %.3f s, "
                "submit %.3f s\n", b->con->name, f, b->n, b->ph[PH_EMU], b->ph[PH_PACK], b->ph[PH_WAIT],
                b->ph[PH_COLLECT], b->ph[PH_SUBMIT]);
        memset(b->ph, 0, sizeof b->ph);
    }
    return st;
}

/* ---- control and results -------------------------------------------------------------- */

void emu_batch_power(emu_batch *b)
{
    last_settle(b);
    for (int i = 0; i < b->n; i++) {
        inst *in = &b->in[i];
        b->con->power(in->m);
        in->trapped = 0;
        gv_hasher_free(in->vh);
        gv_hasher_free(in->ah);
        in->vh = gv_hasher_new();
        in->ah = gv_hasher_new();
        in->nkeep = 0;
    }
}

void emu_batch_reset(emu_batch *b)
{
    last_settle(b);
    for (int i = 0; i < b->n; i++)
        b->con->reset(b->in[i].m);
}

uint64_t emu_batch_video_hash(const emu_batch *b, int i)
{
    return gv_hasher_digest(b->in[i].vh);
}

uint64_t emu_batch_audio_hash(const emu_batch *b, int i)
{
    return gv_hasher_digest(b->in[i].ah);
}

int emu_batch_mismatches(const emu_batch *b)
{
    int bad = 0;
    uint64_t v0 = emu_batch_video_hash(b, 0), a0 = emu_batch_audio_hash(b, 0);
    for (int i = 1; i < b->n; i++)
        if (emu_batch_video_hash(b, i) != v0 || emu_batch_audio_hash(b, i) != a0)
            bad++;
    return bad;
}

int emu_batch_instances(const emu_batch *b)
{
    return b->n;
}

void *emu_batch_machine(emu_batch *b, int i)
{
    return b->in[i].m;
}

gv_status emu_batch_last_frame(emu_batch *b, uint8_t *rgb, gv_err *err)
{
    if (b->cfg.video == EMU_R_NONE)
        return gv_fail(err, GV_ERR_INPUT, "no frame: the video renderer is 'none'");
    if (b->vdev && b->ops->vres_is_hash)
        return emu_gpu_frame(b->gpu, 0, rgb, err);
    memcpy(rgb, emu_batch_frame_video(b), b->fbytes);
    return GV_OK;
}

const uint8_t *emu_batch_frame_video(const emu_batch *b)
{
    if (b->cfg.video == EMU_R_NONE || (b->vdev && b->ops->vres_is_hash))
        return NULL;
    return b->last_src ? b->last_src : b->last;
}

const uint8_t *emu_batch_instance_frame(const emu_batch *b, int i)
{
    if (b->cfg.video == EMU_R_NATIVE)
        return b->con->native_video(b->in[i].m);
    if (b->cfg.video == EMU_R_HOST)
        return b->in[i].fb;
    return NULL;
}

gv_status emu_batch_device_obs(emu_batch *b, int down, int grey, const uint8_t **out, int *device, gv_err *err)
{
    *out = NULL;
    *device = -1;
    if (!b->vdev)
        return gv_fail(err, GV_ERR_INPUT, "no device frames: the video renderer is '%s', not 'device'",
                       emu_renderer_name(b->cfg.video));
    if (down < 1 || b->con->width % down || b->con->height % down)
        return gv_fail(err, GV_ERR_INPUT, "downscale %d: give a factor that divides the %s's %dx%d frame", down,
                       b->con->name, b->con->width, b->con->height);
    return emu_gpu_obs(b->gpu, b->con->width, b->con->height, down, grey, out, device, err);
}

const int16_t *emu_batch_frame_audio(const emu_batch *b, int *n)
{
    *n = b->nfa;
    return b->fa;
}

const int16_t *emu_batch_audio(const emu_batch *b, size_t *n)
{
    return emu_batch_instance_audio(b, 0, n);
}

const int16_t *emu_batch_instance_audio(const emu_batch *b, int i, size_t *n)
{
    *n = b->in[i].nkeep;
    return b->in[i].keep;
}

void emu_batch_audio_clear(emu_batch *b)
{
    for (int i = 0; i < b->n; i++)
        b->in[i].nkeep = 0;
}

const char *emu_batch_gpu_name(const emu_batch *b)
{
    return b->gpu ? emu_gpu_name(b->gpu) : NULL;
}
