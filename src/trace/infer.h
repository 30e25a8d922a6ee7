/*
 * What a kernel's header should have said, from its trace: for the fields the CUDA 13
 * tracer fills with garbage (gf_kernel_info.suspect; refdata/h100-gfbench/README.md).
 * Private to the trace stage: gf_kreader_open (kreader.c) reads the first thread block
 * and shows each of its instructions to gf_infer_inst; this file reads nothing itself
 * (so it depends on no reader).
 *
 * Prefix: gf_infer_.
 */
#ifndef GF_TRACE_INFER_H
#define GF_TRACE_INFER_H

#include <stdint.h>

#include "trace/types.h"

/* What the instructions of a kernel's first thread block showed so far. */
typedef struct gf_infer {
    int maxreg;        /* highest register number named (below RZ), -1 none */
    uint64_t lo, top;  /* lowest shared offset touched, top of the highest access */
    unsigned family;   /* lowest SASS family the opcodes need, 0 unknown */
} gf_infer;

void gf_infer_init(gf_infer *s);
/* One instruction of the first thread block of the kernel whose header (as read, before
 * any inference) is k. */
void gf_infer_inst(gf_infer *s, const gf_kernel_info *k, const gf_inst *in);
/* Replaces each suspect field of k (its value is 0 then) with what the block showed:
 * - nregs: max(16, highest Rn named + 3). On the H100 set the header's real count (from
 *   Nsight's launch__registers_per_thread) is exactly this on 20 of 22 kernels; cuBLAS's
 *   two kernels allocate registers their SASS never names (121 and 72 against 92 and 57),
 *   so there it is a lower bound.
 * - shmem: the top of the shared addresses touched, less the 1 KiB sm_80+ reserve below
 *   a block's own shared memory when no address falls in it (every H100 trace's first
 *   shared array starts at 0x400). Exact on reduce, sgemm_tiled and transpose_shared;
 *   dynamic shared memory that is allocated but never touched (stream_copy_sms*: 200 KB
 *   to keep one block per SM) cannot be seen, so it is a lower bound too.
 * - binary_version: the lowest SASS family its opcodes need (90 for Hopper-only opcodes
 *   such as WGMMA/UTMALDG/SYNCS, 80 for LDGSTS or HMMA.16816, 75 for the uniform
 *   datapath, else unknown: 0).
 * A block that cannot be read (no instruction shown) leaves nregs and shmem at 0 (the
 * reader's own pass reports the error). */
void gf_infer_apply(const gf_infer *s, gf_kernel_info *k);

#endif
