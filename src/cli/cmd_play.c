/* cmd_play.c: the Drop7 game commands of a network: `gpuvet play` (scores with confidence
 * intervals against the baselines) and `selfplay` (datasets for `train --data`).
 * Flags in, the engine of src/drop7/drop7_agent.c, the record out as a table and verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/record.h"
#include "drop7/drop7_agent.h"
#include "drop7/drop7_selfplay.h"
#include "drop7/drop7_train.h"
#include "report/report.h"

static const cli_help play_help = {
    "play",
    "gpuvet play (--net CKPT | --channels C | --policy P) [--games N] [--sims S] [--baselines LIST]",
    "Plays whole Drop7 games and reports the mean score with its 95% confidence interval\n"
    "(1.96 standard errors), the median, and survival (moves). The network plays its policy\n"
    "head's best legal column, or with --sims a PUCT search over sampled outcomes of the\n"
    "random discs (docs/DROP7.md). The baselines (default greedy, random and expectimax1:\n"
    "an expectimax search over the columns and the next disc; expectimax2 looks one disc\n"
    "further and takes about 5 times as long) play the same seeds, and the verdict says whether\n"
    "the first policy's mean differs from each baseline's with a 95% interval of the\n"
    "difference that excludes 0.",
    0, NULL,
};

static const cli_help selfplay_help = {
    "selfplay",
    "gpuvet selfplay (--net CKPT | --channels C) --games N [--sims S] --out DATA",
    "Plays games of the network with the PUCT search (Dirichlet noise on the root, a\n"
    "temperature for the first moves) and writes every position with the search's visit\n"
    "distribution and the points the game still made (docs/DROP7.md, the dataset format).\n"
    "Leaf evaluations of all games side by side go to the network as one batch. The\n"
    "dataset is rewritten atomically after every chunk of games; --resume continues it.\n"
    "At the end it says where the time went: search, inference, game.",
    0, NULL,
};

/* The flags play and selfplay share: which network, how many games, how they are played. */
typedef struct {
    const char *net, *mode, *search;
    long channels, blocks, games, sims, parallel, seed, threads, samples, eval_batch;
    double value_weight, heuristic_weight;
} game_flags;

#define GAME_FLAG_SPECS(f)                                                                                        \
    {"--net", ARGS_STR, &(f)->net, "CKPT", "the network that plays (a checkpoint of gpuvet or Drop7Net's state_dict; "  \
     "default: the shipped one, models/" DROP7_DEFAULT_NET ")", 0, 0, 0, 0, NULL},                                       \
    {"--search", ARGS_CHOICE, &(f)->search, "S", "the network's search: puct (--sims), expectimax0 or "         \
     "expectimax1 (the expectimax search over the columns and the next disc with the network's value at its leaves); "  \
     "default: the player the checkpoint names (its model card), else puct", \
     0, 0, 0, 0, "puct,expectimax0,expectimax1"},                                                                      \
    {"--samples", ARGS_INT, &(f)->samples, "K", "expectimax search: samples of the reveals per move (default: the checkpoint's, else 1)", 1,     \
     DROP7_EXPECTI_MAX_SAMPLES, 0, 0, NULL},                                                                           \
    {"--value-weight", ARGS_DOUBLE, &(f)->value_weight, "W", "expectimax search: the leaf is W x the network's "   \
     "value (default: the checkpoint's, else 1) ...", 0, 0, 0, 1000, NULL},                                                                 \
    {"--heuristic-weight", ARGS_DOUBLE, &(f)->heuristic_weight, "W", "... minus W x the expectimax players' leaf "  \
     "heuristic (default: the checkpoint's, else 0; 1 with --value-weight 0 plays expectimax)", 0, 0, 0, 1000, NULL},                        \
    {"--eval-batch", ARGS_INT, &(f)->eval_batch, "N", "expectimax search: leaves per network call (default 4096)", 1,  \
     1 << 20, 0, 0, NULL},                                                                                             \
    {"--channels", ARGS_INT, &(f)->channels, "C", "a fresh random network of C channels instead of --net", 8, 4096, 0, 0, NULL}, \
    {"--blocks", ARGS_INT, &(f)->blocks, "N", "its residual blocks (default 2)", 0, 64, 0, 0, NULL},                 \
    {"--games", ARGS_INT, &(f)->games, "N", "games (default 100)", 1, 10000000, 0, 0, NULL},                          \
    {"--sims", ARGS_INT, &(f)->sims, "S", "search simulations per move (0: the policy head's best legal column)", 0, 100000, 0, 0, NULL}, \
    {"--parallel", ARGS_INT, &(f)->parallel, "N", "games side by side: the network's batch (default 64)", 1, 65536, 0, 0, NULL}, \
    {"--mode", ARGS_CHOICE, &(f)->mode, "MODE", "normal (default) or hardcore", 0, 0, 0, 0, "normal,hardcore"},       \
    {"--seed", ARGS_INT, &(f)->seed, "N", "game i plays seed N+i; the search's generator derives from it (default 1)", 0, (1L << 62), 0, 0, NULL}, \
    {"--threads", ARGS_INT, &(f)->threads, "N", "CPU threads of the network (default 1: a search's batches are small) and of the expectimax players (default all cores); 0: all cores", 0, 1024, 0, 0, NULL}

/* The network's trainer for play and selfplay: float32, the games side by side as its
 * batch, inference alone. */
static nn_trainer_opts play_opts(const game_flags *f)
{
    int expecti = strcmp(f->search, "puct") != 0;
    return (nn_trainer_opts){.dtype = NN_FP32, .max_batch = (int)(expecti ? f->eval_batch : f->parallel),
                             .threads = f->threads < 0 ? 1 : (int)f->threads, .infer_only = 1};
}

/* The network's player of the flags into o (the policy, its search); eo holds the
 * expectimax search's settings. */
static void net_player(const game_flags *f, const drop7_net *n, drop7_agent_opts *o, drop7_expecti_opts *eo)
{
    o->net = n->t;
    o->value_scale = n->value_scale;
    if (!strcmp(f->search, "puct")) {
        o->policy = DROP7_POLICY_NET;
        return;
    }
    drop7_expecti_defaults(eo, f->search[10] == '1');
    eo->samples = (int)f->samples;
    o->policy = DROP7_POLICY_NET_EXPECTI;
    o->expecti = eo;
    o->eval_batch = (int)f->eval_batch;
    o->value_weight = f->value_weight, o->heuristic_weight = f->heuristic_weight, o->weights_set = 1;
}

/* --net as a path ("default": the shipped network), into buf; NULL when --net is not given.
 * The search flags not given take the network's player (its checkpoint's __metadata__,
 * drop7_net_player), else puct, 1 sample, leaf 1:0. */
static int net_path(const char *name, game_flags *f, char *buf, size_t n, const char **path)
{
    gv_err err = {{0}};
    drop7_net_search p = {0};
    *path = NULL;
    if (f->net) {
        gv_status st = drop7_net_path(f->net, buf, n, &err);
        if (st == GV_OK)
            st = drop7_net_player(buf, &p, &err);
        if (st != GV_OK)
            return cli_fail(name, st, &err);
        *path = buf;
    }
    static char search[16];
    snprintf(search, sizeof search, "%s", p.set ? p.search : "puct");
    if (!f->search)
        f->search = search;
    if (!f->samples)
        f->samples = p.set ? p.samples : 1;
    if (isnan(f->value_weight))
        f->value_weight = p.set ? p.value_weight : 1;
    if (isnan(f->heuristic_weight))
        f->heuristic_weight = p.set ? p.heuristic_weight : 0;
    return 0;
}

/* The search's words for a label: "" for puct, else " expectimax1 K2". */
static void search_label(const game_flags *f, char *b, size_t n)
{
    if (!strcmp(f->search, "puct"))
        b[0] = 0;
    else
        snprintf(b, n, ", %s K%ld, %gv-%gh", f->search, f->samples, f->value_weight, f->heuristic_weight);
}

/* A policy's games into the record's "play" array, and its table row. */
static void play_row(cJSON *arr, const char *policy, int sims, const drop7_agent_result *r)
{
    cJSON *e = drop7_play_entry(policy, sims, r);
    cJSON_AddItemToArray(arr, e);
    printf("%-22s %6d %12.0f %10.0f %12.0f %10.1f %8.1f %8.1f\n", policy, r->ngames, gv_json_num(e, "score_mean"),
           gv_json_num(e, "score_ci95"), gv_json_num(e, "score_median"), gv_json_num(e, "moves_mean"),
           gv_json_num(e, "moves_ci95"), r->t_total);
}

/* The policy a --policy or --baselines word names (the words of their choices). */
static drop7_policy policy_of(const char *w)
{
    return !strcmp(w, "greedy")        ? DROP7_POLICY_GREEDY
           : !strcmp(w, "expectimax1") ? DROP7_POLICY_EXPECTI1
           : !strcmp(w, "expectimax2") ? DROP7_POLICY_EXPECTI2
                                       : DROP7_POLICY_RANDOM;
}

int cmd_play(int argc, char **argv)
{
    const char *name = "play";
    args_common com = {0};
    game_flags gf = {NULL, "normal", NULL, 0, 2, 100, 0, 64, 1, -1, 0, 4096, NAN, NAN}; /* threads -1: the default of each player;
                                                                                          the search's: net_path */
    const char *policy = NULL;
    args_str_list base = {3, {"greedy", "random", "expectimax1"}};
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GAME_FLAG_SPECS(&gf),
        {"--policy", ARGS_CHOICE, &policy, "P", "play a baseline instead of a network: greedy, random, expectimax1 or "
         "expectimax2", 0, 0, 0, 0, "greedy,random,expectimax1,expectimax2"},
        {"--baselines", ARGS_CHOICE_LIST, &base, "LIST", "baselines played on the same seeds to compare with (default "
         "greedy,random,expectimax1; also expectimax2; none: no comparison)", 0, 0, 0, 0,
         "greedy,random,expectimax1,expectimax2,none"},
    };
    int code = cli_parse(&play_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &com.quiet);
    if (code != CLI_GO)
        return code;
    if (!!gf.net + !!gf.channels + !!policy != 1) {
        fprintf(stderr, "gpuvet %s: give exactly one of --net, --channels or --policy\n", name);
        return GV_EXIT_USAGE;
    }
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, strcmp(gf.mode, "hardcore") ? DROP7_MODE_NORMAL : DROP7_MODE_HARDCORE);
    o.ngames = (int)gf.games, o.sims = (int)gf.sims, o.parallel = (int)gf.parallel, o.seed = (uint64_t)gf.seed;
    o.progress = !com.quiet;
    o.threads = gf.threads < 0 ? 0 : (int)gf.threads;
    drop7_net n = {0};
    drop7_expecti_opts eo;
    char label[300], netbuf[1200], sl[64];
    const char *netp;
    gv_err err = {{0}};
    if (!policy) {
        dev_id d;
        if ((code = cli_one_device(name, com.devices, &d)) || (code = net_path(name, &gf, netbuf, sizeof netbuf, &netp)))
            return code;
        nn_config fresh = {(int)gf.channels, (int)gf.blocks, NN_NORM_GROUP};
        gv_status st = drop7_net_open(&d, netp, &fresh, (uint64_t)gf.seed, play_opts(&gf), &n, &err);
        if (st != GV_OK)
            return cli_fail(name, st, &err);
        net_player(&gf, &n, &o, &eo);
        search_label(&gf, sl, sizeof sl);
        snprintf(label, sizeof label, "net%s (%d sims%s, %s)", gf.net ? "" : " random", (int)gf.sims, sl, d.label);
    } else {
        o.policy = policy_of(policy);
        snprintf(label, sizeof label, "%s", policy);
    }
    cJSON *rec = gv_record_new(name, argc, argv);
    cJSON_AddStringToObject(rec, "mode", gf.mode);
    if (gf.net)
        cJSON_AddStringToObject(rec, "net", netp);
    if (!policy)
        cJSON_AddStringToObject(rec, "search", gf.search);
    cJSON *arr = gv_json_add_arr(rec, "play");
    printf("play, %s mode, %ld games per policy from seed %ld (game i plays seed %ld+i)\n", gf.mode, gf.games, gf.seed, gf.seed);
    printf("%-22s %6s %12s %10s %12s %10s %8s %8s\n", "policy", "games", "mean score", "95% CI +-", "median", "moves",
           "+-", "seconds");
    drop7_agent_result r;
    gv_status st = drop7_agent_play(&o, &r, &err);
    if (st == GV_OK) {
        play_row(arr, label, (int)gf.sims, &r);
        drop7_agent_result_free(&r);
    }
    for (int i = 0; i < base.n && st == GV_OK; i++) {
        if (!strcmp(base.v[i], "none") || (policy && !strcmp(base.v[i], policy)))
            continue;
        drop7_agent_opts b = o;
        b.policy = policy_of(base.v[i]);
        b.net = NULL, b.sims = 0, b.expecti = NULL;
        if ((st = drop7_agent_play(&b, &r, &err)) == GV_OK) {
            play_row(arr, base.v[i], 0, &r);
            drop7_agent_result_free(&r);
        }
    }
    drop7_net_close(&n);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    drop7_play_verdicts(rec);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

/* Where self-play's time went, one line, from the record's "selfplay" object. */
static void time_line(const cJSON *e)
{
    double t = gv_json_num(e, "seconds_total") > 0 ? gv_json_num(e, "seconds_total") : 1;
    double inf = gv_json_num(e, "seconds_inference");
    printf("time: %.1f s: search %.1f s (%.0f%%), inference %.1f s (%.0f%%, %.0f positions, %.0f/s), game %.1f s "
           "(%.0f%%), writing %.1f s\n", gv_json_num(e, "seconds_total"), gv_json_num(e, "seconds_search"),
           100 * gv_json_num(e, "seconds_search") / t, inf, 100 * inf / t, gv_json_num(e, "evals"),
           inf > 0 ? gv_json_num(e, "evals") / inf : 0, gv_json_num(e, "seconds_game"),
           100 * gv_json_num(e, "seconds_game") / t, gv_json_num(e, "seconds_write"));
    double calls = gv_json_num(e, "eval_calls");
    if (!(calls > 0)) /* no network */
        return;
    printf("evaluation: %.0f calls of %.1f positions on average (%.0f batch size%s, %.0f%% of the positions computed "
           "real, the rest padding); %.0f positions/s = %.0f%% of the network's own %.0f/s at batch %.0f (%.3f ms a call, "
           "measured after the games as bench infer does)\n",
           calls, calls > 0 ? gv_json_num(e, "evals") / calls : 0, gv_json_num(e, "eval_sizes"),
           gv_json_num(e, "eval_sizes") == 1 ? "" : "s", 100 * gv_json_num(e, "eval_occupancy"),
           gv_json_num(e, "eval_positions_per_s"), 100 * gv_json_num(e, "eval_efficiency"),
           gv_json_num(e, "bench_positions_per_s"), gv_json_num(e, "bench_batch"), 1e3 * gv_json_num(e, "bench_call_s"));
}

int cmd_selfplay(int argc, char **argv)
{
    const char *name = "selfplay";
    args_common com = {0};
    game_flags gf = {NULL, "normal", NULL, 0, 2, 100, 32, 64, 1, 1, 0, 4096, NAN, NAN};
    const char *out = NULL, *policy = NULL;
    long temp_moves = 20, chunk = 0;
    int resume = 0, force = 0;
    double alpha = 0.3, eps = 0.25, discount = 1;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GAME_FLAG_SPECS(&gf),
        {"--out|-o", ARGS_STR, &out, "DATA", "the dataset to write (safetensors, rewritten atomically after every chunk)", 0, 0, 0, 0, NULL},
        {"--resume", ARGS_FLAG, &resume, NULL, "continue the dataset --out after its last complete chunk (the same "
         "player: seed, mode, network, --sims, --temp-moves, noise)", 0, 0, 0, 0, NULL},
        {"--force", ARGS_FLAG, &force, NULL, "replace a dataset that --out already holds", 0, 0, 0, 0, NULL},
        {"--chunk", ARGS_INT, &chunk, "N", "games between writes of the dataset (default: --parallel)", 1, 10000000, 0, 0, NULL},
        {"--temp-moves", ARGS_INT, &temp_moves, "N", "the first N moves of a game sample a column by visits (default 20)", 0, 100000, 0, 0, NULL},
        {"--dirichlet", ARGS_DOUBLE, &alpha, "A", "Dirichlet noise alpha on the root's priors (default 0.3; 0: none)", 0, 0, 0, 100, NULL},
        {"--noise", ARGS_DOUBLE, &eps, "E", "its weight (default 0.25)", 0, 0, 0, 1, NULL},
        {"--discount", ARGS_DOUBLE, &discount, "G", "the values are the points still to come discounted by G per move "
         "(default 1: not discounted, the final score minus the score then)", 0, 0, 0, 1, NULL},
        {"--policy", ARGS_CHOICE, &policy, "P", "the positions of an expectimax player instead of a network's "
         "(expectimax1 or expectimax2; its played column as the policy target)", 0, 0, 0, 0, "expectimax1,expectimax2"},
    };
    int code = cli_parse(&selfplay_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &com.quiet);
    if (code != CLI_GO)
        return code;
    if (!!gf.net + !!gf.channels + !!policy != 1 || !out) {
        fprintf(stderr, "gpuvet %s: give --out and exactly one of --net, --channels or --policy\n", name);
        return GV_EXIT_USAGE;
    }
    if (resume && force) {
        fprintf(stderr, "gpuvet %s: give --resume (continue %s) or --force (replace it), not both\n", name, out);
        return GV_EXIT_USAGE;
    }
    dev_id d;
    const char *netp = NULL;
    char netbuf[1200];
    if ((code = cli_one_device(name, com.devices, &d)) || (code = net_path(name, &gf, netbuf, sizeof netbuf, &netp)))
        return code;
    gv_err err = {{0}};
    nn_config fresh = {(int)gf.channels, (int)gf.blocks, NN_NORM_GROUP};
    drop7_net n = {0};
    drop7_expecti_opts eo;
    gv_status st = policy ? GV_OK : drop7_net_open(&d, netp, &fresh, (uint64_t)gf.seed, play_opts(&gf), &n, &err);
    if (st != GV_OK)
        return cli_fail(name, st, &err);
    cJSON *rec = gv_record_new(name, argc, argv);
    drop7_selfplay_opts o = {.net = policy ? NULL : &n, .net_name = policy ? policy : netp, .mode = gf.mode,
                             .device = policy ? "cpu" : d.label, .games = gf.games, .chunk = chunk ? chunk : gf.parallel,
                             .out = out, .resume = resume, .force = force};
    drop7_rules_init(&o.play.rules, strcmp(gf.mode, "hardcore") ? DROP7_MODE_NORMAL : DROP7_MODE_HARDCORE);
    if (policy) { /* the expectimax player's games on the CPU threads (--threads; 0: all cores) */
        o.play.policy = !strcmp(policy, "expectimax2") ? DROP7_POLICY_EXPECTI2 : DROP7_POLICY_EXPECTI1;
        o.play.threads = (int)gf.threads;
        gf.sims = 0, temp_moves = 0, alpha = 0, eps = 0;
    } else {
        net_player(&gf, &n, &o.play, &eo);
        o.play.threads = (int)gf.threads;
        if (o.play.policy == DROP7_POLICY_NET_EXPECTI) /* no PUCT simulations, temperature or noise */
            gf.sims = 0, temp_moves = 0, alpha = 0, eps = 0;
    }
    o.play.sims = (int)gf.sims, o.play.parallel = (int)gf.parallel, o.play.discount = discount;
    o.play.seed = (uint64_t)gf.seed, o.play.dir_alpha = alpha, o.play.dir_eps = eps, o.play.temp_moves = (int)temp_moves;
    o.play.progress = !com.quiet;
    st = drop7_selfplay_run(&o, rec, &err);
    drop7_net_close(&n);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "selfplay");
    if (gv_json_num(e, "games_played") > 0) {
        printf("selfplay: %.0f games played here (%.0f moves, %.0f simulations each), mean score %.0f +- %.0f (95%% CI), "
               "median %.0f; %s holds %.0f games, %.0f positions\n", gv_json_num(e, "games_played"),
               gv_json_num(e, "moves"), gv_json_num(e, "sims"), gv_json_num(e, "score_mean"),
               gv_json_num(e, "score_ci95"), gv_json_num(e, "score_median"), out, gv_json_num(e, "games_in_file"),
               gv_json_num(e, "positions_in_file"));
        time_line(e);
    }
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}
