/*
 * Design-space sweeps: evaluate the cartesian product of model-parameter values over
 * a saved profile, in parallel, one result row per (configuration, kernel), always in
 * the same order (the first axis varies slowest) whatever the thread count.
 *
 * Prefix: gf_sweep_.
 */
#ifndef GF_PREDICT_SWEEP_H
#define GF_PREDICT_SWEEP_H

#include <stdio.h>

#include "predict/profile.h"

#define GF_SWEEP_MAX_AXES 16

typedef struct gf_sweep_axis {
    const char *key;         /* model key, e.g. "l2.size" */
    const char **values;     /* value strings as given, e.g. "4MiB" */
    unsigned nvalues;
} gf_sweep_axis;

typedef struct gf_sweep_spec {
    const char *gpu_name;    /* base model */
    const char *models_dir;
    const char *const *sets; /* fixed --set overrides applied before the axes */
    unsigned nsets;
    gf_sweep_axis axes[GF_SWEEP_MAX_AXES];
    unsigned naxes;
    unsigned threads;        /* >= 1 */
} gf_sweep_spec;

/* Default cap on configurations (the CLI's --max-configs). Measured on a 2-core
 * development machine with a one-kernel profile (data/matmul on titanv): 96 us a
 * configuration on one thread, 62 us on two, and 335 bytes of CSV a kernel row. 10^6
 * configurations are thus 1-2 minutes and ~335 MB a kernel: the largest sweep worth
 * starting without a second thought. The 10^8 of issue #22 (8 axes x 10 values) would be
 * hours and tens of GB, which should be asked for explicitly. */
#define GF_SWEEP_MAX_CONFIGS_DEFAULT 1000000ull

/* Number of configurations; 0 when an axis is empty or the product exceeds 2^40. */
unsigned long long gf_sweep_count(const gf_sweep_spec *s);

/* What a sweep will produce, known before it writes anything. */
typedef struct gf_sweep_plan {
    unsigned long long configs;
    unsigned long long rows;  /* CSV rows after the header: configs x kernels */
    unsigned long long bytes; /* estimated CSV size: the first configuration's rows, times configs */
    double seconds;           /* estimated run time on s->threads, from the first configuration */
} gf_sweep_plan;

/* Checks a sweep before it runs: the count, an axis given twice, and every value of every
 * axis (loading the model of each configuration that differs from the first in one axis
 * and checking it against the profile); then evaluates the first configuration to estimate
 * the output's size and the run time. Values that fail only in combination are still
 * found by gf_sweep_run. */
gf_status gf_sweep_plan_make(const gf_sweep_spec *s, const gf_profile *p, gf_sweep_plan *plan,
                             gf_error *err);

/* Evaluates every configuration on profile p and writes CSV to out: columns config,
 * one per axis, kernel_id, kernel_name, limiter, then every counter (counters.h order).
 * Rows are written as configurations complete, in index order, holding at most a
 * window of results in memory. The first error (a bad value, a key the profile depends
 * on, an axis given twice) stops the sweep and names the configuration. The checks of
 * gf_sweep_plan_make run first and the header waits for the first configuration, so
 * those errors leave out untouched; a combination failing later leaves a partial CSV,
 * so write it through gf_outfile and discard it on error. */
gf_status gf_sweep_run(const gf_sweep_spec *s, const gf_profile *p, FILE *out, gf_error *err);

#endif
