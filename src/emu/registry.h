/* registry.h: the consoles gpuvet emulates (registry.c, the one place that names them all),
 * found by name or chosen for a ROM file. Whoever lists the consoles includes this header;
 * a console itself and the framework below it (emu/common) never do. */
#ifndef GV_EMU_REGISTRY_H
#define GV_EMU_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/common/console.h"

/* The consoles gpuvet emulates, NULL-terminated. */
extern const emu_console *const emu_consoles[];
const emu_console *emu_console_find(const char *name);

/* Picks the console of a ROM image: by header, then by the file name's extension.
 * NULL when neither decides; err then says what was seen and what to do. */
const emu_console *emu_console_detect(const uint8_t *data, size_t len, const char *path, gv_err *err);

/* Names of every console for messages: "nes, gb". */
const char *emu_console_names(void);

#endif
