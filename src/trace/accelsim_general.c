/*
 * The Accel-Sim reader's general instruction parser (accelsim_internal.h has its types):
 * a tokenizing parse of any instruction line the fast path (accelsim_fast.c fast_inst)
 * did not take: the older prefixes (`tbx tby tbz warp`, lineinfo), register lists of any
 * register name, address modes 0-2, Accel-Sim 2.0's TMA fields (modes 3 and 4),
 * tracer v5's immediate, and every error, with the file, the line and what was expected.
 *
 * Invariants: decodes every line it accepts exactly as fast_inst would (the fast path
 * only ever rejects more); consumes the line it parses (one, counted in remaining), or on
 * a structure line reports the short warp and pushes the line back. Interns opcodes and
 * their bases (accelsim_base_opcode, cached per reader in base_of/tma_of).
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace/accelsim_internal.h"
#include "util/bits.h"

/* "R<n>" is nearly every register token; the general names go to gf_reg_parse. */
static inline int reg_token(const char *t, size_t n)
{
    if (t[0] == 'R' && n >= 2 && n <= 4 && t[1] >= '0' && t[1] <= '9') {
        int v = 0;
        for (size_t i = 1; i < n; i++) {
            if (t[i] < '0' || t[i] > '9')
                return -1;
            v = v * 10 + (t[i] - '0');
        }
        return v <= 255 ? v : -1;
    }
    return gf_reg_parse(t, n);
}

static int tma_opcode(uint16_t base);

/* 1 when the opcode's n bytes hold "GMMA" (HGMMA, IGMMA, QGMMA, BGMMA: the upstream
 * parser's test for the commit-group flag). */
static int holds_gmma(const char *op, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(op + i, "GMMA", 4) == 0)
            return 1;
    return 0;
}

uint16_t accelsim_base_opcode(gf_accelsim *r, uint16_t id, const char *op, size_t n)
{
    if (r->base_of[id])
        return (uint16_t)(r->base_of[id] - 1);
    const char *dot = memchr(op, '.', n);
    uint16_t b = dot ? gf_opcode_intern(op, (size_t)(dot - op)) : id;
    /* once per opcode and reader: Accel-Sim 2.0's replay markers (trace.h) */
    if (n == 12 && memcmp(op, "REPLAY_START", 12) == 0)
        r->replay_op[0] = id;
    else if (n == 10 && memcmp(op, "REPLAY_END", 10) == 0)
        r->replay_op[1] = id;
    if (b != UINT16_MAX) {
        r->base_of[id] = (uint16_t)(b + 1);
        r->tma_of[id] = (uint8_t)tma_opcode(b);
        r->gmma_of[id] = (uint8_t)holds_gmma(op, n);
    }
    return b;
}

/* Reads count register tokens into out. On an unknown token returns -1 and sets
 * bad_tok, bad_len and bad_i (1-based position) for the caller's message. */
static int read_regs(const char **p, unsigned count, uint16_t *out, const char **bad_tok,
                     size_t *bad_len, unsigned *bad_i)
{
    for (unsigned i = 0; i < count; i++) {
        const char *t;
        size_t n = token(p, &t);
        int reg = reg_token(t, n);
        if (reg < 0) {
            *bad_tok = t;
            *bad_len = n;
            *bad_i = i + 1;
            return -1;
        }
        out[i] = (uint16_t)reg;
    }
    return 0;
}


/* Tokens are any bytes but blanks: the message quotes them with control bytes escaped
 * (snip's rule), never raw. */
static gf_status tok_error(gf_error *err, const char *path, long ln, const char *fmt, ...)
    GF_PRINTF(4, 5);
static gf_status tok_error(gf_error *err, const char *path, long ln, const char *fmt, ...)
{
    char raw[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    char shown[GF_PRINTABLE_SIZE(sizeof raw)];
    return gf_error_set(err, GF_ERR_PARSE, path, ln, "%s",
                        gf_stream_printable(raw, strlen(raw), sizeof raw, shown, sizeof shown));
}
#define TOKERR(what, ...) tok_error(err, path, ln, what, __VA_ARGS__)

/* The decimal fields before the PC: `tbx tby tbz warp` (pre-v3 traces; redundant with the
 * block/warp headers) and the source line number (enable lineinfo = 1). */
static gf_status general_prefix(const gf_accelsim *r, const char **p, const char *path,
                                long ln, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u;
    if (r->info.tracer_version < 3) {
        for (int i = 0; i < 4; i++) {
            n = token(p, &t);
            if (parse_udec(t, n, UINT32_MAX, &u) != 0)
                return TOKERR("expected 4 decimal numbers 'tbx tby tbz warp' before the PC "
                              "(pre-v3 trace), found '%.*s'",
                              (int)(n ? n : 5), n ? t : "(end)");
        }
    }
    if (r->lineinfo) {
        n = token(p, &t);
        if (parse_udec(t, n, UINT32_MAX, &u) != 0)
            return TOKERR("expected a source line number (enable lineinfo = 1), found "
                          "'%.*s'",
                          (int)(n ? n : 5), n ? t : "(end)");
    }
    return GF_OK;
}

/* PC, mask, the destination registers, the opcode, the source registers and mem_width. */
/* 1 when t (n bytes) starts as a 0x hex address does (an immediate or count cannot). */
static int hex_prefixed(const char *t, size_t n)
{
    return n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

/* 1 when t (n bytes) is a signed decimal: [-+]digits. */
static int is_number(const char *t, size_t n)
{
    size_t i = n && (t[0] == '-' || t[0] == '+');
    if (i >= n)
        return 0;
    for (; i < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return 0;
    return 1;
}

/* The commit-group flag of a warpgroup MMA (an opcode holding "GMMA") after its sources.
 * The newest tracers (Accel-Sim 0cee02c, in their version 5 and 6 forms) write it and
 * two immediates: `flag width imm1 imm2`; older ones (the H100 set's dev 73f9fac, the
 * first version 6) only `width imm`. The line says which: four numbers before `Val`,
 * `NoVal` or its end, or two; with a memory part (none is written for an MMA today, whose
 * operands come through descriptors), three or two before its first 0x address. Skips the
 * flag when there is one. */
static gf_status gmma_flag(const char **p, const char *path, long ln, gf_error *err)
{
    const char *q = *p, *t, *first = NULL;
    size_t n, n0 = 0;
    unsigned count = 0;
    while ((n = token(&q, &t)) != 0 && is_number(t, n)) {
        if (!count++) {
            first = t;
            n0 = n;
        }
    }
    int addr = hex_prefixed(t, n);
    unsigned with_flag = addr ? 3 : 4;
    if (count <= 2)
        return GF_OK;
    if (count != with_flag || n0 != 1 || (first[0] != '0' && first[0] != '1'))
        return TOKERR("a warpgroup MMA's line ends in %u numbers after its sources: "
                      "expected 2 (width, immediate) or 4 (commit-group flag 0 or 1, width, "
                      "two immediates; 3 before a memory part's first address), the "
                      "tracer's two forms",
                      count);
    token(p, &t);
    return GF_OK;
}

static gf_status general_head(gf_accelsim *r, const char **p, gf_inst *inst, const char *path,
                              long ln, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u;
    gf_status st;
    n = token(p, &t);
    if (parse_hex(t, n, 16, &inst->pc) != 0)
        return TOKERR("bad hex PC '%.*s': expected a hexadecimal program counter",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_hex(t, n, 8, &u) != 0)
        return TOKERR("bad mask '%.*s': expected up to 8 hex digits of active lanes",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mask = (uint32_t)u;

    n = token(p, &t);
    if (parse_udec(t, n, GF_MAX_DST, &u) != 0)
        return TOKERR("expected a destination register count 0..%d, found '%.*s'",
                      GF_MAX_DST, (int)(n ? n : 5), n ? t : "(end)");
    inst->ndst = (uint8_t)u;
    unsigned bad_i;
    if (read_regs(p, inst->ndst, inst->dst, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (destination %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    n = token(p, &t);
    if (n == 0 || !isupper((unsigned char)t[0]))
        return TOKERR("expected an opcode (e.g. LDG.E), found '%.*s'", (int)(n ? n : 5),
                      n ? t : "(end)");
    uint16_t op = gf_opcode_intern(t, n);
    if (op == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d): cannot intern '%.*s'",
                      GF_OPCODE_MAX, (int)n, t);
    inst->opcode = op;
    inst->base_opcode = accelsim_base_opcode(r, op, t, n);
    if (inst->base_opcode == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d)", GF_OPCODE_MAX);
    if (accelsim_is_replay_marker(r, op)) {
        /* a marker: its operands (if any) mean nothing here (trace.h) */
        inst->nsrc = 0;
        inst->mem_width = 0;
        *p += strlen(*p);
        return GF_OK;
    }

    n = token(p, &t);
    if (parse_udec(t, n, GF_MAX_SRC, &u) != 0)
        return TOKERR("expected a source register count 0..%d, found '%.*s'", GF_MAX_SRC,
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->nsrc = (uint8_t)u;
    if (read_regs(p, inst->nsrc, inst->src, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (source %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    if (r->immediate && r->gmma_of[op] && (st = gmma_flag(p, path, ln, err)) != GF_OK)
        return st;
    n = token(p, &t);
    if (parse_udec(t, n, UINT32_MAX, &u) != 0)
        return TOKERR("expected mem_width (bytes per lane, 0 = no memory access), found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mem_width = (uint32_t)u;
    return GF_OK;
}

/* A compressed address list's next lane: *a + step (mode 1: the stride from base; mode
 * 2: a delta), which must stay within the 64-bit address space. */
static gf_status lane_step(uint64_t *a, int64_t step, unsigned lane, int mode, uint64_t base,
                           gf_error *err, const char *path, long ln)
{
    uint64_t next = *a + (uint64_t)step;
    if (step >= 0 ? next >= *a : next < *a) {
        *a = next;
        return GF_OK;
    }
    char how[64];
    if (mode == 1)
        snprintf(how, sizeof how, "mode 1: base 0x%llx, stride %lld", (unsigned long long)base,
                 (long long)step);
    else
        snprintf(how, sizeof how, "mode 2: base and deltas");
    return TOKERR("lane %u's address 0x%llx %s %llu (%s) runs %s the 64-bit address space: "
                  "expected every lane's address within 0 .. 2^64 - 1",
                  lane, (unsigned long long)*a, step < 0 ? "-" : "+",
                  step < 0 ? 0 - (unsigned long long)step : (unsigned long long)step, how,
                  step < 0 ? "below the start of" : "past the end of");
}

/* The address mode and the addresses of the nact (> 0) active lanes into addr[]. */
static gf_status general_addresses(const char **p, gf_inst *inst, unsigned nact,
                                   const char *path, long ln, gf_error *err)
{
    const char *t;
    size_t n = token(p, &t);
    if (n != 1 || t[0] < '0' || t[0] > '2')
        return TOKERR("unknown address mode '%.*s': expected 0 (one address per lane), "
                      "1 (base stride) or 2 (base deltas)",
                      (int)(n ? n : 5), n ? t : "(end)");
    int mode = t[0] - '0';
    uint32_t m = inst->mask;
    uint64_t a = 0;
    int64_t stride = 0;
    for (unsigned k = 0; k < nact; k++) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        if (mode == 0 || k == 0) {
            n = token(p, &t);
            if (n == 0)
                return TOKERR("too few addresses: expected %u for %u active lanes "
                              "(mask %08x, mode %d), found %u",
                              mode == 0 ? nact : 1u, nact, inst->mask, mode, k);
            if (parse_hex(t, n, 16, &a) != 0)
                return TOKERR("bad hex address '%.*s' for lane %u", (int)n, t, lane);
            if (k == 0 && mode == 1) {
                n = token(p, &t);
                if (parse_sdec(t, n, &stride) != 0)
                    return TOKERR("expected a decimal stride after the base address "
                                  "(mode 1), found '%.*s'",
                                  (int)(n ? n : 5), n ? t : "(end)");
            }
        } else if (mode == 1) {
            if (lane_step(&a, stride, lane, 1, inst->addr[__builtin_ctz(inst->mask)], err,
                          path, ln) != GF_OK)
                return GF_ERR_PARSE;
        } else {
            int64_t d;
            n = token(p, &t);
            if (n == 0)
                return TOKERR("too few addresses: expected base + %u deltas for %u "
                              "active lanes (mask %08x, mode 2), found %u deltas",
                              nact - 1, nact, inst->mask, k - 1);
            if (parse_sdec(t, n, &d) != 0)
                return TOKERR("bad decimal address delta '%.*s' for lane %u", (int)n, t,
                              lane);
            if (lane_step(&a, d, lane, 2, 0, err, path, ln) != GF_OK)
                return GF_ERR_PARSE;
        }
        inst->addr[lane] = a;
    }
    return GF_OK;
}

/* An opcode whose base is one of Accel-Sim 2.0's TMA opcodes (trace.h gf_tma_info). */
static int tma_opcode(uint16_t base)
{
    static const char *const names[] = {"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG",
                                        "UBLKCP",  "UBLKPF",  "UBLKRED"};
    const char *b = gf_opcode_name(base);
    if (b[0] != 'U')
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(b, names[i]) == 0)
            return 1;
    return 0;
}

/* What follows a TMA line's width: TMA_FIELDS, 2.0's (an mbarrier first; Accel-Sim
 * 0cee02c writes it as 0x%08x); TMA_MODE_FIRST, the first version 6 writer's (d635295:
 * mode 3 or 4 straight away, no mbarrier or byte counts); TMA_LIST, an older tracer's
 * address list (a mode digit 0-2 followed by a 0x address: tracer dev 73f9fac). */
enum { TMA_LIST = 0, TMA_FIELDS, TMA_MODE_FIRST };
static int tma_form(const char *p)
{
    const char *t, *u;
    size_t n = token(&p, &t);
    if (n == 1 && (t[0] == '3' || t[0] == '4'))
        return TMA_MODE_FIRST;
    if (n != 1 || t[0] < '0' || t[0] > '2')
        return TMA_FIELDS;
    size_t m = token(&p, &u);
    return hex_prefixed(u, m) ? TMA_LIST : TMA_FIELDS;
}

/* 1 when the next token starts with 0x: a TMA line of width 0 still carries 2.0's fields
 * (Accel-Sim 0cee02c writes `0 0x0 0 0 0 4 0x0 0` for a copy with no lane on), which an
 * immediate (decimal) cannot be taken for. */
static int next_is_0x(const char *p)
{
    const char *t;
    size_t n = token(&p, &t);
    return hex_prefixed(t, n);
}

/* The 2.0 TMA fields after the width into r->tma, and the first transfer address into
 * the active lanes (trace.h gf_kreader_tma). */
static gf_status general_tma2(gf_accelsim *r, const char **p, gf_inst *inst, const char *path,
                              long ln, int form, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u, mode;
    gf_tma_info *m = &r->tma;
    memset(m, 0, sizeof *m);
    if (form == TMA_MODE_FIRST)
        goto transfers;
    n = token(p, &t);
    if (parse_hex(t, n, 16, &m->mbar) != 0)
        return TOKERR("expected the TMA copy's mbarrier address (hex, Accel-Sim 2.0) after "
                      "its width, found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_udec(t, n, 1, &u) != 0)
        return TOKERR("expected the TMA multicast flag (0 or 1) after the mbarrier, found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    m->multicast = (int)u;
    if (m->multicast) {
        n = token(p, &t);
        if (parse_hex(t, n, 4, &u) != 0)
            return TOKERR("expected the multicast CTA mask (hex, 16 bits) after flag 1, "
                          "found '%.*s'",
                          (int)(n ? n : 5), n ? t : "(end)");
        m->cta_mask = (uint16_t)u;
    }
    n = token(p, &t);
    if (parse_udec(t, n, UINT64_MAX, &m->bytes) != 0)
        return TOKERR("expected the TMA copy's byte count (decimal), found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_udec(t, n, UINT64_MAX, &m->oob_bytes) != 0)
        return TOKERR("expected the TMA copy's out-of-bounds byte count (decimal), found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
transfers:
    n = token(p, &t);
    if (parse_udec(t, n, 4, &mode) != 0 || mode < 3)
        return TOKERR("unknown TMA address mode '%.*s': expected 3 (address list) or 4 "
                      "(base and deltas)",
                      (int)(n ? n : 5), n ? t : "(end)");
    uint64_t base = 0;
    if (mode == 4) {
        n = token(p, &t);
        if (parse_hex(t, n, 16, &base) != 0)
            return TOKERR("bad hex TMA base address '%.*s'", (int)(n ? n : 5),
                          n ? t : "(end)");
    }
    n = token(p, &t);
    if (parse_udec(t, n, UINT32_MAX, &u) != 0)
        return TOKERR("expected the TMA transfer count (decimal), found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    m->ntransfers = (uint32_t)u;
    m->first = mode == 4 && u ? base : 0;
    for (uint64_t k = mode == 4 ? 1 : 0; k < u; k++) {
        n = token(p, &t);
        int64_t d;
        if (mode == 3 ? parse_hex(t, n, 16, &base) != 0 : parse_sdec(t, n, &d) != 0)
            return TOKERR("TMA transfer %llu of %llu: expected %s, found '%.*s'",
                          (unsigned long long)k + 1, (unsigned long long)u,
                          mode == 3 ? "a hex address" : "a decimal delta", (int)(n ? n : 5),
                          n ? t : "(end)");
        if (mode == 3 && k == 0)
            m->first = base;
    }
    if (m->ntransfers == 0)
        inst->mem_width = 0;
    for (uint32_t l = inst->mask; l; l &= l - 1)
        inst->addr[__builtin_ctz(l)] = m->first;
    r->tma_line = ln;
    return GF_OK;
}

const gf_tma_info *accelsim_tma(const void *impl)
{
    const gf_accelsim *r = impl;
    return r->s && r->tma_line && r->tma_line == gf_stream_line(r->s) ? &r->tma : NULL;
}

/* Tracer version 6's register values after the immediates: `NoVal`, or `Val` and, for
 * the destination and each source in the line's order, `1 v` (every lane the same) or
 * `32 v0 .. v31`, hex words without 0x (Accel-Sim 0cee02c's writer and parser; values the
 * model does not use: checked and dropped). Either word may be missing, as the upstream
 * parser allows. In an older version's line they are refused, naming the version. */
static gf_status register_values(const gf_accelsim *r, const char **p, const gf_inst *inst,
                                 const char *path, long ln, gf_error *err)
{
    const char *q = *p, *t;
    size_t n = token(&q, &t);
    int val = n == 3 && memcmp(t, "Val", 3) == 0;
    if (!val && !(n == 5 && memcmp(t, "NoVal", 5) == 0))
        return GF_OK;
    if (!r->regvals)
        return TOKERR("'%.*s' (register values) in a tracer version %d line: expected them "
                      "only in version 6 traces (is the header's '-accelsim tracer version' "
                      "right?)",
                      (int)n, t, r->info.tracer_version);
    *p = q;
    if (!val)
        return GF_OK;
    unsigned nregs = (unsigned)inst->ndst + inst->nsrc;
    for (unsigned i = 0; i < nregs; i++) {
        uint64_t k, v;
        n = token(p, &t);
        if (parse_udec(t, n, 32, &k) != 0 || (k != 1 && k != 32))
            return TOKERR("register %u of %u after 'Val': expected its count of values, 1 "
                          "(every lane the same) or 32, found '%.*s'",
                          i + 1, nregs, (int)(n ? n : 5), n ? t : "(end)");
        for (uint64_t j = 0; j < k; j++) {
            n = token(p, &t);
            if (parse_hex(t, n, 16, &v) != 0)
                return TOKERR("register %u of %u after 'Val': expected value %llu of %llu "
                              "(hex), found '%.*s'",
                              i + 1, nregs, (unsigned long long)j + 1,
                              (unsigned long long)k, (int)(n ? n : 5), n ? t : "(end)");
        }
    }
    return GF_OK;
}

/* After the addresses: tracer v5's immediate (the newest tracers' second one, version 6's
 * register values), then nothing. */
static gf_status general_line_end(const gf_accelsim *r, const char **p, gf_inst *inst,
                                  const char *path, long ln, gf_error *err)
{
    const char *t;
    size_t n;
    if (r->immediate) {
        int64_t imm;
        n = token(p, &t);
        if (parse_sdec(t, n, &imm) != 0)
            return TOKERR("expected the instruction's immediate (a decimal; tracer version "
                          "%d lines end with it), found '%.*s'",
                          r->info.tracer_version, (int)(n ? n : 5), n ? t : "(end)");
        inst->imm = accelsim_clamp_imm(imm);
        /* the newest tracers' second immediate (a Hopper BAR's thread count): dropped */
        const char *q = *p;
        n = token(&q, &t);
        if (n && is_number(t, n)) {
            uint64_t u;
            if (parse_sdec(t, n, &imm) != 0 && parse_udec(t, n, UINT64_MAX, &u) != 0)
                return TOKERR("the second immediate '%.*s' does not fit 64 bits", (int)n, t);
            *p = q;
        }
        gf_status st = register_values(r, p, inst, path, ln, err);
        if (st != GF_OK)
            return st;
    }
    n = token(p, &t);
    if (n != 0)
        return TOKERR("unexpected token '%.*s' at the end of the instruction line%s", (int)n,
                      t,
                      r->immediate || r->info.tracer_version < 3
                          ? ""
                          : " (tracer version 5 adds an immediate there: is the header's "
                            "'-accelsim tracer version' right?)");
    return GF_OK;
}

/* (accelsim_internal.h; also the block reader's, accelsim_blocks.c, when it skips a warp) */
gf_status accelsim_short_warp(gf_accelsim *r, const char *found, gf_error *err)
{
    uint32_t got = r->ninsts - r->remaining;
    return gf_error_set(err, GF_ERR_PARSE, accelsim_path_of(r),
                        gf_stream_line(r->s) + (found ? 0 : 1),
                        "warp %u declares insts = %u (line %ld) but has only %u instruction "
                        "line%s: expected another instruction, found %s%s%s",
                        r->warp_id, r->ninsts, r->warp_line, got, got == 1 ? "" : "s",
                        found ? "'" : "", found ? snip(found) : "end of file (truncated?)",
                        found ? "'" : "");
}

/* The general parser (a line fast_inst did not take), out of line so that the common
 * path (accelsim_next_inst, accelsim_fast.c) is a small function. */
__attribute__((noinline)) gf_status accelsim_next_inst_general(gf_accelsim *r, gf_inst *inst,
                                                               gf_error *err)
{
    inst->addr_pattern = 0; /* (a failed fast_inst may have set one) */
    char *line;
    size_t len;
    gf_status st = read_content_line(r, &line, &len, err);
    if (st == GF_END)
        return accelsim_short_warp(r, NULL, err);
    if (st != GF_OK)
        return st;
    if (accelsim_is_structure_line(line)) {
        st = accelsim_short_warp(r, line, err);
        push_back(r, line, len);
        return st;
    }
    const char *path = accelsim_path_of(r);
    long ln = gf_stream_line(r->s);
    const char *p = line;
    if ((st = general_prefix(r, &p, path, ln, err)) != GF_OK ||
        (st = general_head(r, &p, inst, path, ln, err)) != GF_OK)
        return st;
    if (accelsim_is_replay_marker(r, inst->opcode)) {
        r->remaining--;
        return GF_OK;
    }
    /* Clearing 256 bytes per instruction was 12 % of the parse (perf, bench_parse); a
     * full-mask access writes every lane below, so only the others are cleared, and an
     * instruction without a width leaves addr[] as it was (trace.h). (Skipping the clear
     * when the caller's struct "still" holds zeros is not safe: a struct declared inside
     * the caller's loop is a new object each time.) */
    if (inst->mem_width != 0 && inst->mask != 0xffffffffu)
        memset(inst->addr, 0, sizeof inst->addr);
    if (inst->mem_width > 0) {
        unsigned nact = gf_popcount32(inst->mask);
        if (nact == 0) {
            /* No active lane (mask 0): nothing to decode, whatever the tracer printed
             * after the width (nothing, or an address mode with an empty list). */
            r->remaining--;
            return GF_OK;
        }
        int form = tma_opcode(inst->base_opcode) ? tma_form(p) : TMA_LIST;
        if (form != TMA_LIST)
            st = general_tma2(r, &p, inst, path, ln, form, err);
        else
            st = general_addresses(&p, inst, nact, path, ln, err);
        if (st != GF_OK)
            return st;
    } else if (tma_opcode(inst->base_opcode) && next_is_0x(p)) {
        /* (fields of a copy with no transfer: nothing for the model but its line) */
        if ((st = general_tma2(r, &p, inst, path, ln, TMA_FIELDS, err)) != GF_OK)
            return st;
        inst->mem_width = 0;
    }
    if ((st = general_line_end(r, &p, inst, path, ln, err)) != GF_OK)
        return st;
    r->remaining--;
    return GF_OK;
}

