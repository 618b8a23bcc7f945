/* drop7_agent.h: whole Drop7 games played by a policy: the random, greedy or expectimax
 * baselines (drop7_expecti.h), or the network, alone (its policy head) or through a PUCT
 * search. The engine of `gpuvet play` (scores with confidence intervals) and `gpuvet
 * selfplay` (positions, visit distributions and final scores recorded as training samples).
 *
 * Games run side by side: at every search simulation each running game walks its tree to
 * a leaf, and all the leaves of all games are evaluated by the network in one batch (on
 * the CPU or the GPU, whichever the trainer runs on).
 *
 * The search: the tree is open loop (a node is the sequence of columns played from the
 * root). The random part of a move (the numbers revealed by cracked discs, the next disc)
 * is not known to the player: each simulation replays the path on a copy of the game whose
 * generator is reseeded from the search's own generator, so a node's value is the mean over
 * sampled outcomes, an estimate of the expectation over the chance events. Node values are
 * in points / DROP7_VALUE_SCALE: the points a column gains (its chain, the rise and bonuses)
 * plus the network's value of the position reached (its estimate of the points still to
 * come). Selection: PUCT, a = argmax Q(a) + c_puct P(a) sqrt(N) / (1 + N(a)), with Q
 * normalised to [0, 1] by the smallest and largest returns seen in the tree (unvisited
 * columns: 0). Dirichlet noise on the root's priors and a temperature for the first moves
 * in self-play. */
#ifndef GV_DROP7_DROP7_AGENT_H
#define GV_DROP7_DROP7_AGENT_H

#include <stdint.h>

#include <cJSON.h>

#include "drop7/drop7.h"
#include "drop7/drop7_data.h"
#include "drop7/drop7_expecti.h"
#include "nn/nn.h"


struct drop7_agent_result;

/* EXPECTI1 and EXPECTI2: the expectimax players of depth 1 and 2 (drop7_expecti.h). */
typedef enum {
    DROP7_POLICY_RANDOM = 0,
    DROP7_POLICY_GREEDY = 1,
    DROP7_POLICY_NET = 2,
    DROP7_POLICY_EXPECTI1 = 3,
    DROP7_POLICY_EXPECTI2 = 4,
    /* the expectimax search of `expecti` (depth 0 or 1, drop7_expecti_expand) with the
     * network's value at its leaves instead of the heuristic: per move, the leaves of all
     * running games go to the network in batches of eval_batch */
    DROP7_POLICY_NET_EXPECTI = 5,
} drop7_policy;

typedef struct {
    drop7_rules rules;
    drop7_policy policy;
    nn_trainer *net;       /* DROP7_POLICY_NET: the network (state set), max_batch >= parallel */
    int sims;              /* simulations per move (0: the policy head's best legal column) */
    double c_puct;         /* exploration constant (1.25 when 0) */
    double dir_alpha;      /* Dirichlet noise on the root's priors (0: none) */
    double dir_eps;        /* its weight */
    int temp_moves;        /* the first temp_moves moves sample a column by visits (prior
                              without search); later moves take the most visited */
    int ngames;
    int parallel;          /* games played side by side (the inference batch), >= 1 */
    int max_moves;         /* per-game cap (0: DROP7_DEFAULT_MAX_MOVES) */
    uint64_t seed;         /* game i is seed + i; the search's generator derives from it */
    int record;            /* keep training samples (self-play) */
    int threads;           /* expectimax: CPU threads, each plays whole games (0: all); parallel is unused */
    const drop7_expecti_opts *expecti; /* expectimax: its settings (NULL: drop7_expecti_defaults) */
    int progress;          /* show a progress line */
    double value_scale;    /* points per unit of the network's value (0: DROP7_VALUE_SCALE; a
                              checkpoint says its own: drop7_net.value_scale) */
    int eval_batch;        /* NET_EXPECTI: leaves per network call (0: the trainer's max_batch) */
    /* NET_EXPECTI: a leaf's value is value_weight x (the network's value, points) -
     * heuristic_weight x h (the expectimax players' heuristic, drop7_expecti.h). 0 and 1
     * play expectimax with the heuristic, move for move; the defaults (both 0 here) mean 1
     * and 0: the network alone. */
    double value_weight, heuristic_weight;
    int weights_set;       /* value_weight and heuristic_weight as given (else the defaults) */
    int every_leaf;        /* NET_EXPECTI: evaluate every leaf, equal ones again (the plain
                              reference test_drop7_selfplay compares the deduplicated search with) */
    double discount;       /* record: a sample's value is the points still to come discounted by
                              this per move (0 or 1: not discounted, final - then) */
    /* record: the samples by chunks of games. Games [c*chunk, (c+1)*chunk) form chunk c
     * (chunk 0: all games one chunk). A freed slot takes the next game whatever its chunk,
     * so the batch stays full until the last games; once every game of a chunk (and of
     * the chunks before) is done, its samples go to on_chunk, or without it to the result,
     * in the order that the chunk played on its own with min(parallel, its games) slots
     * gives them: the dataset does not depend on the interleaving. */
    int chunk;
    gv_status (*on_chunk)(void *ctx, const struct drop7_agent_result *part, gv_err *err);
    void *chunk_ctx;
} drop7_agent_opts;

typedef struct drop7_agent_result {
    int ngames;
    int64_t *score;        /* (ngames,) final scores */
    int32_t *nmoves;       /* (ngames,) moves survived */
    int32_t *end;          /* (ngames,) DROP7_END_* */
    /* samples (record): n positions */
    long n;
    float *planes;         /* (n, 12, 7, 7) */
    float *policy;         /* (n, 7) visit distribution (or one-hot played column without search) */
    float *value;          /* (n,) (final score - score then) / DROP7_VALUE_SCALE, or discounted (discount) */
    /* where the time went, seconds */
    double t_search, t_infer, t_game, t_total;
    long evals;            /* positions the network evaluated */
    long leaves;           /* the network's expectimax search: the leaves of its trees (evals
                              counts each distinct leaf of a tree once) */
    long moves;            /* moves played in all games */
    /* the evaluation calls (one batch each): how many, the batch the trainer computed
     * (padding included: evals / slots is the batch's occupancy), how often its size
     * changed from the call before (a GPU trainer captures its graph again then) */
    long calls, slots, size_changes;
    int sizes;             /* distinct batch sizes of the calls (a GPU trainer captures a graph
                              for each, once) */
    double t_callback;     /* seconds in on_chunk (not in t_total) */
} drop7_agent_result;

/* Plays o->ngames games. The expectimax players with record set play through the slots (one
 * move of every running game at a time, the searches on `threads` threads) so that their
 * positions are kept: the same games as without record (the same move seeds). Samples of
 * the expectimax players (heuristic or network leaf) hold the played column as policy.
 * GV_ERR_INPUT for bad options, the trainer's error otherwise. */
gv_status drop7_agent_play(const drop7_agent_opts *o, drop7_agent_result *r, gv_err *err);
void drop7_agent_result_free(drop7_agent_result *r);

/* Mean, median and the half-width of the 95% confidence interval of the mean (1.96 s /
 * sqrt(n), s the sample standard deviation) of x[0..n). */
void drop7_score_stats(const int64_t *x, int n, double *mean, double *median, double *ci95);

/* One policy's games as an entry of `play`'s record: policy, sims, games, score_mean,
 * score_ci95, score_median, moves_mean, moves_ci95, moves_median, end_full, end_overflow,
 * end_cap, seconds, scores (game by game), and where a network played evals (and, for its
 * expectimax search, leaves) (docs/DROP7.md). */
cJSON *drop7_play_entry(const char *policy, int sims, const drop7_agent_result *r);

/* The first entry of rec's "play" array against each of the others, into "play_vs": the
 * difference of the mean scores with the 95% interval of the difference (Welch: 1.96
 * sqrt(s1^2/n1 + s2^2/n2), from the two intervals) and the verdict "better", "worse" or
 * "not distinguishable" (the interval includes 0). */
void drop7_play_verdicts(cJSON *rec);

#endif
