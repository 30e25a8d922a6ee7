/*
 * Design-space sweeps: evaluate the cartesian product of model-parameter values over
 * a saved profile, in parallel, one result row per (configuration, kernel), always in
 * the same order (the first axis varies slowest) whatever the thread count.
 *
 * Prefix: gf_sweep_.
 */
#ifndef GF_TIMING_SWEEP_H
#define GF_TIMING_SWEEP_H

#include <stdio.h>

#include "timing/profile.h"

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

/* Number of configurations; 0 when an axis is empty or the product overflows. */
unsigned long long gf_sweep_count(const gf_sweep_spec *s);

/* Evaluates every configuration on profile p and writes CSV to out: columns config,
 * one per axis, kernel_id, kernel_name, limiter, then every counter (counters.h order).
 * Rows are written as configurations complete, in index order, holding at most a
 * window of results in memory. The first error (a bad value, a key the profile depends
 * on, an axis given twice) stops the sweep and names the configuration; out then holds
 * a partial CSV, so write it through gf_outfile and discard it on error. */
gf_status gf_sweep_run(const gf_sweep_spec *s, const gf_profile *p, FILE *out, gf_error *err);

#endif
