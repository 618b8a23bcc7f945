/* cli.h: the subcommands of gpuvet. Each takes the words after its name (argv[0] is the
 * first option, not the command) and returns a process exit code (GV_EXIT_*). Commands
 * only parse flags, call an engine and render the engine's record; the helpers below are
 * what they share. */
#ifndef GV_CLI_CLI_H
#define GV_CLI_CLI_H

#include <cJSON.h>

#include "core/args.h"
#include "dev/dev.h"
#include "sys/telemetry.h"

int cmd_probe(int argc, char **argv);
int cmd_smoke(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_soak(int argc, char **argv);
int cmd_bench_matmul(int argc, char **argv);
int cmd_bench_train(int argc, char **argv);
int cmd_bench_infer(int argc, char **argv);
int cmd_bench_emu(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_blas_race(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_all(int argc, char **argv);
int cmd_bench_drop7(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_train(int argc, char **argv);

/* What a command's --help prints, and the words it takes after its flags. */
typedef struct {
    const char *name;        /* in its error lines: "gpuvet NAME: ..." ("bench matmul") */
    const char *usage;       /* "gpuvet check [--devices cpu,cuda] ..." */
    const char *description; /* what the command does, lines ending in \n but the last */
    int words;               /* words after the flags: exactly this many (0: none) */
    const char *what;        /* what the words are, for "give ..." when their count is wrong */
} cli_help;

#define CLI_MAX_DEV 8

/* cli_parse's answer when the command should go on (any other answer is its exit code). */
#define CLI_GO (-1)

/* Parses a command's flags against its table specs[0..nspecs): on --help prints the help on
 * stdout and returns 0; on a bad flag, or words after the flags other than help->words,
 * prints the one error line "gpuvet NAME: ..." and returns 2; else stores the words in pos
 * (room for help->words; NULL when none), sets gv_quiet from the --quiet flag bound to
 * `quiet` (may be NULL) and returns CLI_GO. */
int cli_parse(const cli_help *help, const args_spec *specs, int nspecs, int argc, char **argv, const char **pos,
              const int *quiet);

/* cli_parse for a measuring command (its flags hold ARGS_COMMON_SPECS(com)), then its
 * --devices into devs (CLI_MAX_DEV entries, the count in *ndev): CLI_GO, or the exit code
 * after the error line. */
int cli_parse_devices(const cli_help *help, const args_spec *specs, int nspecs, int argc, char **argv,
                      const args_common *com, dev_id *devs, int *ndev);

/* The one error line of a command, "gpuvet CMD: message"; returns the status's exit code. */
int cli_fail(const char *cmd, gv_status st, const gv_err *err);

/* --devices (NULL: the CPU plus the GPU when one is present) into devs; 0, or the exit
 * code after the error line. */
int cli_devices(const char *cmd, const char *spec, dev_id *devs, int *n);

/* The one device of a network command: the last of --devices (NULL: the GPU when there is
 * one, else the CPU); more than one named is a usage error. 0, or the exit code. */
int cli_one_device(const char *cmd, const char *spec, dev_id *d);

/* The telemetry sampler for a measuring command: the host, and the first GPU of devs. */
gv_telemetry *cli_telemetry(const dev_id *devs, int ndev, double hz);

/* A measuring command's record (gv_record_new), begun with the telemetry sampler of
 * cli_telemetry running in *tel; the command stops it (gv_telemetry_stop(*tel, rec)) when
 * its engine returns. */
cJSON *cli_record_start(const char *cmd, int argc, char **argv, const dev_id *devs, int ndev, double hz,
                        gv_telemetry **tel);

/* Writes the record to json (when given) with the exit code, frees it, and returns the
 * exit code (3 when the record cannot be written after an otherwise good run). */
int cli_finish(const char *cmd, cJSON *rec, int code, const char *json);

/* The load line under a benchmark's table, and the busy-machine warning when there was one. */
void cli_load_line(const cJSON *rec);

#endif
