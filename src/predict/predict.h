/*
 * The predictor: joins the trace, the GPU model, the memory hierarchy, the issue model
 * and the queueing model into one report row per kernel (docs/model.md, Issue model and Queueing).
 *
 * Kernels run in trace order, one after another, whatever their CUDA stream: the trace
 * does not say which launches overlapped, so concurrent kernels are not modelled (their
 * cycles add up). MemcpyHtoD commands warm the L2 before the kernels that follow (not with
 * gf_predict_options.cold).
 *
 * Prefix: gf_predict_.
 */
#ifndef GF_PREDICT_PREDICT_H
#define GF_PREDICT_PREDICT_H

#include "counters/counters.h"
#include "gpu/gpu.h"
#include "memory/hierarchy.h"
#include "timing/kernel_sim.h"
#include "timing/queueing.h"

typedef struct gf_predict_options {
    gf_ksim_options ksim;
    gf_hier_mode mode;          /* reuse-distance model (default) or exact oracle */
    const char *models_dir;     /* NULL: default search (gpu/gpu.h) */
    /* As Nsight Compute profiles by default (--cache-control all): every kernel starts
     * with empty caches, so MemcpyHtoD commands warm nothing and nothing a kernel left
     * in L2 helps the next. 0: caches carry over, copies warm the L2 (what an
     * application run without a profiler sees). */
    int cold;
} gf_predict_options;

/* Everything needed to re-evaluate one kernel for other model parameters without the
 * trace (see predict/profile.c). Plain data. */
typedef struct gf_kernel_summary {
    char name[512];
    long id;
    gf_ksim_result ks;
    double mem[GF_C_COUNT];     /* memory counters from the hierarchy */
    gf_hier_kernel_profile hp;  /* reuse histograms, for what-if cache sizes */
} gf_kernel_summary;

/* Fills a report row from a summary for gpu: runs the queueing model and derives the
 * time, occupancy and utilisation counters. q may be NULL. */
gf_status gf_predict_evaluate(const gf_gpu *gpu, const gf_kernel_summary *k,
                              gf_kernel_row *row, gf_queue_result *q, gf_error *err);

/* Predicts every kernel of the trace at path. Rows are appended to out (caller owns
 * it). When summaries is not NULL, *summaries receives a malloc'd array of one summary
 * per kernel (caller frees) and *nsummaries its length. */
gf_status gf_predict_trace(const char *path, const gf_gpu *gpu, const gf_predict_options *opt,
                           gf_report *out, gf_kernel_summary **summaries, size_t *nsummaries,
                           gf_error *err);

#endif
