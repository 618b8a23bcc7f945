/* test_nes_carts.c: cartridge headers and the boards' banking, against the documented
 * behaviour: iNES / NES 2.0 size fields, the old "DiskDude!" headers, rejected inputs; then
 * for each mapper a ROM image whose every 8 KiB PRG bank and 1 KiB CHR bank is filled with
 * its own number, so a read through the CPU or PPU map says which bank is mapped there. */
#include <stdlib.h>
#include <string.h>

#include "emu/nes/nes_int.h"
#include "nes_test.h"

/* An image: header + PRG (8 KiB banks numbered) + CHR (1 KiB banks numbered, +0x80). */
static uint8_t *image(int mapper, int prg16, int chr8, int flags6, size_t *len)
{
    *len = 16 + (size_t)prg16 * 16384 + (size_t)chr8 * 8192;
    uint8_t *d = calloc(1, *len);
    memcpy(d, "NES\x1A", 4);
    d[4] = (uint8_t)prg16;
    d[5] = (uint8_t)chr8;
    d[6] = (uint8_t)((mapper & 0x0F) << 4 | flags6);
    d[7] = (uint8_t)(mapper & 0xF0);
    for (int b = 0; b < prg16 * 2; b++)
        memset(d + 16 + (size_t)b * 8192, b, 8192);
    for (int b = 0; b < chr8 * 8; b++)
        memset(d + 16 + (size_t)prg16 * 16384 + (size_t)b * 1024, 0x80 | b, 1024);
    return d;
}

/* A board under test: its image, cartridge and machine. */
typedef struct {
    uint8_t *d;
    size_t len;
    nes_cart c;
    nes *m;
} board;

/* Makes an image an NES 2.0 one: submapper, bytes 10 (PRG-RAM | PRG-NVRAM << 4) and 11
 * (CHR-RAM | CHR-NVRAM << 4) as shift counts (64 << n bytes). */
static void nes2(uint8_t *d, int mapper, int sub, int b10, int b11)
{
    d[6] = (uint8_t)((d[6] & 0x0F) | (mapper & 0x0F) << 4);
    d[7] = (uint8_t)((mapper & 0xF0) | 0x08);
    d[8] = (uint8_t)(((mapper >> 8) & 0x0F) | (sub << 4));
    d[10] = (uint8_t)b10;
    d[11] = (uint8_t)b11;
}

/* Opens the board of image d (which b then owns). */
static nes *board_open_image(board *b, uint8_t *d, size_t len)
{
    gv_err err;
    memset(b, 0, sizeof *b);
    b->d = d;
    b->len = len;
    if (nes_cart_parse(b->d, b->len, "test", &b->c, &err) != GV_OK) {
        t_check(0, "parse", "%s", err.msg);
        return NULL;
    }
    nes_opts o = {0};
    if (nes_new(&b->c, &o, &b->m, &err) != GV_OK) {
        t_check(0, "machine", "%s", err.msg);
        b->m = NULL;
    }
    return b->m;
}

static nes *board_open(board *b, int mapper, int prg16, int chr8, int flags6)
{
    size_t len;
    uint8_t *d = image(mapper, prg16, chr8, flags6, &len);
    return board_open_image(b, d, len);
}

/* The same with an NES 2.0 header (nes2 above). */
static nes *board_open2(board *b, int mapper, int sub, int prg16, int chr8, int flags6, int b10, int b11)
{
    size_t len;
    uint8_t *d = image(mapper, prg16, chr8, flags6, &len);
    nes2(d, mapper, sub, b10, b11);
    return board_open_image(b, d, len);
}

static void board_close(board *b)
{
    nes_free(b->m);
    nes_cart_free(&b->c);
    free(b->d);
}

/* Which PRG bank the CPU sees at a, which CHR bank the PPU sees at pattern address a. */
static int prg_at(const nes *m, uint16_t a)
{
    return nes_peek(m, a);
}

static int chr_at(const nes *m, int a)
{
    return nes_chr_rd(&m->ppu.mem, &m->ppu.pl.r, a) & 0x7F;
}

static void wr(nes *m, uint16_t a, uint8_t v)
{
    m->cyc += 2; /* not on consecutive cycles (MMC1 ignores those) */
    nes_board_write(m, a, v);
}

static void mmc1(nes *m, uint16_t a, uint8_t v)
{
    for (int i = 0; i < 5; i++)
        wr(m, a, (uint8_t)((v >> i) & 1));
}

static void headers(void)
{
    gv_err err;
    nes_cart c;
    size_t len;
    uint8_t *d = image(0, 2, 1, 1, &len);
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.prg_size == 32768 && c.chr_size == 8192 &&
                c.mirroring == NES_MIRROR_V && c.prg_ram_size == 8192 && !c.nes2,
            "iNES header", "NROM 32 KiB PRG, 8 KiB CHR, vertical mirroring, 8 KiB PRG-RAM by default");
    nes_cart_free(&c);
    /* NES 2.0: byte 7 bits 2-3 = 2; exponent-multiplier PRG size 2^15 * 1 = 32 KiB */
    d[7] = 0x08;
    d[4] = (15 << 2) | 0;
    d[9] = 0x0F;
    d[10] = 0x07;
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.prg_size == 32768 && c.nes2 && c.prg_ram_size == 8192,
            "NES 2.0 exponent size", "2^15 x 1 = 32 KiB PRG, PRG-RAM 64 << 7");
    nes_cart_free(&c);
    d[12] = 1; /* PAL */
    int ok = nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.timing == NES_TIMING_PAL;
    t_check(ok, "NES 2.0 PAL timing", "%s", ok ? "byte 12 = 1: PAL" : err.msg);
    if (ok)
        nes_cart_free(&c);
    free(d);
    /* iNES 1.0: byte 9 bit 0 (PAL), else byte 10 bits 0-1 (2 PAL, 1 or 3 both) when the
     * rest of the byte is clear; other bits set: padding, NTSC */
    static const struct {
        uint8_t b9, b10;
        int timing;
    } tv[] = {{0, 0, NES_TIMING_NTSC}, {1, 0, NES_TIMING_PAL},  {0, 2, NES_TIMING_PAL}, {0, 1, NES_TIMING_MULTI},
              {0, 3, NES_TIMING_MULTI}, {0, 0x12, NES_TIMING_PAL}, {3, 0, NES_TIMING_NTSC}, {0, 0x42, NES_TIMING_NTSC}};
    d = image(0, 2, 1, 1, &len);
    int bad = -1, got = -1;
    for (int i = 0; i < (int)(sizeof tv / sizeof tv[0]) && bad < 0; i++) {
        d[9] = tv[i].b9;
        d[10] = tv[i].b10;
        got = nes_cart_parse(d, len, "t", &c, &err) == GV_OK ? c.timing : -1;
        if (got >= 0)
            nes_cart_free(&c);
        if (got != tv[i].timing)
            bad = i;
    }
    if (bad < 0)
        t_check(1, "iNES 1.0 TV system", "bytes 9/10 $01/$00 and $00/$x2: PAL; $00/$x1 and $00/$x3: both (NTSC); "
                                         "reserved bits set: padding (NTSC)");
    else
        t_check(0, "iNES 1.0 TV system", "bytes 9/10 $%02X/$%02X: timing %d, %d expected", tv[bad].b9, tv[bad].b10, got,
                tv[bad].timing);
    free(d);
    /* an old dump with text in bytes 7-15: byte 7's mapper nibble is not used */
    d = image(2, 2, 0, 0, &len);
    memcpy(d + 7, "DiskDude!", 9);
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.mapper == 2 && c.chr_ram_size == 8192,
            "DiskDude header", "mapper %d (2 expected: byte 7 ignored), CHR-RAM %u", c.mapper, c.chr_ram_size);
    nes_cart_free(&c);
    free(d);
    /* trainer: 512 bytes before PRG */
    d = image(0, 1, 1, 4, &len);
    uint8_t *t = calloc(1, len + 512);
    memcpy(t, d, 16);
    memset(t + 16, 0xEE, 512);
    memcpy(t + 16 + 512, d + 16, len - 16);
    t_check(nes_cart_parse(t, len + 512, "t", &c, &err) == GV_OK && c.prg[0] == 0 && c.chr[0] == 0x80,
            "trainer skipped", "PRG starts after the 512-byte trainer");
    nes_cart_free(&c);
    free(t);
    d[4] = 0;
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT, "no PRG rejected", "%s", err.msg);
    d[4] = 1;
    d[7] = 0x04;
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT, "reserved format bits rejected", "%s", err.msg);
    d[7] = 0;
    d[6] = 0x60 | (d[6] & 0x0F); /* mapper 6 */
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT && strstr(err.msg, "mapper 6 (FFE F4xxx)"),
            "unsupported mapper rejected", "%s", err.msg);
    d[6] &= 0x0F;
    d[4] = 4; /* NROM with 64 KiB PRG */
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT, "oversized NROM rejected", "%s", err.msg);
    free(d);
}

static void nrom(void)
{
    board b;
    nes *m = board_open(&b, 0, 1, 1, 0);
    if (m)
        t_check(prg_at(m, 0x8000) == 0 && prg_at(m, 0xA000) == 1 && prg_at(m, 0xC000) == 0 && prg_at(m, 0xE000) == 1 &&
                    chr_at(m, 0x1C00) == 7 && m->ppu.pl.r.nt_map[1] == 0 && m->ppu.pl.r.nt_map[2] == 0x400,
                "NROM-128", "16 KiB PRG mirrored at $C000, 8 KiB CHR, horizontal mirroring");
    board_close(&b);
}

static void uxrom(void)
{
    board b;
    nes *m = board_open(&b, 2, 8, 0, 1);
    if (m) {
        wr(m, 0x8000, 5);
        int ok = prg_at(m, 0x8000) == 10 && prg_at(m, 0xBFFF) == 11 && prg_at(m, 0xC000) == 14 && prg_at(m, 0xE000) == 15;
        wr(m, 0xFFFF, 9); /* 9 of 8 banks wraps to 1 */
        ok &= prg_at(m, 0x8000) == 2 && prg_at(m, 0xC000) == 14;
        ok &= (m->ppu.pl.r.chr_map[3] & NES_CHR_RAM) != 0;
        t_check(ok, "UxROM", "16 KiB bank at $8000 from any write to $8000-$FFFF, last bank fixed at $C000, CHR-RAM");
    }
    board_close(&b);
}

static void cnrom(void)
{
    board b;
    nes *m = board_open(&b, 3, 2, 4, 0);
    if (m) {
        int ok = chr_at(m, 0x0000) == 0 && chr_at(m, 0x1C00) == 7;
        wr(m, 0x8000, 2);
        ok &= chr_at(m, 0x0000) == 16 && chr_at(m, 0x1C00) == 23 && prg_at(m, 0x8000) == 0 && prg_at(m, 0xE000) == 3;
        t_check(ok, "CNROM", "8 KiB CHR bank from writes to $8000-$FFFF, PRG fixed");
    }
    board_close(&b);
}

static void axrom(void)
{
    board b;
    nes *m = board_open(&b, 7, 8, 0, 0);
    if (m) {
        wr(m, 0x8000, 0x02);
        int ok = prg_at(m, 0x8000) == 8 && prg_at(m, 0xE000) == 11;
        for (int i = 0; i < 4; i++)
            ok &= m->ppu.pl.r.nt_map[i] == 0;
        wr(m, 0x8000, 0x13);
        ok &= prg_at(m, 0x8000) == 12;
        for (int i = 0; i < 4; i++)
            ok &= m->ppu.pl.r.nt_map[i] == 0x400;
        t_check(ok, "AxROM", "32 KiB PRG bank from bits 0-2, one-screen nametable page from bit 4");
    }
    board_close(&b);
}

static void mmc1_board(void)
{
    board b;
    nes *m = board_open(&b, 1, 8, 4, 0);
    if (!m)
        goto out;
    /* power-on: control $0C, last 16 KiB fixed at $C000 */
    int ok = prg_at(m, 0xC000) == 14 && prg_at(m, 0xE000) == 15;
    mmc1(m, 0xE000, 3);
    ok &= prg_at(m, 0x8000) == 6 && prg_at(m, 0xC000) == 14;
    t_check(ok, "MMC1 PRG mode 3", "switchable $8000, last bank fixed at $C000");
    mmc1(m, 0x8000, 0x08); /* first bank fixed at $8000, switch $C000; one-screen lower */
    ok = prg_at(m, 0x8000) == 0 && prg_at(m, 0xC000) == 6 && m->ppu.pl.r.nt_map[3] == 0;
    mmc1(m, 0x8000, 0x02); /* 32 KiB mode (low bit ignored), vertical mirroring */
    mmc1(m, 0xE000, 5);
    ok &= prg_at(m, 0x8000) == 8 && prg_at(m, 0xC000) == 10 && m->ppu.pl.r.nt_map[1] == 0x400 && m->ppu.pl.r.nt_map[2] == 0;
    t_check(ok, "MMC1 PRG modes 2 and 0", "fixed first bank; 32 KiB banks; mirroring from the control register");
    mmc1(m, 0x8000, 0x10 | 0x03); /* 4 KiB CHR banks, horizontal */
    mmc1(m, 0xA000, 3);
    mmc1(m, 0xC000, 6);
    ok = chr_at(m, 0x0000) == 12 && chr_at(m, 0x0C00) == 15 && chr_at(m, 0x1000) == 24 && chr_at(m, 0x1C00) == 27;
    mmc1(m, 0x8000, 0x00 | 0x03); /* 8 KiB CHR: bank 0 in 4 KiB units, its low bit ignored: 3 -> 2 */
    ok &= chr_at(m, 0x0000) == 8 && chr_at(m, 0x1C00) == 15;
    t_check(ok, "MMC1 CHR modes", "two 4 KiB banks; one 8 KiB bank (4 KiB units, low bit ignored)");
    /* a write with bit 7 resets the shift register and fixes the last bank at $C000 */
    wr(m, 0xE000, 1);
    wr(m, 0xE000, 1);
    wr(m, 0x8000, 0x80);
    mmc1(m, 0xE000, 2);
    ok = prg_at(m, 0x8000) == 4 && prg_at(m, 0xC000) == 14;
    /* writes on consecutive CPU cycles: only the first counts */
    m->cyc += 10;
    for (int i = 0; i < 5; i++) {
        nes_board_write(m, 0xE000, 1); /* counted */
        m->cyc++;
        nes_board_write(m, 0xE000, 0); /* ignored: the next cycle */
        m->cyc += 2;
    }
    /* five counted 1s: bank 15 (8 KiB bank 30 of 16 wraps to 14); with the second writes
     * counted too it would be bank 10 (8 KiB bank 20 -> 4) */
    ok &= prg_at(m, 0x8000) == 14;
    t_check(ok, "MMC1 reset and RMW double writes", "bit 7 resets; the second of two writes on consecutive cycles is ignored");
out:
    board_close(&b);
}

static void mmc3_board(void)
{
    board b;
    nes *m = board_open(&b, 4, 16, 16, 0);
    if (!m)
        goto out;
    static const uint8_t banks[8] = {4, 10, 20, 21, 22, 23, 5, 9};
    for (int r = 0; r < 8; r++) {
        wr(m, 0x8000, (uint8_t)r);
        wr(m, 0x8001, banks[r]);
    }
    int ok = prg_at(m, 0x8000) == 5 && prg_at(m, 0xA000) == 9 && prg_at(m, 0xC000) == 30 && prg_at(m, 0xE000) == 31;
    ok &= chr_at(m, 0x0000) == 4 && chr_at(m, 0x0400) == 5 && chr_at(m, 0x0800) == 10 && chr_at(m, 0x0C00) == 11 &&
          chr_at(m, 0x1000) == 20 && chr_at(m, 0x1C00) == 23;
    t_check(ok, "MMC3 mode 0", "R6 at $8000, R7 at $A000, second-last and last fixed; 2 KiB R0/R1 at $0000, 1 KiB R2-R5 at $1000");
    wr(m, 0x8000, 0xC0); /* PRG mode 1, CHR inversion */
    ok = prg_at(m, 0x8000) == 30 && prg_at(m, 0xC000) == 5 && chr_at(m, 0x0000) == 20 && chr_at(m, 0x1000) == 4 &&
         chr_at(m, 0x1C00) == 11;
    wr(m, 0xA000, 1);
    ok &= m->ppu.pl.r.nt_map[1] == 0 && m->ppu.pl.r.nt_map[2] == 0x400;
    t_check(ok, "MMC3 mode 1 and inversion", "$C000 takes R6; CHR halves swapped; $A000 horizontal mirroring");
    /* scanline counter: latch 3, reload; edges 1..4: reload to 3, 2, 1, 0 -> IRQ at the 4th */
    wr(m, 0xC000, 3);
    wr(m, 0xC001, 0);
    wr(m, 0xE001, 0);
    int when = -1;
    for (int e = 1; e <= 6 && when < 0; e++) {
        nes_board_a12(m, (uint64_t)e * 341);
        if (m->irq_src & NES_IRQ_MAPPER)
            when = e;
    }
    ok = when == 4;
    wr(m, 0xE000, 0); /* acknowledge and disable */
    ok &= !(m->irq_src & NES_IRQ_MAPPER);
    for (int e = 0; e < 8; e++)
        nes_board_a12(m, 10000 + (uint64_t)e * 341);
    ok &= !(m->irq_src & NES_IRQ_MAPPER);
    t_check(ok, "MMC3 scanline counter", "latch 3: reload, 2, 1, 0 -> IRQ at edge %d (4 expected); $E000 acknowledges and disables", when);
out:
    board_close(&b);
}

/* ---- NES 2.0 fields and the boards added with the board interface ------------------- */

static void headers_nes2(void)
{
    gv_err err;
    nes_cart c;
    size_t len;
    uint8_t *d = image(1, 16, 0, 2, &len);
    nes2(d, 1, 0, 0x77, 0x07); /* 8 KiB PRG-RAM + 8 KiB PRG-NVRAM, 8 KiB CHR-RAM */
    int ok = nes_cart_parse(d, len, "t", &c, &err) == GV_OK;
    t_check(ok && c.prg_ram_size == 16384 && c.prg_nvram_size == 8192 && c.chr_ram_size == 8192 && c.battery &&
                !strcmp(nes_cart_board(&c), "MMC1 (SOROM)"),
            "NES 2.0 RAM sizes", "PRG-RAM %u (NVRAM %u), CHR-RAM %u, battery %d: board %s", c.prg_ram_size,
            c.prg_nvram_size, c.chr_ram_size, c.battery, ok ? nes_cart_board(&c) : err.msg);
    if (ok)
        nes_cart_free(&c);
    d[12] = 3; /* Dendy */
    ok = nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.timing == NES_TIMING_DENDY;
    t_check(ok, "NES 2.0 Dendy timing", "%s", ok ? "byte 12 = 3: Dendy" : err.msg);
    if (ok)
        nes_cart_free(&c);
    d[12] = 2; /* multiple-region: runs as NTSC */
    ok = nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.timing == NES_TIMING_MULTI;
    t_check(ok, "NES 2.0 multiple-region accepted", "timing %d", c.timing);
    if (ok)
        nes_cart_free(&c);
    d[12] = 0;
    /* a miscellaneous ROM after CHR */
    uint8_t *e = calloc(1, len + 100);
    memcpy(e, d, len);
    e[14] = 1;
    ok = nes_cart_parse(e, len + 100, "t", &c, &err) == GV_OK && c.misc_roms == 1 && c.misc_size == 100 &&
         c.misc == c.data + len;
    t_check(ok, "NES 2.0 misc ROM", "%d misc ROM(s), %u bytes after CHR", c.misc_roms, c.misc_size);
    if (ok)
        nes_cart_free(&c);
    free(e);
    nes2(d, 34, 3, 0x07, 0x07); /* mapper 34 has submappers 1 and 2 */
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT && strstr(err.msg, "submapper 3 of mapper 34"),
            "unsupported submapper rejected", "%s", err.msg);
    free(d);
    /* iNES 1.0: byte 8 is the PRG-RAM size in 8 KiB units */
    d = image(1, 16, 0, 0, &len);
    d[8] = 4;
    ok = nes_cart_parse(d, len, "t", &c, &err) == GV_OK && c.prg_ram_size == 32768 && !c.prg_nvram_size;
    t_check(ok && !strcmp(nes_cart_board(&c), "MMC1 (SXROM)"), "iNES PRG-RAM size byte", "%u bytes: %s",
            c.prg_ram_size, ok ? nes_cart_board(&c) : err.msg);
    if (ok)
        nes_cart_free(&c);
    free(d);
}

/* The byte the CPU reads at $6000 with open bus showing as $5A. */
static int wram_at(nes *m, uint16_t a)
{
    m->bus = 0x5A;
    return nes_peek(m, a);
}

static void mmc1_variants(void)
{
    board b;
    nes *m = board_open2(&b, 1, 0, 16, 0, 0, 0x77, 0x07); /* SOROM */
    if (m) {
        wr(m, 0x6000, 0x11);
        mmc1(m, 0xA000, 0x08); /* CHR bank 0 bit 3: PRG-RAM A13 */
        wr(m, 0x6000, 0x22);
        int ok = wram_at(m, 0x6000) == 0x22 && m->prg_ram[8192] == 0x22 && m->prg_ram[0] == 0x11;
        mmc1(m, 0xA000, 0x00);
        ok &= wram_at(m, 0x6000) == 0x11;
        t_check(ok, "SOROM PRG-RAM banks", "CHR bank 0 bit 3 selects the 8 KiB page (the second battery-backed)");
    }
    board_close(&b);
    m = board_open2(&b, 1, 0, 32, 0, 0, 0x09, 0x07); /* SXROM: 512 KiB PRG, 32 KiB PRG-RAM */
    if (m) {
        for (int pg = 0; pg < 4; pg++) {
            mmc1(m, 0xA000, (uint8_t)(pg << 2));
            wr(m, 0x6000, (uint8_t)(0x40 + pg));
        }
        int ok = m->prg_ram[0] == 0x40 && m->prg_ram[8192] == 0x41 && m->prg_ram[16384] == 0x42 && m->prg_ram[24576] == 0x43;
        mmc1(m, 0xE000, 2); /* 16 KiB bank 2 at $8000 */
        ok &= prg_at(m, 0x8000) == 4 && prg_at(m, 0xC000) == 30;
        mmc1(m, 0xA000, 0x10 | 0x04); /* PRG A18 (second 256 KiB), RAM page 1 */
        ok &= prg_at(m, 0x8000) == 36 && prg_at(m, 0xC000) == 62 && wram_at(m, 0x6000) == 0x41;
        t_check(ok, "SXROM", "CHR bank 0 bits 2-3 select the 32 KiB PRG-RAM's page, bit 4 PRG A18");
    }
    board_close(&b);
    m = board_open2(&b, 1, 0, 8, 0, 0, 0x07, 0x07); /* SNROM */
    if (m) {
        wr(m, 0x6000, 0x77);
        int ok = wram_at(m, 0x6000) == 0x77;
        mmc1(m, 0xA000, 0x10); /* CHR bank 0 bit 4: PRG-RAM off */
        ok &= wram_at(m, 0x6000) == 0x5A;
        wr(m, 0x6000, 0x12);
        mmc1(m, 0xA000, 0x00);
        ok &= wram_at(m, 0x6000) == 0x77;
        t_check(ok, "SNROM PRG-RAM disable", "CHR bank 0 bit 4 disables the PRG-RAM (open bus, writes ignored)");
    }
    board_close(&b);
    m = board_open2(&b, 1, 5, 2, 1, 0, 0x07, 0x00); /* SEROM */
    if (m) {
        mmc1(m, 0xE000, 1);
        mmc1(m, 0x8000, 0x0C);
        t_check(prg_at(m, 0x8000) == 0 && prg_at(m, 0xC000) == 2 && !strcmp(m->bd->name, "MMC1 (SEROM/SHROM)"),
                "SEROM (submapper 5)", "32 KiB fixed: no PRG banking (bank 1 written, $8000 shows bank %d)",
                prg_at(m, 0x8000));
    }
    board_close(&b);
}

static void mmc3_relatives(void)
{
    board b;
    nes *m = board_open2(&b, 4, 1, 16, 16, 0, 0x40, 0x00); /* MMC6: 1 KiB of PRG-NVRAM */
    if (m) {
        int ok = wram_at(m, 0x7000) == 0x5A; /* RAM disabled at power */
        wr(m, 0x8000, 0x20);                 /* RAM on */
        wr(m, 0xA001, 0xF0);                 /* both halves readable and writable */
        wr(m, 0x7000, 0x33);
        wr(m, 0x7200, 0x44);
        ok &= wram_at(m, 0x7C00) == 0x33 && wram_at(m, 0x7E00) == 0x44 && wram_at(m, 0x6000) == 0x5A;
        wr(m, 0xA001, 0x20); /* only the lower half readable */
        ok &= wram_at(m, 0x7000) == 0x33 && wram_at(m, 0x7200) == 0;
        wr(m, 0x7000, 0x55); /* lower half read-only now */
        ok &= wram_at(m, 0x7000) == 0x33;
        wr(m, 0x8000, 0x00); /* RAM off: $A001 held at 0 */
        wr(m, 0xA001, 0xF0);
        wr(m, 0x8000, 0x20);
        ok &= wram_at(m, 0x7000) == 0x5A;
        t_check(ok, "MMC6 RAM", "1 KiB at $7000 mirrored; per-half read/write enables; open bus when neither reads");
    }
    board_close(&b);
    m = board_open(&b, 118, 8, 16, 0); /* TxSROM */
    if (m) {
        wr(m, 0x8000, 0);
        wr(m, 0x8001, 0x80); /* R0 (2 KiB at $0000): bit 7 */
        wr(m, 0x8000, 1);
        wr(m, 0x8001, 0x02);
        int ok = m->ppu.pl.r.nt_map[0] == 0x400 && m->ppu.pl.r.nt_map[1] == 0x400 && m->ppu.pl.r.nt_map[2] == 0 &&
                 m->ppu.pl.r.nt_map[3] == 0;
        wr(m, 0x8000, 0x80 | 2); /* CHR inversion: R2-R5 at $0000-$0FFF */
        wr(m, 0x8001, 0x00);
        wr(m, 0x8000, 0x80 | 3);
        wr(m, 0x8001, 0x81);
        wr(m, 0x8000, 0x80 | 4);
        wr(m, 0x8001, 0x82);
        wr(m, 0x8000, 0x80 | 5);
        wr(m, 0x8001, 0x03);
        ok &= m->ppu.pl.r.nt_map[0] == 0 && m->ppu.pl.r.nt_map[1] == 0x400 && m->ppu.pl.r.nt_map[2] == 0x400 &&
              m->ppu.pl.r.nt_map[3] == 0 && chr_at(m, 0x0400) == 1;
        t_check(ok, "TxSROM (118)", "CHR bank bit 7 of each 1 KiB at PPU $0000-$0FFF selects that nametable slot's CIRAM page");
    }
    board_close(&b);
    m = board_open(&b, 119, 8, 8, 0); /* TQROM: 64 KiB CHR-ROM + 8 KiB CHR-RAM */
    if (m) {
        wr(m, 0x8000, 2);
        wr(m, 0x8001, 0x40 | 3);
        wr(m, 0x8000, 3);
        wr(m, 0x8001, 5);
        int ok = b.c.chr_ram_size == 8192 && m->ppu.pl.r.chr_map[4] == (NES_CHR_RAM | 3 * 1024) && chr_at(m, 0x1400) == 5;
        t_check(ok, "TQROM (119)", "bank values with bit 6 select 1 KiB of the 8 KiB CHR-RAM, others CHR-ROM");
    }
    board_close(&b);
    m = board_open(&b, 206, 8, 8, 1); /* Namco 108, vertical */
    if (m) {
        static const uint8_t banks[8] = {4, 10, 20, 21, 22, 23, 5, 9};
        for (int r = 0; r < 8; r++) {
            wr(m, 0x8000, (uint8_t)(0xC0 | r)); /* mode bits do not exist */
            wr(m, 0x8001, banks[r]);
        }
        wr(m, 0xA000, 1); /* no mirroring register */
        int ok = prg_at(m, 0x8000) == 5 && prg_at(m, 0xA000) == 9 && prg_at(m, 0xC000) == 14 && chr_at(m, 0x0000) == 4 &&
                 chr_at(m, 0x1000) == 20 && m->ppu.pl.r.nt_map[1] == 0x400;
        t_check(ok, "Namco 108 (206)", "MMC3 banks in mode 0 only, header mirroring");
    }
    board_close(&b);
}

/* Bus conflicts: the discrete boards' images get $FF at CPU $FFF0-$FFFF of the power-on
 * mapping, where writes keep their value. */
static nes *board_open_ff(board *b, int mapper, int prg16, int chr8, int flags6)
{
    size_t len;
    uint8_t *d = image(mapper, prg16, chr8, flags6, &len);
    memset(d + 16 + 32768 - 16, 0xFF, 16);
    return board_open_image(b, d, len);
}

static void discrete_boards(void)
{
    board b;
    nes *m = board_open_ff(&b, 11, 8, 16, 0); /* Color Dreams */
    if (m) {
        wr(m, 0xFFF0, 0x21);
        int ok = prg_at(m, 0x8000) == 4 && chr_at(m, 0) == 16;
        wr(m, 0x8000, 0x33); /* ROM byte 4 there: 0x33 & 4 = 0 */
        ok &= prg_at(m, 0x8000) == 0 && chr_at(m, 0) == 0;
        t_check(ok, "Color Dreams (11)", "32 KiB PRG bank bits 0-1, 8 KiB CHR bank bits 4-7, bus conflicts");
    }
    board_close(&b);
    m = board_open_ff(&b, 13, 2, 0, 0); /* CPROM */
    if (m) {
        wr(m, 0xFFF0, 2);
        int ok = b.c.chr_ram_size == 16384 && m->ppu.pl.r.chr_map[0] == NES_CHR_RAM &&
                 m->ppu.pl.r.chr_map[4] == (NES_CHR_RAM | 8192) && m->ppu.pl.r.chr_map[7] == (NES_CHR_RAM | 11264);
        t_check(ok, "CPROM (13)", "16 KiB CHR-RAM: $0000 fixed to the first 4 KiB, $1000 the page of bits 0-1");
    }
    board_close(&b);
    m = board_open_ff(&b, 34, 8, 0, 0); /* BNROM */
    if (m) {
        wr(m, 0xFFF0, 2);
        t_check(!strcmp(m->bd->name, "BNROM") && prg_at(m, 0x8000) == 8 && prg_at(m, 0xE000) == 11, "BNROM (34)",
                "32 KiB PRG bank; chosen for mapper 34 with CHR-RAM");
    }
    board_close(&b);
    m = board_open(&b, 34, 4, 2, 0); /* NINA-001: 16 KiB CHR-ROM */
    if (m) {
        wr(m, 0x7FFD, 1);
        wr(m, 0x7FFE, 2);
        wr(m, 0x7FFF, 3);
        int ok = !strcmp(m->bd->name, "NINA-001") && prg_at(m, 0x8000) == 4 && chr_at(m, 0x0000) == 8 &&
                 chr_at(m, 0x1000) == 12 && wram_at(m, 0x7FFF) == 3;
        t_check(ok, "NINA-001 (34)", "$7FFD 32 KiB PRG, $7FFE/$7FFF 4 KiB CHR at $0000/$1000, the RAM underneath written too");
    }
    board_close(&b);
    m = board_open_ff(&b, 66, 8, 4, 0); /* GxROM */
    if (m) {
        wr(m, 0xFFF0, 0x23);
        t_check(prg_at(m, 0x8000) == 8 && chr_at(m, 0) == 24, "GxROM (66)", "32 KiB PRG bank bits 4-5, 8 KiB CHR bits 0-1");
    }
    board_close(&b);
    m = board_open(&b, 71, 8, 0, 1); /* Camerica, iNES 1.0, vertical */
    if (m) {
        wr(m, 0xC000, 3);
        int ok = prg_at(m, 0x8000) == 6 && prg_at(m, 0xC000) == 14;
        wr(m, 0x8000, 0x10); /* not the mirroring register on an iNES 1.0 image */
        ok &= m->ppu.pl.r.nt_map[1] == 0x400;
        wr(m, 0x9000, 0x10); /* Fire Hawk's one-screen select */
        ok &= m->ppu.pl.r.nt_map[0] == 0x400 && m->ppu.pl.r.nt_map[3] == 0x400;
        t_check(ok, "Camerica (71)", "16 KiB bank from $C000, last fixed; one-screen from $9000 bit 4 once written");
    }
    board_close(&b);
    m = board_open(&b, 0, 3, 1, 0); /* NROM-368 */
    if (m) {
        int ok = !strcmp(m->bd->name, "NROM-368") && b.c.prg_ram_size == 0 && wram_at(m, 0x4800) == 0 &&
                 wram_at(m, 0x6000) == 1 && prg_at(m, 0x8000) == 2 && prg_at(m, 0xE000) == 5 && wram_at(m, 0x47FF) == 0x5A;
        t_check(ok, "NROM-368", "48 KiB image: its last 46 KiB at $4800-$FFFF, $4020-$47FF open bus, no PRG-RAM");
    }
    board_close(&b);
}

/* The CPU-cycle counters: when the board asks to be woken, and the IRQ it raises then. */
static void cycle_irqs(void)
{
    board b;
    nes *m = board_open2(&b, 21, 1, 8, 8, 0, 0x07, 0x00); /* VRC4a: registers at +0, +2, +4, +6 */
    if (m) {
        wr(m, 0xF000, 0x0D);
        wr(m, 0xF002, 0x0F); /* latch $FD: 3 prescaler clocks to the overflow */
        wr(m, 0xF004, 0x02); /* E, scanline mode: the counter reloads, the prescaler restarts at 341 */
        uint64_t c0 = m->cyc, t1 = m->board_ev;
        m->cyc = t1; /* the machine reaches the event */
        nes_events(m);
        int ok = t1 == c0 + 341 && (m->irq_src & NES_IRQ_MAPPER) && m->irq_at == t1 && m->board_ev == t1 + 341;
        t_check(ok, "VRC IRQ scanline mode", "latch $FD: IRQ %llu cycles after the control write (341: 114 + 114 + 113), "
                "then every %llu", (unsigned long long)(t1 - c0), (unsigned long long)(m->board_ev - t1));
        wr(m, 0xF006, 0); /* acknowledge: A (0) moves to E */
        ok = !(m->irq_src & NES_IRQ_MAPPER) && m->board_ev == NES_NEVER;
        wr(m, 0xF000, 0x00);
        wr(m, 0xF002, 0x08); /* latch $80 */
        wr(m, 0xF004, 0x06); /* E, cycle mode */
        ok &= m->board_ev == m->cyc + 128;
        t_check(ok, "VRC IRQ cycle mode", "acknowledge with A clear stops it; latch $80 in cycle mode: %llu cycles (128)",
                (unsigned long long)(m->board_ev - m->cyc));
    }
    board_close(&b);
    m = board_open2(&b, 22, 0, 8, 8, 0, 0x00, 0x00); /* VRC2a without PRG-RAM: the $6000 bit */
    if (m) {
        wr(m, 0x6000, 0x03);
        int ok = wram_at(m, 0x6000) == (0x5A & 0xFE) + 1;
        wr(m, 0x6FFF, 0x00);
        ok &= wram_at(m, 0x6000) == (0x5A & 0xFE) && wram_at(m, 0x7000) == 0x5A;
        t_check(ok, "VRC2 without PRG-RAM", "$6000-$6FFF keep bit 0 of the last write, the other bits open bus");
    }
    board_close(&b);
    m = board_open2(&b, 69, 0, 8, 8, 0, 0x07, 0x00); /* FME-7 */
    if (m) {
        wr(m, 0x8000, 0x0E);
        wr(m, 0xA000, 1000 & 0xFF);
        wr(m, 0x8000, 0x0F);
        wr(m, 0xA000, 1000 >> 8);
        wr(m, 0x8000, 0x0D);
        wr(m, 0xA000, 0x81);
        uint64_t c0 = m->cyc, t1 = m->board_ev;
        m->cyc = t1;
        nes_events(m);
        int ok = t1 == c0 + 1001 && (m->irq_src & NES_IRQ_MAPPER) && m->board_ev == t1 + 65536;
        t_check(ok, "FME-7 IRQ", "counter 1000: the wrap to $FFFF %llu cycles after enabling (1001), then every 65536",
                (unsigned long long)(t1 - c0));
    }
    board_close(&b);
}

/* A CHR page as a nametable (the interface's NES_MAP_CHR, for boards such as Namco 163 and
 * Sunsoft-4): reads come from CHR, writes reach CHR-RAM and the frame log. */
static void chr_nametables(void)
{
    board b;
    nes *m = board_open(&b, 2, 2, 0, 0); /* UxROM, 8 KiB CHR-RAM */
    if (!m)
        goto out;
    nes_pregs *r = &m->ppu.pl.r;
    m->chr_ram[3 * 1024 + 5] = 0x77;
    r->nt_map[1] = (uint16_t)(NES_NT_CHR | NES_NT_CHR_RAM | 3); /* $2400: CHR-RAM page 3 */
    int ok = nes_nt_rd(&m->ppu.mem, r, 0x2405) == 0x77;
    m->cyc += 100;
    m->ppu.rst = 0; /* past the PPU's reset signal (its first VBlank's end), as a game would be */
    nes_ppu_write(m, 6, 0x24);
    nes_ppu_write(m, 6, 0x06);
    nes_ppu_write(m, 7, 0x99); /* $2406 */
    ok &= m->chr_ram[3 * 1024 + 6] == 0x99 && m->ppu.nt[0x406] == 0 && m->ppu.nt[6] == 0;
    t_check(ok, "CHR pages as nametables", "nt_map NES_NT_CHR: $2405 reads CHR-RAM page 3, a $2007 write lands there");
out:
    board_close(&b);
}

/* The test ROMs without a status block: NROM-368 (code and data at $4800-$7FFF) and the
 * latch boards whose register fills $6000-$7FFF; each leaves its result in CPU RAM. */
static void ram_result_roms(void)
{
    static const struct {
        const char *rom, *what;
        uint16_t at;
    } roms[] = {
        {"nrom368", "data at $4800 and $7FFF, code at $5000, open bus at $4700", 0x10},
        {"j87", "Jaleco J87: CHR banks with the bits swapped", 0x200},
        {"jf11", "Jaleco JF-11/14: PRG and CHR banks", 0x200},
        {"jf13", "Jaleco JF-13: PRG and CHR banks ($6000-$6FFF)", 0x200},
        {"sunsoft1", "Sunsoft-1: 4 KiB CHR banks, $1000 with bit 2 set", 0x200},
        {"x1005", "Taito X1-005: PRG, CHR, mirroring, its 128 bytes of RAM", 0x200},
        {"x1005b", "Taito X1-005 (207): PRG, CHR, nametables by CHR bit 7, its RAM", 0x200},
    };
    for (size_t i = 0; i < sizeof roms / sizeof roms[0]; i++) {
        const char *rom = nes_rom(roms[i].rom);
        if (!rom)
            continue;
        board b;
        size_t len;
        uint8_t *d = nes_slurp(rom, &len);
        nes *m = d ? board_open_image(&b, d, len) : NULL;
        if (!m)
            continue;
        for (int f = 0; f < 10; f++)
            nes_run_frame(m);
        uint8_t r = m->ram[roms[i].at];
        t_check(r == 0xA5, roms[i].rom, "test ROM result $%02X at $%04X ($A5: passed, else the failed check): %s", r,
                roms[i].at, roms[i].what);
        board_close(&b);
    }
}

/* The VRC7's address lines: a group's second register at $x010 (VRC7a, submapper 2, A4),
 * $x008 (VRC7b, submapper 1, A3), either on an iNES 1.0 image (both ORed); the other line
 * is not decoded ($x008 is the first register on the VRC7a, $9010 the PRG bank at $C000 on
 * the VRC7b, not the sound). */
static void vrc7_wirings(void)
{
    static const struct {
        int sub;
        uint16_t a3, a4; /* the writes: $8000 | A3, $8000 | A4 */
        int at_a3, at_a4; /* the window each lands in: $8000 or $A000 */
        const char *what;
    } w[] = {
        {-1, 0x8008, 0x8010, 0xA000, 0xA000, "iNES 1.0 (A3 | A4)"},
        {1, 0x8008, 0x8010, 0xA000, 0x8000, "VRC7b (85.1, A3)"},
        {2, 0x8008, 0x8010, 0x8000, 0xA000, "VRC7a (85.2, A4)"},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        board b;
        nes *m = w[i].sub < 0 ? board_open(&b, 85, 8, 8, 0) : board_open2(&b, 85, w[i].sub, 8, 8, 0, 0x07, 0x00);
        if (!m) {
            board_close(&b);
            continue;
        }
        wr(m, 0x8000, 1);
        wr(m, w[i].a3, 5);
        int ok = prg_at(m, (uint16_t)w[i].at_a3) == 5;
        wr(m, w[i].a4, 6);
        ok &= prg_at(m, (uint16_t)w[i].at_a4) == 6;
        wr(m, 0x9000, 9);
        wr(m, 0x9010, 3); /* the sound's register select, but on the VRC7b $9000 */
        int c000 = w[i].sub == 1 ? 3 : 9;
        ok &= prg_at(m, 0xC000) == c000 && prg_at(m, 0xE000) == 15;
        wr(m, (uint16_t)(0xD000 | (w[i].a3 & 0x18)), 0x21); /* CHR register 6 or 7 */
        int reg7 = w[i].at_a3 == 0xA000;
        ok &= chr_at(m, reg7 ? 0x1C00 : 0x1800) == 0x21;
        t_check(ok, "VRC7 wiring", "%s: $%04X -> $%04X, $%04X -> $%04X, CHR register %d, $C000 bank %d, $E000 the last",
                w[i].what, w[i].a3, w[i].at_a3, w[i].a4, w[i].at_a4, reg7 ? 7 : 6, c000);
        board_close(&b);
    }
}

int main(void)
{
    headers();
    nrom();
    uxrom();
    cnrom();
    axrom();
    mmc1_board();
    mmc3_board();
    headers_nes2();
    mmc1_variants();
    mmc3_relatives();
    discrete_boards();
    cycle_irqs();
    chr_nametables();
    ram_result_roms();
    vrc7_wirings();
    return t_done();
}
