/* cmd_all.c: `gpuvet all`: flags, the engine all_run (src/app/all.c: every step in-process,
 * one line each), then the verdicts and the report (report.html, report.md, all.json). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/all.h"
#include "cli/cli.h"
#include "core/record.h"
#include "report/report.h"

static const cli_help all_help = {
    "all",
    "gpuvet all [--devices cpu,cuda] [--out DIR] [--json FILE] [--verbose]",
    "Probes the machine, brings the GPU up (smoke, when one is present), checks GEMM and the\n"
    "network against float64 (check), trains briefly (soak), measures training and GEMM\n"
    "throughput (bench train, bench matmul) and emulation on gpuvet's own NES and Game Boy\n"
    "ROMs, one line per step; then one combined record with a verdict per workload, rendered\n"
    "as report.html and report.md. About 90 s on a quiet 2-core CPU. Exit code: the worst of\n"
    "the steps' (0, 1 wrong results, 2 bad input, 3 environment).",
    0, NULL,
};

/* Creates path and its parents (like mkdir -p). */
static int mkdir_p(const char *path)
{
    char *buf = gv_xstrdup(path);
    int rc = 0;
    for (char *p = buf + 1; *p && !rc; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                rc = -1;
            *p = '/';
        }
    if (!rc && mkdir(buf, 0777) != 0 && errno != EEXIST)
        rc = -1;
    free(buf);
    return rc;
}

static void print_step(void *ctx, const all_step *s)
{
    printf("%-9s %s\n", s->step, s->line);
    fflush(stdout);
}

/* A path inside dir (malloc'd). */
static char *in_dir(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = gv_xmalloc(n);
    snprintf(p, n, "%s/%s", dir, file);
    return p;
}

int cmd_all(int argc, char **argv)
{
    args_common c = {0};
    const char *out = NULL;
    int verbose = 0;
    double hz = 0;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&c),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--out|-o", ARGS_STR, &out, "DIR", "folder for the records and the report (default runs/all-<UTC time>)", 0, 0, 0, 0, NULL},
        {"--verbose|-v", ARGS_FLAG, &verbose, NULL, "also print every step's own lines (every comparison of check, the probe)", 0, 0, 0, 0, NULL},
    };
    int code = cli_parse(&all_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &c.quiet);
    if (code != CLI_GO)
        return code;
    char ts[64], *dir;
    if (out) {
        dir = gv_xstrdup(out);
    } else {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(ts, sizeof ts, "runs/all-%Y%m%d-%H%M%S", &tm);
        dir = gv_xstrdup(ts);
    }
    gv_err err = {{0}};
    if (mkdir_p(dir) != 0) {
        snprintf(err.msg, sizeof err.msg, "cannot create the folder '%.300s': %s (choose another with --out)", dir,
                 strerror(errno));
        free(dir);
        return cli_fail("all", GV_ERR_ENV, &err);
    }
    dev_id devs[CLI_MAX_DEV];
    all_opts o = {devs, 0, dir, verbose, NULL};
    if ((code = cli_devices("all", c.devices, devs, &o.ndev))) {
        free(dir);
        return code;
    }
    cJSON *rec = cli_record_start("all", argc, argv, devs, o.ndev, hz, &o.tel);
    int worst;
    gv_status st = all_run(&o, rec, print_step, NULL, &worst, &err);
    gv_telemetry_stop(o.tel, rec);
    char *html = in_dir(dir, "report.html"), *md = in_dir(dir, "report.md"), *js = c.json ? gv_xstrdup(c.json) : in_dir(dir, "all.json");
    if (st == GV_OK) {
        report_add_verdicts(rec);
        printf("\n");
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rec, "warnings"))
            if (cJSON_IsString(w))
                printf("warning: %s\n", w->valuestring);
        report_print_verdicts(rec, stdout);
        gv_record_finish(rec, worst); /* the report shows when the run ended and how */
        st = report_write_html(rec, html, &err);
        if (st == GV_OK)
            st = report_write_markdown(rec, md, &err);
        if (st == GV_OK)
            st = gv_record_finish_write(rec, worst, js, &err);
    }
    if (st != GV_OK)
        code = cli_fail("all", st, &err);
    else {
        printf("record %s\nreport %s (Markdown: %s)\n", js, html, md);
        code = worst;
    }
    cJSON_Delete(rec);
    free(html), free(md), free(js), free(dir);
    return code;
}
