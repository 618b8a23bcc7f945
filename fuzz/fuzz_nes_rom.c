/* fuzz_nes_rom.c: libFuzzer target for the NES ROM loader. Any input that parses as a
 * cartridge is also run for two frames (its bytes become the CPU's program, so the CPU,
 * PPU, APU, mappers and frame log all see arbitrary behaviour) and each frame is drawn and
 * summed from its log by the host renderer's functions. Run with `make fuzz-nes_rom`. */
#include <stdlib.h>

#include "emu/nes/nes_int.h"
#include "emu/nes/nes_gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nes_cart cart;
    gv_err err;
    if (nes_cart_parse(data, size, "fuzz", &cart, &err) != GV_OK)
        return 0;
    nes_opts o = {1, 1, 0, 1};
    nes *m;
    if (nes_new(&cart, &o, &m, &err) == GV_OK) {
        static nes_linestart ls[NES_H];
        static uint8_t rgb[NES_RGB_BYTES];
        for (int f = 0; f < 2; f++) {
            nes_run_frame(m);
            nes_logview lv = nes_log_view(m);
            nes_log_prepass(&lv, ls);
            for (int L = 0; L < NES_H; L++) {
                nes_pline p;
                nes_log_draw_line(&lv, ls, L, cart.chr, m->rgb32, rgb + L * NES_W * 3, &p);
            }
            uint64_t n0;
            uint32_t np;
            nes_log_pieces(lv.h, &n0, &np);
            for (uint32_t k = 0; k < np && k < NES_MAX_PIECES; k++)
                (void)nes_log_piece(m->tab, &lv, n0, np, k);
        }
        nes_free(m);
    }
    nes_cart_free(&cart);
    return 0;
}
