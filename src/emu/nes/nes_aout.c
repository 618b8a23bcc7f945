/* nes_aout.c: the sample stream. The mixer tables and noise jump matrices (integers, built
 * once per machine), and the output stage shared by every audio path: a sample is the sum
 * of the mixer output over its CPU cycles divided by their number, then the console's
 * output filters (first-order high-pass at 90 Hz and 440 Hz, low-pass at 14 kHz) in Q16
 * fixed point at 48 kHz, then int16. The filters are recurrences, so they always run on
 * the host, in sample order. */
#include "emu/nes/nes_int.h"

#include <assert.h>

void nes_atab_init(nes_atab *t)
{
    /* pulse: 95.52 / (8128 / n + 100) = 9552 n / (812800 + 10000 n), scaled by 65536, rounded */
    t->pulse[0] = 0;
    for (uint64_t n = 1; n < 31; n++) {
        uint64_t den = 812800 + 10000 * n;
        t->pulse[n] = (uint32_t)((65536ull * 9552 * n + den / 2) / den);
    }
    /* triangle/noise/DMC: 163.67 / (24329 / n + 100) = 16367 n / (2432900 + 10000 n) */
    t->tnd[0] = 0;
    for (uint64_t n = 1; n < 203; n++) {
        uint64_t den = 2432900 + 10000 * n;
        t->tnd[n] = (uint32_t)((65536ull * 16367 * n + den / 2) / den);
    }
    /* The noise register is linear over GF(2): column j of M is one step applied to bit j;
     * M^(2^i) is the square of M^(2^(i-1)). */
    for (int mode = 0; mode < 2; mode++) {
        for (int j = 0; j < 15; j++)
            t->jump[mode][0][j] = nes_lfsr_step((uint16_t)(1u << j), mode);
        for (int i = 1; i < NES_JUMP_BITS; i++)
            for (int j = 0; j < 15; j++) {
                uint16_t c = t->jump[mode][i - 1][j], o = 0;
                for (int b = 0; b < 15; b++)
                    if ((c >> b) & 1)
                        o ^= t->jump[mode][i - 1][b];
                t->jump[mode][i][j] = o;
            }
    }
    /* the Sunsoft 5B (nes_5b.h): its level table, and its 17-bit noise register's matrix
     * powers the same way */
    nes_5b_levels(t->x5b_level);
    t->xvrc6_step = (t->pulse[15] + 7) / 15; /* the VRC6 (nes_vrc6.h) */
    t->xmmc5_pcm_step = (t->tnd[127] + 63) / 127; /* the MMC5's PCM (nes_mmc5.h) */
    nes_vrc7_tables(t->xvrc7_logsin, t->xvrc7_exp); /* the VRC7 (nes_vrc7.h) */
    t->xvrc7_mul = (t->pulse[15] * 2048u + 2042u) / 4084u; /* carrier full scale 4084 -> pulse[15] / 2 */
    for (int j = 0; j < 17; j++)
        t->x5b_jump[0][j] = nes_5b_lfsr_step(1u << j);
    for (int i = 1; i < NES_JUMP_BITS; i++)
        for (int j = 0; j < 17; j++) {
            uint32_t c = t->x5b_jump[i - 1][j], o = 0;
            for (int b = 0; b < 17; b++)
                if ((c >> b) & 1)
                    o ^= t->x5b_jump[i - 1][b];
            t->x5b_jump[i][j] = o;
        }
}

/* Filter coefficients in Q16 at 48 kHz: high-pass k = RC / (RC + dt), low-pass
 * k = dt / (RC + dt), RC = 1 / (2 pi f), dt = 1 / 48000. */
#define HP90 64773
#define HP440 61967
#define LP14K 42400

/* v / 65536 rounded toward zero (C's integer division), so a filter's output decays to 0
 * instead of sticking at -1; >> on negative numbers would not be portable anyway. */
static int64_t q16(int64_t v)
{
    return v / 65536;
}

void nes_aout_push(nes_aout *a, uint64_t sum, uint32_t len, int16_t *out, uint32_t *n)
{
    int64_t x = (int64_t)(sum / len); /* mean mixer output, 0..65535 */
    int64_t y1 = q16(HP90 * (a->hp1_y + x - a->hp1_x));
    a->hp1_x = x;
    a->hp1_y = y1;
    int64_t y2 = q16(HP440 * (a->hp2_y + y1 - a->hp2_x));
    a->hp2_x = y1;
    a->hp2_y = y2;
    int64_t y3 = a->lp_y + q16(LP14K * (y2 - a->lp_y));
    a->lp_y = y3;
    int64_t s = y3 / 2;
    out[(*n)++] = (int16_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s);
    a->n++;
    a->carry = 0;
}

void nes_aout_pieces(nes_aout *a, uint64_t n0, const uint64_t *piece, uint32_t npieces,
                     int16_t *out, uint32_t *n)
{
    assert(a->n == n0);
    (void)n0;
    uint64_t prev = nes_sample_end(a->region, a->n - 1);
    for (uint32_t k = 0; k + 1 < npieces; k++) {
        uint64_t end = nes_sample_end(a->region, a->n);
        nes_aout_push(a, a->carry + piece[k], (uint32_t)(end - prev), out, n);
        prev = end;
    }
    a->carry += piece[npieces - 1];
}
