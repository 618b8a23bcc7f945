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
    dev_id devs[CLI_MAX_DEV];
    int ndev = 0;
    if ((code = cli_devices("blas-race", device, devs, &ndev)))
        return code;
    if (ndev != 1)
        return cli_fail("blas-race", gv_fail(&e, GV_ERR_INPUT, "--devices: give exactly one device (got '%s')", device), &e);
    if (threads == 0)
        threads = GV_MAX(2, gv_cpu_count());
    cJSON *rec = gv_record_new("blas-race", argc, argv);
    gv_telemetry *tel = cli_telemetry(devs, 1, hz);
    int wrong = 0;
    gv_status st = blas_race_sweep(&devs[0], sizes.v, sizes.n, (int)runs, (int)threads, (uint64_t)seed, tel, rec, &wrong, &e);
    gv_telemetry_stop(tel, st == GV_OK ? rec : NULL);
    if (st != GV_OK) {
        cJSON_Delete(rec);
        return cli_fail("blas-race", st, &e);
    }
    return cli_finish("blas-race", rec, wrong ? GV_EXIT_FAIL : GV_EXIT_OK, json);
}
