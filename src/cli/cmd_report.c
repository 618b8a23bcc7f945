/* cmd_report.c: `gpuvet report RUN.json` (HTML or Markdown view of a record, with the
 * verdicts) and `gpuvet compare A.json B.json` (what changed beyond the noise). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/record.h"
#include "report/report.h"

static const cli_help report_help = {
    "report",
    "gpuvet report RUN.json [-o report.html|report.md] [--json FILE|-]",
    "Renders a run record (written by --json) as a self-contained HTML page with SVG plots\n"
    "(throughput against batch size, GPU/CPU speedup, telemetry over time) and tables, or as\n"
    "Markdown for terminals and issue trackers. Verdicts per workload are computed from the\n"
    "benchmark entries and shown first.",
    1, "one record file (gpuvet report RUN.json)",
};

static const cli_help compare_help = {
    "compare",
    "gpuvet compare A.json B.json [--json FILE]",
    "Shows what changed from record A to record B: entries joined on their configuration\n"
    "(device, dtype, channels, batch, ...), the change of the median, and a mark only where the\n"
    "change is larger than the measured noise of both runs. Also lists changed software and\n"
    "machine facts (BLAS, driver, kernel) and checks whose pass/fail changed. Exit 0.",
    2, "two record files (gpuvet compare A.json B.json)",
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int cmd_report(int argc, char **argv)
{
    const char *out = NULL, *format = NULL, *json = NULL;
    int quiet = 0;
    args_spec specs[] = {
        {"--output|-o", ARGS_STR, &out, "FILE", "write the report to FILE (.html: HTML, .md: Markdown); default: Markdown on stdout", 0, 0, 0, 0, NULL},
        {"--format", ARGS_CHOICE, &format, "FMT", "html or md (default: from the file name, else md)", 0, 0, 0, 0, "html,md"},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "do not print the verdicts when writing a file", 0, 0, 0, 0, NULL},
        {"--json", ARGS_STR, &json, "FILE", "write the verdicts as a JSON record to FILE ('-': standard output)", 0, 0, 0, 0, NULL},
    };
    const char *pos[1];
    int code = cli_parse(&report_help, specs, GV_ARRAY_LEN(specs), argc, argv, pos, &quiet);
    if (code != CLI_GO)
        return code;
    gv_err e = {{0}};
    cJSON *rec;
    gv_status s = gv_record_load(pos[0], &rec, &e);
    if (s != GV_OK)
        return cli_fail("report", GV_ERR_INPUT, &e); /* any unreadable record is bad input (exit 2) */
    const cJSON *verdict = report_add_verdicts(rec);
    int html = format ? !strcmp(format, "html") : out && (ends_with(out, ".html") || ends_with(out, ".htm"));
    if (!out) {
        char *doc = html ? report_html(rec) : report_markdown(rec);
        fputs(doc, stdout);
        free(doc);
    } else {
        s = html ? report_write_html(rec, out, &e) : report_write_markdown(rec, out, &e);
        if (s != GV_OK)
            cli_fail("report", s, &e);
        else if (!quiet) {
            report_print_verdicts(rec, stdout);
            printf("report: wrote %s\n", out);
        }
    }
    code = gv_status_exit(s);
    if (json) { /* the verdicts of the record, named by its path */
        cJSON *vr = gv_record_new("report", argc, argv);
        cJSON_AddStringToObject(vr, "source", pos[0]);
        cJSON_AddItemToObject(vr, "verdict", cJSON_Duplicate(verdict, 1));
        code = cli_finish("report", vr, code, json);
    }
    cJSON_Delete(rec);
    return code;
}

int cmd_compare(int argc, char **argv)
{
    const char *json = NULL;
    int quiet = 0;
    args_spec specs[] = {
        {"--json", ARGS_STR, &json, "FILE", "write the comparison as a JSON record to FILE", 0, 0, 0, 0, NULL},
        {"--quiet|-q", ARGS_FLAG, &quiet, NULL, "print only the count of marked changes", 0, 0, 0, 0, NULL},
    };
    const char *pos[2];
    int code = cli_parse(&compare_help, specs, GV_ARRAY_LEN(specs), argc, argv, pos, &quiet);
    if (code != CLI_GO)
        return code;
    gv_err e = {{0}};
    cJSON *a = NULL, *b = NULL;
    gv_status s = gv_record_load(pos[0], &a, &e);
    if (s == GV_OK)
        s = gv_record_load(pos[1], &b, &e);
    if (s != GV_OK) {
        cJSON_Delete(a);
        return cli_fail("compare", GV_ERR_INPUT, &e);
    }
    cJSON *rec = json ? gv_record_new("compare", argc, argv) : NULL;
    int marked = 0;
    char *md = report_compare(a, b, &marked, rec);
    if (quiet)
        printf("%d change%s beyond the noise\n", marked, marked == 1 ? "" : "s");
    else
        fputs(md, stdout);
    free(md);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return cli_finish("compare", rec, GV_EXIT_OK, json);
}
