/* fuzz_snes_rom.c: libFuzzer target for the SNES cartridge loader and, through it, the whole
 * machine. Each input is first given to snes_cart_load as is (size, header, checksum
 * validation). Then it becomes a program: the input is laid into a 64 KiB image (LoROM or
 * HiROM by its first byte; one in four a Super FX cartridge, the GSU running whatever the
 * program starts it on, or with bit 3 an SA-1 cartridge, its CPU started wherever CRV says;
 * bit 3 of the others gives the cartridge an MSU-1, its media made here in memory: a data
 * file and two looping tracks), the header is made valid (map mode, sizes, reset vector at the
 * input's start, checksum fixed) and the machine runs three frames with every output; the
 * host renderer's drawing of each frame's packed video log must give the native frame exactly.
 * Nothing may crash, hang or read out of bounds.
 *   make fuzz-snes_rom FUZZ_SECONDS=600
 * Built with FUZZ_SNES_CHIP 1, 2 or 3 every program is a Super FX, SA-1 or MSU-1 cartridge
 * (fuzz_snes_gsu.c, fuzz_snes_sa1.c, fuzz_snes_msu.c: make fuzz-snes-chips). The seeds of
 * all four (fuzz/seeds/snes_rom) are our chip test ROMs' first 64 KiB (gsu_test, sa1_test,
 * msu_test) behind the type byte that picks their chip: the chips' own tests, run from
 * their start. */
#include <stdlib.h>
#include <string.h>

#include "emu/snes/snes_int.h"

#ifndef FUZZ_SNES_CHIP
#define FUZZ_SNES_CHIP 0 /* 0: the chip by the input's first byte; 1 Super FX, 2 SA-1, 3 MSU-1 */
#endif

/* The MSU-1's media of every MSU-1 program: a 4 KiB data file and tracks 0 and 1 (a
 * thousand frames each, looping from frame 100), made once. */
static const snes_msu_media *fuzz_msu_media(void)
{
    static snes_msu_media md;
    static snes_msu_track tracks[SNES_MSU_TRACKS];
    static uint8_t data[4096], pcm[2][8 + 4 * 1000];
    if (!md.track) {
        for (size_t i = 0; i < sizeof data; i++)
            data[i] = (uint8_t)(i * 7 + (i >> 8));
        for (int t = 0; t < 2; t++) {
            memcpy(pcm[t], "MSU1", 4);
            pcm[t][4] = 100;
            for (size_t i = 8; i < sizeof pcm[t]; i++)
                pcm[t][i] = (uint8_t)(i * (t + 3));
            tracks[t] = (snes_msu_track){pcm[t], 1000, 100};
        }
        md = (snes_msu_media){data, sizeof data, tracks, 2};
    }
    return &md;
}

static void run_machine(const snes_cart *c, int msu)
{
    snes *m;
    gv_err e;
    if (snes_new(c, SNES_OUT_VIDEO | SNES_OUT_VIDEO_LOG | SNES_OUT_AUDIO, &m, &e) != GV_OK)
        return;
    if (msu)
        m->msu = fuzz_msu_media(); /* what snes_new takes from a ROM with NAME.msu beside it */
    uint8_t *mem = malloc(sizeof(snes_vmem)), *fb = malloc(SNES_W * SNES_H * 3), *pk = NULL;
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
    int msu = type != 3 && (data[0] & 0x08);
    if (FUZZ_SNES_CHIP == 1 || FUZZ_SNES_CHIP == 2)
        type = 3, sa1 = FUZZ_SNES_CHIP == 2, msu = 0;
    else if (FUZZ_SNES_CHIP == 3)
        type = type % 3, sa1 = 0, msu = 1;
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
        run_machine(c, msu);
        snes_cart_free(c);
    }
    free(rom);
    return 0;
}
