/*
 * Base opcode -> memory space. The mnemonics come from NVIDIA's CUDA Binary Utilities
 * instruction set reference (Maxwell..Hopper) and match the classes of
 * tests/tools/tracecheck.py so `info` can be cross-checked against it. Exact
 * matches only: LDGDEPBAR, LDSM.16.M88 base "LDSM", etc. are not confused by prefixes.
 */
#include "trace/memspace.h"

#include <string.h>

static const struct {
    const char *op;
    gf_memspace space;
} table[] = {
    {"LDG", GF_MEMSPACE_GLOBAL_LD},   {"STG", GF_MEMSPACE_GLOBAL_ST},
    {"LDL", GF_MEMSPACE_LOCAL_LD},    {"STL", GF_MEMSPACE_LOCAL_ST},
    {"LDS", GF_MEMSPACE_SHARED_LD},   {"LDSM", GF_MEMSPACE_SHARED_LD},
    {"STS", GF_MEMSPACE_SHARED_ST},   {"LDC", GF_MEMSPACE_CONSTANT},
    {"LD", GF_MEMSPACE_GENERIC_LD},   {"ST", GF_MEMSPACE_GENERIC_ST},
    {"ATOM", GF_MEMSPACE_ATOMIC},     {"ATOMG", GF_MEMSPACE_ATOMIC},
    {"ATOMS", GF_MEMSPACE_ATOMIC},    {"RED", GF_MEMSPACE_ATOMIC},
    {"LDGSTS", GF_MEMSPACE_LDGSTS},
};

gf_memspace gf_memspace_of(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strlen(table[i].op) == len && memcmp(table[i].op, s, len) == 0)
            return table[i].space;
    return GF_MEMSPACE_NONE;
}

const char *gf_memspace_name(gf_memspace m)
{
    static const char *const names[GF_MEMSPACE_COUNT] = {
        "none",     "global_ld",  "global_st",  "local_ld", "local_st", "shared_ld",
        "shared_st", "constant", "generic_ld", "generic_st", "atomic", "ldgsts"};
    return (unsigned)m < GF_MEMSPACE_COUNT ? names[m] : "none";
}
