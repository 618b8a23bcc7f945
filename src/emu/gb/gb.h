/* gb.h: the Game Boy / Game Boy Color machine. The core is the timing side: the SM83 CPU
 * and everything it can observe (timers, PPU modes and STAT interrupts, APU status,
 * serial, DMA, cartridge banking). Each frame it emits a frame log (gb_video.h) and a
 * list of audio keyframes (gb_audio.h); renderers are views of those. The native
 * video renderer and the native audio synthesiser run inside the core when asked for.
 *
 * Ownership: a gb_cart is read-only once loaded and may be shared by many machines (it
 * must outlive them); each gb owns its memories, logs and outputs. */
#ifndef GV_EMU_GB_GB_H
#define GV_EMU_GB_GB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/gv.h"
#include "emu/common/console.h"
#include "emu/gb/gb_audio.h"
#include "emu/gb/gb_video.h"

typedef struct gb_cart gb_cart;
typedef struct gb gb;

/* The Game Boy behind the console interface (gb_console.c). */
extern const emu_console gb_console;

typedef enum { GB_MODEL_DMG = 0, GB_MODEL_CGB = 1 } gb_model;

/* The cartridge boards (their header types in gb_cart.c): Nintendo's MBCs by number, and
 * the MMM01 multi-game mapper and Hudson's HuC1 and HuC3 after them. */
enum { GB_MBC_NONE = 0, GB_MBC1 = 1, GB_MBC2 = 2, GB_MBC3 = 3, GB_MBC5 = 5, GB_MBC7 = 7, GB_MMM01 = 8,
       GB_HUC1 = 9, GB_HUC3 = 10 };

typedef struct {
    char title[17];          /* printable header title, NUL-terminated */
    uint8_t cgb_flag;        /* header $0143: $80 CGB-enhanced, $C0 CGB only */
    uint8_t type;            /* header $0147 */
    int mbc;                 /* GB_MBC_* */
    size_t header;           /* where the header is in the cartridge's ROM: 0, or the MMM01
                                menu's (the last 32 KiB, which the MMM01 maps at power-on; a
                                dump that begins with its menu is loaded rotated to that order) */
    int multicart;           /* MBC1 wired as an MBC1M multi-game cartridge */
    int has_ram, has_battery, has_rtc;
    size_t rom_size;         /* bytes, from header $0148 */
    size_t ram_size;         /* bytes of cartridge RAM, from header $0149 (MBC2: its 512 built in;
                                MBC7: its 256-byte EEPROM) */
    uint8_t header_checksum; /* header $014D, verified on load */
    uint64_t hash;           /* XXH3-64 of the ROM image */
} gb_cart_info;

/* Parses and validates a ROM image (copied). name labels error messages (a path).
 * Truncated images, a wrong header checksum, unknown cartridge types and impossible
 * sizes are GV_ERR_INPUT with a one-line message naming the file. */
gv_status gb_cart_load(const uint8_t *data, size_t len, const char *name, gb_cart **out, gv_err *err);
/* Where the header of a ROM image of len bytes lies: 0, or len - 32 KiB when the header
 * there names an MMM01 (whose menu is the last 32 KiB) and passes its checksum. No side
 * effects; any input. */
size_t gb_cart_header_at(const uint8_t *data, size_t len);
/* The board's name for people ("MBC3", "HuC1", ...). */
const char *gb_cart_board_name(int mbc);
/* Bytes of the battery file: the battery-backed RAM (or EEPROM) and, with a clock, its
 * footer (MBC3: 48 bytes, HuC3: 136; docs/GB.md); 0 without a battery. */
size_t gb_cart_battery_size(const gb_cart *c);
const gb_cart_info *gb_cart_get_info(const gb_cart *c);
void gb_cart_free(gb_cart *c);
/* LFSR jump tables for closed-form noise evaluation, shared read-only (gb_audio.h). */
const gb_lfsr_jump *gb_cart_lfsr(const gb_cart *c);
/* The model to use by default: CGB for CGB-enhanced or CGB-only cartridges, else DMG. */
gb_model gb_cart_default_model(const gb_cart *c);

/* What the core produces besides its timing (flags for gb_new). */
enum {
    GB_OUT_VIDEO_NATIVE = 1, /* render pixels inside the core (gb_native_fb) */
    GB_OUT_VIDEO_LOG = 2,    /* fill the frame log for the host/device renderers */
    GB_OUT_AUDIO_NATIVE = 4, /* synthesise audio inside the core (gb_native_audio) */
};

/* A machine in the documented post-boot state (no boot ROM) for model. A DMG-only
 * cartridge on the CGB model runs in the CGB's DMG compatibility mode (gb_compat_mode). */
gv_status gb_new(const gb_cart *cart, gb_model model, unsigned outputs, gb **out, gv_err *err);
void gb_free(gb *g);
/* Power cycle: the machine as gb_new left it, but for what the cartridge's battery keeps
 * (its RAM or EEPROM and its clock, which runs on); memory without a battery is cleared.
 * Buffers are kept. */
void gb_power(gb *g);
gb_model gb_get_model(const gb *g);
/* 1 when a CGB runs a DMG cartridge in DMG compatibility mode: the DMG's registers and
 * picture rules, colours from the compatibility palettes in CGB palette RAM, and the
 * CGB's hardware (APU, no OAM bug). */
int gb_compat_mode(const gb *g);
const gb_cart *gb_get_cart(const gb *g);

/* Runs one frame period: until the PPU enters VBlank (line 144), or 70224 dots after the
 * period began while the LCD is off. Returns 1 when a test-ROM trap stopped the machine
 * early (see gb_set_trap), else 0. */
int gb_run_frame(gb *g);
uint64_t gb_frame_count(const gb *g);

/* Native outputs of the last frame: RGB888 160x144 (GB_FB_BYTES) and int16 stereo
 * 48 kHz samples after the high-pass filter (n frames of 2 samples). */
const uint8_t *gb_native_fb(const gb *g);
const int16_t *gb_native_audio(const gb *g, int *n);

/* Logs of the last frame for external renderers. */
const gb_frame_log *gb_video_log(const gb *g);
const gb_audio_log *gb_audio_keys(const gb *g);
/* Makes the next frame log carry a full snapshot of VRAM and palette RAM. */
void gb_request_snapshot(gb *g);

/* The output high-pass filter, in integer fixed point (state kept in the machine so that
 * save states carry it): filters n stereo frames in place. */
void gb_audio_filter(gb *g, int16_t *lr, int n);

/* Serial output captured since power-on (bytes the program shifted out). */
const uint8_t *gb_serial_output(const gb *g, size_t *len);

/* The buttons held from now on: bit 0 A, 1 B, 2 Select, 3 Start, 4 Right, 5 Left, 6 Up,
 * 7 Down. A press seen by a selected P1 group requests the joypad interrupt. */
void gb_set_buttons(gb *g, uint8_t buttons);
/* The tilt the MBC7's accelerometer measures from now on: x positive tips the right side
 * down, y positive the bottom side; 32767 is a tilt of 90 degrees (the full 1 g), 0 level.
 * Other cartridges ignore it; it is part of save states like the buttons. */
void gb_set_tilt(gb *g, int16_t x, int16_t y);

/* Test-ROM support: with trap on, executing LD B,B stops the frame and records the
 * registers; gb_trap_hit says whether it happened. */
void gb_set_trap(gb *g, int on);
int gb_trap_hit(const gb *g);

typedef struct {
    uint8_t a, f, b, c, d, e, h, l;
    uint16_t sp, pc;
} gb_regs;
void gb_get_regs(const gb *g, gb_regs *r);

/* Calls fn with one line per instruction, before it executes, in the Gameboy Doctor
 * layout "A:00 F:11 B:22 C:33 D:44 E:55 H:66 L:77 SP:8888 PC:9999 PCMEM:AA,BB,CC,DD"
 * (no newline). fn NULL turns tracing off. */
void gb_set_trace(gb *g, emu_line_fn fn, void *ctx);

/* Save states: a versioned image of the whole machine (checksummed). Loading checks the
 * image against this machine's cartridge and model; a bad image is GV_ERR_INPUT and
 * leaves the machine untouched. *data is malloc'd; the caller frees it. */
gv_status gb_state_save(const gb *g, uint8_t **data, size_t *len, gv_err *err);
gv_status gb_state_load(gb *g, const uint8_t *data, size_t len, gv_err *err);

/* Battery-backed cartridge RAM (plus a clock's footer: MBC3 48 bytes, HuC3 136; the MBC7's
 * EEPROM): a malloc'd image of gb_battery_size bytes, and setting it from an image
 * (GV_ERR_INPUT naming name when its size is wrong; an MBC3 footer of 44 bytes, with a
 * 32-bit timestamp, is accepted too). */
gv_status gb_battery_get(const gb *g, uint8_t **data, size_t *len, gv_err *err);
gv_status gb_battery_set(gb *g, const uint8_t *data, size_t len, const char *name, gv_err *err);
size_t gb_battery_size(const gb *g);

/* Direct access for tests: CPU-visible read/write without advancing time. */
uint8_t gb_peek(gb *g, uint16_t addr);
void gb_poke(gb *g, uint16_t addr, uint8_t v);

#endif
