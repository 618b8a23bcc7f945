/* cmd_all.c: `gpuvet all`: the whole story of a machine in about two minutes on two CPU
 * cores: probe, smoke (when a GPU is present), check, a short soak, the training and GEMM
 * benchmarks, then one combined record with verdicts, rendered as HTML and Markdown.
 * Each step is the ordinary subcommand with small sizes; its own record is kept beside the
 * combined one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "core/record.h"
#include "dev/dev.h"
#include "report/report.h"
#include "sys/probe.h"

typedef struct {
    const char *name;          /* step name, also the record file name */
    int (*fn)(int, char **);
    const char *args[24];      /* the subcommand's arguments (NULL-terminated) */
} step;

static int mkdir_p(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Runs one step with --json DIR/NAME.json (and --devices when given); returns its exit code. */
static int run_step(const step *s, const char *dir, const char *devices, int quiet, char *json_path, size_t jlen)
{
    char *argv[32];
    int argc = 0;
    for (int i = 0; s->args[i] && argc < 24; i++)
        argv[argc++] = (char *)s->args[i];
    snprintf(json_path, jlen, "%s/%s.json", dir, s->name);
    argv[argc++] = "--json";
    argv[argc++] = json_path;
    if (devices) {
        argv[argc++] = "--devices";
        argv[argc++] = (char *)devices;
    }
    if (quiet)
        argv[argc++] = "--quiet";
    argv[argc] = NULL;
    fflush(stdout);
    return s->fn(argc, argv);
}

/* Moves rec[key] of the sub-record at path into the combined record (as key `as`). */
static void take(cJSON *all, const char *path, const char *key, const char *as)
{
    cJSON *sub = NULL;
    gv_err e;
    if (gv_record_load(path, &sub, &e) != GV_OK)
        return;
    cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(sub, key);
    if (item) {
        cJSON_DeleteItemFromObjectCaseSensitive(all, as);
        cJSON_AddItemToObject(all, as, item);
    }
    cJSON_Delete(sub);
}

int cmd_all(int argc, char **argv)
{
    args_common c = {0};
    const char *out = NULL;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&c),
        {"--out|-o", ARGS_STR, &out, "DIR", "folder for the records and the report (default runs/all-<UTC time>)", 0, 0, 0, 0, NULL},
    };
    int code;
    if (!cli_parse("all", "gpuvet all [--devices cpu,cuda] [--out DIR] [--json FILE]",
                   "Probes the machine, brings the GPU up (smoke, when one is present), checks GEMM and\n"
                   "the network against float64 (check), trains briefly (soak), measures training and\n"
                   "GEMM throughput (bench train, bench matmul), and writes one combined record with a\n"
                   "verdict per workload, rendered as report.html and report.md. Sized for about two\n"
                   "minutes on a 2-core CPU. Exit code: the worst of the steps' (0, 1 wrong results,\n"
                   "2 bad input, 3 environment).",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, NULL, 0, NULL, &c.quiet, &code))
        return code;

    char dir[400];
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        char ts[32];
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, sizeof dir, "runs/all-%s", ts);
    }
    if (mkdir_p(dir) != 0) {
        gv_error("all: cannot create the folder '%s': %s (choose another with --out)", dir, strerror(errno));
        return GV_EXIT_ENV;
    }

    /* Which devices: as given, else the CPU plus the GPU when one is present. */
    dev_id devs[8];
    int ndev = 0;
    gv_err e;
    gv_status ds = dev_parse_list(c.devices, devs, 8, &ndev, &e);
    if (ds != GV_OK) {
        gv_error("all: %s", e.msg);
        return gv_status_exit(ds);
    }
    int gpu = 0;
    for (int i = 0; i < ndev; i++)
        gpu |= devs[i].kind == DEV_GPU;
    char devices[128] = "";
    for (int i = 0; i < ndev; i++)
        snprintf(devices + strlen(devices), sizeof devices - strlen(devices), "%s%s", i ? "," : "", devs[i].label);

    cJSON *all = gv_record_new("all", argc, argv);
    cJSON *probe = sys_probe_json(NULL);
    printf("== 1/7 probe\n");
    sys_probe_print(probe, stdout);
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(all, "host"), "probe", probe);
    printf("\n");

    /* On a GPU the benchmarks also measure bf16 and the larger batches where it pays. */
    const char *dtypes = gpu ? "fp32,bf16" : "fp32";
    const char *batches = gpu ? "256,1024,4096" : "256,1024";
    step steps[] = {
        {"smoke", cmd_smoke, {NULL}},
        {"check", cmd_check, {"--gemm-size", "2048", "--dtype", dtypes, NULL}},
        {"soak", cmd_soak, {"--channels", "32", "--blocks", "2", "--batch", "64", "--steps", "60", "--min-drop", "3", NULL}},
        {"bench_train", cmd_bench_train,
         {"--channels", "64", "--blocks", "6", "--batches", batches, "--dtype", dtypes, "--repeats", "3", NULL}},
        {"bench_matmul", cmd_bench_matmul, {"--sizes", "256,1024,2048", NULL}},
    };
    int worst = GV_EXIT_OK, n = (int)GV_ARRAY_LEN(steps);
    char path[512];
    for (int i = 0; i < n; i++) {
        const step *s = &steps[i];
        printf("== %d/7 %s\n", i + 2, s->name);
        if (s->fn == cmd_smoke && !gpu) {
            printf("skipped: no GPU in --devices (%s)\n\n", devices);
            continue;
        }
        /* smoke takes GPU entries only; the others every device */
        int rc = run_step(s, dir, s->fn == cmd_smoke ? NULL : devices, c.quiet, path, sizeof path);
        if (rc > worst)
            worst = rc;
        if (rc != GV_EXIT_OK)
            printf("(%s exited with %d)\n", s->name, rc);
        printf("\n");
        if (s->fn == cmd_smoke)
            take(all, path, "smoke", "smoke");
        else if (s->fn == cmd_check)
            take(all, path, "check", "check");
        else if (s->fn == cmd_soak)
            take(all, path, "soak", "soak");
        else if (s->fn == cmd_bench_train) {
            take(all, path, "bench_train", "bench_train");
            take(all, path, "telemetry", "telemetry");
        } else if (s->fn == cmd_bench_matmul) {
            take(all, path, "bench_matmul", "bench_matmul");
            take(all, path, "telemetry", "telemetry_matmul");
        }
    }

    printf("== 7/7 report\n");
    report_add_verdicts(all);
    report_print_verdicts(all, stdout);
    char html[512], md[512], js[512];
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    snprintf(js, sizeof js, "%s/all.json", dir);
    gv_record_finish(all, worst); /* the report shows when the run ended and how */
    gv_status st = report_write_html(all, html, &e);
    if (st == GV_OK)
        st = report_write_markdown(all, md, &e);
    if (st == GV_OK)
        st = gv_record_finish_write(all, worst, c.json ? c.json : js, &e);
    if (st != GV_OK) {
        gv_error("all: %s", e.msg);
        cJSON_Delete(all);
        return GV_EXIT_ENV;
    }
    printf("record %s\nreport %s (Markdown: %s)\n", c.json ? c.json : js, html, md);
    cJSON_Delete(all);
    return worst;
}
