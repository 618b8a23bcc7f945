/* snes_cart.c: SNES cartridges. Finds the internal header at $7FC0 (LoROM) or $FFC0
 * (HiROM) of the image, validates it (checksum + complement = $FFFF, a map mode that
 * agrees with where the header lies, a reset vector in $8000-$FFFF, the checksum of the
 * ROM itself, the ROM and SRAM size codes) and keeps a copy of the ROM. A 512-byte copier
 * header (image size = 512 mod 1024) is dropped. Cartridges with a coprocessor (type $03
 * and up: DSP-n, SuperFX, SA-1, ...) are refused: none is emulated. */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/snes/snes.h"

struct snes_cart {
    snes_cart_info info;
    uint8_t *rom;
};

#define MIN_ROM 0x8000u             /* 32 KiB: one LoROM bank */
#define MAX_ROM (4u << 20)          /* 4 MiB: the largest LoROM/HiROM image */

uint16_t snes_rom_checksum(const uint8_t *rom, size_t len)
{
    /* Sizes that are not a power of two: the part above the largest power of two p is
     * repeated until it fills another p bytes, as the cartridge's address decoding does. */
    size_t p = 1;
    while (p * 2 <= len)
        p *= 2;
    uint32_t sum = 0;
    for (size_t i = 0; i < p; i++)
        sum += rom[i];
    size_t rest = len - p;
    if (rest) {
        uint32_t r = 0;
        for (size_t i = p; i < len; i++)
            r += rom[i];
        sum += r * (uint32_t)(p / rest);
    }
    return (uint16_t)sum;
}

void snes_rom_sign(uint8_t *rom, size_t len, size_t at)
{
    uint8_t *h = rom + at;
    /* any valid complement/checksum pair adds $FF + $FF to the sum: sum with one in place */
    h[0x1C] = 0xFF, h[0x1D] = 0xFF, h[0x1E] = 0, h[0x1F] = 0;
    uint16_t s = snes_rom_checksum(rom, len);
    h[0x1C] = (uint8_t)~s, h[0x1D] = (uint8_t)(~s >> 8), h[0x1E] = (uint8_t)s, h[0x1F] = (uint8_t)(s >> 8);
}

/* How well the header at `at` fits the image: -1 when it is not a valid header there. */
static int header_score(const uint8_t *d, size_t len, size_t at, int map)
{
    if (at + 0x40 > len)
        return -1;
    const uint8_t *h = d + at;
    uint16_t cmpl = (uint16_t)(h[0x1C] | h[0x1D] << 8), sum = (uint16_t)(h[0x1E] | h[0x1F] << 8);
    uint8_t mode = h[0x15];
    uint16_t reset = (uint16_t)(h[0x3C] | h[0x3D] << 8);
    if ((uint16_t)(cmpl ^ sum) != 0xFFFF || (mode & 0xE0) != 0x20 || (mode & 0x0F) != (map == SNES_MAP_HIROM) ||
        reset < 0x8000)
        return -1;
    int score = 1;
    for (int i = 0; i < 21; i++)
        score += h[i] >= 0x20 && h[i] < 0x7F;
    return score;
}

/* The image without a copier header, or NULL when its size cannot be a SNES ROM. */
static const uint8_t *strip(const uint8_t *d, size_t *len, int *copier)
{
    *copier = (*len % 1024) == 512;
    if (*copier) {
        d += 512;
        *len -= 512;
    }
    return *len % 1024 == 0 && *len >= MIN_ROM && *len <= MAX_ROM ? d : NULL;
}

/* The header's place (SNES_MAP_*), or -1 when neither candidate is a valid header. */
static int find_header(const uint8_t *d, size_t len)
{
    int lo = header_score(d, len, 0x7FC0, SNES_MAP_LOROM), hi = header_score(d, len, 0xFFC0, SNES_MAP_HIROM);
    if (lo < 0 && hi < 0)
        return -1;
    return hi > lo ? SNES_MAP_HIROM : SNES_MAP_LOROM;
}

int snes_cart_detect(const uint8_t *data, size_t len)
{
    int copier;
    const uint8_t *d = strip(data, &len, &copier);
    return d && find_header(d, len) >= 0 ? 2 : 0;
}

gv_status snes_cart_load(const uint8_t *data, size_t len, const char *name, snes_cart **out, gv_err *err)
{
    *out = NULL;
    if (!name)
        name = "ROM";
    size_t n = len;
    int copier;
    const uint8_t *d = strip(data, &n, &copier);
    if (!d) {
        if (n < MIN_ROM)
            return gv_fail(err, GV_ERR_INPUT, "%s: truncated ROM: %zu bytes, a SNES ROM has at least 32 KiB", name, len);
        if (n > MAX_ROM)
            return gv_fail(err, GV_ERR_INPUT, "%s: %zu bytes: larger than 4 MiB (ExHiROM is not emulated)", name, len);
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: %zu bytes: not a whole number of KiB, nor one with a 512-byte copier header (truncated?)", name,
                       len);
    }
    int map = find_header(d, n);
    if (map < 0)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: no valid SNES header at $7FC0 (LoROM) or $FFC0 (HiROM): checksum and complement must add "
                       "up to $FFFF, with map mode $2x/$3x and a reset vector at $8000-$FFFF",
                       name);
    snes_cart_info ci;
    memset(&ci, 0, sizeof ci);
    ci.map = map;
    ci.header_at = map == SNES_MAP_HIROM ? 0xFFC0 : 0x7FC0;
    ci.copier_header = copier;
    ci.rom_size = n;
    const uint8_t *h = d + ci.header_at;
    int k = 0;
    for (int i = 0; i < 21; i++)
        ci.title[k++] = (char)(h[i] >= 0x20 && h[i] < 0x7F ? h[i] : '?');
    while (k && ci.title[k - 1] == ' ')
        k--;
    ci.title[k] = 0;
    ci.map_mode = h[0x15];
    ci.fast = (h[0x15] & 0x10) != 0;
    ci.type = h[0x16];
    ci.rom_code = h[0x17];
    ci.sram_code = h[0x18];
    ci.region = h[0x19];
    ci.version = h[0x1B];
    ci.checksum = (uint16_t)(h[0x1E] | h[0x1F] << 8);
    if (ci.type > 0x02)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: cartridge type $%02X needs a coprocessor or a chip gpuvet does not emulate (it runs ROM, "
                       "ROM+RAM and ROM+RAM+battery cartridges: types $00-$02)",
                       name, ci.type);
    if (ci.rom_code < 5 || ci.rom_code > 12 || ((size_t)1024 << ci.rom_code) < n)
        return gv_fail(err, GV_ERR_INPUT, "%s: the header's ROM size code $%02X does not fit the file's %zu KiB", name,
                       ci.rom_code, n / 1024);
    if (ci.sram_code > 7)
        return gv_fail(err, GV_ERR_INPUT, "%s: the header's SRAM size code $%02X is beyond the 128 KiB a cartridge maps",
                       name, ci.sram_code);
    if (ci.type >= 0x01 && ci.sram_code)
        ci.sram_size = (size_t)1024 << ci.sram_code;
    ci.has_battery = ci.type == 0x02 && ci.sram_size;
    uint16_t sum = snes_rom_checksum(d, n);
    if (sum != ci.checksum)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: the header's checksum is $%04X but the ROM sums to $%04X (a bad or modified dump)", name,
                       ci.checksum, sum);
    ci.hash = gv_hash64(d, n);
    snes_cart *c = calloc(1, sizeof *c);
    if (!c || !(c->rom = malloc(n))) {
        free(c);
        return gv_fail(err, GV_ERR_ENV, "%s: out of memory for a %zu KiB ROM", name, n / 1024);
    }
    memcpy(c->rom, d, n);
    c->info = ci;
    *out = c;
    return GV_OK;
}

const snes_cart_info *snes_cart_get_info(const snes_cart *c) { return &c->info; }
const uint8_t *snes_cart_rom(const snes_cart *c) { return c->rom; }

void snes_cart_free(snes_cart *c)
{
    if (c)
        free(c->rom);
    free(c);
}
