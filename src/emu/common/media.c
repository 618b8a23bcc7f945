/* media.c: PNG through libpng's memory callbacks, WAV by hand (RIFF, fmt, data chunks,
 * little-endian), both written atomically. */
#include "emu/common/media.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    size_t n, cap;
} membuf;

static void mem_put(png_structp png, png_bytep data, png_size_t len)
{
    membuf *b = png_get_io_ptr(png);
    b->p = gv_grow(b->p, &b->cap, b->n + len, 4096);
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void mem_flush(png_structp png)
{
    (void)png;
}

gv_status gv_png_write_rgb(const char *path, const uint8_t *rgb, int w, int h, gv_err *err)
{
    membuf b = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return gv_fail(err, GV_ERR_ENV, "cannot write '%s': libpng could not start", path);
    }
    png_bytep *rows = gv_xmalloc((size_t)h * sizeof *rows);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(b.p);
        return gv_fail(err, GV_ERR_ENV, "cannot write '%s': libpng failed", path);
    }
    png_set_write_fn(png, &b, mem_put, mem_flush);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (int y = 0; y < h; y++)
        rows[y] = (png_bytep)(rgb + (size_t)y * w * 3);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    gv_status s = gv_write_file_atomic(path, b.p, b.n, err);
    free(b.p);
    return s;
}

gv_status gv_png_read_rgb(const char *path, uint8_t **rgb, int *w, int *h, gv_err *err)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    *rgb = NULL;
    if (!png_image_begin_read_from_file(&img, path))
        return gv_fail(err, GV_ERR_INPUT, "cannot read PNG '%s': %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    size_t n = PNG_IMAGE_SIZE(img);
    uint8_t *buf = malloc(n);
    if (!buf) {
        png_image_free(&img);
        return gv_fail(err, GV_ERR_ENV, "out of memory reading '%s'", path);
    }
    if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        return gv_fail(err, GV_ERR_INPUT, "cannot read PNG '%s': %s", path, img.message);
    }
    *rgb = buf;
    *w = (int)img.width;
    *h = (int)img.height;
    return GV_OK;
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
    return get16(p) | get16(p + 2) << 16;
}

gv_status gv_wav_write_s16(const char *path, const int16_t *s, size_t n, int rate, int channels, gv_err *err)
{
    size_t data = n * (size_t)channels * 2;
    if (data > 0xFFFFFFF0u - 44)
        return gv_fail(err, GV_ERR_INPUT, "cannot write '%s': %zu samples do not fit a WAV file", path, n);
    uint8_t *b = malloc(44 + data);
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory writing '%s'", path);
    memcpy(b, "RIFF", 4);
    put32(b + 4, (uint32_t)(36 + data));
    memcpy(b + 8, "WAVEfmt ", 8);
    put32(b + 16, 16);
    put16(b + 20, 1); /* PCM */
    put16(b + 22, (uint32_t)channels);
    put32(b + 24, (uint32_t)rate);
    put32(b + 28, (uint32_t)(rate * channels * 2));
    put16(b + 32, (uint32_t)(channels * 2));
    put16(b + 34, 16);
    memcpy(b + 36, "data", 4);
    put32(b + 40, (uint32_t)data);
    for (size_t i = 0; i < n * (size_t)channels; i++)
        put16(b + 44 + 2 * i, (uint16_t)s[i]);
    gv_status st = gv_write_file_atomic(path, b, 44 + data, err);
    free(b);
    return st;
}

gv_status gv_wav_read_s16(const char *path, int16_t **s, size_t *n, int *rate, int *channels, gv_err *err)
{
    uint8_t *d;
    size_t len;
    *s = NULL;
    gv_status st = gv_read_file(path, 0, &d, &len, err);
    if (st != GV_OK)
        return st;
    if (len < 12 || memcmp(d, "RIFF", 4) || memcmp(d + 8, "WAVE", 4)) {
        free(d);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is not a WAV file", path);
    }
    int ch = 0, bits = 0;
    uint32_t r = 0;
    for (size_t o = 12; o + 8 <= len;) {
        uint32_t sz = get32(d + o + 4);
        if (sz > len - o - 8)
            break;
        if (!memcmp(d + o, "fmt ", 4) && sz >= 16) {
            if (get16(d + o + 8) != 1)
                break;
            ch = (int)get16(d + o + 10);
            r = get32(d + o + 12);
            bits = (int)get16(d + o + 22);
        } else if (!memcmp(d + o, "data", 4) && ch > 0 && bits == 16) {
            size_t frames = sz / (2u * (uint32_t)ch);
            int16_t *out = malloc(frames * (size_t)ch * 2 + 2);
            if (!out) {
                free(d);
                return gv_fail(err, GV_ERR_ENV, "out of memory reading '%s'", path);
            }
            for (size_t i = 0; i < frames * (size_t)ch; i++)
                out[i] = (int16_t)get16(d + o + 8 + 2 * i);
            free(d);
            *s = out;
            *n = frames;
            *rate = (int)r;
            *channels = ch;
            return GV_OK;
        }
        o += 8 + sz + (sz & 1);
    }
    free(d);
    return gv_fail(err, GV_ERR_INPUT, "'%s': no 16-bit PCM data chunk", path);
}

void gv_sbuf_append(gv_sbuf *b, const int16_t *s, size_t n)
{
    b->s = gv_grow(b->s, &b->cap, b->n + n, 65536);
    memcpy(b->s + b->n, s, n * sizeof *s);
    b->n += n;
}

void gv_sbuf_free(gv_sbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}
