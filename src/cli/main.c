/* main.c: gpuvet's entry point: dispatches to the subcommands listed in cli.h. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/progress.h"

typedef struct {
    const char *name;
    const char *sub;   /* second word (bench train, run nes), or NULL */
    int (*fn)(int, char **);
    const char *summary;
} command;

static const command commands[] = {
    {"probe", NULL, cmd_probe, "describe this machine: CPU, memory, BLAS, GPUs, pitfalls"},
    {"smoke", NULL, cmd_smoke, "bring a GPU up in five stages and say where it fails"},
    {"check", NULL, cmd_check, "check GEMM and network results on each device against float64"},
    {"soak", NULL, cmd_soak, "train on a fixed batch; fail on non-finite values or no progress"},
    {"bench", "matmul", cmd_bench_matmul, "GEMM throughput (GFLOP/s) over sizes and dtypes"},
    {"bench", "train", cmd_bench_train, "Drop7 training throughput (samples/s) per device"},
    {"bench", "infer", cmd_bench_infer, "Drop7 inference latency (median, p99) and throughput per device and batch"},
    {"bench", "drop7", cmd_bench_drop7, "Drop7 games/s on CPU threads vs the GPU by batch size, random and greedy play"},
    {"bench", "ROM", cmd_bench_emu, "emulation throughput per renderer and instance count (NES, Game Boy, SNES)"},
    {"play", NULL, cmd_play, "play Drop7 games with the network or a baseline: mean score with its 95% CI"},
    {"selfplay", NULL, cmd_selfplay, "self-play games of the network with a search, written as a training dataset"},
    {"train", NULL, cmd_train, "train the network on self-play datasets, a checkpoint per epoch"},
    {"run", NULL, cmd_run, "run a ROM headless: hashes, PNG, WAV, trace, save states, test-ROM verdict"},
    {"env", NULL, cmd_env, "print the environment settings this machine should use"},
    {"blas-race", NULL, cmd_blas_race, "look for wrong results from a multithreaded BLAS"},
    {"report", NULL, cmd_report, "render a run record as HTML or Markdown"},
    {"compare", NULL, cmd_compare, "show what changed between two run records"},
    {"all", NULL, cmd_all, "probe, smoke, check, soak, benchmarks and a report (about 90 s)"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpuvet COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n"
            "gpuvet checks that a GPU computes real workloads correctly and measures whether\n"
            "it is worth using instead of the CPU.\n\ncommands:\n");
    for (size_t i = 0; i < GV_ARRAY_LEN(commands); i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%s%s", commands[i].name, commands[i].sub ? " " : "",
                 commands[i].sub ? commands[i].sub : "");
        fprintf(f, "  %-14s %s\n", name, commands[i].summary);
    }
    fprintf(f,
            "\ncommon options: --devices cpu[,cuda]  --json FILE  --quiet\n"
            "exit codes: 0 success, 1 a check found wrong results, 2 bad usage or input,\n"
            "            3 the environment cannot do it (device missing, out of memory, I/O),\n"
            "            4 an internal error (a bug in gpuvet: please report the message)\n");
}

int main(int argc, char **argv)
{
    gv_progress_stdout();
    if (argc < 2) {
        fprintf(stderr, "gpuvet: no command given (gpuvet --help lists them)\n");
        return GV_EXIT_USAGE;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        usage(stdout);
        return GV_EXIT_OK;
    }
    if (!strcmp(c, "--version") || !strcmp(c, "version")) {
        printf("gpuvet %s\n", GV_VERSION);
        return GV_EXIT_OK;
    }
    int known = 0;
    for (size_t i = 0; i < GV_ARRAY_LEN(commands); i++) {
        if (strcmp(commands[i].name, c) != 0)
            continue;
        known = 1;
        if (!commands[i].sub)
            return commands[i].fn(argc - 2, argv + 2);
        if (argc >= 3 && !strcmp(commands[i].sub, argv[2]))
            return commands[i].fn(argc - 3, argv + 3);
    }
    /* bench ROM, bench nes ROM: any other word after bench is the emulator benchmark's */
    if (!strcmp(c, "bench") && argc >= 3 && strcmp(argv[2], "--help") && strcmp(argv[2], "-h"))
        return cmd_bench_emu(argc - 2, argv + 2);
    if (known) {
        /* A two-word command without (or with an unknown) second word. */
        fprintf(stderr, "gpuvet: '%s' needs one of:", c);
        for (size_t i = 0; i < GV_ARRAY_LEN(commands); i++)
            if (!strcmp(commands[i].name, c))
                fprintf(stderr, " %s", commands[i].sub);
        if (argc >= 3 && strcmp(argv[2], "--help") && strcmp(argv[2], "-h"))
            fprintf(stderr, " (got '%s')", argv[2]);
        fprintf(stderr, "\n");
        return (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) ? GV_EXIT_OK : GV_EXIT_USAGE;
    }
    fprintf(stderr, "gpuvet: unknown command '%s' (gpuvet --help lists them)\n", c);
    return GV_EXIT_USAGE;
}
