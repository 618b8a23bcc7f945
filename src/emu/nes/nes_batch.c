/* batch.c: the batch runner: N machines emulated by OpenMP threads, their frames drawn and
 * sounded by the chosen renderers, every output hashed per instance. With a device renderer
 * the logs of frame k are packed into a pinned slot and sent in one launch; the host then
 * emulates frame k+1 while the device works, and finishes frame k (hashes, filters) after. */
#include "emu/nes/nes_batch.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/nes/nes_gpu.h"
#include "emu/nes/nes_host.h"

#define SBUF_PER_FRAME 2048 /* samples of one frame, at most (about 800 are used) */

struct nes_batch {
    nes_batch_opts o;
    const nes_cart *cart;
    int n, threads;
    int ithreads;          /* threads for loops over instances: no more than instances */
    nes **m;
    nes_logview *lv;       /* views of this frame's logs */
    uint8_t **rgb;         /* per instance: the frame just drawn (native / host) */
    nes_linestart *ls;     /* host video scratch: n x 240 */
    uint64_t *pieces;      /* host audio: n x NES_MAX_PIECES */
    int16_t *sbuf;         /* n x SBUF_PER_FRAME samples of the frame just finished */
    uint32_t *sn;          /* samples per instance in sbuf */
    gv_hasher **hv, **ha;
    uint8_t *rgb0;         /* instance 0's last frame */
    gv_sbuf audio0;
    /* device */
    nes_gpu *gpu;
    uint8_t *stage[2];
    uint32_t *off[2];
    int inflight;          /* slot on the device, -1 when none */
    uint8_t *vcheck;       /* verify: one frame drawn from the log */
    nes_linestart *vls;
    long frames_run;
};

const char *nes_rkind_name(int k)
{
    return k == NES_R_NATIVE ? "native" : k == NES_R_HOST ? "host" : k == NES_R_DEVICE ? "device" : "?";
}

int nes_rkind_parse(const char *s)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, nes_rkind_name(k)))
            return k;
    return -1;
}

void nes_batch_free(nes_batch *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->n; i++) {
        nes_free(b->m ? b->m[i] : NULL);
        if (b->rgb)
            free(b->rgb[i]);
        if (b->hv)
            gv_hasher_free(b->hv[i]);
        if (b->ha)
            gv_hasher_free(b->ha[i]);
    }
    free(b->m);
    free(b->lv);
    free(b->rgb);
    free(b->ls);
    free(b->pieces);
    free(b->sbuf);
    free(b->sn);
    free(b->hv);
    free(b->ha);
    free(b->rgb0);
    free(b->off[0]);
    free(b->off[1]);
    free(b->vcheck);
    free(b->vls);
    gv_sbuf_free(&b->audio0);
    nes_gpu_close(b->gpu);
    free(b);
}

gv_status nes_batch_new(const nes_cart *cart, const nes_batch_opts *o, nes_batch **out, gv_err *err)
{
    *out = NULL;
    nes_batch *b = gv_xcalloc(1, sizeof *b);
    b->o = *o;
    b->cart = cart;
    b->n = o->instances;
    b->threads = o->threads > 0 ? o->threads : gv_cpu_count();
    b->inflight = -1;
    b->ithreads = b->threads < b->n ? b->threads : b->n;
    nes_opts mo = {0};
    mo.video_native = o->video == NES_R_NATIVE;
    mo.log_video = o->video != NES_R_NATIVE || o->verify;
    mo.audio_native = o->audio == NES_R_NATIVE;
    mo.log_audio = o->audio != NES_R_NATIVE;
    b->m = gv_xcalloc((size_t)b->n, sizeof *b->m);
    b->lv = gv_xcalloc((size_t)b->n, sizeof *b->lv);
    b->hv = gv_xcalloc((size_t)b->n, sizeof *b->hv);
    b->ha = gv_xcalloc((size_t)b->n, sizeof *b->ha);
    b->sn = gv_xcalloc((size_t)b->n, sizeof *b->sn);
    b->rgb0 = gv_xcalloc(NES_RGB_BYTES, 1);
    gv_status s = GV_OK;
    for (int i = 0; i < b->n && s == GV_OK; i++) {
        s = nes_new(cart, &mo, &b->m[i], err);
        if (s == GV_OK) {
            b->hv[i] = gv_hasher_new();
            b->ha[i] = gv_hasher_new();
        }
    }
    if (s == GV_OK && o->video == NES_R_HOST) {
        b->rgb = gv_xcalloc((size_t)b->n, sizeof *b->rgb);
        for (int i = 0; i < b->n && s == GV_OK; i++)
            if (!(b->rgb[i] = malloc(NES_RGB_BYTES)))
                s = gv_fail(err, GV_ERR_ENV, "out of memory for %d frame buffers", b->n);
    }
    if (s == GV_OK && o->video == NES_R_HOST)
        b->ls = malloc((size_t)b->n * NES_H * sizeof *b->ls);
    if (s == GV_OK && o->audio != NES_R_NATIVE)
        b->sbuf = malloc((size_t)b->n * SBUF_PER_FRAME * sizeof *b->sbuf);
    if (s == GV_OK && o->audio == NES_R_HOST)
        b->pieces = malloc((size_t)b->n * NES_MAX_PIECES * sizeof *b->pieces);
    if (s == GV_OK && o->verify) {
        b->vcheck = malloc(NES_RGB_BYTES);
        b->vls = malloc(NES_H * sizeof *b->vls);
    }
    if (s == GV_OK && ((o->video == NES_R_HOST && !b->ls) || (o->audio != NES_R_NATIVE && !b->sbuf) ||
                       (o->audio == NES_R_HOST && !b->pieces) || (o->verify && (!b->vcheck || !b->vls))))
        s = gv_fail(err, GV_ERR_ENV, "out of memory for %d instances", b->n);
    if (s == GV_OK && (o->video == NES_R_DEVICE || o->audio == NES_R_DEVICE)) {
        s = nes_gpu_open(o->gpu, b->n, cart->chr, cart->chr_size, b->m[0]->tab, b->m[0]->rgb32, &b->gpu, err);
        b->off[0] = gv_xcalloc((size_t)b->n, sizeof *b->off[0]);
        b->off[1] = gv_xcalloc((size_t)b->n, sizeof *b->off[1]);
    }
    if (s != GV_OK) {
        nes_batch_free(b);
        return s;
    }
    *out = b;
    return GV_OK;
}

nes *nes_batch_machine(nes_batch *b, int i)
{
    return b->m[i];
}

int nes_batch_instances(const nes_batch *b)
{
    return b->n;
}

const uint8_t *nes_batch_rgb0(const nes_batch *b)
{
    return b->rgb0;
}

const gv_sbuf *nes_batch_audio0(const nes_batch *b)
{
    return &b->audio0;
}

const char *nes_batch_gpu_name(const nes_batch *b)
{
    return b->gpu ? nes_gpu_name(b->gpu) : NULL;
}

nes_hashes nes_batch_hashes(const nes_batch *b, int i)
{
    nes_hashes h = {gv_hasher_digest(b->hv[i]), gv_hasher_digest(b->ha[i])};
    return h;
}

void nes_batch_reset_hashes(nes_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        gv_hasher_free(b->hv[i]);
        gv_hasher_free(b->ha[i]);
        b->hv[i] = gv_hasher_new();
        b->ha[i] = gv_hasher_new();
    }
    b->audio0.n = 0;
}

void nes_batch_power(nes_batch *b)
{
    for (int i = 0; i < b->n; i++)
        nes_power(b->m[i]);
    nes_batch_reset_hashes(b);
}

/* Hashes instance i's frame and samples; keeps instance 0's for PNG and WAV. */
static void take_video(nes_batch *b, int i, const uint8_t *rgb)
{
    gv_hasher_update(b->hv[i], rgb, NES_RGB_BYTES);
    if (i == 0)
        memcpy(b->rgb0, rgb, NES_RGB_BYTES);
}

static void take_audio(nes_batch *b, int i, const int16_t *s, uint32_t n)
{
    gv_hasher_update(b->ha[i], s, (size_t)n * sizeof *s);
    if (i == 0 && b->o.keep_audio)
        gv_sbuf_append(&b->audio0, s, n);
}

/* Samples of instance i's frame from its piece sums (block renderers): the filters run
 * here, on the host, in order. */
static void finish_pieces(nes_batch *b, int i, const nes_loghead *h, const uint64_t *pieces)
{
    uint64_t n0;
    uint32_t np;
    nes_log_pieces(h, &n0, &np);
    int16_t *out = b->sbuf + (size_t)i * SBUF_PER_FRAME;
    b->sn[i] = 0;
    nes_aout_pieces(&b->m[i]->aout, n0, pieces, np, out, &b->sn[i]);
    take_audio(b, i, out, b->sn[i]);
}

/* Draws instance i's frame from its log on the host and compares it with the native frame. */
static int verify_frame(nes_batch *b, int i, long frame, gv_err *err)
{
    nes *m = b->m[i];
    nes_logview lv = nes_log_view(m);
    uint8_t *rgb = b->vcheck;
    const uint8_t *nat = m->fb;
    nes_host_video(&lv, 1, b->vls, &rgb, b->cart->chr, m->rgb32, 1);
    if (!memcmp(rgb, nat, NES_RGB_BYTES))
        return 0;
    for (int p = 0; p < NES_W * NES_H; p++)
        if (memcmp(rgb + 3 * p, nat + 3 * p, 3)) {
            gv_fail(err, GV_ERR_WRONG, "frame %ld: the log renderer differs from the native one at line %d, x %d "
                    "(%02x%02x%02x vs %02x%02x%02x; %u events in the frame)", frame, p / NES_W, p % NES_W,
                    rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2], nat[3 * p], nat[3 * p + 1], nat[3 * p + 2], lv.h->nev);
            break;
        }
    return -1;
}

/* Waits for the device slot in flight and hashes its frames and samples. */
static gv_status finish_device(nes_batch *b, gv_err *err)
{
    if (b->inflight < 0)
        return GV_OK;
    int slot = b->inflight;
    b->inflight = -1;
    const uint8_t *rgb;
    const uint64_t *pieces;
    gv_status s = nes_gpu_wait(b->gpu, slot, &rgb, &pieces, err);
    if (s != GV_OK)
        return s;
#pragma omp parallel for schedule(static) num_threads(b->ithreads)
    for (int i = 0; i < b->n; i++) {
        if (b->o.video == NES_R_DEVICE)
            take_video(b, i, rgb + (size_t)i * NES_RGB_BYTES);
        if (b->o.audio == NES_R_DEVICE) {
            const nes_loghead *h = (const nes_loghead *)(b->stage[slot] + b->off[slot][i]);
            finish_pieces(b, i, h, pieces + (size_t)i * NES_MAX_PIECES);
        }
    }
    return GV_OK;
}

/* Packs every instance's log into the free slot and starts the device on it. */
static gv_status submit_device(nes_batch *b, gv_err *err)
{
    int slot = (int)(b->frames_run & 1);
    size_t total = 0;
    for (int i = 0; i < b->n; i++) {
        b->off[slot][i] = (uint32_t)total;
        total += nes_log_packed_size(b->lv[i].h);
        if (total > 0xFFFFFFF0u)
            return gv_fail(err, GV_ERR_ENV, "the frame logs of %d instances exceed 4 GiB", b->n);
    }
    gv_status s = nes_gpu_stage(b->gpu, slot, total, &b->stage[slot], err);
    if (s != GV_OK)
        return s;
#pragma omp parallel for schedule(static) num_threads(b->ithreads)
    for (int i = 0; i < b->n; i++)
        nes_log_pack(&b->lv[i], b->stage[slot] + b->off[slot][i]);
    s = finish_device(b, err); /* the previous frame, which overlapped this one's emulation */
    if (s != GV_OK)
        return s;
    s = nes_gpu_submit(b->gpu, slot, b->n, b->off[slot], total, b->o.video == NES_R_DEVICE,
                       b->o.audio == NES_R_DEVICE, err);
    if (s == GV_OK)
        b->inflight = slot;
    return s;
}

static gv_status run_one_frame(nes_batch *b, gv_err *err)
{
    const nes_batch_opts *o = &b->o;
    int bad = -1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->ithreads)
    for (int i = 0; i < b->n; i++) {
        nes *m = b->m[i];
        nes_run_frame(m);
        b->lv[i] = nes_log_view(m);
        if (o->video == NES_R_NATIVE)
            take_video(b, i, m->fb);
        if (o->audio == NES_R_NATIVE)
            take_audio(b, i, m->abuf, m->abuf_n);
        if (o->audio != NES_R_NATIVE) {
            uint64_t n0;
            uint32_t np;
            nes_log_pieces(m->lh, &n0, &np);
            if (np > NES_MAX_PIECES) {
#pragma omp critical
                bad = i;
            }
        }
    }
    if (bad >= 0)
        return gv_fail(err, GV_ERR_WRONG, "instance %d: a frame of %u cycles has more than %d audio pieces",
                       bad, b->m[bad]->lh->a_len, NES_MAX_PIECES);
    if (o->verify && o->video == NES_R_NATIVE) {
        for (int i = 0; i < b->n; i++)
            if (verify_frame(b, i, b->frames_run, err))
                return GV_ERR_WRONG;
    }
    if (o->video == NES_R_HOST) {
        nes_host_video(b->lv, b->n, b->ls, b->rgb, b->cart->chr, b->m[0]->rgb32, b->threads);
#pragma omp parallel for schedule(static) num_threads(b->ithreads)
        for (int i = 0; i < b->n; i++)
            take_video(b, i, b->rgb[i]);
    }
    if (o->audio == NES_R_HOST) {
        nes_host_audio(b->m[0]->tab, b->lv, b->n, b->pieces, b->threads);
#pragma omp parallel for schedule(static) num_threads(b->ithreads)
        for (int i = 0; i < b->n; i++)
            finish_pieces(b, i, b->lv[i].h, b->pieces + (size_t)i * NES_MAX_PIECES);
    }
    gv_status s = GV_OK;
    if (o->video == NES_R_DEVICE || o->audio == NES_R_DEVICE)
        s = submit_device(b, err);
    b->frames_run++;
    return s;
}

gv_status nes_batch_run(nes_batch *b, int frames, gv_err *err)
{
    for (int f = 0; f < frames; f++) {
        gv_status s = run_one_frame(b, err);
        if (s != GV_OK)
            return s;
    }
    return finish_device(b, err);
}
