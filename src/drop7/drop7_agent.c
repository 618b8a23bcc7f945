/* drop7_agent.c: games played by a policy, with the batched open-loop PUCT search
 * (see drop7_agent.h). */
#include "drop7/drop7_agent.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/progress.h"
#include "core/record.h"
#include "core/stats.h"
#include "dev/dev.h"
#include "drop7/drop7_game.h"

typedef struct {
    int32_t child[DROP7_N]; /* node index, -1: none yet */
    float P[DROP7_N];       /* priors (0 for columns illegal when expanded) */
    int32_t N[DROP7_N];
    double W[DROP7_N];      /* sum of returns through each column */
    uint8_t expanded;
} node;

typedef struct {
    drop7_game g;           /* the real game */
    uint64_t prng[4];       /* the random player's generator */
    gv_rng srng;            /* the search's generator (chance samples, noise, temperature) */
    int id;                 /* game index, -1: the slot is idle */
    node *nodes;
    int nnodes;
    double qmin, qmax;
    drop7_game sim;         /* the state of the current simulation */
    int *pnode;             /* its path: nodes, columns, rewards */
    uint8_t *pa;
    double *pr;
    int depth, leaf;        /* leaf: node to expand after the evaluation, -1 none */
    int move;               /* the column the search chose for the real game */
} slot;

/* The samples recorded and not yet handed out (their chunk still plays), in the order they
 * were made, with per sample its game and the game's score then. */
typedef struct {
    long n, cap;
    float *planes, *policy;
    int32_t *game;
    int64_t *score_then;
} samples;

static double gamma_draw(gv_rng *r, double a)
{
    if (a < 1) /* Gamma(a) = Gamma(a + 1) U^(1/a) */
        return gamma_draw(r, a + 1) * pow(gv_rng_uniform(r) + 1e-300, 1.0 / a);
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d); /* Marsaglia and Tsang */
    for (;;) {
        double x = gv_rng_normal(r), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = gv_rng_uniform(r);
        if (log(u + 1e-300) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

static int node_new(slot *s)
{
    node *n = &s->nodes[s->nnodes];
    memset(n, 0, sizeof *n);
    for (int a = 0; a < DROP7_N; a++)
        n->child[a] = -1;
    return s->nnodes++;
}

/* PUCT over the columns legal in the simulated state; ties to the lowest column. */
static int select_col(const drop7_agent_opts *o, const slot *s, const node *n, int legal)
{
    double total = 0;
    for (int a = 0; a < DROP7_N; a++)
        total += n->N[a];
    double sq = sqrt(total > 1 ? total : 1), span = s->qmax - s->qmin, c = o->c_puct > 0 ? o->c_puct : 1.25;
    int best = -1;
    double bv = 0;
    for (int a = 0; a < DROP7_N; a++) {
        if (!((legal >> a) & 1))
            continue;
        double q = 0;
        if (n->N[a] > 0 && span > 0)
            q = (n->W[a] / n->N[a] - s->qmin) / span;
        double v = q + c * n->P[a] * sq / (1 + n->N[a]);
        if (best < 0 || v > bv)
            best = a, bv = v;
    }
    return best;
}

static void backup(slot *s, double v)
{
    double G = v;
    for (int i = s->depth - 1; i >= 0; i--) {
        G += s->pr[i];
        node *n = &s->nodes[s->pnode[i]];
        int a = s->pa[i];
        n->N[a]++;
        n->W[a] += G;
        double q = n->W[a] / n->N[a];
        if (q < s->qmin)
            s->qmin = q;
        if (q > s->qmax)
            s->qmax = q;
    }
}

/* One simulation's walk: from the root on a copy of the game with a reseeded generator,
 * PUCT down the expanded nodes; at an unexpanded node s->leaf is set (to be evaluated);
 * at the end of the game the path is backed up with value 0 and s->leaf is -1. */
static void descend(const drop7_agent_opts *o, slot *s)
{
    s->sim = s->g;
    drop7_rng_seed(s->sim.rng, gv_rng_u64(&s->srng));
    int n = 0;
    s->depth = 0;
    while (s->nodes[n].expanded && !s->sim.over) {
        int a = select_col(o, s, &s->nodes[n], drop7_legal(&s->sim));
        int64_t before = s->sim.score;
        drop7_step(&o->rules, &s->sim, a);
        s->pnode[s->depth] = n;
        s->pa[s->depth] = (uint8_t)a;
        s->pr[s->depth] = (double)(s->sim.score - before) / DROP7_VALUE_SCALE;
        s->depth++;
        if (s->nodes[n].child[a] < 0) {
            int c = node_new(s);
            s->nodes[n].child[a] = c;
        }
        n = s->nodes[n].child[a];
    }
    if (s->sim.over) {
        backup(s, 0);
        s->leaf = -1;
    } else {
        s->leaf = n;
    }
}

/* Softmax of the logits over the legal columns (0 elsewhere). */
static void legal_softmax(const double *logits, int legal, float *p)
{
    double mx = -INFINITY, sum = 0, e[DROP7_N];
    for (int a = 0; a < DROP7_N; a++)
        if (((legal >> a) & 1) && logits[a] > mx)
            mx = logits[a];
    for (int a = 0; a < DROP7_N; a++) {
        e[a] = ((legal >> a) & 1) ? exp(logits[a] - mx) : 0;
        sum += e[a];
    }
    for (int a = 0; a < DROP7_N; a++)
        p[a] = sum > 0 ? (float)(e[a] / sum) : 0.0f;
}

static void expand(const drop7_agent_opts *o, slot *s, const double *logits, double value)
{
    node *n = &s->nodes[s->leaf];
    int legal = drop7_legal(&s->sim);
    legal_softmax(logits, legal, n->P);
    n->expanded = 1;
    if (s->leaf == 0 && o->dir_alpha > 0) {
        double d[DROP7_N], sum = 0;
        for (int a = 0; a < DROP7_N; a++) {
            d[a] = ((legal >> a) & 1) ? gamma_draw(&s->srng, o->dir_alpha) : 0;
            sum += d[a];
        }
        for (int a = 0; a < DROP7_N; a++)
            if (sum > 0)
                n->P[a] = (float)((1 - o->dir_eps) * n->P[a] + o->dir_eps * d[a] / sum);
    }
    backup(s, value);
}

/* A column drawn with probability w[a] / sum (w >= 0, sum > 0), or the largest w (ties to
 * the lowest column) when sample is 0. */
static int choose(const double *w, int sample, gv_rng *r)
{
    double sum = 0;
    int best = -1;
    for (int a = 0; a < DROP7_N; a++) {
        sum += w[a];
        if (w[a] > 0 && (best < 0 || w[a] > w[best]))
            best = a;
    }
    if (!sample || sum <= 0)
        return best;
    double u = gv_rng_uniform(r) * sum;
    for (int a = 0; a < DROP7_N; a++) {
        if (w[a] > 0 && u < w[a])
            return a;
        u -= w[a];
    }
    return best;
}

/* How the batch of an evaluation is padded: not at all (the CPU: its cost follows the
 * positions), to --parallel always (one captured graph; what a GPU did before the steps), or
 * to the next of a few steps (a GPU: one graph per step, captured once; the default). Padded,
 * the trainer is pinned to the slots' batch: each step computes what a full batch would.
 * GV_SELFPLAY_PAD=none|full|steps overrides the device's default. */
enum { PAD_NONE, PAD_FULL, PAD_STEPS };

typedef struct {
    const drop7_agent_opts *o;
    drop7_agent_result *r;
    samples sm;
    nn_batch b;
    double *logits, *value;
    int pad;               /* PAD_* */
    int nslots;            /* the largest batch (the slots) */
    int last_n;            /* the batch size of the call before (0: none yet) */
    uint8_t *seen;         /* (nslots + 1): batch sizes used so far */
    double vscale;         /* points per unit of the network's value */
    drop7_expecti_opts eo; /* the expectimax players' settings */
    drop7_expecti_tree *tree; /* NET_EXPECTI: per slot */
    uint64_t *mseed;       /* per slot: this move's search seed */
    long *off;             /* per slot: its first leaf in leafv */
    double *leafv;         /* the leaves' values, points */
    long leafcap;
    /* the leaves' positions as the network reads them (LEAF_KEY bytes each: cells, then the two
     * constant planes' floats), the leaves to evaluate (uniq) and, per leaf, the one whose
     * value it takes (src: itself, or an equal leaf of the same tree before it) */
    uint8_t *lkey;
    long *uniq, *src, lkcap;
    int32_t *ltab;         /* the open-addressed table of one tree's keys */
    int ltcap;
} agent;

#define LEAF_KEY (DROP7_CELLS + 2 * (int)sizeof(float))

/* The batch computed for k positions: k, or padded (see PAD_*). The steps, for P slots and
 * m = max(P / 8, 8): multiples of m, and below m the powers of two from 8; at most P
 * (P = 256: 8, 16, 32, 64, 96, ..., 256, ten sizes). */
static int padded(const agent *A, int k)
{
    const int P = A->nslots;
    if (A->pad == PAD_NONE)
        return k;
    if (A->pad == PAD_FULL)
        return P;
    int m = P / 8 > 8 ? P / 8 : 8, n = 8;
    if (k >= m)
        n = (k + m - 1) / m * m;
    while (n < k)
        n *= 2;
    return n < P ? n : P;
}

/* Evaluates the first k positions of A->b (their cells filled) in one batch, padded. Nothing
 * is allocated here: the batch and the outputs were made for the largest batch. t0: when
 * the filling began (the inference's time counts from there). */
static gv_status evaluate_cells(agent *A, int k, double t0, gv_err *err)
{
    int n = padded(A, k);
    if (n > k) { /* padding: all-zero planes */
        memset(A->b.cells + (size_t)k * DROP7_CELLS, NN_NO_PLANE, DROP7_CELLS * (size_t)(n - k));
        memset(A->b.consts + 2 * (size_t)k, 0, sizeof(float) * 2 * (size_t)(n - k));
    }
    A->b.n = n;
    gv_status s = nn_trainer_set_batch(A->o->net, &A->b, err);
    if (s == GV_OK)
        s = nn_trainer_infer(A->o->net, A->logits, A->value, err);
    A->r->evals += k;
    A->r->calls++;
    A->r->slots += n;
    A->r->size_changes += A->last_n && n != A->last_n;
    A->r->sizes += !A->seen[n];
    A->seen[n] = 1;
    A->last_n = n;
    A->r->t_infer += gv_now() - t0;
    return s;
}

/* Evaluates the positions of the slots listed in idx (their s->sim) in one batch. */
static gv_status evaluate(agent *A, slot *sl, const int *idx, int k, gv_err *err)
{
    double t0 = gv_now();
    for (int i = 0; i < k; i++)
        drop7_game_cells(&sl[idx[i]].sim, A->b.cells + (size_t)i * DROP7_CELLS, A->b.consts + 2 * (size_t)i);
    return evaluate_cells(A, k, t0, err);
}

static void sample_add(agent *A, slot *s, const float *policy)
{
    samples *sm = &A->sm;
    if (sm->n == sm->cap) {
        sm->cap = sm->cap ? 2 * sm->cap : 4096;
        sm->planes = gv_xrealloc(sm->planes, sizeof(float) * DROP7_PLANE_FLOATS * (size_t)sm->cap);
        sm->policy = gv_xrealloc(sm->policy, sizeof(float) * DROP7_N * (size_t)sm->cap);
        sm->game = gv_xrealloc(sm->game, sizeof(int32_t) * (size_t)sm->cap);
        sm->score_then = gv_xrealloc(sm->score_then, sizeof(int64_t) * (size_t)sm->cap);
    }
    drop7_game_encode(&s->g, sm->planes + (size_t)sm->n * DROP7_PLANE_FLOATS);
    memcpy(sm->policy + (size_t)sm->n * DROP7_N, policy, sizeof(float) * DROP7_N);
    sm->game[sm->n] = s->id;
    sm->score_then[sm->n] = s->g.score;
    sm->n++;
}

typedef struct {
    int64_t key;
    long i;
} order_key;

static int order_cmp(const void *a, const void *b)
{
    int64_t x = ((const order_key *)a)->key, y = ((const order_key *)b)->key;
    return x < y ? -1 : x > y;
}

/* Hands out the samples of games c0..c0+cg-1 (all done) and drops them from A->sm. Their
 * order is the one of the chunk played on its own: nso = min(parallel, cg) slots, every
 * round each idle slot (in slot order) takes the chunk's next game, then each running game
 * (in slot order) makes one move, one sample; a game of L samples plays L rounds. So the
 * m-th sample of a game that started in round r0 in slot q comes at (r0 + m) * nso + q. */
static gv_status flush_chunk(agent *A, int c0, int cg, gv_err *err)
{
    const drop7_agent_opts *o = A->o;
    drop7_agent_result *r = A->r;
    samples *sm = &A->sm;
    const int nso = o->parallel < cg ? o->parallel : cg;
    long *cnt = gv_xcalloc((size_t)cg, sizeof *cnt), *left = gv_xcalloc((size_t)cg, sizeof *left);
    int64_t *start = gv_xcalloc((size_t)cg, sizeof *start);
    int *slotof = gv_xcalloc((size_t)cg, sizeof *slotof), *in = gv_xcalloc((size_t)nso, sizeof *in);
    long n = 0;
    for (long i = 0; i < sm->n; i++)
        if (sm->game[i] >= c0 && sm->game[i] < c0 + cg)
            cnt[sm->game[i] - c0]++, n++;
    for (int q = 0; q < nso; q++)
        in[q] = -1;
    for (int64_t round = 0, next = 0, done = 0; done < cg; round++) {
        for (int q = 0; q < nso; q++)
            if (in[q] < 0 && next < cg) {
                in[q] = (int)next;
                start[next] = round, slotof[next] = q, left[next] = cnt[next];
                next++;
            }
        for (int q = 0; q < nso; q++)
            if (in[q] >= 0 && --left[in[q]] <= 0)
                in[q] = -1, done++;
    }
    order_key *ord = gv_xcalloc((size_t)(n ? n : 1), sizeof *ord);
    memset(cnt, 0, sizeof *cnt * (size_t)cg); /* now: samples of each game seen so far */
    long k = 0, kept = 0;
    for (long i = 0; i < sm->n; i++) {
        int g = sm->game[i] - c0;
        if (g >= 0 && g < cg) {
            ord[k].key = (start[g] + cnt[g]++) * nso + slotof[g];
            ord[k++].i = i;
        }
    }
    qsort(ord, (size_t)n, sizeof *ord, order_cmp);
    drop7_agent_result part = {.ngames = cg, .score = r->score + c0, .nmoves = r->nmoves + c0, .end = r->end + c0, .n = n};
    part.planes = gv_xcalloc((size_t)(n ? n : 1), sizeof(float) * DROP7_PLANE_FLOATS);
    part.policy = gv_xcalloc((size_t)(n ? n : 1), sizeof(float) * DROP7_N);
    part.value = gv_xcalloc((size_t)(n ? n : 1), sizeof(float));
    for (long j = 0; j < n; j++) {
        long i = ord[j].i;
        memcpy(part.planes + (size_t)j * DROP7_PLANE_FLOATS, sm->planes + (size_t)i * DROP7_PLANE_FLOATS,
               sizeof(float) * DROP7_PLANE_FLOATS);
        memcpy(part.policy + (size_t)j * DROP7_N, sm->policy + (size_t)i * DROP7_N, sizeof(float) * DROP7_N);
        part.value[j] = (float)((double)(r->score[sm->game[i]] - sm->score_then[i]) / DROP7_VALUE_SCALE);
    }
    if (o->discount > 0 && o->discount < 1) { /* backwards through each game's samples (in move order) */
        double *G = gv_xcalloc((size_t)cg, sizeof *G);
        int64_t *next = gv_xcalloc((size_t)cg, sizeof *next);
        for (int g = 0; g < cg; g++)
            next[g] = r->score[c0 + g];
        for (long j = n - 1; j >= 0; j--) {
            long i = ord[j].i;
            int g = sm->game[i] - c0;
            G[g] = (double)(next[g] - sm->score_then[i]) + o->discount * G[g];
            next[g] = sm->score_then[i];
            part.value[j] = (float)(G[g] / DROP7_VALUE_SCALE);
        }
        free(G), free(next);
    }
    for (long i = 0; i < sm->n; i++) /* the samples of the chunks still playing stay, in order */
        if (sm->game[i] < c0 || sm->game[i] >= c0 + cg) {
            if (kept != i) {
                memcpy(sm->planes + (size_t)kept * DROP7_PLANE_FLOATS, sm->planes + (size_t)i * DROP7_PLANE_FLOATS,
                       sizeof(float) * DROP7_PLANE_FLOATS);
                memcpy(sm->policy + (size_t)kept * DROP7_N, sm->policy + (size_t)i * DROP7_N, sizeof(float) * DROP7_N);
                sm->game[kept] = sm->game[i], sm->score_then[kept] = sm->score_then[i];
            }
            kept++;
        }
    sm->n = kept;
    free(cnt), free(left), free(start), free(slotof), free(in), free(ord);
    gv_status st = GV_OK;
    if (o->on_chunk) {
        double t0 = gv_now();
        st = o->on_chunk(o->chunk_ctx, &part, err);
        r->t_callback += gv_now() - t0;
    } else { /* into the result */
        size_t tot = (size_t)(r->n + n);
        r->planes = gv_xrealloc(r->planes, sizeof(float) * DROP7_PLANE_FLOATS * (tot ? tot : 1));
        r->policy = gv_xrealloc(r->policy, sizeof(float) * DROP7_N * (tot ? tot : 1));
        r->value = gv_xrealloc(r->value, sizeof(float) * (tot ? tot : 1));
        memcpy(r->planes + (size_t)r->n * DROP7_PLANE_FLOATS, part.planes, sizeof(float) * DROP7_PLANE_FLOATS * (size_t)n);
        memcpy(r->policy + (size_t)r->n * DROP7_N, part.policy, sizeof(float) * DROP7_N * (size_t)n);
        memcpy(r->value + r->n, part.value, sizeof(float) * (size_t)n);
        r->n = (long)tot;
    }
    free(part.planes), free(part.policy), free(part.value);
    return st;
}

/* One move of every running game with the network: the search (or the policy head). */
static gv_status net_moves(agent *A, slot *sl, int nslots, int *idx, gv_err *err)
{
    const drop7_agent_opts *o = A->o;
    int k = 0;
    double t0 = gv_now();
    for (int i = 0; i < nslots; i++) {
        slot *s = &sl[i];
        if (s->id < 0)
            continue;
        s->nnodes = 0;
        node_new(s);
        s->qmin = INFINITY, s->qmax = -INFINITY;
    }
    int sims = o->sims > 0 ? o->sims : 1;
    for (int it = 0; it < sims; it++) {
        k = 0;
        for (int i = 0; i < nslots; i++)
            if (sl[i].id >= 0) {
                descend(o, &sl[i]);
                if (sl[i].leaf >= 0)
                    idx[k++] = i;
            }
        A->r->t_search += gv_now() - t0;
        if (k)
            GV_TRY(evaluate(A, sl, idx, k, err));
        t0 = gv_now();
        for (int j = 0; j < k; j++)
            expand(o, &sl[idx[j]], A->logits + (size_t)j * NN_POLICY, A->value[j] * (A->vscale / DROP7_VALUE_SCALE));
    }
    for (int i = 0; i < nslots; i++) {
        slot *s = &sl[i];
        if (s->id < 0)
            continue;
        const node *root = &s->nodes[0];
        double w[DROP7_N];
        float pol[DROP7_N];
        double total = 0;
        int legal = drop7_legal(&s->g);
        for (int a = 0; a < DROP7_N; a++) {
            w[a] = ((legal >> a) & 1) ? root->N[a] : 0;
            total += w[a];
        }
        int visits = total > 0;
        if (!visits) /* no search (or one simulation, the root's evaluation): the priors */
            for (int a = 0; a < DROP7_N; a++)
                w[a] = ((legal >> a) & 1) ? root->P[a] : 0;
        int a = choose(w, s->g.nmoves < o->temp_moves, &s->srng);
        if (a < 0) /* no visits at all (cannot happen with sims >= 1): the lowest legal column */
            for (a = 0; !((legal >> a) & 1); a++)
                ;
        for (int c = 0; c < DROP7_N; c++)
            pol[c] = visits ? (float)(w[c] / total) : (c == a ? 1.0f : 0.0f);
        if (o->record)
            sample_add(A, s, pol);
        s->move = a;
    }
    A->r->t_search += gv_now() - t0;
    return GV_OK;
}

/* The played column a as a sample's policy (one-hot), when recording. */
static void record_played(agent *A, slot *s, int a)
{
    float pol[DROP7_N] = {0};
    pol[a] = 1.0f;
    if (A->o->record)
        sample_add(A, s, pol);
    s->move = a;
}

/* The searches of every running game, on the threads: SEARCH_PICK the expectimax player's
 * column (heuristic leaf), SEARCH_EXPAND the tree's leaves (the network's search), SEARCH_BACK
 * the column from the leaves' values. PICK and EXPAND draw the move's seed from the slot's
 * search generator, seeded as drop7_expecti_play_batch seeds its games' (the same games);
 * PICK and BACK record the column played. */
enum { SEARCH_PICK, SEARCH_EXPAND, SEARCH_BACK };

static void searches(agent *A, slot *sl, int nslots, int what)
{
    const drop7_agent_opts *o = A->o;
    int nt = o->threads > 0 ? o->threads : omp_get_max_threads();
    for (int i = 0; i < nslots && what != SEARCH_BACK; i++)
        if (sl[i].id >= 0)
            A->mseed[i] = gv_rng_u64(&sl[i].srng);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int i = 0; i < nslots; i++) {
        double q[DROP7_N];
        if (sl[i].id < 0)
            continue;
        if (what == SEARCH_PICK)
            sl[i].move = drop7_expecti_pick(&o->rules, &A->eo, &sl[i].g, A->mseed[i]);
        else if (what == SEARCH_EXPAND)
            drop7_expecti_expand(&o->rules, &A->eo, &sl[i].g, A->mseed[i], &A->tree[i]);
        else
            sl[i].move = drop7_expecti_back(&o->rules, &A->eo, &A->tree[i], A->leafv + A->off[i], q);
    }
    for (int i = 0; i < nslots && what != SEARCH_EXPAND; i++)
        if (sl[i].id >= 0)
            record_played(A, &sl[i], sl[i].move);
}

/* One move of every running game with the expectimax player (heuristic leaf). */
static void expecti_moves(agent *A, slot *sl, int nslots)
{
    double t0 = gv_now();
    searches(A, sl, nslots, SEARCH_PICK);
    A->r->t_search += gv_now() - t0;
}

/* Lists the leaves of the running slots' trees (tot in all, slot i's from A->off[i]) that the
 * network must evaluate, in A->uniq, and returns how many. Within a tree, reveal samples that
 * revealed nothing (and different moves that end in the same position) give equal leaves;
 * each takes the value of the first one (A->src), which the network evaluates once: the same
 * value, since a position's evaluation does not depend on the rest of its batch. */
static long dedup_leaves(agent *A, const slot *sl, int nslots, long tot)
{
    if (tot > A->lkcap) {
        A->lkcap = tot;
        A->lkey = gv_xrealloc(A->lkey, (size_t)tot * LEAF_KEY);
        A->uniq = gv_xrealloc(A->uniq, sizeof(long) * (size_t)tot);
        A->src = gv_xrealloc(A->src, sizeof(long) * (size_t)tot);
    }
    long nu = 0;
    for (int i = 0; i < nslots; i++) {
        if (sl[i].id < 0)
            continue;
        const drop7_expecti_tree *t = &A->tree[i];
        int cap = 16;
        while (cap < 2 * t->nleaves)
            cap *= 2;
        if (cap > A->ltcap) {
            A->ltab = gv_xrealloc(A->ltab, sizeof(int32_t) * (size_t)cap);
            A->ltcap = cap;
        }
        memset(A->ltab, 0xff, sizeof(int32_t) * (size_t)cap);
        for (int j = 0; j < t->nleaves; j++) {
            long g = A->off[i] + j;
            uint8_t *key = A->lkey + (size_t)g * LEAF_KEY;
            float consts[2];
            drop7_game_cells(&t->pos[j], key, consts);
            memcpy(key + DROP7_CELLS, consts, sizeof consts);
            uint64_t h = gv_hash64(key, LEAF_KEY);
            int at = (int)(h & (uint64_t)(cap - 1));
            A->src[g] = g;
            for (; !A->o->every_leaf && A->ltab[at] >= 0; at = (at + 1) & (cap - 1)) {
                long e = A->off[i] + A->ltab[at];
                if (!memcmp(A->lkey + (size_t)e * LEAF_KEY, key, LEAF_KEY)) {
                    A->src[g] = e;
                    break;
                }
            }
            if (A->src[g] == g) {
                if (!A->o->every_leaf)
                    A->ltab[at] = j;
                A->uniq[nu++] = g;
            }
        }
    }
    return nu;
}

/* One move of every running game with the network's value at the expectimax search's
 * leaves: every game's tree (on the threads), all leaves to the network in batches of
 * A->nslots, the values (points) back up the trees. */
static gv_status netx_moves(agent *A, slot *sl, int nslots, gv_err *err)
{
    double t0 = gv_now();
    searches(A, sl, nslots, SEARCH_EXPAND);
    long tot = 0;
    for (int i = 0; i < nslots; i++) {
        A->off[i] = tot;
        if (sl[i].id >= 0)
            tot += A->tree[i].nleaves;
    }
    if (tot > A->leafcap) {
        A->leafcap = tot;
        A->leafv = gv_xrealloc(A->leafv, sizeof(double) * (size_t)tot);
    }
    long nu = dedup_leaves(A, sl, nslots, tot);
    A->r->leaves += tot;
    A->r->t_search += gv_now() - t0;
    for (long b0 = 0; b0 < nu;) {
        int k = 0;
        double t1 = gv_now();
        for (; k < A->nslots && b0 + k < nu; k++) {
            const uint8_t *key = A->lkey + (size_t)A->uniq[b0 + k] * LEAF_KEY;
            memcpy(A->b.cells + (size_t)k * DROP7_CELLS, key, DROP7_CELLS);
            memcpy(A->b.consts + 2 * (size_t)k, key + DROP7_CELLS, 2 * sizeof(float));
        }
        GV_TRY(evaluate_cells(A, k, t1, err));
        for (int q = 0; q < k; q++)
            A->leafv[A->uniq[b0 + q]] = A->value[q] * A->vscale;
        b0 += k;
    }
    for (long l = 0; l < tot; l++) /* an equal leaf before it was evaluated: its value */
        A->leafv[l] = A->leafv[A->src[l]];
    const drop7_agent_opts *o = A->o;
    const double vw = o->weights_set ? o->value_weight : 1, hw = o->weights_set ? o->heuristic_weight : 0;
    for (int s = 0; (vw != 1 || hw != 0) && s < nslots; s++) /* the mixed leaf */
        for (int l = 0; sl[s].id >= 0 && l < A->tree[s].nleaves; l++)
            A->leafv[A->off[s] + l] = vw * A->leafv[A->off[s] + l] - hw * (double)A->tree[s].h[l];
    t0 = gv_now();
    searches(A, sl, nslots, SEARCH_BACK);
    A->r->t_search += gv_now() - t0;
    return GV_OK;
}

/* The expectimax players' games (drop7_expecti.h): each game played through by one CPU
 * thread, its move seeds from its own search generator. */
static gv_status expecti_games(const drop7_agent_opts *o, int max_moves, drop7_agent_result *r)
{
    drop7_expecti_opts eo;
    if (o->expecti)
        eo = *o->expecti;
    else
        drop7_expecti_defaults(&eo, o->policy == DROP7_POLICY_EXPECTI2 ? 2 : 1);
    r->ngames = o->ngames;
    r->score = gv_xcalloc((size_t)o->ngames, sizeof *r->score);
    r->nmoves = gv_xcalloc((size_t)o->ngames, sizeof *r->nmoves);
    r->end = gv_xcalloc((size_t)o->ngames, sizeof *r->end);
    double t0 = gv_now();
    r->moves = drop7_expecti_play_batch(&o->rules, &eo, o->seed, o->ngames, max_moves, o->threads, r->score, r->nmoves,
                                        r->end);
    r->t_total = r->t_search = gv_now() - t0;
    return GV_OK;
}

void drop7_score_stats(const int64_t *x, int n, double *mean, double *median, double *ci95)
{
    double *d = gv_xcalloc((size_t)(n > 0 ? n : 1), sizeof(double));
    for (int i = 0; i < n; i++)
        d[i] = (double)x[i];
    gv_stats st;
    gv_stats_compute(d, n, &st);
    double var = 0;
    for (int i = 0; i < n; i++)
        var += (d[i] - st.mean) * (d[i] - st.mean);
    *mean = st.mean;
    *median = st.median;
    *ci95 = n > 1 ? 1.96 * sqrt(var / (n - 1)) / sqrt((double)n) : NAN;
    free(d);
}

gv_status drop7_agent_play(const drop7_agent_opts *o, drop7_agent_result *r, gv_err *err)
{
    memset(r, 0, sizeof *r);
    GV_TRY(drop7_rules_check(&o->rules, err));
    if (o->ngames < 1 || o->parallel < 1)
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: need at least one game and one in parallel");
    const int usenet = o->policy == DROP7_POLICY_NET || o->policy == DROP7_POLICY_NET_EXPECTI;
    const int expecti = o->policy == DROP7_POLICY_EXPECTI1 || o->policy == DROP7_POLICY_EXPECTI2;
    if (usenet && !o->net)
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: the network policy needs a network");
    if (o->policy < DROP7_POLICY_RANDOM || o->policy > DROP7_POLICY_NET_EXPECTI)
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: unknown policy %d", (int)o->policy);
    if (o->expecti && (o->expecti->depth < 0 || o->expecti->depth > DROP7_EXPECTI_MAX_DEPTH ||
                       o->expecti->samples < 1 || o->expecti->samples > DROP7_EXPECTI_MAX_SAMPLES))
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: expectimax depth must be 0..%d and samples 1..%d",
                       DROP7_EXPECTI_MAX_DEPTH, DROP7_EXPECTI_MAX_SAMPLES);
    if (o->policy == DROP7_POLICY_NET_EXPECTI && (!o->expecti || o->expecti->depth > DROP7_EXPECTI_TREE_MAX_DEPTH))
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: the network's expectimax search needs its settings, depth 0..%d",
                       DROP7_EXPECTI_TREE_MAX_DEPTH);
    if (!(o->discount >= 0 && o->discount <= 1))
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: the discount must be 0 to 1");
    if (o->value_scale < 0 || !isfinite(o->value_scale))
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: the value scale must be a positive number of points");
    if (o->sims < 0 || o->sims > 100000)
        return gv_fail(err, GV_ERR_INPUT, "drop7 agent: simulations must be 0..100000 (got %d)", o->sims);
    const char *pe = getenv("GV_SELFPLAY_PAD");
    if (pe && pe[0] && strcmp(pe, "none") && strcmp(pe, "full") && strcmp(pe, "steps"))
        return gv_fail(err, GV_ERR_INPUT, "GV_SELFPLAY_PAD=%s: none, full or steps", pe);
    int max_moves = o->max_moves > 0 ? o->max_moves : DROP7_DEFAULT_MAX_MOVES;
    if (expecti && !o->record)
        return expecti_games(o, max_moves, r);
    int nslots = o->parallel < o->ngames ? o->parallel : o->ngames;
    agent A = {o, r, {0}, {0}, NULL, NULL, PAD_NONE, nslots, 0, NULL, o->value_scale > 0 ? o->value_scale : DROP7_VALUE_SCALE,
               {0}, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, 0};
    if (o->expecti)
        A.eo = *o->expecti;
    else
        drop7_expecti_defaults(&A.eo, o->policy == DROP7_POLICY_EXPECTI2 ? 2 : 1);
    if (o->policy == DROP7_POLICY_NET_EXPECTI) { /* the batch: the leaves of a call */
        int mb = nn_trainer_max_batch(o->net);
        A.nslots = o->eval_batch > 0 && o->eval_batch < mb ? o->eval_batch : mb;
        A.tree = gv_xcalloc((size_t)nslots, sizeof *A.tree);
        for (int i = 0; i < nslots; i++)
            drop7_expecti_tree_init(&A.tree[i], &A.eo);
    }
    A.mseed = gv_xcalloc((size_t)nslots, sizeof *A.mseed);
    A.off = gv_xcalloc((size_t)nslots, sizeof *A.off);
    const int chunk = o->chunk > 0 && o->chunk < o->ngames ? o->chunk : o->ngames;
    const int nchunks = (o->ngames + chunk - 1) / chunk;
    int *chunk_left = gv_xcalloc((size_t)nchunks, sizeof *chunk_left), flushed = 0;
    for (int c = 0; c < nchunks; c++)
        chunk_left[c] = c < nchunks - 1 ? chunk : o->ngames - c * chunk;
    r->ngames = o->ngames;
    r->score = gv_xcalloc((size_t)o->ngames, sizeof *r->score);
    r->nmoves = gv_xcalloc((size_t)o->ngames, sizeof *r->nmoves);
    r->end = gv_xcalloc((size_t)o->ngames, sizeof *r->end);
    slot *sl = gv_xcalloc((size_t)nslots, sizeof *sl);
    int *idx = gv_xcalloc((size_t)nslots, sizeof *idx);
    int depth_cap = (o->sims > 0 ? o->sims : 1) + 2;
    if (usenet) {
        A.pad = nn_trainer_device(o->net)->kind != DEV_CPU ? PAD_STEPS : PAD_NONE;
        if (pe && !strcmp(pe, "none"))
            A.pad = PAD_NONE;
        else if (pe && !strcmp(pe, "steps"))
            A.pad = PAD_STEPS;
        else if (pe && !strcmp(pe, "full")) /* as before the steps: full batches when the slots are --parallel */
            A.pad = nslots == o->parallel || o->policy == DROP7_POLICY_NET_EXPECTI ? PAD_FULL : PAD_NONE;
        nn_batch_alloc_as(&A.b, A.nslots, NN_POS_CELLS); /* the compact form: 57 bytes a position */
        A.logits = gv_xcalloc((size_t)A.nslots * NN_POLICY, sizeof(double));
        A.value = gv_xcalloc((size_t)A.nslots, sizeof(double));
        A.seen = gv_xcalloc((size_t)A.nslots + 1, 1);
    }
    for (int i = 0; i < nslots; i++) {
        sl[i].nodes = gv_xcalloc((size_t)depth_cap + 1, sizeof(node));
        sl[i].pnode = gv_xcalloc((size_t)depth_cap, sizeof(int));
        sl[i].pa = gv_xcalloc((size_t)depth_cap, 1);
        sl[i].pr = gv_xcalloc((size_t)depth_cap, sizeof(double));
        sl[i].id = -1;
    }
    gv_progress pg;
    if (o->progress)
        gv_progress_init(&pg);
    double tstart = gv_now();
    int started = 0, finished = 0;
    /* Padded batches give each position the numbers a batch of all the slots gives it (the
     * GPU's kernel choices follow the batch size otherwise): the games do not depend on how
     * the batches were padded. */
    const char *pv = getenv("GV_SELFPLAY_PIN"); /* 0: not pinned, for reproducing the runs before the pin */
    const int pin = A.pad != PAD_NONE && !(pv && !strcmp(pv, "0"));
    gv_status st = pin ? nn_trainer_pin_batch(o->net, A.nslots, err) : GV_OK;
    while (finished < o->ngames && st == GV_OK) {
        double t0 = gv_now();
        int running = 0;
        for (int i = 0; i < nslots; i++) {
            slot *s = &sl[i];
            if (s->id < 0 && started < o->ngames) {
                s->id = started++;
                uint64_t seed = o->seed + (uint64_t)s->id;
                drop7_game_new(&o->rules, &s->g, seed);
                drop7_rng_seed(s->prng, seed ^ DROP7_PLAYER_SEED_XOR);
                gv_rng_seed(&s->srng, seed ^ 0x9e3779b97f4a7c15ull);
            }
            running += s->id >= 0;
        }
        if (!running)
            break;
        r->t_game += gv_now() - t0;
        if (o->policy == DROP7_POLICY_NET)
            st = net_moves(&A, sl, nslots, idx, err);
        else if (o->policy == DROP7_POLICY_NET_EXPECTI)
            st = netx_moves(&A, sl, nslots, err);
        else if (expecti)
            expecti_moves(&A, sl, nslots);
        if (st != GV_OK)
            break;
        t0 = gv_now();
        for (int i = 0; i < nslots; i++) {
            slot *s = &sl[i];
            if (s->id < 0)
                continue;
            int a = usenet || expecti                  ? s->move
                    : o->policy == DROP7_POLICY_GREEDY ? drop7_pick_greedy(&o->rules, &s->g)
                                                       : drop7_pick_random(&s->g, s->prng);
            drop7_step(&o->rules, &s->g, a);
            r->moves++;
            if (s->g.over || s->g.nmoves >= max_moves) {
                r->score[s->id] = s->g.score;
                r->nmoves[s->id] = s->g.nmoves;
                r->end[s->id] = s->g.over ? s->g.over : DROP7_END_CAP;
                chunk_left[s->id / chunk]--;
                s->id = -1;
                finished++;
            }
        }
        r->t_game += gv_now() - t0;
        while (o->record && st == GV_OK && flushed < nchunks && !chunk_left[flushed]) {
            int c0 = flushed * chunk;
            st = flush_chunk(&A, c0, o->ngames - c0 < chunk ? o->ngames - c0 : chunk, err);
            flushed++;
        }
        if (o->progress)
            gv_progress_update(&pg, "%d of %d games done, %ld moves, %ld positions evaluated", finished, o->ngames,
                               r->moves, r->evals);
    }
    if (o->progress)
        gv_progress_done(&pg);
    if (pin) {
        gv_err e2;
        gv_status s2 = nn_trainer_pin_batch(o->net, 0, &e2);
        if (st == GV_OK && s2 != GV_OK)
            st = s2, *err = e2;
    }
    r->t_total = gv_now() - tstart - r->t_callback;
    for (int i = 0; i < nslots; i++)
        free(sl[i].nodes), free(sl[i].pnode), free(sl[i].pa), free(sl[i].pr);
    free(sl), free(idx), free(A.sm.planes), free(A.sm.policy), free(A.sm.game), free(A.sm.score_then);
    free(A.logits), free(A.value), free(A.seen), free(chunk_left), free(A.mseed), free(A.off), free(A.leafv);
    free(A.lkey), free(A.uniq), free(A.src), free(A.ltab);
    for (int i = 0; A.tree && i < nslots; i++)
        drop7_expecti_tree_free(&A.tree[i]);
    free(A.tree);
    if (A.b.cells)
        nn_batch_free(&A.b);
    if (st != GV_OK)
        drop7_agent_result_free(r);
    return st;
}

void drop7_agent_result_free(drop7_agent_result *r)
{
    free(r->score), free(r->nmoves), free(r->end), free(r->planes), free(r->policy), free(r->value);
    memset(r, 0, sizeof *r);
}

cJSON *drop7_play_entry(const char *policy, int sims, const drop7_agent_result *r)
{
    double mean, median, ci, mmean, mmed, mci;
    int64_t *mv = gv_xcalloc((size_t)r->ngames, sizeof *mv);
    int ends[4] = {0};
    for (int i = 0; i < r->ngames; i++) {
        mv[i] = r->nmoves[i];
        ends[r->end[i] & 3]++;
    }
    drop7_score_stats(r->score, r->ngames, &mean, &median, &ci);
    drop7_score_stats(mv, r->ngames, &mmean, &mmed, &mci);
    free(mv);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "policy", policy);
    cJSON_AddNumberToObject(e, "sims", sims);
    cJSON_AddNumberToObject(e, "games", r->ngames);
    gv_json_add_num(e, "score_mean", mean);
    gv_json_add_num(e, "score_ci95", ci);
    gv_json_add_num(e, "score_median", median);
    gv_json_add_num(e, "moves_mean", mmean);
    gv_json_add_num(e, "moves_ci95", mci);
    gv_json_add_num(e, "moves_median", mmed);
    cJSON_AddNumberToObject(e, "end_full", ends[DROP7_END_FULL]);
    cJSON_AddNumberToObject(e, "end_overflow", ends[DROP7_END_OVERFLOW]);
    cJSON_AddNumberToObject(e, "end_cap", ends[DROP7_END_CAP]);
    gv_json_add_num(e, "seconds", r->t_total);
    if (r->evals > 0) { /* a network played: the positions it evaluated (and its search's leaves) */
        cJSON_AddNumberToObject(e, "evals", (double)r->evals);
        if (r->leaves > 0)
            cJSON_AddNumberToObject(e, "leaves", (double)r->leaves);
    }
    cJSON *sc = gv_json_add_arr(e, "scores"); /* game i's (seed + i's): paired comparisons across runs */
    for (int i = 0; i < r->ngames; i++)
        cJSON_AddItemToArray(sc, cJSON_CreateNumber((double)r->score[i]));
    return e;
}

void drop7_play_verdicts(cJSON *rec)
{
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, "play"), *vs = gv_json_add_arr(rec, "play_vs");
    const cJSON *a = cJSON_GetArrayItem(arr, 0), *b;
    int first = 1;
    cJSON_ArrayForEach(b, arr)
    {
        if (first) {
            first = 0;
            continue;
        }
        double d = gv_json_num(a, "score_mean") - gv_json_num(b, "score_mean");
        double h = sqrt(pow(gv_json_num(a, "score_ci95"), 2) + pow(gv_json_num(b, "score_ci95"), 2));
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", gv_json_str(a, "policy", ""));
        cJSON_AddStringToObject(e, "baseline", gv_json_str(b, "policy", ""));
        gv_json_add_num(e, "score_diff", d);
        gv_json_add_num(e, "score_diff_ci95", h);
        cJSON_AddStringToObject(e, "verdict", d - h > 0 ? "better" : d + h < 0 ? "worse" : "not distinguishable");
        cJSON_AddItemToArray(vs, e);
    }
}
