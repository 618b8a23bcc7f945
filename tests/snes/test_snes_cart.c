/* test_snes_cart.c: the SNES cartridge loader (src/emu/snes/snes_cart.c) on images built
 * here: LoROM and HiROM headers found and described, copier headers dropped, the checksum
 * with mirroring for sizes that are not a power of two (worked out on an explicitly
 * mirrored copy), and every kind of bad image refused with one line naming the file. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/snes/snes.h"

/* A ROM of kib KiB whose header lies where map says, with a valid checksum pair. */
static uint8_t *make_rom(size_t kib, int map, uint8_t type, uint8_t sram_code, int fast)
{
    size_t n = kib * 1024;
    uint8_t *r = calloc(1, n);
    for (size_t i = 0; i < n; i++)
        r[i] = (uint8_t)(i * 7 + (i >> 10));
    size_t at = map == SNES_MAP_HIROM ? 0xFFC0 : 0x7FC0;
    memcpy(r + at, "GPUVET CART TEST     ", 21);
    r[at + 0x15] = (uint8_t)(0x20 | (fast ? 0x10 : 0) | (map == SNES_MAP_HIROM));
    r[at + 0x16] = type;
    uint8_t code = 5;
    while (((size_t)1024 << code) < n)
        code++;
    r[at + 0x17] = code;
    r[at + 0x18] = sram_code;
    r[at + 0x3C] = 0x00, r[at + 0x3D] = 0x80;
    snes_rom_sign(r, n, at);
    return r;
}

/* Loads and expects a refusal whose message contains want. */
static void refuse(const char *name, const uint8_t *d, size_t n, const char *want)
{
    snes_cart *c = NULL;
    gv_err e = {0};
    gv_status st = snes_cart_load(d, n, "bad.sfc", &c, &e);
    t_check(st == GV_ERR_INPUT && !c && strstr(e.msg, want) && strstr(e.msg, "bad.sfc") && !strchr(e.msg, '\n'), name,
            "status %d, one line naming the file with \"%s\": %s", st, want, e.msg);
    snes_cart_free(c);
}

int main(void)
{
    gv_err e = {0};
    snes_cart *c = NULL;

    /* ---- good images ---- */
    uint8_t *lo = make_rom(256, SNES_MAP_LOROM, 0x02, 3, 0);
    gv_status st = snes_cart_load(lo, 256 * 1024, "lo.sfc", &c, &e);
    const snes_cart_info *ci = c ? snes_cart_get_info(c) : NULL;
    t_check(st == GV_OK && ci && ci->map == SNES_MAP_LOROM && ci->header_at == 0x7FC0 && ci->sram_size == 8192 &&
                ci->has_battery && !ci->fast && !strcmp(ci->title, "GPUVET CART TEST"),
            "lorom", "status %d: map %d at $%zX, SRAM %zu bytes, battery %d, title \"%s\" (want LoROM at $7FC0, 8192, 1)",
            st, ci ? ci->map : -1, ci ? ci->header_at : 0, ci ? ci->sram_size : 0, ci ? ci->has_battery : 0,
            ci ? ci->title : "");
    t_check(snes_cart_detect(lo, 256 * 1024) == 2, "lorom detect", "detect gives %d (want 2)", snes_cart_detect(lo, 256 * 1024));
    snes_cart_free(c);

    uint8_t *hi = make_rom(512, SNES_MAP_HIROM, 0x00, 0, 1);
    st = snes_cart_load(hi, 512 * 1024, "hi.sfc", &c, &e);
    ci = c ? snes_cart_get_info(c) : NULL;
    t_check(st == GV_OK && ci && ci->map == SNES_MAP_HIROM && ci->header_at == 0xFFC0 && ci->fast && !ci->sram_size,
            "hirom", "status %d: map %d at $%zX, FastROM %d, SRAM %zu (want HiROM at $FFC0, FastROM, no SRAM)", st,
            ci ? ci->map : -1, ci ? ci->header_at : 0, ci ? ci->fast : 0, ci ? ci->sram_size : 0);
    snes_cart_free(c);

    /* a copier header in front: same ROM, same hash */
    uint8_t *cp = calloc(1, 512 + 256 * 1024);
    memcpy(cp + 512, lo, 256 * 1024);
    snes_cart *c2 = NULL;
    snes_cart_load(lo, 256 * 1024, "lo.sfc", &c, &e);
    st = snes_cart_load(cp, 512 + 256 * 1024, "copier.smc", &c2, &e);
    t_check(st == GV_OK && c && c2 && snes_cart_get_info(c2)->copier_header &&
                snes_cart_get_info(c2)->hash == snes_cart_get_info(c)->hash && snes_cart_detect(cp, 512 + 256 * 1024) == 2,
            "copier header", "status %d: 512-byte header dropped, ROM hash %016llx vs %016llx", st,
            c2 ? (unsigned long long)snes_cart_get_info(c2)->hash : 0ull, c ? (unsigned long long)snes_cart_get_info(c)->hash : 0ull);
    snes_cart_free(c);
    snes_cart_free(c2);

    /* 3 MiB: the checksum counts the top 1 MiB twice (mirrored into a 4 MiB space) */
    size_t n3 = 3u << 20;
    uint8_t *r3 = make_rom(3072, SNES_MAP_HIROM, 0x00, 0, 0);
    uint8_t *m4 = malloc(4u << 20);
    memcpy(m4, r3, n3);
    memcpy(m4 + n3, r3 + (2u << 20), 1u << 20);
    uint32_t s4 = 0;
    for (size_t i = 0; i < (4u << 20); i++)
        s4 += m4[i];
    t_check(snes_rom_checksum(r3, n3) == (uint16_t)s4, "checksum mirroring",
            "3 MiB ROM sums to $%04X, the explicitly mirrored 4 MiB copy to $%04X", snes_rom_checksum(r3, n3), (uint16_t)s4);
    st = snes_cart_load(r3, n3, "big.sfc", &c, &e);
    t_check(st == GV_OK, "3 MiB hirom", "status %d %s", st, st ? e.msg : "");
    snes_cart_free(c);

    /* ---- bad images ---- */
    refuse("truncated", lo, 20000, "truncated");
    refuse("odd size", lo, 256 * 1024 - 100, "whole number of KiB");
    uint8_t *bad = malloc(256 * 1024);
    memcpy(bad, lo, 256 * 1024);
    bad[0x7FDC] ^= 1; /* complement no longer matches */
    refuse("bad complement", bad, 256 * 1024, "no valid SNES header");
    t_check(snes_cart_detect(bad, 256 * 1024) == 0, "bad detect", "detect gives %d (want 0)", snes_cart_detect(bad, 256 * 1024));
    memcpy(bad, lo, 256 * 1024);
    bad[0x1234] ^= 0x40; /* the ROM no longer sums to the header's checksum */
    refuse("bad checksum", bad, 256 * 1024, "sums to");
    uint8_t *cop = make_rom(256, SNES_MAP_LOROM, 0x15, 0, 0);
    refuse("coprocessor", cop, 256 * 1024, "coprocessor");
    uint8_t *big = make_rom(256, SNES_MAP_LOROM, 0x00, 0, 0);
    big[0x7FD7] = 6; /* 64 KiB claimed for a 256 KiB file (checksum pair still valid) */
    snes_rom_sign(big, 256 * 1024, 0x7FC0);
    refuse("rom size code", big, 256 * 1024, "ROM size code");
    uint8_t *sr = make_rom(256, SNES_MAP_LOROM, 0x02, 9, 0);
    refuse("sram size code", sr, 256 * 1024, "SRAM size code");
    memcpy(bad, lo, 256 * 1024);
    bad[0x7FD5] = 0x21; /* says HiROM where a LoROM header lies */
    refuse("map mode", bad, 256 * 1024, "no valid SNES header");
    uint8_t *huge = calloc(1, (4u << 20) + 1024);
    refuse("too large", huge, (4u << 20) + 1024, "larger than 4 MiB");
    free(huge);

    free(lo), free(hi), free(cp), free(r3), free(m4), free(bad), free(cop), free(big), free(sr);
    return t_done();
}
