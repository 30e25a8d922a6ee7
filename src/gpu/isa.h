/*
 * ISA tables: per-architecture SASS opcode -> execution unit, latency, issue interval
 * and, for memory operations, space and direction (models/isa/<arch>.csv, libcsv).
 * Modifiers (.CG, .BYPASS, .STRONG.GPU, .128, .U8 ...) refine space/width/bypass.
 *
 * Prefix: gf_isa_.
 */
#ifndef GF_GPU_ISA_H
#define GF_GPU_ISA_H

#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

typedef enum gf_unit {
    GF_UNIT_ALU = 0, /* INT32 / logic */
    GF_UNIT_FMA,     /* FP32 */
    GF_UNIT_FP64,
    GF_UNIT_SFU,     /* MUFU, conversions */
    GF_UNIT_TENSOR,
    GF_UNIT_LSU,     /* every memory instruction */
    GF_UNIT_BRANCH,  /* BRA, EXIT, BAR, barriers, control */
    GF_UNIT_UNIFORM,
    GF_UNIT_COUNT
} gf_unit;

typedef enum gf_mem_space {
    GF_SPACE_NONE = 0,
    GF_SPACE_GLOBAL,
    GF_SPACE_LOCAL,
    GF_SPACE_SHARED,
    GF_SPACE_CONST,
    GF_SPACE_TEXTURE,
    GF_SPACE_GENERIC,   /* LD/ST: local or global decided by address (docs/model.md, Pipeline) */
    GF_SPACE_ATOMIC,    /* global atomics and reductions (ATOM, ATOMG, RED) */
    GF_SPACE_SHARED_ATOMIC,
    GF_SPACE_LDGSTS,    /* global -> shared copy through L1 */
    GF_SPACE_COUNT
} gf_mem_space;

typedef enum gf_mem_dir { GF_DIR_NONE = 0, GF_DIR_LOAD = 1, GF_DIR_STORE = 2, GF_DIR_ATOMIC = 3 } gf_mem_dir;

typedef struct gf_isa_entry {
    gf_unit unit;
    unsigned latency;      /* cycles until the result can be read (fixed-latency units) */
    unsigned interval;     /* cycles between issues of this class on one sub-core */
    gf_mem_space space;
    gf_mem_dir dir;
    unsigned width;        /* default bytes per lane for memory ops (4) */
    int bypass_l1;         /* .CG, .BYPASS, .STRONG.GPU/.SYS, volatile: skips L1 */
    int is_barrier;        /* BAR.SYNC / BAR.RED / BAR (not BAR.ARV) */
    int is_exit;
    int is_bulk_copy;      /* TMA / bulk copy (UTMALDG, UBLKCP, ...): the trace has no tile */
} gf_isa_entry;

typedef struct gf_isa gf_isa;  /* opaque: one architecture's table */

typedef enum gf_unknown_policy { GF_UNKNOWN_ERROR = 0, GF_UNKNOWN_ALU = 1 } gf_unknown_policy;

/* Loads models/isa/<arch>.csv (models_dir as gf_gpu_load). *out owned by caller. */
gf_status gf_isa_load(const char *arch, const char *models_dir, gf_isa **out, gf_error *err);
void gf_isa_free(gf_isa *isa);

/* Classifies an interned opcode (sass/opcode.h). Results are cached per id, so this is
 * O(1) after the first call for an opcode. An opcode missing from the table is an error
 * (GF_ERR_PARSE, message naming the opcode) unless policy is GF_UNKNOWN_ALU, which
 * returns the ALU class and sets *warned the first time per opcode (the caller warns). */
gf_status gf_isa_lookup(gf_isa *isa, uint16_t opcode, gf_unknown_policy policy,
                        const gf_isa_entry **out, int *warned, gf_error *err);

/* Rescales the issue intervals of a freshly loaded table (before any lookup) from the
 * lane counts its intervals were written for, ref[unit] (models/isa/lanes.csv), to the
 * model's, lanes[unit] (sm.fp32_lanes ...; gpu/lanes.h): interval x ref / lanes, rounded
 * up to whole cycles, at least 1. A unit with no lanes makes its opcodes an error at
 * lookup naming the key. Units without a lane key (branch, uniform) are left alone. */
gf_status gf_isa_scale_intervals(gf_isa *isa, const unsigned ref[GF_UNIT_COUNT],
                                 const unsigned lanes[GF_UNIT_COUNT], gf_error *err);
/* The model key that sets a unit's lanes ("sm.fp32_lanes"), NULL for branch/uniform. */
const char *gf_isa_lane_key(gf_unit u);

const char *gf_unit_name(gf_unit u);
const char *gf_mem_space_name(gf_mem_space s);

#endif
