/* nes_mmc3_irq.h: the MMC3's scanline counter (the NESdev wiki's "MMC3"), shared by the
 * MMC3 family (nes_board_mmc3.c) and the boards that copied it (Taito's TC0690,
 * nes_board_taito.c): clocked by the filtered rising edges of PPU A12, it is reloaded
 * from the latch when it is 0 or when a reload was asked ($C001), else counted down. */
#ifndef GV_EMU_NES_NES_MMC3_IRQ_H
#define GV_EMU_NES_NES_MMC3_IRQ_H

#include <stdint.h>

enum { NES_MMC3_NOT_ZERO = 0, NES_MMC3_ZERO = 1, NES_MMC3_ZERO_RELOADED = 2 };

/* One clock. Returns NES_MMC3_ZERO when the counter is 0 afterwards having been counted down
 * or reloaded on request (the condition of both revisions' IRQ), NES_MMC3_ZERO_RELOADED when
 * it is 0 after reloading a latch of 0 by itself (revision B raises the IRQ then too, A
 * does not), else NES_MMC3_NOT_ZERO. */
static inline int nes_mmc3_clock(uint8_t *counter, uint8_t *reload, uint8_t latch)
{
    int was_set = *counter != 0 || *reload;
    if (*counter == 0 || *reload) {
        *counter = latch;
        *reload = 0;
    } else {
        (*counter)--;
    }
    return *counter ? NES_MMC3_NOT_ZERO : was_set ? NES_MMC3_ZERO : NES_MMC3_ZERO_RELOADED;
}

#endif
