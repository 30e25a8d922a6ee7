/*
 * Spill file: where the issue model parks the decoded instructions of resident thread
 * blocks when holding them all would pass the hold budget (ksim_block.c, `--hold`).
 *
 * A kernel whose blocks all fit in one wave (grid-stride loops, the FFMA benchmark) has
 * its whole trace resident at once; without a budget its decoded form (~25 bytes per
 * warp instruction) would make memory follow the trace's length. Spilled warps keep a
 * small window in memory and read the next one back with pread when they reach its end,
 * so this works for any trace compression (the trace itself is read once, in order).
 *
 * The file is created in $TMPDIR (else /tmp) and unlinked at once, so it disappears
 * with the process whatever happens. Appends go through a 1 MiB buffer (a window is
 * ~10-20 KB: one write per window cost a system call each, ~2 us on the VMs this runs
 * on) and are made by one thread between the parallel phases; gf_spill_flush makes them
 * readable. Reads are thread-safe (preadv). Retired blocks' ranges are given back to the
 * file system where it can punch holes.
 *
 * Prefix: gf_spill_. Opaque handle; the caller owns it and frees it with gf_spill_close.
 */
#ifndef GF_TIMING_SPILL_H
#define GF_TIMING_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "util/error.h"

typedef struct gf_spill gf_spill;

/* Creates the spill file. */
gf_status gf_spill_open(gf_spill **out, gf_error *err);
void gf_spill_close(gf_spill *sp); /* NULL is fine */

/* Appends len bytes (buffered); *off receives where they start. */
gf_status gf_spill_append(gf_spill *sp, const void *data, size_t len, uint64_t *off,
                          gf_error *err);

/* Writes out what gf_spill_append buffered: everything appended before is readable. */
gf_status gf_spill_flush(gf_spill *sp, gf_error *err);

/* Reads the iovcnt (<= 8) buffers of iov in order from off on: 0, or -1 with errno set
 * (a short read is EIO). Only flushed bytes can be read. */
int gf_spill_readv(const gf_spill *sp, uint64_t off, const struct iovec *iov, int iovcnt);

/* The range [off, off + len) is no longer needed (best effort). */
void gf_spill_discard(gf_spill *sp, uint64_t off, uint64_t len);

/* Bytes appended so far, and the directory the file lives in (for messages). */
uint64_t gf_spill_size(const gf_spill *sp);
const char *gf_spill_dir(const gf_spill *sp);

#endif
