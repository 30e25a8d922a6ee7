/*
 * Synthetic trace generator: writes Accel-Sim tracer-v4 traces (kernelslist.g +
 * kernel-1.traceg, optionally gzip) of parameterised kernels whose behaviour is known,
 * so the rest of gpuforecast can be tested against exact answers (docs/validation.md, exact answers).
 *
 * The layout of the written files is the one of tests/tools/gentrace.py (itself
 * the Accel-Sim NVBit tracer v4 format, see the refdata microgpusim traces): a `-key = value`
 * header, `#BEGIN_TB`, `thread block = x,y,z`, `warp = w`, `insts = n`, instruction lines
 * `PC mask dest_num [Rd] OPCODE src_num [Rs...] mem_width [addr_mode addresses...]`.
 * The stride, l2write and stream-copy (16 B) kinds reproduce gentrace.py byte for byte
 * (same --sm, same sizes). The other kinds follow the SASS nvcc emits for such kernels.
 *
 * Generation streams: each warp is produced twice (once to count its instructions for the
 * `insts = n` line, once to write them), so memory does not grow with the trace.
 *
 * Prefix: gf_gen_.
 */
#ifndef GF_GEN_GEN_H
#define GF_GEN_GEN_H

#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

typedef enum gf_gen_kind {
    GF_GEN_VECADD = 0, /* c[i] = a[i] + b[i], bounds-checked; MemcpyHtoD of a and b */
    GF_GEN_STRIDE,     /* coalescer micro-benchmark (Volta memory paper Fig. 3) */
    GF_GEN_L2WRITE,    /* L2 write-policy micro-benchmark (same paper, Fig. 5) */
    GF_GEN_STREAM,     /* STREAM copy/scale/add/triad, grid-stride loop */
    GF_GEN_PCHASE,     /* one-thread dependent pointer chase (latency) */
    GF_GEN_MATMUL,     /* tiled matrix multiply: LDG -> STS, BAR.SYNC, LDS + FFMA */
    GF_GEN_SPILL,      /* register spilling: STL / LDL on the thread's stack frame */
    GF_GEN_LDGSTS,     /* async global->shared copy (sm_80+), with or without BYPASS */
    GF_GEN_HMMA,       /* tensor-core MMA loop (sm_70+) */
    GF_GEN_REDUCE,     /* shared-memory tree reduction + one RED/ATOM per block */
    GF_GEN_FFMA,       /* compute-bound loop of independent FFMA chains */
    GF_GEN_WARPSPEC,   /* Hopper warp-specialised GEMM: TMA producer, WGMMA consumers,
                          mbarrier hand-over with spin-wait loops (sm_90) */
    GF_GEN_KIND_COUNT
} gf_gen_kind;

typedef enum gf_gen_stream_op {
    GF_GEN_COPY = 0, /* b[i] = a[i] */
    GF_GEN_SCALE,    /* b[i] = s * a[i] */
    GF_GEN_ADD,      /* c[i] = a[i] + b[i] */
    GF_GEN_TRIAD     /* a[i] = b[i] + s * c[i] */
} gf_gen_stream_op;

typedef enum gf_gen_addr_mode {
    GF_GEN_ADDR_AUTO = 0, /* kind's default: list for the gentrace.py kinds, else tracer */
    GF_GEN_ADDR_LIST,     /* always mode 0: one address per active lane */
    GF_GEN_ADDR_STRIDED,  /* mode 1 (base + stride) wherever active lanes are evenly spaced,
                             else mode 0 */
    GF_GEN_ADDR_TRACER    /* as the Accel-Sim tracer writes them: mode 1 for one contiguous
                             run of lanes at a constant stride, else mode 2 (base + deltas) */
} gf_gen_addr_mode;

/* gf_gen_params_init fills in the kind's defaults; grid 0 means "derive from the problem
 * size". Any other 0 is an absurd value that gf_gen_resolve rejects. */
typedef struct gf_gen_params {
    gf_gen_kind kind;
    unsigned sm;          /* binary version (61, 70, 75, 80, 86, 89, 90 ...); default 70 */
    unsigned grid[3];     /* default: derived from the problem size */
    unsigned block[3];    /* threads per block; default per kind */
    unsigned warps;       /* --warps W: block = 32*W threads (overrides block) */
    unsigned total_warps; /* --total-warps T with --warps W: grid = T / W */
    uint64_t n;           /* problem size: elements (vecadd, stream, spill, reduce), matrix
                             order (matmul), loads (pchase), loop trips (ffma, hmma, ldgsts
                             tiles per block, warpspec k-tiles per block) */
    unsigned stride;      /* stride: S in 1..32; pchase: bytes between chased pointers */
    uint64_t footprint;   /* pchase: bytes of the chased buffer */
    unsigned width;       /* stream, ldgsts: bytes per lane per access, 4 or 16 */
    gf_gen_stream_op op;  /* stream */
    unsigned slots;       /* spill: spilled 4-byte values per thread */
    unsigned iters;       /* spill: reload passes */
    unsigned acc;         /* ffma: independent accumulators (4..64) */
    unsigned stages;      /* warpspec: pipeline stages (mbarrier pairs), 1..16 */
    unsigned spin;        /* warpspec: traced rounds of every wait loop (0: each wait
                             succeeds at its first try) */
    unsigned tile;        /* matmul: tile edge (8, 16 or 32); block = tile x tile */
    int bypass;           /* ldgsts: LDGSTS.E.BYPASS.128 instead of LDGSTS.E[.128] */
    int atom;             /* reduce: ATOM (returns the old value) instead of RED */
    gf_gen_addr_mode addr_mode;
    int gzip;             /* write kernel-1.traceg.gz (zlib) */
    uint64_t max_bytes;   /* refuse (GF_ERR_INVALID naming --max-size, nothing left
                             behind) a trace whose uncompressed size passes this; 0 = no
                             limit. A counting pass first rejects what is surely too big
                             (>= 25 bytes per line) without touching the disk; the writer
                             stops at the exact limit. A mistyped -n can otherwise fill a
                             disk (matmul -n 4096 is ~0.5 TB). */
} gf_gen_params;

/* What a write produced. */
typedef struct gf_gen_summary {
    uint64_t blocks, warps, warp_insts, thread_insts, mem_insts, bytes;
} gf_gen_summary;

/* Sets *p to the defaults of kind (see `gpuforecast gen --help` for the values). */
void gf_gen_params_init(gf_gen_params *p, gf_gen_kind kind);

/* Copies in to out with the derived values filled in (grid from the problem size,
 * block from --warps/--tile), then validates. Absurd values (zero
 * sizes, stride 0, more than 1024 threads per block, a block that is not a multiple of
 * 32 where the kind needs whole warps, an --sm without the kind's instructions ...)
 * give GF_ERR_INVALID with a message naming the option (e.g. "--block"). */
gf_status gf_gen_resolve(const gf_gen_params *in, gf_gen_params *out, gf_error *err);

/* Writes the trace of *p into out_dir (created if missing; an existing directory gets
 * its kernelslist.g and kernel file replaced). Atomic: files are written under temporary
 * names and renamed only when complete, so a failure leaves no half-written trace. */
gf_status gf_gen_write(const gf_gen_params *p, const char *out_dir, gf_error *err);
/* Same, and fills *sum (may be NULL). */
gf_status gf_gen_write_summary(const gf_gen_params *p, const char *out_dir,
                               gf_gen_summary *sum, gf_error *err);
/* Runs the generator without writing anything (the counting pass only). */
gf_status gf_gen_count(const gf_gen_params *p, gf_gen_summary *sum, gf_error *err);

/* "vecadd", "stride", ...; NULL for an out-of-range kind. */
const char *gf_gen_kind_name(gf_gen_kind kind);
/* 0 and *out set on a known name, -1 otherwise. */
int gf_gen_kind_parse(const char *name, gf_gen_kind *out);
/* "copy", "scale", "add", "triad" -> *out, 0; -1 on anything else. */
int gf_gen_stream_op_parse(const char *name, gf_gen_stream_op *out);

#endif
