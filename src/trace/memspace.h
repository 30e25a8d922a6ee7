/*
 * Memory space of a warp instruction from its base opcode (the text before the first
 * '.'), for instruction-mix summaries such as `gpuforecast info`. Deliberately independent
 * of the per-architecture ISA tables (gpu/isa.h): it only needs the SASS mnemonics,
 * which are the same on every architecture that has them.
 *
 * Prefix: gf_memspace_.
 */
#ifndef GF_TRACE_MEMSPACE_H
#define GF_TRACE_MEMSPACE_H

#include <stddef.h>

typedef enum gf_memspace {
    GF_MEMSPACE_NONE = 0,
    GF_MEMSPACE_GLOBAL_LD,  /* LDG */
    GF_MEMSPACE_GLOBAL_ST,  /* STG */
    GF_MEMSPACE_LOCAL_LD,   /* LDL */
    GF_MEMSPACE_LOCAL_ST,   /* STL */
    GF_MEMSPACE_SHARED_LD,  /* LDS, LDSM */
    GF_MEMSPACE_SHARED_ST,  /* STS */
    GF_MEMSPACE_CONSTANT,   /* LDC */
    GF_MEMSPACE_GENERIC_LD, /* LD */
    GF_MEMSPACE_GENERIC_ST, /* ST */
    GF_MEMSPACE_ATOMIC,     /* ATOM, ATOMG, ATOMS, RED */
    GF_MEMSPACE_LDGSTS,     /* LDGSTS (global -> shared async copy, sm_80+) */
    GF_MEMSPACE_COUNT
} gf_memspace;

/* Space of base opcode s[0..len) (e.g. "LDG"); GF_MEMSPACE_NONE when not a memory op. */
gf_memspace gf_memspace_of(const char *s, size_t len);
/* Short stable name: "global_ld", "global_st", "local_ld", ... ("none" for NONE). */
const char *gf_memspace_name(gf_memspace m);

#endif
