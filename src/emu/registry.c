/* registry.c: the list of consoles, the one place that names every console, and the choice
 * of a console for a ROM file (by header, then by extension). */
#include "emu/registry.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "emu/gb/gb.h"
#include "emu/nes/nes.h"
#include "emu/snes/snes.h"

const emu_console *const emu_consoles[] = {&nes_console, &snes_console, &gb_console, NULL};

const emu_console *emu_console_find(const char *name)
{
    for (int i = 0; emu_consoles[i]; i++)
        if (!strcmp(emu_consoles[i]->name, name))
            return emu_consoles[i];
    return NULL;
}

const char *emu_console_names(void)
{
    static char buf[128];
    if (!buf[0])
        for (int i = 0; emu_consoles[i]; i++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", emu_consoles[i]->name);
    return buf;
}

/* Is ext (".gb") one of the comma-separated extensions in list? */
static int ext_in(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && !strncasecmp(p, ext, n))
            return 1;
        p += k + (e != NULL);
    }
    return 0;
}

const emu_console *emu_console_detect(const uint8_t *data, size_t len, const char *path, gv_err *err)
{
    for (int i = 0; emu_consoles[i]; i++)
        if (emu_consoles[i]->detect(data, len))
            return emu_consoles[i];
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (int i = 0; emu_consoles[i]; i++)
            if (ext_in(emu_consoles[i]->exts, dot))
                return emu_consoles[i];
    char titles[128] = "", exts[128] = "";
    for (int i = 0; emu_consoles[i]; i++) {
        snprintf(titles + strlen(titles), sizeof titles - strlen(titles), "%s%s", i ? " or " : "", emu_consoles[i]->title);
        snprintf(exts + strlen(exts), sizeof exts - strlen(exts), "%s%s", i ? "," : "", emu_consoles[i]->exts);
    }
    gv_fail(err, GV_ERR_INPUT,
            "%s: not a ROM gpuvet knows (no %s header, and the extension is none of %s); name the console: "
            "gpuvet run CONSOLE ROM with CONSOLE one of %s",
            path, titles, exts, emu_console_names());
    return NULL;
}
