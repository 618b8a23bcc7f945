/* nes_cart.c: iNES and NES 2.0 ROM images: header validation, sizes, mapper and timing checks.
 * Every problem is a one-line GV_ERR_INPUT naming the file; nothing is trusted until the
 * sizes have been checked against the file's length. */
#include "emu/nes/nes_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

#define PRG_MAX (4u << 20)
#define CHR_MAX (2u << 20)
#define FILE_MAX (16u << 20)

const char *nes_mapper_name(int mapper)
{
    switch (mapper) {
    case 0: return "NROM";
    case 1: return "MMC1";
    case 2: return "UxROM";
    case 3: return "CNROM";
    case 4: return "MMC3";
    case 7: return "AxROM";
    default: return NULL;
    }
}

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
    int mapper = d[6] >> 4, sub = 0;
    uint64_t prg, chr;
    uint32_t chr_ram = 0, prg_ram;
    if (nes2) {
        mapper |= (d[7] & 0xF0) | ((d[8] & 0x0F) << 8);
        sub = d[8] >> 4;
        prg = nes2_rom_size(d[4], d[9] & 0x0F, 16384);
        chr = nes2_rom_size(d[5], d[9] >> 4, 8192);
        prg_ram = nes2_ram_size(d[10] & 0x0F) + nes2_ram_size(d[10] >> 4);
        chr_ram = nes2_ram_size(d[11] & 0x0F) + nes2_ram_size(d[11] >> 4);
        int timing = d[12] & 3;
        if (timing == 1 || timing == 3)
            return gv_fail(err, GV_ERR_INPUT, "%s: the header asks for %s timing; only NTSC is emulated", name,
                           timing == 1 ? "PAL" : "Dendy");
    } else {
        if (!archaic)
            mapper |= d[7] & 0xF0;
        prg = (uint64_t)d[4] * 16384;
        chr = (uint64_t)d[5] * 8192;
        prg_ram = 8192;
    }
    if (prg == 0)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: no PRG-ROM (size 0)", name);
    if (prg > PRG_MAX || prg % 8192)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: PRG-ROM size %llu is not a multiple of 8 KiB up to 4 MiB",
                       name, (unsigned long long)prg);
    if (chr > CHR_MAX || chr % 1024)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: CHR-ROM size %llu is not a multiple of 1 KiB up to 2 MiB",
                       name, (unsigned long long)chr);
    if (!nes_mapper_name(mapper))
        return gv_fail(err, GV_ERR_INPUT, "%s: unsupported mapper %d (supported: 0 NROM, 1 MMC1, 2 UxROM, 3 CNROM, 4 MMC3, 7 AxROM)",
                       name, mapper);
    if (chr == 0 && chr_ram == 0)
        chr_ram = 8192; /* iNES: CHR size 0 means 8 KiB of CHR-RAM */
    if (chr && chr_ram)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: both CHR-ROM and CHR-RAM (not supported on mapper %d)", name, mapper);
    if (chr_ram > NES_CHR_RAM_MAX || (chr_ram && chr_ram % 1024))
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: CHR-RAM size %u (1 KiB multiples up to 32 KiB are supported)", name, chr_ram);
    if (prg_ram > 8192)
        return gv_fail(err, GV_ERR_INPUT, "%s: bad header: PRG-RAM size %u (up to 8 KiB is supported)", name, prg_ram);
    /* Board limits of the supported mappers. */
    switch (mapper) {
    case 0:
        if (prg > 32768 || chr > 8192)
            return gv_fail(err, GV_ERR_INPUT, "%s: bad header: NROM has at most 32 KiB PRG and 8 KiB CHR (header: %llu, %llu)",
                           name, (unsigned long long)prg, (unsigned long long)chr);
        break;
    case 3:
        if (prg > 32768)
            return gv_fail(err, GV_ERR_INPUT, "%s: bad header: CNROM has at most 32 KiB PRG (header: %llu)", name, (unsigned long long)prg);
        break;
    case 1:
        if (prg > 524288 || chr > 131072)
            return gv_fail(err, GV_ERR_INPUT, "%s: bad header: MMC1 has at most 512 KiB PRG and 128 KiB CHR", name);
        break;
    case 4:
        if (prg > 524288 || chr > 262144)
            return gv_fail(err, GV_ERR_INPUT, "%s: bad header: MMC3 has at most 512 KiB PRG and 256 KiB CHR", name);
        break;
    default:
        break;
    }
    size_t trainer = (d[6] & 4) ? 512 : 0;
    uint64_t need = 16 + trainer + prg + chr;
    if (len < need)
        return gv_fail(err, GV_ERR_INPUT, "%s: truncated: the header describes %llu bytes, the file has %zu",
                       name, (unsigned long long)need, len);
    out->data = malloc(len);
    if (!out->data)
        return gv_fail(err, GV_ERR_ENV, "%s: out of memory (%zu bytes)", name, len);
    memcpy(out->data, d, len);
    out->size = len;
    out->prg = out->data + 16 + trainer;
    out->prg_size = (uint32_t)prg;
    out->chr = chr ? out->prg + prg : NULL;
    out->chr_size = (uint32_t)chr;
    out->chr_ram_size = chr ? 0 : chr_ram;
    out->prg_ram_size = prg_ram;
    out->mapper = mapper;
    out->submapper = sub;
    out->mirroring = (d[6] & 8) ? NES_MIRROR_4 : (d[6] & 1) ? NES_MIRROR_V : NES_MIRROR_H;
    out->battery = (d[6] & 2) != 0;
    out->nes2 = nes2;
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
