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

/* Parses a command's flags; on --help prints help and sets *exit_code = 0; on a bad flag
 * prints the one-line error and sets *exit_code = 2. Returns 1 when the caller should go
 * on, 0 when it should return *exit_code. Sets gv_quiet from a --quiet flag if the spec
 * list contains one bound to `quiet` (may be NULL). */
int cli_parse(const char *cmdname, const char *usage, const char *description,
              const args_spec *specs, int nspecs, int argc, char **argv,
              const char **pos, int max_pos, int *npos, const int *quiet, int *exit_code);

/* cli_parse for a command that takes exactly `want` words after its flags (pos has room
 * for them): a missing or extra word prints "gpuvet CMD: give WHAT" and sets *exit_code = 2. */
int cli_parse_words(const char *cmdname, const char *usage, const char *description,
                    const args_spec *specs, int nspecs, int argc, char **argv,
                    const char **pos, int want, const char *what, const int *quiet, int *exit_code);

/* The one error line of a command, "gpuvet CMD: message"; returns the status's exit code. */
int cli_fail(const char *cmd, gv_status st, const gv_err *err);

#define CLI_MAX_DEV 8
/* --devices (NULL: the CPU plus the GPU when one is present) into devs; 0, or the exit
 * code after the error line. */
int cli_devices(const char *cmd, const char *spec, dev_id *devs, int *n);

/* The telemetry sampler for a measuring command: the host, and the first GPU of devs. */
gv_telemetry *cli_telemetry(const dev_id *devs, int ndev, double hz);

/* Writes the record to json (when given) with the exit code, frees it, and returns the
 * exit code (3 when the record cannot be written after an otherwise good run). */
int cli_finish(const char *cmd, cJSON *rec, int code, const char *json);

/* A record's number (NaN when absent) and string ("" when absent). */
double cli_num(const cJSON *e, const char *k);
const char *cli_str(const cJSON *e, const char *k);
/* The load line under a benchmark's table, and the busy-machine warning when there was one. */
void cli_load_line(const cJSON *rec);

#endif
