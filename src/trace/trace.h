/*
 * Streaming reader of NVBit kernel traces (docs/model.md, Pipeline): the interface the
 * later stages read through, whatever the format.
 *
 * A trace is a list of commands (MemcpyHtoD or a kernel) read from a kernelslist.g,
 * a directory holding one, or a single kernel-N.traceg (kernelslist.c; a PPT-GPU trace
 * directory lists its kernels in app_config.py, pptgpu.c). Each kernel is then read as
 * thread block -> warp -> instruction, one instruction at a time, so memory stays
 * bounded by what the caller keeps. kreader.c owns gf_kreader_*: it tells the format of
 * a kernel file from its path and dispatches through that format's table of operations
 * (kreader_ops.h) to the Accel-Sim reader (accelsim.c; files plain, gzip, xz or .tracez,
 * detected by magic bytes) or the PPT-GPU reader (pptgpu.c). Opcodes are interned into
 * small integers shared by the whole process (sass/opcode.h) so later stages compare
 * integers, not strings. The types are in trace/types.h.
 *
 * Prefix: gf_trace_ (list of commands), gf_kreader_ (one kernel file).
 */
#ifndef GF_TRACE_TRACE_H
#define GF_TRACE_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "gpuforecast/gpuforecast.h"
#include "trace/types.h"

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

/* Iteration. Each returns GF_OK with the item, GF_END when the enclosing level has no
 * more items, or an error. Call order: next_block, then next_warp until GF_END, and
 * within a warp next_inst until GF_END (exactly `insts = n` instructions; fewer lines
 * than declared is a parse error). Skipping the rest of a warp or block is allowed:
 * the reader discards unread lines. */
gf_status gf_kreader_next_block(gf_kreader *r, unsigned tb[3], gf_error *err);
gf_status gf_kreader_next_warp(gf_kreader *r, unsigned *warp_id, uint32_t *ninsts,
                               gf_error *err);
gf_status gf_kreader_next_inst(gf_kreader *r, gf_inst *inst, gf_error *err);

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

/* Position for messages: file path and current line number. */
const char *gf_kreader_path(const gf_kreader *r);
long gf_kreader_line(const gf_kreader *r);

#endif
