/*
 * The table of operations a kernel-trace format provides: kreader.c owns gf_kreader_*
 * (trace.h), picks the format of a kernel file and calls the format only through this
 * table. A format fills one constant table (accelsim.c gf_accelsim_ops, pptgpu.c
 * gf_pptgpu_ops) and includes nothing of the layer above it: no reader calls
 * gf_kreader_*.
 *
 * Contract (each entry with the meaning of the gf_kreader_ call of the same name,
 * trace.h, on the format's own state `impl`):
 *  - claims: 1 when the format reads path; kreader.c asks the formats in table order and
 *    the last one (Accel-Sim) claims every path.
 *  - open returns the format's state in *impl (closed with close, NULL is fine) with the
 *    header read; info stays valid and at the same address until close. kreader.c may
 *    rewrite the header's suspect fields through it (infer.h), before the first block.
 *  - next_block returns blocks as the file lists them, unchecked: kreader.c checks them
 *    against the grid and counts them (blockset.h), the same for every format.
 *  - path/line name the position for messages (the current file and line).
 *  - the optional entries may be NULL when the format has none of it: then
 *    block_cluster reads as no cluster (all 0), tma as NULL, replay_markers as 0,
 *    set_lazy_strides does nothing, last_text gives length 0, match 0 bytes (and
 *    compared 0) and skip_lines 0 (nothing skipped).
 *
 * Prefix: gf_kreader_ops (the type); tables gf_<format>_ops.
 */
#ifndef GF_TRACE_KREADER_OPS_H
#define GF_TRACE_KREADER_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"
#include "trace/types.h"

typedef struct gf_kreader_ops {
    const char *format; /* "accelsim", "pptgpu" */
    int (*claims)(const char *path);
    gf_status (*open)(const char *path, void **impl, gf_error *err);
    void (*close)(void *impl);
    gf_kernel_info *(*info)(void *impl);
    const char *(*path)(const void *impl);
    long (*line)(const void *impl);
    gf_status (*next_block)(void *impl, unsigned tb[3], gf_error *err);
    gf_status (*next_warp)(void *impl, unsigned *warp_id, uint32_t *ninsts, gf_error *err);
    gf_status (*next_inst)(void *impl, gf_inst *inst, gf_error *err);
    /* optional */
    const gf_block_cluster *(*block_cluster)(const void *impl);
    const gf_tma_info *(*tma)(const void *impl);
    uint64_t (*replay_markers)(const void *impl);
    void (*set_lazy_strides)(void *impl, int on);
    void (*last_text)(const void *impl, const char **text, size_t *len);
    size_t (*match)(const void *impl, const char *text, size_t len, size_t *compared);
    int (*skip_lines)(void *impl, size_t bytes, uint32_t n);
} gf_kreader_ops;

#endif
