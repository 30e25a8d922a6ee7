/*
 * Saved profiles (`gpuforecast profile`): everything evaluation needs, so predict and
 * sweep can re-evaluate a kernel for other model parameters without the trace.
 *
 * A profile holds, per kernel, the issue model's summary (gf_ksim_result), the memory
 * counters, and the L2 reuse histograms; plus the GPU model it was made with. What it
 * depends on: every parameter of the issue model and of L1 (SM count, sub-cores, unit lanes,
 * occupancy limits, latencies, L1 geometry, line and sector sizes, coalescer, L2 slices,
 * hash and partitions, the architecture and ISA table (gpu.isa)) — a model that changes one of these
 * is refused, naming the key. Free to change: DRAM (bandwidth, channels, banks, timings,
 * page policy, scheduler), L2 and NoC bandwidth, MSHR counts, clocks, launch overhead,
 * and L2 size and associativity (hit rates are re-derived from the histograms; the
 * change in mean miss latency is applied through the issue model's measured exposure).
 *
 * File: "GFPROF\n" magic, format version (u32), payload length (u64), CRC-32 of the
 * payload (u32), then the zlib-compressed payload. Corrupt, truncated, foreign or
 * crafted files are errors, never crashes: the length is bounded before anything is
 * allocated, the payload is inflated as a stream that may not exceed it, and the stored
 * GPU model (gf_gpu_validate) and every kernel field are checked before use.
 *
 * Prefix: gf_profile_.
 */
#ifndef GF_PREDICT_PROFILE_H
#define GF_PREDICT_PROFILE_H

#include "counters/counters.h"
#include "gpu/gpu.h"
#include "predict/predict.h"

#define GF_PROFILE_VERSION 13u

/* Ceilings the loader holds a file to before it allocates (a profile is read from
 * wherever the user got it): the inflated payload (about 3,700 kernels; save refuses
 * more), and the warp instructions of one kernel (10^12: a text trace that long would
 * be petabytes). Every count a kernel holds is bounded by its warp instructions. */
#define GF_PROFILE_MAX_PAYLOAD ((uint64_t)1 << 30)
#define GF_PROFILE_MAX_WARP_INSTS ((uint64_t)1 << 40)

typedef struct gf_profile gf_profile; /* opaque */

/* Runs the profiling part of prediction over a trace. *out owned by caller. */
gf_status gf_profile_build(const char *trace, const gf_gpu *gpu, const gf_predict_options *opt,
                           gf_profile **out, gf_error *err);
gf_status gf_profile_save(const gf_profile *p, const char *path, gf_error *err);
gf_status gf_profile_load(const char *path, gf_profile **out, gf_error *err);
void gf_profile_free(gf_profile *p);
/* 1 when the file starts with the profile magic. */
int gf_profile_is_profile(const char *path);
size_t gf_profile_kernel_count(const gf_profile *p);
const gf_gpu *gf_profile_gpu(const gf_profile *p);
/* GF_ERR_INVALID naming the first model key that differs in a way the profile cannot
 * absorb. */
gf_status gf_profile_check(const gf_profile *p, const gf_gpu *gpu, gf_error *err);
/* Appends one row per kernel evaluated on gpu (after gf_profile_check). Thread-safe:
 * the profile is only read. */
gf_status gf_profile_evaluate(const gf_profile *p, const gf_gpu *gpu, gf_report *out,
                              gf_error *err);
/* load + check + evaluate (profile_file.c: the file's reader calls the evaluation, not
 * the other way round) */
gf_status gf_profile_predict(const char *path, const gf_gpu *gpu, gf_report *out, gf_error *err);

#endif
