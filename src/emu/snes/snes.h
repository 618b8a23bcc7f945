/* snes.h: the SNES (Super Nintendo / Super Famicom, NTSC) machine: the cartridge (LoROM,
 * HiROM), the 5A22 side (65C816 core, WRAM, DMA/HDMA, NMI/IRQ and H/V timers, multiply and
 * divide, joypad auto-read), the PPU drawn a whole scanline at a time, and the S-SMP/S-DSP
 * sound side run in batches of cycles. docs/SNES.md says what is emulated and what is not.
 *
 * Ownership: a snes_cart is read-only once loaded and may be shared by many machines (it
 * must outlive them); each snes owns its memories and outputs. */
#ifndef GV_EMU_SNES_SNES_H
#define GV_EMU_SNES_SNES_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/common/console.h"

typedef struct snes_cart snes_cart;
typedef struct snes snes;

/* The SNES behind the console interface (snes_console.c). */
extern const emu_console snes_console;

/* The cartridge layouts (where ROM lies in the address space); docs/SNES.md has the maps. */
enum { SNES_MAP_LOROM = 0, SNES_MAP_HIROM = 1, SNES_MAP_EXLOROM = 2, SNES_MAP_EXHIROM = 3 };
/* HiROM-like layouts keep SRAM at $20-$3F:$6000, LoROM-like ones at $70-$7D:$0000. */
static inline int snes_map_is_hi(int map) { return map == SNES_MAP_HIROM || map == SNES_MAP_EXHIROM; }

enum {
    SNES_W = 256,
    SNES_H = 224,              /* lines 1-224; a 239-line program shows its first 224 */
    SNES_AUDIO_RATE = 48000,   /* the DSP's 32 kHz resampled (snes_dsp_resample) */
};

typedef struct {
    char title[22];            /* printable header title, NUL-terminated, blanks trimmed */
    int map;                   /* SNES_MAP_* */
    int fast;                  /* map mode bit 4: FastROM (banks $80-$FF at 6 clocks with MEMSEL) */
    uint8_t map_mode, type, rom_code, sram_code, region, version;
    size_t header_at;          /* $7FC0, $FFC0, $407FC0 or $40FFC0 in the image */
    int copier_header;         /* a 512-byte copier header was stripped */
    size_t rom_size;           /* bytes of ROM (without the copier header) */
    size_t sram_size;          /* bytes of cartridge RAM (0: none) */
    int has_battery;
    uint16_t checksum;         /* the header's (a mismatch is a warning: snes_cart_warning) */
    uint16_t sum;              /* the ROM's own 16-bit sum (snes_rom_checksum) */
    uint64_t hash;             /* XXH3-64 of the ROM (without the copier header) */
    int chip;                  /* SNES_CHIP_*: the coprocessor the chipset byte names */
} snes_cart_info;

/* The coprocessors gpuvet emulates (snes_cart_info.chip). */
enum { SNES_CHIP_NONE = 0, SNES_CHIP_GSU = 1 };

/* 2 when data (after a copier header) has a plausible SNES header (snes_find_header), 0
 * otherwise; no side effects, any input. */
int snes_cart_detect(const uint8_t *data, size_t len);
/* How well the header of layout map (SNES_MAP_*) fits the image d of len bytes (no copier
 * header): the map mode's form and layout, the reset vector and the instruction there, the
 * checksum pair, plausible size codes, region, chipset and title; -1 when that header
 * lies beyond the image (or an extended layout for an image of 4 MiB or less). */
int snes_header_score(const uint8_t *d, size_t len, int map);
/* The best-scoring layout (ties: LoROM, HiROM, ExLoROM, ExHiROM in that order), or -1 when
 * even the best is no SNES header; *score (if not NULL) gets the best score. */
int snes_find_header(const uint8_t *d, size_t len, int *score);
/* The ROM offset (before mirroring) that CPU address addr ($BBAAAA) reads in layout map. */
size_t snes_map_offset(int map, uint32_t addr);
const char *snes_map_name(int map);
/* Parses a ROM image as the console would run it (copied; a 512-byte copier header is
 * dropped). name labels messages. Truncated or odd-sized images, images over 8 MiB, no
 * plausible header in any layout and the coprocessor cartridges gpuvet does not emulate (by
 * the chipset byte) are GV_ERR_INPUT with one line naming the file; Super FX (GSU) cartridges load (chipset $13-$15,
 * $1A; their RAM size from the extended header's expansion RAM byte). A checksum that does not match the ROM, a ROM
 * size code that does not cover the file and an SRAM size code over 128 KiB load, with one
 * line of warning (snes_cart_warning). */
gv_status snes_cart_load(const uint8_t *data, size_t len, const char *name, snes_cart **out, gv_err *err);
const snes_cart_info *snes_cart_get_info(const snes_cart *c);
/* The ROM (rom_size bytes), the start of its bus image. */
const uint8_t *snes_cart_rom(const snes_cart *c);
/* The ROM as the cartridge bus sees it: *size (a power of two) bytes, the ROM then its
 * mirrors (a size that is not a power of two: the part above the largest power of two p
 * repeated over the next p bytes, recursively). */
const uint8_t *snes_cart_bus(const snes_cart *c, size_t *size);
/* NULL, or one line (naming the file) on header fields that do not fit the ROM. */
const char *snes_cart_warning(const snes_cart *c);
void snes_cart_free(snes_cart *c);
/* The ROM's 16-bit sum as the header's checksum has it: the bytes of its bus image
 * (snes_cart_bus) added up. */
uint16_t snes_rom_checksum(const uint8_t *rom, size_t len);
/* Writes the checksum and its complement into the header at rom + at ($7FC0 LoROM, $FFC0
 * HiROM) so that they match the ROM (for images built by tests). */
void snes_rom_sign(uint8_t *rom, size_t len, size_t at);

/* What the machine produces besides its timing (flags for snes_new). */
enum {
    SNES_OUT_VIDEO = 1,        /* draw pixels (snes_native_fb) */
    SNES_OUT_AUDIO = 2,        /* keep 48 kHz samples (snes_native_audio) */
    SNES_OUT_VIDEO_LOG = 4,    /* keep the frame's video log for the host renderer */
};

gv_status snes_new(const snes_cart *cart, unsigned outputs, snes **out, gv_err *err);
void snes_free(snes *m);
/* Power cycle: the machine as snes_new left it (SRAM cleared). */
void snes_power(snes *m);
/* The reset button: CPU, PPU and sound reset; WRAM and SRAM kept. */
void snes_reset(snes *m);
/* Runs one frame: 262 lines of 1364 master clocks from line 0. */
void snes_run_frame(snes *m);
uint64_t snes_frame_count(const snes *m);

/* Outputs of the last frame: RGB888 256x224, and n stereo 48 kHz sample frames. */
const uint8_t *snes_native_fb(const snes *m);
const int16_t *snes_native_audio(const snes *m, int *n);

/* The buttons of controller 1 (bit 0 first): B Y Select Start Up Down Left Right A X L R. */
void snes_set_buttons(snes *m, uint16_t buttons);

/* One line per instruction before it executes (snes_console.c documents the layout);
 * fn NULL turns tracing off. */
void snes_set_trace(snes *m, emu_line_fn fn, void *ctx);

/* Save states: a checksummed image of the whole machine between frames; loading checks
 * it against this machine's cartridge and leaves the machine untouched when it is bad
 * (GV_ERR_INPUT). *data is malloc'd. */
gv_status snes_state_save(const snes *m, uint8_t **data, size_t *len, gv_err *err);
gv_status snes_state_load(snes *m, const uint8_t *data, size_t len, gv_err *err);

/* Battery-backed SRAM: a malloc'd copy, and setting it (its size must be the cartridge's). */
gv_status snes_battery_get(const snes *m, uint8_t **data, size_t *len, gv_err *err);
gv_status snes_battery_set(snes *m, const uint8_t *data, size_t len, const char *name, gv_err *err);

/* The CPU's view of the bus without side effects (I/O reads as open bus), for tests. */
uint8_t snes_peek(const snes *m, uint32_t addr);

#endif
