/*
 * Options shared by the commands that run the model on a trace (predict, memory,
 * profile, sweep): --gpu, --set, --models, --exact, --scheduler, --unknown-opcode,
 * --format, -o, --quiet.
 */
#ifndef GF_CLI_CLI_MODEL_H
#define GF_CLI_CLI_MODEL_H

#include "cli/cli.h"
#include "gpu/gpu.h"
#include "predict/predict.h"
#include "util/error.h"

typedef struct gf_model_args {
    const char *gpu_name;
    const char *models_dir;
    gf_setlist sets;
    gf_format format;
    const char *output;
    int quiet;
    int partial;        /* --partial: a trace with fewer blocks than its grid is used */
    unsigned jobs;      /* -j N; default: the number of online CPUs */
    gf_predict_options popt;
    struct gf_progress_state {
        double start, last;
        int shown;
    } progress;
    const char *positional[8];
    unsigned npositional;
} gf_model_args;

/* Parses argv. Returns -1 on success (continue), or an exit code (0 after --help, 2 on
 * a usage error, already printed). help is printed for --help. extra_long / extra_handler
 * let a command add options: the handler returns 0 when it took the option, 2 on a
 * usage error. */
int gf_model_args_parse(int argc, char **argv, const char *help, gf_model_args *a,
                        int (*extra)(int opt, const char *arg, void *ctx), void *ctx,
                        const char *const *extra_names);
/* When the input is a saved profile, the options that act only when a trace is read
 * (--exact, --cold, --partial, --unknown-opcode) are refused: returns the usage error's
 * exit code, or -1 (go on). */
int gf_model_args_check_profile(const gf_model_args *a, const char *cmd);
/* parse + the checks predict, memory and profile share (one positional argument named
 * `what`, a trace unless allow_profile, --gpu, -o when need_output, no trace-only
 * options on a profile) + loading the model. Returns -1 to go on, else the
 * exit code (a is then already freed). */
int gf_model_args_setup(int argc, char **argv, const char *help, gf_model_args *a,
                        const char *what, int need_output, int allow_profile, gf_gpu *gpu);
/* Loads the GPU model with the --set overrides; prints the error and returns 1 on
 * failure, 0 on success. */
int gf_model_args_load_gpu(const gf_model_args *a, gf_gpu *gpu);
/* After gf_gpu_load failed on name: when name is the path of an empty file (or only
 * blanks, /dev/null), err says so instead of the first key the model lacks. */
void gf_cli_gpu_load_failed(const char *name, gf_error *err);
void gf_model_args_free(gf_model_args *a); /* also clears a progress line */
/* Clears the progress line, if one is shown (before printing results). */
void gf_model_args_progress_end(gf_model_args *a);
/* Writes a report to a.output atomically in a.format; returns the exit code. */
int gf_model_args_write_report(const gf_model_args *a, const gf_report *r);

#endif
