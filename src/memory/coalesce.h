/*
 * Coalescer and shared-memory bank model (docs/model.md, Memory).
 *
 * gf_coalesce turns one warp memory instruction (up to 32 lane addresses) into the
 * 32 B sectors it touches. gf_shmem_wavefronts turns a shared-memory instruction into
 * wavefronts and bank conflicts. Both are pure functions of their inputs; no state,
 * no allocation, so the driver can call them from any thread.
 *
 * Prefix: gf_coalesce, gf_shmem_.
 */
#ifndef GF_MEMORY_COALESCE_H
#define GF_MEMORY_COALESCE_H

#include <stdint.h>

#include "gpu/gpu.h"

/* 32 lanes x at most 2 sectors each (a 16 B access can straddle a sector boundary). */
#define GF_MAX_SECTORS_PER_INST 64
/* Fermi mode lists 4 sectors per touched line and 32 straddling lanes touch up to 64
 * lines, so the arrays hold 256 entries; sector mode never exceeds 64. */
#define GF_COALESCE_MAX_LISTED 256
#define GF_SECTOR_BYTES 32u
#define GF_LINE_BYTES 128u
#define GF_SECTORS_PER_LINE 4u

typedef struct gf_coalesced {
    unsigned nsectors;
    uint64_t sector[GF_COALESCE_MAX_LISTED]; /* byte address >> 5, ascending, distinct */
    uint32_t bytes[GF_COALESCE_MAX_LISTED];  /* touched-byte mask within that sector */
    unsigned nlines;                          /* distinct 128 B lines */
    unsigned requests;                        /* 1 if any lane active, else 0 */
    /* L1 data-array wavefronts (ksim_decode.c sets it where l1.data_banks is modelled;
     * gf_coalesce leaves it 0) */
    unsigned wavefronts;
} gf_coalesced;

/* Coalesces one warp instruction. addr[l] is lane l's byte address (read only for
 * lanes set in mask), width the bytes per lane. Widths outside 1..16 are clamped into
 * that range (the ISA has no wider per-lane access; a corrupt trace must not make us
 * write past out->sector).
 *
 * GF_COALESCE_SECTOR (Volta and later): the result is the set of distinct 32 B sectors
 * the active lanes touch; a lane whose bytes straddle a sector or line boundary
 * contributes both. The hardware coalesces groups of 8 threads
 * (Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" §III-A); that grouping decides how many cycles
 * the L1 takes, not which sectors are requested, so the sector list is the union.
 * Stride micro-benchmark (Fig. 3-4): (32/s)*ceil(s/8) sectors per warp.
 *
 * GF_COALESCE_FERMI: 128 B lines per 32 threads; every touched line is reported as all
 * four of its sectors (the paper's "old model": one 128 B access = 4 sector accesses),
 * bytes[] still holds the bytes actually touched (0 for untouched sectors). */
void gf_coalesce(const uint64_t addr[32], uint32_t mask, unsigned width, gf_coalesce_mode mode,
                 gf_coalesced *out);

/* Adds src's sectors (byte masks or-ed), requests and wavefronts to dst: one
 * instruction that the hardware splits into several requests (a local access wider
 * than a word, ksim_decode.c local_sectors). The lines are counted again. Sector mode
 * only; both lists at most GF_MAX_SECTORS_PER_INST entries, and the union must fit in
 * GF_COALESCE_MAX_LISTED (four 32-lane word requests do). */
void gf_coalesce_merge(gf_coalesced *dst, const gf_coalesced *src);

/* Shared-memory wavefronts for one warp instruction: banks x 4 B words (banks = 32 on
 * every NVIDIA GPU since Kepler; 0 is treated as 32). Within one wavefront each bank
 * serves one distinct 4 B word; lanes reading the same word get it by broadcast (no
 * conflict). Widths 8 and 16 are processed per half warp (CUDA C++ Programming Guide,
 * "Shared Memory", 5.x+; for 16 B confirmed by the refdata GTX 1080 matrixmul counters,
 * see coalesce.c). Widths 1..4 use one pass.
 * Returns the wavefronts (0 when mask == 0); *bank_conflicts (may be NULL) receives
 * wavefronts minus the bandwidth minimum: per pass, ceil(distinct words / banks) (so a
 * conflict-free 16 B access of a full warp is 4 wavefronts, 0 conflicts; a broadcast one 2). */
unsigned gf_shmem_wavefronts(const uint64_t addr[32], uint32_t mask, unsigned width,
                             unsigned banks, unsigned *bank_conflicts);
/* gf_shmem_wavefronts of the accesses c was coalesced from, for widths 1..4 (one pass)
 * and banks a power of two (1..64), from c's byte masks alone: a 4 B word is one of the
 * distinct words of the pass exactly when one of its bytes is touched, so the most
 * distinct words one bank holds is the answer. Cheaper than from the lanes when they
 * are scattered (a histogram's atomics: ~1,370 instructions a warp access, callgrind). */
unsigned gf_coalesced_wavefronts(const gf_coalesced *c, unsigned banks);
/* The same for a shared-memory atomic: no broadcast, as every lane's update must be
 * applied, so a bank serves its lanes one after another whether they share a word or not
 * (the CUDA C++ Programming Guide: atomics on one shared address are serialised; the
 * same-word rule measured at L2 on H100, ksim_decode.c atomic_passes, is the evidence we
 * have; refdata has no shared-atomic kernel). One pass for any width: a lane's words take
 * consecutive banks. *bank_conflicts as above (may be NULL). */
unsigned gf_shmem_atomic_wavefronts(const uint64_t addr[32], uint32_t mask, unsigned width,
                                    unsigned banks, unsigned *bank_conflicts);

#endif
