/*
 * PPT-GPU trace reader (docs/model.md, Pipeline, issue #7): the second input format, read through the
 * same gf_trace_* / gf_kreader_* calls as an Accel-Sim trace (trace.h), which dispatch
 * here: kernelslist.c for the launch list, kreader.c through gf_pptgpu_ops (kreader_ops.h)
 * for a kernel. Callers normally never call these functions directly.
 *
 * A PPT-GPU trace directory (written by PPT-GPU's NVBit tracer, refdata/ppt-gpu-bfs/):
 *   app_config.py                      one Python dict literal per launch, `kernel_K = {
 *                                      "kernel_name": ..., "num_registers": ...,
 *                                      "shared_mem_bytes": ..., "grid_size": ...,
 *                                      "block_size": ..., "cuda_stream_id": ... }`
 *   sass_traces/kernel_K.sass          `<warp> <OPCODE> <regs...>` per executed warp
 *                                      instruction of ONE traced thread block, in the order
 *                                      the tracer received them (warps interleaved)
 *   memory_traces/kernel_K_block_B.mem per block B (linear id x + gx*y + gx*gy*z):
 *                                      `=====` before each global/local/generic memory
 *                                      warp instruction `<OPCODE> <hex address per lane>`
 *                                      (lanes whose address is 0 are not written)
 *
 * How the stream is rebuilt (the tracer writes the .sass line and the .mem line of one
 * record in the same loop, so for the traced block the k-th memory instruction of the
 * .sass file IS the k-th .mem entry; on refdata/ppt-gpu-bfs at least one block per kernel
 * matches the template opcode for opcode, the others took data-dependent paths):
 *   - every block runs the .sass template: each warp executes its own template stream;
 *   - the k-th memory instruction of the template (file order) takes the k-th entry of
 *     the block's .mem file (opcode from the entry, registers from the template);
 *   - a block with fewer entries than template memory instructions drops the unmatched
 *     template memory instructions; a block with more appends the extra entries, in
 *     order, round-robin over the warps (entry n+i to the i-th warp mod warps), each
 *     before its warp's final EXIT, with the registers of the first template instruction
 *     of that opcode. So every memory instruction we emit is exactly one .mem entry (the
 *     memory model sees all of PPT-GPU's requests), and non-memory instructions are the
 *     template's: warp instructions = (template - template memory) * blocks + entries.
 *   - active mask: memory instructions: the low N lanes for N addresses (the tracer drops
 *     lane identities); others: all 32 lanes, limited by block_size in the last warp;
 *     an EXIT that is not its warp's last instruction was predicated off: mask 0.
 *   - mem_width from the opcode suffix: .U8/.S8 1, .U16/.S16 2, .64 8, .128 16, else 4.
 *     Shared-memory and constant instructions carry no addresses in this format
 *     (mem_width 0), so shared-memory bank conflicts cannot be modelled from it.
 *   - warp ids are the tracer's hardware warp slots; they are renumbered 0.. in
 *     ascending order (the block-local warp index).
 *   - a block without a .mem file executed no global memory instruction (the tracer
 *     creates the file at the first one; PPT-GPU's own reader skips missing files).
 *   - pc: the format has no PCs; inst.pc is the .sass line of the template instruction
 *     (of the borrowed one for appended entries), 0 when there is none.
 * gf_trace_open accepts the directory, its app_config.py, or one kernel_K.sass (a
 * directory with a kernelslist.g stays an Accel-Sim trace).
 * A PPT-GPU kernel is recognisable from gf_kreader_info(): extra[] holds
 * "format" = "pptgpu" (first entry), binary_version is 0 (unknown), tracer_version 0.
 *
 * Prefix: gf_pptgpu_.
 */
#ifndef GF_TRACE_PPTGPU_H
#define GF_TRACE_PPTGPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"
#include "trace/kreader_ops.h"
#include "trace/types.h"

typedef struct gf_pptgpu gf_pptgpu; /* opaque: one PPT-GPU kernel being read */

/* 1 when dir holds app_config.py and a sass_traces/ directory. */
int gf_pptgpu_is_dir(const char *dir);
/* 1 when path names a PPT-GPU kernel (a file ending in ".sass"). */
int gf_pptgpu_is_kernel_path(const char *path);

/* Parses dir/app_config.py and returns one GF_CMD_KERNEL command per kernel dict, in file
 * order, path = dir/sass_traces/kernel_K.sass (must exist), line = the dict's line. On
 * success *cmds is owned by the caller (free()); *n >= 1. */
gf_status gf_pptgpu_commands(const char *dir, gf_command **cmds, size_t *n, gf_error *err);

/* Opens the kernel whose template is sass_path (.../sass_traces/kernel_K.sass): reads
 * ../app_config.py for its kernel_K dict and loads the template (one block, kept in
 * memory). *out is owned by the caller: release with gf_pptgpu_close. */
gf_status gf_pptgpu_open(const char *sass_path, gf_pptgpu **out, gf_error *err);
void gf_pptgpu_close(gf_pptgpu *p); /* NULL is fine */
const gf_kernel_info *gf_pptgpu_info(const gf_pptgpu *p);

/* Iteration with the contract of gf_kreader_next_* (trace.h). Blocks come in linear id
 * order; only the current block's .mem file is held in memory. After the last block,
 * GF_ERR_PARSE if no block's .mem matched the template (the files are from different
 * runs). */
gf_status gf_pptgpu_next_block(gf_pptgpu *p, unsigned tb[3], gf_error *err);
gf_status gf_pptgpu_next_warp(gf_pptgpu *p, unsigned *warp_id, uint32_t *ninsts,
                              gf_error *err);
gf_status gf_pptgpu_next_inst(gf_pptgpu *p, gf_inst *inst, gf_error *err);

/* The table kreader.c reads a PPT-GPU kernel through: claims .sass paths
 * (gf_pptgpu_is_kernel_path) and calls the functions above; no cluster, TMA, replay
 * markers or repeated-line operations (kreader_ops.h's defaults). */
extern const gf_kreader_ops gf_pptgpu_ops;

/* File and line of the instruction last returned (the .mem entry for memory
 * instructions, the .sass line otherwise), for messages. */
const char *gf_pptgpu_path(const gf_pptgpu *p);
long gf_pptgpu_line(const gf_pptgpu *p);

#endif
