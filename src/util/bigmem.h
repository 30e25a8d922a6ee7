/*
 * Big zero-filled arrays that grow: the reuse engines' hash slots, payloads and time
 * bitmaps, which for a streaming trace reach hundreds of MB.
 *
 * Why not calloc/realloc: every fresh 4 KiB page costs a page fault that zeroes it, and
 * on the VMs this runs on a fault costs ~10 us (perf: a 522 MB vecadd prediction took
 * 110,000 faults, clear_page + irq handling ~20 % of its time, and zeroing new payload
 * groups with memset another 7 %). Arrays of 1 MiB and more are therefore mapped
 * directly, 2 MiB-aligned, with a transparent-huge-page hint (one fault per 2 MiB where
 * the kernel allows it; a no-op where THP is off), and their fresh memory is known to be
 * zero, so growth never memsets. Smaller arrays live on the C heap and their users zero
 * a new tail explicitly. A fresh array of 64 KiB or more (gf_big_calloc) has its pages
 * faulted in with one madvise call each, ~4x cheaper than a fault a page
 * (bench/bench_faults): its users write it throughout; below 1 MiB that is malloc,
 * prefault, memset, and growth copies into prefaulted pages instead of realloc's fresh
 * ones. A grown tail is not faulted in (it may stay partly unused): callers that take
 * it a piece at a time fault the pieces in (gf_prefault_reach). Off Linux everything
 * takes the calloc path.
 *
 * Ownership: the caller owns the array and frees it with gf_big_free (never free()).
 */
#ifndef GF_UTIL_BIGMEM_H
#define GF_UTIL_BIGMEM_H

#include <stddef.h>

/* Faults in the whole 4 KiB pages within [p, p + len) of any writable memory in one
 * call, contents unchanged: for memory about to be written that may be fresh. A fresh
 * page touched one at a time costs a page fault, ~16 us on the VMs this runs on,
 * against ~4 us a page this way (bench/README.md, 2026-11-25 tenth session); a page
 * already present costs nothing. Without MADV_POPULATE_WRITE (Linux < 5.14, or not
 * Linux) it does nothing and pages fault in as they are touched. */
void gf_prefault(void *p, size_t len);

/* For a buffer of cap bytes at p whose first `used` bytes are in use, about to be
 * written up to `need`: faults in (gf_prefault) the 64 KiB windows that bytes
 * [used, need) reach first, those past the window of byte used - 1, clipped to cap.
 * Called at every append, it faults a buffer filled in order in 64 KiB at a time. */
void gf_prefault_reach(void *p, size_t cap, size_t used, size_t need);

/* gf_grow (util/alloc.h) for a malloc'ed byte buffer whose first `used` bytes are in
 * use: doubles *cap to at least need; from 64 KiB on, the bytes are copied into a new
 * block whose pages they fill were faulted in first, where realloc would copy into
 * fresh pages a fault at a time. Returns 0, or -1 with *p and *cap untouched. */
int gf_grow_prefaulted(void **p, size_t *cap, size_t used, size_t need);

/* A zeroed array of n elements of size bytes; NULL on overflow or exhaustion. */
void *gf_big_calloc(size_t n, size_t size);

/* Grows *p (from gf_big_calloc or NULL) to hold at least need elements, doubling *cap.
 * The elements past the old *cap are zero if gf_big_tail_zero(*p), else unspecified and
 * the caller zeroes what it takes into use: zeroing the whole doubled tail of a small
 * array at once touched pages long before they were used (85 % of the page faults of a
 * 131 MB vecadd prediction, perf record -e page-faults). Returns 0, or -1 with *p
 * untouched. */
int gf_big_grow(void **p, size_t *cap, size_t need, size_t size);

/* Whether the elements that growth adds to the array at p are zero (a mapped array: fresh
 * pages); 0 for NULL and for calloc/realloc arrays. Elements added while the array was
 * not mapped stay as they were (unspecified unless the caller wrote them), also after it
 * is moved into a mapping: a caller that grows only when every element is in use (the
 * reuse engine's payload groups) never has such elements. */
int gf_big_tail_zero(const void *p);

/* Frees an array from gf_big_calloc/gf_big_grow; NULL is a no-op. */
void gf_big_free(void *p);

#endif
