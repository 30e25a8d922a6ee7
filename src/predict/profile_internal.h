/*
 * What the two halves of saved profiles share (profile.c: build, check, evaluate;
 * profile_file.c: the file). Nothing outside src/predict includes this.
 *
 * Invariant: k holds n kernel summaries; a loaded profile's gpu passed gf_gpu_validate
 * and every kernel passed profile_file.c's field checks.
 */
#ifndef GF_PREDICT_PROFILE_INTERNAL_H
#define GF_PREDICT_PROFILE_INTERNAL_H

#include <stddef.h>

#include "gpu/gpu.h"
#include "predict/predict.h"

typedef gf_kernel_summary kentry;

struct gf_profile {
    gf_gpu gpu;
    size_t n;
    kentry *k;
};

#endif
