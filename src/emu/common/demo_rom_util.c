/* demo_rom_util.c: unpacking the built-in demo ROMs (zlib). */
#include <stdlib.h>
#include <zlib.h>

#include "emu/common/demo_roms.h"

gv_status emu_demo_rom_bytes(const emu_demo_rom *r, uint8_t **data, gv_err *err)
{
    *data = malloc(r->len);
    if (!*data)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    uLongf n = (uLongf)r->len;
    if (uncompress(*data, &n, r->z, (uLong)r->zlen) != Z_OK || n != r->len) {
        free(*data);
        *data = NULL;
        return gv_fail(err, GV_ERR_ENV, "the built-in ROM %s does not unpack (a damaged binary?)", r->name);
    }
    return GV_OK;
}

gv_status emu_demo_rom_write(const emu_demo_rom *r, const char *path, gv_err *err)
{
    uint8_t *d;
    gv_status st = emu_demo_rom_bytes(r, &d, err);
    if (st == GV_OK) {
        st = gv_write_file_atomic(path, d, r->len, err);
        free(d);
    }
    return st;
}
