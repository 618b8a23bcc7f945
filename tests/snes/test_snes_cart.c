/* test_snes_cart.c: the SNES cartridge loader (src/emu/snes/snes_cart.c) on images built
 * here: LoROM, HiROM, ExLoROM and ExHiROM headers found by scoring (ambiguous pairs
 * included), copier headers dropped, header fields the console ignores (checksum, ROM and
 * SRAM size codes) loading with one warning line, the bus image of sizes that are not a
 * power of two (worked out the long way), and what cannot run (truncated, no header,
 * coprocessor cartridges by their chip type, the Super FX excepted: it loads with its RAM
 * size) refused with one line naming the file. */
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

/* Loads, expects layout map and either no warning (want NULL) or one line naming the file
 * that contains want; returns the info (valid until the next call) or NULL. */
static const snes_cart_info *loads(const char *name, const uint8_t *d, size_t n, int map, const char *want)
{
    static snes_cart *c;
    snes_cart_free(c);
    c = NULL;
    gv_err e = {0};
    gv_status st = snes_cart_load(d, n, "loose.sfc", &c, &e);
    const char *w = c ? snes_cart_warning(c) : NULL;
    int wok = want ? w && strstr(w, want) && strstr(w, "loose.sfc") && !strchr(w, '\n') : !w;
    t_check(st == GV_OK && c && snes_cart_get_info(c)->map == map && wok, name,
            "status %d (%s), layout %s (want %s), warning: %s (want %s%s)", st, st ? e.msg : "loaded",
            c ? snes_map_name(snes_cart_get_info(c)->map) : "-", snes_map_name(map), w ? w : "none",
            want ? "one line with " : "none", want ? want : "");
    return c ? snes_cart_get_info(c) : NULL;
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

    /* ---- what the console ignores: loads, with one warning line naming the file ---- */
    uint8_t *bad = malloc(256 * 1024);
    memcpy(bad, lo, 256 * 1024);
    bad[0x1234] ^= 0x40; /* the ROM no longer sums to the header's checksum */
    loads("bad checksum", bad, 256 * 1024, SNES_MAP_LOROM, "checksum");
    memcpy(bad, lo, 256 * 1024);
    bad[0x7FDC] ^= 1; /* complement no longer matches: the map mode and reset vector still say LoROM */
    loads("bad complement", bad, 256 * 1024, SNES_MAP_LOROM, "checksum");
    t_check(snes_cart_detect(bad, 256 * 1024) == 2, "bad complement detect", "detect gives %d (want 2)",
            snes_cart_detect(bad, 256 * 1024));
    memset(bad + 0x7FDC, 0, 4); /* checksum pair zeroed, as homebrew assemblers leave it */
    loads("zero checksum pair", bad, 256 * 1024, SNES_MAP_LOROM, "checksum");
    uint8_t *big = make_rom(256, SNES_MAP_LOROM, 0x00, 0, 0);
    big[0x7FD7] = 1; /* 2 KiB claimed for a 256 KiB file (checksum pair still valid) */
    snes_rom_sign(big, 256 * 1024, 0x7FC0);
    loads("rom size code", big, 256 * 1024, SNES_MAP_LOROM, "ROM size code $01");
    uint8_t *sr = make_rom(256, SNES_MAP_LOROM, 0x02, 9, 0);
    ci = loads("sram size code", sr, 256 * 1024, SNES_MAP_LOROM, "SRAM size code $09");
    memcpy(bad, lo, 256 * 1024);
    bad[0x7FD5] = 0x21; /* says HiROM where a LoROM header lies; nothing at $FFC0 */
    loads("map mode", bad, 256 * 1024, SNES_MAP_LOROM, "checksum");
    /* a copier header in front of an image whose checksum is wrong: both handled */
    uint8_t *cpb = calloc(1, 512 + 256 * 1024);
    memcpy(cpb + 512, lo, 256 * 1024);
    cpb[512 + 0x7FDE] ^= 0x55, cpb[512 + 0x7FDC] ^= 0x55;
    ci = loads("copier header, bad checksum", cpb, 512 + 256 * 1024, SNES_MAP_LOROM, "checksum");
    t_check(ci && ci->copier_header, "copier header flag", "copier_header %d (want 1)", ci ? ci->copier_header : -1);

    /* ---- ambiguous headers: the better-scoring layout wins ---- */
    uint8_t *amb = make_rom(512, SNES_MAP_HIROM, 0x00, 0, 0);
    /* a LoROM-looking header too, but its checksum pair is wrong and its reset vector
     * points at BRK ($00); the HiROM one is whole and its reset vector points at SEI */
    memcpy(amb + 0x7FC0, amb + 0xFFC0, 0x40);
    amb[0x7FD5] = 0x20, amb[0x7FDC] ^= 0xFF;
    amb[0x7FFC] = 0x00, amb[0x7FFD] = 0x90, amb[0x1000] = 0x00; /* LoROM: $00:9000 is image $1000 */
    amb[0xFFFC] = 0x00, amb[0xFFFD] = 0x80, amb[0x8000] = 0x78; /* HiROM: $00:8000 is image $8000 */
    snes_rom_sign(amb, 512 * 1024, 0xFFC0);
    int slo = snes_header_score(amb, 512 * 1024, SNES_MAP_LOROM), shi = snes_header_score(amb, 512 * 1024, SNES_MAP_HIROM);
    ci = loads("ambiguous: hirom wins", amb, 512 * 1024, SNES_MAP_HIROM, NULL);
    t_check(shi > slo, "ambiguous scores", "HiROM header scores %d, LoROM %d (want HiROM higher)", shi, slo);
    /* the same two headers both whole and equally plausible: a tie goes to LoROM */
    amb[0x7FDC] ^= 0xFF, amb[0x1000] = 0x78;
    snes_rom_sign(amb, 512 * 1024, 0x7FC0);
    slo = snes_header_score(amb, 512 * 1024, SNES_MAP_LOROM), shi = snes_header_score(amb, 512 * 1024, SNES_MAP_HIROM);
    int best = snes_find_header(amb, 512 * 1024, NULL);
    t_check(best == (slo >= shi ? SNES_MAP_LOROM : SNES_MAP_HIROM) && slo > 0 && shi > 0, "ambiguous tie",
            "LoROM scores %d, HiROM %d: chosen %s (want the higher, LoROM on a tie)", slo, shi, snes_map_name(best));

    /* ---- sizes that are not a power of two: mirrored as the cartridge bus does ---- */
    static const size_t odd_kib[] = {96, 80, 112, 3072};
    for (size_t k = 0; k < sizeof odd_kib / sizeof odd_kib[0]; k++) {
        size_t kib = odd_kib[k], n = kib * 1024;
        uint8_t *r = make_rom(kib, kib > 1024 ? SNES_MAP_HIROM : SNES_MAP_LOROM, 0x00, 0, 0);
        /* the expected bus image, built the long way: p the largest power of two <= n; the
         * bytes above p repeat as their own (recursively mirrored) ROM over the next p */
        size_t b = 1;
        while (b < n)
            b *= 2;
        uint8_t *want = malloc(b);
        for (size_t i = 0; i < b; i++) {
            size_t off = i, base = 0, len = n;
            for (;;) {
                size_t bb = 1;
                while (bb < len)
                    bb *= 2;
                off %= bb;
                if (bb == len || off < bb / 2)
                    break;
                off -= bb / 2, base += bb / 2, len -= bb / 2;
            }
            want[i] = r[base + off];
        }
        uint32_t sw = 0;
        for (size_t i = 0; i < b; i++)
            sw += want[i];
        st = snes_cart_load(r, n, "odd.sfc", &c, &e);
        size_t got_size = 0;
        const uint8_t *got = c ? snes_cart_bus(c, &got_size) : NULL;
        char nm[64];
        snprintf(nm, sizeof nm, "mirror %zu KiB", kib);
        t_check(st == GV_OK && got && got_size == b && !memcmp(got, want, b) && !snes_cart_warning(c) &&
                    snes_rom_checksum(r, n) == (uint16_t)sw,
                nm, "status %d: bus image %zu bytes (want %zu), %s the long way's; checksum $%04X vs the image's $%04X%s%s",
                st, got_size, b, got && got_size == b && !memcmp(got, want, b) ? "equal to" : "DIFFERENT from",
                snes_rom_checksum(r, n), (uint16_t)sw, c && snes_cart_warning(c) ? "; warning: " : "",
                c && snes_cart_warning(c) ? snes_cart_warning(c) : "");
        if (kib == 96)
            t_check(got && !memcmp(got + 0x18000, r + 0x10000, 0x8000) && memcmp(got + 0x18000, r, 0x8000), "96 KiB bank 3",
                    "LoROM bank 3 (bus $18000) repeats bank 2 (image $10000), not bank 0");
        snes_cart_free(c);
        free(r), free(want);
    }

    /* ---- the extended layouts (over 4 MiB) ---- */
    size_t n6 = 6u << 20;
    uint8_t *ex = calloc(1, n6);
    for (size_t i = 0; i < n6; i++)
        ex[i] = (uint8_t)(i * 13 + (i >> 12));
    memcpy(ex + 0x40FFC0, "GPUVET EXHIROM       ", 21);
    ex[0x40FFD5] = 0x25, ex[0x40FFD6] = 0x00, ex[0x40FFD7] = 0x0D, ex[0x40FFD8] = 0;
    ex[0x40FFFC] = 0x00, ex[0x40FFFD] = 0x80, ex[0x408000] = 0x78;
    snes_rom_sign(ex, n6, 0x40FFC0);
    ci = loads("exhirom", ex, n6, SNES_MAP_EXHIROM, NULL);
    t_check(snes_map_offset(SNES_MAP_EXHIROM, 0x00FFC0) == 0x40FFC0 && snes_map_offset(SNES_MAP_EXHIROM, 0xC00000) == 0 &&
                snes_map_offset(SNES_MAP_EXHIROM, 0x401234) == 0x401234 && snes_map_offset(SNES_MAP_EXHIROM, 0x808000) == 0x8000 &&
                snes_map_offset(SNES_MAP_EXHIROM, 0xFFFFFF) == 0x3FFFFF,
            "exhirom map", "$00:FFC0 -> $%zX, $C0:0000 -> $%zX, $40:1234 -> $%zX, $80:8000 -> $%zX, $FF:FFFF -> $%zX",
            snes_map_offset(SNES_MAP_EXHIROM, 0x00FFC0), snes_map_offset(SNES_MAP_EXHIROM, 0xC00000),
            snes_map_offset(SNES_MAP_EXHIROM, 0x401234), snes_map_offset(SNES_MAP_EXHIROM, 0x808000),
            snes_map_offset(SNES_MAP_EXHIROM, 0xFFFFFF));
    memset(ex + 0x40FFC0, 0, 0x40);
    memcpy(ex + 0x407FC0, "GPUVET EXLOROM       ", 21);
    ex[0x407FD5] = 0x32, ex[0x407FD6] = 0x00, ex[0x407FD7] = 0x0D, ex[0x407FD8] = 0;
    ex[0x407FFC] = 0x00, ex[0x407FFD] = 0x80, ex[0x400000] = 0x78;
    snes_rom_sign(ex, n6, 0x407FC0);
    loads("exlorom", ex, n6, SNES_MAP_EXLOROM, NULL);
    t_check(snes_map_offset(SNES_MAP_EXLOROM, 0x00FFC0) == 0x407FC0 && snes_map_offset(SNES_MAP_EXLOROM, 0x808000) == 0 &&
                snes_map_offset(SNES_MAP_EXLOROM, 0xFFFFFF) == 0x3FFFFF,
            "exlorom map", "$00:FFC0 -> $%zX, $80:8000 -> $%zX, $FF:FFFF -> $%zX", snes_map_offset(SNES_MAP_EXLOROM, 0x00FFC0),
            snes_map_offset(SNES_MAP_EXLOROM, 0x808000), snes_map_offset(SNES_MAP_EXLOROM, 0xFFFFFF));
    free(ex);

    /* ---- refused: one line naming the file ---- */
    refuse("truncated", lo, 20000, "truncated");
    refuse("odd size", lo, 256 * 1024 - 100, "whole number of KiB");
    uint8_t *zero = calloc(1, 256 * 1024);
    refuse("no header", zero, 256 * 1024, "no SNES header");
    t_check(snes_cart_detect(zero, 256 * 1024) == 0, "no header detect", "detect gives %d (want 0)",
            snes_cart_detect(zero, 256 * 1024));
    free(zero);
    /* the Super FX loads: chip GSU, Game Pak RAM 32 KiB without an extended header (as Star
     * Fox), the expansion RAM byte's size with one ($FFDA = $33, $FFBD = 6: 64 KiB),
     * battery for chipset $15 and not $14 */
    uint8_t *cop = make_rom(256, SNES_MAP_LOROM, 0x15, 0, 0);
    const snes_cart_info *gi = loads("super fx", cop, 256 * 1024, SNES_MAP_LOROM, NULL);
    t_check(gi && gi->chip == SNES_CHIP_GSU && gi->sram_size == 0x8000 && gi->has_battery, "super fx ram",
            "chip %d (want %d), RAM %zu (want 32768), battery %d (want 1)", gi ? gi->chip : -1, SNES_CHIP_GSU,
            gi ? gi->sram_size : 0, gi ? gi->has_battery : -1);
    cop[0x7FDA] = 0x33, cop[0x7FBD] = 0x06, cop[0x7FD6] = 0x14;
    snes_rom_sign(cop, 256 * 1024, 0x7FC0);
    gi = loads("super fx expansion ram", cop, 256 * 1024, SNES_MAP_LOROM, NULL);
    t_check(gi && gi->chip == SNES_CHIP_GSU && gi->sram_size == 0x10000 && !gi->has_battery, "super fx expansion ram size",
            "chip %d, RAM %zu (want 65536), battery %d (want 0)", gi ? gi->chip : -1, gi ? gi->sram_size : 0,
            gi ? gi->has_battery : -1);
    cop[0x7FDE] ^= 0x11; /* a bad checksum: loads with its warning */
    loads("super fx, bad checksum", cop, 256 * 1024, SNES_MAP_LOROM, "checksum");
    cop[0x7FD6] = 0x35; /* SA-1 */
    refuse("sa-1", cop, 256 * 1024, "SA-1");
    cop[0x7FD6] = 0x03; /* DSP-n */
    refuse("dsp", cop, 256 * 1024, "DSP-n");
    uint8_t *huge = calloc(1, (8u << 20) + 1024);
    refuse("too large", huge, (8u << 20) + 1024, "larger than 8 MiB");
    free(huge);

    free(lo), free(hi), free(cp), free(cpb), free(r3), free(m4), free(bad), free(cop), free(big), free(sr), free(amb);
    return t_done();
}
