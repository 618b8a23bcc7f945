/* media.h: image and sound files for the emulators: 8-bit RGB PNG (libpng) and 16-bit PCM
 * WAV, encoded in memory and written with gv_write_file_atomic, and read back (for tests and
 * tools). Shared by the NES and Game Boy commands. */
#ifndef GV_EMU_COMMON_MEDIA_H
#define GV_EMU_COMMON_MEDIA_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

/* Writes w x h RGB pixels (3 bytes each, rows top to bottom) as a PNG file. */
gv_status gv_png_write_rgb(const char *path, const uint8_t *rgb, int w, int h, gv_err *err);
/* Reads an 8-bit RGB or RGBA PNG into a malloc'd RGB buffer (alpha dropped). */
gv_status gv_png_read_rgb(const char *path, uint8_t **rgb, int *w, int *h, gv_err *err);

/* Writes n frames of interleaved signed 16-bit samples (channels per frame) as a WAV file. */
gv_status gv_wav_write_s16(const char *path, const int16_t *s, size_t n, int rate, int channels, gv_err *err);
/* Reads a 16-bit PCM WAV: malloc'd samples (interleaved), frame count, rate, channels. */
gv_status gv_wav_read_s16(const char *path, int16_t **s, size_t *n, int *rate, int *channels, gv_err *err);

/* A growable sample buffer (for streams produced frame by frame). */
typedef struct {
    int16_t *s;
    size_t n, cap;
} gv_sbuf;
void gv_sbuf_append(gv_sbuf *b, const int16_t *s, size_t n);
void gv_sbuf_free(gv_sbuf *b);

#endif
