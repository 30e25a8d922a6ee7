/*
 * The Accel-Sim reader's private types and the few helpers its two files share
 * (accelsim.c: opening, the header, block/warp structure and the general tokenizing
 * instruction parser; accelsim_fast.c: the one-pass fast path for instruction lines and
 * gf_kreader_next_inst, which tries it first). Nothing outside src/trace includes this.
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
 *    under pthread_once in gf_kreader_open_as_is) before any reader parses a line.
 *
 * Prefix of functions and tables shared between the files: accelsim_ (declared at the
 * end); all else is static to its file.
 */
#ifndef GF_TRACE_ACCELSIM_INTERNAL_H
#define GF_TRACE_ACCELSIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/blockset.h"
#include "trace/opcode.h"
#include "trace/pptgpu.h"
#include "trace/stream.h"
#include "trace/trace.h"
#include "util/error.h"

typedef enum rstate {
    RS_BETWEEN_BLOCKS = 0, /* before a block, or after #END_TB */
    RS_IN_BLOCK,           /* after `thread block =`, between warps */
    RS_IN_WARP,            /* after `insts = n`, remaining > 0 possible */
    RS_DONE
} rstate;

struct gf_kreader {
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
    gf_pptgpu *ppt; /* non-NULL: a PPT-GPU kernel (.sass), every call goes there */
    struct deltamemo *dmemo; /* beside tpl: LINE_TPLS mode-2 delta lists, allocated at the
                              * first mode-2 line; NULL: none (only costs speed) */
    uint64_t dgen;           /* delta lists stored so far (deltamemo.gen) */
    const char *last_text;   /* the last instruction line fast_inst took (last_len 0: */
    size_t last_len;         /* the last one was not), see gf_kreader_last_text */
    int lazy_strides;        /* gf_kreader_set_lazy_strides */
    int immediate;           /* tracer version 5+: each line ends in the instruction's
                                immediate (a signed decimal), read and not kept */
    gf_blockset seen;        /* blocks read, against the grid (info.has_grid) */
    int blocks_ended;        /* next_block has returned its end (checked once) */
    int partial;             /* gf_kreader_set_partial */
    gf_trace_warn_fn warn_partial;
    void *warn_ctx;
    gf_block_cluster cluster; /* of the current block (gf_kreader_block_cluster) */
    uint16_t replay_op[2];   /* opcode ids of REPLAY_START / REPLAY_END once seen, else
                                UINT16_MAX (never an instruction's id) */
    uint32_t replay_depth;   /* REPLAY_START lines not yet closed in this warp */
    long replay_line;        /* line of the outermost open REPLAY_START */
    uint64_t replay_markers; /* marker lines skipped so far */
    gf_tma_info tma;         /* the last 2.0 TMA line's fields (gf_kreader_tma) */
    uint8_t tma_of[GF_OPCODE_MAX]; /* opcode id -> 1 for a TMA opcode (set with base_of):
                                      such memory lines take the general parser, which
                                      tells 2.0's TMA fields from an address list */
    long tma_line;           /* its line: gf_kreader_tma answers while the stream is there */
    /* the header's required keys (accelsim.c header_done) */
    int has_block_dim, has_name;
    char unknown_key[48];    /* the header's first key this reader does not know, */
    long unknown_line;       /* its line (0: none), and how many there were */
    unsigned unknown_keys;
    /* the warps of the block being read, against -block dim (accelsim.c check_warps):
     * block_warps 0 = not checked (a block dim of 0 or beyond 4096 threads, which the
     * simulator refuses itself), else warps 0 .. block_warps - 1 expected once each */
    unsigned block_warps;
    int block_open;          /* a `thread block =` line was read and not yet checked */
    long block_line;         /* its line */
    unsigned block_tb[3];    /* its coordinates as listed */
    uint32_t warp_seen[4];   /* bit w: warp w of the block was listed (w < 128) */
};

/* 1 when op is REPLAY_START or REPLAY_END (trace.h gf_kreader_replay_markers). */
static inline int accelsim_is_replay_marker(const gf_kreader *r, uint16_t op)
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

/* accelsim.c */
/* The opcode id of an opcode's base (the part before the first '.'), cached per reader;
 * UINT16_MAX when the opcode table is full. */
uint16_t accelsim_base_opcode(gf_kreader *r, uint16_t id, const char *op, size_t n);
/* The next instruction line through the tokenizing parser: any line fast_inst did not
 * take, and every error. */
gf_status accelsim_next_inst_general(gf_kreader *r, gf_inst *inst, gf_error *err);

/* accelsim_fast.c */
/* Fills accelsim_cls and accelsim_hexval (once per process). */
void accelsim_tables_init(void);
/* Empty lines, then "warp = w\ninsts = n\n" exactly (values as parse_assign takes
 * them): 1 with the number of empty lines, the values and the two lines' lengths, 0 to
 * leave them to the general code. */
int accelsim_fast_warp_header(const char *data, size_t *nblank, uint64_t *warp,
                              uint64_t *insts, size_t *len1, size_t *len2);

#endif
