/* cmd_drop7.c: the Drop7 game commands: `gpuvet bench drop7` (batched games, CPU vs GPU),
 * `play` (scores with confidence intervals against the baselines), `selfplay` (datasets)
 * and `train --data` (the network on datasets).
 * Flags in, an engine of src/drop7/, the record out as a table and verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/record.h"
#include "drop7/drop7_agent.h"
#include "drop7/drop7_bench.h"
#include "drop7/drop7_train.h"

static const cli_help bench_drop7_help = {
    "bench drop7",
    "gpuvet bench drop7 [--devices cpu,cuda] [--batches 1,4,...,65536] [--players random,greedy]",
    "Measures batched Drop7 games (whole games from fixed seeds, one call per batch) on CPU\n"
    "threads and on the GPU, one thread per game: games/s and moves/s per device, player\n"
    "and batch size, then from which batch the GPU is faster. Before any timing, every GPU\n"
    "batch's game records are compared with the CPU's for the same seeds (a difference\n"
    "exits 1). The greedy player plays every legal column on a copy to pick its move.",
    0, NULL,
};

static const cli_help play_help = {
    "play",
    "gpuvet play (--net CKPT | --channels C | --policy greedy|random) [--games N] [--sims S]",
    "Plays whole Drop7 games and reports the mean score with its 95% confidence interval\n"
    "(1.96 standard errors), the median, and survival (moves). The network plays its policy\n"
    "head's best legal column, or with --sims a PUCT search over sampled outcomes of the\n"
    "random discs (docs/DROP7.md). The greedy and random baselines play the same seeds, and\n"
    "the verdict says whether the first policy's mean differs from each baseline's with a\n"
    "95% interval of the difference that excludes 0.",
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

static const cli_help train_help = {
    "train",
    "gpuvet train --data DATA [DATA...] (--net CKPT | --channels C) [--epochs E] --save CKPT",
    "Trains the network on self-play datasets (gpuvet selfplay): a shuffled split into\n"
    "training and validation samples, AdamW with a linear warm-up and a cosine decay,\n"
    "a checkpoint after every epoch (loads in Drop7Net with strict=True). Each time a\n"
    "sample is used its policy target is a column drawn from the stored visit\n"
    "distribution; the validation loss is the exact cross-entropy with it plus the value\n"
    "MSE. --data takes one or more files (the words after it, up to the next flag).",
    0, NULL,
};

/* The verdict of one player: where the GPU's batched games overtake the CPU's. */
static void bench_verdicts(const cJSON *rec)
{
    const cJSON *c;
    int any = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rec, "bench_drop7_crossover"))
    {
        any = 1;
        double from = cli_num(c, "gpu_faster_from_batch"), best = NAN, best_b = NAN;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_drop7"))
            if (!strcmp(cli_str(e, "device"), cli_str(c, "device")) && !strcmp(cli_str(e, "player"), cli_str(c, "player")) &&
                isfinite(cli_num(e, "speedup_vs_cpu")) && !(cli_num(e, "speedup_vs_cpu") <= best))
                best = cli_num(e, "speedup_vs_cpu"), best_b = cli_num(e, "batch");
        if (isfinite(from))
            printf("verdict: play %s Drop7 games on %s from batch %.0f on (up to %.2fx the CPU, at batch %.0f); "
                   "below it the CPU is faster\n", cli_str(c, "player"), cli_str(c, "device"), from, best, best_b);
        else
            printf("verdict: keep %s Drop7 games on the CPU: %s is not faster at the largest batches measured "
                   "(best %.2fx, %.0f batch sizes compared)\n", cli_str(c, "player"), cli_str(c, "device"), best,
                   cli_num(c, "batches_compared"));
    }
    if (!any)
        printf("verdict: no GPU was measured: the CPU alone plays the figures above\n");
}

int cmd_bench_drop7(int argc, char **argv)
{
    const char *name = "bench drop7";
    args_common com = {0};
    args_int_list batches = {0};
    args_str_list players = {2, {"random", "greedy"}};
    long repeats = 3, threads = 0, seed = 1;
    const char *mode = "normal";
    double hz = 0, min_time = 0.2;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--batches", ARGS_INT_LIST, &batches, "LIST", "games per call (default 1,4,16,...,65536)", 1, 1 << 20, 0, 0, NULL},
        {"--players", ARGS_CHOICE_LIST, &players, "LIST", "random, greedy (default both)", 0, 0, 0, 0, "random,greedy"},
        {"--mode", ARGS_CHOICE, &mode, "MODE", "normal (default) or hardcore", 0, 0, 0, 0, "normal,hardcore"},
        {"--repeats", ARGS_INT, &repeats, "N", "timed runs of each configuration, in rounds across them (default 3)", 1, 1000, 0, 0, NULL},
        {"--min-time", ARGS_DOUBLE, &min_time, "S", "seconds a timed run (of repeated calls) lasts at least (default 0.2)",
         0, 0, 0.001, 60, NULL},
        ARGS_THREADS_SPEC(&threads),
        {"--seed", ARGS_INT, &seed, "N", "game i of a batch plays seed N+i (default 1)", 0, (1L << 62), 0, 0, NULL},
    };
    int code = cli_parse(&bench_drop7_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &com.quiet);
    if (code != CLI_GO)
        return code;
    if (!batches.n)
        for (long b = 1; b <= 65536; b *= 4)
            batches.v[batches.n++] = b;
    if (batches.n > DROP7_BENCH_MAX) {
        fprintf(stderr, "gpuvet %s: at most %d batch sizes (got %d)\n", name, DROP7_BENCH_MAX, batches.n);
        return GV_EXIT_USAGE;
    }
    dev_id devs[CLI_MAX_DEV];
    drop7_bench_opts o = {0};
    if ((code = cli_devices(name, com.devices, devs, &o.ndev)))
        return code;
    o.devs = devs;
    o.mode = strcmp(mode, "hardcore") ? DROP7_MODE_NORMAL : DROP7_MODE_HARDCORE;
    for (int i = 0; i < players.n && o.nplayers < 2; i++)
        o.players[o.nplayers++] = strcmp(players.v[i], "greedy") ? DROP7_PLAYER_RANDOM : DROP7_PLAYER_GREEDY;
    for (int i = 0; i < batches.n; i++)
        o.batches[o.nbatches++] = (int)batches.v[i];
    o.repeats = (int)repeats, o.min_time = min_time, o.threads = (int)threads, o.seed = (uint64_t)seed;
    cJSON *rec = cli_record_start(name, argc, argv, devs, o.ndev, hz, &o.tel);
    gv_err err = {{0}};
    gv_status st = drop7_bench_run(&o, rec, &err);
    gv_telemetry_stop(o.tel, rec);
    if (st != GV_OK && st != GV_ERR_WRONG)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    printf("bench drop7, %s mode: one call plays a batch of whole games (games/s: median of the timed calls)\n", mode);
    printf("%-7s %-7s %7s %8s %14s %14s %14s %8s %7s\n", "device", "player", "batch", "threads", "games/s best",
           "games/s median", "moves/s median", "vs cpu", "records");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_drop7"))
    {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "records_match_cpu");
        char spd[16] = "-";
        if (isfinite(cli_num(e, "speedup_vs_cpu")))
            snprintf(spd, sizeof spd, "%.2fx", cli_num(e, "speedup_vs_cpu"));
        printf("%-7s %-7s %7.0f %8.0f %14.0f %14.0f %14.0f %8s %7s\n", cli_str(e, "device"), cli_str(e, "player"),
               cli_num(e, "batch"), cli_num(e, "threads"), cli_num(e, "games_per_s_best"), cli_num(e, "games_per_s_median"),
               cli_num(e, "moves_per_s_median"), spd, cJSON_IsTrue(m) ? "= cpu" : cJSON_IsFalse(m) ? "DIFFER" : "-");
    }
    cli_load_line(rec);
    if (st == GV_ERR_WRONG)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    bench_verdicts(rec);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

/* ---- play, selfplay, train: the network on one device ----------------------------------- */

/* The one device of a network command: the last of --devices (default: the GPU when
 * there is one, else the CPU). 0, or the exit code after the error line. */
static int one_device(const char *cmd, const char *spec, dev_id *d)
{
    dev_id devs[CLI_MAX_DEV];
    int n, code;
    if ((code = cli_devices(cmd, spec, devs, &n)))
        return code;
    if (spec && n != 1) {
        fprintf(stderr, "gpuvet %s: --devices takes one device here (got %d)\n", cmd, n);
        return GV_EXIT_USAGE;
    }
    *d = devs[n - 1];
    return 0;
}

/* The flags play and selfplay share: which network, how many games, how they are played. */
typedef struct {
    const char *net, *mode;
    long channels, blocks, games, sims, parallel, seed, threads;
} game_flags;

#define GAME_FLAG_SPECS(f)                                                                                        \
    {"--net", ARGS_STR, &(f)->net, "CKPT", "the network that plays (a checkpoint of gpuvet or Drop7Net's state_dict)", 0, 0, 0, 0, NULL}, \
    {"--channels", ARGS_INT, &(f)->channels, "C", "a fresh random network of C channels instead of --net", 8, 4096, 0, 0, NULL}, \
    {"--blocks", ARGS_INT, &(f)->blocks, "N", "its residual blocks (default 2)", 0, 64, 0, 0, NULL},                 \
    {"--games", ARGS_INT, &(f)->games, "N", "games (default 100)", 1, 10000000, 0, 0, NULL},                          \
    {"--sims", ARGS_INT, &(f)->sims, "S", "search simulations per move (0: the policy head's best legal column)", 0, 100000, 0, 0, NULL}, \
    {"--parallel", ARGS_INT, &(f)->parallel, "N", "games side by side: the network's batch (default 64)", 1, 65536, 0, 0, NULL}, \
    {"--mode", ARGS_CHOICE, &(f)->mode, "MODE", "normal (default) or hardcore", 0, 0, 0, 0, "normal,hardcore"},       \
    {"--seed", ARGS_INT, &(f)->seed, "N", "game i plays seed N+i; the search's generator derives from it (default 1)", 0, (1L << 62), 0, 0, NULL}, \
    {"--threads", ARGS_INT, &(f)->threads, "N", "CPU threads of the network (default 1: a search's batches are small; 0: all cores)", 0, 1024, 0, 0, NULL}

/* A policy's scores into the record's "play" array, and its table row. */
static void play_row(cJSON *arr, const char *policy, int sims, const drop7_agent_result *r)
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
    cJSON_AddItemToArray(arr, e);
    printf("%-22s %6d %12.0f %10.0f %12.0f %10.1f %8.1f %8.1f\n", policy, r->ngames, mean, ci, median, mmean, mci,
           r->t_total);
}

/* The first entry of "play" against each other: the difference of the means with the 95%
 * interval of the difference (Welch: 1.96 sqrt(s1^2/n1 + s2^2/n2)). */
static void play_verdicts(cJSON *rec)
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
        double d = cli_num(a, "score_mean") - cli_num(b, "score_mean");
        double h = sqrt(pow(cli_num(a, "score_ci95"), 2) + pow(cli_num(b, "score_ci95"), 2));
        const char *v = d - h > 0 ? "better" : d + h < 0 ? "worse" : "not distinguishable";
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", cli_str(a, "policy"));
        cJSON_AddStringToObject(e, "baseline", cli_str(b, "policy"));
        gv_json_add_num(e, "score_diff", d);
        gv_json_add_num(e, "score_diff_ci95", h);
        cJSON_AddStringToObject(e, "verdict", v);
        cJSON_AddItemToArray(vs, e);
        printf("verdict: %s scores %.0f +- %.0f on average, %s %.0f +- %.0f: %s (difference %+.0f +- %.0f, 95%% CI%s)\n",
               cli_str(a, "policy"), cli_num(a, "score_mean"), cli_num(a, "score_ci95"), cli_str(b, "policy"),
               cli_num(b, "score_mean"), cli_num(b, "score_ci95"), v, d, h,
               strcmp(v, "not distinguishable") ? " excludes 0" : " includes 0");
    }
}

int cmd_play(int argc, char **argv)
{
    const char *name = "play";
    args_common com = {0};
    game_flags gf = {NULL, "normal", 0, 2, 100, 0, 64, 1, 1};
    const char *policy = NULL;
    args_str_list base = {2, {"greedy", "random"}};
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GAME_FLAG_SPECS(&gf),
        {"--policy", ARGS_CHOICE, &policy, "P", "play a baseline alone instead: greedy or random", 0, 0, 0, 0, "greedy,random"},
        {"--baselines", ARGS_CHOICE_LIST, &base, "LIST", "baselines played on the same seeds to compare with (default "
         "greedy,random; none: no comparison)", 0, 0, 0, 0, "greedy,random,none"},
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
    drop7_net n = {0};
    char label[300];
    gv_err err = {{0}};
    if (!policy) {
        dev_id d;
        if ((code = one_device(name, com.devices, &d)))
            return code;
        nn_config fresh = {(int)gf.channels, (int)gf.blocks, NN_NORM_GROUP};
        gv_status st = drop7_net_open(&d, NN_FP32, gf.net, &fresh, (uint64_t)gf.seed, (int)gf.parallel, (int)gf.threads, &n, &err);
        if (st != GV_OK)
            return cli_fail(name, st, &err);
        o.policy = DROP7_POLICY_NET;
        o.net = n.t;
        snprintf(label, sizeof label, "net%s (%d sims, %s)", gf.net ? "" : " random", (int)gf.sims, d.label);
    } else {
        o.policy = strcmp(policy, "greedy") ? DROP7_POLICY_RANDOM : DROP7_POLICY_GREEDY;
        snprintf(label, sizeof label, "%s", policy);
    }
    cJSON *rec = gv_record_new(name, argc, argv);
    cJSON_AddStringToObject(rec, "mode", gf.mode);
    if (gf.net)
        cJSON_AddStringToObject(rec, "net", gf.net);
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
        b.policy = strcmp(base.v[i], "greedy") ? DROP7_POLICY_RANDOM : DROP7_POLICY_GREEDY;
        b.net = NULL, b.sims = 0;
        if ((st = drop7_agent_play(&b, &r, &err)) == GV_OK) {
            play_row(arr, base.v[i], 0, &r);
            drop7_agent_result_free(&r);
        }
    }
    drop7_net_close(&n);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    play_verdicts(rec);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

/* Where self-play's time went, one line. */
static void time_line(const drop7_agent_result *r, double t_write)
{
    double t = r->t_total > 0 ? r->t_total : 1;
    printf("time: %.1f s: search %.1f s (%.0f%%), inference %.1f s (%.0f%%, %ld positions, %.0f/s), game %.1f s "
           "(%.0f%%), writing %.1f s\n", r->t_total, r->t_search, 100 * r->t_search / t, r->t_infer,
           100 * r->t_infer / t, r->evals, r->t_infer > 0 ? r->evals / r->t_infer : 0, r->t_game, 100 * r->t_game / t,
           t_write);
}

int cmd_selfplay(int argc, char **argv)
{
    const char *name = "selfplay";
    args_common com = {0};
    game_flags gf = {NULL, "normal", 0, 2, 100, 32, 64, 1, 1};
    const char *out = NULL;
    long temp_moves = 20, chunk = 0;
    int resume = 0;
    double alpha = 0.3, eps = 0.25;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GAME_FLAG_SPECS(&gf),
        {"--out|-o", ARGS_STR, &out, "DATA", "the dataset to write (safetensors, rewritten atomically after every chunk)", 0, 0, 0, 0, NULL},
        {"--resume", ARGS_FLAG, &resume, NULL, "continue the dataset --out after its last complete chunk", 0, 0, 0, 0, NULL},
        {"--chunk", ARGS_INT, &chunk, "N", "games between writes of the dataset (default: --parallel)", 1, 10000000, 0, 0, NULL},
        {"--temp-moves", ARGS_INT, &temp_moves, "N", "the first N moves of a game sample a column by visits (default 20)", 0, 100000, 0, 0, NULL},
        {"--dirichlet", ARGS_DOUBLE, &alpha, "A", "Dirichlet noise alpha on the root's priors (default 0.3; 0: none)", 0, 0, 0, 100, NULL},
        {"--noise", ARGS_DOUBLE, &eps, "E", "its weight (default 0.25)", 0, 0, 0, 1, NULL},
    };
    int code = cli_parse(&selfplay_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &com.quiet);
    if (code != CLI_GO)
        return code;
    if (!!gf.net + !!gf.channels != 1 || !out) {
        fprintf(stderr, "gpuvet %s: give --out and exactly one of --net or --channels\n", name);
        return GV_EXIT_USAGE;
    }
    if (!chunk)
        chunk = gf.parallel;
    dev_id d;
    if ((code = one_device(name, com.devices, &d)))
        return code;
    gv_err err = {{0}};
    drop7_data all = {0};
    all.seed = (uint64_t)gf.seed;
    snprintf(all.mode, sizeof all.mode, "%s", gf.mode);
    if (resume) {
        int found = 0;
        FILE *f = fopen(out, "rb");
        if (f)
            found = 1, fclose(f);
        if (found) {
            gv_status st = drop7_data_load(out, &all, &err);
            if (st != GV_OK)
                return cli_fail(name, st, &err);
            if (all.seed != (uint64_t)gf.seed || strcmp(all.mode, gf.mode)) {
                fprintf(stderr, "gpuvet %s: --resume: %s was played from seed %llu in %s mode, not seed %ld in %s mode\n",
                        name, out, (unsigned long long)all.seed, all.mode, gf.seed, gf.mode);
                drop7_data_free(&all);
                return GV_EXIT_USAGE;
            }
            printf("resuming %s: %ld games, %ld positions already there\n", out, all.games, all.n);
        }
    }
    nn_config fresh = {(int)gf.channels, (int)gf.blocks, NN_NORM_GROUP};
    drop7_net n;
    gv_status st = drop7_net_open(&d, NN_FP32, gf.net, &fresh, (uint64_t)gf.seed, (int)gf.parallel, (int)gf.threads, &n, &err);
    if (st != GV_OK) {
        drop7_data_free(&all);
        return cli_fail(name, st, &err);
    }
    cJSON *rec = gv_record_new(name, argc, argv);
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, strcmp(gf.mode, "hardcore") ? DROP7_MODE_NORMAL : DROP7_MODE_HARDCORE);
    o.policy = DROP7_POLICY_NET, o.net = n.t, o.sims = (int)gf.sims, o.parallel = (int)gf.parallel;
    o.dir_alpha = alpha, o.dir_eps = eps, o.temp_moves = (int)temp_moves, o.record = 1, o.progress = !com.quiet;
    drop7_agent_result tot = {0};
    double t_write = 0;
    int64_t *scores = gv_xcalloc((size_t)gf.games, sizeof *scores);
    long played = 0;
    for (long g0 = all.games; g0 < gf.games && st == GV_OK; g0 += chunk) {
        o.ngames = (int)(gf.games - g0 < chunk ? gf.games - g0 : chunk);
        o.seed = (uint64_t)gf.seed + (uint64_t)g0;
        drop7_agent_result r;
        if ((st = drop7_agent_play(&o, &r, &err)) != GV_OK)
            break;
        drop7_data part = {r.n, r.planes, r.policy, r.value, o.ngames, 0, ""};
        drop7_data_append(&all, &part);
        for (int i = 0; i < r.ngames; i++)
            scores[played++] = r.score[i];
        tot.t_search += r.t_search, tot.t_infer += r.t_infer, tot.t_game += r.t_game, tot.t_total += r.t_total;
        tot.evals += r.evals, tot.moves += r.moves;
        drop7_agent_result_free(&r);
        double t0 = gv_now();
        st = drop7_data_save(out, &all, (int)gf.sims, gf.net ? gf.net : "random", &err);
        t_write += gv_now() - t0;
        if (st == GV_OK && !com.quiet)
            printf("%ld of %ld games written to %s (%ld positions)\n", all.games, gf.games, out, all.n);
    }
    if (st == GV_OK) {
        double mean = NAN, median = NAN, ci = NAN;
        if (played)
            drop7_score_stats(scores, (int)played, &mean, &median, &ci);
        printf("selfplay: %ld games played here (%ld moves, %d simulations each), mean score %.0f +- %.0f (95%% CI), "
               "median %.0f; %s holds %ld games, %ld positions\n", played, tot.moves, (int)gf.sims, mean, ci, median, out,
               all.games, all.n);
        time_line(&tot, t_write);
        cJSON *e = gv_json_add_obj(rec, "selfplay");
        cJSON_AddStringToObject(e, "out", out);
        cJSON_AddStringToObject(e, "device", d.label);
        cJSON_AddNumberToObject(e, "games_played", (double)played);
        cJSON_AddNumberToObject(e, "games_in_file", (double)all.games);
        cJSON_AddNumberToObject(e, "positions_in_file", (double)all.n);
        cJSON_AddNumberToObject(e, "sims", (double)gf.sims);
        cJSON_AddNumberToObject(e, "moves", (double)tot.moves);
        cJSON_AddNumberToObject(e, "evals", (double)tot.evals);
        gv_json_add_num(e, "score_mean", mean);
        gv_json_add_num(e, "score_ci95", ci);
        gv_json_add_num(e, "seconds_total", tot.t_total);
        gv_json_add_num(e, "seconds_search", tot.t_search);
        gv_json_add_num(e, "seconds_inference", tot.t_infer);
        gv_json_add_num(e, "seconds_game", tot.t_game);
        gv_json_add_num(e, "seconds_write", t_write);
    }
    free(scores);
    drop7_data_free(&all);
    drop7_net_close(&n);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

int cmd_train(int argc, char **argv)
{
    const char *name = "train";
    args_common com = {0};
    const char *net = NULL, *save = NULL, *dtype = "fp32";
    long channels = 0, blocks = 2, epochs = 4, batch = 256, threads = 0, seed = 1;
    double lr = 1e-3, warmup = 0.05, lr_final = 0.1, val = 0.1;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        {"--net", ARGS_STR, &net, "CKPT", "start from this checkpoint", 0, 0, 0, 0, NULL},
        {"--channels", ARGS_INT, &channels, "C", "start from a fresh random network of C channels", 8, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "its residual blocks (default 2)", 0, 64, 0, 0, NULL},
        {"--save", ARGS_STR, &save, "CKPT", "the checkpoint written (atomically) after every epoch", 0, 0, 0, 0, NULL},
        {"--epochs", ARGS_INT, &epochs, "N", "passes over the training samples (default 4)", 1, 100000, 0, 0, NULL},
        {"--batch", ARGS_INT, &batch, "N", "samples per step (default 256)", 1, 1 << 16, 0, 0, NULL},
        {"--lr", ARGS_DOUBLE, &lr, "LR", "peak learning rate of AdamW (default 1e-3)", 0, 0, 1e-8, 1, NULL},
        {"--warmup", ARGS_DOUBLE, &warmup, "F", "share of the steps with a linear warm-up (default 0.05)", 0, 0, 0, 1, NULL},
        {"--lr-final", ARGS_DOUBLE, &lr_final, "F", "the cosine decay ends at lr times F (default 0.1)", 0, 0, 0, 1, NULL},
        {"--val", ARGS_DOUBLE, &val, "F", "share of the samples held out for validation (default 0.1)", 0, 0, 0, 0.9, NULL},
        {"--dtype", ARGS_CHOICE, &dtype, "T", "fp32 (default) or bf16 (GPU)", 0, 0, 0, 0, "fp32,bf16"},
        {"--seed", ARGS_INT, &seed, "N", "the split, shuffles and a fresh network (default 1)", 0, (1L << 62), 0, 0, NULL},
        ARGS_THREADS_SPEC(&threads),
    };
    int code;
    /* --data FILE... : the words after --data up to the next flag; the rest go to cli_parse */
    const char *data[16];
    int ndata = 0;
    char **rest = gv_xcalloc((size_t)argc + 1, sizeof(char *));
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--data")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) && ndata < (int)GV_ARRAY_LEN(data))
                data[ndata++] = argv[++i];
            continue;
        }
        rest[nrest++] = argv[i];
    }
    code = cli_parse(&train_help, specs, GV_ARRAY_LEN(specs), nrest, rest, NULL, &com.quiet);
    free(rest);
    if (code != CLI_GO)
        return code;
    if (!ndata || !!net + !!channels != 1) {
        fprintf(stderr, "gpuvet %s: give --data FILE... and exactly one of --net or --channels\n", name);
        return GV_EXIT_USAGE;
    }
    dev_id d;
    if ((code = one_device(name, com.devices, &d)))
        return code;
    gv_err err = {{0}};
    drop7_data all = {0};
    for (int i = 0; i < ndata; i++) {
        drop7_data part;
        gv_status st = drop7_data_load(data[i], &part, &err);
        if (st != GV_OK) {
            drop7_data_free(&all);
            return cli_fail(name, st, &err);
        }
        drop7_data_append(&all, &part);
        drop7_data_free(&part);
    }
    nn_dtype dt;
    nn_dtype_parse(dtype, &dt);
    nn_config fresh = {(int)channels, (int)blocks, NN_NORM_GROUP};
    drop7_net n;
    gv_status st = drop7_net_open(&d, dt, net, &fresh, (uint64_t)seed, (int)batch, (int)threads, &n, &err);
    if (st != GV_OK) {
        drop7_data_free(&all);
        return cli_fail(name, st, &err);
    }
    printf("train: %ld positions from %d file%s (%ld games), %d channels, %d blocks, %s %s\n", all.n, ndata,
           ndata > 1 ? "s" : "", all.games, n.L.cfg.channels, n.L.cfg.blocks, d.label, dtype);
    cJSON *rec = gv_record_new(name, argc, argv);
    drop7_train_opts o = {(int)epochs, (int)batch, lr, warmup, lr_final, val, (uint64_t)seed, save, !com.quiet};
    st = drop7_train_run(&n, &all, &o, rec, &err);
    drop7_net_close(&n);
    drop7_data_free(&all);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}
