/* snes_cart.c: SNES cartridges, loaded as the console sees them. The console reads no
 * header: the cartridge board wires the ROM into the address space and the CPU starts at
 * the reset vector. So the layout (LoROM, HiROM, ExLoROM, ExHiROM) is chosen by scoring the
 * candidate headers at $7FC0, $FFC0, $407FC0 and $40FFC0 (map mode byte, reset vector and
 * the instruction it points at, checksum pair, plausible fields); a checksum that does not
 * match or a ROM size code that does not fit the file is one warning, not a refusal. A
 * 512-byte copier header (image size = 512 mod 1024) is dropped. The ROM is kept as the
 * cartridge bus sees it: sizes that are not a power of two mirrored up to one (the part
 * above the largest power of two p repeated over the next p bytes, recursively).
 * Cartridges with a coprocessor (chipset byte $x3-$x6: DSP-n, SA-1, S-DD1, ...) are refused
 * by their chip type, except the Super FX (snes_gsu.h): chipset $13-$16 or $1A in a LoROM
 * header loads with chip SNES_CHIP_GSU and its Game Pak RAM size, and the SA-1 (snes_sa1.h):
 * map mode $23 with chipset $33-$35 loads with chip SNES_CHIP_SA1 and its BW-RAM size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/snes/snes.h"
#include "emu/snes/snes_msu.h"

struct snes_cart {
    snes_cart_info info;
    uint8_t *bus;               /* bus_size bytes: the ROM, then its mirrors */
    size_t bus_size;            /* the power of two at or above the ROM's size */
    char warning[256];          /* "" or one line: header fields the console ignores */
    snes_msu_media *msu;        /* the MSU-1's files beside the ROM, or NULL (snes_msu.h) */
};

#define MIN_ROM 0x8000u             /* 32 KiB: one LoROM bank */
#define MAX_ROM (8u << 20)          /* 8 MiB: the largest ExHiROM image */

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* The byte at bus address `off` (any value) of a ROM of len bytes: a power of two repeats;
 * otherwise, with p the largest power of two below len, the first p bytes, then the rest
 * as a ROM of its own mirrored over the next p bytes. */
static size_t mirror(size_t off, size_t len)
{
    size_t base = 0;
    for (;;) {
        size_t b = pow2_at_least(len);
        off %= b;
        if (b == len)
            return base + off;
        size_t p = b / 2;
        if (off < p)
            return base + off;
        off -= p, base += p, len -= p;
    }
}

static uint32_t plain_sum(const uint8_t *r, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += r[i];
    return s;
}

/* Writes the bus image of a len-byte ROM (pow2_at_least(len) bytes) to dst, block by block:
 * the first p bytes, then the rest's own bus image repeated over the next p. */
static void bus_fill(uint8_t *dst, const uint8_t *rom, size_t len)
{
    size_t b = pow2_at_least(len);
    if (b == len) {
        memcpy(dst, rom, len);
        return;
    }
    size_t p = b / 2, rb = pow2_at_least(len - p);
    memcpy(dst, rom, p);
    bus_fill(dst + p, rom + p, len - p);
    for (size_t at = p + rb; at < b; at += rb)
        memcpy(dst + at, dst + p, rb);
}

/* The sum of the bus image (pow2_at_least(len) bytes) of a len-byte ROM. */
static uint32_t bus_sum(const uint8_t *rom, size_t len)
{
    size_t b = pow2_at_least(len);
    if (b == len)
        return plain_sum(rom, len);
    size_t p = b / 2;
    return plain_sum(rom, p) + (uint32_t)(p / pow2_at_least(len - p)) * bus_sum(rom + p, len - p);
}

uint16_t snes_rom_checksum(const uint8_t *rom, size_t len) { return (uint16_t)bus_sum(rom, len); }

void snes_rom_sign(uint8_t *rom, size_t len, size_t at)
{
    uint8_t *h = rom + at;
    /* any valid complement/checksum pair adds $FF + $FF to the sum: sum with one in place */
    h[0x1C] = 0xFF, h[0x1D] = 0xFF, h[0x1E] = 0, h[0x1F] = 0;
    uint16_t s = snes_rom_checksum(rom, len);
    h[0x1C] = (uint8_t)~s, h[0x1D] = (uint8_t)(~s >> 8), h[0x1E] = (uint8_t)s, h[0x1F] = (uint8_t)(s >> 8);
}

/* The four layouts: where the header lies in the image, and the map mode's low nibbles
 * that name the layout ($x0 LoROM, $x2 LoROM with S-DD1 or ExLoROM, $x3 SA-1; $x1 HiROM,
 * $xA HiROM with SPC7110; $x5 ExHiROM). */
static const struct {
    size_t at;
    const char *name;
    uint16_t modes;             /* bit n: low nibble n names this layout */
} layouts[] = {
    [SNES_MAP_LOROM] = {0x7FC0, "LoROM", 1u << 0 | 1u << 2 | 1u << 3},
    [SNES_MAP_HIROM] = {0xFFC0, "HiROM", 1u << 1 | 1u << 10},
    [SNES_MAP_EXLOROM] = {0x407FC0, "ExLoROM", 1u << 2 | 1u << 0},
    [SNES_MAP_EXHIROM] = {0x40FFC0, "ExHiROM", 1u << 5},
};

const char *snes_map_name(int map) { return map >= 0 && map < 4 ? layouts[map].name : "?"; }

size_t snes_map_offset(int map, uint32_t addr)
{
    uint32_t bank = addr >> 16 & 0xFF, a = addr & 0xFFFF;
    switch (map) {
    case SNES_MAP_HIROM:
        return (size_t)(bank & 0x3F) << 16 | a;
    case SNES_MAP_EXHIROM: /* banks $C0-$FF (and $80-$BF's upper halves) the first 4 MiB */
        return (bank & 0x80 ? 0 : 0x400000u) + ((size_t)(bank & 0x3F) << 16 | a);
    case SNES_MAP_EXLOROM: /* banks $80-$FF the first 4 MiB, $00-$7D the rest */
        return (bank & 0x80 ? 0 : 0x400000u) + ((size_t)(bank & 0x7F) << 15 | (a & 0x7FFF));
    default:
        return (size_t)(bank & 0x7F) << 15 | (a & 0x7FFF);
    }
}

/* First instructions of a reset handler: SEI, CLC, SEC, REP, SEP, XCE, JMP, JML, JSR,
 * JSL, LDA/LDX/LDY #, STZ abs, SEI's usual companions. */
static int plausible_first(uint8_t op)
{
    static const uint8_t ok[] = {0x78, 0x18, 0x38, 0xC2, 0xE2, 0xFB, 0x4C, 0x5C, 0x20, 0x22,
                                 0xA9, 0xA2, 0xA0, 0x9C, 0xD8, 0x58, 0x8D, 0xEA, 0x80, 0x82};
    for (size_t i = 0; i < sizeof ok; i++)
        if (op == ok[i])
            return 1;
    return 0;
}

/* Never the first instruction of a reset handler: BRK, COP, WDM, STP, WAI, SBC long,X
 * (the values of erased or zeroed ROM and of data). */
static int implausible_first(uint8_t op)
{
    return op == 0x00 || op == 0x02 || op == 0x42 || op == 0xDB || op == 0xCB || op == 0xFF;
}

int snes_header_score(const uint8_t *d, size_t len, int map)
{
    size_t at = layouts[map].at;
    if (at + 0x40 > len)
        return -1;
    if ((map == SNES_MAP_EXLOROM || map == SNES_MAP_EXHIROM) && len <= 0x400000)
        return -1; /* the extended layouts exist only beyond 4 MiB */
    const uint8_t *h = d + at;
    int score = 0;
    uint8_t mode = h[0x15];
    if ((mode & 0xE0) == 0x20)
        score += 2;
    if ((mode & 0xE0) == 0x20 && (layouts[map].modes >> (mode & 0x0F) & 1))
        score += 4;
    uint16_t reset = (uint16_t)(h[0x3C] | h[0x3D] << 8);
    if (reset < 0x8000) {
        score -= 4; /* the CPU would start in WRAM or I/O */
    } else {
        score += 2;
        uint8_t op = d[mirror(snes_map_offset(map, reset), len)];
        score += plausible_first(op) ? 2 : implausible_first(op) ? -4 : 0;
    }
    uint16_t cmpl = (uint16_t)(h[0x1C] | h[0x1D] << 8), sum = (uint16_t)(h[0x1E] | h[0x1F] << 8);
    if ((uint16_t)(cmpl ^ sum) == 0xFFFF)
        score += 4;
    score += h[0x17] >= 0x05 && h[0x17] <= 0x0D;            /* ROM size code: 32 KiB - 8 MiB */
    score += h[0x18] <= 0x07;                               /* SRAM size code: up to 128 KiB */
    score += h[0x19] <= 0x14;                               /* region */
    score += (h[0x16] & 0x0F) <= 0x06 && ((h[0x16] >> 4) <= 0x05 || (h[0x16] >> 4) >= 0x0E); /* chipset */
    int printable = 0;
    for (int i = 0; i < 21; i++)
        printable += h[i] >= 0x20 && h[i] < 0x7F;
    score += printable >= 16;
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

/* A score below this is no SNES header: what a header needs at least is the map mode's
 * form ($2x/$3x) and a reset vector into ROM (2 + 2), or a valid checksum pair. */
#define MIN_SCORE 6

int snes_find_header(const uint8_t *d, size_t len, int *score)
{
    int best = -1, bs = -1;
    for (int map = 0; map < 4; map++) {
        int s = snes_header_score(d, len, map);
        if (s > bs) /* ties go to the earlier layout: LoROM, HiROM, ExLoROM, ExHiROM */
            best = map, bs = s;
    }
    if (score)
        *score = bs;
    return bs >= MIN_SCORE ? best : -1;
}

int snes_cart_detect(const uint8_t *data, size_t len)
{
    int copier;
    const uint8_t *d = strip(data, &len, &copier);
    return d && snes_find_header(d, len, NULL) >= 0 ? 2 : 0;
}

/* The coprocessor a chipset byte ($xx3-$xx6 low nibble) names, for the refusal. */
static const char *coprocessor(uint8_t type, uint8_t mode)
{
    if ((mode & 0x0F) == 0x03)
        return "SA-1";
    if ((mode & 0x0F) == 0x0A)
        return "SPC7110";
    switch (type >> 4) {
    case 0x0: return "DSP-n";
    case 0x1: return "Super FX (GSU)";
    case 0x2: return "OBC1";
    case 0x3: return "SA-1";
    case 0x4: return "S-DD1";
    case 0x5: return "S-RTC";
    case 0xE: return "Super Game Boy or Satellaview";
    case 0xF: return "custom (SPC7110, ST01x, CX4)";
    default: return "unknown";
    }
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
            return gv_fail(err, GV_ERR_INPUT, "%s: %zu bytes: larger than 8 MiB, the largest SNES cartridge (ExHiROM)",
                           name, len);
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: %zu bytes: not a whole number of KiB, nor one with a 512-byte copier header (truncated?)", name,
                       len);
    }
    int map = snes_find_header(d, n, NULL);
    if (map < 0)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: no SNES header at $7FC0 (LoROM), $FFC0 (HiROM), $407FC0 or $40FFC0: no map mode $2x/$3x "
                       "with a reset vector into ROM, nor a checksum pair adding up to $FFFF",
                       name);
    snes_cart_info ci;
    memset(&ci, 0, sizeof ci);
    ci.map = map;
    ci.header_at = layouts[map].at;
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
    /* the Super FX: chipset $1x with ROM+GSU ($x3), +RAM ($x4), +RAM+battery ($x5, $x6
     * and GSU-2's $xA) in a LoROM header (fullsnes, GSU cartridge header) */
    int gsu = (ci.type >> 4) == 0x1 && (((ci.type & 0x0F) >= 0x03 && (ci.type & 0x0F) <= 0x06) || (ci.type & 0x0F) == 0x0A) &&
              (ci.map_mode & 0x0F) != 0x03 && map == SNES_MAP_LOROM;
    /* the SA-1: map mode $23 with chipset $33 (ROM+SA-1), $34 (+RAM), $35 (+RAM+battery)
     * in the LoROM header position (fullsnes, SA-1 cartridge header) */
    int sa1 = (ci.map_mode & 0x0F) == 0x03 && ci.type >= 0x33 && ci.type <= 0x35 && map == SNES_MAP_LOROM;
    if (gsu)
        ci.chip = SNES_CHIP_GSU;
    else if (sa1)
        ci.chip = SNES_CHIP_SA1;
    else if ((ci.type & 0x0F) >= 0x03 && (ci.type & 0x0F) <= 0x06)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: cartridge type $%02X: a %s coprocessor cartridge; gpuvet emulates none (it runs ROM, ROM+RAM "
                       "and ROM+RAM+battery cartridges)",
                       name, ci.type, coprocessor(ci.type, ci.map_mode));
    /* What the console never reads, and a cartridge may get wrong: one warning. */
    char w[4][96];
    int nw = 0;
    ci.sum = snes_rom_checksum(d, n);
    uint16_t cmpl = (uint16_t)(h[0x1C] | h[0x1D] << 8);
    if ((uint16_t)(cmpl ^ ci.checksum) != 0xFFFF)
        snprintf(w[nw++], sizeof w[0], "checksum complement $%04X is not the checksum's", cmpl);
    if (ci.sum != ci.checksum)
        snprintf(w[nw++], sizeof w[0], "header checksum $%04X, the ROM sums to $%04X", ci.checksum, ci.sum);
    if (ci.rom_code > 13 || ((size_t)1024 << ci.rom_code) < n)
        snprintf(w[nw++], sizeof w[0], "ROM size code $%02X does not cover the file's %zu KiB", ci.rom_code, n / 1024);
    uint8_t sc = ci.sram_code;
    if (sc > 7) {
        snprintf(w[nw++], sizeof w[0], "SRAM size code $%02X is beyond 128 KiB (128 KiB mapped)", sc);
        sc = 7;
    }
    if ((ci.type & 0x0F) >= 0x01 && sc)
        ci.sram_size = (size_t)1024 << sc;
    ci.has_battery = (ci.type & 0x0F) == 0x02 && ci.sram_size;
    if (gsu) {
        /* Game Pak RAM: the extended header's expansion RAM size ($FFBD, with $FFDA = $33),
         * else the SRAM size byte, else 32 KiB (Star Fox has no extended header); 8 KiB
         * at least (the SNES's $6000-$7FFF window), 128 KiB at most */
        uint8_t ec = h[0x1A] == 0x33 && ci.header_at >= 0x10 ? d[ci.header_at - 0x10 + 0x0D] : 0;
        size_t rs = ec >= 1 && ec <= 7 ? (size_t)1024 << ec : ci.sram_size ? ci.sram_size : 0x8000;
        ci.sram_size = rs < 0x2000 ? 0x2000 : rs;
        ci.has_battery = (ci.type & 0x0F) == 0x05 || (ci.type & 0x0F) == 0x06 || (ci.type & 0x0F) == 0x0A;
    }
    if (sa1) {
        /* BW-RAM: the SRAM size byte, 8 KiB at least (the SNES's $6000-$7FFF window) */
        ci.sram_size = ci.sram_size < 0x2000 ? 0x2000 : ci.sram_size;
        ci.has_battery = ci.type == 0x35;
    }
    ci.hash = gv_hash64(d, n);
    snes_cart *c = calloc(1, sizeof *c);
    size_t bs = pow2_at_least(n);
    if (!c || !(c->bus = malloc(bs))) {
        free(c);
        return gv_fail(err, GV_ERR_ENV, "%s: out of memory for a %zu KiB ROM", name, n / 1024);
    }
    c->bus_size = bs;
    bus_fill(c->bus, d, n);
    if (nw) {
        int o = snprintf(c->warning, sizeof c->warning, "%s: ", name);
        for (int i = 0; i < nw && o > 0 && (size_t)o < sizeof c->warning; i++)
            o += snprintf(c->warning + o, sizeof c->warning - (size_t)o, "%s%s", i ? "; " : "", w[i]);
        if (o > 0 && (size_t)o < sizeof c->warning)
            snprintf(c->warning + o, sizeof c->warning - (size_t)o, " (header fields the console never reads: loaded as %s)",
                     layouts[map].name);
    }
    c->info = ci;
    gv_status mst = snes_msu_media_load(name, &c->msu, err);
    if (mst != GV_OK) {
        snes_cart_free(c);
        return mst;
    }
    *out = c;
    return GV_OK;
}

const snes_cart_info *snes_cart_get_info(const snes_cart *c) { return &c->info; }
const uint8_t *snes_cart_rom(const snes_cart *c) { return c->bus; }

const uint8_t *snes_cart_bus(const snes_cart *c, size_t *size)
{
    *size = c->bus_size;
    return c->bus;
}

const char *snes_cart_warning(const snes_cart *c) { return c->warning[0] ? c->warning : NULL; }

const snes_msu_media *snes_cart_msu(const snes_cart *c) { return c->msu; }

void snes_cart_free(snes_cart *c)
{
    if (c)
        free(c->bus), snes_msu_media_free(c->msu);
    free(c);
}
