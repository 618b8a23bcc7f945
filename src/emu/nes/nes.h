/* nes.h: the NES (2A03 CPU + APU, 2C02 PPU, cartridges on the boards listed in nes_board.c;
 * NTSC, PAL and Dendy timing: nes_int.h's nes_timing) as the rest of gpuvet sees it: the
 * cartridge, and the machine behind the console interface (nes_console,
 * emu/common/console.h). The machine's struct and its units' functions are private to
 * src/emu/nes/ (nes_int.h). The core is the timing side: it runs the CPU and everything the
 * CPU can observe; pictures and sound are drawn natively inside the core when asked, or
 * from the frame log it emits (nes_framelog.h) by the host and device renderers. */
#ifndef GV_EMU_NES_NES_H
#define GV_EMU_NES_NES_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/common/console.h"
#include "emu/nes/nes_audio.h"

/* ---- cartridge (nes_cart.c) --------------------------------------------------------- */

#define NES_CHR_PAD 1024
enum { NES_MIRROR_H = 0, NES_MIRROR_V = 1, NES_MIRROR_4 = 2, NES_MIRROR_1A = 3, NES_MIRROR_1B = 4 };
/* The header's CPU/PPU timing (NES 2.0 byte 12): NTSC, PAL, multiple-region, Dendy. */
enum { NES_TIMING_NTSC = 0, NES_TIMING_PAL = 1, NES_TIMING_MULTI = 2, NES_TIMING_DENDY = 3 };

/* A parsed ROM image. prg/chr/misc point into `data`, which the cart owns. */
typedef struct {
    uint8_t *data;
    size_t size;
    const uint8_t *prg;       /* PRG-ROM */
    uint32_t prg_size;
    const uint8_t *chr;       /* CHR-ROM, NULL when the board has only CHR-RAM */
    uint32_t chr_size;
    uint32_t chr_pad;         /* bytes of $FF after the CHR-ROM (a disabled window's page: NES_CHR_PAD
                               * on boards that can disable it, else 0) */
    uint32_t chr_ram_size;    /* CHR-RAM bytes (battery-backed part included); beside CHR-ROM on a few boards */
    uint32_t chr_nvram_size;  /* of which battery-backed (the last bytes) */
    uint32_t prg_ram_size;    /* PRG-RAM bytes (work RAM plus battery RAM) */
    uint32_t prg_nvram_size;  /* of which battery-backed (the last bytes): the battery file */
    const uint8_t *misc;      /* NES 2.0 miscellaneous ROM area after CHR-ROM (NULL: none) */
    uint32_t misc_size;
    int misc_roms;            /* their number (NES 2.0 byte 14) */
    int mapper, submapper;    /* submapper 0 for iNES 1.0 headers */
    int mirroring;            /* NES_MIRROR_H / _V / _4 as the header says */
    int battery;              /* battery-backed memory present (prg_nvram_size or chr_nvram_size) */
    int nes2;                 /* NES 2.0 header */
    int timing;               /* NES_TIMING_* (iNES 1.0: byte 9 or 10, else NTSC) */
    uint64_t hash;            /* xxHash of the whole file */
} nes_cart;

/* Validates an iNES / NES 2.0 image (header, sizes, a supported board, timing) and fills
 * out (which then owns a copy of the data). name is used in messages. GV_ERR_INPUT with a
 * one-line reason on any problem. */
gv_status nes_cart_parse(const uint8_t *data, size_t len, const char *name, nes_cart *out, gv_err *err);
gv_status nes_cart_load(const char *path, nes_cart *out, gv_err *err);
void nes_cart_free(nes_cart *c);
/* The name of the board that runs the cartridge ("MMC3", "SxROM (SOROM)", ...). */
const char *nes_cart_board(const nes_cart *c);
/* The name of a mapper number, supported or not (NULL when unknown). */
const char *nes_mapper_name(int mapper);

/* ---- the machine ------------------------------------------------------------------- */

typedef struct nes nes;

/* The NES behind the console interface (nes_console.c). */
extern const emu_console nes_console;

/* The 512-entry colour table: (colour | emphasis << 6) -> R, G, B (nes_palette.c). */
extern const uint8_t nes_palette_rgb[512 * 3];
/* The same table as R | G << 8 | B << 16 words, into t[512] (what the renderers use). */
void nes_palette_rgb32(uint32_t *t);
/* The mixer's lookup tables (nes_aout.c), shared read-only by every audio renderer. */
void nes_atab_init(nes_atab *t);

#endif
