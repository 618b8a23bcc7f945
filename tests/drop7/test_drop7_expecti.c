/* test_drop7_expecti.c: the expectimax players (src/drop7/drop7_expecti.c) against a plain
 * brute force written here on the reference game (drop7_ref.c) from the definition in
 * drop7_expecti.h and docs/DROP7.md: for every legal column, every weighted code of each
 * coming disc and every reply column, the points of the whole line plus the leaf
 * heuristic, reveals drawn from the generator seeded with s_k + ply. Compared exactly
 * (integers): the value of every column and the chosen column, on hand-made boards (with
 * covered discs, a coming rise, nearly full columns) and on positions of random games,
 * at depth 1 and 2, with points only and with the heuristic, with 1 and 2 samples. Then:
 * the choice does not depend on the thread count, nor do whole games of the agent. The tree
 * whose leaves are valued from outside (drop7_expecti_expand, _back: the network's search)
 * against the search with the heuristic, and with a stand-in leaf value against the brute
 * force; the expectimax player with its positions kept plays the same games. GV_SEED fixes the random positions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "drop7_testlib.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_agent.h"
#include "drop7/drop7_expecti.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_train.h"

/* ---- the brute force, on the reference ------------------------------------------------ */

/* Points of a line's last move at a leaf: its gain minus the heuristic (or the penalty of
 * a game that ended). */
/* A leaf value given from outside (as the network's is: `--search expectimax1`) instead of
 * the heuristic, when set. */
static int64_t (*leaf_value)(const drop7_pos *t);

static int64_t leaf_points(const drop7_expecti_opts *o, const drop7_pos *t, int64_t gain)
{
    if (t->over)
        return gain - o->over_penalty;
    if (leaf_value)
        return gain + leaf_value(t);
    int64_t discs = 0, covered = 0;
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++) {
            discs += t->cell[y][x] != 0;
            covered += t->cell[y][x] >= DROP7_SOLID;
        }
    return gain - o->cell_penalty * discs - o->covered_penalty * covered;
}

/* p after column x at ply `ply` of sample seed sk; returns the points gained. */
static int64_t play_at(const drop7_rules *R, const drop7_pos *p, int x, int ply, uint64_t sk, drop7_pos *t)
{
    *t = *p;
    gv_rng_seed(&t->rng, sk + (uint64_t)ply);
    drop7_ref_step(R, t, x);
    return t->score - p->score;
}

/* Depth 1: sum over samples of sum_c w_c (gain1 + max_y leaf(gain2)), a game over after the
 * first move W (gain1 - over_penalty). Depth 2: one more level, W times deeper. */
static void brute(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_pos *p, uint64_t move_seed, int64_t *q)
{
    int64_t W = 0;
    for (int c = 1; c < DROP7_CODES; c++)
        W += R->next_weight[c];
    for (int x = 0; x < DROP7_N; x++)
        q[x] = drop7_ref_legal(p, x) ? 0 : INT64_MIN;
    uint64_t sm = move_seed;
    for (int k = 0; k < o->samples; k++) {
        uint64_t sk = gv_splitmix64(&sm);
        for (int x = 0; x < DROP7_N; x++) {
            if (!drop7_ref_legal(p, x))
                continue;
            drop7_pos a, b, u;
            int64_t g1 = play_at(R, p, x, 0, sk, &a);
            if (a.over || o->depth == 0) {
                q[x] += leaf_points(o, &a, g1) * (o->depth == 2 ? W * W : o->depth == 1 ? W : 1);
                continue;
            }
            for (int c = 1; c < DROP7_CODES; c++) {
                if (!R->next_weight[c])
                    continue;
                a.next = (uint8_t)c;
                int64_t best = INT64_MIN;
                for (int y = 0; y < DROP7_N; y++) {
                    if (!drop7_ref_legal(&a, y))
                        continue;
                    int64_t g2 = play_at(R, &a, y, 1, sk, &b), v;
                    if (o->depth == 1 || b.over) {
                        v = leaf_points(o, &b, g2) * (o->depth == 2 ? W : 1);
                    } else {
                        v = g2 * W;
                        for (int d = 1; d < DROP7_CODES; d++) {
                            if (!R->next_weight[d])
                                continue;
                            b.next = (uint8_t)d;
                            int64_t best3 = INT64_MIN;
                            for (int z = 0; z < DROP7_N; z++) {
                                if (!drop7_ref_legal(&b, z))
                                    continue;
                                int64_t g3 = play_at(R, &b, z, 2, sk, &u);
                                int64_t v3 = leaf_points(o, &u, g3);
                                if (v3 > best3)
                                    best3 = v3;
                            }
                            v += R->next_weight[d] * best3;
                        }
                    }
                    if (v > best)
                        best = v;
                }
                q[x] += R->next_weight[c] * (g1 * (o->depth == 2 ? W : 1) + best);
            }
        }
    }
}

static int best_col(const int64_t *q)
{
    int b = -1;
    for (int x = 0; x < DROP7_N; x++)
        if (q[x] != INT64_MIN && (b < 0 || q[x] > q[b]))
            b = x;
    return b;
}

/* Compares the search with the brute force on p; counts into *same, *differ; prints the
 * first difference under name. Returns the chosen column. */
static int compare(const char *name, const drop7_rules *R, const drop7_expecti_opts *o, const drop7_pos *p,
                   uint64_t move_seed, int verbose, int *same, int *differ)
{
    int64_t q[DROP7_N], b[DROP7_N];
    drop7_game g;
    drop7_game_load(p, &g);
    int col = drop7_expecti_values(R, o, &g, move_seed, q);
    brute(R, o, p, move_seed, b);
    int ok = col == best_col(b) && col == drop7_expecti_pick(R, o, &g, move_seed);
    for (int x = 0; x < DROP7_N; x++)
        ok &= q[x] == b[x];
    if (ok) {
        (*same)++;
    } else {
        if (!*differ)
            printf("    %s: search column %d, brute force %d; values (search / brute force):", name, col, best_col(b));
        for (int x = 0; x < DROP7_N && !*differ; x++)
            printf(" %lld/%lld", (long long)q[x], (long long)b[x]);
        if (!*differ)
            printf("\n");
        (*differ)++;
    }
    if (verbose) {
        printf("    %s (depth %d, K %d, heuristic %d/%d/%d): column %d, greedy %d; values/W^d:", name, o->depth,
               o->samples, o->cell_penalty, o->covered_penalty, o->over_penalty, col, drop7_pick_greedy(R, &g));
        double W = 0;
        for (int c = 1; c < DROP7_CODES; c++)
            W += R->next_weight[c];
        for (int x = 0; x < DROP7_N; x++)
            if (q[x] == INT64_MIN)
                printf(" -");
            else
                printf(" %.1f", (double)q[x] / (o->depth == 2 ? W * W : o->depth == 1 ? W : 1) / o->samples);
        printf("\n");
    }
    return col;
}

/* ---- positions ------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *rows[7];
    int next, drops_left;
} board;

#define E "......."
static const board boards[] = {
    {"a lone 2 and a 3 to place", {E, E, E, E, E, E, "2......"}, 3, 20},
    {"covered discs next to a 2 (reveals are sampled)", {E, E, E, E, E, "SC.....", "SS2...."}, 2, 20},
    {"a row rises after this drop", {E, E, E, E, "4......", "35.....", "SS6S..."}, 1, 1},
    {"nearly full columns and a rise (game over lines)", {"1.3....", "24S....", "S6C.5..", "CS2.S..", "S4S.1..",
                                                         "2SS3C..", "SS5S2.."}, 4, 1},
    {"a crowded board", {E, "...4...", "..S51..", ".C3S2..", "3SS6C1.", "S24SS5C", "6SCS3SS"}, 5, 7},
    {"a solid disc to drop", {E, E, E, E, "....2..", "..1.S..", ".5S3C.6"}, DROP7_SOLID, 3},
};
#undef E

static void test_boards(void)
{
    drop7_rules R;
    drop7_rules_normal(&R);
    const drop7_expecti_opts settings[] = {
        {1, 1, 0, 0, 0}, {1, 2, 0, 0, 0}, {1, 1, 300, 100, 50000}, {2, 1, 0, 0, 0}, {2, 1, 300, 100, 50000},
    };
    int nb = (int)(sizeof boards / sizeof boards[0]), ns = (int)(sizeof settings / sizeof settings[0]);
    int same = 0, differ = 0, not_greedy = 0;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < ns; j++) {
            drop7_pos p;
            pos_from_rows(&p, boards[i].rows, boards[i].next, boards[i].drops_left, 12345);
            drop7_game g;
            drop7_game_load(&p, &g);
            int col = compare(boards[i].name, &R, &settings[j], &p, 1000 + (uint64_t)i, 1, &same, &differ);
            not_greedy += col != drop7_pick_greedy(&R, &g);
        }
    t_check(!differ, "expectimax == brute force on hand-made boards",
            "%d boards x %d settings (depth 1 and 2, points only and heuristic, K 1 and 2): %d identical in every "
            "column's value and the choice, %d differ", nb, ns, same, differ);
    t_check(not_greedy > 0, "expectimax is not greedy on hand-made boards",
            "%d of %d choices differ from the greedy player's (the lookahead changes the move)", not_greedy, nb * ns);
}

/* A position of a random game: seed, then `moves` random moves (fewer if it ends). */
static void random_pos(const drop7_rules *R, uint64_t seed, int moves, drop7_pos *p)
{
    drop7_ref_new(R, seed, p);
    gv_rng pr;
    gv_rng_seed(&pr, seed ^ DROP7_PLAYER_SEED_XOR);
    for (int i = 0; i < moves && !p->over; i++) {
        int legal[DROP7_N], n = 0;
        for (int x = 0; x < DROP7_N; x++)
            if (drop7_ref_legal(p, x))
                legal[n++] = x;
        drop7_ref_step(R, p, legal[gv_rng_below(&pr, (uint64_t)n)]);
    }
}

static void test_random_positions(uint64_t seed, int mode, int n1, int n2)
{
    drop7_rules R;
    drop7_rules_init(&R, mode ? DROP7_MODE_HARDCORE : DROP7_MODE_NORMAL);
    gv_rng rng;
    gv_rng_seed(&rng, seed);
    int same = 0, differ = 0, over = 0, tested = 0;
    for (int i = 0; i < n1 + n2; i++) {
        drop7_pos p;
        random_pos(&R, gv_rng_u64(&rng), (int)gv_rng_below(&rng, mode ? 25 : 80), &p);
        while (p.over) { /* the game ended: a shorter one from another seed */
            over++;
            random_pos(&R, gv_rng_u64(&rng), (int)gv_rng_below(&rng, 10), &p);
        }
        drop7_expecti_opts o = {i < n1 ? 1 : 2, 1 + (int)gv_rng_below(&rng, 2), 0, 0, 0};
        if (gv_rng_below(&rng, 2))
            o.cell_penalty = 200, o.covered_penalty = 50, o.over_penalty = 30000;
        compare("random position", &R, &o, &p, gv_rng_u64(&rng), 0, &same, &differ);
        tested++;
    }
    t_check(!differ && tested > 0, mode ? "expectimax == brute force on random positions (hardcore)"
                                        : "expectimax == brute force on random positions (normal)",
            "%d positions of random games (%d at depth 1, the rest at depth 2; K 1 or 2; heuristic on or off; %d "
            "drawn again, already over): %d identical, %d differ", tested, n1, over, same, differ);
}

/* The batch on 1 and on 2 threads, and one by one, give the same columns. */
static void test_threads(uint64_t seed)
{
    drop7_rules R;
    drop7_rules_normal(&R);
    enum { N = 48 };
    drop7_game games[N];
    const drop7_game *gp[N];
    uint64_t seeds[N];
    int c1[N], c2[N], same = 0;
    gv_rng rng;
    gv_rng_seed(&rng, seed ^ 77);
    for (int i = 0; i < N; i++) {
        drop7_pos p;
        do
            random_pos(&R, gv_rng_u64(&rng), (int)gv_rng_below(&rng, 60), &p);
        while (p.over);
        drop7_game_load(&p, &games[i]);
        gp[i] = &games[i];
        seeds[i] = gv_rng_u64(&rng);
    }
    drop7_expecti_opts o;
    drop7_expecti_defaults(&o, 1);
    drop7_expecti_pick_batch(&R, &o, gp, seeds, N, 1, c1);
    drop7_expecti_pick_batch(&R, &o, gp, seeds, N, 2, c2);
    for (int i = 0; i < N; i++)
        same += c1[i] == c2[i] && c1[i] == drop7_expecti_pick(&R, &o, &games[i], seeds[i]);
    t_check(same == N, "expectimax batch: threads do not change the choice",
            "%d positions, 1 thread vs 2 threads vs one at a time: %d of %d identical", N, same, N);
}

/* Whole games of the agent: the same on all threads twice and on 1 thread. */
static void test_agent_games(void)
{
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, DROP7_MODE_HARDCORE); /* short games */
    o.policy = DROP7_POLICY_EXPECTI1;
    o.ngames = 5, o.seed = 40, o.parallel = 5;
    drop7_agent_result a, b, c;
    gv_err err = {{0}};
    int ok = drop7_agent_play(&o, &a, &err) == GV_OK;
    ok = ok && drop7_agent_play(&o, &b, &err) == GV_OK;
    o.threads = 1;
    ok = ok && drop7_agent_play(&o, &c, &err) == GV_OK;
    int same = 0;
    for (int i = 0; ok && i < o.ngames; i++)
        same += a.score[i] == b.score[i] && a.score[i] == c.score[i] && a.nmoves[i] == c.nmoves[i];
    t_check(ok && same == o.ngames, "expectimax games are their seeds",
            "5 hardcore games of expectimax1 (seeds 40..44), on all threads twice and on 1 thread: %d of 5 identical "
            "(scores %lld, %lld, ...)", same, ok ? (long long)a.score[0] : -1, ok ? (long long)a.score[1] : -1);
    if (ok)
        drop7_agent_result_free(&a), drop7_agent_result_free(&b), drop7_agent_result_free(&c);
    drop7_expecti_opts bad = {3, 1, 0, 0, 0};
    o.expecti = &bad;
    gv_status s = drop7_agent_play(&o, &a, &err);
    t_check(s == GV_ERR_INPUT, "expectimax: depth 3 refused", "status %d (GV_ERR_INPUT %d): %s", (int)s,
            (int)GV_ERR_INPUT, err.msg);
}

/* ---- the tree with outside leaf values (drop7_expecti_expand, _back) ---------------------- */

/* A stand-in for the network's value: an integer function of the whole leaf position (the
 * board, the next disc, the level counter, the score), so that every leaf matters. */
static int64_t stand_in(const drop7_pos *t)
{
    int64_t v = 7 * (t->score % 1009) - 311 * t->drops_left + 97 * t->next + 13 * t->level;
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            v += (int64_t)t->cell[y][x] * (x + 1) * (2 * y - 5);
    return v;
}

/* The tree against drop7_expecti_values with the heuristic (v NULL: -h), and against the
 * brute force with the stand-in's values at the leaves, depth 0 and 1, K 1..3. */
static void test_tree(uint64_t seed, int mode, int n)
{
    drop7_rules R;
    drop7_rules_init(&R, mode ? DROP7_MODE_HARDCORE : DROP7_MODE_NORMAL);
    gv_rng rng;
    gv_rng_seed(&rng, seed ^ 0x7ee);
    int same_h = 0, same_v = 0, leaves = 0;
    for (int i = 0; i < n; i++) {
        drop7_pos p;
        do
            random_pos(&R, gv_rng_u64(&rng), (int)gv_rng_below(&rng, mode ? 25 : 80), &p);
        while (p.over);
        drop7_expecti_opts o = {(int)gv_rng_below(&rng, 2), 1 + (int)gv_rng_below(&rng, 3), 0, 0, 0};
        if (gv_rng_below(&rng, 2))
            o.cell_penalty = 50, o.covered_penalty = 50, o.over_penalty = 30000;
        uint64_t ms = gv_rng_u64(&rng);
        drop7_game g;
        drop7_game_load(&p, &g);
        drop7_expecti_tree t;
        drop7_expecti_tree_init(&t, &o);
        leaves += drop7_expecti_expand(&R, &o, &g, ms, &t);
        double q[DROP7_N];
        int64_t qi[DROP7_N], b[DROP7_N];
        int col = drop7_expecti_back(&R, &o, &t, NULL, q), ok = col == drop7_expecti_values(&R, &o, &g, ms, qi);
        for (int x = 0; x < DROP7_N; x++)
            ok &= qi[x] == INT64_MIN ? q[x] == -INFINITY : q[x] == (double)qi[x];
        same_h += ok;
        double *v = gv_xcalloc((size_t)(t.nleaves ? t.nleaves : 1), sizeof(double));
        for (int j = 0; j < t.nleaves; j++) {
            drop7_pos lp;
            drop7_game_store(&t.pos[j], &lp);
            v[j] = (double)stand_in(&lp);
        }
        col = drop7_expecti_back(&R, &o, &t, v, q);
        leaf_value = stand_in;
        brute(&R, &o, &p, ms, b);
        leaf_value = NULL;
        ok = col == best_col(b);
        for (int x = 0; x < DROP7_N; x++)
            ok &= b[x] == INT64_MIN ? q[x] == -INFINITY : q[x] == (double)b[x];
        if (!ok && same_v == i)
            printf("    position %d (depth %d, K %d): tree column %d, brute force %d\n", i, o.depth, o.samples, col,
                   best_col(b));
        same_v += ok;
        free(v);
        drop7_expecti_tree_free(&t);
    }
    t_check(same_h == n && same_v == n, mode ? "expectimax tree == search and brute force (hardcore)"
                                             : "expectimax tree == search and brute force (normal)",
            "%d random positions, depth 0 or 1, K 1..3 (%d leaves): with the heuristic every column's value and the "
            "choice == drop7_expecti_values in %d; with a stand-in leaf value == the brute force on the reference in %d",
            n, leaves, same_h, same_v);
}

/* The expectimax player through the slots (record: its positions kept) plays the games it
 * plays without: the same scores and lengths, a one-hot sample per move. */
static void test_agent_record(void)
{
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, DROP7_MODE_HARDCORE);
    o.policy = DROP7_POLICY_EXPECTI1;
    o.ngames = 6, o.seed = 70, o.parallel = 4;
    drop7_agent_result a, b;
    gv_err err = {{0}};
    int ok = drop7_agent_play(&o, &a, &err) == GV_OK;
    o.record = 1, o.threads = 2;
    ok = ok && drop7_agent_play(&o, &b, &err) == GV_OK;
    int same = 0;
    long moves = 0, onehot = 0;
    for (int i = 0; ok && i < o.ngames; i++) {
        same += a.score[i] == b.score[i] && a.nmoves[i] == b.nmoves[i];
        moves += b.nmoves[i];
    }
    for (long j = 0; ok && j < b.n; j++) {
        float sum = 0, mx = 0;
        for (int x = 0; x < DROP7_N; x++)
            sum += b.policy[j * DROP7_N + x], mx = b.policy[j * DROP7_N + x] > mx ? b.policy[j * DROP7_N + x] : mx;
        onehot += sum == 1.0f && mx == 1.0f;
    }
    t_check(ok && same == o.ngames && b.n == moves && onehot == b.n, "expectimax games with their positions kept",
            "6 hardcore games of expectimax1 (seeds 70..75), 4 slots, 2 threads, recorded vs not: %d of 6 the same "
            "(score, moves); %ld samples for %ld moves, %ld one-hot", same, ok ? b.n : -1L, moves, onehot);
    if (ok)
        drop7_agent_result_free(&a), drop7_agent_result_free(&b);
    /* discounted values: D_t = r_t + g D_(t+1), r_t the points of move t, from the undiscounted
     * U_t = final - score_t (one slot: the samples game after game, in move order) */
    o.parallel = 1, o.ngames = 3;
    ok = drop7_agent_play(&o, &a, &err) == GV_OK;
    o.discount = 0.9;
    ok = ok && drop7_agent_play(&o, &b, &err) == GV_OK;
    long checked = 0, bad = 0;
    double worst = 0;
    for (int gm = 0, j0 = 0; ok && gm < o.ngames; j0 += a.nmoves[gm], gm++) {
        double D = 0;
        for (int t = a.nmoves[gm] - 1; t >= 0; t--) {
            double U = a.value[j0 + t], Un = t + 1 < a.nmoves[gm] ? a.value[j0 + t + 1] : 0;
            D = (U - Un) + 0.9 * D;
            double e = fabs(D - b.value[j0 + t]);
            worst = e > worst ? e : worst;
            bad += e > 1e-4 * (1 + fabs(D));
            checked++;
        }
    }
    t_check(ok && checked == a.n && !bad && a.n == b.n, "discounted values",
            "3 hardcore games of expectimax1 (seeds 70..72) recorded with discount 0.9: %ld samples, each == its points "
            "plus 0.9 x the next sample's value, from the undiscounted values (float): %ld off by more than 1e-4 "
            "(largest difference %.2g)", checked, bad, worst);
    if (ok)
        drop7_agent_result_free(&a), drop7_agent_result_free(&b);
    o.discount = 0;
    o.policy = DROP7_POLICY_NET_EXPECTI;
    gv_status st = drop7_agent_play(&o, &a, &err);
    t_check(st == GV_ERR_INPUT, "network expectimax without a network refused", "status %d: %s", (int)st, err.msg);
}

/* The network's expectimax player end to end with a small fresh network on the CPU: the games
 * do not depend on the leaves per call nor on the threads; the leaves are 7 per sample at
 * depth 0; a value scale scales the leaves (so the choices can change, the games still
 * their seeds). */
static void test_net_expecti(void)
{
    drop7_net n;
    gv_err err = {{0}};
    nn_config cfg = {8, 1, NN_NORM_GROUP};
    gv_status st = drop7_net_open(&DEV_ID_CPU, NULL, &cfg, 5, (nn_trainer_opts){.dtype = NN_FP32, .max_batch = 512,
                                  .threads = 1, .infer_only = 1}, &n, &err);
    t_check(st == GV_OK, "a fresh 8-channel network", "status %d %s", (int)st, err.msg);
    if (st != GV_OK)
        return;
    drop7_expecti_opts eo;
    drop7_expecti_defaults(&eo, 1);
    eo.samples = 1;
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, DROP7_MODE_HARDCORE);
    o.policy = DROP7_POLICY_NET_EXPECTI, o.net = n.t, o.expecti = &eo;
    o.ngames = 4, o.seed = 90, o.parallel = 3, o.record = 1, o.threads = 1, o.eval_batch = 512;
    drop7_agent_result a, b, c;
    int ok = drop7_agent_play(&o, &a, &err) == GV_OK;
    o.eval_batch = 37, o.threads = 2;
    ok = ok && drop7_agent_play(&o, &b, &err) == GV_OK;
    eo.depth = 0, eo.samples = 3;
    ok = ok && drop7_agent_play(&o, &c, &err) == GV_OK;
    int same = 0;
    long moves = 0;
    for (int i = 0; ok && i < o.ngames; i++)
        same += a.score[i] == b.score[i] && a.nmoves[i] == b.nmoves[i], moves += a.nmoves[i];
    int sok = ok && a.n == b.n && !memcmp(a.planes, b.planes, sizeof(float) * DROP7_PLANE_FLOATS * (size_t)a.n) &&
              !memcmp(a.policy, b.policy, sizeof(float) * DROP7_N * (size_t)a.n) &&
              !memcmp(a.value, b.value, sizeof(float) * (size_t)a.n);
    long cmoves = 0;
    for (int i = 0; ok && i < o.ngames; i++)
        cmoves += c.nmoves[i];
    t_check(ok && same == o.ngames && sok && a.n == moves && a.evals > 0 && a.evals == b.evals && c.evals > 0 &&
                c.evals <= 21 * cmoves,
            "the network's expectimax search: games are their seeds",
            "4 hardcore games (seeds 90..93), depth 1 K 1: 512 leaves a call on 1 thread vs 37 on 2: %d of 4 the same, "
            "samples %s (%ld for %ld moves); %ld and %ld leaves evaluated, %ld calls vs %ld; depth 0 K 3: %ld leaves for "
            "%ld moves (at most 21 a move)", same, sok ? "identical" : "DIFFER", ok ? a.n : -1L, moves, ok ? a.evals : -1L,
            ok ? b.evals : -1L, ok ? a.calls : -1L, ok ? b.calls : -1L, ok ? c.evals : -1L, cmoves);
    if (ok)
        drop7_agent_result_free(&a), drop7_agent_result_free(&b), drop7_agent_result_free(&c);
    /* the leaf 0 x the network - 1 x h: the expectimax player with the heuristic, move for move */
    eo.depth = 1, eo.samples = 2;
    o.record = 0, o.value_weight = 0, o.heuristic_weight = 1, o.weights_set = 1, o.ngames = 3, o.seed = 120;
    ok = drop7_agent_play(&o, &a, &err) == GV_OK;
    o.policy = DROP7_POLICY_EXPECTI1, o.net = NULL;
    ok = ok && drop7_agent_play(&o, &b, &err) == GV_OK;
    same = 0;
    for (int i = 0; ok && i < o.ngames; i++)
        same += a.score[i] == b.score[i] && a.nmoves[i] == b.nmoves[i];
    t_check(ok && same == o.ngames, "the network's search with weights 0 and 1 == expectimax",
            "3 hardcore games (seeds 120..122), depth 1 K 2: leaf 0 x value - 1 x h through the network's search vs the "
            "expectimax1 player: %d of 3 the same (scores %lld / %lld, ...)", same, ok ? (long long)a.score[0] : -1,
            ok ? (long long)b.score[0] : -1);
    if (ok)
        drop7_agent_result_free(&a), drop7_agent_result_free(&b);
    drop7_net_close(&n);
}

int main(void)
{
    const char *s = getenv("GV_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    printf("seed %llu (GV_SEED)\n", (unsigned long long)seed);
    test_boards();
    test_random_positions(seed, 0, 150, 6);
    test_random_positions(seed + 1, 1, 60, 3);
    test_threads(seed);
    test_agent_games();
    test_tree(seed, 0, 40);
    test_tree(seed + 1, 1, 30);
    test_agent_record();
    test_net_expecti();
    return t_done();
}
