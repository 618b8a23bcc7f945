/* snes_msu.c: the MSU-1 (snes_msu.h): its media files, its registers and its audio mix.
 * The register layout and the track format follow the MSU-1 documentation (byuu's
 * development guide, revision 2 with the resume bit): writes $2000-$2003 the data port's
 * 32-bit seek address (the seek on the $2003 write), $2004/$2005 the track (selected on
 * the $2005 write), $2006 the volume, $2007 the control (bit 0 play, bit 1 repeat, bit 2
 * resume); reads $2000 the status (bit 7 data busy, 6 audio busy, 5 repeating, 4 playing,
 * 3 track missing, 2-0 revision), $2001 the data port, $2002-$2007 "S-MSU1". Nothing here
 * is ever busy: the media are in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/snes/snes_msu.h"

static const char msu_id[6] = {'S', '-', 'M', 'S', 'U', '1'};

void snes_msu_media_free(snes_msu_media *md)
{
    if (!md)
        return;
    if (md->track)
        for (uint32_t i = 0; i < SNES_MSU_TRACKS; i++)
            free(md->track[i].file);
    free(md->track);
    free(md->data);
    free(md);
}

static uint32_t get32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

gv_status snes_msu_media_load(const char *rom_path, snes_msu_media **out, gv_err *err)
{
    *out = NULL;
    size_t len = strlen(rom_path), base = len;
    for (size_t i = len; i > 0; i--) {
        if (rom_path[i - 1] == '/')
            break;
        if (rom_path[i - 1] == '.') {
            base = i - 1;
            break;
        }
    }
    char *p = malloc(base + 16);
    if (!p)
        return gv_fail(err, GV_ERR_ENV, "out of memory for the MSU-1's file names");
    memcpy(p, rom_path, base);
    memcpy(p + base, ".msu", 5);
    uint8_t *data;
    size_t dlen;
    int found;
    gv_status st = gv_read_file_if_exists(p, 0, &data, &dlen, &found, err);
    if (st != GV_OK || !found) {
        free(p);
        return st;
    }
    snes_msu_media *md = calloc(1, sizeof *md);
    if (!md || !(md->track = calloc(SNES_MSU_TRACKS, sizeof *md->track))) {
        free(md), free(data), free(p);
        return gv_fail(err, GV_ERR_ENV, "out of memory for the MSU-1's tracks");
    }
    md->data = data;
    md->data_len = dlen;
    for (uint32_t t = 0; t < SNES_MSU_TRACKS && st == GV_OK; t++) {
        snprintf(p + base, 16, "-%u.pcm", (unsigned)t);
        uint8_t *f;
        size_t n;
        st = gv_read_file_if_exists(p, 0, &f, &n, &found, err);
        if (st != GV_OK || !found)
            continue;
        uint32_t frames = n >= 8 ? (uint32_t)((n - 8) / 4) : 0;
        if (n < 8 || memcmp(f, "MSU1", 4) || (n - 8) % 4 || (n - 8) / 4 > UINT32_MAX || get32(f + 4) > frames) {
            st = gv_fail(err, GV_ERR_INPUT,
                         "%s: not an MSU-1 audio track (\"MSU1\", a loop point within the track, then 16-bit stereo frames)", p);
            free(f);
            break;
        }
        md->track[t].file = f;
        md->track[t].n = frames;
        md->track[t].loop = get32(f + 4);
        md->ntracks++;
    }
    free(p);
    if (st != GV_OK) {
        snes_msu_media_free(md);
        return st;
    }
    *out = md;
    return GV_OK;
}

void snes_msu_power(snes_msu_regs *r)
{
    memset(r, 0, sizeof *r);
}

uint8_t snes_msu_read(snes_msu_regs *r, const snes_msu_media *md, uint16_t addr)
{
    switch (addr & 7) {
    case 0:
        return (uint8_t)((r->repeat ? 0x20 : 0) | (r->playing ? 0x10 : 0) | (r->missing ? 0x08 : 0) | SNES_MSU_REVISION);
    case 1: {
        uint8_t v = r->offset < md->data_len ? md->data[r->offset] : 0;
        r->offset++;
        return v;
    }
    default:
        return (uint8_t)msu_id[(addr & 7) - 2];
    }
}

void snes_msu_write(snes_msu_regs *r, const snes_msu_media *md, uint16_t addr, uint8_t v)
{
    int a = addr & 7;
    if (a < 4) {
        int sh = 8 * a;
        r->seek_latch = (r->seek_latch & ~(0xFFu << sh)) | (uint32_t)v << sh;
        if (a == 3)
            r->offset = r->seek_latch;
    } else if (a == 4) {
        r->track_lo = v;
    } else if (a == 5) {
        r->track = (uint16_t)(r->track_lo | v << 8);
        r->playing = r->repeat = 0;
        r->frac = 0;
        r->missing = md->track[r->track].file == NULL;
        r->pos = 0;
        if (r->resume_valid && r->resume_track == r->track && !r->missing) {
            r->pos = r->resume_pos;
            r->resume_valid = 0;
        }
    } else if (a == 6) {
        r->volume = v;
    } else {
        if (r->missing)
            return;
        if (!(v & 1) && (v & 4) && r->playing) { /* pause: this track resumes here */
            r->resume_valid = 1;
            r->resume_track = r->track;
            r->resume_pos = r->pos;
        }
        r->playing = v & 1;
        r->repeat = (v >> 1) & 1;
    }
}

static inline int32_t sample(const snes_msu_track *t, uint32_t pos, int ch)
{
    if (pos >= t->n)
        return 0;
    const uint8_t *p = t->file + 8 + (size_t)pos * 4 + (size_t)ch * 2;
    return (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

void snes_msu_mix(snes_msu_regs *r, const snes_msu_media *md, int16_t *io, size_t n)
{
    const snes_msu_track *t = &md->track[r->track];
    for (size_t i = 0; i < n && r->playing && t->file; i++) {
        uint32_t next = r->pos + 1 < t->n ? r->pos + 1 : r->repeat ? t->loop : t->n;
        for (int ch = 0; ch < 2; ch++) {
            int32_t a = sample(t, r->pos, ch), b = sample(t, next, ch);
            int32_t v = (a * (int32_t)(320 - r->frac) + b * (int32_t)r->frac) / 320;
            v = v * r->volume / 255 + io[2 * i + ch];
            io[2 * i + ch] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
        }
        r->frac += 441;
        while (r->frac >= 320 && r->playing) {
            r->frac -= 320;
            r->pos = r->pos + 1 < t->n ? r->pos + 1 : r->repeat ? t->loop : t->n;
            if (r->pos >= t->n) { /* the end without repeat (or an empty loop) */
                r->playing = 0;
                r->pos = 0;
                r->frac = 0;
            }
        }
    }
}

const char *snes_msu_check(const snes_msu_regs *r, const snes_msu_media *md)
{
    if (r->playing > 1 || r->repeat > 1 || r->missing > 1 || r->resume_valid > 1 || r->frac >= 320)
        return "MSU-1 flags";
    const snes_msu_track *t = &md->track[r->track];
    if ((r->pos && r->pos >= t->n) || (r->playing && !t->file))
        return "MSU-1 track position";
    if (r->resume_valid && (!md->track[r->resume_track].file || r->resume_pos >= md->track[r->resume_track].n))
        return "MSU-1 resume position";
    return NULL;
}
