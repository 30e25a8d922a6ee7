/*
 * Spill file: where the issue model parks the decoded instructions of resident thread
 * blocks when holding them all would pass the hold budget (kernel_sim.c, `--hold`).
 *
 * A kernel whose blocks all fit in one wave (grid-stride loops, the FFMA benchmark) has
 * its whole trace resident at once; without a budget its decoded form (~25 bytes per
 * warp instruction) would make memory follow the trace's length. Spilled warps keep a
 * small window in memory and read the next one back with pread when they reach its end,
 * so this works for any trace compression (the trace itself is read once, in order).
 *
 * The file is created in $TMPDIR (else /tmp) and unlinked at once, so it disappears
 * with the process whatever happens. Reads are thread-safe (pread); appends are made by
 * one thread between the parallel phases. Retired blocks' ranges are given back to the
 * file system where it can punch holes.
 *
 * Prefix: gf_spill_. Opaque handle; the caller owns it and frees it with gf_spill_close.
 */
#ifndef GF_TIMING_SPILL_H
#define GF_TIMING_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct gf_spill gf_spill;

/* Creates the spill file. */
gf_status gf_spill_open(gf_spill **out, gf_error *err);
void gf_spill_close(gf_spill *sp); /* NULL is fine */

/* Appends len bytes; *off receives where they start. */
gf_status gf_spill_append(gf_spill *sp, const void *data, size_t len, uint64_t *off,
                          gf_error *err);

/* Reads len bytes at off into buf: 0, or -1 with errno set (a short read is EIO). */
int gf_spill_read(const gf_spill *sp, uint64_t off, void *buf, size_t len);

/* The range [off, off + len) is no longer needed (best effort). */
void gf_spill_discard(gf_spill *sp, uint64_t off, uint64_t len);

/* Bytes appended so far, and the directory the file lives in (for messages). */
uint64_t gf_spill_size(const gf_spill *sp);
const char *gf_spill_dir(const gf_spill *sp);

#endif
