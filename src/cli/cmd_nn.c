/* cmd_nn.c: `gpuvet check` and `gpuvet soak`: flags, the engines nn_check_run and
 * nn_soak_run (src/nn/), the lines they print and the record. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/record.h"
#include "core/rng.h"
#include "nn/nn_check.h"
#include "nn/nn_soak.h"

static const cli_help check_help = {
    "check",
    "gpuvet check [--devices cpu,cuda] [--reference FILE] [options]",
    "Checks each device's results against the float64 host path: a square float32 GEMM (the\n"
    "float64 reference is itself verified by long double samples), then the Drop7 network's\n"
    "training-mode forward, loss, every gradient, one AdamW step and the eval-mode forward,\n"
    "for GroupNorm and BatchNorm. Gradients are compared on the device's own ReLU masks\n"
    "(docs/NN.md). Each line prints the metric, the tolerance and PASS/FAIL; the exit code\n"
    "is 1 when any comparison fails. Inputs are drawn fresh each run.",
    0, NULL,
};

static const cli_help soak_help = {
    "soak",
    "gpuvet soak [--devices cpu,cuda] [--channels C] [--batch N] [--steps N] [options]",
    "Trains the Drop7 network on one fixed batch for N AdamW steps on each device. Fails\n"
    "(exit 1) when a parameter, moment or the loss becomes non-finite, or when the loss does\n"
    "not fall by --min-drop. Prints the first and last loss; the loss curve goes to --json.\n"
    "Defaults (channels 64, blocks 2, batch 256, 200 steps) take about half a minute on two\n"
    "CPU cores.",
    0, NULL,
};

/* cli_parse_devices for check and soak, then their --dtype list into dt (its choices are
 * validated by the parser; the count in *ndt): CLI_GO, or the exit code. */
static int parse_sweep(const cli_help *help, const args_spec *specs, int nspecs, int argc, char **argv,
                       const args_common *com, const args_str_list *dtypes, dev_id *devs, int *ndev, nn_dtype *dt,
                       int *ndt)
{
    int code = cli_parse_devices(help, specs, nspecs, argc, argv, com, devs, ndev);
    for (int i = 0; i < dtypes->n; i++)
        nn_dtype_parse(dtypes->v[i], &dt[i]);
    *ndt = dtypes->n;
    return code;
}

int cmd_check(int argc, char **argv)
{
    args_common com = {0};
    args_str_list dtypes = {2, {"fp32", "bf16"}}, norms = {2, {"group", "batch"}};
    long channels = 64, blocks = 2, batch = 16, gemm = 4096, threads = 0, seed = -1;
    int tf32 = 0, fault = 0;
    const char *reference = NULL;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "dtypes to check: fp32, bf16 (default fp32,bf16; the CPU checks fp32)", 0, 0, 0, 0, "fp32,bf16"},
        {"--tf32", ARGS_FLAG, &tf32, NULL, "let fp32 use TF32 matrix units on the GPU (tolerances become 5e-3/1e-2)", 0, 0, 0, 0, NULL},
        {"--norm", ARGS_CHOICE_LIST, &norms, "LIST", "norms to check: group, batch (default group,batch)", 0, 0, 0, 0, "group,batch"},
        {"--channels", ARGS_INT, &channels, "C", "channels, a multiple of 8 (default 64)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "residual blocks (default 2)", 0, 64, 0, 0, NULL},
        {"--batch", ARGS_INT, &batch, "N", "batch size of the network check (default 16)", 1, 65536, 0, 0, NULL},
        {"--gemm-size", ARGS_INT, &gemm, "N", "size of the square GEMM check, 0 skips it (default 4096)", 0, 16384, 0, 0, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the inputs (default: fresh each run, printed)", 0, (1L << 62), 0, 0, NULL},
        {"--reference", ARGS_STR, &reference, "FILE", "check against a PyTorch reference file (written by bench/torch/make_reference.py)", 0, 0, 0, 0, NULL},
        ARGS_THREADS_SPEC(&threads),
        {"--inject-fault", ARGS_FLAG, &fault, NULL, "test hook: a kernel skips part of its output, so the check must fail", 0, 0, 0, 0, NULL},
    };
    dev_id devs[CLI_MAX_DEV];
    nn_check_opts o = {.devs = devs};
    int code = parse_sweep(&check_help, specs, GV_ARRAY_LEN(specs), argc, argv, &com, &dtypes, devs, &o.ndev, o.dtypes, &o.ndtypes);
    if (code != CLI_GO)
        return code;
    for (int i = 0; i < norms.n; i++)
        o.norms[o.nnorms++] = strcmp(norms.v[i], "batch") ? NN_NORM_GROUP : NN_NORM_BATCH;
    o.channels = (int)channels, o.blocks = (int)blocks, o.batch = (int)batch, o.gemm_size = (int)gemm;
    o.threads = (int)threads, o.tf32 = tf32, o.fault = fault, o.reference = reference;
    o.seed = seed >= 0 ? (uint64_t)seed : gv_rng_fresh_seed() >> 2;
    o.out = stdout;
    o.quiet = com.quiet;
    nn_config cfg = {o.channels, o.blocks, NN_NORM_GROUP};
    gv_err err = {{0}};
    if (nn_config_check(&cfg, &err) != GV_OK) {
        char m[GV_ERRLEN + 32];
        snprintf(m, sizeof m, "--channels/--blocks: %s", err.msg);
        memcpy(err.msg, m, sizeof err.msg - 1);
        err.msg[sizeof err.msg - 1] = 0;
        return cli_fail("check", GV_ERR_INPUT, &err);
    }
    cJSON *rec = gv_record_new("check", argc, argv);
    nn_check_result r;
    gv_status st = nn_check_run(&o, rec, &r, &err);
    if (st != GV_OK)
        code = cli_fail("check", st, &err);
    else {
        printf("check: %d comparisons, %d failed\n", r.n, r.nfail);
        code = r.nfail ? GV_EXIT_FAIL : GV_EXIT_OK;
    }
    return cli_finish("check", rec, code, com.json);
}

int cmd_soak(int argc, char **argv)
{
    args_common com = {0};
    args_str_list dtypes = {1, {"fp32"}};
    long channels = -1, blocks = -1, batch = 256, steps = 200, threads = 0, seed = 1;
    double min_drop = 10, hz = 0;
    const char *norm = NULL, *init = NULL, *save = NULL;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, bf16 (GPU) or fp64 (CPU) (default fp32)", 0, 0, 0, 0, "fp64,fp32,bf16"},
        {"--channels", ARGS_INT, &channels, "C", "channels, a multiple of 8 (default 64)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "residual blocks (default 2)", 0, 64, 0, 0, NULL},
        {"--norm", ARGS_CHOICE, &norm, "NORM", "group or batch (default group)", 0, 0, 0, 0, "group,batch"},
        {"--batch", ARGS_INT, &batch, "N", "the fixed batch's size (default 256)", 1, 1 << 20, 0, 0, NULL},
        {"--steps", ARGS_INT, &steps, "N", "AdamW steps (default 200)", 1, 1000000, 0, 0, NULL},
        {"--min-drop", ARGS_DOUBLE, &min_drop, "X", "the loss must fall by this factor (default 10)", 0, 0, 1, 1e12, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the weights and the batch (default 1)", 0, (1L << 62), 0, 0, NULL},
        {"--init", ARGS_STR, &init, "FILE", "start from a checkpoint (safetensors, PyTorch state_dict names)", 0, 0, 0, 0, NULL},
        {"--save", ARGS_STR, &save, "FILE", "write the trained state_dict as safetensors (atomically)", 0, 0, 0, 0, NULL},
        ARGS_THREADS_SPEC(&threads),
    };
    dev_id devs[CLI_MAX_DEV];
    nn_soak_opts o = {.devs = devs};
    int code = parse_sweep(&soak_help, specs, GV_ARRAY_LEN(specs), argc, argv, &com, &dtypes, devs, &o.ndev, o.dtypes, &o.ndtypes);
    if (code != CLI_GO)
        return code;
    o.cfg = (nn_config){channels < 0 ? 64 : (int)channels, blocks < 0 ? 2 : (int)blocks,
                        norm && !strcmp(norm, "batch") ? NN_NORM_BATCH : NN_NORM_GROUP};
    o.cfg_given = (channels >= 0) | (blocks >= 0) << 1 | (norm != NULL) << 2;
    o.batch = (int)batch, o.threads = (int)threads, o.steps = steps, o.min_drop = min_drop;
    o.seed = (uint64_t)seed, o.init = init, o.save = save;
    o.out = stdout;
    o.quiet = com.quiet;
    cJSON *rec = cli_record_start("soak", argc, argv, devs, o.ndev, hz, &o.tel);
    nn_soak_result r;
    gv_err err = {{0}};
    gv_status st = nn_soak_run(&o, rec, &r, &err);
    gv_telemetry_stop(o.tel, rec);
    code = st != GV_OK ? cli_fail("soak", st, &err) : r.failed ? GV_EXIT_FAIL : GV_EXIT_OK;
    return cli_finish("soak", rec, code, com.json);
}
