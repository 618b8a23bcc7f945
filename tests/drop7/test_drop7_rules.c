/* test_drop7_rules.c: the Drop7 rules. (1) The fast game's generator against core/rng.c.
 * (2) The chain scoring sequence. (3) Hand-made positions with known outcomes, played on
 * both the plain reference (drop7_ref.c) and the fast game (drop7_game.h). (4) Random
 * legal positions, covered discs included, every legal move played on both and the whole
 * resulting position compared (board, score, chain counts, level, drops left, game-over
 * flag, next disc, generator state): GV_DROP7_POSITIONS of them (default 100000; the
 * acceptance run uses 10000000). (5) Whole games played move by move on both in lockstep
 * (GV_DROP7_GAMES, default 1000). GV_SEED fixes the random inputs (else fresh, printed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "drop7_testlib.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : def;
}

/* 0 when equal; else 1 and the first difference in msg. */
static int pos_diff(const drop7_pos *a, const drop7_pos *b, char *msg, size_t len)
{
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            if (a->cell[y][x] != b->cell[y][x]) {
                snprintf(msg, len, "cell y=%d x=%d: %d != %d", y, x, a->cell[y][x], b->cell[y][x]);
                return 1;
            }
#define F(f)                                                                                                 \
    if (a->f != b->f) {                                                                                      \
        snprintf(msg, len, #f ": %lld != %lld", (long long)a->f, (long long)b->f);                            \
        return 1;                                                                                            \
    }
    F(next) F(over) F(level) F(drops_left) F(nmoves) F(score) F(chain_steps) F(max_chain) F(exploded) F(clears)
#undef F
    for (int i = 0; i < 4; i++)
        if (a->rng.s[i] != b->rng.s[i]) {
            snprintf(msg, len, "generator state word %d differs (a different number of draws)", i);
            return 1;
        }
    return 0;
}

static void print_pos(const char *title, const drop7_pos *p)
{
    static const char code[] = ".1234567SC";
    printf("    %s: next %d, level %d, drops_left %d, score %lld\n", title, p->next, p->level, p->drops_left,
           (long long)p->score);
    for (int y = 0; y < DROP7_N; y++) {
        printf("      ");
        for (int x = 0; x < DROP7_N; x++)
            putchar(code[p->cell[y][x]]);
        putchar('\n');
    }
}

/* Plays x from p on the reference (into ref) and on the fast game (into fast); returns
 * the reference's chain length after checking both returned the same. */
static int both_step(const drop7_rules *r, const drop7_pos *p, int x, drop7_pos *ref, drop7_pos *fast, int *same_ret)
{
    *ref = *p;
    int c1 = drop7_ref_step(r, ref, x);
    drop7_game g;
    drop7_game_load(p, &g);
    int c2 = drop7_step(r, &g, x);
    *fast = *p;
    drop7_game_store(&g, fast);
    *same_ret = c1 == c2;
    return c1;
}

typedef struct {
    const char *name;
    const char *rows[7];
    int next, col, drops_left, hit_each;
    /* expected */
    int64_t score;
    int chain, over;
    const char *after[7]; /* expected board; '?' = a revealed number (1..7) or empty */
} hand_case;

static int board_matches(const drop7_pos *p, const char *const rows[7])
{
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++) {
            char c = rows[y][x];
            int v = p->cell[y][x];
            if (c == '?') {
                if (v > 7)
                    return 0;
            } else if (v != (c == '.' ? 0 : c == 'S' ? DROP7_SOLID : c == 'C' ? DROP7_CRACKED : c - '0'))
                return 0;
        }
    return 1;
}

static void test_hand_cases(void)
{
    drop7_rules R;
    drop7_rules_normal(&R);
    const char *E = ".......";
    const hand_case cases[] = {
        {"vertical run of 2", {E, E, E, E, E, E, "...5..."}, 2, 3, 10, 1, 7, 1, 0,
         {E, E, E, E, E, E, "...5..."}},
        {"no run matches", {E, E, E, E, E, E, "...5..."}, 4, 3, 10, 1, 0, 0, 0,
         {E, E, E, E, E, "...4...", "...5..."}},
        {"chain of two steps scores 7 + 39", {E, E, E, E, E, "5......", "2......"}, 3, 0, 10, 1, 46, 2, 0,
         {E, E, E, E, E, E, "5......"}},
        {"horizontal run of 3", {E, E, E, E, E, E, "66....."}, 3, 2, 10, 1, 7, 1, 0,
         {E, E, E, E, E, E, "66....."}},
        {"a run counts covered discs, which never explode", {E, E, E, E, E, E, "SS....."}, 3, 2, 10, 1, 7, 1, 0,
         {E, E, E, E, E, E, "SC....."}},
        {"one exploding neighbour cracks a solid disc", {E, E, E, E, E, E, ".S....."}, 2, 0, 10, 1, 7, 1, 0,
         {E, E, E, E, E, E, ".C....."}},
        {"two exploding neighbours reveal a solid disc at once", {E, E, E, E, E, E, "3S....."}, 3, 2, 10, 1, -1,
         -1, 0, {E, E, E, E, E, E, ".?....."}},
        {"one hit per step when hit_each_neighbour is 0", {E, E, E, E, E, E, "3S....."}, 3, 2, 10, 0, 14, 1, 0,
         {E, E, E, E, E, E, ".C....."}},
        {"a cracked disc hit once reveals its number", {E, E, E, E, E, E, ".C....."}, 2, 0, 10, 1, -1, -1, 0,
         {E, E, E, E, E, E, ".?....."}},
        {"clearing the board scores 70000", {E, E, E, E, E, E, E}, 1, 4, 10, 1, 7 + 70000, 1, 0,
         {E, E, E, E, E, E, E}},
        {"a row rises after the level's last drop", {E, E, E, E, E, E, "...5..."}, 4, 3, 1, 1, 7000, 0, 0,
         {E, E, E, E, "...4...", "...5...", "SSSSSSS"}},
        {"the rise pushes a disc out: game over, no bonus",
         {"S......", "S......", "S......", "S......", "S......", "S......", "S......"}, 5, 3, 1, 1, 0, 0,
         DROP7_END_OVERFLOW,
         {"S......", "S......", "S......", "S......", "S......", "S......", "S..5..."}},
        {"the last free cell filled: game over",
         {"SSSSSS.", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS"}, DROP7_SOLID, 6, 5, 1, 0, 0,
         DROP7_END_FULL,
         {"SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS", "SSSSSSS"}},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(cases); i++) {
        const hand_case *c = &cases[i];
        drop7_rules r = R;
        r.hit_each_neighbour = c->hit_each;
        drop7_pos p, a, b;
        pos_from_rows(&p, c->rows, c->next, c->drops_left, 1234 + i);
        int same, chain = both_step(&r, &p, c->col, &a, &b, &same);
        char msg[160] = "";
        int fast_eq = !pos_diff(&a, &b, msg, sizeof msg) && same;
        int ok = fast_eq && board_matches(&a, c->after) && (c->score < 0 || a.score == c->score) &&
                 (c->chain < 0 || chain == c->chain) && a.over == c->over;
        t_check(ok, "drop7 rule", "%s: column %d, score %lld (want %lld), chain %d (want %d), end %d (want %d), "
                "fast game %s%s", c->name, c->col, (long long)a.score, (long long)c->score, chain, c->chain, a.over,
                c->over, fast_eq ? "identical" : "differs: ", fast_eq ? "" : msg);
        if (!ok) {
            print_pos("before", &p);
            print_pos("reference after", &a);
            print_pos("fast after", &b);
        }
    }
}

static void test_rng(void)
{
    int bad = 0, n = 0;
    for (uint64_t seed = 0; seed < 64; seed++) {
        gv_rng a;
        uint64_t b[4];
        gv_rng_seed(&a, seed * 0x9e3779b97f4a7c15ull);
        drop7_rng_seed(b, seed * 0x9e3779b97f4a7c15ull);
        for (int i = 0; i < 1000; i++, n++) {
            uint64_t lim = (uint64_t)(i % 50) + 1;
            if (i % 3 == 0)
                bad += gv_rng_u64(&a) != drop7_rng_u64(b);
            else
                bad += gv_rng_below(&a, lim) != drop7_rng_below(b, lim);
        }
    }
    t_check(bad == 0, "drop7 generator", "drop7_rng_* (device-capable) == core/rng.c on %d draws from 64 seeds, %d differ",
            n, bad);
}

static void test_tables(void)
{
    static const int32_t published[] = {7, 39, 109, 224, 391, 617, 907, 1267, 1701, 2213,
                                        2809, 3491, 4265, 5133, 6099, 7168, 8341, 9622};
    drop7_rules r;
    drop7_rules_normal(&r);
    int bad = 0;
    for (size_t k = 0; k < GV_ARRAY_LEN(published); k++)
        bad += r.chain_points[k + 1] != published[k];
    bad += r.chain_points[30] != 34506;
    for (int k = 2; k <= DROP7_MAX_CHAIN; k++)
        bad += r.chain_points[k] <= r.chain_points[k - 1];
    t_check(bad == 0, "drop7 chain points", "floor(7 k^2.5): %d, %d, %d, %d, %d ... k=30 %d, k=49 %d (%d mismatches)",
            r.chain_points[1], r.chain_points[2], r.chain_points[3], r.chain_points[4], r.chain_points[5],
            r.chain_points[30], r.chain_points[49], bad);

    int want_n[] = {30, 29, 28, 6, 5, 5}, lv[] = {1, 2, 3, 25, 26, 100};
    bad = 0;
    for (int i = 0; i < 6; i++)
        bad += drop7_rules_drops(&r, lv[i]) != want_n[i];
    drop7_rules h;
    drop7_rules_hardcore(&h);
    for (int l = 1; l < 50; l++)
        bad += drop7_rules_drops(&h, l) != 5;
    t_check(bad == 0, "drop7 drops per level", "normal 30, 29, 28 .. level 25: %d, level 26: %d, level 100: %d; "
            "hardcore 5 at every level (%d mismatches)", drop7_rules_drops(&r, 25), drop7_rules_drops(&r, 26),
            drop7_rules_drops(&r, 100), bad);

    gv_err err;
    drop7_rules z = r;
    z.reveal_weight[DROP7_SOLID] = 1;
    int rej1 = drop7_rules_check(&z, &err) == GV_ERR_INPUT;
    z = r;
    z.drops_min = 0;
    int rej2 = drop7_rules_check(&z, &err) == GV_ERR_INPUT;
    t_check(drop7_rules_check(&r, &err) == GV_OK && drop7_rules_check(&h, &err) == GV_OK && rej1 && rej2,
            "drop7 rules check", "normal and hardcore accepted; a covered reveal and drops_min 0 rejected (%s)",
            err.msg);
}

/* Starting boards: stable (nothing would explode), at most start_discs discs and on
 * average at least 90% of them (attempts that would explode are dropped), same on both. */
static void test_start(uint64_t seed)
{
    for (int mode = 0; mode < 2; mode++) {
        int bad = 0, unstable = 0, short_ = 0, over = 0, n = 2000;
        long discs = 0;
        drop7_rules r;
        drop7_rules_init(&r, (drop7_mode)mode);
        for (int i = 0; i < n; i++) {
            drop7_pos a, b;
            drop7_game g;
            drop7_ref_new(&r, seed + (uint64_t)i, &a);
            drop7_game_new(&r, &g, seed + (uint64_t)i);
            b = a;
            drop7_game_store(&g, &b);
            char msg[128];
            bad += pos_diff(&a, &b, msg, sizeof msg);
            unstable += drop7_exploding(&g) != 0;
            int cnt = (int)D7_POPCNT(g.occ);
            discs += cnt;
            short_ += cnt < r.start_discs;
            over += cnt > r.start_discs;
        }
        double mean = (double)discs / n;
        t_check(bad == 0 && unstable == 0 && over == 0 && mean >= 0.9 * r.start_discs, "drop7 start board",
                "%s: %d new games, reference == fast in %d, %d unstable, %d above start_discs %d, mean %.2f discs "
                "(%d games short of it)", mode ? "hardcore" : "normal", n, n - bad, unstable, over, r.start_discs,
                mean, short_);
    }
}

/* ---- random positions ----------------------------------------------------------------- */

static int rand_code(gv_rng *g)
{
    uint64_t r = gv_rng_below(g, 100);
    if (r < 62)
        return 1 + (int)(r % 7);
    return r < 84 ? DROP7_SOLID : DROP7_CRACKED;
}

/* Position i: columns packed from the bottom, heights up to a per-position cap, codes
 * numbers and covered discs; at least one column with room; rules varied too. */
static void random_position(uint64_t seed, long i, drop7_rules *r, drop7_pos *p)
{
    gv_rng g;
    gv_rng_seed(&g, seed ^ ((uint64_t)i * 0xd1342543de82ef95ull));
    uint64_t kind = gv_rng_below(&g, 16);
    drop7_rules_init(r, kind < 10 ? DROP7_MODE_NORMAL : DROP7_MODE_HARDCORE);
    if (kind == 7 || kind == 14)
        r->hit_each_neighbour = 0;
    if (kind == 8 || kind == 15)
        r->rise_chain_continues = 1;
    if (kind == 9) /* covered next discs of both kinds */
        r->next_weight[DROP7_CRACKED] = 10;
    memset(p, 0, sizeof *p);
    if (gv_rng_below(&g, 32) == 0) { /* nearly full, mostly covered: full-board endings */
        int hole = (int)gv_rng_below(&g, DROP7_N);
        for (int y = 0; y < DROP7_N; y++)
            for (int x = 0; x < DROP7_N; x++)
                p->cell[y][x] = (x == hole && y == 0) ? 0
                                : gv_rng_below(&g, 8) ? (uint8_t)(DROP7_SOLID + gv_rng_below(&g, 2))
                                                      : (uint8_t)rand_code(&g);
    } else for (;;) {
        int cap = 1 + (int)gv_rng_below(&g, 7);
        int room = 0;
        for (int x = 0; x < DROP7_N; x++) {
            int h = (int)gv_rng_below(&g, (uint64_t)cap + 1);
            for (int y = 0; y < DROP7_N; y++)
                p->cell[y][x] = y >= DROP7_N - h ? (uint8_t)rand_code(&g) : 0;
            room += h < DROP7_N;
        }
        if (room)
            break;
    }
    p->next = (uint8_t)(gv_rng_below(&g, 5) == 0 ? (gv_rng_below(&g, 2) ? DROP7_SOLID : DROP7_CRACKED)
                                                   : 1 + gv_rng_below(&g, 7));
    p->level = 1 + (int)gv_rng_below(&g, 40);
    int32_t d = drop7_rules_drops(r, p->level);
    p->drops_left = gv_rng_below(&g, 4) == 0 ? 1 : 1 + (int)gv_rng_below(&g, (uint64_t)d);
    p->score = (int64_t)gv_rng_below(&g, 1000000);
    p->nmoves = (int)gv_rng_below(&g, 500);
    p->max_chain = (int)gv_rng_below(&g, 4);
    gv_rng_seed(&p->rng, gv_rng_u64(&g));
}

static int covered(const drop7_pos *p)
{
    int n = 0;
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            n += p->cell[y][x] >= DROP7_SOLID;
    return n;
}

static void test_positions(uint64_t seed, long npos)
{
    long moves = 0, chained = 0, long_chain = 0, rises = 0, overflow = 0, full = 0, reveals = 0, first_bad = -1;
    int worst_chain = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : moves, chained, long_chain, rises, overflow, full, reveals) \
    reduction(max : worst_chain)
    for (long i = 0; i < npos; i++) {
        drop7_rules r;
        drop7_pos p, a, b;
        random_position(seed, i, &r, &p);
        for (int x = 0; x < DROP7_N; x++) {
            if (!drop7_ref_legal(&p, x))
                continue;
            int same, chain = both_step(&r, &p, x, &a, &b, &same);
            char msg[160];
            if (!same || pos_diff(&a, &b, msg, sizeof msg)) {
#pragma omp critical
                if (first_bad < 0 || i < first_bad)
                    first_bad = i;
                break;
            }
            moves++;
            chained += chain > 0;
            long_chain += chain >= 3;
            worst_chain = chain > worst_chain ? chain : worst_chain;
            rises += a.level > p.level;
            overflow += a.over == DROP7_END_OVERFLOW;
            full += a.over == DROP7_END_FULL;
            reveals += covered(&a) - (a.level > p.level ? DROP7_N : 0) < covered(&p) + (p.next >= DROP7_SOLID);
        }
    }
    /* the coverage figures must be nonzero too, else the positions did not exercise the rules */
    int ok = first_bad < 0 && chained > 0 && long_chain > 0 && rises > 0 && overflow > 0 && full > 0 && reveals > 0;
    t_check(ok, "drop7 reference == fast on random positions",
            "%ld positions (seed %llu), %ld moves compared (every legal column): %ld with a chain, %ld of 3+ steps "
            "(longest %d), %ld rises, %ld overflow and %ld full-board endings, %ld revealing numbers%s",
            npos, (unsigned long long)seed, moves, chained, long_chain, worst_chain, rises, overflow, full, reveals,
            first_bad < 0 ? "" : "; FIRST DIFFERENCE below");
    if (first_bad >= 0) {
        drop7_rules r;
        drop7_pos p, a, b;
        random_position(seed, first_bad, &r, &p);
        for (int x = 0; x < DROP7_N; x++) {
            if (!drop7_ref_legal(&p, x))
                continue;
            int same;
            both_step(&r, &p, x, &a, &b, &same);
            char msg[160] = "";
            if (!same || pos_diff(&a, &b, msg, sizeof msg)) {
                printf("    position %ld, column %d: %s%s\n", first_bad, x, msg, same ? "" : " (chain lengths differ)");
                print_pos("before", &p);
                print_pos("reference", &a);
                print_pos("fast", &b);
                break;
            }
        }
    }
}

/* Whole games, both implementations in lockstep, compared after every move. */
static void test_lockstep_games(uint64_t seed, long ngames)
{
    long moves = 0, bad = 0, levels = 0;
    int longest = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : moves, bad, levels) reduction(max : longest)
    for (long i = 0; i < ngames; i++) {
        drop7_rules r;
        drop7_rules_init(&r, (drop7_mode)(i & 1));
        int greedy = (i >> 1) & 1;
        drop7_pos a, b;
        drop7_game g;
        gv_rng prng;
        drop7_ref_new(&r, seed + (uint64_t)i, &a);
        drop7_game_new(&r, &g, seed + (uint64_t)i);
        gv_rng_seed(&prng, (uint64_t)i);
        char msg[160];
        while (!a.over && a.nmoves < 3000) {
            int m = drop7_legal(&g), x;
            if (greedy) {
                x = drop7_pick_greedy(&r, &g);
            } else {
                do
                    x = (int)gv_rng_below(&prng, DROP7_N);
                while (!((m >> x) & 1));
            }
            drop7_ref_step(&r, &a, x);
            drop7_step(&r, &g, x);
            b = a;
            drop7_game_store(&g, &b);
            if (pos_diff(&a, &b, msg, sizeof msg)) {
                bad++;
                break;
            }
            moves++;
        }
        levels += a.level;
        longest = a.nmoves > longest ? a.nmoves : longest;
    }
    t_check(bad == 0, "drop7 reference == fast in whole games",
            "%ld games (normal/hardcore, random/greedy), %ld moves compared after each move, mean level %.1f, "
            "longest %d moves, %ld games differ", ngames, moves, (double)levels / (ngames ? ngames : 1), longest, bad);
}

int main(void)
{
    const char *s = getenv("GV_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    test_rng();
    test_tables();
    test_hand_cases();
    test_start(seed);
    test_positions(seed, env_long("GV_DROP7_POSITIONS", 100000));
    test_lockstep_games(seed, env_long("GV_DROP7_GAMES", 1000));
    return t_done();
}
