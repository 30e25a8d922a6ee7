/*
 * Whole-file CSV reading through libcsv, keeping the line each row starts on so that
 * every later complaint can name file and line. Used for our own prediction CSV and
 * for the profilers' CSV (Nsight Compute, nvprof). Files are small (one row per
 * kernel), so the table is held in memory.
 *
 * Prefix: gf_csvtable_.
 */
#ifndef GF_REPORT_CSVTABLE_H
#define GF_REPORT_CSVTABLE_H

#include <stddef.h>
#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

typedef struct gf_csvrow {
    char **fields; /* NUL-terminated, owned by the table */
    size_t nfields;
    long line;     /* 1-based physical line the row starts on */
} gf_csvrow;

typedef struct gf_csvtable {
    gf_csvrow *rows;
    size_t nrows, cap;
} gf_csvtable;

/* Reads path into *t (initialised here; free with gf_csvtable_free also on error).
 * Blank lines give no row. Errors: GF_ERR_IO (cannot open/read), GF_ERR_PARSE
 * (malformed CSV, e.g. an unterminated quote, naming the line). */
gf_status gf_csvtable_read(const char *path, gf_csvtable *t, gf_error *err);
/* The same from an open stream, read from its current position to its end (left open);
 * path names it in errors. */
gf_status gf_csvtable_read_stream(FILE *f, const char *path, gf_csvtable *t, gf_error *err);
void gf_csvtable_free(gf_csvtable *t);

#endif
