/* cmd_sys.c: `gpuvet probe`, `gpuvet env` and `gpuvet blas-race`: what this machine is, the
 * environment it should use, and whether its multithreaded BLAS computes correctly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/record.h"
#include "dev/dev.h"
#include "sys/blas_race.h"
#include "sys/envadv.h"
#include "sys/probe.h"
#include "sys/telemetry.h"

static const cli_help probe_help = {
    "probe",
    "gpuvet probe [--json FILE|-] [--sysroot DIR]",
    "Describes this machine: CPU (governor, energy preference), memory, kernel, BLAS, each GPU\n"
    "(architecture, driver and runtime, memory pool), device-node permissions, driver\n"
    "libraries and environment pitfalls. Fields that do not apply are null with a reason\n"
    "(schema: docs/PROBE.md). Exit 0 even with warnings; they are listed at the end.",
    0, NULL,
};

static const cli_help env_help = {
    "env",
    "gpuvet env [--check] [--json FILE|-]",
    "Prints the environment settings this machine should use as shell lines with a comment\n"
    "each (BLAS/OpenMP threads, the GPU kernel cache, allocator settings, the library path\n"
    "when a vendor runtime found first is a broken copy). Use: eval \"$(gpuvet env)\".\n"
    "--check reports the settings that differ from the current environment (-q: only their\n"
    "count).",
    0, NULL,
};

static const cli_help blas_race_help = {
    "blas-race",
    "gpuvet blas-race [--sizes LIST] [--runs N] [--threads N] [--devices cpu|cuda]",
    "Runs a multithreaded SGEMM many times on fixed random inputs and compares every run with\n"
    "a float64 reference (rigorous float32 error bound) and with single-threaded runs. Control\n"
    "arms: the same GEMM on one thread, and gpuvet's own naive GEMM. Exit 1 when a run is wrong.",
    0, NULL,
};

/* --sysroot names a folder that exists (else the probe of nothing would look like a machine
 * without anything); 0, or the exit code after the error line. */
static int sysroot_ok(const char *cmd, const char *root)
{
    struct stat st;
    if (!root || (stat(root, &st) == 0 && S_ISDIR(st.st_mode)))
        return 0;
    fprintf(stderr, "gpuvet %s: --sysroot %s: %s\n", cmd, root, errno ? strerror(errno) : "not a folder");
    return GV_EXIT_USAGE;
}

int cmd_probe(int argc, char **argv)
{
    const char *json = NULL, *root = NULL;
    int quiet = 0, json_stdout = 0;
    args_spec specs[] = {
        {"--json", ARGS_STR, &json, "FILE", "write the run record (the probe under host.probe) to FILE; '-': to standard output", 0, 0, 0, 0, NULL},
        {"--sysroot", ARGS_STR, &root, "DIR", "read /sys, /proc, /dev, /etc and /opt below DIR (a copy of another machine's)", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "print only warnings", 0, 0, 0, 0, NULL},
    };
    int code = cli_parse(&probe_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &quiet);
    if (code != CLI_GO)
        return code;
    if ((code = sysroot_ok("probe", root)))
        return code;
    json_stdout = json && !strcmp(json, "-");
    cJSON *p = sys_probe_json(root);
    if (json_stdout) {
        /* the record alone on standard output */
    } else if (!quiet) {
        sys_probe_print(p, stdout);
    } else {
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(p, "warnings"))
            printf("WARNING  %s\n", w->valuestring);
    }
    cJSON *rec = gv_record_new("probe", argc, argv);
    cJSON_AddItemToObject(cJSON_GetObjectItem(rec, "host"), "probe", p);
    return cli_finish("probe", rec, GV_EXIT_OK, json);
}

int cmd_env(int argc, char **argv)
{
    int check = 0, quiet = 0;
    const char *root = NULL, *json = NULL;
    args_spec specs[] = {
        {"--check", ARGS_FLAG, &check, NULL, "compare the current environment with the advice; exit 1 when a setting differs", 0, 0, 0, 0, NULL},
        {"--sysroot", ARGS_STR, &root, "DIR", "probe below DIR instead of / (tests)", 0, 0, 0, 0, NULL},
        ARGS_OUTPUT_SPECS(&json, &quiet),
    };
    int code = cli_parse(&env_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &quiet);
    if (code != CLI_GO)
        return code;
    if ((code = sysroot_ok("env", root)))
        return code;
    cJSON *p = sys_probe_json(root);
    sys_env_setting s[SYS_ENV_MAX];
    int n = sys_env_advice(p, NULL, s, SYS_ENV_MAX);
    cJSON_Delete(p);
    cJSON *rec = gv_record_new("env", argc, argv);
    cJSON *arr = gv_json_add_arr(rec, "env");
    for (int i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", s[i].name);
        if (s[i].unset)
            cJSON_AddNullToObject(e, "value");
        else
            cJSON_AddStringToObject(e, "value", s[i].value);
        cJSON_AddStringToObject(e, "comment", s[i].comment);
        cJSON_AddItemToArray(arr, e);
    }
    if (!check) {
        sys_env_print(s, n, stdout);
        return cli_finish("env", rec, GV_EXIT_OK, json);
    }
    FILE *devnull = quiet ? fopen("/dev/null", "w") : NULL;
    int differ = sys_env_check(s, n, NULL, devnull ? devnull : stdout);
    if (devnull)
        fclose(devnull);
    printf("%d of %d settings differ%s\n", differ, n, differ ? ": eval \"$(gpuvet env)\" applies them" : "");
    gv_json_add_num(rec, "settings_differ", differ);
    return cli_finish("env", rec, differ ? GV_EXIT_FAIL : GV_EXIT_OK, json);
}

int cmd_blas_race(int argc, char **argv)
{
    args_int_list sizes = {3, {97, 256, 515}};
    long runs = 100, threads = 0, seed = 1234;
    const char *json = NULL, *device = "cpu";
    int quiet = 0;
    double hz = 0;
    args_spec specs[] = {
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--sizes", ARGS_INT_LIST, &sizes, "LIST", "square GEMM sizes to try (default 97,256,515)", 1, 4096, 0, 0, NULL},
        {"--runs", ARGS_INT, &runs, "N", "multithreaded runs per size (default 100)", 1, 100000, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "threads of the arm under test (default: all usable CPUs, at least 2)", 2, 1024, 0, 0, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the fixed random inputs (default 1234)", 0, 1L << 40, 0, 0, NULL},
        {"--devices", ARGS_STR, &device, "DEV", "the one GEMM to test: cpu (default) or the GPU (cuda); the control arm is then the CPU on one thread", 0, 0, 0, 0, NULL},
        ARGS_OUTPUT_SPECS(&json, &quiet),
    };
    int code = cli_parse(&blas_race_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &quiet);
    if (code != CLI_GO)
        return code;
    gv_err e = {{0}};
    dev_id devs[CLI_MAX_DEV], cpu = {DEV_CPU, 0, "cpu"};
    int ndev = 0;
    if ((code = cli_devices("blas-race", device, devs, &ndev)))
        return code;
    if (ndev != 1)
        return cli_fail("blas-race", gv_fail(&e, GV_ERR_INPUT, "--devices: give exactly one device (got '%s')", device), &e);
    if (threads == 0)
        threads = GV_MAX(2, gv_cpu_count());
    dev_blas_info bi;
    dev_blas_query(&bi);
    cJSON *rec = gv_record_new("blas-race", argc, argv);
    cJSON *arr = gv_json_add_arr(rec, "blas_race");
    int wrong = 0, single_wrong = 0, ref_bad = 0;
    gv_info("blas-race: %s %s (core %s) on %s, %ld threads, %ld runs per size\n", bi.name, bi.version, bi.core,
            devs[0].label, threads, runs);
    gv_info("%-16s %6s %7s %9s %12s %11s %10s %9s %8s\n", "size", "runs", "wrong", "worst-frac", "worst-err", "err/bound",
            "!=1thread", "1t-wrong", "ref-ok");
    gv_telemetry *tel = cli_telemetry(devs, 1, hz);
    for (int i = 0; i < sizes.n; i++) {
        blas_race_opts o = {(int)sizes.v[i], (int)sizes.v[i], (int)sizes.v[i], (int)runs, (int)threads, (uint64_t)seed + (uint64_t)i,
                            blas_race_dev_gemm, &devs[0], devs[0].kind == DEV_GPU ? blas_race_dev_gemm : NULL, &cpu};
        blas_race_result r;
        char sz[32];
        snprintf(sz, sizeof sz, "%dx%dx%d", o.M, o.N, o.K);
        char label[64];
        snprintf(label, sizeof label, "blas-race %s %s", devs[0].label, sz);
        gv_telemetry_phase_begin(tel, label);
        gv_status st = blas_race_run(&o, &r, &e);
        gv_telemetry_phase_end(tel, (double)r.runs);
        if (st != GV_OK) {
            gv_telemetry_stop(tel, NULL);
            cJSON_Delete(rec);
            return cli_fail("blas-race", st, &e);
        }
        gv_info("%-16s %6d %7d %9.2g %12.3g %11.3g %10d %9d %8s\n", sz, r.runs, r.wrong_runs, r.worst_wrong_fraction,
                r.worst_abs_err, r.worst_bound_ratio, r.differs_from_single_runs, r.single_wrong_runs, r.ref_wrong ? "NO" : "yes");
        wrong += r.wrong_runs;
        single_wrong += r.single_wrong_runs;
        ref_bad += r.ref_wrong;
        cJSON *entry = blas_race_json(&o, &r);
        cJSON_AddStringToObject(entry, "telemetry_phase", label);
        cJSON_AddItemToArray(arr, entry);
        if (!quiet) {
            char line[256];
            gv_telemetry_last_phase_line(tel, line, sizeof line);
            gv_info("%-16s telemetry: %s\n", "", line);
        }
    }
    gv_telemetry_stop(tel, rec);
    char verdict[1024];
    if (ref_bad)
        snprintf(verdict, sizeof verdict, "gpuvet's own reference GEMM failed the error bound: the detector is miscalibrated (report this as a gpuvet bug)");
    else if (wrong && !single_wrong)
        snprintf(verdict, sizeof verdict,
                 "WRONG RESULTS: %d multithreaded runs of %s %s were wrong while the single-threaded runs were right. "
                 "Set OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1) until you upgrade %s past %s; if it persists, "
                 "force another kernel with OPENBLAS_CORETYPE (this one uses %s)", wrong, bi.name, bi.version, bi.name,
                 bi.version, bi.core);
    else if (wrong)
        snprintf(verdict, sizeof verdict,
                 "WRONG RESULTS: %d multithreaded and %d single-threaded runs were wrong: the GEMM is broken regardless of "
                 "threads; try OPENBLAS_CORETYPE=Haswell (this one uses %s) or another %s version than %s", wrong, single_wrong,
                 bi.core, bi.name, bi.version);
    else
        snprintf(verdict, sizeof verdict, "no wrong results: every run of %s %s on %s was within the float32 error bound",
                 bi.name, bi.version, devs[0].label);
    cJSON *v = gv_json_add_arr(rec, "verdict");
    cJSON_AddItemToArray(v, cJSON_CreateString(verdict));
    printf("%s\n", verdict);
    return cli_finish("blas-race", rec, wrong || ref_bad ? GV_EXIT_FAIL : GV_EXIT_OK, json);
}
