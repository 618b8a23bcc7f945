/* drop7_expecti.c: the expectimax players of Drop7 (see drop7_expecti.h): a depth-first
 * recursion over columns and the weighted codes of the coming discs on copies of the fast
 * game, reveals sampled with common random numbers, whole games side by side on OpenMP
 * threads (one region for all the games: a region per move cost more than the search of
 * expectimax1 when the cores were shared). */
#include "drop7/drop7_expecti.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"

void drop7_expecti_defaults(drop7_expecti_opts *o, int depth)
{
    /* tuned at depth 1 on seeds 2,000,000+ (docs/DROP7.md); depth 2 takes the same leaf and
     * fewer samples, its cost being 56 times per sample */
    o->depth = depth;
    o->samples = depth >= 2 ? 2 : 16;
    o->cell_penalty = 50;
    o->covered_penalty = 50;
    o->over_penalty = 0;
}

/* What the recursion shares: the rules, the settings, W^d and the generator states of the
 * current sample per ply (seeded with s_k + ply). */
typedef struct {
    const drop7_rules *R;
    const drop7_expecti_opts *o;
    int64_t wpow[DROP7_EXPECTI_MAX_DEPTH + 1];
    uint64_t rng[DROP7_EXPECTI_MAX_DEPTH + 1][4];
} ctx;

static int64_t leaf_penalty(const ctx *c, const drop7_game *t)
{
    return (int64_t)c->o->cell_penalty * D7_POPCNT(t->occ) + (int64_t)c->o->covered_penalty * D7_POPCNT(t->occ & t->p[3]);
}

/* Q_d(s, x) x W^d for the current sample; ply counts the moves from the root. */
static int64_t q_value(const ctx *c, const drop7_game *s, int x, int ply, int d)
{
    drop7_game t = *s;
    for (int i = 0; i < 4; i++)
        t.rng[i] = c->rng[ply][i];
    drop7_step(c->R, &t, x);
    int64_t gain = t.score - s->score;
    if (t.over)
        return (gain - c->o->over_penalty) * c->wpow[d];
    if (d == 0)
        return gain - leaf_penalty(c, &t);
    int64_t sum = 0;
    int legal = drop7_legal(&t);
    for (int code = 1; code < DROP7_CODES; code++) {
        int w = c->R->next_weight[code];
        if (!w)
            continue;
        t.next = (uint8_t)code;
        int64_t best = INT64_MIN;
        for (int y = 0; y < DROP7_N; y++)
            if ((legal >> y) & 1) {
                int64_t v = q_value(c, &t, y, ply + 1, d - 1);
                if (v > best)
                    best = v;
            }
        sum += w * best;
    }
    return gain * c->wpow[d] + sum;
}

int drop7_expecti_values(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed,
                         int64_t *q)
{
    ctx c = {R, o, {1}, {{0}}};
    int64_t W = 0;
    for (int code = 1; code < DROP7_CODES; code++)
        W += R->next_weight[code];
    for (int d = 1; d <= DROP7_EXPECTI_MAX_DEPTH; d++)
        c.wpow[d] = c.wpow[d - 1] * W;
    int legal = drop7_legal(g);
    for (int x = 0; x < DROP7_N; x++)
        q[x] = ((legal >> x) & 1) ? 0 : INT64_MIN;
    uint64_t sm = move_seed;
    for (int k = 0; k < o->samples; k++) {
        uint64_t sk = gv_splitmix64(&sm);
        for (int p = 0; p <= o->depth; p++)
            drop7_rng_seed(c.rng[p], sk + (uint64_t)p);
        for (int x = 0; x < DROP7_N; x++)
            if ((legal >> x) & 1)
                q[x] += q_value(&c, g, x, 0, o->depth);
    }
    int best = -1;
    for (int x = 0; x < DROP7_N; x++)
        if (((legal >> x) & 1) && (best < 0 || q[x] > q[best]))
            best = x;
    return best;
}

int drop7_expecti_pick(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed)
{
    int64_t q[DROP7_N];
    return drop7_expecti_values(R, o, g, move_seed, q);
}

void drop7_expecti_pick_batch(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *const *g,
                              const uint64_t *seeds, int n, int threads, int *cols)
{
    int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int i = 0; i < n; i++)
        cols[i] = drop7_expecti_pick(R, o, g[i], seeds[i]);
}

long drop7_expecti_play_batch(const drop7_rules *R, const drop7_expecti_opts *o, uint64_t seed, int ngames,
                              int max_moves, int threads, int64_t *score, int32_t *nmoves, int32_t *end)
{
    int nt = threads > 0 ? threads : omp_get_max_threads(), cap = max_moves > 0 ? max_moves : DROP7_DEFAULT_MAX_MOVES;
    long moves = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) reduction(+ : moves)
    for (int i = 0; i < ngames; i++) {
        uint64_t s = seed + (uint64_t)i;
        drop7_game g;
        gv_rng srng;
        drop7_game_new(R, &g, s);
        gv_rng_seed(&srng, s ^ DROP7_EXPECTI_SEED_XOR);
        while (!g.over && g.nmoves < cap)
            drop7_step(R, &g, drop7_expecti_pick(R, o, &g, gv_rng_u64(&srng)));
        score[i] = g.score;
        nmoves[i] = g.nmoves;
        end[i] = g.over ? g.over : DROP7_END_CAP;
        moves += g.nmoves;
    }
    return moves;
}

/* ---- the tree with leaves valued from outside (drop7_expecti_expand, _back) ---------------- */

/* Nodes: (k, x) at ply 0 is k * 7 + x; (k, x, c, y) at ply 1 is ((k * 7 + x) * DROP7_CODES + c) * 7 + y. */
#define N0(k, x) ((k) * DROP7_N + (x))
#define N1(n0, c, y) (((n0) * DROP7_CODES + (c)) * DROP7_N + (y))

void drop7_expecti_tree_init(drop7_expecti_tree *t, const drop7_expecti_opts *o)
{
    memset(t, 0, sizeof *t);
    t->depth = o->depth, t->samples = o->samples;
    int n0 = o->samples * DROP7_N, n1 = o->depth ? n0 * DROP7_CODES * DROP7_N : 0;
    t->cap = o->depth ? n1 : n0;
    t->gain0 = gv_xcalloc((size_t)n0, sizeof *t->gain0);
    t->over0 = gv_xcalloc((size_t)n0, 1);
    t->legal0 = gv_xcalloc((size_t)n0, 1);
    if (n1) {
        t->gain1 = gv_xcalloc((size_t)n1, sizeof *t->gain1);
        t->over1 = gv_xcalloc((size_t)n1, 1);
    }
    t->leaf = gv_xcalloc((size_t)t->cap, sizeof *t->leaf);
    t->pos = gv_xcalloc((size_t)t->cap, sizeof *t->pos);
    t->h = gv_xcalloc((size_t)t->cap, sizeof *t->h);
}

void drop7_expecti_tree_free(drop7_expecti_tree *t)
{
    free(t->gain0), free(t->over0), free(t->legal0), free(t->gain1), free(t->over1), free(t->leaf), free(t->pos),
        free(t->h);
    memset(t, 0, sizeof *t);
}

/* A leaf at node i: position u (the game not over) into the list. */
static void add_leaf(const ctx *c, drop7_expecti_tree *t, int i, const drop7_game *u)
{
    t->leaf[i] = t->nleaves;
    t->pos[t->nleaves] = *u;
    t->h[t->nleaves] = leaf_penalty(c, u);
    t->nleaves++;
}

int drop7_expecti_expand(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed,
                         drop7_expecti_tree *t)
{
    ctx c = {R, o, {1}, {{0}}};
    t->nleaves = 0;
    t->legal = drop7_legal(g);
    for (int i = 0; i < t->cap; i++)
        t->leaf[i] = -1;
    uint64_t sm = move_seed;
    for (int k = 0; k < o->samples; k++) {
        uint64_t sk = gv_splitmix64(&sm);
        for (int p = 0; p <= o->depth; p++) /* the seeds of drop7_expecti_values */
            drop7_rng_seed(c.rng[p], sk + (uint64_t)p);
        for (int x = 0; x < DROP7_N; x++) {
            if (!((t->legal >> x) & 1))
                continue;
            int n0 = N0(k, x);
            drop7_game u = *g;
            memcpy(u.rng, c.rng[0], sizeof u.rng);
            drop7_step(R, &u, x);
            t->gain0[n0] = u.score - g->score;
            t->over0[n0] = u.over != 0;
            if (u.over)
                continue;
            if (!o->depth) {
                add_leaf(&c, t, n0, &u);
                continue;
            }
            int legal = drop7_legal(&u);
            t->legal0[n0] = (uint8_t)legal;
            for (int code = 1; code < DROP7_CODES; code++) {
                if (!R->next_weight[code])
                    continue;
                u.next = (uint8_t)code;
                for (int y = 0; y < DROP7_N; y++) {
                    if (!((legal >> y) & 1))
                        continue;
                    int n1 = N1(n0, code, y);
                    drop7_game w = u;
                    memcpy(w.rng, c.rng[1], sizeof w.rng);
                    drop7_step(R, &w, y);
                    t->gain1[n1] = w.score - u.score;
                    t->over1[n1] = w.over != 0;
                    if (!w.over)
                        add_leaf(&c, t, n1, &w);
                }
            }
        }
    }
    return t->nleaves;
}

int drop7_expecti_back(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_expecti_tree *t, const double *v,
                       double *q)
{
    double W = 0;
    for (int code = 1; code < DROP7_CODES; code++)
        W += R->next_weight[code];
    for (int x = 0; x < DROP7_N; x++)
        q[x] = ((t->legal >> x) & 1) ? 0 : -INFINITY;
    for (int k = 0; k < t->samples; k++)
        for (int x = 0; x < DROP7_N; x++) {
            if (!((t->legal >> x) & 1))
                continue;
            int n0 = N0(k, x);
            double gain = (double)t->gain0[n0];
            if (t->over0[n0]) {
                q[x] += (gain - o->over_penalty) * (t->depth ? W : 1);
                continue;
            }
            if (!t->depth) {
                int i = t->leaf[n0];
                q[x] += gain + (v ? v[i] : -(double)t->h[i]);
                continue;
            }
            double sum = 0;
            for (int code = 1; code < DROP7_CODES; code++) {
                if (!R->next_weight[code])
                    continue;
                double best = -INFINITY;
                for (int y = 0; y < DROP7_N; y++) {
                    if (!((t->legal0[n0] >> y) & 1))
                        continue;
                    int n1 = N1(n0, code, y), i = t->leaf[n1];
                    double g1 = (double)t->gain1[n1];
                    double val = t->over1[n1] ? g1 - o->over_penalty : g1 + (v ? v[i] : -(double)t->h[i]);
                    if (val > best)
                        best = val;
                }
                sum += R->next_weight[code] * best;
            }
            q[x] += gain * W + sum;
        }
    int best = -1;
    for (int x = 0; x < DROP7_N; x++)
        if (((t->legal >> x) & 1) && (best < 0 || q[x] > q[best]))
            best = x;
    return best;
}
