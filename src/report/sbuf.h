/* sbuf.h: a growable string for building HTML, SVG and Markdown in memory. */
#ifndef GV_REPORT_SBUF_H
#define GV_REPORT_SBUF_H

#include <stddef.h>

typedef struct {
    char *s;
    size_t len, cap;
} rep_buf;

void rb_init(rep_buf *b);
void rb_free(rep_buf *b);
/* Appends formatted text (aborts on out of memory, like gv_xmalloc). */
void rb_printf(rep_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rb_puts(rep_buf *b, const char *s);
/* Appends s with &, <, >, " escaped for HTML and SVG text. */
void rb_html(rep_buf *b, const char *s);
/* Appends s with | and newlines escaped for a Markdown table cell. */
void rb_md(rep_buf *b, const char *s);
/* Hands the string over (caller frees); b is left empty. */
char *rb_take(rep_buf *b);

#endif
