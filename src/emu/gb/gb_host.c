/* gb_host.c: the host video renderer over packed frame logs (gb_render_packed, the same
 * code the device runs) and the packing of frame logs for the device. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "emu/gb/gb_host.h"

gv_status gb_render_host(gb_vstate *st, const uint8_t *packed, uint8_t *fb, int par_lines, gv_err *err)
{
    const gb_packed_hdr *h = (const gb_packed_hdr *)packed;
    if (h->snapshot)
        st->valid = 1;
    if (!st->valid)
        return gv_fail(err, GV_ERR_INTERNAL, "internal error: a frame log without a snapshot given to a fresh renderer");
    if (par_lines) {
#pragma omp parallel
        gb_render_packed(packed, st->vram, st->pal, fb, omp_get_thread_num(), omp_get_num_threads());
    } else {
        gb_render_packed(packed, st->vram, st->pal, fb, 0, 1);
    }
    return GV_OK;
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

size_t gb_log_packed_size(const gb_frame_log *log)
{
    size_t n = align8(sizeof(gb_packed_hdr)) + sizeof log->line;
    if (log->snapshot)
        n += GB_VRAM_BYTES + GB_PAL_BYTES;
    n = align8(n) + align8((size_t)log->nmem * sizeof(gb_memw));
    return n + align8((size_t)log->nreg * sizeof(gb_regw));
}

void gb_log_pack(const gb_frame_log *log, uint8_t *dst)
{
    gb_packed_hdr h;
    memset(&h, 0, sizeof h);
    h.cgb = log->cgb;
    h.snapshot = log->snapshot;
    h.nmem = log->nmem;
    h.nreg = log->nreg;
    size_t o = align8(sizeof h);
    h.off_line = (uint32_t)o;
    memcpy(dst + o, log->line, sizeof log->line);
    o += sizeof log->line;
    h.off_snap = (uint32_t)o;
    if (log->snapshot) {
        memcpy(dst + o, log->vram, GB_VRAM_BYTES);
        memcpy(dst + o + GB_VRAM_BYTES, log->pal, GB_PAL_BYTES);
        o += GB_VRAM_BYTES + GB_PAL_BYTES;
    }
    o = align8(o);
    h.off_mem = (uint32_t)o;
    if (log->nmem)
        memcpy(dst + o, log->mem, (size_t)log->nmem * sizeof(gb_memw));
    o += align8((size_t)log->nmem * sizeof(gb_memw));
    h.off_reg = (uint32_t)o;
    if (log->nreg)
        memcpy(dst + o, log->reg, (size_t)log->nreg * sizeof(gb_regw));
    o += align8((size_t)log->nreg * sizeof(gb_regw));
    h.bytes = (uint32_t)o;
    memcpy(dst, &h, sizeof h);
}

size_t gb_alog_packed_size(const gb_audio_log *al)
{
    return sizeof(gb_apacked_hdr) + (size_t)al->nkeys * sizeof(gb_apu_key);
}

void gb_alog_pack(const gb_audio_log *al, uint8_t *dst)
{
    gb_apacked_hdr h = {al->k0, al->n, al->nkeys};
    memcpy(dst, &h, sizeof h);
    memcpy(dst + sizeof h, al->keys, (size_t)al->nkeys * sizeof(gb_apu_key));
}

/* ---- PNG ------------------------------------------------------------------------------ */
