/* cmd_drop7.c: the Drop7 commands around the network's training: `gpuvet bench drop7`
 * (batched games, CPU vs GPU) and `train --data` (the network on self-play datasets);
 * `play` and `selfplay` are in cmd_play.c.
 * Flags in, an engine of src/drop7/, the record out as a table and verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/record.h"
#include "drop7/drop7_bench.h"
#include "drop7/drop7_train.h"
#include "report/report.h"

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
        if (isfinite(gv_json_num(e, "speedup_vs_cpu")))
            snprintf(spd, sizeof spd, "%.2fx", gv_json_num(e, "speedup_vs_cpu"));
        printf("%-7s %-7s %7.0f %8.0f %14.0f %14.0f %14.0f %8s %7s\n", gv_json_str(e, "device", ""),
               gv_json_str(e, "player", ""), gv_json_num(e, "batch"), gv_json_num(e, "threads"),
               gv_json_num(e, "games_per_s_best"), gv_json_num(e, "games_per_s_median"),
               gv_json_num(e, "moves_per_s_median"), spd,
               cJSON_IsTrue(m) ? "= cpu" : cJSON_IsFalse(m) ? "DIFFER" : "-");
    }
    cli_load_line(rec);
    if (st == GV_ERR_WRONG)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

/* ---- play, selfplay, train: the network on one device ----------------------------------- */

int cmd_train(int argc, char **argv)
{
    const char *name = "train";
    args_common com = {0};
    const char *net = NULL, *save = NULL, *dtype = "fp32";
    long channels = 0, blocks = 2, epochs = 4, batch = 256, threads = 0, seed = 1;
    double lr = 1e-3, warmup = 0.05, lr_final = 0.1, val = 0.1, vscale = 0;
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
        {"--value-scale", ARGS_DOUBLE, &vscale, "P", "the value head learns the points still to come / P, and the "
         "checkpoint says P (default: --net's, else 10000, the datasets' own)", 0, 0, 1, 1e9, NULL},
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
    if ((code = cli_one_device(name, com.devices, &d)))
        return code;
    gv_err err = {{0}};
    drop7_data all;
    gv_status st = drop7_data_load_many(data, ndata, &all, &err);
    if (st != GV_OK)
        return cli_fail(name, st, &err);
    nn_dtype dt;
    nn_dtype_parse(dtype, &dt);
    nn_config fresh = {(int)channels, (int)blocks, NN_NORM_GROUP};
    drop7_net n;
    char netpath[1200];
    if (net && (st = drop7_net_path(net, netpath, sizeof netpath, &err)) != GV_OK) {
        drop7_data_free(&all);
        return cli_fail(name, st, &err);
    }
    st = drop7_net_open(&d, net ? netpath : NULL, &fresh, (uint64_t)seed,
                                  (nn_trainer_opts){.dtype = dt, .max_batch = (int)batch, .threads = (int)threads},
                                  &n, &err);
    if (st != GV_OK) {
        drop7_data_free(&all);
        return cli_fail(name, st, &err);
    }
    printf("train: %ld positions from %d file%s (%ld games), %d channels, %d blocks, %s %s\n", all.n, ndata,
           ndata > 1 ? "s" : "", all.games, n.L.cfg.channels, n.L.cfg.blocks, d.label, dtype);
    cJSON *rec = gv_record_new(name, argc, argv);
    drop7_train_opts o = {(int)epochs, (int)batch, lr, warmup, lr_final, val, (uint64_t)seed, vscale > 0 ? vscale : n.value_scale,
                          save, !com.quiet};
    st = drop7_train_run(&n, &all, &o, rec, &err);
    drop7_net_close(&n);
    drop7_data_free(&all);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}
