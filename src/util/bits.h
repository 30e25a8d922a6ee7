/* Bit counting without a library call: the build targets baseline x86-64 (no -mpopcnt),
 * where __builtin_popcount becomes a call to libgcc's __popcountdi2 — 2 % of predict on
 * compute-bound traces (callgrind). */
#ifndef GF_UTIL_BITS_H
#define GF_UTIL_BITS_H

#include <stdint.h>

/* Set bits in x; a full warp mask, the common case, without arithmetic. */
static inline unsigned gf_popcount32(uint32_t x)
{
    if (x == 0xffffffffu)
        return 32;
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* Set bits in x (SWAR, as gf_popcount32; the issue history's counts, ksim_issue.c). */
static inline unsigned gf_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Set bits in a line's 4-bit sector mask (bits above 3 ignored): a nibble of a constant
 * that lists the counts of 0..15, three instructions instead of eleven. */
static inline unsigned gf_popcount4(unsigned m)
{
    return (unsigned)(UINT64_C(0x4332322132212110) >> ((m & 15u) * 4u)) & 15u;
}

#endif
