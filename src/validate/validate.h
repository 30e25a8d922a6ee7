/*
 * Prediction vs hardware: kernel matching, per-kernel errors and per-counter
 * statistics (docs/validation.md), written as table / CSV / JSON.
 *
 * Pairing (pairing.h; docs/validation.md "Pairing"): launches pair by order within one
 * full kernel name (demangled, namespaces, template arguments and parameters compared,
 * kname.h), never by launch id; Nsight's --launch-skip/--launch-count/--kernel-name
 * selection can be given (gf_validate_options). An ambiguous or partial pairing is an
 * error naming the file, line and kernel, or with loose a warning (v->warnings).
 * Hardware kernels left over, and predicted kernels with no hardware at all, are
 * listed as unmatched.
 *
 * Several hardware files may give the same kernel (e.g. three nvprof runs), and one file
 * may hold a whole multiple of the prediction's launches of a name (the program run
 * again): its j-th launch of the name is a further sample of the prediction's (j mod k)-th
 * of k kernels of that name. The prediction is compared with the samples' mean; min, max
 * and the sample count are reported, and the table says when the prediction lies within
 * min..max.
 *
 * Errors: rates (percentages, ratios) by absolute error in their own unit (percentage
 * points for %), MAE over kernels; counts and cycles by percentage error
 * 100 (pred - hw) / hw, MAPE over kernels (kernels whose hardware value is 0 are left
 * out of MAPE unless the prediction is 0 too). Correlation: Pearson
 * (gsl_stats_correlation) over kernels; NAN ("n/a") for fewer than 2 kernels or zero
 * variance.
 *
 * Prefix: gf_validate_.
 */
#ifndef GF_VALIDATE_VALIDATE_H
#define GF_VALIDATE_VALIDATE_H
/* at most 64 hardware files are compared per run (GF_VALIDATE_MAX_FILES) */
#define GF_VALIDATE_MAX_FILES 64

#include <stdio.h>

#include "gpuforecast/gpuforecast.h"
#include "counters/counters.h"
#include "report/report.h"
#include "validate/hardware.h"
#include "validate/pairing.h"

typedef struct gf_vvalue {
    double pred;
    double hw_mean, hw_min, hw_max;
    int hw_n;     /* number of hardware samples */
    double error; /* signed: pp (rates) or % (counts); NAN when undefined */
} gf_vvalue;

typedef struct gf_vkernel {
    long id;
    char name[512];
    char gpu[64];
    gf_vvalue v[GF_C_COUNT];
} gf_vkernel;

typedef struct gf_vsummary {
    int n;              /* kernels with both a prediction and hardware */
    int n_error;        /* kernels entering the MAE / MAPE */
    double error;       /* MAE (rates) or MAPE (counts) */
    double correlation; /* Pearson r, NAN when undefined */
} gf_vsummary;

typedef struct gf_vunmatched {
    char file[512];   /* "" for a predicted kernel */
    long line;
    long id;
    char name[512];
} gf_vunmatched;

/* One measured launch and the predicted launch it was paired with. */
typedef struct gf_vpair {
    long kernel;   /* index into kernels */
    size_t file;   /* index into the hardware files (paths) */
    long line;     /* its row's line in that file */
} gf_vpair;

typedef struct gf_validation {
    gf_vkernel *kernels; /* matched predicted kernels, prediction order */
    size_t nkernels;
    gf_vsummary summary[GF_C_COUNT];
    gf_vunmatched *unmatched;
    size_t nunmatched;
    size_t nfiles;
    char sources[256]; /* formats of the hardware files, e.g. "nvprof x3" */
    size_t nskipped;   /* predicted launches outside the options' selection */
    char **warnings;   /* loose: the pairings that failed, one sentence each */
    size_t nwarnings;
    gf_vpair *pairs;   /* every paired measured launch, files and rows in order */
    size_t npairs;
    char (*paths)[512]; /* the hardware files' paths, nfiles of them */
} gf_validation;

/* Compares pred with the hardware files. *out owned by the caller
 * (gf_validate_free). opt may be NULL (every launch, strict). Errors: GF_ERR_INVALID for
 * an ambiguous or partial pairing (the message lists them) unless opt->loose, or a bad
 * selection; GF_ERR_NOMEM. gf_validate_run: gf_validate_run_opts with opt NULL. */
gf_status gf_validate_run_opts(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                               const gf_validate_options *opt, gf_validation **out,
                               gf_error *err);
gf_status gf_validate_run(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                          gf_validation **out, gf_error *err);
void gf_validate_free(gf_validation *v);

/* Writes the per-counter summary, the per-kernel comparison and the unmatched
 * kernels. CSV: one table, column "section" = summary|kernel|unmatched|pair (a pair row:
 * the predicted kernel's id and name, source = FILE:LINE of the measured launch); JSON
 * has the same (a kernel's counters with their unit and kind, counted or predicted) and
 * "pairs": [{"id", "source", "line"}]. The table leaves the pairs out. */
gf_status gf_validate_write(const gf_validation *v, gf_report_format fmt, FILE *out,
                            gf_error *err);

/* The function name of a kernel name (demangled, without namespaces, template arguments
 * or parameters: what --kernel-name compares), into buf (n bytes); returns buf. */
const char *gf_validate_base_name(const char *name, char *buf, size_t n);

/* The statistics alone, for tests and other callers: MAE of |p - h| (is_rate) or
 * MAPE of |p - h| / h * 100 over the pairs where h != 0 (or both 0); *n_used gets the
 * pairs used; NAN when none. */
double gf_validate_error(const double *pred, const double *hw, size_t n, int is_rate,
                         int *n_used);
/* Pearson correlation, NAN for n < 2 or zero variance. */
double gf_validate_correlation(const double *pred, const double *hw, size_t n);

/* One correlation scatter plot per compared counter, DIR/<counter>.png and .svg
 * (PLplot pngcairo and svg devices): hardware on x, prediction on y, y = x line,
 * log axes when the values span more than 100x, error and r in the title. Returns
 * GF_ERR_UNSUPPORTED when built without PLplot (GF_WITH_PLOTS), GF_ERR_IO when DIR
 * cannot be created. *nplots (may be NULL) receives the number of counters plotted. */
gf_status gf_validate_plot(const gf_validation *v, const char *dir, int *nplots,
                           gf_error *err);
/* The axis range of one plot of the n points (x[i], y[i]): log axes (*logax) when all are
 * positive and span more than 100x; else linear, at least 10 % of the largest value wide
 * (so that tick labels differ), padded by 8 %. Both axes share it. */
void gf_validate_plot_range(const double *x, const double *y, int n, double *lo, double *hi,
                            int *logax);

/* The stall reasons a stack shows: GF_C_STALL_FIRST .. GF_C_STALL_LAST - 1 (selected, one
 * per issue, is left out). */
#define GF_PLOT_STALL_REASONS (GF_C_STALL_LAST - GF_C_STALL_FIRST)
/* The most configurations gf_plot_sweep_stalls draws (one bar each: more are unreadable). */
#define GF_PLOT_SWEEP_MAX_BARS 100

/* One kernel's predicted warp stall stack along a sweep (`sweep --plot`, docs/stalls.md):
 * a stacked bar per configuration, nbars of them labelled labels[i] under an x axis titled
 * xtitle, of ratios[i * GF_PLOT_STALL_REASONS + r] (warp-cycles stalled for reason r per
 * issued instruction; NAN or negative draws nothing), in the colours of gf_validate_plot's
 * stacks. Writes DIR/sweep_stalls_kernel<id>_<name>.png and .svg (DIR made as needed).
 * GF_ERR_UNSUPPORTED without PLplot, GF_ERR_INVALID for nbars outside
 * 1..GF_PLOT_SWEEP_MAX_BARS, GF_ERR_IO when a file is not written. */
gf_status gf_plot_sweep_stalls(const char *dir, long kernel_id, const char *kernel_name,
                               int nbars, const char *const *labels, const char *xtitle,
                               const double *ratios, gf_error *err);

#endif
