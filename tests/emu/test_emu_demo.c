/* test_emu_demo.c: the ROMs built into gpuvet for `gpuvet all` (src/emu/common/demo_roms.c)
 * are byte for byte the ROMs the test suite builds from tests/roms/ (regenerate with
 * scripts/embed-roms.py when a ROM source changes). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/common/demo_roms.h"
#include "nes/nes_test.h"

int main(void)
{
    const char *b = getenv("GV_BUILD"), *root = getenv("GV_ROOT");
    int gb_built = -1;
    for (const emu_demo_rom *r = emu_demo_roms; r->name; r++) {
        char path[1024], name[96];
        snprintf(name, sizeof name, "demo rom %s", r->name);
        if (!strcmp(r->console, "nes")) {
            char base[64];
            snprintf(base, sizeof base, "%.*s", (int)(strlen(r->name) - 4), r->name);
            const char *p = nes_rom(base);
            if (!p)
                continue;
            snprintf(path, sizeof path, "%s", p);
        } else {
            if (gb_built < 0) {
                char cmd[2048];
                snprintf(cmd, sizeof cmd, "command -v sdcc >/dev/null && sh '%s/tests/roms/gb/build.sh' '%s/roms/gb' >/dev/null 2>&1",
                         root, b);
                gb_built = system(cmd) == 0;
            }
            if (!gb_built) {
                t_skip(name, "the Game Boy test ROMs cannot be built here (sdcc and python3 are needed)");
                continue;
            }
            snprintf(path, sizeof path, "%s/roms/gb/%s", b, r->name);
        }
        size_t len = 0;
        uint8_t *built = nes_slurp(path, &len), *emb = NULL;
        gv_err e;
        gv_status st = emu_demo_rom_bytes(r, &emb, &e);
        t_check(built && st == GV_OK && len == r->len && !memcmp(built, emb, len), name,
                "%zu bytes embedded (%zu compressed) == %s (%zu bytes)%s", r->len, r->zlen, path, len,
                built && st == GV_OK && len == r->len && !memcmp(built, emb, len) ? ""
                : "; regenerate: python3 scripts/embed-roms.py src/emu/common/demo_roms.c ROMS...");
        free(built);
        free(emb);
    }
    return t_done();
}
