/*
 * Accel-Sim 2.0's binary kernel trace, `.tracez`, read as the text its `--text` mode
 * would have written (`.traceg`), so the one Accel-Sim line parser serves both
 * (stream.c hands the text out as lines; docs/malformed-inputs.md, "tracez").
 *
 * Layout (little-endian; the revision it follows is named in docs/malformed-inputs.md):
 *   kernel header text, ending in one NUL byte
 *   u32 dict_size, u32 subchunk_insts
 *   dict_size bytes: a zstd dictionary (0: none)
 *   per warp, in index order: u32 inst_count, u32 num_subchunks, then num_subchunks times
 *     u32 size + one zstd frame of `size` bytes: that many instruction lines, joined by
 *     '\n' (no trailing newline), compressed with the dictionary
 *   index: u32 num_tbs, per block 11 u32 (block x,y,z, cluster id x,y,z, CTA in cluster
 *     x,y,z, cluster rank, warp count) then per warp u32 inst_count, u32 num_subchunks,
 *     u64 offset of its warp header, num_subchunks u32 instruction counts
 *   u64 offset of the index (the file's last 8 bytes)
 *
 * Invariants the reader holds a file to (each break is a named GF_ERR_PARSE): the index
 * lies inside the file and ends at its footer; warps' data follow one another with no
 * gap or overlap, from right after the dictionary to the index, in index order (as the
 * writer lays them out), so every byte is read once; each warp header repeats its index
 * record; sub-chunk counts sum to the warp's; a frame decodes to exactly its count of
 * lines. Memory: one read buffer per region and zstd's window (at most 2^27 bytes, the
 * decompression ceiling), never a size taken from the file unchecked.
 *
 * Prefix: gf_tracez_.
 */
#ifndef GF_TRACE_TRACEZ_H
#define GF_TRACE_TRACEZ_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

typedef struct gf_tracez gf_tracez; /* opaque */

/* Largest dictionary accepted (the 2.0 writer trains at most 64 KiB). */
#define GF_TRACEZ_DICT_MAX (4u * 1024u * 1024u)
/* zstd window ceiling (log2 bytes): the decoder refuses frames needing more memory. */
#define GF_TRACEZ_WINDOW_LOG_MAX 27
/* The kernel header (text before the NUL) must end within this many bytes. */
#define GF_TRACEZ_HEADER_MAX (64u * 1024u)

/* 1 when the first n bytes of a file look like a .tracez: a NUL within the first
 * GF_TRACEZ_HEADER_MAX bytes right after a '\n', text before it that starts (after
 * blank lines) with '-' or '#', as a kernel header does. A text trace holds no NUL
 * (one that does is refused as binary by stream.c); gzip and xz are told by their
 * magic first. */
int gf_tracez_looks_like(const unsigned char *p, size_t n);

/* Opens the .tracez on fd (positioned reads only; fd stays the caller's) and checks its
 * footer, compression header and dictionary. *out owned by the caller. */
gf_status gf_tracez_open(int fd, const char *path, gf_tracez **out, gf_error *err);
void gf_tracez_close(gf_tracez *z); /* NULL is fine */

/* Writes up to space (> 0) bytes of the kernel's text form at dst: *n bytes written, at
 * least 1 unless *eof is set (no more text). Errors name the file, the byte offset and
 * the block, warp and sub-chunk (line 0: the fault is in the binary structure). */
gf_status gf_tracez_read(gf_tracez *z, char *dst, size_t space, size_t *n, int *eof,
                         gf_error *err);

#endif
