/*
 * The Accel-Sim reader's private types and the helpers its four files share
 * (accelsim.c: opening, the header and the table of operations kreader.c calls it
 * through; accelsim_blocks.c: the block/warp structure; accelsim_general.c: the general
 * tokenizing instruction parser; accelsim_fast.c: the one-pass fast path for instruction
 * lines and accelsim_next_inst, which tries it first). Nothing outside these files
 * includes this; the rest of the project reads a kernel through gf_kreader_* (trace.h).
 *
 * Invariants:
 *  - state follows the file: RS_IN_WARP only while `remaining` of the warp's `ninsts`
 *    lines are unread; the fast path reads a line only when there is no pushback (the
 *    stream's buffer is then at the next unread line) and consumes it only on success.
 *  - tpl[] and dmemo[] are caches: a NULL array, an empty slot or an overwritten slot
 *    only costs speed, never changes what a line decodes to. A template's head was
 *    produced by parsing exactly its text; a delta memo's offsets by parsing exactly its
 *    text with the same number of active lanes.
 *  - accelsim_cls and accelsim_hexval are filled once per process (accelsim_tables_init,
 *    under pthread_once in accelsim_open) before any reader parses a line.
 *
 * Prefix of functions and tables shared between the files: accelsim_ (declared at the
 * end), except the small lexing helpers and the line source (static inline, short names,
 * before them); the table kreader.c calls is gf_accelsim_ops (accelsim.h). All else is
 * static to its file.
 */
#ifndef GF_TRACE_ACCELSIM_INTERNAL_H
#define GF_TRACE_ACCELSIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "sass/opcode.h"
#include "trace/kreader_ops.h"
#include "trace/stream.h"
#include "trace/types.h"
#include "util/error.h"

typedef enum rstate {
    RS_BETWEEN_BLOCKS = 0, /* before a block, or after #END_TB */
    RS_IN_BLOCK,           /* after `thread block =`, between warps */
    RS_IN_WARP,            /* after `insts = n`, remaining > 0 possible */
    RS_DONE
} rstate;

typedef struct gf_accelsim gf_accelsim; /* one Accel-Sim kernel file being read */

struct gf_accelsim {
    gf_stream *s;
    gf_kernel_info info;
    int lineinfo;
    rstate state;
    char *pushback; /* a line read one step too early (valid until the next read) */
    size_t pushback_len;
    int has_pushback;
    unsigned warp_id;
    uint32_t ninsts, remaining;
    long warp_line;  /* line of `insts = n`, for messages */
    uint16_t base_of[GF_OPCODE_MAX]; /* opcode id -> base id + 1; 0 = not computed */
    int nprefix;    /* decimal fields before the PC: 4 before v3, +1 with lineinfo */
    struct opslot { /* opcode token (<= 16 bytes, zero-padded) -> ids, see fast_opcode */
        uint64_t k0, k1;
        uint32_t len; /* 0 = empty */
        uint16_t op, base;
    } opcache[256];
    struct linetpl *tpl; /* LINE_TPLS recent lines' parsed heads, see fast_inst; NULL if
                          * out of memory (no cache then) */
    struct deltamemo *dmemo; /* beside tpl: LINE_TPLS mode-2 delta lists, allocated at the
                              * first mode-2 line; NULL: none (only costs speed) */
    uint64_t dgen;           /* delta lists stored so far (deltamemo.gen) */
    const char *last_text;   /* the last instruction line fast_inst took (last_len 0: */
    size_t last_len;         /* the last one was not), see accelsim_last_text */
    int lazy_strides;        /* accelsim_set_lazy_strides */
    int immediate;           /* tracer version 5+: each line ends in the instruction's
                                immediate (a signed decimal), read and not kept; the
                                newest tracers add a second one (read and dropped) */
    int regvals;             /* tracer version 6: then `NoVal`, or `Val` and the
                                registers' values (checked and dropped) */
    gf_block_cluster cluster; /* of the current block (accelsim_block_cluster) */
    uint16_t replay_op[2];   /* opcode ids of REPLAY_START / REPLAY_END once seen, else
                                UINT16_MAX (never an instruction's id) */
    uint32_t replay_depth;   /* REPLAY_START lines not yet closed in this warp */
    long replay_line;        /* line of the outermost open REPLAY_START */
    uint64_t replay_markers; /* marker lines skipped so far */
    gf_tma_info tma;         /* the last 2.0 TMA line's fields (accelsim_tma) */
    uint8_t tma_of[GF_OPCODE_MAX]; /* opcode id -> 1 for a TMA opcode (set with base_of):
                                      such memory lines take the general parser, which
                                      tells 2.0's TMA fields from an address list */
    long tma_line;           /* its line: accelsim_tma answers while the stream is there */
    uint8_t gmma_of[GF_OPCODE_MAX]; /* opcode id -> 1 when its name holds "GMMA" (set with
                                       base_of): the newest tracers write a commit-group
                                       flag after its sources, so the general parser
                                       takes such lines */
    /* the header's required keys (accelsim.c header_done) */
    int has_block_dim, has_name;
    char unknown_key[48];    /* the header's first key this reader does not know, */
    long unknown_line;       /* its line (0: none), and how many there were */
    unsigned unknown_keys;
    /* the warps of the block being read, against -block dim (accelsim_blocks.c check_warps):
     * block_warps 0 = not checked (a block dim of 0 or beyond 4096 threads, which the
     * simulator refuses itself), else warps 0 .. block_warps - 1 expected once each */
    unsigned block_warps;
    int block_open;          /* a `thread block =` line was read and not yet checked */
    long block_line;         /* its line */
    unsigned block_tb[3];    /* its coordinates as listed */
    uint32_t warp_seen[4];   /* bit w: warp w of the block was listed (w < 128) */
};

/* 1 when op is REPLAY_START or REPLAY_END (trace.h gf_kreader_replay_markers). */
static inline int accelsim_is_replay_marker(const gf_accelsim *r, uint16_t op)
{
    return op == r->replay_op[0] || op == r->replay_op[1];
}

/* A line's head as last parsed (fast_inst): its text up to its address list (or the
 * whole line, newline included, when it has none) and what parsing that text gave. Every
 * warp of a kernel runs the same instructions, so most lines repeat an earlier line's
 * text up to the addresses; comparing the bytes and copying the fields replaces parsing
 * them (callgrind: ~310 instructions per line on a vecadd trace). */
#define LINE_TPLS 1024u
#define LINE_TPL_MAX 112u
#define INST_HEAD offsetof(gf_inst, addr)
struct linetpl {
    unsigned char text[LINE_TPL_MAX];
    uint16_t len;   /* 0 = empty */
    uint8_t addrs;  /* addresses follow the text, in address mode `mode` */
    uint8_t mode;
    unsigned char head[INST_HEAD]; /* the gf_inst fields before addr[] */
};

/* The address deltas of the last mode-2 line parsed through template slot i, in
 * dmemo[i]: its text after the base address up to the newline and the lane offsets it
 * gives. Kernels that use mode 2 repeat their deltas block after block (shared-memory
 * offsets, tile shapes): SGEMM's 31 deltas a line cost ~1,200 instructions to parse and
 * ~30 to compare (callgrind). A hit needs the same bytes and the same lane count. */
#define DELTA_TEXT_MAX 120u
struct deltamemo {
    uint64_t gen;                  /* which list this is: never the same for two lists */
    uint64_t below;                /* minus its lowest offset (>= 0) */
    uint16_t len;                  /* 0 = empty */
    uint8_t ndelta;                /* active lanes - 1 */
    unsigned char text[DELTA_TEXT_MAX];
    int32_t off[GF_WARP_SIZE - 1]; /* the k-th next active lane's address minus the base */
};

/* Byte classes for the tokenizer: 1 = blank, 2 = end of line (NUL). A table lookup per
 * byte instead of five comparisons: tokenizing is most of the parse time (perf). */
extern unsigned char accelsim_cls[256];
/* Hex digit values, -1 for other bytes. */
extern signed char accelsim_hexval[256];

/* An immediate kept in gf_inst.imm: clamped into int32 (the instructions it matters for
 * take small counts). */
static inline int32_t accelsim_clamp_imm(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* ---------- small lexing helpers and the line source (static inline: each file takes
 * what it uses; short names, private to the reader's files) ---------- */

/* The first 60 bytes of a line for a message, control bytes as \xNN: a corrupt or binary
 * line must not put raw bytes on the user's terminal. */
static inline const char *snip(const char *line)
{
    static _Thread_local char buf[GF_PRINTABLE_SIZE(60)];
    return gf_stream_printable(line, strlen(line), 60, buf, sizeof buf);
}

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline const char *skip_ws(const char *p)
{
    while (is_space(*p))
        p++;
    return p;
}

/* Next whitespace-separated token (accelsim_cls); returns its length (0 at end of line). */
static inline size_t token(const char **p, const char **tok)
{
    const unsigned char *q = (const unsigned char *)*p;
    while (accelsim_cls[*q] == 1)
        q++;
    *tok = (const char *)q;
    while (!accelsim_cls[*q])
        q++;
    *p = (const char *)q;
    return (size_t)((const char *)q - *tok);
}

static inline int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Hex with optional 0x prefix, at most maxdigits digits. 0 on success. */
static inline int parse_hex(const char *t, size_t n, unsigned maxdigits, uint64_t *out)
{
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        t += 2;
        n -= 2;
    }
    if (n == 0 || n > maxdigits)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = accelsim_hexval[(unsigned char)t[i]];
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* Unsigned decimal that fits in max. 0 on success. */
static inline int parse_udec(const char *t, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(t[i] - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Signed decimal within int64. 0 on success. */
static inline int parse_sdec(const char *t, size_t n, int64_t *out)
{
    int neg = 0;
    if (n && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        t++;
        n--;
    }
    uint64_t v;
    if (parse_udec(t, n, (uint64_t)INT64_MAX, &v) != 0)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* The line source, with one line of pushback. */

static inline gf_status read_line(gf_accelsim *r, char **line, size_t *len, gf_error *err)
{
    if (r->has_pushback) {
        r->has_pushback = 0;
        *line = r->pushback;
        *len = r->pushback_len;
        return GF_OK;
    }
    return gf_stream_next_line(r->s, line, len, err);
}

static inline void push_back(gf_accelsim *r, char *line, size_t len)
{
    r->pushback = line;
    r->pushback_len = len;
    r->has_pushback = 1;
}

/* Next line that is not blank; GF_END at end of file. *line has leading blanks skipped. */
static inline gf_status read_content_line(gf_accelsim *r, char **line, size_t *len, gf_error *err)
{
    for (;;) {
        gf_status st = read_line(r, line, len, err);
        if (st != GF_OK)
            return st;
        char *p = (char *)skip_ws(*line);
        if (*p) {
            *len -= (size_t)(p - *line);
            *line = p;
            return GF_OK;
        }
    }
}


/* The file a reader reads, for messages. */
static inline const char *accelsim_path_of(const gf_accelsim *r)
{
    return gf_stream_path(r->s);
}

/* A structure line (`#...`, `-...`, `warp`, `thread block`, `insts`, `cluster `) where an
 * instruction line was expected. */
static inline int accelsim_is_structure_line(const char *l)
{
    /* first-byte filter: instruction lines start with a digit or hex letter, and this
     * runs on every line of the trace */
    if (l[0] != '#' && l[0] != '-' && l[0] != 'w' && l[0] != 't' && l[0] != 'i' &&
        l[0] != 'c')
        return 0;
    return l[0] == '#' || l[0] == '-' || starts(l, "warp") || starts(l, "thread block") ||
           starts(l, "insts") || starts(l, "cluster ");
}


/* accelsim_blocks.c: blocks and warps (kreader_ops.h next_block, next_warp, ...). */
gf_status accelsim_next_block(void *impl, unsigned tb[3], gf_error *err);
gf_status accelsim_next_warp(void *impl, unsigned *warp_id, uint32_t *ninsts, gf_error *err);
const gf_block_cluster *accelsim_block_cluster(const void *impl);
uint64_t accelsim_replay_markers(const void *impl);

/* accelsim_general.c */
/* The error for a warp whose lines end (found: the line met instead, NULL at the end of
 * the file) before its `insts = n` instructions. */
gf_status accelsim_short_warp(gf_accelsim *r, const char *found, gf_error *err);
/* The opcode id of an opcode's base (the part before the first '.'), cached per reader;
 * UINT16_MAX when the opcode table is full. */
uint16_t accelsim_base_opcode(gf_accelsim *r, uint16_t id, const char *op, size_t n);
/* The next instruction line through the tokenizing parser: any line fast_inst did not
 * take, and every error. */
gf_status accelsim_next_inst_general(gf_accelsim *r, gf_inst *inst, gf_error *err);

/* The 2.0 TMA fields of the last instruction (kreader_ops.h tma). */
const gf_tma_info *accelsim_tma(const void *impl);

/* accelsim_fast.c */
/* The instruction operations of kreader_ops.h: next_inst (fast path first, then
 * accelsim_next_inst_general), set_lazy_strides, last_text, match, skip_lines. */
gf_status accelsim_next_inst(void *impl, gf_inst *inst, gf_error *err);
void accelsim_set_lazy_strides(void *impl, int on);
void accelsim_last_text(const void *impl, const char **text, size_t *len);
size_t accelsim_match(const void *impl, const char *text, size_t len, size_t *compared);
int accelsim_skip_lines(void *impl, size_t bytes, uint32_t n);
/* Fills accelsim_cls and accelsim_hexval (once per process). */
void accelsim_tables_init(void);
/* Empty lines, then "warp = w\ninsts = n\n" exactly (values as parse_assign takes
 * them): 1 with the number of empty lines, the values and the two lines' lengths, 0 to
 * leave them to the general code. */
int accelsim_fast_warp_header(const char *data, size_t *nblank, uint64_t *warp,
                              uint64_t *insts, size_t *len1, size_t *len2);

#endif
