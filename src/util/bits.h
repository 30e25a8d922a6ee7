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

/* Set bits in x (SWAR, as gf_popcount32; gf_popcount64_fast where the build can clone). */
static inline unsigned gf_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* GF_POPCNT_CLONES before a hot function that counts bits with gf_popcount64_fast: the
 * compiler builds it twice, for x86-64 with the POPCNT instruction (every x86-64 CPU
 * since 2008) and for the baseline, and the loader picks one (ifunc). In the first,
 * gf_popcount64_fast is one instruction instead of gf_popcount64's fifteen (the issue
 * loop's stall bookkeeping counts one history word an issue: -2.1 % of predict's
 * instructions on matmul 256 titanv, callgrind); in the baseline one, libgcc's
 * __popcountdi2. Elsewhere (no target_clones, not x86-64, clang: clang 14's clones left
 * the function undefined in a static archive, the fuzzers' link) it is gf_popcount64. A
 * function it calls that is not inlined gets the baseline code. */
#if defined(__x86_64__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define GF_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#define gf_popcount64_fast(x) ((unsigned)__builtin_popcountll(x))
#endif
#endif
#ifndef GF_POPCNT_CLONES
#define GF_POPCNT_CLONES
#define gf_popcount64_fast(x) gf_popcount64(x)
#endif

/* Set bits in a line's 4-bit sector mask (bits above 3 ignored): a nibble of a constant
 * that lists the counts of 0..15, three instructions instead of eleven. */
static inline unsigned gf_popcount4(unsigned m)
{
    return (unsigned)(UINT64_C(0x4332322132212110) >> ((m & 15u) * 4u)) & 15u;
}

#endif
