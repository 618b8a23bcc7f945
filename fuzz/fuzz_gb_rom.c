/* fuzz_gb_rom.c: libFuzzer target for the Game Boy cartridge loader and, through it, the
 * whole core. Each input is first given to gb_cart_load as is (header validation). Then,
 * when it has a header, it is padded to the size its header declares (up to 1 MiB) with
 * the checksum fixed, and the machine runs it for two frames on both models with every
 * output (native video and audio, frame log, host rendering of the log, block audio): the
 * input is also a program. Nothing may crash, hang or read out of bounds.
 *   make fuzz-gb_rom FUZZ_SECONDS=300 */
#include <stdlib.h>
#include <string.h>

#include "emu/gb/gb.h"
#include "emu/gb/gb_host.h"

static void run_machine(const gb_cart *c, gb_model m)
{
    gb *g;
    gv_err e;
    if (gb_new(c, m, GB_OUT_VIDEO_NATIVE | GB_OUT_VIDEO_LOG | GB_OUT_AUDIO_NATIVE, &g, &e) != GV_OK)
        return;
    gb_vstate *vs = gv_aligned_alloc(sizeof *vs);
    uint8_t *fb = malloc(GB_FB_BYTES);
    int16_t *lr = malloc(4 * 4096);
    memset(vs, 0, sizeof *vs);
    for (int f = 0; f < 2; f++) {
        gb_run_frame(g);
        const gb_frame_log *lg = gb_video_log(g);
        uint8_t *pk = gv_aligned_alloc(gb_log_packed_size(lg));
        gb_log_pack(lg, pk);
        gb_render_host(vs, pk, fb, 0, &e);
        free(pk);
        const gb_audio_log *al = gb_audio_keys(g);
        if (al->n <= 4096)
            gb_audio_block(al, gb_cart_lfsr(c), lr);
    }
    free(lr);
    free(fb);
    free(vs);
    gb_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gb_cart *c;
    gv_err e;
    if (gb_cart_load(data, size, "fuzz", &c, &e) == GV_OK)
        gb_cart_free(c);
    if (size < 0x150 || data[0x148] > 6)
        return 0;
    size_t n = (size_t)0x8000 << data[0x148];
    uint8_t *rom = malloc(n);
    memset(rom, 0xFF, n);
    memcpy(rom, data, size < n ? size : n);
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - rom[i] - 1);
    rom[0x14D] = x;
    if (gb_cart_load(rom, n, "fuzz", &c, &e) == GV_OK) {
        run_machine(c, GB_MODEL_DMG);
        if (gb_cart_get_info(c)->cgb_flag & 0x80)
            run_machine(c, GB_MODEL_CGB);
        gb_cart_free(c);
    }
    free(rom);
    return 0;
}
