/* test_gb_core.c: unit tests of the Game Boy core on small ROMs built here: cartridge
 * header validation (the boards and the sizes they can address, the MMM01's menu header),
 * MBC1/MBC3(+RTC)/MBC5 banking, the MBC3 clock's registers, battery files (the clock's
 * footer both ways) and what a power cycle keeps, save states (versions 1-3), the
 * native per-dot renderer against the per-line log renderer on random scenes with
 * mid-line register writes (DMG and CGB), the native audio synthesiser against the block
 * synthesiser and the device's per-sample evaluation on random APU writes, the LFSR jump
 * tables, the portable XXH3 against libxxhash, and the trace line layout. */
#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/hash.h"
#include "dev/xxh3_hd.h"
#include "emu/gb/gb.h"
#include "emu/gb/gb_host.h"
#include "emu/gb/gb_int.h"

/* ---- ROM images ---------------------------------------------------------------------- */

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)(rs >> 16);
}

/* A ROM of `kib` KiB with the given header fields, `code` at $0150 (NULL: JR to itself, so
 * the CPU waits there instead of running on into VRAM, which holds the boot ROM's logo),
 * each 16 KiB bank tagged with its number in its last two bytes, and a valid header
 * checksum. */
static uint8_t *make_rom(size_t kib, uint8_t type, uint8_t ram_code, uint8_t cgb, const uint8_t *code, size_t ncode)
{
    size_t n = kib * 1024;
    uint8_t *r = calloc(1, n);
    r[0x100] = 0x00, r[0x101] = 0xC3, r[0x102] = 0x50, r[0x103] = 0x01; /* NOP; JP $0150 */
    memcpy(r + 0x134, "GVTEST", 6);
    r[0x143] = cgb;
    r[0x147] = type;
    int code_sz = 0;
    while ((size_t)(32 << code_sz) < kib)
        code_sz++;
    r[0x148] = (uint8_t)code_sz;
    r[0x149] = ram_code;
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - r[i] - 1);
    r[0x14D] = x;
    if (code)
        memcpy(r + 0x150, code, ncode);
    else
        r[0x150] = 0x18, r[0x151] = 0xFE;
    for (size_t b = 1; b < n / 0x4000; b++) {
        r[b * 0x4000 + 0x3FFE] = (uint8_t)b;
        r[b * 0x4000 + 0x3FFF] = (uint8_t)(b >> 8);
    }
    return r;
}

static gb_cart *load(const uint8_t *rom, size_t kib)
{
    gb_cart *c = NULL;
    gv_err e;
    if (gb_cart_load(rom, kib * 1024, "test.gb", &c, &e) != GV_OK) {
        printf("FAIL cart load: %s\n", e.msg);
        exit(1);
    }
    return c;
}

/* Bank number seen at $4000-$7FFF (the tag in its last two bytes). */
static unsigned bank_at_4000(gb *g)
{
    return gb_peek(g, 0x7FFE) | (gb_peek(g, 0x7FFF) << 8);
}

/* ---- header validation ----------------------------------------------------------------- */

static void test_header(void)
{
    gb_cart *c;
    gv_err e;
    uint8_t *r = make_rom(32, 0x00, 0, 0, NULL, 0);
    t_check(gb_cart_load(r, 0x14F, "short.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "short.gb") &&
                strstr(e.msg, "truncated"), "gb header truncated", "%s", e.msg);
    r[0x14D] ^= 1;
    t_check(gb_cart_load(r, 32768, "sum.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "checksum"),
            "gb header checksum", "%s", e.msg);
    free(r);
    r = make_rom(32, 0x20, 0, 0, NULL, 0); /* MBC6: not supported */
    t_check(gb_cart_load(r, 32768, "mbc6.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "$20"),
            "gb header unknown MBC", "%s", e.msg);
    free(r);
    r = make_rom(64, 0x01, 0, 0, NULL, 0);
    t_check(gb_cart_load(r, 40000, "half.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "truncated"),
            "gb header shorter than declared", "%s", e.msg);
    t_check(gb_cart_load(r, 65536, "ok.gb", &c, &e) == GV_OK, "gb header valid MBC1", "loaded");
    gb_cart_free(c);
    free(r);
    r = make_rom(32, 0x00, 0, 0, NULL, 0);
    r[0x148] = 9;
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - r[i] - 1);
    r[0x14D] = x;
    t_check(gb_cart_load(r, 32768, "size.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "ROM size"),
            "gb header bad ROM size code", "%s", e.msg);
    free(r);
}

/* The header checksum at $014D of the header at h. */
static void fix_checksum(uint8_t *h)
{
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - h[i] - 1);
    h[0x14D] = x;
}

/* The boards added with save-state version 3: their types load, an MMM01's header is its
 * menu's (the last 32 KiB), sizes a board cannot address are refused naming it. */
static void test_header_boards(void)
{
    gb_cart *c;
    gv_err e;
    static const struct { uint8_t type; int mbc; size_t battery; } ok[] = {
        {0x22, GB_MBC7, 256}, {0xFF, GB_HUC1, 32768}, {0xFE, GB_HUC3, 32768 + 136}, {0x10, GB_MBC3, 32768 + 48},
        {0x0F, GB_MBC3, 48}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint8_t *r = make_rom(128, ok[i].type, 0x03, 0, NULL, 0);
        gv_status st = gb_cart_load(r, 128 * 1024, "board.gb", &c, &e);
        t_check(st == GV_OK && gb_cart_get_info(c)->mbc == ok[i].mbc && gb_cart_battery_size(c) == ok[i].battery,
                "gb header board", "type $%02X: %s, battery file %zu bytes", ok[i].type,
                st == GV_OK ? gb_cart_board_name(gb_cart_get_info(c)->mbc) : e.msg, st == GV_OK ? gb_cart_battery_size(c) : 0);
        if (st == GV_OK)
            gb_cart_free(c);
        free(r);
    }
    /* MMM01: $0100 holds a game's header (MBC1, 32 KiB); the menu's says MMM01, 256 KiB */
    uint8_t *r = make_rom(256, 0x01, 0, 0, NULL, 0);
    uint8_t *m = r + 256 * 1024 - 0x8000;
    memcpy(m + 0x134, "MENU", 4);
    m[0x147] = 0x0D, m[0x148] = 3, m[0x149] = 0x02;
    fix_checksum(m);
    gv_status st = gb_cart_load(r, 256 * 1024, "mmm01.gb", &c, &e);
    const gb_cart_info *ci = st == GV_OK ? gb_cart_get_info(c) : NULL;
    t_check(ci && ci->mbc == GB_MMM01 && !strcmp(ci->title, "MENU") && ci->ram_size == 0x2000 && ci->header == 0x38000,
            "gb header MMM01 menu", "%s", ci ? "the header in the last 32 KiB: \"MENU\", 8 KiB RAM" : e.msg);
    if (ci)
        gb_cart_free(c);
    /* the same cartridge dumped menu first: loaded in the cartridge's order */
    uint8_t *rot = malloc(256 * 1024);
    memcpy(rot, m, 0x8000);
    memcpy(rot + 0x8000, r, 256 * 1024 - 0x8000);
    st = gb_cart_load(rot, 256 * 1024, "menu_first.gb", &c, &e);
    ci = st == GV_OK ? gb_cart_get_info(c) : NULL;
    t_check(ci && ci->mbc == GB_MMM01 && ci->header == 0x38000 && !memcmp(gb_cart_rom(c), r, 256 * 1024),
            "gb header MMM01 menu first", "%s", ci ? "rotated: the menu is the last 32 KiB again" : e.msg);
    if (ci)
        gb_cart_free(c);
    free(rot);
    m[0x148] = 4; /* the menu claims 512 KiB */
    fix_checksum(m);
    t_check(gb_cart_load(r, 256 * 1024, "mmm01.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, "MMM01"),
            "gb header MMM01 size", "%s", e.msg);
    free(r);
    static const struct { uint8_t type, rom_code, ram_code; const char *what; } bad[] = {
        {0x22, 7, 0, "MBC7"}, {0xFE, 7, 0, "HuC3"}, {0x13, 8, 0, "MBC3"}, {0x03, 0, 0x04, "MBC1"},
        {0x10, 0, 0x04, "MBC3"}, {0x09, 0, 0x03, "no MBC"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = make_rom(64, bad[i].type, bad[i].ram_code, 0, NULL, 0);
        r[0x148] = bad[i].rom_code;
        fix_checksum(r);
        t_check(gb_cart_load(r, 64 * 1024, "big.gb", &c, &e) == GV_ERR_INPUT && strstr(e.msg, bad[i].what) &&
                    strstr(e.msg, "cannot address"),
                "gb header impossible size", "%s", e.msg);
        free(r);
    }
}

/* ---- MBCs ------------------------------------------------------------------------------ */

static void test_mbc1(void)
{
    uint8_t *r = make_rom(1024, 0x03, 0x03, 0, NULL, 0); /* 64 banks, 32 KiB RAM, battery */
    gb_cart *c = load(r, 1024);
    gb *g;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    int ok = 1;
    for (unsigned b = 0; b < 64; b++) {
        gb_poke(g, 0x2000, (uint8_t)(b & 0x1F));
        gb_poke(g, 0x4000, (uint8_t)(b >> 5));
        unsigned want = (b & 0x1F) ? b : b + 1; /* bank 0 in the low 5 bits reads as 1 */
        if (bank_at_4000(g) != want)
            ok = 0;
    }
    t_check(ok, "gb mbc1 rom banks", "64 banks through $2000/$4000, 0 -> 1 (incl. $20 -> $21)");
    /* mode 1: the upper bits also bank $0000-$3FFF */
    gb_poke(g, 0x4000, 1);
    gb_poke(g, 0x6000, 1);
    unsigned low = gb_peek(g, 0x3FFE);
    gb_poke(g, 0x6000, 0);
    t_check(low == 0x20, "gb mbc1 mode 1 low area", "bank %u at $0000 in mode 1 (want 32)", low);
    /* RAM: disabled reads $FF; 4 banks in mode 1 */
    t_check(gb_peek(g, 0xA000) == 0xFF, "gb mbc1 ram disabled", "reads $%02X", gb_peek(g, 0xA000));
    gb_poke(g, 0x0000, 0x0A);
    gb_poke(g, 0x6000, 1);
    for (int b = 0; b < 4; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        gb_poke(g, 0xA123, (uint8_t)(0x40 + b));
    }
    ok = 1;
    for (int b = 0; b < 4; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        ok &= gb_peek(g, 0xA123) == 0x40 + b;
    }
    t_check(ok, "gb mbc1 ram banks", "4 banks of 8 KiB in mode 1");
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

static void test_mbc3_rtc(void)
{
    uint8_t *r = make_rom(2048, 0x10, 0x03, 0, NULL, 0); /* MBC3+TIMER+RAM+BATTERY, 128 banks */
    gb_cart *c = load(r, 2048);
    gb *g;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    int ok = 1;
    for (unsigned b = 0; b < 128; b++) {
        gb_poke(g, 0x2000, (uint8_t)b);
        ok &= bank_at_4000(g) == (b ? b : 1);
    }
    t_check(ok, "gb mbc3 rom banks", "128 banks, 0 -> 1");
    gb_poke(g, 0x0000, 0x0A);
    for (int b = 0; b < 4; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        gb_poke(g, 0xB000, (uint8_t)(0x90 + b));
    }
    ok = 1;
    for (int b = 0; b < 4; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        ok &= gb_peek(g, 0xB000) == 0x90 + b;
    }
    t_check(ok, "gb mbc3 ram banks", "4 banks");
    /* RTC: 23:59:58 on day 511; after 2 s of emulated time the day counter wraps to 0
     * and sets the carry bit; the registers only change on a latch (0 then 1). */
    const uint8_t set[5] = {58, 59, 23, 0xFF, 0x01};
    for (int i = 0; i < 5; i++) {
        gb_poke(g, 0x4000, (uint8_t)(8 + i));
        gb_poke(g, 0xA000, set[i]);
    }
    gb_poke(g, 0x6000, 0);
    gb_poke(g, 0x6000, 1);
    gb_poke(g, 0x4000, 8);
    unsigned s0 = gb_peek(g, 0xA000) & 0x3F;
    int frames = 0;
    while ((uint64_t)frames * 70224 < 2ull * 4194304 + 70224)
        gb_run_frame(g), frames++;
    gb_poke(g, 0x4000, 8);
    unsigned s_nolatch = gb_peek(g, 0xA000) & 0x3F;
    gb_poke(g, 0x6000, 0);
    gb_poke(g, 0x6000, 1);
    uint8_t v[5];
    for (int i = 0; i < 5; i++) {
        gb_poke(g, 0x4000, (uint8_t)(8 + i));
        v[i] = gb_peek(g, 0xA000);
    }
    t_check(s0 == 58 && s_nolatch == 58, "gb mbc3 rtc latch", "seconds %u, %u before the next latch", s0, s_nolatch);
    t_check((v[0] & 0x3F) == 0 && (v[1] & 0x3F) == 0 && (v[2] & 0x1F) == 0 && v[3] == 0 && (v[4] & 0x81) == 0x80,
            "gb mbc3 rtc day carry", "after %d frames: %02u:%02u:%02u day %u carry %u", frames, v[2] & 0x1F,
            v[1] & 0x3F, v[0] & 0x3F, v[3] | ((v[4] & 1) << 8), v[4] >> 7);
    /* halt bit: the clock stops */
    gb_poke(g, 0x4000, 0x0C);
    gb_poke(g, 0xA000, 0x40);
    for (int i = 0; i < 120; i++)
        gb_run_frame(g);
    gb_poke(g, 0x6000, 0);
    gb_poke(g, 0x6000, 1);
    gb_poke(g, 0x4000, 8);
    t_check((gb_peek(g, 0xA000) & 0x3F) == 0, "gb mbc3 rtc halt", "seconds %u after 2 s halted",
            gb_peek(g, 0xA000) & 0x3F);
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

/* The MBC3 clock's registers as the CPU reads them, its battery footer both ways, and
 * what a power cycle keeps: battery RAM and the clock, not RAM without a battery. */
static void test_mbc3_file(void)
{
    uint8_t *r = make_rom(64, 0x10, 0x02, 0, NULL, 0); /* MBC3+TIMER+RAM+BATTERY, 8 KiB */
    gb_cart *c = load(r, 64);
    gb *g;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    gb_poke(g, 0x0000, 0x0A);
    const uint8_t all[5] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, want[5] = {0x3F, 0x3F, 0x1F, 0xFF, 0xC1};
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        gb_poke(g, 0x4000, (uint8_t)(8 + i));
        gb_poke(g, 0xA000, all[i]);
        ok &= gb_peek(g, 0xA000) == want[i];
    }
    t_check(ok, "gb mbc3 rtc unused bits", "$FF written reads $3F $3F $1F $FF $C1 (unused bits 0)");
    gb_poke(g, 0x4000, 0x0C);
    gb_poke(g, 0xA000, 0x41); /* halted, day bit 8 */
    gb_poke(g, 0x4000, 0x00);
    gb_poke(g, 0xA123, 0x5A);
    uint8_t *img;
    size_t n;
    gb_battery_get(g, &img, &n, &e);
    const uint8_t *f = img + 0x2000;
    t_check(n == 0x2000 + 48 && img[0x123] == 0x5A && f[0] == 0x3F && f[8] == 0x1F && f[16] == 0x41 && f[20] == 0 &&
                f[1] == 0 && f[40] == 0,
            "gb mbc3 battery footer", "%zu bytes: S M H DL DH = %u %u %u %u $%02X, then the latched copy, timestamp", n,
            f[0], f[4], f[8], f[12], f[16]);
    /* a footer from elsewhere: its timestamp is kept and written back */
    img[0x2000 + 40] = 0x78, img[0x2000 + 47] = 0x01;
    img[0x2000 + 0] = 0xFF; /* bits beyond the register's are dropped */
    gb *h;
    gb_new(c, GB_MODEL_DMG, 0, &h, &e);
    gv_status st = gb_battery_set(h, img, n, "x.sav", &e);
    uint8_t *img2;
    size_t n2;
    gb_battery_get(h, &img2, &n2, &e);
    t_check(st == GV_OK && n2 == n && img2[0x2000] == 0x3F && img2[0x2000 + 40] == 0x78 && img2[0x2000 + 47] == 0x01 &&
                !memcmp(img2, img, 0x2000),
            "gb mbc3 battery timestamp kept", "RAM and registers read back, timestamp $%02X..$%02X written back",
            img2[0x2000 + 47], img2[0x2000 + 40]);
    st = gb_battery_set(h, img, n - 4, "x44.sav", &e);
    t_check(st == GV_OK, "gb mbc3 44-byte footer", "%s", st == GV_OK ? "accepted" : e.msg);
    st = gb_battery_set(h, img, n - 8, "x40.sav", &e);
    t_check(st == GV_ERR_INPUT && strstr(e.msg, "x40.sav") && strstr(e.msg, "8232"), "gb mbc3 footer wrong size", "%s",
            e.msg);
    free(img2);
    free(img);
    /* a power cycle: the battery keeps RAM and the clock (halted here: the same time) */
    gb_poke(h, 0x0000, 0x0A);
    gb_poke(h, 0x4000, 0x00);
    gb_poke(h, 0xA000, 0x77);
    gb_power(h);
    gb_poke(h, 0x0000, 0x0A);
    uint8_t ram = gb_peek(h, 0xA000);
    gb_poke(h, 0x4000, 0x0C);
    uint8_t dh = gb_peek(h, 0xA000);
    t_check(ram == 0x77 && dh == 0x41, "gb power cycle keeps the battery", "RAM $%02X, DH $%02X after gb_power", ram, dh);
    gb_free(h);
    gb_free(g);
    gb_cart_free(c);
    free(r);
    r = make_rom(64, 0x1A, 0x02, 0, NULL, 0); /* MBC5+RAM, no battery */
    c = load(r, 64);
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    gb_poke(g, 0x0000, 0x0A);
    gb_poke(g, 0xA000, 0x77);
    gb_power(g);
    gb_poke(g, 0x0000, 0x0A);
    t_check(gb_peek(g, 0xA000) == 0, "gb power cycle clears RAM without a battery", "reads $%02X", gb_peek(g, 0xA000));
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

static void test_mbc5(void)
{
    uint8_t *r = make_rom(8192, 0x1B, 0x04, 0, NULL, 0); /* 512 banks, 128 KiB RAM */
    gb_cart *c = load(r, 8192);
    gb *g;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    int ok = 1;
    for (unsigned b = 0; b < 512; b++) {
        gb_poke(g, 0x2000, (uint8_t)b);
        gb_poke(g, 0x3000, (uint8_t)(b >> 8));
        ok &= bank_at_4000(g) == b;
    }
    t_check(ok, "gb mbc5 rom banks", "512 banks through $2000/$3000, bank 0 selectable");
    gb_poke(g, 0x0000, 0x0A);
    for (int b = 0; b < 16; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        gb_poke(g, 0xBFFF, (uint8_t)(0x30 + b));
    }
    ok = 1;
    for (int b = 0; b < 16; b++) {
        gb_poke(g, 0x4000, (uint8_t)b);
        ok &= gb_peek(g, 0xBFFF) == 0x30 + b;
    }
    t_check(ok, "gb mbc5 ram banks", "16 banks of 8 KiB");
    /* battery image: taken from one machine, given to another */
    uint8_t *img;
    size_t n;
    gv_status s = gb_battery_get(g, &img, &n, &e);
    t_check(s == GV_OK && n == 128 * 1024, "gb battery image", "%zu bytes (128 KiB of cartridge RAM)", n);
    gb *g2;
    gb_new(c, GB_MODEL_DMG, 0, &g2, &e);
    s = gb_battery_set(g2, img, n, "image", &e);
    gb_poke(g2, 0x0000, 0x0A);
    ok = s == GV_OK;
    for (int b = 0; b < 16; b++) {
        gb_poke(g2, 0x4000, (uint8_t)b);
        ok &= gb_peek(g2, 0xBFFF) == 0x30 + b;
    }
    t_check(ok, "gb battery load", "16 banks restored");
    s = gb_battery_set(g2, img, 1000, "short.sav", &e);
    t_check(s == GV_ERR_INPUT && strstr(e.msg, "1000") && strstr(e.msg, "short.sav"), "gb battery wrong size", "%s",
            e.msg);
    free(img);
    gb_free(g2);
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

/* ---- a busy program: timer, sound, VRAM writes ------------------------------------------ */

static const uint8_t busy_prog[] = {
    0x3E, 0x05, 0xE0, 0x07, 0x3E, 0x80, 0xE0, 0x26, 0x3E, 0x77, 0xE0, 0x24, 0x3E, 0xFF, 0xE0, 0x25,
    0x3E, 0xF0, 0xE0, 0x12, 0x3E, 0x80, 0xE0, 0x11, 0x3E, 0x87, 0xE0, 0x14, 0x3E, 0xF0, 0xE0, 0x21,
    0x3E, 0x24, 0xE0, 0x22, 0x3E, 0x80, 0xE0, 0x23, 0x21, 0x00, 0x80,
    0xF0, 0x44, 0xFE, 0x90, 0x20, 0xFA,       /* loop: wait for LY = 144 */
    0xF0, 0x05, 0x22, 0xE0, 0x13,             /* TIMA -> tile data, channel 1 pitch */
    0x7D, 0xE6, 0x0F, 0x6F,                   /* HL stays in $8000-$800F */
    0xF0, 0x44, 0xFE, 0x90, 0x28, 0xFA,       /* wait for LY != 144 */
    0x18, 0xE9,
};

static uint64_t frame_sig(gb *g)
{
    int n;
    const int16_t *a = gb_native_audio(g, &n);
    return gv_hash64(gb_native_fb(g), GB_FB_BYTES) ^ (gv_hash64(a, (size_t)n * 4) * 31);
}

static void test_state(void)
{
    uint8_t *r = make_rom(32, 0x00, 0, 0, busy_prog, sizeof busy_prog);
    gb_cart *c = load(r, 32);
    unsigned outs = GB_OUT_VIDEO_NATIVE | GB_OUT_AUDIO_NATIVE | GB_OUT_VIDEO_LOG;
    gb *a, *b;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, outs, &a, &e);
    gb_new(c, GB_MODEL_DMG, outs, &b, &e);
    for (int i = 0; i < 37; i++)
        gb_run_frame(a);
    uint8_t *s1, *s2;
    size_t n1, n2;
    gb_state_save(a, &s1, &n1, &e);
    gv_status st = gb_state_load(b, s1, n1, &e);
    gb_state_save(b, &s2, &n2, &e);
    t_check(st == GV_OK && n1 == n2 && !memcmp(s1, s2, n1), "gb state round trip bytes", "%zu bytes, load+save identical",
            n1);
    int same = 1;
    for (int i = 0; i < 60; i++) {
        gb_run_frame(a);
        gb_run_frame(b);
        same &= frame_sig(a) == frame_sig(b);
    }
    t_check(same, "gb state continues identically", "60 frames of video and audio after the load");
    /* states of versions 1 and 2 still load and continue identically: version 2's gb_state
     * is this one without the board at its end, version 1's that without wake_clk too */
    for (uint32_t ver = 1; ver <= 2; ver++) {
        gb *a1, *v;
        gb_new(c, GB_MODEL_DMG, outs, &a1, &e);
        gb_new(c, GB_MODEL_DMG, outs, &v, &e);
        for (int i = 0; i < 41; i++)
            gb_run_frame(a1);
        uint8_t *s3;
        size_t n3;
        gb_state_save(a1, &s3, &n3, &e);
        size_t cut = sizeof(gb_board) + (ver == 1 ? 8 : 0);
        size_t split = 40 + offsetof(gb_state, wake_clk), board = 40 + offsetof(gb_state, board);
        uint8_t *old = malloc(n3 - cut);
        if (ver == 1) {
            memcpy(old, s3, split);
            memcpy(old + split, s3 + split + 8, board - split - 8);
        } else {
            memcpy(old, s3, board);
        }
        memcpy(old + board - (cut - sizeof(gb_board)), s3 + board + sizeof(gb_board), n3 - board - sizeof(gb_board));
        uint32_t sz = (uint32_t)(sizeof(gb_state) - cut);
        memcpy(old + 8, &ver, 4);
        memcpy(old + 12, &sz, 4);
        uint64_t h = gv_hash64(old + 40, n3 - cut - 40);
        memcpy(old + 32, &h, 8);
        st = gb_state_load(v, old, n3 - cut, &e);
        int same1 = st == GV_OK;
        for (int i = 0; same1 && i < 60; i++) {
            gb_run_frame(a1);
            gb_run_frame(v);
            same1 &= frame_sig(a1) == frame_sig(v);
        }
        t_check(same1, ver == 1 ? "gb state version 1 loads" : "gb state version 2 loads",
                "%s; 60 frames after it identical to the machine it was saved from", st == GV_OK ? "accepted" : e.msg);
        free(old);
        free(s3);
        gb_free(a1);
        gb_free(v);
    }
    /* a CGB in DMG compatibility mode is its own model for states */
    {
        gb *cm;
        gb_new(c, GB_MODEL_CGB, outs, &cm, &e);
        gb_run_frame(cm);
        uint8_t *s3;
        size_t n3;
        gb_state_save(cm, &s3, &n3, &e);
        st = gb_state_load(b, s3, n3, &e);
        t_check(gb_compat_mode(cm) && st == GV_ERR_INPUT && strstr(e.msg, "of a CGB machine"),
                "gb state of a compatibility-mode CGB on a DMG", "%s", e.msg);
        free(s3);
        gb_free(cm);
    }
    /* corrupt, truncated, other ROM, crafted fields */
    s1[200] ^= 0x40;
    st = gb_state_load(b, s1, n1, &e);
    t_check(st == GV_ERR_INPUT && strstr(e.msg, "checksum"), "gb state corrupt", "%s", e.msg);
    s1[200] ^= 0x40;
    st = gb_state_load(b, s1, n1 - 7, &e);
    t_check(st == GV_ERR_INPUT, "gb state truncated", "%s", e.msg);
    uint8_t *r2 = make_rom(32, 0x00, 0, 0, busy_prog, sizeof busy_prog - 1);
    gb_cart *c2 = load(r2, 32);
    gb *o;
    gb_new(c2, GB_MODEL_DMG, outs, &o, &e);
    st = gb_state_load(o, s1, n1, &e);
    t_check(st == GV_ERR_INPUT && strstr(e.msg, "another ROM"), "gb state of another ROM", "%s", e.msg);
    gb_state *sp = (gb_state *)(s1 + 40);
    uint8_t keep = sp->ly;
    sp->ly = 200;
    st = gb_state_load_unchecked(b, s1, n1, &e);
    t_check(st == GV_ERR_INPUT && strstr(e.msg, "rejected"), "gb state crafted field", "LY=200: %s", e.msg);
    sp->ly = keep;
    sp->apu.gen.ch[2].vol = 9;
    st = gb_state_load_unchecked(b, s1, n1, &e);
    t_check(st == GV_ERR_INPUT, "gb state crafted wave level", "%s", e.msg);
    free(s1);
    free(s2);
    gb_free(o);
    gb_cart_free(c2);
    free(r2);
    gb_free(a);
    gb_free(b);
    gb_cart_free(c);
    free(r);
}

/* ---- renderer parity on random scenes --------------------------------------------------- */

/* Writes random register values from a table at $1000-$3FFF, every few M-cycles, so
 * many land in mode 3 (mid-line effects): SCX BGP LCDC(|$80) SCY WX OBP0 OBP1 WY. */
static const uint8_t reg_prog[] = {
    0x21, 0x00, 0x10,                         /* ld hl,$1000 */
    0x2A, 0xE0, 0x43, 0x2A, 0xE0, 0x47, 0x2A, 0xF6, 0x80, 0xE0, 0x40, 0x2A, 0xE0, 0x42,
    0x2A, 0xE0, 0x4B, 0x2A, 0xE0, 0x48, 0x2A, 0xE0, 0x49, 0x2A, 0xE0, 0x4A,
    0x7C, 0xFE, 0x40, 0x20, 0xE1,             /* until $4000 */
    0x21, 0x00, 0x10, 0x18, 0xDC,
};

static void random_scene(gb *g, int cgb)
{
    for (int bank = 0; bank <= cgb; bank++) {
        gb_poke(g, 0xFF4F, (uint8_t)bank);
        for (int a = 0x8000; a < 0xA000; a++)
            gb_poke(g, (uint16_t)a, (uint8_t)rnd());
    }
    gb_poke(g, 0xFF4F, 0);
    for (int i = 0; i < 160; i++) {
        uint8_t v = (uint8_t)rnd();
        if (i % 4 == 0)
            v = (uint8_t)(v % 170); /* most objects on screen */
        gb_poke(g, (uint16_t)(0xFE00 + i), v);
    }
    if (cgb) {
        gb_poke(g, 0xFF68, 0x80);
        gb_poke(g, 0xFF6A, 0x80);
        for (int i = 0; i < 64; i++) {
            gb_poke(g, 0xFF69, (uint8_t)rnd());
            gb_poke(g, 0xFF6B, (uint8_t)rnd());
        }
    }
}

/* Waits for mode 3 and starts a 4-block general VRAM DMA there (the source and
 * destination keep advancing through memory and VRAM), over and over (CGB). */
static const uint8_t gdma_prog[] = {
    0x3E, 0x10, 0xE0, 0x51, 0x3E, 0x00, 0xE0, 0x52, 0x3E, 0x00, 0xE0, 0x53, 0x3E, 0x00, 0xE0, 0x54,
    0xF0, 0x41, 0xE6, 0x03, 0xFE, 0x03, 0x20, 0xF8, /* loop: wait for STAT mode 3 */
    0x3E, 0x03, 0xE0, 0x55,                         /* general DMA of 4 blocks */
    0x18, 0xF2,
};

/* cgb: 0 DMG, 1 CGB, 2 a DMG cartridge on the CGB (DMG compatibility mode). */
static void test_render_parity(int cgb, const uint8_t *prog, size_t nprog, const char *name)
{
    uint8_t *r = make_rom(32, 0x00, 0, cgb == 1 ? 0x80 : 0, prog, nprog);
    for (int i = 0x1000; i < 0x4000; i++)
        r[i] = (uint8_t)rnd();
    uint8_t x = 0; /* the table does not touch the header, but keep the checksum right */
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - r[i] - 1);
    r[0x14D] = x;
    gb_cart *c = load(r, 32);
    gb *g;
    gv_err e;
    gb_new(c, cgb ? GB_MODEL_CGB : GB_MODEL_DMG, GB_OUT_VIDEO_NATIVE | GB_OUT_VIDEO_LOG, &g, &e);
    if (cgb == 2 && !gb_compat_mode(g))
        t_check(0, name, "the machine is not in DMG compatibility mode");
    gb_vstate *vs = gv_aligned_alloc(sizeof *vs);
    memset(vs, 0, sizeof *vs);
    uint8_t *fb = malloc(GB_FB_BYTES), *pk = NULL;
    size_t pkcap = 0;
    int frames = 0, same = 0, midline = 0, drawn = 0, shown = 0;
    for (int round = 0; round < 6; round++) {
        random_scene(g, cgb == 1);
        for (int f = 0; f < 4; f++, frames++) {
            gb_run_frame(g);
            const gb_frame_log *lg = gb_video_log(g);
            size_t need = gb_log_packed_size(lg);
            if (need > pkcap) {
                free(pk);
                pk = gv_aligned_alloc(pkcap = need);
            }
            gb_log_pack(lg, pk);
            gb_render_host(vs, pk, fb, 0, &e);
            int eq = !memcmp(fb, gb_native_fb(g), GB_FB_BYTES);
            same += eq;
            for (int p = 0; !eq && p < GB_W * GB_H && !shown; p++)
                if (memcmp(fb + 3 * p, gb_native_fb(g) + 3 * p, 3)) {
                    const gb_line *ln = &lg->line[p / GB_W];
                    printf("    first difference: frame %d x=%d y=%d log %02x%02x%02x native %02x%02x%02x (lcdc %02x, %d objs, %d writes)\n",
                           frames, p % GB_W, p / GB_W, fb[3 * p], fb[3 * p + 1], fb[3 * p + 2], gb_native_fb(g)[3 * p],
                           gb_native_fb(g)[3 * p + 1], gb_native_fb(g)[3 * p + 2], ln->lcdc, ln->nobj, ln->nreg);
                    shown = 1;
                }
            midline += (int)lg->nreg;
            for (int y = 0; y < GB_H; y++)
                drawn += lg->line[y].flags & GB_LINE_DRAWN;
        }
    }
    t_check(same == frames && (midline > 1000 || prog != reg_prog) && drawn > 0, name,
            "%d/%d random frames: native per-dot == per-line log renderer (%d mid-line writes, %d lines drawn)", same,
            frames, midline, drawn);
    free(pk);
    free(fb);
    free(vs);
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

/* ---- audio parity on random APU writes --------------------------------------------------- */

/* Writes random values to $FF10-$FF25 and wave RAM $FF30-$FF39 (never NR52), spaced by a
 * random delay. */
static const uint8_t apu_prog[] = {
    0x3E, 0x80, 0xE0, 0x26,             /* NR52 on */
    0x21, 0x00, 0x10,                   /* ld hl,$1000 */
    0x2A, 0xE6, 0x1F, 0xFE, 0x16,       /* loop: a = random & $1F; cp $16 */
    0x38, 0x02, 0xC6, 0x0A,             /* jr c,+2; add $0A ($16-$1F -> wave RAM $30-$39) */
    0xC6, 0x10, 0x4F, 0x2A, 0xE2,       /* c = a + $10; ld a,(hl+); ld ($FF00+c),a */
    0x2A, 0xE6, 0x1F, 0x3C, 0x3D, 0x20, 0xFD, /* delay 1-32 */
    0x7C, 0xFE, 0x40, 0x20, 0xE6,       /* until $4000 */
    0x21, 0x00, 0x10, 0x18, 0xE1,
};

static void test_audio_parity(gb_model model)
{
    uint8_t *r = make_rom(32, 0x00, 0, model == GB_MODEL_CGB ? 0x80 : 0, apu_prog, sizeof apu_prog);
    for (int i = 0x1000; i < 0x4000; i++)
        r[i] = (uint8_t)rnd();
    gb_cart *c = load(r, 32);
    gb *a, *b;
    gv_err e;
    gb_new(c, model, GB_OUT_AUDIO_NATIVE, &a, &e);
    gb_new(c, model, 0, &b, &e);
    const gb_lfsr_jump *J = gb_cart_lfsr(c);
    const char *mn = model == GB_MODEL_CGB ? "cgb" : "dmg";
    int16_t *blk = malloc(4 * 4096), *dev = malloc(4 * 4096);
    int frames = 120, same_blk = 0, same_dev = 0;
    uint64_t keys = 0, nonzero = 0;
    int32_t cap[2] = {0, 0};
    for (int f = 0; f < frames; f++) {
        gb_run_frame(a);
        gb_run_frame(b);
        int n;
        const int16_t *nat = gb_native_audio(a, &n);
        const gb_audio_log *al = gb_audio_keys(b);
        keys += al->nkeys;
        gb_audio_block(al, J, blk);
        /* the device's way: each sample finds its keyframe and is evaluated alone */
        for (uint32_t s = 0; s < al->n; s++) {
            uint64_t t = gb_sample_time(al->k0 + s);
            gb_apu_sample(&al->keys[gb_key_find(al->keys, al->nkeys, t)], t, J, &dev[2 * s], &dev[2 * s + 1]);
        }
        gb_hpf_run(cap, gb_hpf_charge(model == GB_MODEL_CGB), dev, (int)al->n);
        gb_audio_filter(b, blk, (int)al->n);
        same_blk += (int)al->n == n && !memcmp(blk, nat, (size_t)n * 4);
        same_dev += (int)al->n == n && !memcmp(dev, nat, (size_t)n * 4);
        for (int i = 0; i < 2 * n; i++)
            nonzero += nat[i] != 0;
    }
    t_check(same_blk == frames && keys > 500 && nonzero > 10000, "gb audio native == block",
            "%s: %d/%d frames identical after the filter (%llu keyframes, %llu non-zero samples)", mn, same_blk, frames,
            (unsigned long long)keys, (unsigned long long)nonzero);
    t_check(same_dev == frames, "gb audio native == per-sample (device form)", "%s: %d/%d frames identical", mn, same_dev,
            frames);
    free(blk);
    free(dev);
    gb_free(a);
    gb_free(b);
    gb_cart_free(c);
    free(r);
}

static void test_lfsr(void)
{
    gb_lfsr_jump *J = malloc(sizeof *J);
    gb_lfsr_jump_init(J);
    int ok = 1;
    for (int w = 0; w < 2; w++) {
        uint16_t s = 0x7FFF;
        for (uint32_t n = 1; n <= 40000; n++) {
            s = gb_lfsr_step(s, w);
            if (n % 97 == 0 || n < 64)
                ok &= gb_lfsr_jump_apply(J, 0x7FFF, w, n) == s;
        }
    }
    uint16_t s = 0x7FFF, x = 0x7FFF;
    for (int i = 0; i < 32767; i++)
        s = gb_lfsr_step(s, 0);
    x = gb_lfsr_jump_apply(J, x, 0, 32767);
    t_check(ok && s == 0x7FFF && x == 0x7FFF, "gb lfsr jump", "jumps of 1..40000 steps equal stepping; period 32767");
    free(J);
}

static void test_xxh3(void)
{
    uint8_t sec[DEV_XXH3_SECRET_SIZE];
    dev_xxh3_secret(sec);
    int bad = 0, n = 0;
    for (size_t len = 241; len < 140000; len = len * 3 / 2 + 7, n++) {
        uint8_t *b = malloc(len);
        for (size_t i = 0; i < len; i++)
            b[i] = (uint8_t)rnd();
        uint64_t acc[8];
        for (int i = 0; i < 8; i++)
            acc[i] = dev_xxh3_lane(b, len, sec, i);
        if (dev_xxh3_long(b, len, sec) != gv_hash64(b, len) || dev_xxh3_merge(acc, len, sec) != gv_hash64(b, len))
            bad++;
        free(b);
    }
    t_check(bad == 0, "gb xxh3 device form", "%d lengths from 241 to 140000: sequential and lane-parallel == gv_hash64", n);
}

static void trace_to_file(void *ctx, const char *line, size_t len)
{
    fwrite(line, 1, len, ctx);
    fputc('\n', ctx);
}

static void test_trace(void)
{
    uint8_t *r = make_rom(32, 0x00, 0, 0, busy_prog, sizeof busy_prog);
    gb_cart *c = load(r, 32);
    gb *g;
    gv_err e;
    gb_new(c, GB_MODEL_DMG, 0, &g, &e);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gb_set_trace(g, trace_to_file, f);
    gb_run_frame(g);
    gb_set_trace(g, NULL, NULL);
    fclose(f);
    regex_t re;
    regcomp(&re,
            "^A:[0-9A-F]{2} F:[0-9A-F]{2} B:[0-9A-F]{2} C:[0-9A-F]{2} D:[0-9A-F]{2} E:[0-9A-F]{2} H:[0-9A-F]{2} "
            "L:[0-9A-F]{2} SP:[0-9A-F]{4} PC:[0-9A-F]{4} PCMEM:[0-9A-F]{2},[0-9A-F]{2},[0-9A-F]{2},[0-9A-F]{2}$",
            REG_EXTENDED | REG_NOSUB);
    int lines = 0, good = 0;
    for (char *p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"), lines++)
        good += regexec(&re, p, 0, NULL, 0) == 0;
    regfree(&re);
    const char *first = "A:01 F:B0 B:00 C:13 D:00 E:D8 H:01 L:4D SP:FFFE PC:0100 PCMEM:00,C3,50,01";
    t_check(lines > 100 && good == lines && !strncmp(buf, first, strlen(first)), "gb trace layout",
            "%d/%d lines in the Gameboy Doctor layout, first is the DMG post-boot state", good, lines);
    free(buf);
    gb_free(g);
    gb_cart_free(c);
    free(r);
}

int main(void)
{
    test_header();
    test_header_boards();
    test_mbc1();
    test_mbc3_rtc();
    test_mbc3_file();
    test_mbc5();
    test_state();
    test_render_parity(0, reg_prog, sizeof reg_prog, "gb render parity dmg");
    test_render_parity(1, reg_prog, sizeof reg_prog, "gb render parity cgb");
    test_render_parity(1, gdma_prog, sizeof gdma_prog, "gb render parity cgb gdma in mode 3");
    test_render_parity(2, reg_prog, sizeof reg_prog, "gb render parity cgb in dmg compatibility mode");
    test_audio_parity(GB_MODEL_DMG);
    test_audio_parity(GB_MODEL_CGB);
    test_lfsr();
    test_xxh3();
    test_trace();
    return t_done();
}
