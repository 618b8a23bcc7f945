/* fuzz_snes_rom.c: libFuzzer target for the SNES cartridge loader and, through it, the whole
 * machine. Each input is first given to snes_cart_load as is (size, header, checksum
 * validation). Then it becomes a program: the input is laid into a 64 KiB image (LoROM or
 * HiROM by its first byte; one in four a Super FX cartridge, the GSU running whatever the
 * program starts it on, or with bit 3 an SA-1 cartridge, its CPU started wherever CRV says), the header is made valid (map mode, sizes, reset vector at the
 * input's start, checksum fixed) and the machine runs three frames with every output; the
 * host renderer's drawing of each frame's packed video log must give the native frame exactly.
 * Nothing may crash, hang or read out of bounds. The seed fuzz/seeds/snes_rom/sa1_test.bin
 * (selector $0E: an SA-1 cartridge) starts inside the SA-1 (docs/SNES.md, Fuzzing).
 *   make fuzz-snes_rom FUZZ_SECONDS=600 */
#include <stdlib.h>
#include <string.h>

#include "emu/snes/snes_int.h"

static void run_machine(const snes_cart *c)
{
    snes *m;
    gv_err e;
    if (snes_new(c, SNES_OUT_VIDEO | SNES_OUT_VIDEO_LOG | SNES_OUT_AUDIO, &m, &e) != GV_OK)
        return;
    /* fb zeroed as the machine's own is: a frame smaller than the largest leaves the rest
     * untouched in both, and memcmp compares the whole buffer */
    uint8_t *mem = malloc(sizeof(snes_vmem)), *fb = calloc(1, SNES_W * SNES_H * 3), *pk = NULL;
    for (int f = 0; f < 3; f++) {
        snes_set_buttons(m, (uint16_t)(f * 0x155));
        snes_run_frame(m);
        if (m->vlog->oom)
            break; /* the renderer's memories would be stale from here */
        free(pk);
        pk = malloc(snes_vlog_packed_size(m->vlog));
        snes_vlog_pack(m->vlog, pk);
        snes_vview v = snes_vview_packed(pk);
        snes_render_frame(&v, mem, fb, 0, 1);
        if (memcmp(fb, snes_native_fb(m), SNES_W * SNES_H * 3))
            abort(); /* the log renderer must repeat the native one */
    }
    free(pk);
    free(fb);
    free(mem);
    snes_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    snes_cart *c;
    gv_err e;
    if (snes_cart_load(data, size, "fuzz", &c, &e) == GV_OK)
        snes_cart_free(c);
    if (size < 2)
        return 0;
    const size_t n = 0x10000;
    uint8_t type = (uint8_t)((data[0] >> 1) % 4);
    int sa1 = type == 3 && (data[0] & 0x08);
    int hi = (data[0] & 1) && !sa1;
    size_t at = hi ? 0xFFC0 : 0x7FC0;
    uint8_t *rom = calloc(1, n);
    memcpy(rom, data + 1, size - 1 < n ? size - 1 : n);
    uint8_t *h = rom + at;
    h[0x15] = (uint8_t)(0x20 | hi | (data[0] & 0x10));
    h[0x16] = type == 3 ? 0x15 : type; /* ROM, +RAM, +battery, or a Super FX (LoROM only) */
    if (sa1)
        h[0x15] = (uint8_t)(0x23 | (data[0] & 0x10)), h[0x16] = 0x35;
    h[0x17] = 6;
    h[0x18] = (uint8_t)((data[0] >> 5) & 7);
    h[0x3C] = 0x00, h[0x3D] = 0x80;
    snes_rom_sign(rom, n, at);
    if (snes_cart_load(rom, n, "fuzz", &c, &e) == GV_OK) {
        run_machine(c);
        snes_cart_free(c);
    }
    free(rom);
    return 0;
}
