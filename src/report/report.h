/*
 * Report writers: a gf_report (one row per kernel, see counters.h) as an aligned
 * terminal table, CSV (libcsv quoting) or JSON, each followed by the application
 * totals (gf_report_totals); reading our own CSV back (what `validate` takes as the
 * prediction); and the counter list of `gpuforecast counters`.
 *
 * CSV layout (one header row, one row per kernel, one totals row):
 *   kernel_id,kernel_name,gpu,limiter,<Nsight Compute name of every counter in table order>
 *   the totals row has kernel_id "total"; an empty cell means "not available" (NAN).
 * JSON layout: {"tool":"gpuforecast","version":...,"kernels":[{"id":1,"name":...,
 *   "gpu":...,"counters":{"<name>":number|null,...}}...],"total":{...same...}}
 *
 * Prefix: gf_report_, gf_counter_list_.
 */
#ifndef GF_REPORT_REPORT_H
#define GF_REPORT_REPORT_H

#include <stdio.h>

#include "gpuforecast/gpuforecast.h"
#include "counters/counters.h"

/* The CLI maps its gf_format onto this (same order). */
typedef enum gf_report_format {
    GF_REPORT_TABLE = 0,
    GF_REPORT_CSV,
    GF_REPORT_JSON
} gf_report_format;

/* Writes r (and its totals) to out. Errors: GF_ERR_IO when out fails,
 * GF_ERR_INVALID for an unknown format. */
gf_status gf_report_write(const gf_report *r, gf_report_format fmt, FILE *out,
                          gf_error *err);

/* Reads a CSV written by gf_report_write into *r (initialised here; caller frees with
 * gf_report_free, also on error). The totals row is skipped; counter columns may be
 * in any order and may use nvprof aliases; unknown columns, missing kernel_id /
 * kernel_name columns, short rows and non-numeric cells are GF_ERR_PARSE naming file
 * and line. */
gf_status gf_report_read_csv(const char *path, gf_report *r, gf_error *err);

/* The counter table: name, nvprof alias, unit, predicted/counted, meaning. */
gf_status gf_counter_list_write(gf_report_format fmt, FILE *out, gf_error *err);

/* Shared formatting helpers (also used by validate). */
/* The JSON string literal of s (the project's one JSON string escaper: report, validate
 * and `info --format json` use it): '"' and '\\' escaped, \n \r \t as such, other
 * bytes below 0x20 as \u00XX, every other byte (UTF-8 sequences, DEL) as it is. */
void gf_report_json_string(FILE *out, const char *s);
/* JSON number, or null for NAN/inf. */
void gf_report_json_number(FILE *out, double v);
/* Shortest faithful text for a value: integers without decimals, others with up to
 * 10 significant digits; "" for NAN. buf needs 40 bytes. */
const char *gf_report_format_value(double v, char *buf, size_t n);
/* Copy of s for an error message: at most n-1 bytes, control and non-ASCII bytes
 * shown as '?', long text cut with "...". Returns buf. */
const char *gf_report_printable(const char *s, char *buf, size_t n);
/* A CSV string field (always quoted by libcsv's csv_fwrite). */
void gf_report_csv_string(FILE *out, const char *s);

#endif
