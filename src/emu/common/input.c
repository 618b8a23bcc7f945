/* input.c: input movies (see input.h). */
#include "emu/common/input.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hash.h"

/* The index of `name` (len bytes) in a space-separated list of names, in any case, or -1. */
static int name_index(const char *list, const char *name, size_t len)
{
    const char *p = list;
    for (int bit = 0; *p; bit++) {
        while (*p == ' ')
            p++;
        size_t k = strcspn(p, " ");
        if (k == len && !strncasecmp(p, name, len))
            return bit;
        p += k;
    }
    return -1;
}

gv_status emu_movie_parse(const char *text, size_t len, const char *name, const emu_console *con, emu_movie *m,
                          gv_err *err)
{
    memset(m, 0, sizeof *m);
    int cap = 0;
    size_t pos = 0;
    for (long line = 1; pos < len; line++) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        const char *s = text + pos, *e = text + end;
        pos = end + 1;
        while (s < e && isspace((unsigned char)*s))
            s++;
        if (s == e || *s == '#')
            continue;
        if (!isdigit((unsigned char)*s))
            goto bad_frame;
        uint64_t f = 0;
        const char *digits = s;
        while (s < e && isdigit((unsigned char)*s)) {
            if (f > (EMU_MOVIE_MAX_FRAME - (uint64_t)(*s - '0')) / 10) {
                while (s < e && isdigit((unsigned char)*s))
                    s++;
                emu_movie_free(m);
                return gv_fail(err, GV_ERR_INPUT, "%s:%ld: frame %.*s is beyond the last frame a run can reach (%llu)",
                               name, line, (int)(s - digits > 40 ? 40 : s - digits), digits,
                               (unsigned long long)EMU_MOVIE_MAX_FRAME);
            }
            f = f * 10 + (uint64_t)(*s++ - '0');
        }
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        if (s == e || *s != ':')
            goto bad_frame;
        s++;
        if (m->n && f <= m->ev[m->n - 1].frame) {
            gv_fail(err, GV_ERR_INPUT, "%s:%ld: frame %llu does not come after frame %llu", name, line,
                    (unsigned long long)f, (unsigned long long)m->ev[m->n - 1].frame);
            emu_movie_free(m);
            return GV_ERR_INPUT;
        }
        emu_buttons b = 0;
        int16_t axes[EMU_MAX_AXES] = {0};
        int joined = 0; /* a '+' was read: a button name must follow it */
        while (s < e) {
            while (s < e && (isspace((unsigned char)*s) || *s == '+')) {
                if (*s == '+' && (joined || !b)) {
                    emu_movie_free(m);
                    return gv_fail(err, GV_ERR_INPUT, "%s:%ld: '+' joins two button names (e.g. '120: A+B')", name, line);
                }
                joined |= *s++ == '+';
            }
            if (s == e || *s == '#') {
                if (joined) {
                    emu_movie_free(m);
                    return gv_fail(err, GV_ERR_INPUT, "%s:%ld: '+' joins two button names (e.g. '120: A+B')", name, line);
                }
                break;
            }
            joined = 0;
            const char *w = s;
            while (s < e && !isspace((unsigned char)*s) && *s != '+' && *s != '#' && *s != '=')
                s++;
            if (s < e && *s == '=') { /* NAME=VALUE: an analog axis */
                int ax = con->axes ? name_index(con->axes, w, (size_t)(s - w)) : -1;
                if (ax < 0 || ax >= EMU_MAX_AXES) {
                    emu_movie_free(m);
                    return gv_fail(err, GV_ERR_INPUT, "%s:%ld: '%.*s' is not a %s axis (%s)", name, line,
                                   (int)(s - w > 40 ? 40 : s - w), w, con->title,
                                   con->axes ? con->axes : "it has none");
                }
                const char *v = ++s;
                int neg = s < e && *s == '-', nd = 0;
                if (s < e && (*s == '-' || *s == '+'))
                    s++;
                long val = 0;
                for (; s < e && isdigit((unsigned char)*s); s++, nd++)
                    if (val <= 32768)
                        val = val * 10 + (*s - '0');
                if (!nd || (s < e && !isspace((unsigned char)*s) && *s != '#') || val > (neg ? 32768 : 32767)) {
                    while (s < e && !isspace((unsigned char)*s))
                        s++;
                    emu_movie_free(m);
                    return gv_fail(err, GV_ERR_INPUT, "%s:%ld: axis value '%.*s' is not an integer from -32768 to 32767",
                                   name, line, (int)(s - v > 40 ? 40 : s - v), v);
                }
                axes[ax] = (int16_t)(neg ? -val : val);
                continue;
            }
            int bit = name_index(con->buttons, w, (size_t)(s - w));
            if (bit < 0) {
                emu_movie_free(m);
                return gv_fail(err, GV_ERR_INPUT, "%s:%ld: '%.*s' is not a %s button (%s)", name, line,
                               (int)(s - w > 40 ? 40 : s - w), w, con->title, con->buttons);
            }
            b |= (emu_buttons)1 << bit;
        }
        if (m->n == EMU_MOVIE_MAX_EVENTS) {
            emu_movie_free(m);
            return gv_fail(err, GV_ERR_INPUT, "%s: more than %d events", name, EMU_MOVIE_MAX_EVENTS);
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            m->ev = gv_xrealloc(m->ev, (size_t)cap * sizeof *m->ev);
        }
        emu_input_event *ev = &m->ev[m->n++];
        ev->frame = f;
        ev->buttons = b;
        memcpy(ev->axes, axes, sizeof ev->axes);
        continue;
    bad_frame:
        emu_movie_free(m);
        return gv_fail(err, GV_ERR_INPUT, "%s:%ld: expected 'FRAME: BUTTONS' (FRAME a frame number, e.g. '120: Start')",
                       name, line);
    }
    m->hash = gv_hash64(text, len);
    return GV_OK;
}

gv_status emu_movie_load(const char *path, const emu_console *con, emu_movie *m, gv_err *err)
{
    uint8_t *d;
    size_t n;
    gv_status st = gv_read_file(path, (size_t)256 << 20, &d, &n, err);
    if (st != GV_OK)
        return st;
    st = emu_movie_parse((const char *)d, n, path, con, m, err);
    free(d);
    return st;
}

/* The last event at or before frame, or NULL. */
static const emu_input_event *event_at(const emu_movie *m, uint64_t frame)
{
    int lo = 0, hi = m->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->ev[mid].frame <= frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &m->ev[lo - 1] : NULL;
}

emu_buttons emu_movie_at(const emu_movie *m, uint64_t frame)
{
    const emu_input_event *ev = event_at(m, frame);
    return ev ? ev->buttons : 0;
}

void emu_movie_axes(const emu_movie *m, uint64_t frame, int16_t *out)
{
    const emu_input_event *ev = event_at(m, frame);
    for (int i = 0; i < EMU_MAX_AXES; i++)
        out[i] = ev ? ev->axes[i] : 0;
}

void emu_movie_free(emu_movie *m)
{
    free(m->ev);
    memset(m, 0, sizeof *m);
}
