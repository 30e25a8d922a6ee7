/*
 * Streaming reader of Accel-Sim NVBit traces (docs/model.md, Pipeline).
 *
 * A trace is a list of commands (MemcpyHtoD or a kernel) read from a kernelslist.g,
 * a directory holding one, or a single kernel-N.traceg. Each kernel is then read as
 * thread block -> warp -> instruction, one instruction at a time, so memory stays
 * bounded by what the caller keeps. Files may be plain, gzip or xz (detected by magic
 * bytes). Opcodes are interned into small integers shared by the whole process
 * (see trace/opcode.h) so later stages compare integers, not strings.
 *
 * Prefix: gf_trace_ (list of commands), gf_kreader_ (one kernel file).
 */
#ifndef GF_TRACE_TRACE_H
#define GF_TRACE_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

#define GF_WARP_SIZE 32
#define GF_MAX_DST 4
#define GF_MAX_SRC 8
#define GF_REG_ZERO 255 /* RZ / R255: reads zero, writes are dropped; not a dependency */

/* One warp instruction, fully decoded. When mem_width > 0, addr[] holds one address per
 * lane: lanes whose bit is set in mask are meaningful, the others are 0. When mem_width
 * is 0 (no memory access, most instructions) readers may leave addr[] as it was: clearing
 * 256 bytes per instruction was ~15 % of the Accel-Sim reader's time. */
typedef struct gf_inst {
    uint64_t pc;
    uint32_t mask;          /* active lanes */
    uint16_t opcode;        /* interned full opcode string, e.g. "LDG.E.128" */
    uint16_t base_opcode;   /* interned base (text before the first '.'), e.g. "LDG" */
    uint8_t ndst, nsrc;
    uint16_t dst[GF_MAX_DST];  /* register numbers (R7 -> 7); predicates/uniform regs
                                  are kept with an offset, see trace/opcode.h; entries
                                  past ndst (nsrc) are unspecified */
    uint16_t src[GF_MAX_SRC];
    uint32_t mem_width;     /* bytes per lane from the trace; 0 = not a memory access */
    int32_t imm;            /* tracer v5's trailing immediate (clamped to int32), else 0:
                               e.g. DEPBAR.LE SB0, 1's 1 (ksim_decode.c async groups) */
    uint64_t addr[GF_WARP_SIZE];
    /* 0, or an identity of the lanes' address offsets: two instructions with the same
     * nonzero addr_pattern and mask have the same addr[l] - addr[first active lane] in
     * every active lane (only their base may differ), so what depends only on the
     * offsets and the base's low bits can be reused (ksim_decode.c's coalescing memo).
     * Nonzero only when every active lane's address is below 2^63 (none wrapped). Readers
     * that cannot tell set 0. */
    uint64_t addr_pattern;
} gf_inst;

/* Kernel header (-key = value lines). Unknown keys are kept in extra[]. */
typedef struct gf_kernel_info {
    char name[512];
    long id;
    unsigned grid[3], block[3];
    int has_grid;               /* the header gave a grid; its blocks are then checked
                                   against it (gf_kreader_next_block) */
    unsigned long shmem;        /* bytes of dynamic+static shared memory per block */
    unsigned nregs;
    unsigned binary_version;    /* e.g. 61, 70, 80 */
    long stream_id;
    uint64_t shmem_base, local_base; /* 0 when the header lacks them */
    int has_shmem_base, has_local_base;
    int tracer_version;         /* 0 = unversioned (before 3): per-line tb/warp prefix */
    /* GF_HDR_* bits: header values no real launch can have (the CUDA 13 tracer writes
     * garbage there, refdata/h100-gfbench/README.md). Their fields then hold what the
     * first thread block shows (gf_kreader_open, infer.c gf_infer_header), and
     * suspect_text[bit] the value the header claimed, for the caller's warning. */
    unsigned suspect;
    char suspect_text[3][32];
    char nvbit_version[32];
    unsigned nextra;
    struct { char key[64]; char value[256]; } extra[32];
} gf_kernel_info;

/* Header fields that can be implausible (gf_kernel_info.suspect, bit = 1 << index). */
enum { GF_HDR_SHMEM = 0, GF_HDR_NREGS = 1, GF_HDR_BINARY_VERSION = 2 };
/* The newest Accel-Sim tracer version this reader knows (5: a trailing immediate). */
#define GF_TRACER_VERSION_MAX 5
/* CUDA's largest grid, every compute capability since 3.0 (CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability"): a header beyond it is no launch. */
#define GF_GRID_X_MAX 2147483647u
#define GF_GRID_YZ_MAX 65535u

typedef enum gf_command_kind { GF_CMD_MEMCPY_HTOD = 1, GF_CMD_KERNEL = 2 } gf_command_kind;

typedef struct gf_command {
    gf_command_kind kind;
    uint64_t addr, bytes;   /* MemcpyHtoD */
    char path[1024];        /* kernel: resolved path of the file on disk */
    long line;              /* line in kernelslist.g (0 for a lone .traceg) */
} gf_command;

typedef struct gf_trace gf_trace;       /* opaque: the command list */
typedef struct gf_kreader gf_kreader;   /* opaque: one kernel file being read */

/* Opens TRACE (directory with kernelslist.g, a kernelslist.g, or one .traceg[.gz|.xz]).
 * On success *out is owned by the caller: free with gf_trace_free. Kernel files that the
 * list names must exist (with .gz/.xz tried as well); a missing one is an error naming
 * the list and its line. */
gf_status gf_trace_open(const char *path, gf_trace **out, gf_error *err);
void gf_trace_free(gf_trace *t);              /* NULL is fine */
size_t gf_trace_command_count(const gf_trace *t);
const gf_command *gf_trace_command(const gf_trace *t, size_t i);

/* Opens one kernel file and parses its header. *out owned by caller (gf_kreader_close).
 * Header fields with impossible values are marked in info.suspect and replaced by what
 * the first thread block shows (trace/infer.h). */
gf_status gf_kreader_open(const char *path, gf_kreader **out, gf_error *err);
/* One sentence for a warning: which header fields were implausible, what they claimed,
 * and what is used instead (e.g. "header claims -nregs = 0 ...; using nregs = 16"). */
void gf_kernel_info_describe_suspect(const gf_kernel_info *k, char *buf, size_t size);
void gf_kreader_close(gf_kreader *r);         /* NULL is fine */
const gf_kernel_info *gf_kreader_info(const gf_kreader *r);

/* A warning for the caller to show: the file it is about and one sentence. */
typedef void (*gf_trace_warn_fn)(void *ctx, const char *file, const char *message);

/* Thread blocks are checked against the header's grid (when the header has one): a block
 * outside the grid or one listed twice is an error at next_block, and so is the end of
 * the blocks with fewer distinct blocks than the grid holds (a trace cut at a block
 * boundary) - unless partial is on: then next_block ends normally and warn (may be NULL)
 * is called once with how many of how many blocks were found. Off by default. */
void gf_kreader_set_partial(gf_kreader *r, int on, gf_trace_warn_fn warn, void *ctx);
/* Distinct thread blocks read so far and the grid's total (0 when the header gave none). */
void gf_kreader_block_counts(const gf_kreader *r, uint64_t *found, uint64_t *total);

/* A thread block's cluster (Hopper thread-block clusters), as Accel-Sim 2.0 writes it
 * after `thread block = x,y,z` (`cluster id = x,y,z`, `cluster cta = x,y,z`, `cluster
 * rank = r`; a .tracez's index holds the same). present is 0 for traces without these
 * lines (tracer 1.x): then every field is 0, as the 2.0 tracer writes for a launch
 * without clusters. id: the cluster within the grid; cta: this block's coordinates
 * within its cluster; rank: its linear rank there. The blocks of one cluster run
 * together on one GPC (CUDA C++ Programming Guide, "Thread Block Clusters"); what the
 * model does with that: docs/model.md, "Thread-block clusters". */
typedef struct gf_block_cluster {
    int present;
    unsigned id[3], cta[3], rank;
} gf_block_cluster;

/* Iteration. Each returns GF_OK with the item, GF_END when the enclosing level has no
 * more items, or an error. Call order: next_block, then next_warp until GF_END, and
 * within a warp next_inst until GF_END (exactly `insts = n` instructions; fewer lines
 * than declared is a parse error). Skipping the rest of a warp or block is allowed:
 * the reader discards unread lines. */
gf_status gf_kreader_next_block(gf_kreader *r, unsigned tb[3], gf_error *err);
gf_status gf_kreader_next_warp(gf_kreader *r, unsigned *warp_id, uint32_t *ninsts,
                               gf_error *err);
gf_status gf_kreader_next_inst(gf_kreader *r, gf_inst *inst, gf_error *err);
/* Accel-Sim 2.0's TMA lines (opcodes UTMALDG, UTMASTG, UTMAPF, UTMAREDG, UBLKCP, UBLKPF,
 * UBLKRED): after the memory width come the mbarrier the copy completes on, a multicast
 * flag (then, when 1, a hex mask of the cluster's CTAs it goes to), the bytes in and out
 * of bounds, and an address mode: 3, a count and that many hex addresses, or 4, a hex
 * base, a count and count - 1 decimal deltas (the 2.0 simulator's trace parser and the
 * post-processor's drop_unused_trywaits; docs/tracez.md names the revisions). Older
 * tracers write TMA lines as any memory line (a mode 0-2 address list), told apart by the
 * token after the first one: a 0x address there. */
typedef struct gf_tma_info {
    uint64_t mbar;          /* the mbarrier's address, as the tracer wrote it */
    uint64_t bytes, oob_bytes;
    uint16_t cta_mask;      /* multicast: bit r = cluster rank r gets the tile; else 0 */
    int multicast;
    uint32_t ntransfers;    /* addresses the line lists (mode 3) or encodes (mode 4) */
    uint64_t first;         /* the first of them (0 when none) */
} gf_tma_info;

/* The 2.0 TMA fields of the instruction next_inst returned last, or NULL when it was not
 * a 2.0 TMA line. Its gf_inst has the line's memory width and, in every active lane, the
 * first transfer address (what older tracers record: one address per copy; no transfer:
 * width 0), so the model treats it as it treats a TMA line today (ksim_decode.c's
 * is_bulk_copy warning); the fields are for the Hopper TMA/mbarrier model. */
const gf_tma_info *gf_kreader_tma(const gf_kreader *r);

/* The cluster of the block next_block returned last (zeroed before the first). */
const gf_block_cluster *gf_kreader_block_cluster(const gf_kreader *r);

/* Accel-Sim 2.0's replay markers: `REPLAY_START` / `REPLAY_END` lines (in the opcode's
 * place) bracket a region of a warp's trace; they are the tracer's bookkeeping, not
 * instructions the warp executes, so next_inst never returns them (nor does the model
 * time or count them): it skips them, checks that they pair up within the warp (an
 * unmatched one is a parse error naming its line), and counts them here. The lines
 * between them are instructions as any others. A warp's `insts = n` counts the marker
 * lines too (the 2.0 writer's count), so next_inst may return fewer than n. */
uint64_t gf_kreader_replay_markers(const gf_kreader *r);

/* Repeated lines, for a caller that remembers what lines parsed to (ksim_decode.c's replay).
 * gf_kreader_last_text gives the bytes of the instruction line the last next_inst
 * returned, its newline included, when they were read as they lie in the file (*len 0
 * otherwise: the general parser's lines, PPT-GPU kernels); valid until the next call on
 * r. gf_kreader_match returns how many of the len bytes at text the current warp's
 * unread lines begin with (0 outside a warp, for PPT-GPU kernels, or with a line pushed
 * back), reading nothing; only bytes already read in are compared, *compared of them
 * (so a result below *compared is a difference, not the end of the buffer). If text is such line texts
 * one after another, the whole lines among the matched bytes parse to what their texts
 * did, and gf_kreader_skip_lines(r, bytes, n) skips them: n whole lines of `bytes` bytes
 * in all, n at most the lines left in the warp (else it returns 0 and skips nothing). */
void gf_kreader_last_text(const gf_kreader *r, const char **text, size_t *len);
size_t gf_kreader_match(const gf_kreader *r, const char *text, size_t len, size_t *compared);
int gf_kreader_skip_lines(gf_kreader *r, size_t bytes, uint32_t n);

/* With on, next_inst may leave an address list of constant stride to its pattern: when
 * it sets an odd addr_pattern (the stride kind: the k-th active lane's address is the
 * first's + k x ((int64_t)addr_pattern >> 2)), only the first active lane's addr is
 * written and the caller fills in the others if it needs them (gf_inst_fill_stride).
 * Off by default; for a caller whose work mostly depends on the pattern and the first
 * address alone (ksim_decode.c's memos), so expanding 32 lanes per line was wasted. */
void gf_kreader_set_lazy_strides(gf_kreader *r, int on);
/* Writes every active lane's address of in from its first active lane's and its odd
 * (stride) addr_pattern into out (inactive lanes 0); in->mask nonzero. */
void gf_inst_fill_stride(const gf_inst *in, uint64_t out[GF_WARP_SIZE]);

/* Position for messages: file path and current line number. */
const char *gf_kreader_path(const gf_kreader *r);
long gf_kreader_line(const gf_kreader *r);

#endif
