/* libretro_core.c: a gpuvet console as a libretro core, for frontends such as RetroArch
 * and Kodi. One source, built once per console by `make libretro` with GV_LR_CONSOLE set
 * to the console's name ("nes", "gb", "snes"): gpuvet_<name>_libretro.so. Everything goes through
 * console.h and the batch runner (one instance), so a frame here is the frame `gpuvet run`
 * draws and hashes: video as XRGB8888, audio as stereo int16 at the console's rate, the
 * joypad mapped by button name (a console's analog axes from the left stick),
 * serialization through our save states, SRAM through the battery memory (a cartridge
 * clock's footer included: the frontend's save file is gpuvet's battery file). Core
 * options: the renderer (native or host; the device renderers do not run inside a
 * frontend), for the Game Boy the model, for the NES the MMC3 revision.
 *
 * The libretro API is a set of global functions with one game loaded per process, so the
 * core's state is one static struct; nothing here is called from more than one thread.
 * The API's declarations come from Debian's retroarch-dev (libretro-common/libretro.h). */
#include <libretro.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/common/emu_batch.h"
#include "emu/registry.h"

#ifdef __SSSE3__
#include <tmmintrin.h>
#endif

#ifndef GV_LR_CONSOLE
#error "build with -DGV_LR_CONSOLE=\"nes\" (make libretro does)"
#endif

/* The NES MMC3 revision option's key. */
#define LR_OPT_MMC3 "gpuvet_mmc3_rev"

/* A serialized state: "GVLR", the state's length (u32 little-endian), the state, zeros. */
#define LR_STATE_HEAD 8
#define LR_STATE_SLACK 4096 /* room for a state that grows (a larger mapper state, say) */

static struct {
    retro_environment_t env;
    retro_video_refresh_t video;
    retro_audio_sample_batch_t audio;
    retro_input_poll_t poll;
    retro_input_state_t input;
    retro_log_printf_t log;
    const emu_console *con;
    void *cart;
    emu_batch *b;
    emu_renderer renderer;
    char model[8];              /* Game Boy model option: "" (from the header), "dmg", "cgb" */
    char mmc3_rev[2];           /* NES MMC3 revision option: "A" or "B" */
    unsigned joy[32];           /* RETRO_DEVICE_ID_JOYPAD_* of each of the console's buttons */
    int nbuttons;
    uint32_t *xrgb;             /* the last frame, XRGB8888 */
    int16_t *stereo;            /* a frame's samples, stereo */
    size_t state_size;          /* what retro_serialize_size answers for this game */
    uint8_t *sram, *sram_seen;  /* battery memory as the frontend sees it; what we last gave */
    size_t sram_len;
    int sram_valid;             /* sram holds the machine's battery memory (after the first sync) */
    int broken;                 /* a frame failed: the error was logged, the core stops */
    char opt_renderer[64], opt_model[64]; /* core option keys (the MMC3's: LR_OPT_MMC3) */
} lr;

static void lr_log(enum retro_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lr_log(enum retro_log_level level, const char *fmt, ...)
{
    char msg[GV_ERRLEN + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (lr.log)
        lr.log(level, "gpuvet %s core: %s\n", GV_LR_CONSOLE, msg);
    else
        fprintf(stderr, "gpuvet %s core: %s\n", GV_LR_CONSOLE, msg);
}

static const emu_console *lr_console(void)
{
    if (!lr.con)
        lr.con = emu_console_find(GV_LR_CONSOLE);
    return lr.con;
}

/* The libretro joypad id of a button name of console.h ("A", "Select", "Up", ...). */
static int joypad_id(const char *name, size_t len)
{
    static const struct { const char *name; unsigned id; } map[] = {
        {"A", RETRO_DEVICE_ID_JOYPAD_A},           {"B", RETRO_DEVICE_ID_JOYPAD_B},
        {"X", RETRO_DEVICE_ID_JOYPAD_X},           {"Y", RETRO_DEVICE_ID_JOYPAD_Y},
        {"L", RETRO_DEVICE_ID_JOYPAD_L},           {"R", RETRO_DEVICE_ID_JOYPAD_R},
        {"Select", RETRO_DEVICE_ID_JOYPAD_SELECT}, {"Start", RETRO_DEVICE_ID_JOYPAD_START},
        {"Up", RETRO_DEVICE_ID_JOYPAD_UP},         {"Down", RETRO_DEVICE_ID_JOYPAD_DOWN},
        {"Left", RETRO_DEVICE_ID_JOYPAD_LEFT},     {"Right", RETRO_DEVICE_ID_JOYPAD_RIGHT},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(map); i++)
        if (strlen(map[i].name) == len && !strncasecmp(map[i].name, name, len))
            return (int)map[i].id;
    return -1;
}

/* ---- the API's fixed part --------------------------------------------------------------- */

RETRO_API unsigned retro_api_version(void)
{
    return RETRO_API_VERSION;
}

RETRO_API void retro_get_system_info(struct retro_system_info *info)
{
    static char name[64], exts[64];
    const emu_console *con = lr_console();
    snprintf(name, sizeof name, "gpuvet %s", con->title);
    /* ".gb,.gbc,.sgb" -> "gb|gbc|sgb" */
    size_t k = 0;
    for (const char *p = con->exts; *p && k + 1 < sizeof exts; p++)
        if (*p == ',')
            exts[k++] = '|';
        else if (*p != '.')
            exts[k++] = *p;
    exts[k] = 0;
    memset(info, 0, sizeof *info);
    info->library_name = name;
    info->library_version = GV_VERSION;
    info->valid_extensions = exts;
    info->need_fullpath = false;
    info->block_extract = false;
}

/* Frames per second of the game loaded: its machine's where the console's region sets them
 * (a NES cartridge whose header names PAL or Dendy timing: 50), else the console's. */
static double lr_fps(void)
{
    const emu_console *con = lr_console();
    if (lr.b && con->machine_frame_rate)
        return con->machine_frame_rate(emu_batch_machine(lr.b, 0));
    return con->frame_rate > 0 ? con->frame_rate : 60.0;
}

RETRO_API void retro_get_system_av_info(struct retro_system_av_info *info)
{
    const emu_console *con = lr_console();
    memset(info, 0, sizeof *info);
    /* the largest frame as the maximum, the size of a frame after power as the base (the
     * SNES: 256x224, up to 512x478; each frame goes out at its own size) */
    int bw = con->width, bh = con->height;
    if (lr.b)
        emu_batch_frame_size(lr.b, &bw, &bh);
    info->geometry.base_width = (unsigned)bw;
    info->geometry.base_height = (unsigned)bh;
    info->geometry.max_width = (unsigned)con->width;
    info->geometry.max_height = (unsigned)con->height;
    info->geometry.aspect_ratio = 0; /* square pixels: width / height */
    info->timing.fps = lr_fps();
    /* the samples are the console's rate of the region's own time: 48 kHz on every NES region */
    info->timing.sample_rate = con->audio_rate;
}

RETRO_API void retro_set_environment(retro_environment_t cb)
{
    lr.env = cb;
    const emu_console *con = lr_console();
    snprintf(lr.opt_renderer, sizeof lr.opt_renderer, "gpuvet_%s_renderer", con->name);
    snprintf(lr.opt_model, sizeof lr.opt_model, "gpuvet_%s_model", con->name);
    /* The renderer on every console; the model where the console has models (the Game
     * Boy's dmg and cgb), the MMC3 revision on the NES. The first value is the default. */
    struct retro_variable vars[4] = {{lr.opt_renderer, "Renderer (the log renderer draws lines on every core); native|host"}};
    int n = 1;
    if (!strcmp(con->name, "gb"))
        vars[n++] = (struct retro_variable){lr.opt_model, "Model (restarts the game); auto|dmg|cgb"};
    if (!strcmp(con->name, "nes"))
        vars[n++] = (struct retro_variable){LR_OPT_MMC3, "MMC3 revision, A for the early chips (restarts the game); B|A"};
    vars[n] = (struct retro_variable){NULL, NULL};
    cb(RETRO_ENVIRONMENT_SET_VARIABLES, vars);
    bool no_game = false;
    cb(RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME, &no_game);
}

RETRO_API void retro_set_video_refresh(retro_video_refresh_t cb) { lr.video = cb; }
RETRO_API void retro_set_audio_sample(retro_audio_sample_t cb) { (void)cb; } /* batches only */
RETRO_API void retro_set_audio_sample_batch(retro_audio_sample_batch_t cb) { lr.audio = cb; }
RETRO_API void retro_set_input_poll(retro_input_poll_t cb) { lr.poll = cb; }
RETRO_API void retro_set_input_state(retro_input_state_t cb) { lr.input = cb; }
RETRO_API void retro_set_controller_port_device(unsigned port, unsigned device) { (void)port, (void)device; }

RETRO_API void retro_init(void)
{
    struct retro_log_callback l;
    if (lr.env && lr.env(RETRO_ENVIRONMENT_GET_LOG_INTERFACE, &l))
        lr.log = l.log;
}

RETRO_API void retro_deinit(void)
{
    lr.log = NULL;
}

/* ---- options and the machine ------------------------------------------------------------ */

/* Reads the core options into lr.renderer, lr.model and lr.mmc3_rev; returns 1 when one
 * changed. */
static int read_options(void)
{
    emu_renderer r = EMU_R_NATIVE;
    char model[8] = "", rev[2] = "B";
    struct retro_variable v = {lr.opt_renderer, NULL};
    if (lr.env && lr.env(RETRO_ENVIRONMENT_GET_VARIABLE, &v) && v.value && !strcmp(v.value, "host"))
        r = EMU_R_HOST;
    v.key = lr.opt_model;
    v.value = NULL;
    if (lr.env && !strcmp(lr.con->name, "gb") && lr.env(RETRO_ENVIRONMENT_GET_VARIABLE, &v) && v.value &&
        (!strcmp(v.value, "dmg") || !strcmp(v.value, "cgb")))
        snprintf(model, sizeof model, "%s", v.value);
    v.key = LR_OPT_MMC3;
    v.value = NULL;
    if (lr.env && !strcmp(lr.con->name, "nes") && lr.env(RETRO_ENVIRONMENT_GET_VARIABLE, &v) && v.value &&
        !strcmp(v.value, "A"))
        rev[0] = 'A';
    int changed = r != lr.renderer || strcmp(model, lr.model) || strcmp(rev, lr.mmc3_rev);
    lr.renderer = r;
    memcpy(lr.model, model, sizeof model);
    memcpy(lr.mmc3_rev, rev, sizeof rev);
    return changed;
}

/* A new one-instance batch with the options; the old one (if any) is freed after. With
 * keep_state the machine carries on where the old one was (a renderer change); otherwise
 * it powers on with the battery memory of the old one (a model change, a first load). */
static gv_status batch_open(int keep_state, gv_err *err)
{
    emu_batch_cfg cfg = {0};
    cfg.con = lr.con;
    cfg.cart = lr.cart;
    cfg.opts.model = lr.model[0] ? lr.model : NULL;
    cfg.opts.mmc3_rev = !strcmp(lr.con->name, "nes") ? lr.mmc3_rev : NULL;
    cfg.instances = 1;
    cfg.no_hash = 1; /* the frontend hashes what it is given, if it wants */
    cfg.video = lr.renderer;
    /* a console without a host audio renderer (the SNES for now) sounds natively: every
     * renderer gives the native samples, so the option changes only how they are made */
    cfg.audio = lr.renderer == EMU_R_HOST && !lr.con->host_audio ? EMU_R_NATIVE : lr.renderer;
    cfg.threads = lr.renderer == EMU_R_HOST ? 0 : 1;
    uint8_t *state = NULL;
    size_t state_len = 0;
    gv_status st = GV_OK;
    if (lr.b && keep_state && (st = lr.con->state_save(emu_batch_machine(lr.b, 0), &state, &state_len, err)) != GV_OK)
        return st;
    cfg.state = state;
    cfg.state_len = state_len;
    /* a new game starts from the cartridge's own blank memory (an EEPROM reads $FF), which
     * the first sync hands to the frontend; a restart keeps what the frontend holds */
    if (lr.sram_len && lr.sram_valid && !keep_state) {
        cfg.battery = lr.sram;
        cfg.battery_len = lr.sram_len;
        cfg.battery_name = "the frontend's save RAM";
    }
    emu_batch *b;
    st = emu_batch_new(&cfg, &b, err);
    free(state);
    if (st != GV_OK)
        return st;
    /* retro_serialize_size: this machine's state and room to grow; it never shrinks (a
     * frontend may keep the size it asked first) */
    if ((st = lr.con->state_save(emu_batch_machine(b, 0), &state, &state_len, err)) != GV_OK) {
        emu_batch_free(b);
        return st;
    }
    free(state);
    if (LR_STATE_HEAD + state_len + LR_STATE_SLACK > lr.state_size)
        lr.state_size = LR_STATE_HEAD + state_len + LR_STATE_SLACK;
    emu_batch_free(lr.b);
    lr.b = b;
    return GV_OK;
}

/* The battery memory, both ways: what the frontend wrote into lr.sram since we last gave
 * it (a save file loaded after retro_load_game) goes into the machine; then the machine's
 * battery memory comes back into lr.sram, where the frontend reads it when it saves. */
static gv_status sram_sync(gv_err *err)
{
    if (!lr.sram_len)
        return GV_OK;
    void *m = emu_batch_machine(lr.b, 0);
    gv_status st;
    if (memcmp(lr.sram, lr.sram_seen, lr.sram_len) &&
        (st = lr.con->battery_set(m, lr.sram, lr.sram_len, "the frontend's save RAM", err)) != GV_OK)
        return st;
    uint8_t *d;
    size_t n;
    if ((st = lr.con->battery_get(m, &d, &n, err)) != GV_OK)
        return st;
    if (n == lr.sram_len) {
        memcpy(lr.sram, d, n);
        memcpy(lr.sram_seen, d, n);
        lr.sram_valid = 1;
    }
    free(d);
    return GV_OK;
}

static void game_free(void)
{
    emu_batch_free(lr.b);
    if (lr.cart)
        lr.con->cart_free(lr.cart);
    free(lr.xrgb);
    free(lr.stereo);
    free(lr.sram);
    free(lr.sram_seen);
    lr.b = NULL;
    lr.cart = NULL;
    lr.xrgb = NULL;
    lr.stereo = NULL;
    lr.sram = lr.sram_seen = NULL;
    lr.sram_len = 0;
    lr.sram_valid = 0;
    lr.broken = 0;
}

RETRO_API bool retro_load_game(const struct retro_game_info *game)
{
    const emu_console *con = lr_console();
    gv_err err;
    if (!game || !game->data) {
        lr_log(RETRO_LOG_ERROR, "no game given (the core loads %s ROMs from memory)", con->exts);
        return false;
    }
    enum retro_pixel_format fmt = RETRO_PIXEL_FORMAT_XRGB8888;
    if (lr.env && !lr.env(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &fmt)) {
        lr_log(RETRO_LOG_ERROR, "the frontend does not take XRGB8888 frames");
        return false;
    }
    game_free();
    const char *name = game->path && game->path[0] ? game->path : "the game";
    if (con->cart_load(game->data, game->size, name, &lr.cart, &err) != GV_OK) {
        lr.cart = NULL;
        lr_log(RETRO_LOG_ERROR, "%s", err.msg);
        return false;
    }
    const char *warning = con->cart_warning ? con->cart_warning(lr.cart) : NULL;
    if (warning)
        lr_log(RETRO_LOG_WARN, "%s", warning);
    size_t px = (size_t)con->width * con->height;
    lr.xrgb = malloc(px * 4);
    lr.stereo = malloc((size_t)con->max_audio_frames * 2 * sizeof(int16_t));
    lr.sram_len = con->battery_size(lr.cart);
    lr.sram = calloc(1, lr.sram_len + 1);
    lr.sram_seen = calloc(1, lr.sram_len + 1);
    if (!lr.xrgb || !lr.stereo || !lr.sram || !lr.sram_seen) {
        lr_log(RETRO_LOG_ERROR, "out of memory");
        game_free();
        return false;
    }
    /* The console's button names, bit 0 first, to joypad ids. */
    lr.nbuttons = 0;
    for (const char *p = con->buttons; *p && lr.nbuttons < 32;) {
        size_t k = strcspn(p, " ");
        int id = joypad_id(p, k);
        lr.joy[lr.nbuttons++] = id < 0 ? ~0u : (unsigned)id;
        p += k;
        p += strspn(p, " ");
    }
    read_options();
    lr.state_size = 0;
    gv_status st = batch_open(0, &err);
    if (st == GV_OK && lr.sram_len)
        st = sram_sync(&err);
    if (st != GV_OK) {
        lr_log(RETRO_LOG_ERROR, "%s", err.msg);
        game_free();
        return false;
    }
    char desc[256];
    con->cart_describe(lr.cart, desc, sizeof desc);
    lr_log(RETRO_LOG_INFO, "%s: %s; renderer %s%s%s%s%s", name, desc, emu_renderer_name(lr.renderer),
           lr.model[0] ? ", model " : "", lr.model, !strcmp(con->name, "nes") ? ", MMC3 revision " : "",
           !strcmp(con->name, "nes") ? lr.mmc3_rev : "");
    return true;
}

RETRO_API bool retro_load_game_special(unsigned type, const struct retro_game_info *info, size_t num)
{
    (void)type, (void)info, (void)num;
    return false;
}

RETRO_API void retro_unload_game(void)
{
    game_free();
}

/* libretro's regions are its two frame rates: PAL for a game of 50 frames a second. */
RETRO_API unsigned retro_get_region(void)
{
    return lr_fps() < 55 ? RETRO_REGION_PAL : RETRO_REGION_NTSC;
}

/* ---- a frame ------------------------------------------------------------------------------ */

RETRO_API void retro_run(void)
{
    const emu_console *con = lr.con;
    gv_err err;
    bool updated = false;
    if (!lr.b || lr.broken)
        return;
    if (lr.env && lr.env(RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE, &updated) && updated) {
        /* a new renderer carries the machine on; a new model or MMC3 revision restarts it */
        char old_model[8], old_rev[2];
        memcpy(old_model, lr.model, sizeof old_model);
        memcpy(old_rev, lr.mmc3_rev, sizeof old_rev);
        if (read_options() && batch_open(!strcmp(old_model, lr.model) && !strcmp(old_rev, lr.mmc3_rev), &err) != GV_OK)
            lr_log(RETRO_LOG_WARN, "the new options were not applied: %s", err.msg);
    }
    emu_buttons buttons = 0;
    if (lr.poll)
        lr.poll();
    for (int i = 0; lr.input && i < lr.nbuttons; i++)
        if (lr.joy[i] != ~0u && lr.input(0, RETRO_DEVICE_JOYPAD, 0, lr.joy[i]))
            buttons |= (emu_buttons)1 << i;
    emu_batch_set_input(lr.b, buttons);
    if (con->axes && lr.input) {
        /* a console's first two axes from the left analog stick (the Game Boy's TiltX and
         * TiltY: the MBC7's accelerometer; right and down positive, as the stick reports) */
        int16_t ax[EMU_MAX_AXES] = {0};
        ax[0] = lr.input(0, RETRO_DEVICE_ANALOG, RETRO_DEVICE_INDEX_ANALOG_LEFT, RETRO_DEVICE_ID_ANALOG_X);
        ax[1] = lr.input(0, RETRO_DEVICE_ANALOG, RETRO_DEVICE_INDEX_ANALOG_LEFT, RETRO_DEVICE_ID_ANALOG_Y);
        emu_batch_set_axes(lr.b, ax);
    }
    int done, n = 0;
    gv_status st = sram_sync(&err);
    if (st == GV_OK)
        st = emu_batch_run(lr.b, 1, &done, &err);
    if (st == GV_OK)
        st = sram_sync(&err);
    /* the frame where the batch keeps it: converted from there, not copied first */
    const uint8_t *restrict src = st == GV_OK ? emu_batch_frame_video(lr.b) : NULL;
    if (st == GV_OK && !src)
        st = gv_fail(&err, GV_ERR_INTERNAL, "the renderer kept no frame");
    if (st != GV_OK) {
        lr_log(RETRO_LOG_ERROR, "the game stopped: %s", err.msg);
        lr.broken = 1;
        return;
    }
    int fw, fh;
    emu_batch_frame_size(lr.b, &fw, &fh);
    size_t px = (size_t)fw * fh;
    uint32_t *restrict dst = lr.xrgb;
    size_t p = 0;
#ifdef __SSSE3__
    /* four pixels at a time: 16 bytes read, the 12 of them that are R G B spread into
     * 00RRGGBB words; it stops where the 16 bytes would pass the frame's end */
    const __m128i order = _mm_setr_epi8(2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1);
    for (; p + 6 <= px; p += 4, src += 12)
        _mm_storeu_si128((__m128i *)(dst + p), _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)src), order));
#endif
    for (; p < px; p++, src += 3)
        dst[p] = (uint32_t)src[0] << 16 | (uint32_t)src[1] << 8 | src[2];
    if (lr.video)
        lr.video(lr.xrgb, (unsigned)fw, (unsigned)fh, (size_t)fw * 4);
    const int16_t *s = emu_batch_frame_audio(lr.b, &n);
    if (n > con->max_audio_frames)
        n = con->max_audio_frames;
    if (con->audio_channels == 2) {
        memcpy(lr.stereo, s, (size_t)n * 2 * sizeof *s);
    } else {
        for (int i = 0; i < n; i++)
            lr.stereo[2 * i] = lr.stereo[2 * i + 1] = s[i];
    }
    /* the frontend may take fewer frames than offered */
    for (int off = 0; lr.audio && off < n;) {
        size_t k = lr.audio(lr.stereo + 2 * off, (size_t)(n - off));
        if (!k)
            break;
        off += (int)k;
    }
}

RETRO_API void retro_reset(void)
{
    if (lr.b)
        emu_batch_reset(lr.b);
}

/* ---- save states and memory ------------------------------------------------------------- */

RETRO_API size_t retro_serialize_size(void)
{
    return lr.b ? lr.state_size : 0;
}

RETRO_API bool retro_serialize(void *data, size_t size)
{
    gv_err err;
    uint8_t *s;
    size_t n;
    if (!lr.b || lr.con->state_save(emu_batch_machine(lr.b, 0), &s, &n, &err) != GV_OK) {
        if (lr.b)
            lr_log(RETRO_LOG_ERROR, "state not saved: %s", err.msg);
        return false;
    }
    bool ok = LR_STATE_HEAD + n <= size && n <= UINT32_MAX;
    if (ok) {
        uint8_t *d = data;
        memcpy(d, "GVLR", 4);
        for (int i = 0; i < 4; i++)
            d[4 + i] = (uint8_t)(n >> (8 * i));
        memcpy(d + LR_STATE_HEAD, s, n);
        memset(d + LR_STATE_HEAD + n, 0, size - LR_STATE_HEAD - n);
    } else {
        lr_log(RETRO_LOG_ERROR, "state not saved: %zu bytes do not fit the %zu the frontend gave", n, size);
    }
    free(s);
    return ok;
}

RETRO_API bool retro_unserialize(const void *data, size_t size)
{
    const uint8_t *d = data;
    gv_err err;
    if (!lr.b)
        return false;
    if (size < LR_STATE_HEAD || memcmp(d, "GVLR", 4)) {
        lr_log(RETRO_LOG_ERROR, "not a gpuvet state (%zu bytes without the GVLR mark)", size);
        return false;
    }
    size_t n = (size_t)d[4] | (size_t)d[5] << 8 | (size_t)d[6] << 16 | (size_t)d[7] << 24;
    if (n > size - LR_STATE_HEAD) {
        lr_log(RETRO_LOG_ERROR, "a truncated state: %zu bytes of %zu", size - LR_STATE_HEAD, n);
        return false;
    }
    if (lr.con->state_load(emu_batch_machine(lr.b, 0), d + LR_STATE_HEAD, n, &err) != GV_OK) {
        lr_log(RETRO_LOG_ERROR, "state not loaded: %s", err.msg);
        return false;
    }
    lr.broken = 0;
    if (sram_sync(&err) != GV_OK)
        lr_log(RETRO_LOG_WARN, "save RAM after the state: %s", err.msg);
    return true;
}

RETRO_API void *retro_get_memory_data(unsigned id)
{
    return id == RETRO_MEMORY_SAVE_RAM && lr.sram_len ? lr.sram : NULL;
}

RETRO_API size_t retro_get_memory_size(unsigned id)
{
    return id == RETRO_MEMORY_SAVE_RAM ? lr.sram_len : 0;
}

/* Cheats are not supported. */
RETRO_API void retro_cheat_reset(void) {}
RETRO_API void retro_cheat_set(unsigned index, bool enabled, const char *code) { (void)index, (void)enabled, (void)code; }
