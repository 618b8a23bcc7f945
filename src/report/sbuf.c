/* sbuf.c: the growable string of sbuf.h. */
#include "report/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"

void rb_init(rep_buf *b)
{
    b->cap = 4096;
    b->len = 0;
    b->s = gv_xmalloc(b->cap);
    b->s[0] = 0;
}

void rb_free(rep_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

static void reserve(rep_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    while (b->len + extra + 1 > b->cap)
        b->cap *= 2;
    b->s = gv_xrealloc(b->s, b->cap);
}

void rb_printf(rep_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void rb_puts(rep_buf *b, const char *s)
{
    size_t n = strlen(s);
    reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void rb_html(rep_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': rb_puts(b, "&amp;"); break;
        case '<': rb_puts(b, "&lt;"); break;
        case '>': rb_puts(b, "&gt;"); break;
        case '"': rb_puts(b, "&quot;"); break;
        default: {
            char c[2] = {*s, 0};
            rb_puts(b, c);
        }
        }
    }
}

void rb_md(rep_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            rb_puts(b, "\\|");
        else if (*s == '\n')
            rb_puts(b, " ");
        else {
            char c[2] = {*s, 0};
            rb_puts(b, c);
        }
    }
}

char *rb_take(rep_buf *b)
{
    char *s = b->s;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}
