/*
 * Shared pieces of the command-line front end: the command table, error printing,
 * usage errors, and the options several commands take (--gpu, --set, --format, -o).
 * The CLI is the only part of gpuforecast that prints or exits.
 */
#ifndef GF_CLI_CLI_H
#define GF_CLI_CLI_H

#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

/* Each subcommand: argv[0] is the command name; returns the process exit code. */
int gf_cmd_info(int argc, char **argv);
int gf_cmd_gpus(int argc, char **argv);
int gf_cmd_show_gpu(int argc, char **argv);
int gf_cmd_occupancy(int argc, char **argv);
int gf_cmd_memory(int argc, char **argv);
int gf_cmd_predict(int argc, char **argv);
int gf_cmd_profile(int argc, char **argv);
int gf_cmd_sweep(int argc, char **argv);
int gf_cmd_counters(int argc, char **argv);
int gf_cmd_validate(int argc, char **argv);
int gf_cmd_gen(int argc, char **argv);

typedef enum gf_format { GF_FORMAT_TABLE = 0, GF_FORMAT_CSV, GF_FORMAT_JSON } gf_format;

/* Prints "gpuforecast: error: <file>:<line>: <message>" (parts that are empty are
 * left out) and returns 1, the exit code for a failed run. */
int gf_cli_error(const gf_error *err);
/* Prints "gpuforecast <cmd>: <message>" and a one-line hint, returns 2. */
int gf_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parses table|csv|json; returns -1 on anything else. */
int gf_cli_parse_format(const char *s, gf_format *out);
/* Warnings go to stderr as "gpuforecast: warning: ...". */
void gf_cli_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A growing list of --set key=value strings. */
typedef struct gf_setlist {
    const char **items;
    unsigned count, cap;
} gf_setlist;
int gf_setlist_add(gf_setlist *l, const char *kv); /* 0 ok, -1 malformed (no '=') */
void gf_setlist_free(gf_setlist *l);

#endif
