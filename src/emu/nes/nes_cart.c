/* nes_cart.c: iNES and NES 2.0 ROM images: the header's fields (NES 2.0: submapper, sizes
 * in both notations, volatile and battery-backed PRG/CHR RAM, timing, miscellaneous ROMs;
 * iNES 1.0: the wiki's fallbacks), the board that runs the cartridge and its limits.
 * Every problem is a one-line GV_ERR_INPUT naming the file; nothing is trusted until the
 * sizes have been checked against the file's length. */
#include "emu/nes/nes_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

#define PRG_MAX (4u << 20)
#define CHR_MAX (2u << 20)
#define FILE_MAX (16u << 20)
#define NES_PRG_RAM_MAX (64u << 10)

/* NES 2.0 ROM size from the LSB byte and the 4-bit MSB: plain units, or the exponent-
 * multiplier form 2^E * (2M + 1) when the MSB nibble is $F. Returns 0 on overflow. */
static uint64_t nes2_rom_size(int lsb, int msb, uint32_t unit)
{
    if (msb != 0xF)
        return (uint64_t)((msb << 8) | lsb) * unit;
    int e = lsb >> 2, mm = lsb & 3;
    if (e > 40)
        return 0;
    return ((uint64_t)1 << e) * (uint64_t)(mm * 2 + 1);
}

static uint32_t nes2_ram_size(int shift)
{
    return shift ? 64u << shift : 0;
}

gv_status nes_cart_parse(const uint8_t *d, size_t len, const char *name, nes_cart *out, gv_err *err)
{
    memset(out, 0, sizeof *out);
    if (len < 16)
        return gv_fail(err, GV_ERR_INPUT, "%s: truncated: %zu bytes, an iNES header needs 16", name, len);
    if (memcmp(d, "NES\x1A", 4) != 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: not an iNES ROM (the file does not start with 'NES\\x1A')", name);
    int nes2 = (d[7] & 0x0C) == 0x08;
    /* Old dumps carry text in bytes 7-15 ("DiskDude!"): then byte 7 means nothing. */
    int archaic = !nes2 && (d[12] || d[13] || d[14] || d[15]);
    if (!nes2 && !archaic && (d[7] & 0x0C) == 0x04)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: byte 7 has the reserved format bits 01", name);
    int console = archaic ? 0 : d[7] & 3;
    if (console != 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: unsupported console type %d in the header (only the NES/Famicom is emulated)", name, console);
    int mapper = d[6] >> 4, sub = 0, battery = (d[6] & 2) != 0, misc = 0;
    uint64_t prg, chr;
    uint32_t prg_ram, prg_nvram = 0, chr_ram, chr_nvram = 0;
    if (nes2) {
        mapper |= (d[7] & 0xF0) | ((d[8] & 0x0F) << 8);
        sub = d[8] >> 4;
        prg = nes2_rom_size(d[4], d[9] & 0x0F, 16384);
        chr = nes2_rom_size(d[5], d[9] >> 4, 8192);
        /* bytes 10-11: volatile and battery-backed sizes, each 64 << n (0: none) */
        prg_ram = nes2_ram_size(d[10] & 0x0F);
        prg_nvram = nes2_ram_size(d[10] >> 4);
        chr_ram = nes2_ram_size(d[11] & 0x0F);
        chr_nvram = nes2_ram_size(d[11] >> 4);
        out->timing = d[12] & 3;
        misc = d[14] & 3;
        /* a battery with no NVRAM size given: the PRG-RAM is what it keeps, as in iNES */
        if (battery && !prg_nvram && !chr_nvram) {
            prg_nvram = prg_ram;
            prg_ram = 0;
        }
    } else {
        if (!archaic)
            mapper |= d[7] & 0xF0;
        prg = (uint64_t)d[4] * 16384;
        chr = (uint64_t)d[5] * 8192;
        /* iNES 1.0 (the NESdev wiki's "iNES"): byte 8 is the PRG-RAM size in 8 KiB units, 0
         * meaning 8 KiB for compatibility; with the battery bit all of it is battery-backed;
         * no CHR-ROM means 8 KiB of CHR-RAM. The TV system: byte 9 bit 0 (1: PAL; its other
         * bits are reserved, zero), or the unofficial byte 10 bits 0-1 (2: PAL, 1 or 3: both);
         * few images set either, and a byte with its unused bits set is taken for padding or
         * a dumper's text (the timing stays NTSC). */
        prg_ram = (archaic || !d[8] ? 1u : d[8]) * 8192u;
        if (battery) {
            prg_nvram = prg_ram;
            prg_ram = 0;
        }
        chr_ram = chr ? 0 : 8192;
        if (!archaic && d[9] == 1)
            out->timing = NES_TIMING_PAL;
        else if (!archaic && !d[9] && !(d[10] & 0xCC) && (d[10] & 3))
            out->timing = (d[10] & 3) == 2 ? NES_TIMING_PAL : NES_TIMING_MULTI;
    }
    if (prg == 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: no PRG-ROM (size 0)", name);
    if (prg > PRG_MAX || prg % 8192)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: PRG-ROM size %llu is not a multiple of 8 KiB up to 4 MiB",
                       name, (unsigned long long)prg);
    if (chr > CHR_MAX || chr % 1024)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: CHR-ROM size %llu is not a multiple of 1 KiB up to 2 MiB",
                       name, (unsigned long long)chr);
    out->prg_size = (uint32_t)prg;
    out->chr_size = (uint32_t)chr;
    out->mapper = mapper;
    out->submapper = sub;
    out->nes2 = nes2;
    out->mirroring = (d[6] & 8) ? NES_MIRROR_4 : (d[6] & 1) ? NES_MIRROR_V : NES_MIRROR_H;
    const nes_board *b = nes_board_find(out);
    if (!b) { /* one line naming the number and, where known, the board */
        const char *known = nes_mapper_name(mapper);
        char what[96] = "";
        if (known)
            snprintf(what, sizeof what, " (%s)", known);
        if (known && nes2 && sub && nes_board_find(&(nes_cart){.mapper = mapper, .prg_size = out->prg_size}))
            return gv_fail(err, GV_ERR_INPUT, "%s: unsupported submapper %d of mapper %d%s (docs/NES.md lists the supported ones)",
                           name, sub, mapper, what);
        return gv_fail(err, GV_ERR_INPUT, "%s: unsupported mapper %d%s (docs/NES.md lists the supported boards)", name,
                       mapper, what);
    }
    out->prg_ram_size = prg_ram + prg_nvram;
    out->prg_nvram_size = prg_nvram;
    out->chr_ram_size = chr_ram + chr_nvram;
    out->chr_nvram_size = chr_nvram;
    if (!nes2 && b->ines)
        b->ines(out); /* what the board implies beyond an iNES 1.0 header */
    out->battery = out->prg_nvram_size || out->chr_nvram_size;
    if (out->chr_size == 0 && out->chr_ram_size == 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: neither CHR-ROM nor CHR-RAM", name);
    if (out->chr_size && out->chr_ram_size && !b->chr_both)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: both CHR-ROM and CHR-RAM (%s has one or the other)", name, b->name);
    if (out->chr_ram_size > NES_CHR_RAM_MAX || out->chr_ram_size % 1024)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: CHR-RAM size %u (1 KiB multiples up to 32 KiB are supported)",
                       name, out->chr_ram_size);
    if (out->prg_ram_size > NES_PRG_RAM_MAX)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: PRG-RAM size %u (up to 64 KiB is supported)", name,
                       out->prg_ram_size);
    const char *why = b->check ? b->check(out) : NULL;
    if (why)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: %s (header: PRG-ROM %u KiB, CHR-ROM %u KiB, PRG-RAM %u bytes)",
                       name, why, out->prg_size / 1024, out->chr_size / 1024, out->prg_ram_size);
    size_t trainer = (d[6] & 4) ? 512 : 0;
    uint64_t need = 16 + trainer + prg + chr;
    if (len < need)
        return gv_fail(err, GV_ERR_INPUT, "%s: truncated: the header describes %llu bytes, the file has %zu",
                       name, (unsigned long long)need, len);
    /* a board that can disable its CHR-ROM reads a page of $FF then: a copy of the CHR-ROM
     * after the file's bytes, that page after it */
    size_t pad = b->chr_off && chr ? (size_t)chr + NES_CHR_PAD : 0;
    out->data = malloc(len + pad);
    if (!out->data)
        return gv_fail(err, GV_ERR_ENV, "out of memory (%zu bytes)", len + pad);
    memcpy(out->data, d, len);
    out->size = len;
    out->prg = out->data + 16 + trainer;
    out->chr = chr ? out->prg + prg : NULL;
    if (pad) {
        memcpy(out->data + len, out->chr, chr);
        memset(out->data + len + chr, 0xFF, NES_CHR_PAD);
        out->chr = out->data + len;
        out->chr_pad = NES_CHR_PAD;
    }
    /* NES 2.0 byte 14: miscellaneous ROMs (their layout is the board's) fill the rest */
    out->misc_roms = misc;
    if (misc && len > need) {
        out->misc = out->data + need;
        out->misc_size = (uint32_t)(len - need);
    }
    out->hash = gv_hash64(d, len);
    return GV_OK;
}

gv_status nes_cart_load(const char *path, nes_cart *out, gv_err *err)
{
    uint8_t *data;
    size_t len;
    gv_status s = gv_read_file(path, FILE_MAX, &data, &len, err);
    if (s != GV_OK)
        return s;
    s = nes_cart_parse(data, len, path, out, err);
    free(data);
    return s;
}

void nes_cart_free(nes_cart *c)
{
    free(c->data);
    memset(c, 0, sizeof *c);
}
