/* snes_msu.h: the MSU-1, the cartridge chip of streamed data and audio (docs/SNES.md, MSU-1):
 * its media (the data file NAME.msu and the audio tracks NAME-N.pcm beside the ROM NAME.sfc,
 * read when the cartridge loads; a cartridge has an MSU-1 exactly when NAME.msu exists), its
 * registers at $2000-$2007 of banks $00-$3F/$80-$BF, and its audio: 44.1 kHz 16-bit stereo
 * tracks resampled to the DSP's 32 kHz by an exact integer rule (snes_msu_mix) and added to
 * the DSP's samples before the 48 kHz resampler, so every audio path gives the same bytes.
 *
 * Ownership: the media is read-only once loaded and belongs to the cartridge (shared by its
 * machines); the registers and playback position (snes_msu_regs) are plain data in the
 * machine's state. */
#ifndef GV_EMU_SNES_SNES_MSU_H
#define GV_EMU_SNES_SNES_MSU_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/snes/snes.h"

enum {
    SNES_MSU_TRACKS = 65536,   /* track numbers $0000-$FFFF ($2004/$2005) */
    SNES_MSU_REVISION = 2,     /* status bits 2-0: revision 2 has the resume bit */
    SNES_MSU_IN_RATE = 44100,  /* the tracks' rate */
    SNES_MSU_OUT_RATE = 32000, /* the DSP's rate they are resampled to */
};

typedef struct {
    uint8_t *file;             /* the whole file: the 8-byte header, then n frames of
                                * 16-bit little-endian L, R; NULL: no such track */
    uint32_t n;                /* frames */
    uint32_t loop;             /* the header's loop point, in frames (at most n) */
} snes_msu_track;

typedef struct {
    uint8_t *data;             /* the data file (NAME.msu), data_len bytes */
    size_t data_len;
    snes_msu_track *track;     /* SNES_MSU_TRACKS entries */
    uint32_t ntracks;          /* tracks present */
} snes_msu_media;

/* The registers and the playback position (saved with the machine). */
typedef struct {
    uint32_t seek_latch;       /* $2000-$2003 as written; the seek happens on the $2003 write */
    uint32_t offset;           /* the data port's read offset ($2001) */
    uint16_t track;            /* $2004/$2005: the track selected */
    uint8_t track_lo;          /* $2004 until $2005 is written */
    uint8_t volume;            /* $2006: 0-255, linear */
    uint8_t playing, repeat, missing, resume_valid;
    uint32_t pos;              /* the current 44.1 kHz frame of the track */
    uint32_t frac;             /* phase between pos and the next frame, 0-319 (of 320) */
    uint16_t resume_track;     /* the track and position that $2007 bit 2 kept */
    uint16_t pad_;
    uint32_t resume_pos;
} snes_msu_regs;

/* Loads the media of the ROM at rom_path (NAME.ext -> NAME.msu, NAME-0.pcm ... NAME-65535.pcm).
 * No NAME.msu: GV_OK with *out NULL (no MSU-1). A track that is not an MSU-1 audio file
 * ("MSU1", a 32-bit loop point, whole 4-byte frames, the loop point within the track) is
 * GV_ERR_INPUT with one line naming the file. */
gv_status snes_msu_media_load(const char *rom_path, snes_msu_media **out, gv_err *err);
void snes_msu_media_free(snes_msu_media *md);
/* The cartridge's MSU-1 media (loaded by snes_cart_load from the ROM's file name), or NULL. */
const snes_msu_media *snes_cart_msu(const snes_cart *c);

void snes_msu_power(snes_msu_regs *r);
/* addr: $2000-$2007. Reads have the side effects the chip has ($2001 moves the offset). */
uint8_t snes_msu_read(snes_msu_regs *r, const snes_msu_media *md, uint16_t addr);
void snes_msu_write(snes_msu_regs *r, const snes_msu_media *md, uint16_t addr, uint8_t v);
/* Adds the track's audio to n 32 kHz stereo samples (interleaved) and moves the playback on.
 * For each output sample while playing: a = frame pos, b = the frame after it (pos + 1, the
 * loop point at the end with repeat, silence at the end without); the sample is
 * (a * (320 - frac) + b * frac) / 320, times volume / 255 (C division, toward zero), added
 * to the DSP's and clamped to 16 bits; then frac += 441 and each time it reaches 320 the
 * position steps to the next frame (441/320 = 44100/32000). Reaching the end without
 * repeat stops playback. */
void snes_msu_mix(snes_msu_regs *r, const snes_msu_media *md, int16_t *io, size_t n);
/* NULL when r fits md (a loaded save state), else what is impossible. */
const char *snes_msu_check(const snes_msu_regs *r, const snes_msu_media *md);

#endif
