/*
 * The Accel-Sim reader's fast path (accelsim_internal.h has the reader's types): the
 * one-pass decoder for instruction lines of the usual shape and `warp =`/`insts =` pairs,
 * the line templates and delta memos that let a repeated line skip most of its parse, and
 * accelsim_next_inst (gf_kreader_next_inst's Accel-Sim operation), which tries the fast
 * path before the general parser (accelsim_next_inst_general, accelsim_general.c); the
 * operations on repeated lines (last_text, match, skip_lines). Also the byte tables both
 * parsers use.
 *
 * Invariants: the fast path may reject more lines than the general parser does, but never
 * accepts a line the general parser rejects nor decodes one differently (a line it gives
 * up on, returning 0, is read again by the general parser, which decides and reports).
 * It consumes nothing from the stream unless it succeeds. The decoding helpers are
 * static inline (the steps of fast_inst always_inline) in this file and fast_inst is
 * inlined into accelsim_next_inst, so the per-line path calls only memcmp (template and
 * memo compares) and the cold ones (interning a new opcode, gf_reg_parse for register
 * names other than Rn, the general parser): callgrind counts no more instructions than
 * when all of this was one function in accelsim.c.
 *
 * Touches: the reader's stream position, remaining count, template and delta-memo slots,
 * opcode cache and last_text; nothing else.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "trace/accelsim_internal.h"
#include "util/bits.h"

unsigned char accelsim_cls[256];
signed char accelsim_hexval[256];

void accelsim_tables_init(void)
{
    for (int i = 0; i < 256; i++)
        accelsim_hexval[i] = -1;
    for (int i = 0; i < 10; i++)
        accelsim_hexval['0' + i] = (signed char)i;
    for (int i = 0; i < 6; i++) {
        accelsim_hexval['a' + i] = (signed char)(10 + i);
        accelsim_hexval['A' + i] = (signed char)(10 + i);
    }
    for (int i = 0; i < 256; i++)
        accelsim_cls[i] = 0;
    accelsim_cls[' '] = accelsim_cls['\t'] = accelsim_cls['\r'] = accelsim_cls['\v'] = 1;
    accelsim_cls['\f'] = 1;
    accelsim_cls[0] = 2;
}


/* Most lines have one fixed shape: single blanks, plain Rn registers, short opcodes. The
 * fast path decodes that shape in one pass straight from the stream's buffer (no memchr,
 * no tokens) and gives up, returning 0, on anything else: the general parser (accelsim.c) then
 * reads the same line again and decides (and reports errors). So the fast path may reject
 * more than it must, but must never accept a line the general parser rejects, nor decode
 * one differently. It stops at the first byte it does not expect, and the stream's buffer
 * ends with a NUL (gf_stream_peek), so it never reads past the data except for short
 * look-aheads (fixed-string compares, the word loads in fast_opcode), which stay within
 * the stream's pad. */

static inline int is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}

/* Clears the lane addresses. memset of this fixed size compiles to `rep stos`, whose
 * start-up cost dominates at 256 bytes (~22 ns against ~8 ns for 16-byte stores on the
 * bench machine); the empty asm hides the zero so the compiler cannot turn the stores
 * back into a memset. */
static inline void clear_addr(uint64_t *a)
{
#if defined(__GNUC__) && defined(__SSE2__)
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    v2u64 z = {0, 0};
    __asm__("" : "+x"(z));
    for (int i = 0; i < GF_WARP_SIZE; i += 2)
        memcpy(a + i, &z, sizeof z);
#else
    memset(a, 0, GF_WARP_SIZE * sizeof *a);
#endif
}

/* a[k] = base + off[k] for the 31 offsets of a full warp's delta list (lane k + 1 is
 * the k-th after the first): four lanes per step with SSE2, whose 32-to-64-bit sign
 * extension GCC does not find by itself (callgrind: ~6 instructions a lane before,
 * SGEMM's shared loads being a third of its lines). */
static inline void add_offsets(uint64_t *a, uint64_t base, const int32_t *off)
{
    unsigned k = 0;
#if defined(__SSE2__)
    __m128i b = _mm_set1_epi64x((long long)base);
    for (; k + 4 <= GF_WARP_SIZE - 1; k += 4) {
        __m128i o = _mm_loadu_si128((const __m128i *)(const void *)(off + k));
        __m128i sign = _mm_srai_epi32(o, 31);
        _mm_storeu_si128((__m128i *)(void *)(a + k), _mm_add_epi64(b, _mm_unpacklo_epi32(o, sign)));
        _mm_storeu_si128((__m128i *)(void *)(a + k + 2),
                         _mm_add_epi64(b, _mm_unpackhi_epi32(o, sign)));
    }
#endif
    for (; k < GF_WARP_SIZE - 1; k++)
        a[k] = base + (uint64_t)(int64_t)off[k];
}

/* a[l] = base + l * stride for all lanes. As a scalar loop (31 8-byte stores) this was
 * ~11 % of `gpuforecast info` on the bench_parse trace (perf); two lanes per store. */
static inline void fill_stride(uint64_t *a, uint64_t base, uint64_t stride)
{
#if defined(__GNUC__) && defined(__SSE2__)
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    v2u64 v = {base, base + stride}, step = {2 * stride, 2 * stride};
    for (int i = 0; i < GF_WARP_SIZE; i += 2) {
        memcpy(a + i, &v, sizeof v);
        v += step;
    }
#else
    for (unsigned l = 0; l < GF_WARP_SIZE; l++)
        a[l] = base + stride * l;
#endif
}

/* Hex with optional 0x, 1..maxdigits digits (as parse_hex). 0 = give up. (A word-at-a-
 * time version was no faster than this table loop on 4-, 8- and 12-digit numbers.) */
static inline __attribute__((always_inline)) int
fast_hex(const unsigned char **pp, unsigned maxdigits, uint64_t *out)
{
    const unsigned char *p = *pp;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const unsigned char *t = p;
    uint64_t v = 0;
    int d;
    while ((d = accelsim_hexval[*p]) >= 0) {
        v = v << 4 | (uint64_t)d;
        p++;
    }
    if (p == t || (size_t)(p - t) > maxdigits)
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

/* Unsigned decimal <= max, at most 19 digits (cannot overflow). 0 = give up. */
static inline int fast_udec(const unsigned char **pp, uint64_t max, uint64_t *out)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    while (is_digit(*p)) {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        if (p - *pp > 19)
            return 0;
    }
    if (p == *pp || v > max)
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

/* Signed decimal within int64 (as parse_sdec). 0 = give up. */
static inline int fast_sdec(const unsigned char **pp, int64_t *out)
{
    const unsigned char *p = *pp;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t v;
    if (!fast_udec(&p, (uint64_t)INT64_MAX, &v))
        return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *pp = p;
    return 1;
}

/* Tracer v5's trailing immediate: a blank and a signed decimal. 0 = give up. */
static inline int fast_immediate(const unsigned char **pp, int32_t *imm)
{
    int64_t v;
    if (**pp != ' ')
        return 0;
    ++*pp;
    if (!fast_sdec(pp, &v))
        return 0;
    *imm = accelsim_clamp_imm(v);
    return 1;
}

/* One register token and the blank after it. 0 = give up. */
static inline int fast_reg(const unsigned char **pp, uint16_t *out)
{
    const unsigned char *p = *pp;
    unsigned v;
    if (p[0] == 'R' && is_digit(p[1])) { /* R0..R255, as reg_token */
        v = (unsigned)(p[1] - '0');
        p += 2;
        if (is_digit(*p)) {
            v = v * 10 + (unsigned)(*p++ - '0');
            if (is_digit(*p))
                v = v * 10 + (unsigned)(*p++ - '0');
        }
        if (v > 255)
            return 0;
    } else {
        while (*p > ' ')
            p++;
        int reg = gf_reg_parse((const char *)*pp, (size_t)(p - *pp));
        if (reg < 0)
            return 0;
        v = (unsigned)reg;
    }
    if (*p != ' ')
        return 0;
    *out = (uint16_t)v;
    *pp = p + 1;
    return 1;
}

/* A one-digit count and that many registers, each followed by a blank. The entries past
 * the count are zeroed (trace.h leaves them unspecified): the decoder's replay compares
 * instruction heads bytewise (ksim_decode.c replay_inst), and entries left over from
 * whichever line this warp parsed last (a text run skips lines unparsed) made every warp
 * of sgemm_tiled leave the replay list at its first shared load and decode the rest in
 * full (callgrind: predict 20,589 M -> 10,822 M instructions). */
static inline int fast_reg_list(const unsigned char **pp, unsigned max, uint16_t *regs,
                                uint8_t *count)
{
    const unsigned char *p = *pp;
    unsigned n = (unsigned)(p[0] - '0');
    if (n > max || p[1] != ' ')
        return 0;
    p += 2;
    memset(regs, 0, max * sizeof *regs); /* (max is a constant: one or two stores) */
    for (unsigned i = 0; i < n; i++)
        if (!fast_reg(&p, &regs[i]))
            return 0;
    *count = (uint8_t)n;
    *pp = p;
    return 1;
}

/* The opcode token and the blank after it -> inst->opcode, inst->base_opcode. Interning
 * hashes the string and compares it in the shared table (~10 % of the parse, perf); the
 * reader's own cache instead keys on the token's bytes loaded as two words, which also
 * find its end without a byte loop. 0 = give up. */
static inline int fast_opcode(gf_accelsim *r, const unsigned char **pp, gf_inst *inst)
{
    const unsigned char *t = *pp;
    if ((unsigned)(t[0] - 'A') >= 26u) /* the general parser wants isupper */
        return 0;
    size_t n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w0, w1, k0, k1;
    memcpy(&w0, t, 8); /* may read past the line: within the stream's pad */
    memcpy(&w1, t + 8, 8);
    /* Lowest byte below 0x21 (blank, NUL, '\n', control): exact for the first such byte
     * ("Bit Twiddling Hacks", hasless); t[0] is a letter, so n >= 1. */
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t e0 = (w0 - ones * 0x21) & ~w0 & highs;
    uint64_t e1 = (w1 - ones * 0x21) & ~w1 & highs;
    if (e0) {
        n = (size_t)__builtin_ctzll(e0) >> 3;
        k0 = w0 & ((1ull << (n * 8)) - 1);
        k1 = 0;
    } else if (e1) {
        n = 8 + ((size_t)__builtin_ctzll(e1) >> 3);
        k0 = w0;
        k1 = w1 & ((1ull << ((n - 8) * 8)) - 1);
    } else {
        goto general;
    }
    if (t[n] != ' ')
        return 0;
    struct opslot *sl =
        &r->opcache[((k0 ^ (k1 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull) >> 56];
    if (sl->len != n || sl->k0 != k0 || sl->k1 != k1) {
        uint16_t op = gf_opcode_intern((const char *)t, n);
        if (op == UINT16_MAX)
            return 0;
        uint16_t base = accelsim_base_opcode(r, op, (const char *)t, n);
        if (base == UINT16_MAX)
            return 0;
        sl->k0 = k0;
        sl->k1 = k1;
        sl->len = (uint32_t)n;
        sl->op = op;
        sl->base = base;
    }
    inst->opcode = sl->op;
    inst->base_opcode = sl->base;
    *pp = t + n + 1;
    return 1;
general:
#endif
    n = 0;
    while (t[n] > ' ')
        n++;
    if (t[n] != ' ')
        return 0;
    uint16_t op = gf_opcode_intern((const char *)t, n);
    if (op == UINT16_MAX)
        return 0;
    inst->opcode = op;
    inst->base_opcode = accelsim_base_opcode(r, op, (const char *)t, n);
    if (inst->base_opcode == UINT16_MAX)
        return 0;
    *pp = t + n + 1;
    return 1;
}

/* (accelsim_internal.h) */
int accelsim_fast_warp_header(const char *data, size_t *nblank, uint64_t *warp,
                              uint64_t *insts, size_t *len1, size_t *len2)
{
    const char *start = data;
    while (*data == '\n') /* `thread block = ...` is followed by one */
        data++;
    *nblank = (size_t)(data - start);
    const unsigned char *p = (const unsigned char *)data;
    if (memcmp(p, "warp = ", 7) != 0) /* may read past the data: within the pad */
        return 0;
    p += 7;
    if (!fast_udec(&p, UINT32_MAX, warp) || *p++ != '\n')
        return 0;
    *len1 = (size_t)((const char *)p - data);
    const unsigned char *q = p;
    if (memcmp(q, "insts = ", 8) != 0)
        return 0;
    q += 8;
    if (!fast_udec(&q, UINT32_MAX, insts) || *q++ != '\n')
        return 0;
    *len2 = (size_t)(q - p);
    return 1;
}

/* The template slot for a line: a hash of its first 16 bytes (PC and mask, mostly), or
 * 32 when decimal fields come before the PC (pre-v3, lineinfo), which would otherwise
 * fill the 16 bytes and send every line of a warp to one slot (a review helper measured
 * 0 hits on such an SGEMM trace). Readable: the stream pads its buffer. */
static struct linetpl *tpl_slot(const gf_accelsim *r, const unsigned char *line)
{
    uint64_t a, b;
    memcpy(&a, line, 8);
    memcpy(&b, line + 8, 8);
    uint64_t h = (a * UINT64_C(0x9e3779b97f4a7c15)) ^ (b * UINT64_C(0xc2b2ae3d27d4eb4f));
    if (r->nprefix) {
        memcpy(&a, line + 16, 8);
        memcpy(&b, line + 24, 8);
        h ^= (a * UINT64_C(0xff51afd7ed558ccd)) ^ (b * UINT64_C(0x94d049bb133111eb));
    }
    return &r->tpl[(h ^ (h >> 29)) & (LINE_TPLS - 1)];
}

static void tpl_store(struct linetpl *tp, const unsigned char *line, size_t len, int addrs,
                      int mode, const gf_inst *inst)
{
    if (!tp || len > LINE_TPL_MAX)
        return;
    memcpy(tp->text, line, len);
    tp->len = (uint16_t)len;
    tp->addrs = (uint8_t)addrs;
    tp->mode = (uint8_t)mode;
    memcpy(tp->head, inst, INST_HEAD);
}

/* The fields before the address list: the decimal prefix (pre-v3, lineinfo), PC, mask,
 * destination registers, opcode, source registers and mem_width (also *width), each
 * followed by a single blank but the width. 0 = give up. */
static inline __attribute__((always_inline)) int
fast_head(gf_accelsim *r, const unsigned char **pp, gf_inst *inst, uint64_t *width)
{
    const unsigned char *p = *pp;
    uint64_t u;
    for (int i = 0; i < r->nprefix; i++) /* tbx tby tbz warp, line number */
        if (!fast_udec(&p, UINT32_MAX, &u) || *p++ != ' ')
            return 0;
    if (!fast_hex(&p, 16, &inst->pc) || *p++ != ' ')
        return 0;
    if (memcmp(p, "ffffffff ", 9) == 0) { /* most lines: one compare, not 8 digits */
        u = 0xffffffffu;
        p += 9;
    } else if (!fast_hex(&p, 8, &u) || *p++ != ' ') {
        return 0;
    }
    inst->mask = (uint32_t)u;
    if (!fast_reg_list(&p, GF_MAX_DST, inst->dst, &inst->ndst) || !fast_opcode(r, &p, inst) ||
        (r->immediate && r->gmma_of[inst->opcode]) || /* (a flag, maybe: general) */
        !fast_reg_list(&p, GF_MAX_SRC, inst->src, &inst->nsrc))
        return 0;
    if (!fast_udec(&p, UINT32_MAX, &u))
        return 0;
    inst->mem_width = (uint32_t)u;
    *width = u;
    *pp = p;
    return 1;
}

/* The end of a line from p: tracer v5's immediate (the newest tracers' second one;
 * version 6's `NoVal`: a `Val` line is the general parser's), trailing blanks (as the
 * tokenizer skips them) and the newline. Returns the byte after the '\n', NULL = give
 * up. */
static inline __attribute__((always_inline)) const unsigned char *
fast_line_end(const gf_accelsim *r, const unsigned char *p, gf_inst *inst)
{
    if (r->immediate) {
        if (!fast_immediate(&p, &inst->imm))
            return NULL;
        if (p[0] == ' ' && (is_digit(p[1]) || p[1] == '-')) {
            int32_t imm2;
            if (!fast_immediate(&p, &imm2))
                return NULL;
        }
        if (r->regvals && memcmp(p, " NoVal", 6) == 0) /* (within the stream's pad) */
            p += 6;
    }
    while (accelsim_cls[*p] == 1)
        p++;
    if (*p != '\n')
        return NULL;
    return p + 1;
}

/* Mode 1 after the first active lane's address a: a blank and the decimal stride, then
 * the other active lanes m (or only addr_pattern, with lazy strides). 0 = give up. */
static inline __attribute__((always_inline)) int
fast_stride(const gf_accelsim *r, const unsigned char **pp, gf_inst *inst, uint64_t a,
            uint32_t mask, uint32_t m)
{
    const unsigned char *p = *pp;
    int64_t stride;
    if (*p++ != ' ' || !fast_sdec(&p, &stride))
        return 0;
    /* a pattern of its own kind (odd; mode 2's are even): the stride, when every
     * lane's address stays in [0, 2^63) (trace.h) — a < 2^62, |stride| < 2^40 */
    if (a < (UINT64_C(1) << 62) && stride > -((int64_t)1 << 40) &&
        stride < ((int64_t)1 << 40) &&
        (stride >= 0 || a >= (uint64_t)-stride * (gf_popcount32(mask) - 1)))
        inst->addr_pattern = (uint64_t)stride << 2 | 1u;
    else /* rare: a lane's address may wrap past 2^64 or below 0: the general parser
          * refuses that, naming the line */
        for (unsigned k = 1, n = gf_popcount32(mask); k < n; k++) {
            uint64_t next = a + (uint64_t)stride * k, prev = a + (uint64_t)stride * (k - 1);
            if (stride >= 0 ? next < prev : next > prev)
                return 0;
        }
    if (inst->addr_pattern && r->lazy_strides) {
        /* the caller fills the other lanes in if it needs them */
    } else if (mask == 0xffffffffu) {
        fill_stride(inst->addr, a, (uint64_t)stride);
    } else {
        while (m) {
            a += (uint64_t)stride;
            inst->addr[__builtin_ctz(m)] = a;
            m &= m - 1;
        }
    }
    *pp = p;
    return 1;
}

/* Mode 0 after the first active lane's address a0: a blank and a hex address for each
 * other active lane m. A list of constant stride gets mode 1's pattern (odd), on mode 1's
 * terms (fast_stride: every lane in [0, 2^63)), so that the decoder's memos serve it too
 * (gentrace.py and `gpuforecast gen` write full lists); every lane is written either way.
 * 0 = give up. */
static inline __attribute__((always_inline)) int
fast_lane_list(const unsigned char **pp, gf_inst *inst, uint64_t a0, uint32_t m)
{
    const unsigned char *p = *pp;
    uint64_t a, prev = a0, stride = 0;
    unsigned k = 0;
    int same = 1;
    while (m) {
        if (*p++ != ' ' || !fast_hex(&p, 16, &a))
            return 0;
        inst->addr[__builtin_ctz(m)] = a;
        if (k++ == 0)
            stride = a - a0;
        else
            same &= a - prev == stride;
        prev = a;
        m &= m - 1;
    }
    /* (differences equal mod 2^64, the first lane below 2^62, |stride| < 2^40 and no lane
     * below 0: lane k is exactly a0 + k x stride, below 2^63) */
    int64_t st = (int64_t)stride;
    if (k && same && a0 < (UINT64_C(1) << 62) && st > -((int64_t)1 << 40) &&
        st < ((int64_t)1 << 40) && (st >= 0 || a0 >= (uint64_t)-st * k))
        inst->addr_pattern = stride << 2 | 1u;
    *pp = p;
    return 1;
}

/* Mode 2 after the first active lane's address a: the decimal deltas of the other active
 * lanes m, taken from the template slot's delta memo when its text matches, else parsed
 * and stored there. 0 = give up. */
static inline __attribute__((always_inline)) int
fast_deltas(gf_accelsim *r, const struct linetpl *tp, const unsigned char **pp,
            const char *lim, gf_inst *inst, uint64_t a, uint32_t mask, uint32_t m)
{
    const unsigned char *p = *pp;
    struct deltamemo *dm = tp && r->dmemo ? &r->dmemo[tp - r->tpl] : NULL;
    unsigned nd = gf_popcount32(m);
    /* (the memo's offsets keep every lane in [0, 2^63) when the base is in [below, 2^62);
     * elsewhere the deltas are parsed, which checks each lane for a wrap) */
    if (dm && dm->len && dm->ndelta == nd && a < (UINT64_C(1) << 62) && a >= dm->below &&
        (size_t)(lim - (const char *)p) > dm->len &&
        (p[dm->len] == '\n' || accelsim_cls[p[dm->len]] == 1) &&
        memcmp(p, dm->text, dm->len) == 0) {
        if (mask == 0xffffffffu)
            add_offsets(inst->addr + 1, a, dm->off);
        else
            for (unsigned k = 0; m; k++, m &= m - 1)
                inst->addr[__builtin_ctz(m)] = a + (uint64_t)(int64_t)dm->off[k];
        inst->addr_pattern = dm->gen << 1; /* addresses in [0, 2^63) */
        *pp = p + dm->len;
        return 1;
    }
    const unsigned char *text = p;
    uint64_t base = a;
    int fits = 1;
    int32_t off[GF_WARP_SIZE - 1], lowest = 0;
    for (unsigned k = 0; m; k++, m &= m - 1) {
        int64_t d;
        if (*p++ != ' ' || !fast_sdec(&p, &d))
            return 0;
        uint64_t next = a + (uint64_t)d;
        if (d >= 0 ? next < a : next > a)
            return 0; /* wraps past 2^64 or below 0: the general parser names it */
        a = next;
        inst->addr[__builtin_ctz(m)] = a;
        int64_t o = (int64_t)(a - base);
        fits &= o >= INT32_MIN && o <= INT32_MAX;
        off[k] = (int32_t)o;
        lowest = off[k] < lowest ? off[k] : lowest;
    }
    if (tp && !r->dmemo)
        r->dmemo = calloc(LINE_TPLS, sizeof *r->dmemo); /* NULL: no memo */
    dm = tp && r->dmemo ? &r->dmemo[tp - r->tpl] : NULL;
    /* the memo holds the deltas alone: what follows them (blanks, the immediate of
     * tracer v5, the newline) is read by the caller for every line */
    size_t len = (size_t)(p - text);
    if (dm && fits && (*p == '\n' || accelsim_cls[*p] == 1) && len <= DELTA_TEXT_MAX) {
        memcpy(dm->text, text, len);
        memcpy(dm->off, off, nd * sizeof off[0]);
        dm->len = (uint16_t)len;
        dm->ndelta = (uint8_t)nd;
        dm->gen = ++r->dgen;
        dm->below = (uint64_t)-(int64_t)lowest;
        if (base < (UINT64_C(1) << 62) && base >= dm->below)
            inst->addr_pattern = dm->gen << 1;
    }
    *pp = p;
    return 1;
}

/* The address list after the mode: the first active lane's hex address, then the rest
 * as the mode says. addr[] is cleared first unless a full mask writes every lane.
 * 0 = give up. */
static inline __attribute__((always_inline)) int
fast_addresses(gf_accelsim *r, const struct linetpl *tp, const unsigned char **pp,
               const char *lim, gf_inst *inst, int mode, uint32_t mask)
{
    if (mask != 0xffffffffu)
        clear_addr(inst->addr);
    uint64_t a;
    if (!fast_hex(pp, 16, &a))
        return 0;
    uint32_t m = mask;
    unsigned lane = (unsigned)__builtin_ctz(m);
    m &= m - 1;
    inst->addr[lane] = a;
    if (mode == 1)
        return fast_stride(r, pp, inst, a, mask, m);
    if (mode == 0)
        return fast_lane_list(pp, inst, a, m);
    return fast_deltas(r, tp, pp, lim, inst, a, mask, m);
}

/* The rest of a line whose mask is 0 but whose width is not (a predicated-off access: a
 * third of reduce's lines, all of them once the general parser's at ~900 instructions a
 * line, callgrind), from p just after the width: as the general parser does, addr[] is
 * cleared and whatever follows the width's token is ignored up to the newline; imm is
 * left as it was (a template's head would overwrite it: not stored). Returns the line's
 * length, 0 = give up. */
static inline size_t fast_no_lanes(const char *line, const unsigned char *p, const char *lim,
                                   gf_inst *inst)
{
    if (*p != '\n' && accelsim_cls[*p] != 1) /* (the width's token ends at a blank) */
        return 0;
    const char *nl = memchr(p, '\n', (size_t)(lim - (const char *)p));
    if (!nl)
        return 0;
    clear_addr(inst->addr);
    return (size_t)(nl + 1 - line);
}

/* Decodes the instruction line at line (ending in '\n'; lim: the end of the data read so
 * far) into inst; returns its length including the '\n', or 0 to leave the line to the
 * general parser. */
static size_t fast_inst(gf_accelsim *r, const char *line, const char *lim, gf_inst *inst)
{
    const unsigned char *p = (const unsigned char *)line, *end;
    uint64_t width;
    int mode;
    struct linetpl *tp = r->tpl ? tpl_slot(r, p) : NULL;
    /* (a line cut at lim ends in a NUL there, which no template holds; the length test
     * keeps memcmp inside the buffer) */
    inst->addr_pattern = 0;
    if (tp && tp->len && (size_t)(lim - line) >= tp->len &&
        memcmp(p, tp->text, tp->len) == 0) {
        /* the same bytes as a line parsed before: the same fields */
        memcpy(inst, tp->head, INST_HEAD);
        if (!tp->addrs)
            return tp->len;
        p += tp->len;
        mode = tp->mode;
    } else {
        if (!fast_head(r, &p, inst, &width))
            return 0;
        if (width == 0 || inst->mask == 0) {
            if (width != 0)
                return fast_no_lanes(line, p, lim, inst);
            /* no width: addr[] is left as it was (trace.h) */
            if (!(end = fast_line_end(r, p, inst)))
                return 0;
            tpl_store(tp, (const unsigned char *)line, (size_t)((const char *)end - line), 0,
                      0, inst);
            return (size_t)((const char *)end - line);
        }
        if (p[0] != ' ' || p[1] < '0' || p[1] > '2' || p[2] != ' ')
            return 0;
        mode = p[1] - '0';
        p += 3;
        tpl_store(tp, (const unsigned char *)line, (size_t)((const char *)p - line), 1, mode,
                  inst);
    }
    if (!fast_addresses(r, tp, &p, lim, inst, mode, inst->mask) ||
        !(end = fast_line_end(r, p, inst)))
        return 0;
    return (size_t)((const char *)end - line);
}

/* A replay marker just read (trace.h gf_kreader_replay_markers): paired, counted. */
__attribute__((noinline)) static gf_status replay_marker(gf_accelsim *r, const gf_inst *inst,
                                                        gf_error *err)
{
    r->replay_markers++;
    if (inst->opcode == r->replay_op[0]) {
        if (r->replay_depth++ == 0)
            r->replay_line = gf_stream_line(r->s);
        return GF_OK;
    }
    if (r->replay_depth == 0)
        return gf_error_set(err, GF_ERR_PARSE, accelsim_path_of(r), gf_stream_line(r->s),
                            "REPLAY_END without a REPLAY_START before it in warp %u: expected "
                            "Accel-Sim 2.0's replay markers in pairs",
                            r->warp_id);
    r->replay_depth--;
    return GF_OK;
}

/* A warp's end: no replay region left open. */
static gf_status warp_end(gf_accelsim *r, gf_error *err)
{
    if (__builtin_expect(r->replay_depth != 0, 0)) {
        r->replay_depth = 0;
        return gf_error_set(err, GF_ERR_PARSE, accelsim_path_of(r), r->replay_line,
                            "REPLAY_START with no REPLAY_END before warp %u ends: expected "
                            "Accel-Sim 2.0's replay markers in pairs",
                            r->warp_id);
    }
    return GF_END;
}

static inline gf_status next_inst_line(gf_accelsim *r, gf_inst *inst, gf_error *err)
{
    if (!r->has_pushback) {
        const char *data, *lim;
        gf_stream_peek(r->s, &data, &lim);
        size_t used = fast_inst(r, data, lim, inst);
        if (used && !(inst->mem_width && r->tma_of[inst->opcode])) { /* (TMA: general) */
            gf_stream_skip_line(r->s, used);
            r->remaining--;
            r->last_text = data;
            r->last_len = used;
            return GF_OK;
        }
    }
    r->last_len = 0;
    return accelsim_next_inst_general(r, inst, err);
}

gf_status accelsim_next_inst(void *impl, gf_inst *inst, gf_error *err)
{
    gf_accelsim *r = impl;
    for (;;) {
        if (r->state != RS_IN_WARP || r->remaining == 0)
            return warp_end(r, err);
        gf_status st = next_inst_line(r, inst, err);
        if (st != GF_OK || !accelsim_is_replay_marker(r, inst->opcode))
            return st;
        if ((st = replay_marker(r, inst, err)) != GF_OK)
            return st;
    }
}

void accelsim_set_lazy_strides(void *impl, int on)
{
    ((gf_accelsim *)impl)->lazy_strides = on != 0;
}

void accelsim_last_text(const void *impl, const char **text, size_t *len)
{
    const gf_accelsim *r = impl;
    *text = r->last_text;
    *len = r->last_len;
}

size_t accelsim_match(const void *impl, const char *text, size_t len, size_t *compared)
{
    const gf_accelsim *r = impl;
    *compared = 0;
    if (r->state != RS_IN_WARP || r->remaining == 0 || r->has_pushback)
        return 0;
    const char *data, *lim;
    gf_stream_peek(r->s, &data, &lim);
    size_t avail = (size_t)(lim - data), n = len < avail ? len : avail, i = 0;
    *compared = n;
    if (memcmp(data, text, n) == 0) /* the usual case, and libc's memcmp is the fastest */
        return n;
    for (; i + 8 <= n; i += 8) { /* then where: word by word */
        uint64_t a, b;
        memcpy(&a, data + i, 8);
        memcpy(&b, text + i, 8);
        if (a != b) /* the first differing byte: the lowest in memory */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return i + (size_t)(__builtin_clzll(a ^ b) >> 3);
#else
            return i + (size_t)(__builtin_ctzll(a ^ b) >> 3);
#endif
    }
    while (i < n && data[i] == text[i])
        i++;
    return i;
}

int accelsim_skip_lines(void *impl, size_t bytes, uint32_t n)
{
    gf_accelsim *r = impl;
    if (r->state != RS_IN_WARP || r->remaining < n || r->has_pushback)
        return 0;
    gf_stream_skip_lines(r->s, bytes, (long)n);
    r->remaining -= n;
    r->last_len = 0; /* (the last text is the caller's copy, not the buffer's) */
    return 1;
}
