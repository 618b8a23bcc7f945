/* console.h: the one interface every emulated console implements (nes_console.c,
 * gb_console.c, ...). Everything outside src/emu/<console>/ (the batch runner, the device
 * pipeline, the run and bench engines, the commands) works through this table of
 * operations and never names a console; the list of consoles is emu/registry.h.
 *
 * A console has three layers, each a group of operations below:
 *   cartridge  a validated ROM image, read-only once loaded, shared by every machine;
 *   machine    the timing side: the CPU and all it can observe. Each frame it emits a
 *              frame log (the rendering state at frame start plus timestamped writes) and
 *              an audio log, and, when asked, draws and sounds natively;
 *   renderers  views of the logs: on the host (per instance, lines in parallel when
 *              there is a single instance) and on the device (many instances per launch,
 *              emu_gpu.h). Every renderer must give the native renderer's hashes.
 *
 * Machines are opaque (void *); a console's own files know their type. Ownership: the
 * cartridge outlives its machines; the caller frees what it creates with the matching
 * free operation. Functions that can fail return a gv_status and fill a one-line error. */
#ifndef GV_EMU_COMMON_CONSOLE_H
#define GV_EMU_COMMON_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/common/emu_gpu.h"

/* What a machine produces besides its timing (flags for machine_new). */
enum {
    EMU_OUT_VIDEO_NATIVE = 1, /* draw pixels inside the core */
    EMU_OUT_VIDEO_LOG = 2,    /* fill the video part of the frame log */
    EMU_OUT_AUDIO_NATIVE = 4, /* produce samples inside the core */
    EMU_OUT_AUDIO_LOG = 8,    /* fill the audio part of the frame log */
};

/* Options that some consoles take (the others refuse what they cannot honour). */
typedef struct {
    const char *model; /* Game Boy: "dmg" or "cgb" (NULL: from the header) */
    const char *mmc3_rev; /* NES: "A" or "B" (NULL: B) */
    const char *region; /* NES: "ntsc", "pal" or "dendy" (NULL: from the header) */
} emu_opts;

/* The controller state for one frame: a bit per button, in the order of
 * emu_console.buttons (e.g. "A B Select Start Up Down Left Right"). */
typedef uint32_t emu_buttons;

/* Analog axes a console may take besides its buttons (emu_console.axes), at most this many;
 * each -32768..32767, 0 centred. */
#define EMU_MAX_AXES 4

/* What a console tells the test-ROM protocols about the machine (testrom.h decides the
 * verdict): the status block where the console's ROMs write one, the serial output,
 * and the registers when the breakpoint opcode was executed. */
typedef struct {
    int has_block;              /* the console maps a status block (cartridge RAM present) */
    uint16_t block_addr;        /* its address ($6000 NES, $A000 Game Boy) */
    const char *block_where;    /* or, where 16 bits do not say it, the protocol's name
                                   ("status block at $70:0000"), else NULL */
    uint8_t block[256];         /* status byte, signature DE B0 61, text: as the CPU reads them */
    const uint8_t *serial;      /* bytes shifted out of the serial port, or NULL */
    size_t serial_len;
    int trapped;                /* the breakpoint opcode (LD B,B) stopped the frame */
    uint8_t regs[6];            /* B, C, D, E, H, L at that point */
} emu_test_view;

/* What the device returns for one instance's audio of one frame, described when the frame
 * is packed: `units` sets the launch's stride (the largest over the instances), `count`
 * and `first` are the console's own (pieces and first sample index, say). */
typedef struct {
    uint32_t units, count;
    uint64_t first;
} emu_adesc;

/* Receives one trace line (without its newline). */
typedef void (*emu_line_fn)(void *ctx, const char *line, size_t len);

typedef struct emu_console {
    const char *name;           /* the word of `gpuvet run NAME`: "nes", "gb" */
    const char *title;          /* for people: "NES", "Game Boy" */
    const char *exts;           /* file extensions, comma-separated: ".gb,.gbc" */
    const char *buttons;        /* button names, bit 0 first, space-separated */
    const char *axes;           /* analog axis names, space-separated ("TiltX TiltY"); NULL: none */
    int width, height;          /* the largest frame in pixels (RGB888); frame_size tells
                                   the size of each frame where it varies */
    int audio_rate, audio_channels;
    double frame_rate;          /* frames per second of the real console (NTSC) */
    /* The video hash: 0 = XXH3-64 of all frames' RGB bytes in order; 1 = XXH3-64 of the
     * sequence of per-frame XXH3-64 hashes (64-bit little-endian words). */
    int hash_of_frame_hashes;
    const char *trace_layout;   /* what a trace line holds, for --help */

    /* ---- cartridge ---- */
    /* 2 when the header is this console's, 0 otherwise (no side effects, any input). */
    int (*detect)(const uint8_t *data, size_t len);
    /* Validates and copies a ROM image; GV_ERR_INPUT with a one-line reason naming name. */
    gv_status (*cart_load)(const uint8_t *data, size_t len, const char *name, void **cart, gv_err *err);
    void (*cart_free)(void *cart);
    /* One line for people ("mapper 4 (MMC3), PRG 256 KiB, ..."). */
    void (*cart_describe)(const void *cart, char *buf, size_t len);
    uint64_t (*cart_hash)(const void *cart);
    /* NULL (no warnings), or: NULL, or one line naming the ROM on what its header gets wrong
     * that the console itself ignores (the cartridge loads and runs). */
    const char *(*cart_warning)(const void *cart);
    /* Bytes of battery-backed memory (the battery file's size); 0 without a battery. */
    size_t (*battery_size)(const void *cart);

    /* ---- machine ---- */
    gv_status (*machine_new)(const void *cart, const emu_opts *o, unsigned outputs, void **m, gv_err *err);
    void (*machine_free)(void *m);
    /* The model actually emulated ("dmg", "cgb"), or NULL when the console has one. */
    const char *(*machine_model)(const void *m);
    /* Frames per second of this machine where its region sets them (the NES's PAL and
     * Dendy: 50); NULL: frame_rate. Optional: a console names it in its table. */
    double (*machine_frame_rate)(const void *m);
    void (*power)(void *m);            /* power cycle */
    void (*reset)(void *m);            /* the console's reset button */
    /* Runs one frame; returns 1 when the test-ROM breakpoint stopped it early. */
    int (*run_frame)(void *m);
    uint64_t (*frame_count)(const void *m);
    void (*set_input)(void *m, emu_buttons b);
    /* The axes from now on, in the order of `axes` (NULL when the console has none). */
    void (*set_axes)(void *m, const int16_t *v);
    /* Save states: malloc'd image; loading validates and leaves the machine unchanged on
     * a bad image (GV_ERR_INPUT). */
    gv_status (*state_save)(const void *m, uint8_t **data, size_t *len, gv_err *err);
    gv_status (*state_load)(void *m, const uint8_t *data, size_t len, gv_err *err);
    /* Battery memory: a malloc'd image of battery_size bytes; set validates its size. */
    gv_status (*battery_get)(const void *m, uint8_t **data, size_t *len, gv_err *err);
    gv_status (*battery_set)(void *m, const uint8_t *data, size_t len, const char *name, gv_err *err);
    /* One line per instruction before it executes; fn NULL turns tracing off. */
    void (*set_trace)(void *m, emu_line_fn fn, void *ctx);
    /* The test-ROM breakpoint opcode stops the frame when on. */
    void (*set_trap)(void *m, int on);
    void (*test_view)(void *m, emu_test_view *v);
    /* The CPU's work RAM as the machine holds it now, read-only, for reward functions and
     * tools that watch a game (NES: the 2 KiB at $0000; Game Boy: WRAM, the 8 KiB at $C000
     * on the DMG, the eight 4 KiB banks in order in CGB mode; SNES: the 128 KiB at
     * $7E0000); *len gets its size. */
    const uint8_t *(*work_ram)(const void *m, size_t *len);

    /* The size of the last frame run (at most width x height); NULL: always width x height.
     * Every frame a renderer gives (native_video, host_video, the device's) has this size:
     * w x h RGB888 pixels, rows back to back. The SNES's is 256x224 mostly, 512 wide with
     * hi-res lines, 239 or 2x lines with overscan or interlace (docs/SNES.md). */
    void (*frame_size)(const void *m, int *w, int *h);

    /* ---- native outputs of the last frame ---- */
    const uint8_t *(*native_video)(const void *m);           /* frame_size RGB888 */
    const int16_t *(*native_audio)(const void *m, int *n);   /* n sample frames, final */

    /* ---- host renderers over the logs of the last frame ---- */
    /* Per-instance renderer state (the host renderer's copy of video memory). */
    void *(*host_video_new)(const void *cart);
    void (*host_video_free)(void *hv);
    /* Draws instance m's last frame from its log into rgb; lines on all threads when par. */
    gv_status (*host_video)(void *hv, void *m, uint8_t *rgb, int par, gv_err *err);
    /* Final samples of the last frame from its audio log into out (room for
     * max_audio_frames frames); returns the count, or -1 when the frame exceeds the
     * renderer (a GV_ERR_INTERNAL for the batch: a limit of ours). */
    int (*host_audio)(void *m, int16_t *out);   /* NULL: the console has no host audio renderer */
    int max_audio_frames;

    /* ---- device renderers (emu_gpu.h); gpu NULL when the console has none ---- */
    /* Bytes of the packed logs of the last frame: the video stream and the audio stream
     * (a console may pack everything into one of them). */
    void (*pack_sizes)(void *m, int video, int audio, size_t *vbytes, size_t *abytes);
    void (*pack)(void *m, int video, int audio, uint8_t *vdst, uint8_t *adst);
    /* Describes the device's audio result for the frame just run (see emu_adesc). */
    void (*audio_units)(void *m, emu_adesc *d);
    /* Turns one instance's device audio result (units of gpu->ares_unit bytes) into final
     * samples in out; returns the count, or -1 when the frame exceeds the renderer. */
    int (*audio_collect)(void *m, const emu_adesc *d, const uint8_t *ares, int16_t *out);
    const emu_gpu_ops *gpu;
} emu_console;

/* The size of machine m's last frame (emu_console.frame_size, else width x height). */
static inline void emu_frame_size(const emu_console *c, const void *m, int *w, int *h)
{
    if (c->frame_size) {
        c->frame_size(m, w, h);
    } else {
        *w = c->width;
        *h = c->height;
    }
}

/* A console unit names its static functions after the operations they implement (every
 * console does), so its table is its identity, EMU_CONSOLE_OPS, then what differs:
 *     const emu_console gb_console = { .name = "gb", ..., EMU_CONSOLE_OPS, .max_audio_frames = .. }; */
#define EMU_CONSOLE_OPS \
    .detect = detect, .cart_load = cart_load, .cart_free = cart_free, \
    .cart_describe = cart_describe, .cart_hash = cart_hash, .battery_size = battery_size, \
    .machine_new = machine_new, .machine_free = machine_free, .machine_model = machine_model, \
    .power = power, .reset = reset, .run_frame = run_frame, .frame_count = frame_count, \
    .set_input = set_input, .state_save = state_save, .state_load = state_load, \
    .battery_get = battery_get, .battery_set = battery_set, .set_trace = set_trace, \
    .set_trap = set_trap, .test_view = test_view, .work_ram = work_ram, .native_video = native_video, \
    .native_audio = native_audio, .host_video_new = host_video_new, \
    .host_video_free = host_video_free, .host_video = host_video, .host_audio = host_audio, \
    .pack_sizes = pack_sizes, .pack = pack, .audio_units = audio_units, \
    .audio_collect = audio_collect

#endif
