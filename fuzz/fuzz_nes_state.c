/* fuzz_nes_state.c: libFuzzer target for the NES save-state loader. The machine runs a
 * small built-in NROM program. When the input's first byte is odd, its header is repaired
 * (magic, version, this ROM's hash, length, checksum) so the fuzzer reaches the field
 * checks; an accepted state is then run for a frame. Run with `make fuzz-nes_state`. */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/nes/nes_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 16 KiB PRG: a loop that writes the PPU and APU registers from a counter; vectors to it. */
static void make_rom(uint8_t *rom, size_t len)
{
    memset(rom, 0, len);
    memcpy(rom, "NES\x1A\x01\x01\x01\x08\x00\x00\x07\x00\x00\x00\x00\x00", 16);
    uint8_t *prg = rom + 16;
    static const uint8_t code[] = {
        0xA9, 0x80, 0x8D, 0x00, 0x20, /* LDA #$80; STA $2000 */
        0xA9, 0x1E, 0x8D, 0x01, 0x20, /* LDA #$1E; STA $2001 */
        0xE8, 0x8E, 0x05, 0x20,       /* loop: INX; STX $2005 */
        0x8E, 0x00, 0x40, 0x8E, 0x02, 0x40, 0x8E, 0x03, 0x40, /* STX $4000/$4002/$4003 */
        0x8E, 0x15, 0x40, 0x8E, 0x07, 0x20, /* STX $4015; STX $2007 */
        0x4C, 0x0A, 0xC0,             /* JMP loop */
        0x40,                         /* nmi/irq: RTI */
    };
    memcpy(prg, code, sizeof code);
    uint16_t rti = (uint16_t)(0xC000 + sizeof code - 1);
    prg[0x3FFA] = (uint8_t)rti;
    prg[0x3FFB] = (uint8_t)(rti >> 8);
    prg[0x3FFC] = 0x00;
    prg[0x3FFD] = 0xC0;
    prg[0x3FFE] = (uint8_t)rti;
    prg[0x3FFF] = (uint8_t)(rti >> 8);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* With GV_FUZZ_SEED=FILE in the environment, the first call writes a valid state of the
 * built-in ROM to FILE (the seed in fuzz/seeds/nes_state/ was made this way). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t rom[16 + 16384 + 8192];
    static nes_cart cart;
    static nes *m;
    static uint8_t *base;
    static size_t base_len;
    gv_err err;
    if (!m) {
        make_rom(rom, sizeof rom);
        nes_opts o = {1, 1, 1, 1};
        if (nes_cart_parse(rom, sizeof rom, "fuzz", &cart, &err) != GV_OK || nes_new(&cart, &o, &m, &err) != GV_OK)
            abort();
        for (int f = 0; f < 3; f++)
            nes_run_frame(m);
        nes_state_save(m, &base, &base_len, &err);
        const char *seed = getenv("GV_FUZZ_SEED");
        if (seed && gv_write_file_atomic(seed, base, base_len, &err) != GV_OK)
            abort();
    }
    if (nes_state_load(m, base, base_len, &err) != GV_OK)
        abort(); /* the machine's own state must always load */
    uint8_t *buf = malloc(size + 1);
    memcpy(buf, data, size);
    if (size >= 36 && (data[0] & 1)) {
        memcpy(buf, "GVNESST\x1A\x01\x00\x00\x00", 12);
        put64(buf + 12, cart.hash);
        put64(buf + 20, size - 36);
        put64(buf + 28, gv_hash64(buf + 36, size - 36));
    }
    if (nes_state_load(m, buf, size, &err) == GV_OK)
        nes_run_frame(m);
    free(buf);
    return 0;
}
