/* cmd_emu.c: `gpuvet run [CONSOLE] ROM` and `gpuvet bench [CONSOLE] ROM`, for every console
 * behind emu/common/console.h: flags, then the engines emu_run / emu_bench, then the
 * result as text. The console is named (run nes, run gb: the older spellings) or picked
 * from the file's header and extension. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/hash.h"
#include "core/record.h"
#include "emu/emu_bench.h"
#include "emu/emu_run.h"
#include "emu/registry.h"
#include "report/report.h"

static const cli_help run_help = {
    "run",
    "gpuvet run [nes|gb|snes] ROM [options]",
    "Runs a ROM headless (NES .nes, Game Boy / Color .gb .gbc, SNES .sfc .smc; the console comes from the\n"
    "header, or name it) and prints the hashes of its frames and of its sound.",
    1, "one ROM file (gpuvet run --help)",
};

static const cli_help bench_emu_help = {
    "bench",
    "gpuvet bench [nes|gb|snes] ROM [--instances LIST] [--video LIST] [--audio LIST] [options]",
    "Measures emulation throughput (instance-frames per second) per video and audio renderer and\n"
    "instance count. Every timed run starts from power-on, and every instance's hashes must equal\n"
    "the native renderers' over the same frames (exit 1 otherwise).",
    1, "one ROM file (gpuvet bench --help)",
};

/* Takes a console name off the front of argv (run nes ROM); *console stays NULL when the
 * first word is no console's name. cmd (32 bytes) becomes the command's name for messages
 * and the record: verb, then the console when one was named ("run nes"). */
static void console_word(int *argc, char ***argv, const char *verb, char cmd[32], const char **console)
{
    *console = NULL;
    if (*argc > 0 && emu_console_find((*argv)[0])) {
        *console = (*argv)[0];
        (*argc)--;
        (*argv)++;
    }
    snprintf(cmd, 32, "%s%s%s", verb, *console ? " " : "", *console ? *console : "");
}

/* --devices and --gpu as the emulation commands spell them (spec: const char **, gpu: long *). */
#define EMU_DEVICE_SPECS(spec, gpu)                                                                                     \
    {"--devices", ARGS_STR, (spec), "LIST", "the GPU of the device renderers: cuda or cuda:N (the CPU may be listed too; default: GPU 0 when present)", 0, 0, 0, 0, NULL}, \
    {"--gpu", ARGS_INT, (gpu), "N", "the older spelling of --devices cuda:N", 0, 63, 0, 0, NULL}

/* The GPU of an emulation command's device renderers into *d: from --devices (spec; one GPU
 * at most, the CPU may be listed too) or --gpu N (gpu >= 0, the older spelling of --devices
 * cuda:N; given both, they must name the same GPU). Given neither, GPU 0 when the runtime
 * sees one, asked only when the renderers need it: `device` (the device renderer asked for,
 * as its flag says it: "--video device"; NULL for none) or `by_default` (bench picks its
 * renderers by what there is). *d is the CPU when no GPU is named or found; a device renderer
 * then fails in the engine (exit 3, as without these flags). Returns 0, or the exit code
 * after the one error line: 2 for a bad list, two GPUs, --gpu against --devices, or a device
 * renderer with no GPU in --devices; 3 for a GPU that this build or the runtime lacks. */
static int emu_device(const char *cmd, const char *spec, long gpu, const char *device, int by_default, dev_id *d)
{
    *d = DEV_ID_CPU;
    dev_id devs[CLI_MAX_DEV];
    int n = 0, ngpu = 0;
    gv_err err = {{0}};
    gv_status st;
    char what[48] = "";
    if (!spec && gpu < 0) {
        if ((device || by_default) && dev_parse_list(NULL, devs, CLI_MAX_DEV, &n, &err) == GV_OK)
            for (int i = 0; i < n; i++)
                if (devs[i].kind == DEV_GPU && d->kind != DEV_GPU)
                    *d = devs[i];
        return 0;
    }
    if (spec) {
        if ((st = dev_parse_names(spec, devs, CLI_MAX_DEV, &n, &err)) != GV_OK)
            return cli_fail(cmd, st, &err);
        for (int i = 0; i < n; i++)
            if (devs[i].kind == DEV_GPU && ngpu++ == 0)
                *d = devs[i];
        if (ngpu > 1) {
            fprintf(stderr, "gpuvet %s: --devices %s: emulation runs on one GPU; name one (cuda or cuda:N)\n", cmd, spec);
            return GV_EXIT_USAGE;
        }
        snprintf(what, sizeof what, "--devices %s", d->label);
    }
    if (gpu >= 0) {
        if (spec && (d->kind != DEV_GPU || d->index != gpu)) {
            fprintf(stderr, "gpuvet %s: --gpu %ld and --devices %s name different devices; give one (--gpu N is --devices cuda:N)\n",
                    cmd, gpu, spec);
            return GV_EXIT_USAGE;
        }
        char alias[16];
        snprintf(alias, sizeof alias, "gpu:%ld", gpu);
        if ((st = dev_parse_names(alias, d, 1, &n, &err)) != GV_OK)
            return cli_fail(cmd, st, &err);
        snprintf(what, sizeof what, "--gpu %ld", gpu);
    }
    if (device && d->kind != DEV_GPU) {
        fprintf(stderr, "gpuvet %s: %s runs on a GPU, and --devices %s names none; name one (--devices cuda)\n", cmd,
                device, spec);
        return GV_EXIT_USAGE;
    }
    if ((st = dev_check(d, what, &err)) != GV_OK)
        return cli_fail(cmd, st, &err);
    return 0;
}

static int renderer_of(const char *cmd, const char *flag, const char *s, emu_renderer *r)
{
    if (emu_renderer_parse(s, r) == 0)
        return 0;
    fprintf(stderr, "gpuvet %s: %s: '%s' is not one of native, host, device, none\n", cmd, flag, s);
    return -1;
}

static void print_serial(const uint8_t *s, size_t n)
{
    fputs("serial: \"", stdout);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            fputs("\\n", stdout);
        else if (s[i] == '"' || s[i] == '\\')
            printf("\\%c", s[i]);
        else if (s[i] >= 0x20 && s[i] < 0x7F)
            putchar(s[i]);
        else
            printf("\\x%02x", s[i]);
    }
    fputs("\"\n", stdout);
}

/* The cartridge's warning (header fields the console ignores): one line on stderr, and
 * "cart_warning" in the record. */
static void cart_warning(const char *cmd, const char *warning, cJSON *rec)
{
    if (!warning[0])
        return;
    fprintf(stderr, "gpuvet %s: warning: %s\n", cmd, warning);
    cJSON_AddStringToObject(rec, "cart_warning", warning);
}

int cmd_run(int argc, char **argv)
{
    char cmd[32];
    emu_run_opts o = {0};
    console_word(&argc, &argv, "run", cmd, &o.console);
    long frames = 0, instances = 1, threads = 0, gpu = -1;
    const char *video = "native", *audio = "native", *json = NULL, *sav = NULL, *devices = NULL;
    int quiet = 0;
    args_int_list resets = {0};
    const args_spec specs[] = {
        {"--frames", ARGS_INT, &frames, "N", "frames to run (default 60; with --test-rom the limit, default 6000)", 1, 100000000, 0, 0, NULL},
        {"--model", ARGS_CHOICE, &o.opts.model, "M", "Game Boy: dmg or cgb (default: cgb for CGB cartridges, else dmg)", 0, 0, 0, 0, "dmg,cgb"},
        {"--mmc3-rev", ARGS_CHOICE, &o.opts.mmc3_rev, "R", "NES MMC3 chip revision: A or B (default B, the common one)", 0, 0, 0, 0, "A,B"},
        {"--region", ARGS_CHOICE, &o.opts.region, "R", "NES timing: ntsc, pal or dendy (default: the header's; NTSC when it names none)", 0, 0, 0, 0, "ntsc,pal,dendy"},
        {"--video", ARGS_CHOICE, &video, "R", "video renderer: native (default), host, device, none", 0, 0, 0, 0, "native,host,device,none"},
        {"--audio", ARGS_CHOICE, &audio, "R", "audio renderer: native (default), host, device, none", 0, 0, 0, 0, "native,host,device,none"},
        {"--instances", ARGS_INT, &instances, "N", "identical instances run together; all must agree (default 1)", 1, 65535, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "host threads (default: every core)", 1, 4096, 0, 0, NULL},
        EMU_DEVICE_SPECS(&devices, &gpu),
        {"--png", ARGS_STR, &o.png, "FILE", "write the last frame as a PNG", 0, 0, 0, 0, NULL},
        {"--wav", ARGS_STR, &o.wav, "FILE", "write the sound as a 16-bit WAV (48 kHz; mono NES, stereo Game Boy and SNES)", 0, 0, 0, 0, NULL},
        {"--save-state", ARGS_STR, &o.save_state, "FILE", "save the machine after the run", 0, 0, 0, 0, NULL},
        {"--load-state", ARGS_STR, &o.load_state, "FILE", "load a saved machine before the run", 0, 0, 0, 0, NULL},
        {"--battery", ARGS_STR, &o.battery, "FILE", "battery RAM file, read if present and written at the end (default: ROM name with .sav, for cartridges with a battery)", 0, 0, 0, 0, NULL},
        {"--sav", ARGS_STR, &sav, "FILE", "the older spelling of --battery", 0, 0, 0, 0, NULL},
        {"--no-battery", ARGS_FLAG, &o.no_battery, NULL, "neither read nor write a battery file", 0, 0, 0, 0, NULL},
        {"--test-rom", ARGS_FLAG, &o.test_rom, NULL, "run until the test ROM's verdict (status block, serial, LD B,B signature); exit 0 passed, 1 otherwise", 0, 0, 0, 0, NULL},
        {"--trace", ARGS_STR, &o.trace, "FILE", "one line per instruction (NES: nestest layout; Game Boy: Gameboy Doctor layout; SNES: docs/SNES.md)", 0, 0, 0, 0, NULL},
        {"--frame-hashes", ARGS_STR, &o.frame_hashes, "FILE", "one line per frame: its number, the hash of its RGB frame and of its samples", 0, 0, 0, 0, NULL},
        {"--verify", ARGS_FLAG, &o.verify, NULL, "with --video native: also draw each frame from its log and fail on any difference", 0, 0, 0, 0, NULL},
        {"--input", ARGS_STR, &o.input, "FILE", "controller input movie: lines 'FRAME: BUTTONS' (docs/EMU.md)", 0, 0, 0, 0, NULL},
        {"--reset-at", ARGS_INT_LIST, &resets, "LIST", "press reset before these frames (frame numbers of the machine)", 0, 100000000, 0, 0, NULL},
        ARGS_OUTPUT_SPECS(&json, &quiet),
    };
    const char *pos[1];
    cli_help help = run_help; /* named as the words said it: run, run nes */
    help.name = cmd;
    int code = cli_parse(&help, specs, GV_ARRAY_LEN(specs), argc, argv, pos, &quiet);
    if (code != CLI_GO)
        return code;
    if (sav && o.battery) {
        fprintf(stderr, "gpuvet %s: give --battery or --sav, not both\n", cmd);
        return GV_EXIT_USAGE;
    }
    if ((o.battery || sav) && o.no_battery) {
        fprintf(stderr, "gpuvet %s: --no-battery with --battery: choose one\n", cmd);
        return GV_EXIT_USAGE;
    }
    if (renderer_of(cmd, "--video", video, &o.video) || renderer_of(cmd, "--audio", audio, &o.audio))
        return GV_EXIT_USAGE;
    const char *on_device = o.video == EMU_R_DEVICE ? "--video device" : o.audio == EMU_R_DEVICE ? "--audio device" : NULL;
    if ((code = emu_device(cmd, devices, gpu, on_device, 0, &o.dev)))
        return code;
    for (int i = 1; i < resets.n; i++)
        if (resets.v[i] <= resets.v[i - 1]) {
            fprintf(stderr, "gpuvet %s: --reset-at: give the frames in increasing order (%ld comes after %ld)\n", cmd,
                    resets.v[i], resets.v[i - 1]);
            return GV_EXIT_USAGE;
        }
    o.rom = pos[0];
    o.battery = o.battery ? o.battery : sav;
    o.frames = frames;
    o.instances = (int)instances;
    o.threads = (int)threads;
    o.reset_at = resets.v;
    o.nreset = resets.n;
    cJSON *rec = gv_record_new(cmd, argc, argv);
    emu_run_result r;
    gv_err err;
    gv_status st = emu_run(&o, &r, rec, &err);
    if (st != GV_OK) {
        cJSON_Delete(rec);
        return cli_fail(cmd, st, &err);
    }
    cart_warning(cmd, r.warning, rec);
    char vh[17], ah[17];
    gv_hash_hex(r.video_hash, vh);
    gv_hash_hex(r.audio_hash, ah);
    gv_info("rom: %s: %s%s%s\n", o.rom, r.cart, r.model ? ", model " : "", r.model ? r.model : "");
    if (r.battery_path)
        gv_info("battery: %s (%s)\n", r.battery_path, r.battery_loaded ? "loaded, written back" : "no save yet, written");
    gv_info("ran %ld frames in %.3f s (%.0f instance-frames/s): video %s, audio %s, %d instance%s\n", r.frames,
            r.seconds, r.seconds > 0 ? (double)r.frames * o.instances / r.seconds : 0.0, video, audio, o.instances,
            o.instances > 1 ? "s" : "");
    printf("video_hash %s\naudio_hash %s\n", o.video == EMU_R_NONE ? "none" : vh, o.audio == EMU_R_NONE ? "none" : ah);
    if (r.serial_len)
        print_serial(r.serial, r.serial_len);
    if (r.mismatched)
        fprintf(stderr, "gpuvet %s: %d of %d instances produced hashes that differ from instance 0's\n", cmd, r.mismatched,
                o.instances);
    if (o.test_rom)
        printf("test ROM: %s\n", r.test_line);
    code = r.exit_code;
    emu_run_result_free(&r);
    return cli_finish(cmd, rec, code, json);
}

int cmd_bench_emu(int argc, char **argv)
{
    char cmd[32];
    emu_bench_opts o = {0};
    console_word(&argc, &argv, "bench", cmd, &o.console);
    long frames = 0, repeats = 5, warmup = 1, threads = 0, gpu = -1;
    double seconds = 0, hz = 0;
    args_str_list vl = {0}, al = {0};
    args_int_list il = {0};
    const char *json = NULL, *devices = NULL;
    int quiet = 0;
    const args_spec specs[] = {
        {"--frames", ARGS_INT, &frames, "F", "frames per instance in each run (default: enough for about --seconds)", 1, 10000000, 0, 0, NULL},
        {"--seconds", ARGS_DOUBLE, &seconds, "S", "each timed run lasts at least S seconds (default 1), sized by the warm-up (docs/EMU.md)", 0, 0, 0.01, 3600, NULL},
        {"--repeats", ARGS_INT, &repeats, "R", "timed runs per configuration, taken in rounds across them (default 5)", 1, 1000, 0, 0, NULL},
        {"--warmup", ARGS_INT, &warmup, "N", "untimed runs per configuration first (default 1)", 1, 100, 0, 0, NULL},
        {"--video", ARGS_CHOICE_LIST, &vl, "LIST", "video renderers (default native, plus device with a GPU, else host)", 0, 0, 0, 0, "native,host,device,none"},
        {"--audio", ARGS_CHOICE_LIST, &al, "LIST", "audio renderers (default native)", 0, 0, 0, 0, "native,host,device,none"},
        {"--instances", ARGS_INT_LIST, &il, "LIST", "instance counts, e.g. 1,16,64,256,1024 (default 1)", 1, 65535, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "host threads (default: every core)", 1, 4096, 0, 0, NULL},
        EMU_DEVICE_SPECS(&devices, &gpu),
        {"--model", ARGS_CHOICE, &o.opts.model, "M", "Game Boy: dmg or cgb (default from the header)", 0, 0, 0, 0, "dmg,cgb"},
        {"--mmc3-rev", ARGS_CHOICE, &o.opts.mmc3_rev, "R", "NES MMC3 chip revision: A or B (default B)", 0, 0, 0, 0, "A,B"},
        {"--region", ARGS_CHOICE, &o.opts.region, "R", "NES timing: ntsc, pal or dendy (default from the header)", 0, 0, 0, 0, "ntsc,pal,dendy"},
        {"--input", ARGS_STR, &o.input, "FILE", "controller input movie, the same for every run (docs/EMU.md)", 0, 0, 0, 0, NULL},
        GV_TELEMETRY_HZ_SPEC(&hz),
        ARGS_OUTPUT_SPECS(&json, &quiet),
    };
    const char *pos[1];
    cli_help help = bench_emu_help;
    help.name = cmd;
    int code = cli_parse(&help, specs, GV_ARRAY_LEN(specs), argc, argv, pos, &quiet);
    if (code != CLI_GO)
        return code;
    if (frames > 0 && seconds > 0) {
        fprintf(stderr, "gpuvet %s: give --frames or --seconds, not both\n", cmd);
        return GV_EXIT_USAGE;
    }
    const char *asked = NULL; /* a device renderer asked for, as its flag says it */
    for (int i = 0; i < vl.n && !asked; i++)
        if (!strcmp(vl.v[i], "device"))
            asked = "--video device";
    for (int i = 0; i < al.n && !asked; i++)
        if (!strcmp(al.v[i], "device"))
            asked = "--audio device";
    if ((code = emu_device(cmd, devices, gpu, asked, !vl.n, &o.dev)))
        return code;
    if (!vl.n) {
        snprintf(vl.v[vl.n++], sizeof vl.v[0], "native");
        snprintf(vl.v[vl.n++], sizeof vl.v[0], "%s", o.dev.kind == DEV_GPU ? "device" : "host");
        o.device_default = 1;
    }
    if (!al.n)
        snprintf(al.v[al.n++], sizeof al.v[0], "native");
    if (!il.n)
        il.v[il.n++] = 1;
    if (vl.n > 4 || al.n > 4 || il.n > EMU_BENCH_MAX) {
        fprintf(stderr, "gpuvet %s: at most 4 video and 4 audio renderers and %d instance counts\n", cmd, EMU_BENCH_MAX);
        return GV_EXIT_USAGE;
    }
    for (int i = 0; i < vl.n; i++)
        emu_renderer_parse(vl.v[i], &o.video[o.nvideo++]);
    for (int i = 0; i < al.n; i++)
        emu_renderer_parse(al.v[i], &o.audio[o.naudio++]);
    for (int i = 0; i < il.n; i++)
        o.instances[o.ninstances++] = (int)il.v[i];
    o.rom = pos[0];
    o.frames = frames;
    o.seconds = seconds > 0 ? seconds : 1;
    o.repeats = (int)repeats;
    o.warmup = (int)warmup;
    o.threads = (int)threads;
    int on_device = 0;
    for (int i = 0; i < o.nvideo; i++)
        on_device |= o.video[i] == EMU_R_DEVICE;
    for (int i = 0; i < o.naudio; i++)
        on_device |= o.audio[i] == EMU_R_DEVICE;
    gv_telemetry_opts to = {hz, on_device && o.dev.kind == DEV_GPU ? o.dev.index : -1, NULL, NULL};
    o.tel = gv_telemetry_start(&to);
    cJSON *rec = gv_record_new(cmd, argc, argv);
    emu_bench_result r;
    gv_err err;
    gv_info("rom: %s\n", o.rom);
    gv_status st = emu_bench(&o, &r, rec, &err);
    gv_telemetry_stop(o.tel, rec);
    if (st != GV_OK) {
        cJSON_Delete(rec);
        return cli_fail(cmd, st, &err);
    }
    cart_warning(cmd, r.warning, rec);
    char key[32];
    snprintf(key, sizeof key, "bench_%s", r.con->name);
    gv_info("%s%s%s\n", r.cart, r.gpu_name ? "; GPU " : "", r.gpu_name ? r.gpu_name : "");
    printf("%-7s %-7s %9s %8s %12s %12s %6s %8s  %s\n", "video", "audio", "instances", "frames", "fps_median",
           "fps_best", "cv", "vs_nat", "hashes");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, key))
    {
        const cJSON *ratio = cJSON_GetObjectItemCaseSensitive(e, "device_over_native");
        if (!ratio)
            ratio = cJSON_GetObjectItemCaseSensitive(e, "host_over_native");
        if (!ratio)
            ratio = cJSON_GetObjectItemCaseSensitive(e, "none_over_native");
        char rs[16] = "-";
        if (cJSON_IsNumber(ratio))
            snprintf(rs, sizeof rs, "%.2fx", ratio->valuedouble);
        const char *v = gv_json_str(e, "video", NULL);
        const char *a = gv_json_str(e, "audio", NULL);
        int nv = !strcmp(v, "none"), na = !strcmp(a, "none");
        const char *what = nv && na ? "none (no output)" : nv ? "= native (audio only)" : na ? "= native (video only)"
                                                                                            : "= native";
        printf("%-7s %-7s %9.0f %8.0f %12.1f %12.1f %6.3f %8s  %s\n", v, a,
               gv_json_num(e, "instances"), gv_json_num(e, "frames"), gv_json_num(e, "fps_median"),
               gv_json_num(e, "fps_best"), gv_json_num(e, "cv"), rs,
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "hashes_match_native")) ? what : "DIFFER");
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rec, "warnings"))
        if (cJSON_IsString(w))
            printf("warning: %s\n", w->valuestring);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
    code = r.mismatched ? GV_EXIT_FAIL : GV_EXIT_OK;
    return cli_finish(cmd, rec, code, json);
}
