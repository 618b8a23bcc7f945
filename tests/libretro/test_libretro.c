/* test_libretro.c: a small headless libretro frontend. It loads gpuvet's cores
 * (build/libretro/gpuvet_<console>_libretro.so, from `make libretro`) with dlopen and
 * checks, for each console:
 *   - the system and AV info (name, extensions, frame size, rate) against console.h;
 *   - the video and audio hashes of our own ROMs through the core, on both renderers of
 *     the core option, against `gpuvet run`'s engine (emu_run) on the same ROM;
 *   - retro_serialize / retro_unserialize: the frames after a state load repeat exactly,
 *     and a state saved again after loading is the same bytes; bad states are refused;
 *   - input: our input test ROM driven through the joypad callback by the movie that makes
 *     it pass gives `gpuvet run --input`'s hashes (and differs from a run without it); the
 *     same for the Game Boy's MBC7 test ROM tilted through the left analog stick;
 *   - save RAM (Game Boy battery ROM): the boot count the game keeps there goes from 1 to 2
 *     across a reload when the frontend hands the saved memory back;
 *   - a file that is not a ROM is refused without a crash.
 *
 * With arguments it runs any core (ours or Debian's) for the benchmarks:
 *   test_libretro --bench CORE.so ROM FRAMES   prints "fps F cpu_fps C frames N seconds S
 *   cpu_seconds T" (C: frames per second of this process's CPU time, for a busy machine);
 *   the host of bench/libretro_peers.sh
 *   test_libretro --screenshot CORE.so ROM FRAMES PNG [KEY=VALUE ...]   runs FRAMES frames
 *   (retro_run calls) with the core options given (the others at their defaults) and writes
 *   the last frame drawn as an RGB PNG; the peers' side of bench/accuracy.sh --shootout
 *
 * Environment: GV_LIBRETRO (the cores' folder; default GV_ROOT/build/libretro), GV_BUILD
 * (where the ROMs are built), GV_ROOT, PYTHON (for the Game Boy ROMs). */
#if __has_include(<libretro.h>)
#include <libretro.h>
#define HAVE_LIBRETRO_H 1
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/hash.h"
#include "emu/common/demo_roms.h"
#include "emu/common/input.h"
#include "emu/common/media.h"
#include "emu/emu_run.h"
#include "emu/registry.h"

#ifdef HAVE_LIBRETRO_H

/* ---- one loaded core -------------------------------------------------------------------- */

typedef struct {
    void *so;
    void (*set_environment)(retro_environment_t);
    void (*set_video_refresh)(retro_video_refresh_t);
    void (*set_audio_sample)(retro_audio_sample_t);
    void (*set_audio_sample_batch)(retro_audio_sample_batch_t);
    void (*set_input_poll)(retro_input_poll_t);
    void (*set_input_state)(retro_input_state_t);
    void (*init)(void);
    void (*deinit)(void);
    unsigned (*api_version)(void);
    void (*get_system_info)(struct retro_system_info *);
    void (*get_system_av_info)(struct retro_system_av_info *);
    unsigned (*get_region)(void);
    void (*reset)(void);
    void (*run)(void);
    size_t (*serialize_size)(void);
    bool (*serialize)(void *, size_t);
    bool (*unserialize)(const void *, size_t);
    bool (*load_game)(const struct retro_game_info *);
    void (*unload_game)(void);
    void *(*get_memory_data)(unsigned);
    size_t (*get_memory_size)(unsigned);
} core;

/* What the frontend side holds: the options the core reads, what it last drew and sounded,
 * the hashes of everything since the last hash_start, the buttons held. */
static struct {
    const emu_console *con;      /* the console whose hashing rules apply (NULL: peers) */
    char renderer[16];           /* value of the core's renderer option */
    char model[16];              /* value of the core's model option ("": none given) */
    char mmc3[16];               /* value of the NES core's MMC3 revision option ("": none) */
    int options_changed;
    int declared_renderer;       /* the core declared a renderer option */
    struct {                     /* the options the core declared: key, "Desc; a|b|c" */
        char key[64], def[64], text[256];
    } opt[32];
    int nopt;
    enum retro_pixel_format fmt;
    int video_frames, dupes;
    size_t audio_frames;
    int mono_ok;                 /* a mono console's left and right samples were equal */
    gv_hasher *vh, *ah;
    uint8_t *rgb;
    int16_t *mono;
    const emu_movie *movie;      /* buttons by frame, or NULL */
    uint64_t frame;              /* retro_run calls since the game was loaded */
    int errors;                  /* messages the core logged at the error level */
    int warnings;                /* messages the core logged at the warning level */
    char sysdir[256];
    char *const *set;            /* "key=value" options given on the command line, or NULL */
    int nset;
    uint8_t *shot;               /* the last frame drawn, RGB888 (screenshot mode), or NULL */
    unsigned shot_w, shot_h;
} fe;

static void fe_log(enum retro_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (level >= RETRO_LOG_WARN) {
        fprintf(stderr, "core log: ");
        vfprintf(stderr, fmt, ap);
    }
    va_end(ap);
    if (level == RETRO_LOG_ERROR)
        fe.errors++;
    if (level == RETRO_LOG_WARN)
        fe.warnings++;
}

static bool fe_env(unsigned cmd, void *data)
{
    switch (cmd) {
    case RETRO_ENVIRONMENT_SET_VARIABLES:
        fe.nopt = 0;
        for (const struct retro_variable *v = data; v->key; v++) {
            if (strstr(v->key, "_renderer") && strstr(v->value, "native|host"))
                fe.declared_renderer = 1;
            if (fe.nopt < (int)GV_ARRAY_LEN(fe.opt)) { /* the default is the first value */
                const char *vals = strstr(v->value, "; ");
                vals = vals ? vals + 2 : "";
                snprintf(fe.opt[fe.nopt].key, sizeof fe.opt[0].key, "%s", v->key);
                snprintf(fe.opt[fe.nopt].text, sizeof fe.opt[0].text, "%s", v->value);
                snprintf(fe.opt[fe.nopt].def, sizeof fe.opt[0].def, "%.*s", (int)strcspn(vals, "|"), vals);
                fe.nopt++;
            }
        }
        return true;
    case RETRO_ENVIRONMENT_GET_VARIABLE: {
        struct retro_variable *v = data;
        if (strstr(v->key, "gpuvet_") && strstr(v->key, "_renderer") && fe.renderer[0]) {
            v->value = fe.renderer;
            return true;
        }
        if (strstr(v->key, "gpuvet_") && strstr(v->key, "_model") && fe.model[0]) {
            v->value = fe.model;
            return true;
        }
        if (!strcmp(v->key, "gpuvet_mmc3_rev") && fe.mmc3[0]) {
            v->value = fe.mmc3;
            return true;
        }
        for (int i = 0; i < fe.nset; i++) {
            size_t k = strcspn(fe.set[i], "=");
            if (strlen(v->key) == k && !strncmp(v->key, fe.set[i], k) && fe.set[i][k]) {
                v->value = fe.set[i] + k + 1;
                return true;
            }
        }
        /* any other option: its default, as a frontend answers (cores read it unchecked) */
        for (int i = 0; i < fe.nopt; i++)
            if (!strcmp(v->key, fe.opt[i].key)) {
                v->value = fe.opt[i].def;
                return true;
            }
        v->value = NULL;
        return false;
    }
    case RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE:
        *(bool *)data = fe.options_changed;
        fe.options_changed = 0;
        return true;
    case RETRO_ENVIRONMENT_SET_PIXEL_FORMAT: {
        enum retro_pixel_format f = *(const enum retro_pixel_format *)data;
        if (f != RETRO_PIXEL_FORMAT_XRGB8888 && f != RETRO_PIXEL_FORMAT_RGB565)
            return false;
        fe.fmt = f;
        return true;
    }
    case RETRO_ENVIRONMENT_GET_LOG_INTERFACE:
        ((struct retro_log_callback *)data)->log = fe_log;
        return true;
    case RETRO_ENVIRONMENT_GET_CAN_DUPE:
        *(bool *)data = true;
        return true;
    case RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY:
    case RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY:
    case RETRO_ENVIRONMENT_GET_CORE_ASSETS_DIRECTORY:
        *(const char **)data = fe.sysdir;
        return true;
    default:
        return false;
    }
}

static void hash_u64(gv_hasher *h, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    gv_hasher_update(h, le, 8);
}

/* Screenshot mode: the frame as RGB888 in fe.shot, from any of the three pixel formats
 * (5- and 6-bit channels widened by repeating their high bits). */
static void shot_take(const void *data, unsigned w, unsigned h, size_t pitch)
{
    uint8_t *p = realloc(fe.shot, (size_t)w * h * 3);
    if (!p)
        return;
    fe.shot = p;
    fe.shot_w = w;
    fe.shot_h = h;
    for (unsigned y = 0; y < h; y++) {
        const uint8_t *row = (const uint8_t *)data + y * pitch;
        for (unsigned x = 0; x < w; x++, p += 3) {
            if (fe.fmt == RETRO_PIXEL_FORMAT_XRGB8888) {
                uint32_t c = ((const uint32_t *)row)[x];
                p[0] = (uint8_t)(c >> 16), p[1] = (uint8_t)(c >> 8), p[2] = (uint8_t)c;
            } else if (fe.fmt == RETRO_PIXEL_FORMAT_RGB565) {
                unsigned c = ((const uint16_t *)row)[x], r = c >> 11, g = (c >> 5) & 63, b = c & 31;
                p[0] = (uint8_t)(r << 3 | r >> 2), p[1] = (uint8_t)(g << 2 | g >> 4), p[2] = (uint8_t)(b << 3 | b >> 2);
            } else { /* 0RGB1555, the format of a core that sets none */
                unsigned c = ((const uint16_t *)row)[x], r = (c >> 10) & 31, g = (c >> 5) & 31, b = c & 31;
                p[0] = (uint8_t)(r << 3 | r >> 2), p[1] = (uint8_t)(g << 3 | g >> 2), p[2] = (uint8_t)(b << 3 | b >> 2);
            }
        }
    }
}

/* A frame: back to the console's RGB888 and into the video hash by the console's rule. */
static void fe_video(const void *data, unsigned w, unsigned h, size_t pitch)
{
    if (!data) {
        fe.dupes++;
        return;
    }
    fe.video_frames++;
    if (fe.set)
        shot_take(data, w, h, pitch);
    /* a frame of its own size, at most the console's largest (the SNES: 256x224 to 512x478) */
    if (!fe.con || fe.fmt != RETRO_PIXEL_FORMAT_XRGB8888 || (int)w > fe.con->width || (int)h > fe.con->height ||
        (!fe.con->frame_size && ((int)w != fe.con->width || (int)h != fe.con->height)))
        return;
    for (unsigned y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)data + y * pitch);
        for (unsigned x = 0; x < w; x++) {
            uint8_t *p = fe.rgb + 3 * ((size_t)y * w + x);
            p[0] = (uint8_t)(row[x] >> 16);
            p[1] = (uint8_t)(row[x] >> 8);
            p[2] = (uint8_t)row[x];
        }
    }
    size_t n = (size_t)w * h * 3;
    if (fe.con->hash_of_frame_hashes)
        hash_u64(fe.vh, gv_hash64(fe.rgb, n));
    else
        gv_hasher_update(fe.vh, fe.rgb, n);
}

/* Stereo samples: as they are, or for a mono console its left channel (the right must
 * equal it). */
static size_t fe_audio(const int16_t *s, size_t n)
{
    fe.audio_frames += n;
    if (!fe.con)
        return n;
    if (fe.con->audio_channels == 2) {
        gv_hasher_update(fe.ah, s, n * 4);
        return n;
    }
    fe.mono = realloc(fe.mono, (n + 1) * sizeof *fe.mono);
    for (size_t i = 0; i < n; i++) {
        fe.mono[i] = s[2 * i];
        if (s[2 * i] != s[2 * i + 1])
            fe.mono_ok = 0;
    }
    gv_hasher_update(fe.ah, fe.mono, n * 2);
    return n;
}

static void fe_audio1(int16_t l, int16_t r)
{
    int16_t s[2] = {l, r};
    fe_audio(s, 1);
}

static void fe_poll(void) {}

static int16_t fe_input(unsigned port, unsigned device, unsigned index, unsigned id)
{
    if (fe.movie && fe.con && !port && device == RETRO_DEVICE_ANALOG && index == RETRO_DEVICE_INDEX_ANALOG_LEFT &&
        id <= RETRO_DEVICE_ID_ANALOG_Y) { /* the left stick: the console's first two axes */
        int16_t ax[EMU_MAX_AXES];
        emu_movie_axes(fe.movie, fe.frame, ax);
        return ax[id];
    }
    if (!fe.movie || !fe.con || port || device != RETRO_DEVICE_JOYPAD || index)
        return 0;
    emu_buttons b = emu_movie_at(fe.movie, fe.frame);
    /* the console's button names, bit 0 first, as the core maps them */
    static const char *const names[] = {"B", "Y", "Select", "Start", "Up", "Down", "Left", "Right",
                                        "A", "X", "L", "R"}; /* RETRO_DEVICE_ID_JOYPAD_* order */
    if (id >= GV_ARRAY_LEN(names))
        return 0;
    int bit = 0;
    for (const char *p = fe.con->buttons; *p; bit++) {
        size_t k = strcspn(p, " ");
        if (strlen(names[id]) == k && !strncasecmp(p, names[id], k))
            return (b >> bit) & 1;
        p += k;
        p += strspn(p, " ");
    }
    return 0;
}

static void hash_start(void)
{
    if (fe.vh)
        gv_hasher_free(fe.vh);
    if (fe.ah)
        gv_hasher_free(fe.ah);
    fe.vh = gv_hasher_new();
    fe.ah = gv_hasher_new();
    fe.video_frames = fe.dupes = 0;
    fe.audio_frames = 0;
    fe.mono_ok = 1;
}

static int core_open(core *c, const char *path)
{
    memset(c, 0, sizeof *c);
    if (!(c->so = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return 0;
    }
    int ok = 1;
#define SYM(field, name)                                                                       \
    do {                                                                                       \
        *(void **)&c->field = dlsym(c->so, name);                                              \
        if (!c->field) {                                                                       \
            fprintf(stderr, "%s: no %s\n", path, name);                                        \
            ok = 0;                                                                            \
        }                                                                                      \
    } while (0)
    SYM(set_environment, "retro_set_environment");
    SYM(set_video_refresh, "retro_set_video_refresh");
    SYM(set_audio_sample, "retro_set_audio_sample");
    SYM(set_audio_sample_batch, "retro_set_audio_sample_batch");
    SYM(set_input_poll, "retro_set_input_poll");
    SYM(set_input_state, "retro_set_input_state");
    SYM(init, "retro_init");
    SYM(deinit, "retro_deinit");
    SYM(api_version, "retro_api_version");
    SYM(get_system_info, "retro_get_system_info");
    SYM(get_system_av_info, "retro_get_system_av_info");
    SYM(get_region, "retro_get_region");
    SYM(reset, "retro_reset");
    SYM(run, "retro_run");
    SYM(serialize_size, "retro_serialize_size");
    SYM(serialize, "retro_serialize");
    SYM(unserialize, "retro_unserialize");
    SYM(load_game, "retro_load_game");
    SYM(unload_game, "retro_unload_game");
    SYM(get_memory_data, "retro_get_memory_data");
    SYM(get_memory_size, "retro_get_memory_size");
#undef SYM
    if (!ok)
        return 0;
    c->set_environment(fe_env);
    c->set_video_refresh(fe_video);
    c->set_audio_sample(fe_audio1);
    c->set_audio_sample_batch(fe_audio);
    c->set_input_poll(fe_poll);
    c->set_input_state(fe_input);
    c->init();
    return 1;
}

static void core_close(core *c)
{
    if (c->so) {
        c->deinit();
        dlclose(c->so);
    }
    memset(c, 0, sizeof *c);
}

/* Loads the ROM file into the core (from memory, with its path, as RetroArch does). */
static int game_load(core *c, const char *rom)
{
    uint8_t *data;
    size_t len;
    gv_err err;
    if (gv_read_file(rom, 64u << 20, &data, &len, &err) != GV_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 0;
    }
    struct retro_game_info g = {rom, data, len, NULL};
    int ok = c->load_game(&g);
    free(data);
    fe.frame = 0;
    return ok;
}

static void run_frames(core *c, int n)
{
    for (int i = 0; i < n; i++, fe.frame++)
        c->run();
}

/* Loads rom for a check: the renderer option (NULL: the core's default), the movie (or
 * NULL), hashes from zero; a refusal is the check's failure. */
static int game_start(core *c, const char *rom, const char *name, const char *renderer, const emu_movie *movie)
{
    snprintf(fe.renderer, sizeof fe.renderer, "%s", renderer ? renderer : "");
    fe.movie = movie;
    hash_start();
    if (game_load(c, rom))
        return 1;
    return t_check(0, name, "retro_load_game refused %s", rom);
}

/* A check's name ("libretro gb save RAM") into name, then game_start. */
static int check_begin(core *c, const emu_console *con, const char *rom, const char *what, char *name, size_t len)
{
    snprintf(name, len, "libretro %s %s", con->name, what);
    return game_start(c, rom, name, NULL, NULL);
}

/* The audio renderer the core uses for the renderer option r: a console without a host
 * audio renderer (the SNES for now) sounds natively on both. */
static emu_renderer audio_of(const emu_console *con, emu_renderer r)
{
    return r == EMU_R_HOST && !con->host_audio ? EMU_R_NATIVE : r;
}

/* `gpuvet run`'s engine on the same ROM: its video and audio hashes. */
static int gpuvet_hashes(const emu_console *con, const char *rom, long frames, emu_renderer r, const char *movie,
                         const char *state, uint64_t *vh, uint64_t *ah)
{
    emu_run_opts o = {0};
    o.rom = rom;
    o.frames = frames;
    o.instances = 1;
    o.threads = 1;
    o.video = r;
    o.audio = audio_of(con, r);
    o.no_battery = 1;
    o.input = movie;
    o.save_state = state;
    emu_run_result res;
    gv_err err;
    if (emu_run(&o, &res, NULL, &err) != GV_OK) {
        fprintf(stderr, "emu_run %s: %s\n", rom, err.msg);
        return 0;
    }
    *vh = res.video_hash;
    *ah = res.audio_hash;
    emu_run_result_free(&res);
    return 1;
}

/* ---- the checks --------------------------------------------------------------------------- */

#define FRAMES 300

static void check_info(core *c, const emu_console *con)
{
    char name[64];
    struct retro_system_info si;
    struct retro_system_av_info av;
    c->get_system_info(&si);
    c->get_system_av_info(&av);
    snprintf(name, sizeof name, "libretro %s info", con->name);
    double want_fps = con->frame_rate;
    /* ".gb,.gbc,.sgb" is "gb|gbc|sgb" in libretro's spelling */
    char exts[64];
    size_t k = 0;
    for (const char *p = con->exts; *p && k + 1 < sizeof exts; p++)
        if (*p != '.')
            exts[k++] = *p == ',' ? '|' : *p;
    exts[k] = 0;
    t_check(c->api_version() == RETRO_API_VERSION && strstr(si.library_name, con->title) &&
                !strcmp(si.valid_extensions, exts) && av.geometry.max_width == (unsigned)con->width &&
                av.geometry.max_height == (unsigned)con->height &&
                (con->frame_size ? av.geometry.base_width <= av.geometry.max_width &&
                                       av.geometry.base_height <= av.geometry.max_height
                                 : av.geometry.base_width == (unsigned)con->width &&
                                       av.geometry.base_height == (unsigned)con->height) &&
                fabs(av.timing.fps - want_fps) < 1e-9 &&
                av.timing.sample_rate == con->audio_rate && fe.declared_renderer,
            name, "API %u, \"%s\" %s, extensions %s, %ux%u (at most %ux%u) at %.4f fps, audio %.0f Hz, renderer option %s",
            c->api_version(), si.library_name, si.library_version, si.valid_extensions, av.geometry.base_width,
            av.geometry.base_height, av.geometry.max_width, av.geometry.max_height, av.timing.fps, av.timing.sample_rate,
            fe.declared_renderer ? "declared" : "missing");
}

/* The value of key in a libretro .info file ("key = \"value\""), into val; 0 when absent. */
static int info_value(const char *text, const char *key, char *val, size_t len)
{
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, k) || (p[k] != ' ' && p[k] != '='))
            continue;
        const char *q = strchr(p, '"'), *e = q ? strchr(q + 1, '"') : NULL;
        if (!e)
            return 0;
        snprintf(val, len, "%.*s", (int)(e - q - 1), q + 1);
        return 1;
    }
    return 0;
}

/* The core's .info file (beside it, from make libretro) says what the core says of itself. */
static void check_info_file(core *c, const emu_console *con, const char *so)
{
    char name[64], path[600], ext[64] = "", corename[64] = "", fullpath[16] = "", states[16] = "";
    snprintf(name, sizeof name, "libretro %s .info file", con->name);
    snprintf(path, sizeof path, "%.*s.info", (int)(strlen(so) - 3), so);
    uint8_t *text;
    size_t len;
    gv_err err;
    if (gv_read_file(path, 1 << 20, &text, &len, &err) != GV_OK) {
        t_check(0, name, "%s", err.msg);
        return;
    }
    struct retro_system_info si;
    c->get_system_info(&si);
    info_value((char *)text, "supported_extensions", ext, sizeof ext);
    info_value((char *)text, "corename", corename, sizeof corename);
    info_value((char *)text, "needs_fullpath", fullpath, sizeof fullpath);
    info_value((char *)text, "savestate", states, sizeof states);
    t_check(!strcmp(ext, si.valid_extensions) && !strcmp(corename, si.library_name) &&
                !strcmp(fullpath, si.need_fullpath ? "true" : "false") && !strcmp(states, "true") &&
                c->serialize_size() == 0,
            name, "%s: supported_extensions \"%s\", corename \"%s\", needs_fullpath %s, savestate %s; the core: %s, %s, %s",
            path, ext, corename, fullpath, states, si.valid_extensions, si.library_name,
            si.need_fullpath ? "true" : "false");
    free(text);
}

/* FRAMES frames of rom on the renderer r through the core against emu_run's hashes. */
/* The core's video and audio hashes of `frames` frames of rom against gpuvet run's engine. */
static void check_hashes_n(core *c, const emu_console *con, const char *rom, const char *label, emu_renderer r,
                           int frames)
{
    char name[96];
    snprintf(name, sizeof name, "libretro %s %s hashes %s", con->name, label, emu_renderer_name(r));
    uint64_t gv, ga;
    if (!gpuvet_hashes(con, rom, frames, r, NULL, NULL, &gv, &ga)) {
        t_check(0, name, "gpuvet run's engine failed on %s", rom);
        return;
    }
    if (!game_start(c, rom, name, emu_renderer_name(r), NULL))
        return;
    run_frames(c, frames);
    uint64_t v = gv_hasher_digest(fe.vh), a = gv_hasher_digest(fe.ah);
    c->unload_game();
    char h1[17], h2[17], h3[17], h4[17];
    gv_hash_hex(v, h1), gv_hash_hex(gv, h2), gv_hash_hex(a, h3), gv_hash_hex(ga, h4);
    t_check(v == gv && a == ga && fe.video_frames == frames && fe.mono_ok, name,
            "%d frames: core video %s audio %s (%zu stereo samples%s), gpuvet run video %s audio %s", fe.video_frames,
            h1, h3, fe.audio_frames, fe.mono_ok ? "" : ", left != right", h2, h4);
}

static void check_hashes(core *c, const emu_console *con, const char *rom, const char *label, emu_renderer r)
{
    check_hashes_n(c, con, rom, label, r, FRAMES);
}

/* Every NES ROM the suite built into dir (a test ROM per cartridge board and more): the core
 * starts each and its first 60 frames hash as gpuvet run's, so every board the console
 * accepts runs in the core too. In name order, so the lines come out the same each run. */
static void check_every_nes_rom(core *c, const emu_console *con, const char *dir)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort), runs = 0;
    for (int i = 0; i < n; i++) {
        const char *f = list[i]->d_name;
        size_t len = strlen(f);
        if (len > 4 && !strcmp(f + len - 4, ".nes")) {
            char rom[1024], label[64];
            snprintf(rom, sizeof rom, "%s/%s", dir, f);
            snprintf(label, sizeof label, "%.*s (60 frames)", (int)(len - 4), f);
            check_hashes_n(c, con, rom, label, EMU_R_NATIVE, 60);
            runs++;
        }
        free(list[i]);
    }
    free(list);
    t_check(runs >= 60, "libretro nes every ROM", "%d NES ROMs of %s started in the core (at least 60 expected: one per "
            "board family and the CPU/PPU/APU ROMs)", runs, dir);
}

/* The renderer option changed while the game runs (100 frames native, then 200 on the host
 * renderer): the core carries the machine over, so the 300 frames hash as one native run. */
static void check_switch(core *c, const emu_console *con, const char *rom)
{
    char name[96];
    snprintf(name, sizeof name, "libretro %s renderer switch", con->name);
    uint64_t gv, ga;
    if (!gpuvet_hashes(con, rom, FRAMES, EMU_R_NATIVE, NULL, NULL, &gv, &ga)) {
        t_check(0, name, "gpuvet run's engine failed on %s", rom);
        return;
    }
    if (!game_start(c, rom, name, "native", NULL))
        return;
    run_frames(c, 100);
    snprintf(fe.renderer, sizeof fe.renderer, "host");
    fe.options_changed = 1;
    run_frames(c, FRAMES - 100);
    uint64_t v = gv_hasher_digest(fe.vh), a = gv_hasher_digest(fe.ah);
    c->unload_game();
    fe.renderer[0] = 0;
    t_check(v == gv && a == ga, name,
            "100 frames native, then the option set to host for %d: video %016llx audio %016llx, gpuvet run native "
            "%016llx %016llx",
            FRAMES - 100, (unsigned long long)v, (unsigned long long)a, (unsigned long long)gv, (unsigned long long)ga);
}

/* The options each core declares (key and values, the default first): the renderer on
 * every console, the Game Boy's model, the NES's MMC3 revision. */
static void check_options(const emu_console *con)
{
    char name[96], want[3][2][96], got[512] = "";
    int n = 0;
    snprintf(name, sizeof name, "libretro %s options", con->name);
    snprintf(want[n][0], sizeof want[0][0], "gpuvet_%s_renderer", con->name);
    snprintf(want[n++][1], sizeof want[0][1], "native|host");
    if (!strcmp(con->name, "gb")) {
        snprintf(want[n][0], sizeof want[0][0], "gpuvet_gb_model");
        snprintf(want[n++][1], sizeof want[0][1], "auto|dmg|cgb");
    }
    if (!strcmp(con->name, "nes")) {
        snprintf(want[n][0], sizeof want[0][0], "gpuvet_mmc3_rev");
        snprintf(want[n++][1], sizeof want[0][1], "B|A");
    }
    int ok = fe.nopt == n;
    for (int i = 0; i < fe.nopt; i++) {
        const char *vals = strstr(fe.opt[i].text, "; ");
        vals = vals ? vals + 2 : "";
        size_t k = strlen(got);
        snprintf(got + k, sizeof got - k, "%s%s = %s (default %s)", i ? ", " : "", fe.opt[i].key, vals, fe.opt[i].def);
        ok &= i < n && !strcmp(fe.opt[i].key, want[i][0]) && !strcmp(vals, want[i][1]);
    }
    t_check(ok, name, "%d declared, %d expected: %s", fe.nopt, n, got);
}

/* An option that restarts the game, changed while the game runs (50 frames on `from`, then
 * `to`): the game starts again with it, as `gpuvet run` with opts from power-on, and states
 * still save. field: the frontend's value of the option (fe.model, fe.mmc3). With
 * `differs`, the same 100 frames from power-on with `from` must hash otherwise (the option
 * takes effect on this ROM); without, their figures are shown. */
static void check_restart_switch(core *c, const emu_console *con, const char *rom, const char *what, char *field,
                                 const char *from, const char *to, emu_opts opts, int differs)
{
    char name[96];
    snprintf(name, sizeof name, "libretro %s %s switch", con->name, what);
    emu_run_result res;
    gv_err err;
    /* 100 frames from power-on on `from`, through the core */
    snprintf(field, 16, "%s", from);
    if (!game_start(c, rom, name, NULL, NULL)) {
        field[0] = 0;
        return;
    }
    run_frames(c, 100);
    uint64_t v0 = gv_hasher_digest(fe.vh), a0 = gv_hasher_digest(fe.ah);
    c->unload_game();
    emu_run_opts o = {0};
    o.rom = rom;
    o.frames = 100;
    o.instances = o.threads = 1;
    o.no_battery = 1;
    o.opts = opts;
    if (emu_run(&o, &res, NULL, &err) != GV_OK) {
        field[0] = 0;
        t_check(0, name, "gpuvet run's engine: %s", err.msg);
        return;
    }
    snprintf(field, 16, "%s", from);
    if (!game_start(c, rom, name, NULL, NULL)) {
        field[0] = 0;
        emu_run_result_free(&res);
        return;
    }
    run_frames(c, 50);
    snprintf(field, 16, "%s", to);
    fe.options_changed = 1;
    hash_start();
    run_frames(c, 100);
    uint64_t v = gv_hasher_digest(fe.vh), a = gv_hasher_digest(fe.ah);
    size_t n = c->serialize_size();
    uint8_t *st = calloc(1, n + 1);
    int saved = n && c->serialize(st, n);
    c->unload_game();
    field[0] = 0;
    int other = v != v0 || a != a0;
    t_check(v == res.video_hash && a == res.audio_hash && saved && (other || !differs), name,
            "50 frames on %s, then the option set to %s: 100 frames video %016llx audio %016llx, gpuvet run with %s "
            "%016llx %016llx; %s from power-on %016llx %016llx (%s); a state of %zu bytes saved after it: %s",
            from, to, (unsigned long long)v, (unsigned long long)a, to, (unsigned long long)res.video_hash,
            (unsigned long long)res.audio_hash, from, (unsigned long long)v0, (unsigned long long)a0,
            other ? "differs" : "the same frames and samples on this ROM", n, saved ? "yes" : "no");
    free(st);
    emu_run_result_free(&res);
}

/* Save states: run, serialize, run on and hash; unserialize, run as much and hash again. */
static void check_states(core *c, const emu_console *con, const char *rom)
{
    char name[96];
    if (!check_begin(c, con, rom, "state round trip", name, sizeof name))
        return;
    run_frames(c, 100);
    size_t n = c->serialize_size();
    uint8_t *s1 = calloc(1, n + 1), *s2 = calloc(1, n + 1);
    int saved = n > 0 && c->serialize(s1, n);
    hash_start();
    run_frames(c, 120);
    uint64_t v1 = gv_hasher_digest(fe.vh), a1 = gv_hasher_digest(fe.ah);
    int loaded = c->unserialize(s1, n);
    int saved2 = c->serialize(s2, n);
    hash_start();
    run_frames(c, 120);
    uint64_t v2 = gv_hasher_digest(fe.vh), a2 = gv_hasher_digest(fe.ah);
    t_check(saved && loaded && saved2 && !memcmp(s1, s2, n) && v1 == v2 && a1 == a2 && v1 != 0, name,
            "state of %zu bytes at frame 100 (saved %d, loaded %d, saved again identical %d); 120 frames after it "
            "twice: video %016llx / %016llx, audio %016llx / %016llx",
            n, saved, loaded, saved2 && !memcmp(s1, s2, n), (unsigned long long)v1, (unsigned long long)v2,
            (unsigned long long)a1, (unsigned long long)a2);
    /* bad states: another mark, a truncated one, a state with a damaged body */
    snprintf(name, sizeof name, "libretro %s bad states refused", con->name);
    int errors0 = fe.errors;
    uint8_t *bad = malloc(n + 1);
    memcpy(bad, s1, n);
    bad[0] = 'X';
    int r1 = c->unserialize(bad, n);
    int r2 = c->unserialize(s1, 12);
    memcpy(bad, s1, n);
    for (size_t i = 8; i < 40 && i < n; i++)
        bad[i] ^= 0x5A;
    int r3 = c->unserialize(bad, n);
    /* the machine is unchanged: saving now still gives the state loaded above plus 120 frames */
    hash_start();
    int ok_after = c->unserialize(s1, n);
    run_frames(c, 120);
    int same = gv_hasher_digest(fe.vh) == v1 && gv_hasher_digest(fe.ah) == a1;
    t_check(!r1 && !r2 && !r3 && ok_after && same && fe.errors - errors0 == 3, name,
            "wrong mark %s, truncated to 12 bytes %s, damaged header %s (%d errors logged); the good state "
            "still loads and repeats: %s",
            r1 ? "loaded" : "refused", r2 ? "loaded" : "refused", r3 ? "loaded" : "refused", fe.errors - errors0,
            same ? "yes" : "no");
    free(bad);
    free(s1);
    free(s2);
    c->unload_game();
}

/* A NES cartridge whose header names PAL or Dendy timing: the game's AV info has the
 * region's frame rate (26.6017125 MHz / 5 over 341 x 312 dots; the samples stay 48 kHz of
 * the region's own time), libretro's region is PAL, and the frames, the samples and a state
 * round trip are gpuvet run's. */
static void check_region(core *c, const emu_console *con, const char *rom, const char *label)
{
    char name[96];
    snprintf(name, sizeof name, "libretro %s %s timing", con->name, label);
    if (!game_start(c, rom, name, NULL, NULL))
        return;
    struct retro_system_av_info av;
    c->get_system_av_info(&av);
    unsigned region = c->get_region();
    c->unload_game();
    double want = 26601712.5 / 5 / 106392;
    t_check(fabs(av.timing.fps - want) < 1e-9 && av.timing.sample_rate == con->audio_rate && region == RETRO_REGION_PAL,
            name, "%.4f fps (%.4f expected), audio %.0f Hz, region %s", av.timing.fps, want, av.timing.sample_rate,
            region == RETRO_REGION_PAL ? "PAL" : "NTSC");
    check_hashes(c, con, rom, label, EMU_R_HOST);
    check_states(c, con, rom);
}

/* Input through the joypad callback against `gpuvet run --input`: the same hashes and,
 * stronger, the same machine state at the end (the input ROM shows its verdict in memory,
 * not on screen); a run without the movie ends in another state. */
static void check_input(core *c, const emu_console *con, const char *rom, const char *movie_path, const char *what)
{
    char name[96], with[600], without[600];
    snprintf(name, sizeof name, "libretro %s %s", con->name, what);
    snprintf(with, sizeof with, "%s/%s_with.state", fe.sysdir, con->name);
    snprintf(without, sizeof without, "%s/%s_without.state", fe.sysdir, con->name);
    emu_movie movie;
    gv_err err;
    if (emu_movie_load(movie_path, con, &movie, &err) != GV_OK) {
        t_check(0, name, "%s", err.msg);
        return;
    }
    uint64_t gv, ga, nv, na;
    uint8_t *sw = NULL, *so = NULL;
    size_t lw = 0, lo = 0;
    if (!gpuvet_hashes(con, rom, FRAMES, EMU_R_NATIVE, movie_path, with, &gv, &ga) ||
        !gpuvet_hashes(con, rom, FRAMES, EMU_R_NATIVE, NULL, without, &nv, &na) ||
        gv_read_file(with, 0, &sw, &lw, &err) != GV_OK || gv_read_file(without, 0, &so, &lo, &err) != GV_OK) {
        t_check(0, name, "gpuvet run's engine failed on %s", rom);
        emu_movie_free(&movie);
        free(sw);
        return;
    }
    if (!game_start(c, rom, name, NULL, &movie)) {
        emu_movie_free(&movie);
        free(sw);
        free(so);
        return;
    }
    run_frames(c, FRAMES);
    uint64_t v = gv_hasher_digest(fe.vh), a = gv_hasher_digest(fe.ah);
    size_t n = c->serialize_size();
    uint8_t *s = calloc(1, n + 1);
    int saved = c->serialize(s, n);
    size_t len = saved ? (size_t)s[4] | (size_t)s[5] << 8 | (size_t)s[6] << 16 | (size_t)s[7] << 24 : 0;
    int same_state = saved && len == lw && !memcmp(s + 8, sw, lw);
    int other_without = lo != lw || memcmp(so, sw, lw);
    c->unload_game();
    fe.movie = NULL;
    t_check(v == gv && a == ga && same_state && other_without, name,
            "%s through the joypad callback, %d frames: video %016llx audio %016llx, gpuvet run --input %016llx "
            "%016llx; the core's state at the end %s gpuvet run --input --save-state's (%zu bytes), which %s "
            "the state without the movie",
            movie_path, FRAMES, (unsigned long long)v, (unsigned long long)a, (unsigned long long)gv,
            (unsigned long long)ga, same_state ? "equals" : "differs from", lw,
            other_without ? "differs from" : "equals");
    free(s);
    free(sw);
    free(so);
    emu_movie_free(&movie);
}

/* The Game Boy battery ROM counts its boots in battery RAM, which the frontend keeps. */
static void check_sram(core *c, const emu_console *con, const char *rom)
{
    char name[96];
    if (!check_begin(c, con, rom, "save RAM", name, sizeof name))
        return;
    size_t n = c->get_memory_size(RETRO_MEMORY_SAVE_RAM);
    uint8_t *m = c->get_memory_data(RETRO_MEMORY_SAVE_RAM);
    if (!m || n < 3) {
        t_check(0, name, "no save RAM (%zu bytes)", n);
        c->unload_game();
        return;
    }
    run_frames(c, 120);
    uint8_t *saved = malloc(n);
    memcpy(saved, m, n);
    int first = saved[0] == 'G' && saved[1] == 'V' ? saved[2] : -1;
    c->unload_game();
    /* reload: the frontend copies the save file into the core's memory before running */
    game_load(c, rom);
    m = c->get_memory_data(RETRO_MEMORY_SAVE_RAM);
    if (m && c->get_memory_size(RETRO_MEMORY_SAVE_RAM) == n)
        memcpy(m, saved, n);
    run_frames(c, 120);
    m = c->get_memory_data(RETRO_MEMORY_SAVE_RAM);
    int second = m && m[0] == 'G' && m[1] == 'V' ? m[2] : -1;
    c->unload_game();
    t_check(first == 1 && second == 2, name,
            "%zu bytes; boot count the game keeps there: %d after the first run, %d after a reload with the saved "
            "memory handed back",
            n, first, second);
    free(saved);
}

static void check_bad_rom(core *c, const emu_console *con)
{
    char name[96];
    snprintf(name, sizeof name, "libretro %s bad ROM refused", con->name);
    uint8_t junk[1024];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    struct retro_game_info g = {"junk.bin", junk, sizeof junk, NULL};
    int errors0 = fe.errors;
    bool ok = c->load_game(&g);
    struct retro_game_info g0 = {"empty", junk, 0, NULL};
    bool ok0 = c->load_game(&g0);
    t_check(!ok && !ok0 && fe.errors - errors0 == 2 && c->serialize_size() == 0, name,
            "1024 bytes of junk and an empty file: %s, %s; %d errors logged; no game afterwards (state size %zu)",
            ok ? "loaded" : "refused", ok0 ? "loaded" : "refused", fe.errors - errors0, c->serialize_size());
}

/* Builds our own ROMs of a console with the suite's scripts; the folder, or NULL. */
static const char *own_roms(const char *con, char *dir, size_t len)
{
    const char *root = getenv("GV_ROOT"), *build = getenv("GV_BUILD");
    if (!root || !build)
        return NULL;
    snprintf(dir, len, "%s/roms/%s", build, con);
    char cmd[1024];
    if (!strcmp(con, "nes"))
        snprintf(cmd, sizeof cmd, "sh '%s/tests/nes/build_roms.sh' '%s' >/dev/null 2>&1", root, dir);
    else if (!strcmp(con, "snes"))
        snprintf(cmd, sizeof cmd, "PYTHON=\"${PYTHON:-python3}\" sh '%s/tests/roms/snes/build.sh' '%s' >/dev/null 2>&1",
                 root, dir);
    else
        snprintf(cmd, sizeof cmd, "PYTHON=\"${PYTHON:-python3}\" sh '%s/tests/roms/gb/build.sh' '%s' >/dev/null 2>&1",
                 root, dir);
    return system(cmd) == 0 ? dir : NULL;
}

/* A SNES ROM whose header the console ignores and the loader used to refuse: cpu_test with a
 * 512-byte copier header in front, its checksum pair zeroed and its ROM size code claiming
 * 2 KiB. The core loads it as gpuvet run does (one warning logged), and it runs as the
 * untouched ROM does (the program never reads those bytes): same hashes as gpuvet run's
 * engine on the original. */
static void snes_loose_header(core *c, const emu_console *con, const char *rom)
{
    const char *name = "libretro snes header the console ignores";
    uint8_t *d;
    size_t n;
    gv_err err;
    if (gv_read_file(rom, (size_t)8 << 20, &d, &n, &err) != GV_OK) {
        t_check(0, name, "%s", err.msg);
        return;
    }
    uint8_t *x = calloc(1, n + 512);
    memcpy(x + 512, d, n);
    uint8_t *h = x + 512 + 0x7FC0;
    h[0x17] = 0x01, h[0x1C] = h[0x1D] = h[0x1E] = h[0x1F] = 0;
    char loose[600];
    snprintf(loose, sizeof loose, "%s/loose_header.smc", fe.sysdir);
    FILE *f = fopen(loose, "wb");
    int wrote = f && fwrite(x, 1, n + 512, f) == n + 512;
    if (f)
        fclose(f);
    free(d), free(x);
    uint64_t gv, ga;
    if (!wrote || !gpuvet_hashes(con, rom, FRAMES, EMU_R_NATIVE, NULL, NULL, &gv, &ga)) {
        t_check(0, name, "could not write %s or run %s", loose, rom);
        return;
    }
    int w0 = fe.warnings;
    if (!game_start(c, loose, name, "native", NULL))
        return;
    int warned = fe.warnings - w0;
    run_frames(c, FRAMES);
    uint64_t v = gv_hasher_digest(fe.vh), a = gv_hasher_digest(fe.ah);
    c->unload_game();
    char h1[17], h2[17];
    gv_hash_hex(v, h1), gv_hash_hex(gv, h2);
    t_check(warned == 1 && v == gv && a == ga, name,
            "%s (copier header, checksum pair zeroed, ROM size code $01): loaded with %d warning(s) (want 1); "
            "%d frames video %s, the untouched ROM under gpuvet run %s; audio %s",
            loose, warned, FRAMES, h1, h2, a == ga ? "equal" : "differs");
}

/* The SNES has no built-in demo ROM: its own ROMs take every check. Input: cpu_test's
 * check 11 reads controller 1 through the joypad auto-read and fails (status 11) when a
 * button is held, so tests/libretro/input_snes.txt (B held from power-on) must give
 * `gpuvet run --input`'s machine state through the core and turn the ROM's verdict. */
static void snes_own(core *c, const emu_console *con, const char *dir)
{
    static const char *const roms[] = {"cpu_test", "ppu_scene", "bench_scene",
                                       "spc_test", "sa1_test", "gsu_scene",
                                       "msu_test"};
    char rom[600], movie[600];
    for (size_t i = 0; i < GV_ARRAY_LEN(roms); i++) {
        snprintf(rom, sizeof rom, "%s/%s.sfc", dir, roms[i]);
        check_hashes(c, con, rom, roms[i], EMU_R_NATIVE);
        check_hashes(c, con, rom, roms[i], EMU_R_HOST);
    }
    /* the 5A22 timing and open-bus ROMs (issue 38): the core starts them and gives gpuvet run's frames */
    static const char *const timing[] = {"mdr_test", "irq_h0", "hdma_init", "dma_time", "dma_wram",
                                         "dma_hdma", "irq_153", "joy_busy", "refresh_test"};
    for (size_t i = 0; i < GV_ARRAY_LEN(timing); i++) {
        char trom[600];
        snprintf(trom, sizeof trom, "%s/%s.sfc", dir, timing[i]);
        check_hashes_n(c, con, trom, timing[i], EMU_R_NATIVE, 120);
    }
    check_switch(c, con, rom);
    check_states(c, con, rom);
    /* the frame sizes: each frame handed over at its own size (512x224, 512x478, 256x239) */
    static const char *const sized[] = {"hires_m5", "hires_il", "overscan"};
    for (size_t i = 0; i < GV_ARRAY_LEN(sized); i++) {
        snprintf(rom, sizeof rom, "%s/%s.sfc", dir, sized[i]);
        check_hashes(c, con, rom, sized[i], EMU_R_NATIVE);
    }
    snprintf(rom, sizeof rom, "%s/midline_test.sfc", dir); /* writes inside lines */
    check_hashes(c, con, rom, "midline_test", EMU_R_NATIVE);
    /* mosaic on mode 5's hi-res BGs (512x224, and 512x478 with interlace) */
    static const char *const mosaic[] = {"hires_mosaic", "hires_il_mosaic"};
    for (size_t i = 0; i < GV_ARRAY_LEN(mosaic); i++) {
        snprintf(rom, sizeof rom, "%s/%s.sfc", dir, mosaic[i]);
        check_hashes(c, con, rom, mosaic[i], EMU_R_NATIVE);
    }
    /* interlace's 263-line frames in field 0 (il_timing.s) */
    snprintf(rom, sizeof rom, "%s/il_timing.sfc", dir);
    check_hashes_n(c, con, rom, "il_timing", EMU_R_NATIVE, 120);
    fe.renderer[0] = 0;
    snprintf(rom, sizeof rom, "%s/cpu_test.sfc", dir);
    snes_loose_header(c, con, rom);
    snprintf(movie, sizeof movie, "%s/tests/libretro/input_snes.txt", getenv("GV_ROOT"));
    check_input(c, con, rom, movie, "input");
    /* the ROM's own verdict with and without the movie (gpuvet run --test-rom --input) */
    int verdict[2], status[2];
    for (int k = 0; k < 2; k++) {
        emu_run_opts o = {0};
        o.rom = rom;
        o.frames = FRAMES;
        o.instances = o.threads = 1;
        o.video = o.audio = EMU_R_NATIVE;
        o.no_battery = 1;
        o.test_rom = 1;
        o.input = k ? movie : NULL;
        emu_run_result res;
        gv_err err;
        verdict[k] = status[k] = -2;
        if (emu_run(&o, &res, NULL, &err) == GV_OK) {
            verdict[k] = res.test.verdict;
            status[k] = res.test.status;
            emu_run_result_free(&res);
        } else {
            fprintf(stderr, "emu_run %s: %s\n", rom, err.msg);
        }
    }
    t_check(verdict[0] == EMU_TEST_PASSED && verdict[1] == EMU_TEST_FAILED && status[1] == 11,
            "libretro snes input reaches the game",
            "cpu_test without input: %s (status %d); with %s: %s (status %d, check 11 is the joypad read)",
            verdict[0] == EMU_TEST_PASSED ? "passed" : "not passed", status[0], movie,
            verdict[1] == EMU_TEST_FAILED ? "failed" : "not failed", status[1]);
}

static void test_console(const emu_console *con, const char *cores)
{
    char path[600], name[96], rom[600], dir[512];
    snprintf(path, sizeof path, "%s/gpuvet_%s_libretro.so", cores, con->name);
    snprintf(name, sizeof name, "libretro %s core", con->name);
    struct stat st;
    /* GV_LIBRETRO_CONSOLES (the Makefile's LR_CONSOLES): the consoles that have a core; a
     * core of one of them that is missing is a failure, another console's a skip */
    const char *built = getenv("GV_LIBRETRO_CONSOLES");
    char want[64];
    snprintf(want, sizeof want, " %s ", con->name);
    char list[256];
    snprintf(list, sizeof list, " %s ", built ? built : "");
    if (built && !strstr(list, want)) {
        t_skip(name, "the Makefile builds no libretro core for the %s (LR_CONSOLES = %s)", con->title, built);
        return;
    }
    if (stat(path, &st)) {
        if (built)
            t_check(0, name, "%s is not built although LR_CONSOLES names it (make libretro)", path);
        else
            t_skip(name, "%s is not built (make libretro builds it; make test does)", path);
        return;
    }
    core c;
    fe.declared_renderer = 0;
    if (!t_check(core_open(&c, path), name, "dlopen %s and its 21 retro_* functions", path))
        return;
    fe.con = con;
    fe.rgb = realloc(fe.rgb, (size_t)con->width * con->height * 3);
    check_info(&c, con);
    check_options(con);
    check_info_file(&c, con, path);
    /* the built-in demo ROM, always there */
    for (const emu_demo_rom *d = emu_demo_roms; d->name; d++) {
        if (strcmp(d->console, con->name))
            continue;
        gv_err err;
        snprintf(rom, sizeof rom, "%s/%s", fe.sysdir, d->name);
        if (emu_demo_rom_write(d, rom, &err) != GV_OK) {
            t_check(0, name, "%s", err.msg);
            continue;
        }
        check_hashes(&c, con, rom, d->name, EMU_R_NATIVE);
        check_hashes(&c, con, rom, d->name, EMU_R_HOST);
        check_switch(&c, con, rom);
        if (!strcmp(con->name, "gb"))
            check_restart_switch(&c, con, rom, "model", fe.model, "dmg", "cgb", (emu_opts){.model = "cgb"}, 1);
        check_states(&c, con, rom);
    }
    fe.renderer[0] = 0;
    /* our own test ROMs, built by the suite's scripts */
    char lname[96];
    snprintf(lname, sizeof lname, "libretro %s own ROMs", con->name);
    if (!own_roms(con->name, dir, sizeof dir)) {
        t_skip(lname, "%s's own test ROMs did not build here (%s); input and save RAM are not checked", con->title,
               !strcmp(con->name, "gb") ? "sdcc and python3" : "ca65/ld65 from Debian's cc65");
    } else if (!strcmp(con->name, "snes")) {
        snes_own(&c, con, dir);
    } else {
        snprintf(rom, sizeof rom, "%s/apu_test.%s", dir, con->name);
        if (!stat(rom, &st))
            check_hashes(&c, con, rom, "apu_test", EMU_R_NATIVE);
        /* a board with FM sound (the VRC7: its levels run in the core) */
        snprintf(rom, sizeof rom, "%s/vrc7a.nes", dir);
        if (!strcmp(con->name, "nes") && !stat(rom, &st))
            check_hashes(&c, con, rom, "vrc7a", EMU_R_HOST);
        /* a board ROM of each family that issue 37 added: the core runs them as gpuvet run does */
        static const char *nes_boards[] = {"g101", "h3001", "tc0690", "x1005", "sunsoft3", "sunsoft4", "vrc1", "vrc3",
                                           "namco3446", "namco3453", "cnrom185s5"};
        for (size_t i = 0; !strcmp(con->name, "nes") && i < sizeof nes_boards / sizeof nes_boards[0]; i++) {
            snprintf(rom, sizeof rom, "%s/%s.nes", dir, nes_boards[i]);
            if (!stat(rom, &st))
                check_hashes(&c, con, rom, nes_boards[i], EMU_R_NATIVE);
        }
        if (!strcmp(con->name, "nes"))
            check_every_nes_rom(&c, con, dir);
        /* and the Bandai FCG with its EEPROM, the SS 88006, the RAMBO-1, the Namco 340, the
         * Namco 163 with its sound */
        static const char *const boards[] = {"fcg5", "ss88006", "rambo1", "namco340", "n163"};
        for (size_t i = 0; !strcmp(con->name, "nes") && i < sizeof boards / sizeof boards[0]; i++) {
            snprintf(rom, sizeof rom, "%s/%s.nes", dir, boards[i]);
            if (!stat(rom, &st))
                check_hashes(&c, con, rom, boards[i], EMU_R_NATIVE);
        }
        snprintf(rom, sizeof rom, "%s/input_test.%s", dir, con->name);
        char movie[512];
        snprintf(movie, sizeof movie, "%s/tests/emu/input_%s.txt", getenv("GV_ROOT"), con->name);
        check_input(&c, con, rom, movie, "input");
        /* the MBC7's tilt from the left analog stick */
        snprintf(rom, sizeof rom, "%s/mbc7_test.gb", dir);
        snprintf(movie, sizeof movie, "%s/tests/emu/input_mbc7.txt", getenv("GV_ROOT"));
        if (!strcmp(con->name, "gb"))
            check_input(&c, con, rom, movie, "tilt (left stick)");
        /* the MMC3 revision restarts the game with it (whether rev A changes this ROM's
         * frames is the NES console's business: shown, not required) */
        snprintf(rom, sizeof rom, "%s/mmc3_irq.nes", dir);
        if (!strcmp(con->name, "nes"))
            check_restart_switch(&c, con, rom, "MMC3 revision", fe.mmc3, "B", "A", (emu_opts){.mmc3_rev = "A"}, 0);
        /* a board with a sound chip of its own beside the APU (the MMC5: pulses, PCM, split) */
        snprintf(rom, sizeof rom, "%s/mmc5x.nes", dir);
        if (!strcmp(con->name, "nes") && !stat(rom, &st))
            check_hashes(&c, con, rom, "mmc5x", EMU_R_NATIVE);
        /* the region from the header */
        snprintf(rom, sizeof rom, "%s/region_pal.nes", dir);
        if (!strcmp(con->name, "nes"))
            check_region(&c, con, rom, "region_pal");
        snprintf(rom, sizeof rom, "%s/region_dendy.nes", dir);
        if (!strcmp(con->name, "nes"))
            check_region(&c, con, rom, "region_dendy");
        snprintf(rom, sizeof rom, "%s/battery_test.%s", dir, con->name);
        if (!stat(rom, &st))
            check_sram(&c, con, rom);
    }
    check_bad_rom(&c, con);
    core_close(&c);
}

/* ---- bench mode ----------------------------------------------------------------------------- */

static int bench(const char *so, const char *rom, long frames)
{
    core c;
    fe.con = NULL;
    if (!core_open(&c, so))
        return 2;
    if (!game_load(&c, rom)) {
        fprintf(stderr, "test_libretro --bench: %s refused %s\n", so, rom);
        return 2;
    }
    run_frames(&c, 60 < frames ? 60 : frames); /* warm-up */
    double t0 = gv_now(), c0 = gv_cpu_now();
    run_frames(&c, (int)frames);
    double s = gv_now() - t0, cs = gv_cpu_now() - c0;
    printf("fps %.1f cpu_fps %.1f frames %ld seconds %.3f cpu_seconds %.3f video_frames %d\n", frames / s,
           cs > 0 ? frames / cs : 0, frames, s, cs, fe.video_frames);
    c.unload_game();
    core_close(&c);
    return 0;
}

/* ---- screenshot mode ------------------------------------------------------------------------ */

/* set: the KEY=VALUE options (n of them). Exit status 0, or 2 when the core or the ROM is
 * refused, no frame was drawn or the PNG cannot be written (the reason on stderr). */
static int screenshot(const char *so, const char *rom, long frames, const char *png, char *const *set, int n)
{
    static char *const none[1] = {NULL};
    core c;
    fe.con = NULL;
    fe.set = n ? set : none; /* non-NULL: keep the frames */
    fe.nset = n;
    if (!core_open(&c, so))
        return 2;
    int rc = 2;
    if (!game_load(&c, rom)) {
        fprintf(stderr, "test_libretro --screenshot: %s refused %s\n", so, rom);
        goto done;
    }
    /* every option given must be one the core declared, with one of its values */
    for (int i = 0; i < n; i++) {
        size_t k = strcspn(set[i], "=");
        const char *text = NULL;
        for (int j = 0; j < fe.nopt; j++)
            if (strlen(fe.opt[j].key) == k && !strncmp(fe.opt[j].key, set[i], k))
                text = fe.opt[j].text;
        const char *vals = text ? strstr(text, "; ") : NULL, *v = set[i] + k + (set[i][k] != 0);
        int found = 0;
        for (const char *p = vals ? vals + 2 : ""; *p; p += strcspn(p, "|"), p += *p == '|')
            found |= strcspn(p, "|") == strlen(v) && !strncmp(p, v, strlen(v));
        if (!found) {
            fprintf(stderr, "test_libretro --screenshot: %s does not take %s; its options:\n", so, set[i]);
            for (int j = 0; j < fe.nopt; j++)
                fprintf(stderr, "  %s: %s\n", fe.opt[j].key, fe.opt[j].text);
            c.unload_game();
            goto done;
        }
    }
    run_frames(&c, (int)frames);
    gv_err err;
    if (!fe.shot)
        fprintf(stderr, "test_libretro --screenshot: %s drew no frame in %ld\n", so, frames);
    else if (gv_png_write_rgb(png, fe.shot, (int)fe.shot_w, (int)fe.shot_h, &err) != GV_OK)
        fprintf(stderr, "test_libretro --screenshot: %s\n", err.msg);
    else
        rc = 0;
    c.unload_game();
done:
    core_close(&c);
    free(fe.shot);
    fe.shot = NULL;
    return rc;
}

/* Screenshot mode on our own core against `gpuvet run --png`: the same picture after the
 * same frames, on the model given as a core option (the Game Boy's demo ROM on the CGB). */
static void check_screenshot(const emu_console *con, const char *so)
{
    const emu_demo_rom *d = emu_demo_roms;
    while (d->name && strcmp(d->console, con->name))
        d++;
    if (!d->name || strcmp(con->name, "gb"))
        return;
    char rom[600], got[600], want[600], opt[64];
    snprintf(rom, sizeof rom, "%s/%s", fe.sysdir, d->name);
    snprintf(got, sizeof got, "%s/shot_core.png", fe.sysdir);
    snprintf(want, sizeof want, "%s/shot_run.png", fe.sysdir);
    snprintf(opt, sizeof opt, "gpuvet_%s_model=cgb", con->name);
    char *set[1] = {opt};
    int rc = screenshot(so, rom, 90, got, set, 1);
    fe.set = NULL;
    fe.nset = 0;
    emu_run_opts o = {0};
    o.rom = rom;
    o.opts.model = "cgb";
    o.frames = 90;
    o.instances = o.threads = 1;
    o.video = EMU_R_NATIVE;
    o.audio = EMU_R_NONE;
    o.no_battery = 1;
    o.png = want;
    emu_run_result res;
    gv_err err;
    uint8_t *a = NULL, *b = NULL;
    int aw = 0, ah = 0, bw = 0, bh = 0, ok = 0;
    if (rc == 0 && emu_run(&o, &res, NULL, &err) == GV_OK) {
        emu_run_result_free(&res);
        ok = gv_png_read_rgb(got, &a, &aw, &ah, &err) == GV_OK && gv_png_read_rgb(want, &b, &bw, &bh, &err) == GV_OK &&
             aw == bw && ah == bh && !memcmp(a, b, (size_t)aw * ah * 3);
    }
    t_check(ok, "libretro gb screenshot mode", "--screenshot %s 90 frames with %s: exit %d, %dx%d; gpuvet run --model cgb "
            "--frames 90 --png: %dx%d, %s", d->name, opt, rc, aw, ah, bw, bh, ok ? "the same pixels" : "different");
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    snprintf(fe.sysdir, sizeof fe.sysdir, "/tmp/gv_libretro.XXXXXX");
    if (!mkdtemp(fe.sysdir)) {
        perror("mkdtemp");
        return 3;
    }
    int rc;
    if (argc == 5 && !strcmp(argv[1], "--bench")) {
        rc = bench(argv[2], argv[3], atol(argv[4]));
    } else if (argc >= 6 && !strcmp(argv[1], "--screenshot")) {
        rc = screenshot(argv[2], argv[3], atol(argv[4]), argv[5], argv + 6, argc - 6);
    } else if (argc > 1) {
        fprintf(stderr, "usage: test_libretro [--bench CORE.so ROM FRAMES | --screenshot CORE.so ROM FRAMES PNG "
                        "[KEY=VALUE ...]]\n");
        rc = 2;
    } else {
        const char *cores = getenv("GV_LIBRETRO");
        char def[512];
        if (!cores) {
            snprintf(def, sizeof def, "%s/build/libretro", getenv("GV_ROOT") ? getenv("GV_ROOT") : ".");
            cores = def;
        }
        for (int i = 0; emu_consoles[i]; i++) {
            test_console(emu_consoles[i], cores);
            char so[600];
            struct stat st;
            snprintf(so, sizeof so, "%s/gpuvet_%s_libretro.so", cores, emu_consoles[i]->name);
            if (!stat(so, &st))
                check_screenshot(emu_consoles[i], so);
        }
        rc = t_done();
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fe.sysdir);
    if (system(cmd)) {
    }
    return rc;
}

#else

int main(void)
{
    t_skip("libretro", "libretro.h is not installed (Debian's retroarch-dev; make bootstrap-test installs it)");
    return 0;
}

#endif
