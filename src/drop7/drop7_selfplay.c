/* drop7_selfplay.c: `gpuvet selfplay`'s engine (see drop7_selfplay.h): the lock, the
 * existing dataset (refused, replaced or continued), the chunk loop, the writes, the record. */
#include "drop7/drop7_selfplay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "core/stats.h"

/* The dataset's player fields for this run. */
static void player_fields(const drop7_selfplay_opts *o, drop7_data *d)
{
    d->seed = o->play.seed;
    snprintf(d->mode, sizeof d->mode, "%s", o->mode);
    d->sims = o->play.sims;
    d->temp_moves = o->play.temp_moves;
    d->dirichlet = o->play.dir_alpha;
    d->noise = o->play.dir_eps;
    d->discount = o->play.discount > 0 && o->play.discount < 1 ? o->play.discount : NAN;
    snprintf(d->net, sizeof d->net, "%s", o->net_name ? o->net_name : "random");
    if (o->net) /* else a player without a network (expectimax: net_name names it) */
        drop7_net_id(o->net, d->net_id);
}

/* Whether the existing dataset d was made by the player of this run; the first setting
 * that differs is named. Fields the file does not carry (older files) are not compared. */
static gv_status same_player(const drop7_selfplay_opts *o, const drop7_data *d, const drop7_data *me, gv_err *err)
{
    char had[300] = "", want[300] = "";
    const char *what = NULL;
    if (d->games < 1)
        return gv_fail(err, GV_ERR_INPUT, "--resume: '%s' holds no game count (__metadata__ games): it was not written "
                       "by gpuvet selfplay; write to another --out, or --force to replace it", o->out);
    if (d->seed != me->seed) {
        what = "--seed";
        snprintf(had, sizeof had, "%llu", (unsigned long long)d->seed), snprintf(want, sizeof want, "%llu", (unsigned long long)me->seed);
    } else if (strcmp(d->mode, me->mode)) {
        what = "--mode";
        snprintf(had, sizeof had, "%s", d->mode[0] ? d->mode : "(none)"), snprintf(want, sizeof want, "%s", me->mode);
    } else if (d->net_id[0] ? strcmp(d->net_id, me->net_id) != 0 : d->net[0] && strcmp(d->net, me->net)) {
        what = "the network";
        snprintf(had, sizeof had, "%s (%s)", d->net, d->net_id[0] ? d->net_id : "no id");
        snprintf(want, sizeof want, "%s (%s)", me->net, me->net_id);
    } else if (d->sims >= 0 && d->sims != me->sims) {
        what = "--sims";
        snprintf(had, sizeof had, "%ld", d->sims), snprintf(want, sizeof want, "%ld", me->sims);
    } else if (d->temp_moves >= 0 && d->temp_moves != me->temp_moves) {
        what = "--temp-moves";
        snprintf(had, sizeof had, "%ld", d->temp_moves), snprintf(want, sizeof want, "%ld", me->temp_moves);
    } else if (isfinite(d->dirichlet) && d->dirichlet != me->dirichlet) {
        what = "--dirichlet";
        snprintf(had, sizeof had, "%g", d->dirichlet), snprintf(want, sizeof want, "%g", me->dirichlet);
    } else if ((isfinite(d->discount) ? d->discount : 1) != (isfinite(me->discount) ? me->discount : 1)) {
        what = "--discount";
        snprintf(had, sizeof had, "%g", isfinite(d->discount) ? d->discount : 1);
        snprintf(want, sizeof want, "%g", isfinite(me->discount) ? me->discount : 1);
    } else if (isfinite(d->noise) && d->noise != me->noise) {
        what = "--noise";
        snprintf(had, sizeof had, "%g", d->noise), snprintf(want, sizeof want, "%g", me->noise);
    }
    if (what)
        return gv_fail(err, GV_ERR_INPUT, "--resume: '%s' was played with %s %s, this run has %s: a dataset holds one "
                       "player's positions (write to another --out, or --force to replace it)", o->out, what, had, want);
    return GV_OK;
}

/* The network's own inference rate at batch n, as `gpuvet bench infer` measures it: per call
 * n random positions in (cells), the eval-mode forward, logits and value out; after one call
 * untimed (a GPU captures that size's graph, if self-play did not), calls for at least 0.3 s
 * and 5 calls (at most 1000); the median call in *call_s. */
static gv_status infer_rate(nn_trainer *t, int n, double *call_s, gv_err *err)
{
    nn_batch b;
    nn_batch_alloc_as(&b, n, NN_POS_CELLS);
    nn_batch_random(&b, 1);
    double *logits = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double)), *value = gv_xcalloc((size_t)n, sizeof(double));
    double lat[1000], t_start = 0;
    int nlat = 0;
    gv_status st = GV_OK;
    for (int i = -1; st == GV_OK && i < (int)GV_ARRAY_LEN(lat); i++) {
        double t0 = gv_now();
        st = nn_trainer_set_batch(t, &b, err);
        if (st == GV_OK)
            st = nn_trainer_infer(t, logits, value, err);
        if (i < 0) {
            t_start = gv_now();
            continue;
        }
        lat[nlat++] = gv_now() - t0;
        if (nlat >= 5 && gv_now() - t_start >= 0.3)
            break;
    }
    *call_s = st == GV_OK ? gv_quantile(lat, nlat, 0.5) : NAN;
    free(logits), free(value);
    nn_batch_free(&b);
    return st;
}

/* The summary object of the record. */
static void record(const drop7_selfplay_opts *o, const drop7_data *all, long played, const int64_t *scores,
                   const drop7_agent_result *tot, double t_write, int bench_n, double bench_call_s, double t_bench,
                   cJSON *rec)
{
    double mean = NAN, median = NAN, ci = NAN;
    if (played)
        drop7_score_stats(scores, (int)played, &mean, &median, &ci);
    cJSON *e = gv_json_add_obj(rec, "selfplay");
    cJSON_AddStringToObject(e, "out", o->out);
    cJSON_AddStringToObject(e, "device", o->device ? o->device : "?");
    cJSON_AddStringToObject(e, "mode", o->mode);
    cJSON_AddNumberToObject(e, "games_played", (double)played);
    cJSON_AddNumberToObject(e, "games_in_file", (double)all->games);
    cJSON_AddNumberToObject(e, "positions_in_file", (double)all->n);
    char player[128];
    if (!o->net)
        snprintf(player, sizeof player, "the %s player", o->net_name ? o->net_name : "?");
    else if (o->play.policy == DROP7_POLICY_NET_EXPECTI && o->play.expecti)
        snprintf(player, sizeof player, "the network's value at the leaves of expectimax%d (%d samples)",
                 o->play.expecti->depth, o->play.expecti->samples);
    else
        snprintf(player, sizeof player, "the network's puct search");
    cJSON_AddStringToObject(e, "player", player);
    cJSON_AddNumberToObject(e, "sims", o->play.sims);
    cJSON_AddNumberToObject(e, "parallel", o->play.parallel);
    cJSON_AddNumberToObject(e, "moves", (double)tot->moves);
    cJSON_AddNumberToObject(e, "evals", (double)tot->evals);
    if (tot->leaves > 0) /* the expectimax search: its leaves, each distinct one of a tree evaluated once */
        cJSON_AddNumberToObject(e, "leaves", (double)tot->leaves);
    cJSON_AddNumberToObject(e, "eval_calls", (double)tot->calls);
    cJSON_AddNumberToObject(e, "eval_slots", (double)tot->slots);
    cJSON_AddNumberToObject(e, "eval_size_changes", (double)tot->size_changes);
    cJSON_AddNumberToObject(e, "eval_sizes", tot->sizes);
    gv_json_add_num(e, "score_mean", mean);
    gv_json_add_num(e, "score_ci95", ci);
    gv_json_add_num(e, "score_median", median);
    gv_json_add_num(e, "seconds_total", tot->t_total);
    gv_json_add_num(e, "seconds_search", tot->t_search);
    gv_json_add_num(e, "seconds_inference", tot->t_infer);
    gv_json_add_num(e, "seconds_game", tot->t_game);
    gv_json_add_num(e, "seconds_write", t_write);
    /* the evaluations against the network's own rate at the slots' batch (infer_rate) */
    cJSON_AddNumberToObject(e, "bench_batch", bench_n);
    gv_json_add_num(e, "bench_call_s", bench_call_s);
    double rate = bench_call_s > 0 ? bench_n / bench_call_s : NAN, sp = tot->t_infer > 0 ? tot->evals / tot->t_infer : NAN;
    gv_json_add_num(e, "bench_positions_per_s", rate);
    gv_json_add_num(e, "eval_positions_per_s", sp);
    gv_json_add_num(e, "eval_efficiency", sp / rate);
    gv_json_add_num(e, "eval_occupancy", tot->slots > 0 ? (double)tot->evals / tot->slots : NAN);
    gv_json_add_num(e, "seconds_bench", t_bench);
}

/* What write_chunk needs: the dataset so far, the scores of the games played here. */
typedef struct {
    const drop7_selfplay_opts *o;
    drop7_data *all;
    int64_t *scores;
    long played;
    double t_write;
} writer;

/* A chunk of games done: into the dataset, written. */
static gv_status write_chunk(void *ctx, const drop7_agent_result *r, gv_err *err)
{
    writer *w = (writer *)ctx;
    drop7_data part = {.n = r->n, .planes = r->planes, .policy = r->policy, .value = r->value, .games = r->ngames};
    drop7_data_append(w->all, &part);
    for (int i = 0; i < r->ngames; i++)
        w->scores[w->played++] = r->score[i];
    double t0 = gv_now();
    gv_status st = drop7_data_save(w->o->out, w->all, err);
    w->t_write += gv_now() - t0;
    if (st == GV_OK)
        gv_info("%ld of %ld games written to %s (%ld positions)\n", w->all->games, w->o->games, w->o->out, w->all->n);
    return st;
}

gv_status drop7_selfplay_run(const drop7_selfplay_opts *o, cJSON *rec, gv_err *err)
{
    if (o->resume && o->force)
        return gv_fail(err, GV_ERR_INPUT, "give --resume (continue '%s') or --force (replace it), not both", o->out);
    if (o->games < 1 || o->chunk < 1)
        return gv_fail(err, GV_ERR_INPUT, "games and chunk must be at least 1 (got %ld and %ld)", o->games, o->chunk);
    gv_lock *lock;
    GV_TRY(gv_lock_output(o->out, &lock, err));
    drop7_data all, me = {0};
    player_fields(o, &me);
    int found = 0;
    gv_status st = drop7_data_load_if_exists(o->out, &all, &found, err);
    if (st == GV_OK && found && !o->resume && !o->force)
        st = gv_fail(err, GV_ERR_INPUT, "'%s' already holds a dataset (%ld games, %ld positions): --resume continues "
                     "it, --force replaces it", o->out, all.games, all.n);
    if (st == GV_OK && found && o->resume)
        st = same_player(o, &all, &me, err);
    if (st == GV_OK && found && o->resume)
        gv_info("resuming %s: %ld games, %ld positions already there\n", o->out, all.games, all.n);
    if (st != GV_OK || !found || !o->resume) { /* start from no games */
        drop7_data_free(&all);
        all = me;
    }
    long start = all.games, todo = o->games > start ? o->games - start : 0;
    if (st == GV_OK && !todo)
        gv_info("%s already holds %ld games (--games %ld): nothing to play\n", o->out, start, o->games);
    drop7_agent_opts p = o->play;
    p.record = 1;
    drop7_agent_result tot = {0};
    int64_t *scores = gv_xcalloc((size_t)(todo ? todo : 1), sizeof *scores);
    writer w = {o, &all, scores, 0, 0};
    if (st == GV_OK && todo) {
        /* all the games in one play, chunk by chunk into the file: a slot freed by a game takes
         * the next game whatever its chunk (game i plays seed + i as before) */
        p.ngames = (int)todo;
        p.seed = o->play.seed + (uint64_t)start;
        p.chunk = (int)(o->chunk < todo ? o->chunk : todo);
        p.on_chunk = write_chunk, p.chunk_ctx = &w;
        st = drop7_agent_play(&p, &tot, err); /* (on an error it frees tot itself) */
    }
    long played = w.played;
    double t_write = w.t_write, call_s = NAN, t_bench = gv_now();
    int bench_n = (int)(todo < o->play.parallel ? todo : o->play.parallel);
    if (o->play.policy == DROP7_POLICY_NET_EXPECTI) /* its calls: batches of the leaves */
        bench_n = nn_trainer_max_batch(o->play.net);
    if (st == GV_OK && todo && o->play.net)
        st = infer_rate(o->play.net, bench_n, &call_s, err);
    t_bench = gv_now() - t_bench;
    if (st == GV_OK)
        record(o, &all, played, scores, &tot, t_write, bench_n, call_s, t_bench, rec);
    drop7_agent_result_free(&tot);
    free(scores);
    drop7_data_free(&all);
    gv_unlock_output(lock);
    return st;
}
