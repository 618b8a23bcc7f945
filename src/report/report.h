/* report.h: views of a run record (docs/RECORD.md): plain-words verdicts per workload,
 * Markdown for terminals and issue trackers, a self-contained HTML page with inline SVG
 * plots (no scripts, no network), and the comparison of two records.
 *
 * Use from a benchmark or `gpuvet all`, after the bench_* arrays are filled:
 *     cJSON *v = report_add_verdicts(rec);     adds/updates rec.verdict, returns it (rec owns it)
 *     report_print_verdicts(rec, stdout);      "verdict: ..." lines
 *     report_write_html(rec, "r.html", &err);  report_write_markdown(rec, "r.md", &err); */
#ifndef GV_REPORT_REPORT_H
#define GV_REPORT_REPORT_H

#include <stdio.h>

#include <cJSON.h>

#include "core/gv.h"

/* Computes one sentence per workload from the bench_train, bench_matmul, bench_nes and
 * bench_gb entries present, and merges them into rec.verdict (sentences that are already
 * there are kept, so calling it twice adds nothing). "Use the GPU" is said only where the
 * median speedup exceeds the noise of both sides; the crossover batch/size/instance count
 * is named. Returns rec.verdict (owned by rec; an empty array when nothing to compare). */
cJSON *report_add_verdicts(cJSON *rec);
void report_print_verdicts(const cJSON *rec, FILE *f);

/* Whole documents as malloc'd strings (caller frees), and the same written atomically. */
char *report_html(const cJSON *rec);
char *report_markdown(const cJSON *rec);
gv_status report_write_html(const cJSON *rec, const char *path, gv_err *err);
gv_status report_write_markdown(const cJSON *rec, const char *path, gv_err *err);

/* What changed from record a to record b, as Markdown (caller frees): entries joined on
 * their configuration keys, a change marked only when it exceeds both sides' measured
 * noise. *marked (if not NULL) receives the number of marked changes. The JSON form is
 * added to out (if not NULL) as out.compare. */
char *report_compare(const cJSON *a, const cJSON *b, int *marked, cJSON *out);

#endif
