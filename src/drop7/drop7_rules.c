/* drop7_rules.c: the numbers of the two public game modes (normal and hardcore), the
 * chain scoring sequence, and the check of a caller's rules. Every number here is stated
 * with its public source, or marked as our choice, in docs/DROP7.md. */
#include "drop7/drop7.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* floor(sqrt(n)) exactly, for n < 2^62 */
static uint64_t isqrt_u64(uint64_t n)
{
    uint64_t r = (uint64_t)sqrt((double)n);
    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r;
}

int32_t drop7_chain_points_default(int k)
{
    /* floor(7 * k^2.5) = floor(sqrt(49 * k^5)); k <= 49 keeps 49 k^5 below 2^34 */
    if (k <= 0)
        return 0;
    uint64_t kk = (uint64_t)k, k5 = kk * kk * kk * kk * kk;
    return (int32_t)isqrt_u64(49 * k5);
}

void drop7_rules_normal(drop7_rules *r)
{
    memset(r, 0, sizeof *r);
    r->drops_first = 30;
    r->drops_step = 1;
    r->drops_min = 5;
    r->level_bonus = 7000;
    r->clear_bonus = 70000;
    r->start_discs = 12;
    r->hit_each_neighbour = 1;
    r->rise_chain_continues = 0;
    for (int c = 1; c <= 7; c++) {
        r->next_weight[c] = 10;  /* 70 numbered ... */
        r->start_weight[c] = 10;
        r->reveal_weight[c] = 1; /* a revealed number is uniform in 1..7 */
    }
    r->next_weight[DROP7_SOLID] = 30; /* ... to 30 solid */
    r->start_weight[DROP7_SOLID] = 30;
    for (int k = 1; k <= DROP7_MAX_CHAIN; k++)
        r->chain_points[k] = drop7_chain_points_default(k);
}

void drop7_rules_hardcore(drop7_rules *r)
{
    drop7_rules_normal(r);
    r->drops_first = 5;
    r->drops_step = 0;
    r->drops_min = 5;
    r->level_bonus = 17000;
    r->start_discs = 16;                 /* more discs on the starting board */
    r->next_weight[DROP7_SOLID] = 0;     /* numbered discs only to drop */
}

void drop7_rules_init(drop7_rules *r, drop7_mode mode)
{
    if (mode == DROP7_MODE_HARDCORE)
        drop7_rules_hardcore(r);
    else
        drop7_rules_normal(r);
}

int32_t drop7_rules_drops(const drop7_rules *r, int32_t level)
{
    int32_t d = r->drops_first - r->drops_step * (level - 1);
    return d > r->drops_min ? d : r->drops_min;
}

static gv_status check_weights(const uint16_t *w, int last, const char *name, int need, gv_err *err)
{
    uint32_t total = 0;
    if (w[0])
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: %s[0] must be 0 (code 0 is the empty cell)", name);
    for (int c = 1; c < DROP7_CODES; c++) {
        if (c > last && w[c])
            return gv_fail(err, GV_ERR_INPUT, "drop7 rules: %s[%d] must be 0 (only codes 1..%d)", name, c, last);
        total += w[c];
    }
    if (need && total == 0)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: the weights %s are all 0", name);
    return GV_OK;
}

gv_status drop7_rules_check(const drop7_rules *r, gv_err *err)
{
    if (r->drops_first < 1 || r->drops_first > 1000000)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: drops_first %d is not in 1..1000000", r->drops_first);
    if (r->drops_step < 0 || r->drops_step > r->drops_first)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: drops_step %d is not in 0..drops_first", r->drops_step);
    if (r->drops_min < 1 || r->drops_min > r->drops_first)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: drops_min %d is not in 1..drops_first", r->drops_min);
    if (r->level_bonus < 0 || r->clear_bonus < 0)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: level_bonus and clear_bonus must be >= 0");
    if (r->start_discs < 0 || r->start_discs > DROP7_CELLS)
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: start_discs %d is not in 0..49", r->start_discs);
    if ((r->hit_each_neighbour & ~1) || (r->rise_chain_continues & ~1))
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: hit_each_neighbour and rise_chain_continues are 0 or 1");
    gv_status s;
    if ((s = check_weights(r->next_weight, DROP7_CRACKED, "next_weight", 1, err)) != GV_OK ||
        (s = check_weights(r->start_weight, DROP7_CRACKED, "start_weight", r->start_discs > 0, err)) != GV_OK ||
        (s = check_weights(r->reveal_weight, 7, "reveal_weight", 1, err)) != GV_OK)
        return s;
    if (r->chain_points[0])
        return gv_fail(err, GV_ERR_INPUT, "drop7 rules: chain_points[0] must be 0 (steps count from 1)");
    for (int k = 1; k <= DROP7_MAX_CHAIN; k++)
        if (r->chain_points[k] < 0)
            return gv_fail(err, GV_ERR_INPUT, "drop7 rules: chain_points[%d] is negative", k);
    return GV_OK;
}

int drop7_record_diff(const drop7_record *a, const drop7_record *b, char *msg, size_t len)
{
#define D7_FIELD(f, fmt, cast)                                                                               \
    if (a->f != b->f) {                                                                                      \
        snprintf(msg, len, "seed %llu: " #f " " fmt " != " fmt, (unsigned long long)a->seed, (cast)a->f,    \
                 (cast)b->f);                                                                                \
        return 1;                                                                                            \
    }
    D7_FIELD(seed, "%llu", unsigned long long)
    D7_FIELD(nmoves, "%d", int)
    D7_FIELD(moves_hash, "%016llx", unsigned long long)
    D7_FIELD(score, "%lld", long long)
    D7_FIELD(level, "%d", int)
    D7_FIELD(chain_steps, "%d", int)
    D7_FIELD(max_chain, "%d", int)
    D7_FIELD(exploded, "%d", int)
    D7_FIELD(clears, "%d", int)
    D7_FIELD(end, "%d", int)
    D7_FIELD(next, "%d", int)
#undef D7_FIELD
    for (int i = 0; i < DROP7_CELLS; i++)
        if (a->board[i] != b->board[i]) {
            snprintf(msg, len, "seed %llu: final board cell y=%d x=%d: %d != %d", (unsigned long long)a->seed,
                     i / DROP7_N, i % DROP7_N, a->board[i], b->board[i]);
            return 1;
        }
    if (len)
        msg[0] = 0;
    return 0;
}
