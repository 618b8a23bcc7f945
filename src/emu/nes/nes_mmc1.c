/* nes_mmc1.c: the MMC1 (SxROM boards): a 5-bit serial port at $8000-$FFFF loads four registers
 * (control, CHR bank 0, CHR bank 1, PRG bank). Writing a byte with bit 7 set resets the
 * port and fixes the last PRG bank at $C000. Writes on consecutive CPU cycles (the double
 * write of a read-modify-write instruction) are ignored after the first. */
#include "emu/nes/nes_int.h"

void nes_mmc1_write(nes *m, uint16_t a, uint8_t v)
{
    nes_mapper *p = &m->map;
    uint64_t prev = p->m1_last;
    p->m1_last = m->cyc;
    if (m->cyc == prev + 1)
        return;
    if (v & 0x80) {
        p->m1_shift = 0;
        p->m1_count = 0;
        p->m1_ctrl |= 0x0C;
        nes_mapper_update(m);
        return;
    }
    p->m1_shift = (uint8_t)((p->m1_shift >> 1) | ((v & 1) << 4));
    if (++p->m1_count < 5)
        return;
    uint8_t val = p->m1_shift & 0x1F;
    switch ((a >> 13) & 3) {
    case 0: p->m1_ctrl = val; break;
    case 1: p->m1_chr0 = val; break;
    case 2: p->m1_chr1 = val; break;
    default: p->m1_prg = val; break;
    }
    p->m1_shift = 0;
    p->m1_count = 0;
    nes_mapper_update(m);
}

void nes_mmc1_maps(nes *m, int *prg8, int *chr1k, int *mirror)
{
    const nes_mapper *p = &m->map;
    static const int mir[4] = {NES_MIRROR_1A, NES_MIRROR_1B, NES_MIRROR_V, NES_MIRROR_H};
    *mirror = mir[p->m1_ctrl & 3];
    /* 512 KiB boards (SUROM) take PRG address line 18 from CHR bank 0's bit 4. */
    int outer = (m->cart->prg_size > 262144 && (p->m1_chr0 & 0x10)) ? 16 : 0;
    int bank = (p->m1_prg & 0x0F) | outer;
    int last = ((int)(m->cart->prg_size / 16384) - 1) & 0x0F;
    int lo, hi;
    switch ((p->m1_ctrl >> 2) & 3) {
    case 0:
    case 1: /* 32 KiB mode: low bit ignored */
        lo = bank & ~1;
        hi = lo | 1;
        break;
    case 2: /* first bank fixed at $8000 */
        lo = outer;
        hi = bank;
        break;
    default: /* last bank fixed at $C000 */
        lo = bank;
        hi = last | outer;
        break;
    }
    prg8[0] = lo * 2;
    prg8[1] = lo * 2 + 1;
    prg8[2] = hi * 2;
    prg8[3] = hi * 2 + 1;
    if (p->m1_ctrl & 0x10) { /* two 4 KiB CHR banks */
        for (int i = 0; i < 4; i++) {
            chr1k[i] = p->m1_chr0 * 4 + i;
            chr1k[4 + i] = p->m1_chr1 * 4 + i;
        }
    } else { /* one 8 KiB bank, low bit ignored */
        for (int i = 0; i < 8; i++)
            chr1k[i] = (p->m1_chr0 & 0x1E) * 4 + i;
    }
    m->prg_ram_on = !(p->m1_prg & 0x10);
}
