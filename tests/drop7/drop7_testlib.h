/* drop7_testlib.h: what the Drop7 tests share: positions written as rows of characters. */
#ifndef GV_TESTS_DROP7_DROP7_TESTLIB_H
#define GV_TESTS_DROP7_DROP7_TESTLIB_H

#include <stdint.h>
#include <string.h>

#include "core/rng.h"
#include "drop7/drop7.h"

/* A position from rows written top to bottom ('.', '1'..'7', 'S' solid, 'C' cracked), level
 * 1, its generator seeded with seed. */
__attribute__((unused))
static void pos_from_rows(drop7_pos *p, const char *const rows[7], int next, int drops_left, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++) {
            char c = rows[y][x];
            p->cell[y][x] = c == '.' ? 0 : c == 'S' ? DROP7_SOLID : c == 'C' ? DROP7_CRACKED : (uint8_t)(c - '0');
        }
    p->next = (uint8_t)next;
    p->level = 1;
    p->drops_left = drops_left;
    gv_rng_seed(&p->rng, seed);
}

#endif
