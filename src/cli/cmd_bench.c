/* cmd_bench.c: `gpuvet bench train`, `bench infer` and `bench matmul`: flags, the engines
 * nn_bench_train, nn_bench_infer and gemm_bench_run (through the one measurement harness),
 * then the record as tables and verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "cli/cli.h"
#include "core/record.h"
#include "nn/nn_bench.h"
#include "report/report.h"

static const cli_help bench_train_help = {
    "bench train",
    "gpuvet bench train [--devices cpu,cuda] [--channels 64,128] [--batches 256,1024] [options]",
    "Measures Drop7 training throughput (forward, backward, AdamW) in samples/s on each\n"
    "device: an untimed warm-up of every configuration, then timed runs in rounds across\n"
    "them; best, median and min per configuration, the load average before, during and\n"
    "after. On two CPU cores the defaults take about a minute (a 128-channel step at batch\n"
    "1024 takes several seconds there).",
    0, NULL,
};

static const cli_help bench_infer_help = {
    "bench infer",
    "gpuvet bench infer [--devices cpu,cuda] [--channels 128] [--batches 1,2,4,...] [options]",
    "Measures Drop7 inference as self-play runs it: per call, the positions in, the\n"
    "eval-mode forward and the logits and value out. Per device and batch size: latency\n"
    "median and p99 over every timed call, samples/s, memory; then from which batch the\n"
    "GPU answers sooner than the CPU. Timed runs go in rounds across the configurations.",
    0, NULL,
};

static const cli_help bench_matmul_help = {
    "bench matmul",
    "gpuvet bench matmul [--devices cpu,cuda] [--sizes 256,...,4096] [--dtype fp32,tf32,bf16]",
    "Measures square GEMM throughput (GFLOP/s = 2n^3/s) per device, dtype and size: one\n"
    "untimed run of each configuration, then timed runs of enough back-to-back GEMMs to\n"
    "last --min-time, in rounds across the configurations, each synchronised. Every result\n"
    "is spot-checked against long double dot products (a wrong result exits 1). The CPU\n"
    "runs fp32 only; tf32 and bf16 are skipped there (nothing to measure at all: exit 2).",
    0, NULL,
};

static void bytes(char *buf, size_t len, double b)
{
    if (!isfinite(b) || b <= 0)
        snprintf(buf, len, "-");
    else if (b >= 1 << 30)
        snprintf(buf, len, "%.2f GiB", b / (1 << 30));
    else
        snprintf(buf, len, "%.0f MiB", b / (1 << 20));
}

/* An entry's memory column (host bytes on the CPU, peak device bytes on a GPU) and its
 * speedup over the CPU ("-" on the CPU). */
static void mem_and_speedup(const cJSON *e, char *mem, size_t mlen, char *spd, size_t slen)
{
    int gpu = strcmp(gv_json_str(e, "device", ""), "cpu") != 0;
    bytes(mem, mlen, gpu ? gv_json_num(e, "peak_device_bytes") : gv_json_num(e, "host_bytes"));
    snprintf(spd, slen, "-");
    if (gpu && isfinite(gv_json_num(e, "speedup_vs_cpu")))
        snprintf(spd, slen, "%.2fx", gv_json_num(e, "speedup_vs_cpu"));
}

/* The table of bench infer's entries (the verdicts, per GPU series, come from the report). */
static void print_infer(const cJSON *rec, long blocks)
{
    printf("bench infer, blocks %ld: one call = positions in, eval-mode forward, logits and value out "
           "(memory: host bytes the CPU trainer holds, peak device bytes on a GPU)\n", blocks);
    printf("%-6s %-5s %-5s %8s %7s %7s %11s %11s %12s %10s %8s\n", "device", "dtype", "norm", "channels", "batch",
           "calls", "median ms", "p99 ms", "samples/s", "memory", "vs cpu");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_infer"))
    {
        char mem[32], spd[16];
        mem_and_speedup(e, mem, sizeof mem, spd, sizeof spd);
        printf("%-6s %-5s %-5s %8.0f %7.0f %7.0f %11.3f %11.3f %12.1f %10s %8s\n", gv_json_str(e, "device", ""),
               gv_json_str(e, "dtype", ""), gv_json_str(e, "norm", ""), gv_json_num(e, "channels"),
               gv_json_num(e, "batch"), gv_json_num(e, "latency_samples"), gv_json_num(e, "latency_ms_median"),
               gv_json_num(e, "latency_ms_p99"), gv_json_num(e, "samples_per_s_median"), mem, spd);
    }
}

/* bench train and bench infer: the same flags, different engines and tables. */
static int bench_nn(int argc, char **argv, int infer)
{
    const char *name = infer ? "bench infer" : "bench train";
    args_common com = {0};
    args_int_list chans = infer ? (args_int_list){1, {128}} : (args_int_list){2, {64, 128}};
    args_int_list batches = {2, {256, 1024}};
    if (infer) /* 1, 2, 4, ..., 4096 */
        for (batches.n = 0; batches.n < 13; batches.n++)
            batches.v[batches.n] = 1L << batches.n;
    args_str_list dtypes = {1, {"fp32"}}, norms = {1, {"group"}};
    long blocks = 6, repeats = 3, steps = 0, warmup = 1, threads = 0, seed = 1;
    int tf32 = 0;
    const char *conv = "winograd", *positions = "cells";
    double hz = 0, min_time = 0.2;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--channels", ARGS_INT_LIST, &chans, "LIST", infer ? "channel counts, multiples of 8 (default 128)"
         : "channel counts, multiples of 8 (default 64,128)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "residual blocks (default 6, as torch_drop7.py)", 0, 64, 0, 0, NULL},
        {"--batches", ARGS_INT_LIST, &batches, "LIST", infer ? "batch sizes (default 1,2,4,...,4096)"
         : "batch sizes (default 256,1024)", 1, 1 << 20, 0, 0, NULL},
        {"--norm", ARGS_CHOICE_LIST, &norms, "LIST", "group, batch (default group)", 0, 0, 0, 0, "group,batch"},
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, bf16 (bf16 on the GPU; default fp32)", 0, 0, 0, 0, "fp32,bf16"},
        {"--tf32", ARGS_FLAG, &tf32, NULL, "let fp32 use TF32 matrix units on the GPU", 0, 0, 0, 0, NULL},
        {"--repeats", ARGS_INT, &repeats, "N", "timed runs of each configuration, in rounds across them (default 3)", 1, 1000, 0, 0, NULL},
        {"--steps", ARGS_INT, &steps, "N", infer ? "inference calls per timed run (default: enough for --min-time)"
         : "training steps per timed run (default: enough for ~0.5 s)", 1, 100000, 0, 0, NULL},
        {"--warmup", ARGS_INT, &warmup, "N", "untimed warm-up steps first (default 1; 0 allowed; train only)", 0, 1000, 0, 0, NULL},
        {"--min-time", ARGS_DOUBLE, &min_time, "S", "seconds a timed run of inference calls lasts at least (default 0.2)",
         0, 0, 0.001, 60, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the weights and the batch (default 1)", 0, (1L << 62), 0, 0, NULL},
        ARGS_THREADS_SPEC(&threads),
        {"--cpu-conv", ARGS_CHOICE, &conv, "HOW", "the CPU's 3x3 convolutions: winograd (default) or im2col (the plain "
         "path)", 0, 0, 0, 0, "winograd,im2col"},
        {"--positions", ARGS_CHOICE, &positions, "FORM", "how the positions come in (infer only): cells (default: "
         "57 bytes each, a plane per cell and the two constants, as self-play gives them) or planes (float32, 2352 "
         "bytes each)", 0, 0, 0, 0, "cells,planes"},
    };
    dev_id devs[CLI_MAX_DEV];
    nn_bench_opts o = {.devs = devs};
    int code = cli_parse_devices(infer ? &bench_infer_help : &bench_train_help, specs, GV_ARRAY_LEN(specs), argc, argv, &com, devs, &o.ndev);
    if (code != CLI_GO)
        return code;
    for (int i = 0; i < dtypes.n; i++)
        nn_dtype_parse(dtypes.v[i], &o.dtypes[o.ndtypes++]);
    for (int i = 0; i < norms.n; i++)
        o.norms[o.nnorms++] = strcmp(norms.v[i], "batch") ? NN_NORM_GROUP : NN_NORM_BATCH;
    for (int i = 0; i < chans.n; i++)
        o.channels[o.nchannels++] = (int)chans.v[i];
    for (int i = 0; i < batches.n; i++)
        o.batches[o.nbatches++] = (int)batches.v[i];
    o.blocks = (int)blocks, o.repeats = (int)repeats, o.steps = steps, o.warmup = warmup, o.min_time = min_time;
    o.threads = (int)threads, o.tf32 = tf32, o.seed = (uint64_t)seed;
    nn_cpu_conv_parse(conv, &o.cpu_conv);
    nn_positions_parse(positions, &o.positions);
    cJSON *rec = cli_record_start(name, argc, argv, devs, o.ndev, hz, &o.tel);
    nn_bench_result r;
    gv_err err = {{0}};
    gv_status st = infer ? nn_bench_infer(&o, rec, &r, &err) : nn_bench_train(&o, rec, &r, &err);
    gv_telemetry_stop(o.tel, rec);
    if (st != GV_OK)
        return cli_finish(name, rec, cli_fail(name, st, &err), com.json);
    if (infer) {
        print_infer(rec, blocks);
    } else {
        printf("bench train, blocks %ld (memory: host bytes the CPU trainer holds, peak device bytes on a GPU)\n", blocks);
        printf("%-6s %-5s %-5s %8s %7s %6s %12s %12s %12s %9s %10s %8s\n", "device", "dtype", "norm", "channels",
               "batch", "steps", "best/s", "median/s", "min/s", "step ms", "memory", "vs cpu");
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_train"))
        {
            char mem[32], spd[16];
            mem_and_speedup(e, mem, sizeof mem, spd, sizeof spd);
            printf("%-6s %-5s %-5s %8.0f %7.0f %6.0f %12.1f %12.1f %12.1f %9.1f %10s %8s\n",
                   gv_json_str(e, "device", ""), gv_json_str(e, "dtype", ""), gv_json_str(e, "norm", ""),
                   gv_json_num(e, "channels"), gv_json_num(e, "batch"), gv_json_num(e, "steps"),
                   gv_json_num(e, "samples_per_s_best"), gv_json_num(e, "samples_per_s_median"),
                   gv_json_num(e, "samples_per_s_min"), gv_json_num(e, "step_ms_median"), mem, spd);
        }
    }
    if (r.skipped && !gv_quiet)
        printf("(%d device/dtype pair%s skipped: the CPU %s fp32, a GPU fp32 and bf16)\n", r.skipped,
               r.skipped > 1 ? "s" : "", infer ? "runs" : "trains");
    cli_load_line(rec);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    return cli_finish(name, rec, GV_EXIT_OK, com.json);
}

int cmd_bench_train(int argc, char **argv)
{
    return bench_nn(argc, argv, 0);
}

int cmd_bench_infer(int argc, char **argv)
{
    return bench_nn(argc, argv, 1);
}

int cmd_bench_matmul(int argc, char **argv)
{
    args_common com = {0};
    args_int_list sizes = {5, {256, 512, 1024, 2048, 4096}};
    args_str_list dtypes = {3, {"fp32", "tf32", "bf16"}};
    long repeats = 5, threads = 0;
    double min_time = 0.1, hz = 0;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--sizes", ARGS_INT_LIST, &sizes, "LIST", "square sizes (default 256,512,1024,2048,4096)", 1, 32768, 0, 0, NULL},
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, tf32, bf16 (default all; the CPU runs fp32)", 0, 0, 0, 0, "fp32,tf32,bf16"},
        {"--repeats", ARGS_INT, &repeats, "N", "timed runs of each configuration, in rounds across them (default 5)", 1, 1000, 0, 0, NULL},
        {"--min-time", ARGS_DOUBLE, &min_time, "S", "seconds per timed run at least (default 0.1)", 0, 0, 0, 60, NULL},
        {"--threads", ARGS_INT, &threads, "N", "CPU BLAS threads (default: all cores)", 0, 1024, 0, 0, NULL},
    };
    dev_id devs[CLI_MAX_DEV];
    gemm_bench_opts o = {.devs = devs};
    int code = cli_parse_devices(&bench_matmul_help, specs, GV_ARRAY_LEN(specs), argc, argv, &com, devs, &o.ndev);
    if (code != CLI_GO)
        return code;
    for (int i = 0; i < dtypes.n; i++)
        o.dtypes[o.ndtypes++] = !strcmp(dtypes.v[i], "bf16")   ? DEV_GEMM_BF16
                                : !strcmp(dtypes.v[i], "tf32") ? DEV_GEMM_TF32
                                                               : DEV_GEMM_FP32;
    for (int i = 0; i < sizes.n; i++)
        o.sizes[o.nsizes++] = (int)sizes.v[i];
    o.repeats = (int)repeats, o.threads = (int)threads, o.min_time = min_time;
    cJSON *rec = cli_record_start("bench matmul", argc, argv, devs, o.ndev, hz, &o.tel);
    gemm_bench_result r;
    gv_err err = {{0}};
    gv_status st = gemm_bench_run(&o, rec, &r, &err);
    gv_telemetry_stop(o.tel, rec);
    if (st != GV_OK)
        return cli_finish("bench matmul", rec, cli_fail("bench matmul", st, &err), com.json);
    printf("bench matmul (%d BLAS threads on the CPU); reps: GEMMs per timed run, GFLOP/s over all of them\n",
           threads > 0 ? (int)threads : gv_cpu_count());
    printf("%-6s %-5s %6s %6s %12s %12s %12s %10s %s\n", "device", "dtype", "size", "reps", "best GF/s", "median",
           "min", "check", "");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, "bench_matmul"))
        printf("%-6s %-5s %6.0f %6.0f %12.1f %12.1f %12.1f %10.1e %s\n", gv_json_str(e, "device", ""),
               gv_json_str(e, "dtype", ""), gv_json_num(e, "n"), gv_json_num(e, "reps"), gv_json_num(e, "gflops_best"),
               gv_json_num(e, "gflops_median"), gv_json_num(e, "gflops_min"), gv_json_num(e, "spot_check_rel_err"),
               cJSON_IsTrue(cJSON_GetObjectItem(e, "spot_check_pass")) ? "" : "WRONG RESULTS");
    if (r.skipped && !gv_quiet)
        printf("(%d device/dtype pair%s skipped: the CPU GEMM runs fp32 only)\n", r.skipped, r.skipped > 1 ? "s" : "");
    cli_load_line(rec);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    code = GV_EXIT_OK;
    if (r.wrong) {
        fprintf(stderr, "gpuvet bench matmul: %d configuration(s) gave wrong results (see the check column)\n", r.wrong);
        code = GV_EXIT_FAIL;
    }
    return cli_finish("bench matmul", rec, code, com.json);
}
