/* test_nes_carts.c: cartridge headers and the boards' banking, against the documented
 * behaviour: iNES / NES 2.0 size fields, the old "DiskDude!" headers, rejected inputs; then
 * for each mapper a ROM image whose every 8 KiB PRG bank and 1 KiB CHR bank is filled with
 * its own number, so a read through the CPU or PPU map says which bank is mapped there. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/nes/nes_int.h"

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

static nes *board_open(board *b, int mapper, int prg16, int chr8, int flags6)
{
    gv_err err;
    memset(b, 0, sizeof *b);
    b->d = image(mapper, prg16, chr8, flags6, &b->len);
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
    nes_mapper_write(m, a, v);
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
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT && strstr(err.msg, "PAL"), "NES 2.0 PAL rejected",
            "%s", err.msg);
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
    d[6] = 0xB0 | (d[6] & 0x0F); /* mapper 11 */
    t_check(nes_cart_parse(d, len, "t", &c, &err) == GV_ERR_INPUT && strstr(err.msg, "mapper 11"),
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
        nes_mapper_write(m, 0xE000, 1); /* counted */
        m->cyc++;
        nes_mapper_write(m, 0xE000, 0); /* ignored: the next cycle */
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
        nes_mapper_a12_edge(m, (uint64_t)e * 341);
        if (m->irq_src & NES_IRQ_MAPPER)
            when = e;
    }
    ok = when == 4;
    wr(m, 0xE000, 0); /* acknowledge and disable */
    ok &= !(m->irq_src & NES_IRQ_MAPPER);
    for (int e = 0; e < 8; e++)
        nes_mapper_a12_edge(m, 10000 + (uint64_t)e * 341);
    ok &= !(m->irq_src & NES_IRQ_MAPPER);
    t_check(ok, "MMC3 scanline counter", "latch 3: reload, 2, 1, 0 -> IRQ at edge %d (4 expected); $E000 acknowledges and disables", when);
out:
    board_close(&b);
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
    return t_done();
}
