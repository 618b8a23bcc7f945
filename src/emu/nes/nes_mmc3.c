/* nes_mmc3.c: the MMC3 (TxROM boards): eight bank registers behind a select port, switchable
 * mirroring, PRG-RAM protection, and the scanline counter clocked by filtered rising edges
 * of PPU address line 12 (the PPU's fetch pattern gives one per rendered line with the usual
 * background $0000 / sprites $1000 setup), which raises an IRQ when it reaches 0. */
#include "emu/nes/nes_int.h"

void nes_mmc3_write(nes *m, uint16_t a, uint8_t v)
{
    nes_mapper *p = &m->map;
    int odd = a & 1;
    switch ((a >> 13) & 3) {
    case 0: /* $8000 bank select / $8001 bank data */
        if (!odd)
            p->m3_sel = v;
        else
            p->m3_bank[p->m3_sel & 7] = v;
        break;
    case 1: /* $A000 mirroring / $A001 PRG-RAM protect */
        if (!odd)
            p->m3_mirror = v & 1;
        else
            p->m3_ram = v;
        break;
    case 2: /* $C000 IRQ latch / $C001 reload at the next edge */
        if (!odd) {
            p->m3_latch = v;
        } else {
            p->m3_counter = 0;
            p->m3_reload = 1;
        }
        break;
    default: /* $E000 IRQ disable and acknowledge / $E001 enable */
        if (!odd) {
            p->m3_irq_on = 0;
            nes_irq_clear(m, NES_IRQ_MAPPER);
        } else {
            p->m3_irq_on = 1;
        }
        nes_resched(m);
        break;
    }
}

void nes_mmc3_maps(nes *m, int *prg8, int *chr1k, int *mirror)
{
    const nes_mapper *p = &m->map;
    int last = (int)(m->cart->prg_size / 8192) - 1;
    int r6 = p->m3_bank[6] & 0x3F, r7 = p->m3_bank[7] & 0x3F;
    if (p->m3_sel & 0x40) {
        prg8[0] = last - 1;
        prg8[2] = r6;
    } else {
        prg8[0] = r6;
        prg8[2] = last - 1;
    }
    prg8[1] = r7;
    prg8[3] = last;
    /* R0/R1 are 2 KiB banks (low bit ignored), R2-R5 1 KiB; bit 7 of the select swaps halves. */
    int c[8] = {p->m3_bank[0] & 0xFE, (p->m3_bank[0] & 0xFE) | 1, p->m3_bank[1] & 0xFE, (p->m3_bank[1] & 0xFE) | 1,
                p->m3_bank[2], p->m3_bank[3], p->m3_bank[4], p->m3_bank[5]};
    int inv = (p->m3_sel & 0x80) ? 4 : 0;
    for (int i = 0; i < 8; i++)
        chr1k[i ^ inv] = c[i];
    *mirror = p->m3_mirror ? NES_MIRROR_H : NES_MIRROR_V;
    m->prg_ram_on = (p->m3_ram & 0x80) != 0;
    m->prg_ram_ro = (p->m3_ram & 0x40) != 0;
}

/* One filtered A12 rising edge at dot time t: reload from the latch when 0 (or when a
 * reload was asked), else count down; reaching 0 with IRQs enabled asserts the IRQ, which
 * the CPU sees from the cycle holding dot t - 1 on (cycle c holds dots 3c-3 to 3c-1; an
 * edge on a cycle's first dot is seen a cycle early: mmc3_test_2 4-scanline_timing #3,
 * sprites at $1000). */
void nes_mmc3_a12_edge(nes *m, uint64_t t)
{
    nes_mapper *p = &m->map;
    /* revision A (--mmc3-rev A) asserts it only when the counter was counted down to 0 or
     * reloaded after a $C001 write, not when a 0 is reloaded from a latch of 0 */
    int was_set = p->m3_counter != 0 || p->m3_reload;
    if (p->m3_counter == 0 || p->m3_reload) {
        p->m3_counter = p->m3_latch;
        p->m3_reload = 0;
    } else {
        p->m3_counter--;
    }
    if (p->m3_counter == 0 && p->m3_irq_on && (was_set || !m->opt.mmc3_rev_a))
        nes_irq_set(m, NES_IRQ_MAPPER, (t + 2) / 3);
}
