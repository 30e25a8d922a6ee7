/*
 * Prediction intervals on a kernel's cycles (gpc__cycles_elapsed.max), from the
 * cross-validated errors of the model on a GPU's reference kernels.
 *
 * models/intervals/cycles.ini holds, per GPU and kernel class, the factors a measured time falls
 * between at a stated level: measured in [predicted x low, predicted x high]. The file is
 * written by scripts/intervals_h100.py from the leave-one-case-out residuals of
 * scripts/crossval_h100.py (how, and the coverage it reached: docs/intervals.md), never by
 * hand. A GPU without a section of its own takes [uncalibrated], which says so.
 *
 * Classes are read off the prediction itself, so a user's kernel is classed as the
 * reference kernels were: "plain" kernels use neither shared memory, atomics, local memory
 * nor tensor cores (streaming, strided, latency-bound and elementwise kernels, where the
 * model is best), "complex" ones do.
 *
 * Prefix: gf_interval_.
 */
#ifndef GF_REPORT_INTERVAL_H
#define GF_REPORT_INTERVAL_H

#include "counters/counters.h"
#include "util/error.h"

#define GF_INTERVAL_CLASSES 2 /* plain, complex */

typedef struct gf_interval_factors {
    int present;        /* 0: no section for this class */
    double level;       /* e.g. 0.90 */
    long n;             /* reference kernels behind the factors */
    double low, high;   /* measured / predicted bounds, low < 1 < high not required */
} gf_interval_factors;

/* The factors for one GPU: its own sections, or the [uncalibrated] ones. */
typedef struct gf_interval_table {
    char gpu[64];                                  /* the section prefix found, or "" */
    int calibrated;                                /* 0: [uncalibrated] was used */
    gf_interval_factors cls[GF_INTERVAL_CLASSES];
} gf_interval_table;

/* Loads the factors for gpu (a model name such as "h100") from path. A missing GPU section
 * falls back to [uncalibrated]; a file without that either is an error, as is any malformed
 * value (named with its line). */
gf_status gf_interval_load(const char *path, const char *gpu, gf_interval_table *out,
                           gf_error *err);

/* "plain" or "complex", from the row's counted instruction mix. */
const char *gf_interval_class_name(const gf_kernel_row *row);

/* Sets row->cycles_lo/hi and row->interval from the table (NAN and "" when the row has no
 * predicted cycles or the class has no factors). what_if marks a model changed by the user
 * (--set or an own model file): the factors were measured on the shipped model only. */
void gf_interval_apply(const gf_interval_table *t, int what_if, gf_kernel_row *row);

/*
 * Memory counters: models/intervals/counters.ini, sections "[<gpu> <counter>]" or
 * "[uncalibrated <counter>]" with space (log: measured in [predicted x low, predicted x
 * high]; pp: in [predicted + low, predicted + high] percentage points, within 0-100),
 * level, n, min_predicted (the smallest prediction the residuals were taken at), low, high
 * and basis (prose). Written by scripts/intervals_h100.py only for the counters whose
 * left-out residuals support an interval (docs/intervals.md); a counter without a section
 * gets none. A GPU with no section of its own takes the [uncalibrated ...] ones.
 */
typedef struct gf_counter_interval_def {
    gf_counter_id id;
    int log_space;        /* 1: factors (log); 0: offsets in percentage points (pp) */
    double level, low, high, min_predicted;
    long n;
} gf_counter_interval_def;

typedef struct gf_counter_interval_table {
    char gpu[64];       /* the section prefix used, or "" */
    int calibrated;     /* 0: the [uncalibrated ...] sections were used */
    int n;
    gf_counter_interval_def c[GF_ROW_COUNTER_INTERVALS];
} gf_counter_interval_table;

/* Loads the sections for gpu from path (a missing file: GF_ERR_IO; a malformed value, an
 * unknown counter or key, a section without level/n/low/high or with low >= high:
 * GF_ERR_PARSE naming the line). A file with no section for gpu nor uncalibrated loads
 * as an empty table. */
gf_status gf_interval_counters_load(const char *path, const char *gpu,
                                    gf_counter_interval_table *out, gf_error *err);

/* Sets row->civ / nciv: an entry per counter of t, with bounds and basis where the row
 * has the counter predicted at or above min_predicted (basis "" otherwise). */
void gf_interval_counters_apply(const gf_counter_interval_table *t, int what_if,
                                gf_kernel_row *row);

#endif
