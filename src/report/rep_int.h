/* rep_int.h: helpers shared by the report's files: the noise of a measurement, the verdict
 * list, tables and the inline SVG plot. Not part of the report's interface. (A record's
 * fields are read with core/record.h's gv_json_num and gv_json_str.) */
#ifndef GV_REPORT_REP_INT_H
#define GV_REPORT_REP_INT_H

#include <cJSON.h>

#include "core/record.h"
#include "report/sbuf.h"

/* The relative spread of one measured figure (median with min/max, best, cv), used as its
 * noise: max((max - min) / median, 2 cv), at least 2%. kind: "train", "matmul", "emu". */
double rep_noise(const cJSON *entry, const char *kind);
/* The measured figure of an entry of that kind (samples/s, GFLOP/s, frames/s median). */
double rep_value(const cJSON *entry, const char *kind);

/* The CPU entry that a GPU entry of bench_train ("train": same channels, blocks, norm,
 * batch) or bench_matmul ("matmul": same m, n, k) compares with: the same dtype when
 * measured, else fp32. NULL when there is none. */
const cJSON *rep_cpu_match(const cJSON *arr, const cJSON *gpu_entry, const char *kind);
/* The GPU entry's median over that CPU entry's median (NAN when there is none). */
double rep_speedup(const cJSON *arr, const cJSON *gpu_entry, const char *kind);

/* ---- verdicts ----------------------------------------------------------------------------- */

/* Appends the sentence s to the verdict array v unless it is already there. */
void rep_add_sentence(cJSON *v, const char *s);
/* The sentences of the Drop7 records (verdict_drop7.c): bench_infer, bench_drop7, play,
 * selfplay and train_drop7, each from the record's own keys; appended to out. */
void rep_verdicts_drop7(const cJSON *rec, cJSON *out);

/* ---- tables shared by the HTML and Markdown views --------------------------------------- */

/* COL_BYTES: a byte count shown in MiB or GiB. */
typedef enum { COL_STR, COL_INT, COL_NUM, COL_PCT, COL_BOOL, COL_GIB, COL_X, COL_BYTES } rep_col_kind;
typedef struct {
    const char *head;
    const char *key;   /* a key of the entry, "a.b" for nested ones, "@sig.median" for the
                          entry's telemetry phase, "=speedup" for the computed GPU/CPU ratio,
                          "=memory" for peak_device_bytes else host_bytes, "=a/b" for the
                          entry's key a over its key b */
    rep_col_kind kind;
    double scale;      /* multiplies numbers (0 means 1) */
} rep_col;

/* Appends a table of arr's entries (HTML when html, else Markdown); arr may also be one
 * object, the table's one row. Columns that are empty in every row are left out. rec gives
 * the telemetry phases; kind names the bench kind for "=speedup" ("train", "matmul") or
 * NULL. */
void rep_table(rep_buf *b, int html, const cJSON *arr, const rep_col *cols, int ncols, const cJSON *rec, const char *kind);

/* Walks a dotted path ("telemetry.phases") from o; NULL when a step is missing. */
const cJSON *rep_path(const cJSON *o, const char *path);

/* The report's sections: (title, record key, columns, speedup kind). */
typedef struct {
    const char *title, *key;
    const rep_col *cols;
    int ncols;
    const char *kind;
} rep_section;
/* Every section, in report order (emulation: one per console); returns the count. */
int rep_sections(const rep_section **out);

/* ---- inline SVG plots ------------------------------------------------------------------- */

typedef struct {
    char name[96];
    int n;
    double *x, *y;   /* NAN y breaks the line */
    double *err;     /* NULL, or per point the half-width of a whisker around y */
} rep_series;

typedef struct {
    const char *title, *xlabel, *ylabel;
    int logx, logy;
    double hline;            /* a dashed reference line at this y (NAN: none) */
    const double *bands;     /* shaded x ranges [t0, t1] pairs (telemetry phases) */
    const char *const *band_labels;
    int nbands;
    const char *const *cats; /* ncats > 0: x is a category, point x = k + 1 is named cats[k];
                                points are drawn without lines between them */
    int ncats;
} rep_plot;

void rep_series_add(rep_series *s, double x, double y);
/* The same with a whisker of half-width e; a series uses either this or rep_series_add. */
void rep_series_add_err(rep_series *s, double x, double y, double e);
void rep_series_free(rep_series *s, int n);
/* Appends an <svg> element (width 600 x 320) to b. Series with no finite points are left out. */
void rep_svg_plot(rep_buf *b, const rep_plot *p, const rep_series *s, int ns);

#endif
