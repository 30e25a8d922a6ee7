/*
 * PPT-GPU trace reader (pptgpu.h has the format and the reconstruction rules).
 *
 * Facts relied on, checked on refdata/ppt-gpu-bfs (16 BFS launches, 8 blocks each) and
 * in PPT-GPU's tracer and memory model (read, not copied: TheRainstorm/ppt-gpu-subcore
 * tracing_tool/tracer.cu, src/memory_model.py):
 * - the tracer records the SASS of the block whose warp reached it first, and every
 *   global/local/generic memory record of every block; a .sass line and its .mem line
 *   come from the same record, so for the traced block both orders agree (BFS: every
 *   kernel has at least one block whose .mem opcodes equal the template's, e.g. kernel_1
 *   blocks 1..7: 16 LDG.E.U8 each);
 * - PPT-GPU itself counts warp instructions as template lines x blocks (kernel_1: 272 x 8
 *   = 2176 in kernel_1_SASS_g2.out) and memory requests as all .mem entries (kernel_1:
 *   89 + 7 x 16 = 201 "GMEM total requests"): it never maps one onto the other, so the
 *   mapping of divergent blocks here is our own, documented in pptgpu.h;
 * - the tracer prints a lane only when its address is non-zero, so lane positions are
 *   lost; its older version writes `=====` before each entry and 0x-prefixed addresses,
 *   the newer one one entry per line without 0x. Both are read.
 * - app_config.py is a Python literal written by the tracer; it is parsed as data (a
 *   small literal grammar, pptgpu_config.c), never executed.
 * This file: the trace directory's command list, the SASS template (load_template: one
 * block's instructions, its warps renumbered), each block's .mem file (load_mem) and the
 * iteration that lays the two over each other (build_items, gf_pptgpu_next_*).
 */
#include "trace/pptgpu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sass/opcode.h"
#include "trace/memspace.h"
#include "trace/pptgpu_internal.h"
#include "trace/stream.h"
#include "util/alloc.h"
#include "util/error.h"

#define PPT_MAX_WARP_ID 65535u
#define PPT_NREGS (GF_MAX_DST + GF_MAX_SRC)

/* ======================= directory helpers ======================= */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    snprintf(out, cap, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

int gf_pptgpu_is_dir(const char *dir)
{
    char p[1100];
    join(p, sizeof p, dir, "app_config.py");
    if (!is_file(p))
        return 0;
    join(p, sizeof p, dir, "sass_traces");
    return is_dir(p);
}

int gf_pptgpu_is_kernel_path(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".sass") == 0;
}

gf_status gf_pptgpu_commands(const char *dir, gf_command **cmds, size_t *n, gf_error *err)
{
    *cmds = NULL;
    *n = 0;
    char cfg[1100];
    join(cfg, sizeof cfg, dir, "app_config.py");
    cfgkernel *ks;
    size_t nk;
    gf_status st = ppt_parse_config(cfg, &ks, &nk, err);
    if (st != GF_OK)
        return st;
    gf_command *c = gf_calloc(nk, sizeof *c);
    if (!c) {
        free(ks);
        return gf_error_set(err, GF_ERR_NOMEM, cfg, 0, "out of memory");
    }
    for (size_t i = 0; i < nk; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "sass_traces/kernel_%ld.sass", ks[i].id);
        c[i].kind = GF_CMD_KERNEL;
        c[i].line = ks[i].line;
        join(c[i].path, sizeof c[i].path, dir, rel);
        if (!is_file(c[i].path)) {
            st = gf_error_set(err, GF_ERR_IO, cfg, ks[i].line,
                              "kernel_%ld: SASS trace '%s' not found", ks[i].id, c[i].path);
            free(ks);
            free(c);
            return st;
        }
    }
    free(ks);
    *cmds = c;
    *n = nk;
    return GF_OK;
}

/* ======================= the kernel reader ======================= */

enum { TF_MEM = 1, TF_STORELIKE = 2, TF_EXIT = 4 };

typedef struct tinst {
    uint16_t opcode, base;
    uint8_t ndst, nsrc, flags;
    uint32_t warp;     /* block-local warp index after renumbering */
    uint32_t mem_ord;  /* ordinal among template memory instructions; UINT32_MAX if none */
    uint16_t regs[PPT_NREGS]; /* dst first, then src */
    long line;
} tinst;

typedef struct mentry {
    uint16_t opcode, base;
    uint32_t naddr;
    size_t off;  /* into addr pool */
    long line;
} mentry;

typedef struct item {
    int32_t t; /* template index, -1 for an appended entry */
    int32_t e; /* .mem entry, -1 for a non-memory instruction */
} item;

struct gf_pptgpu {
    gf_kernel_info info;
    char dir[1024], sass[1100], memdir[1100], mempath[1200];
    /* template */
    tinst *ti;
    size_t nt;
    uint32_t *tmem;      /* template index of the k-th memory instruction */
    size_t ntmem;
    uint32_t nwarps;     /* traced warps */
    uint32_t *warp_ids;  /* warp index -> id reported (ascending) */
    uint32_t *wstart;    /* nwarps + 1 offsets into widx */
    uint32_t *widx;
    int32_t *first_of_op; /* opcode id -> first template memory instruction, -1 */
    uint32_t block_warps;  /* ceil(threads / 32) */
    uint32_t last_mask;    /* full mask of the block's last warp */
    /* iteration */
    uint64_t nblocks, next_block;
    int in_block, matched_any;
    mentry *ent;
    size_t nent, entcap;
    uint64_t *pool;
    size_t npool, poolcap;
    item *items;
    size_t itemcap;
    uint32_t *istart; /* nwarps + 1 */
    uint32_t cur_warp, cur_item, warp_open;
    const char *cur_path;
    long cur_line;
    uint16_t mem_width_of[GF_OPCODE_MAX]; /* opcode -> width + 1; 0 = not computed */
};

static uint32_t width_of_opcode(const char *op)
{
    /* last matching suffix wins: LDG.E.U8 -> 1, ATOM.E.ADD.64 -> 8, LDG.E.128 -> 16 */
    uint32_t w = 4;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *s = p + 1;
        size_t n = strcspn(s, ".");
        if ((n == 2 && (!strncmp(s, "U8", 2) || !strncmp(s, "S8", 2))))
            w = 1;
        else if (n == 3 && (!strncmp(s, "U16", 3) || !strncmp(s, "S16", 3)))
            w = 2;
        else if (n == 2 && !strncmp(s, "64", 2))
            w = 8;
        else if (n == 3 && !strncmp(s, "128", 3))
            w = 16;
    }
    return w;
}

static uint32_t mem_width(gf_pptgpu *p, uint16_t op)
{
    if (!p->mem_width_of[op])
        p->mem_width_of[op] = (uint16_t)(width_of_opcode(gf_opcode_name(op)) + 1);
    return (uint32_t)p->mem_width_of[op] - 1;
}

static uint16_t intern_base(const char *op, size_t n, uint16_t full)
{
    const char *dot = memchr(op, '.', n);
    return dot ? gf_opcode_intern(op, (size_t)(dot - op)) : full;
}

/* Global, local or generic memory: what the tracer writes to .mem (shared-memory
 * atomics ATOMS and shared/constant loads are not). */
static int traced_mem(gf_memspace m, const char *base)
{
    switch (m) {
    case GF_MEMSPACE_GLOBAL_LD:
    case GF_MEMSPACE_GLOBAL_ST:
    case GF_MEMSPACE_LOCAL_LD:
    case GF_MEMSPACE_LOCAL_ST:
    case GF_MEMSPACE_GENERIC_LD:
    case GF_MEMSPACE_GENERIC_ST:
    case GF_MEMSPACE_LDGSTS:
        return 1;
    case GF_MEMSPACE_ATOMIC:
        return strcmp(base, "ATOMS") != 0;
    default:
        return 0;
    }
}

/* Up to 60 bytes of s for a message; control and non-ASCII bytes (a corrupt or binary
 * file) become '?' so the terminal shows what was expected, not garbage. */
static const char *snip(const char *s, size_t n)
{
    static _Thread_local char buf[72];
    size_t m = n > 60 ? 60 : n;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = c >= 32 && c < 127 ? (char)c : '?';
    }
    snprintf(buf + m, sizeof buf - m, "%s", n > 60 ? "..." : "");
    return buf;
}

static size_t next_tok(char **p, char **t)
{
    char *q = *p;
    while (*q == ' ' || *q == '\t' || *q == '\r')
        q++;
    *t = q;
    while (*q && *q != ' ' && *q != '\t' && *q != '\r')
        q++;
    *p = q;
    return (size_t)(q - *t);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The operands after the opcode into ti's registers: operand 0 is the destination unless
 * the instruction is store-like, the rest are sources. */
static gf_status template_operands(tinst *ti, char **q, const char *path, long ln,
                                   gf_error *err)
{
    char *t;
    size_t n;
    unsigned nops = 0;
    while ((n = next_tok(q, &t)) != 0) {
        int reg = gf_reg_parse(t, n);
        if (reg < 0)
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "unknown operand '%s': expected a register (Rn, RZ, Pn, PT, "
                                "URn or UPn)",
                                snip(t, n));
        int dst = nops == 0 && !(ti->flags & TF_STORELIKE);
        if (dst) {
            ti->regs[ti->ndst++] = (uint16_t)reg;
        } else {
            if (ti->nsrc >= GF_MAX_SRC)
                return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                    "more than %d source registers: expected at most %d",
                                    GF_MAX_SRC, GF_MAX_SRC);
            ti->regs[GF_MAX_DST + ti->nsrc++] = (uint16_t)reg;
        }
        nops++;
    }
    return GF_OK;
}

/* One non-blank line of the SASS template, `<warp id> <OPCODE> <registers...>`, appended
 * to p->ti (*cap: its capacity). */
static gf_status template_line(gf_pptgpu *p, char *line, size_t len, long ln, size_t *cap,
                               gf_error *err)
{
    const char *path = p->sass;
    gf_status st = GF_OK;
    char *q = line, *t;
    size_t n = next_tok(&q, &t);
    uint32_t w = 0;
    if (n > 6)
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "expected '<warp id> <OPCODE> <registers...>', found '%s'",
                            snip(line, len));
    for (size_t i = 0; i < n && st == GF_OK; i++) {
        if (t[i] < '0' || t[i] > '9')
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected a decimal warp id first, found '%s'", snip(t, n));
        w = w * 10 + (uint32_t)(t[i] - '0');
    }
    if (st != GF_OK)
        return st;
    if (w > PPT_MAX_WARP_ID)
        return gf_error_set(err, GF_ERR_PARSE, path, ln, "warp id %u: expected at most %u", w,
                            PPT_MAX_WARP_ID);
    n = next_tok(&q, &t);
    if (n == 0 || !isupper((unsigned char)t[0]))
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "expected an opcode (e.g. LDG.E) after the warp id, found '%s'",
                            n ? snip(t, n) : "(end of line)");
    if (gf_grow((void **)&p->ti, cap, p->nt + 1, sizeof *p->ti) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, path, ln, "out of memory");
    tinst *ti = &p->ti[p->nt];
    memset(ti, 0, sizeof *ti);
    ti->line = ln;
    ti->warp = w;
    ti->mem_ord = UINT32_MAX;
    ti->opcode = gf_opcode_intern(t, n);
    ti->base = ti->opcode == UINT16_MAX ? UINT16_MAX : intern_base(t, n, ti->opcode);
    if (ti->base == UINT16_MAX)
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "too many distinct opcodes (more than %d): cannot intern '%s'",
                            GF_OPCODE_MAX, snip(t, n));
    const char *bname = gf_opcode_name(ti->base);
    gf_memspace ms = gf_memspace_of(bname, strlen(bname));
    if (traced_mem(ms, bname))
        ti->flags |= TF_MEM;
    /* The tracer prints operand 0 first; for stores and reductions that is the
     * address register of the memory operand, a source, not a destination. */
    if (ms == GF_MEMSPACE_GLOBAL_ST || ms == GF_MEMSPACE_LOCAL_ST ||
        ms == GF_MEMSPACE_SHARED_ST || ms == GF_MEMSPACE_GENERIC_ST ||
        strcmp(bname, "RED") == 0)
        ti->flags |= TF_STORELIKE;
    if (strcmp(bname, "EXIT") == 0)
        ti->flags |= TF_EXIT;
    if ((st = template_operands(ti, &q, path, ln, err)) != GF_OK)
        return st;
    if (p->nt >= INT32_MAX - 1)
        return gf_error_set(err, GF_ERR_UNSUPPORTED, path, ln,
                            "more than %d instructions in one block", INT32_MAX - 1);
    p->nt++;
    return GF_OK;
}

/* The template's warps: their distinct ids in ascending order (p->warp_ids, renumbered
 * 0.. unless they already fit the block), each instruction's warp index, the per-warp
 * instruction lists (wstart, widx) and the memory instructions' ordinals (tmem,
 * first_of_op). */
static gf_status layout_warps(gf_pptgpu *p, gf_error *err)
{
    const char *path = p->sass;
    /* warps: ascending distinct ids */
    uint32_t *ids = gf_calloc(p->nt, sizeof *ids);
    if (!ids)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < p->nt; i++)
        ids[i] = p->ti[i].warp;
    qsort(ids, p->nt, sizeof *ids, cmp_u32);
    size_t k = 0;
    for (size_t i = 0; i < p->nt; i++)
        if (i == 0 || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    p->warp_ids = ids;
    p->nwarps = (uint32_t)k;
    if (k > p->block_warps)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "%zu distinct warp ids traced, but block_size %u x %u x %u has "
                            "only %u warps",
                            k, p->info.block[0], p->info.block[1], p->info.block[2],
                            p->block_warps);
    /* Hardware warp slots that already fit the block are kept as they are, so the
     * block-size-limited mask lands on the right warp; others are renumbered. */
    int identity = ids[k - 1] < p->block_warps;
    p->wstart = gf_calloc(k + 1, sizeof *p->wstart);
    p->widx = gf_calloc(p->nt, sizeof *p->widx);
    p->istart = gf_calloc(k + 1, sizeof *p->istart);
    p->tmem = gf_calloc(p->nt, sizeof *p->tmem);
    p->first_of_op = gf_calloc(GF_OPCODE_MAX, sizeof *p->first_of_op);
    if (!p->wstart || !p->widx || !p->istart || !p->tmem || !p->first_of_op)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < GF_OPCODE_MAX; i++)
        p->first_of_op[i] = -1;
    for (size_t i = 0; i < p->nt; i++) {
        tinst *ti = &p->ti[i];
        uint32_t *f = bsearch(&ti->warp, ids, k, sizeof *ids, cmp_u32);
        ti->warp = (uint32_t)(f - ids);
        p->wstart[ti->warp + 1]++;
        if (ti->flags & TF_MEM) {
            ti->mem_ord = (uint32_t)p->ntmem;
            p->tmem[p->ntmem++] = (uint32_t)i;
            if (p->first_of_op[ti->opcode] < 0)
                p->first_of_op[ti->opcode] = (int32_t)i;
        }
    }
    if (!identity)
        for (size_t j = 0; j < k; j++)
            ids[j] = (uint32_t)j;
    for (size_t j = 0; j < k; j++)
        p->wstart[j + 1] += p->wstart[j];
    uint32_t *fill = gf_calloc(k, sizeof *fill);
    if (!fill)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < p->nt; i++) {
        uint32_t w = p->ti[i].warp;
        p->widx[p->wstart[w] + fill[w]++] = (uint32_t)i;
    }
    free(fill);
    return GF_OK;
}

/* Reads the SASS template (p->sass): one block's instructions into p->ti, then lays out
 * its warps. */
static gf_status load_template(gf_pptgpu *p, gf_error *err)
{
    gf_stream *s;
    gf_status st = gf_stream_open(p->sass, &s, err);
    if (st != GF_OK)
        return st;
    size_t cap = 0;
    char *line;
    size_t len;
    while ((st = gf_stream_next_line(s, &line, &len, err)) == GF_OK) {
        char *q = line, *t;
        if (next_tok(&q, &t) == 0)
            continue;
        if ((st = template_line(p, line, len, gf_stream_line(s), &cap, err)) != GF_OK)
            break;
    }
    if (st == GF_END && p->nt == 0)
        st = gf_error_set(err, GF_ERR_PARSE, p->sass, gf_stream_line(s) + 1,
                          "empty SASS trace: expected '<warp id> <OPCODE> <registers...>' "
                          "lines of one thread block");
    gf_stream_close(s);
    if (st != GF_END)
        return st;
    return layout_warps(p, err);
}

gf_status gf_pptgpu_open(const char *sass_path, gf_pptgpu **out, gf_error *err)
{
    *out = NULL;
    const char *slash = strrchr(sass_path, '/');
    const char *fname = slash ? slash + 1 : sass_path;
    long id = -1;
    {
        size_t n = strlen(fname);
        if (n > 12 && strncmp(fname, "kernel_", 7) == 0 && strcmp(fname + n - 5, ".sass") == 0) {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "kernel_%.*s", (int)(n - 12), fname + 7);
            if (n - 12 < 10)
                id = ppt_kernel_var_id(tmp);
        }
    }
    if (id < 0)
        return gf_error_set(err, GF_ERR_INVALID, sass_path, 0,
                            "expected a PPT-GPU SASS trace named kernel_K.sass");
    gf_pptgpu *p = gf_calloc(1, sizeof *p);
    if (!p)
        return gf_error_set(err, GF_ERR_NOMEM, sass_path, 0, "out of memory");
    snprintf(p->sass, sizeof p->sass, "%s", sass_path);
    /* trace dir = parent of sass_traces/ */
    char sdir[1024];
    if (slash)
        snprintf(sdir, sizeof sdir, "%.*s", (int)(slash - sass_path), sass_path);
    else
        snprintf(sdir, sizeof sdir, ".");
    size_t sl = strlen(sdir);
    if (strcmp(sdir, "sass_traces") == 0)
        snprintf(p->dir, sizeof p->dir, ".");
    else if (sl > 12 && strcmp(sdir + sl - 12, "/sass_traces") == 0)
        snprintf(p->dir, sizeof p->dir, "%.*s", (int)(sl - 12), sdir);
    else
        snprintf(p->dir, sizeof p->dir, "%.1000s/..", sdir);
    join(p->memdir, sizeof p->memdir, p->dir, "memory_traces");
    char cfg[1100];
    join(cfg, sizeof cfg, p->dir, "app_config.py");
    cfgkernel *ks = NULL;
    size_t nk = 0;
    gf_status st = ppt_parse_config(cfg, &ks, &nk, err);
    if (st != GF_OK)
        goto fail;
    size_t found = nk;
    for (size_t i = 0; i < nk; i++)
        if (ks[i].id == id)
            found = i;
    if (found == nk) {
        st = gf_error_set(err, GF_ERR_PARSE, cfg, 0,
                          "no kernel_%ld dict for SASS trace '%s'", id, sass_path);
        free(ks);
        goto fail;
    }
    p->info = ks[found].info;
    free(ks);
    unsigned long long threads =
        (unsigned long long)p->info.block[0] * p->info.block[1] * p->info.block[2];
    p->block_warps = (uint32_t)((threads + GF_WARP_SIZE - 1) / GF_WARP_SIZE);
    p->last_mask = threads % GF_WARP_SIZE ? (1u << (threads % GF_WARP_SIZE)) - 1u : ~0u;
    p->nblocks = (uint64_t)p->info.grid[0] * p->info.grid[1] * p->info.grid[2];
    if ((st = load_template(p, err)) != GF_OK)
        goto fail;
    if (p->ntmem > 0 && !is_dir(p->memdir)) {
        st = gf_error_set(err, GF_ERR_IO, p->memdir, 0,
                          "memory_traces directory not found: the SASS template '%s' has %zu "
                          "global memory instructions whose addresses it should hold",
                          sass_path, p->ntmem);
        goto fail;
    }
    char v[64];
    snprintf(v, sizeof v, "%u", p->nwarps);
    ppt_add_extra(&p->info, "pptgpu_template_warps", v);
    snprintf(v, sizeof v, "%zu", p->nt);
    ppt_add_extra(&p->info, "pptgpu_template_insts", v);
    snprintf(v, sizeof v, "%zu", p->ntmem);
    ppt_add_extra(&p->info, "pptgpu_template_mem_insts", v);
    p->cur_path = p->sass;
    *out = p;
    return GF_OK;
fail:
    gf_pptgpu_close(p);
    return st;
}

void gf_pptgpu_close(gf_pptgpu *p)
{
    if (!p)
        return;
    free(p->ti);
    free(p->tmem);
    free(p->warp_ids);
    free(p->wstart);
    free(p->widx);
    free(p->first_of_op);
    free(p->ent);
    free(p->pool);
    free(p->items);
    free(p->istart);
    free(p);
}

const gf_kernel_info *gf_pptgpu_info(const gf_pptgpu *p)
{
    return &p->info;
}

const char *gf_pptgpu_path(const gf_pptgpu *p)
{
    return p->cur_path;
}

long gf_pptgpu_line(const gf_pptgpu *p)
{
    return p->cur_line;
}

/* A .mem entry's opcode token: interned (*op, *base), and a global or local memory
 * opcode, as the tracer writes to .mem. */
static gf_status mem_opcode(const char *t, size_t n, const char *path, long ln, uint16_t *op,
                            uint16_t *base, gf_error *err)
{
    if (!isupper((unsigned char)t[0]))
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "expected a memory opcode (e.g. LDG.E) first, found '%s'",
                            snip(t, n));
    *op = gf_opcode_intern(t, n);
    *base = *op == UINT16_MAX ? UINT16_MAX : intern_base(t, n, *op);
    if (*base == UINT16_MAX)
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "too many distinct opcodes (more than %d): cannot intern '%s'",
                            GF_OPCODE_MAX, snip(t, n));
    const char *bname = gf_opcode_name(*base);
    if (!traced_mem(gf_memspace_of(bname, strlen(bname)), bname))
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "'%s' is not a global/local memory opcode: expected LDG, STG, "
                            "LDL, STL, LD, ST, ATOM, ATOMG, RED or LDGSTS",
                            snip(t, n));
    return GF_OK;
}

/* The rest of a .mem entry's line from q: one hex address (0x optional) per active lane,
 * appended to p->pool after e's (e->naddr counts them; the pool has room for a warp). */
static gf_status mem_addresses(gf_pptgpu *p, mentry *e, char **q, const char *path, long ln,
                               gf_error *err)
{
    char *t;
    size_t n;
    while ((n = next_tok(q, &t)) != 0) {
        if (e->naddr >= GF_WARP_SIZE)
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "more than %d addresses: expected one per active lane of a "
                                "warp",
                                GF_WARP_SIZE);
        char *h = t;
        size_t hn = n;
        if (hn > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
            h += 2;
            hn -= 2;
        }
        uint64_t a = 0;
        int ok = hn >= 1 && hn <= 16;
        for (size_t i = 0; ok && i < hn; i++) {
            int c = (unsigned char)h[i];
            int d = isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
            if (d < 0)
                ok = 0;
            a = a << 4 | (uint64_t)d;
        }
        if (!ok)
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "bad hex address '%s' (lane %u): expected up to 16 hex "
                                "digits",
                                snip(t, n), e->naddr);
        p->pool[p->npool + e->naddr++] = a;
    }
    return GF_OK;
}

/* Reads the current block's .mem file (missing = no entries). */
static gf_status load_mem(gf_pptgpu *p, uint64_t b, gf_error *err)
{
    p->nent = p->npool = 0;
    char name[96];
    snprintf(name, sizeof name, "kernel_%ld_block_%llu.mem", p->info.id,
             (unsigned long long)b);
    join(p->mempath, sizeof p->mempath, p->memdir, name);
    if (!is_file(p->mempath))
        return GF_OK;
    gf_stream *s;
    gf_status st = gf_stream_open(p->mempath, &s, err);
    if (st != GF_OK)
        return st;
    const char *path = p->mempath;
    int sep_mode = -1;    /* unknown until the first content line */
    int want_entry = 0;   /* a '=====' was read and awaits its entry */
    long sep_line = 0;
    char *line;
    size_t len;
    while ((st = gf_stream_next_line(s, &line, &len, err)) == GF_OK) {
        long ln = gf_stream_line(s);
        char *q = line, *t;
        size_t n = next_tok(&q, &t);
        if (n == 0)
            continue;
        if (n >= 5 && strspn(t, "=") >= n) {
            if (sep_mode == 0) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "unexpected '=====' separator: this file has entries "
                                  "without separators before it");
                break;
            }
            if (want_entry) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "expected a memory instruction '<OPCODE> <addresses>' after "
                                  "the '=====' on line %ld, found another '====='",
                                  sep_line);
                break;
            }
            sep_mode = 1;
            want_entry = 1;
            sep_line = ln;
            continue;
        }
        if (sep_mode == 1 && !want_entry) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected '=====' before the memory instruction '%s'",
                              snip(line, len));
            break;
        }
        if (sep_mode < 0)
            sep_mode = 0;
        want_entry = 0;
        uint16_t op = UINT16_MAX, base = UINT16_MAX; /* set when mem_opcode succeeds */
        if ((st = mem_opcode(t, n, path, ln, &op, &base, err)) != GF_OK)
            break;
        if (gf_grow((void **)&p->ent, &p->entcap, p->nent + 1, sizeof *p->ent) != 0 ||
            gf_grow((void **)&p->pool, &p->poolcap, p->npool + GF_WARP_SIZE,
                    sizeof *p->pool) != 0) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, ln, "out of memory");
            break;
        }
        mentry *e = &p->ent[p->nent];
        e->opcode = op;
        e->base = base;
        e->line = ln;
        e->off = p->npool;
        e->naddr = 0;
        if ((st = mem_addresses(p, e, &q, path, ln, err)) != GF_OK)
            break;
        p->npool += e->naddr;
        p->nent++;
        if (p->nent >= INT32_MAX) {
            st = gf_error_set(err, GF_ERR_UNSUPPORTED, path, ln,
                              "more than %d memory instructions in one block", INT32_MAX - 1);
            break;
        }
    }
    if (st == GF_END && want_entry)
        st = gf_error_set(err, GF_ERR_PARSE, path, sep_line,
                          "file ends after '=====': expected a memory instruction "
                          "(truncated file?)");
    gf_stream_close(s);
    return st == GF_END ? GF_OK : st;
}

/* Lays out this block's per-warp instruction lists (rules in pptgpu.h). */
static gf_status build_items(gf_pptgpu *p, gf_error *err)
{
    size_t n = p->ntmem, m = p->nent, k = p->nwarps;
    size_t paired = n < m ? n : m;
    size_t extra = m > n ? m - n : 0;
    size_t total = p->nt - (n - paired) + extra;
    if (gf_grow((void **)&p->items, &p->itemcap, total ? total : 1, sizeof *p->items) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, p->mempath, 0, "out of memory");
    size_t o = 0;
    for (size_t j = 0; j < k; j++) {
        p->istart[j] = (uint32_t)o;
        uint32_t lo = p->wstart[j], hi = p->wstart[j + 1];
        for (uint32_t x = lo; x < hi; x++) {
            uint32_t i = p->widx[x];
            const tinst *ti = &p->ti[i];
            if (x == hi - 1 && (ti->flags & TF_EXIT))
                for (size_t e = n + j; e < m; e += k) /* extras before the final EXIT */
                    p->items[o++] = (item){-1, (int32_t)e};
            if (ti->flags & TF_MEM) {
                if (ti->mem_ord < m)
                    p->items[o++] = (item){(int32_t)i, (int32_t)ti->mem_ord};
            } else {
                p->items[o++] = (item){(int32_t)i, -1};
            }
            if (x == hi - 1 && !(ti->flags & TF_EXIT))
                for (size_t e = n + j; e < m; e += k)
                    p->items[o++] = (item){-1, (int32_t)e};
        }
    }
    p->istart[k] = (uint32_t)o;
    (void)total;
    return GF_OK;
}

gf_status gf_pptgpu_next_block(gf_pptgpu *p, unsigned tb[3], gf_error *err)
{
    p->in_block = 0;
    if (p->next_block >= p->nblocks) {
        if (p->nblocks > 0 && !p->matched_any) {
            p->nblocks = 0; /* report once */
            return gf_error_set(err, GF_ERR_PARSE, p->sass, 0,
                                "no thread block's memory trace matches this SASS template "
                                "(%zu memory instructions): %s/kernel_%ld_block_*.mem and the "
                                ".sass file are not from the same run",
                                p->ntmem, p->memdir, p->info.id);
        }
        return GF_END;
    }
    uint64_t b = p->next_block++;
    gf_status st = load_mem(p, b, err);
    if (st != GF_OK)
        return st;
    if (p->nent == p->ntmem) {
        int same = 1;
        for (size_t k = 0; k < p->nent && same; k++)
            same = p->ent[k].opcode == p->ti[p->tmem[k]].opcode;
        p->matched_any |= same;
    }
    if ((st = build_items(p, err)) != GF_OK)
        return st;
    uint64_t gx = p->info.grid[0], gy = p->info.grid[1];
    tb[0] = (unsigned)(b % gx);
    tb[1] = (unsigned)(b / gx % gy);
    tb[2] = (unsigned)(b / (gx * gy));
    p->in_block = 1;
    p->cur_warp = 0;
    p->warp_open = 0;
    return GF_OK;
}

gf_status gf_pptgpu_next_warp(gf_pptgpu *p, unsigned *warp_id, uint32_t *ninsts,
                              gf_error *err)
{
    (void)err;
    if (!p->in_block)
        return GF_END;
    if (p->warp_open)
        p->cur_warp++;
    if (p->cur_warp >= p->nwarps) {
        p->warp_open = 0;
        return GF_END;
    }
    p->warp_open = 1;
    p->cur_item = p->istart[p->cur_warp];
    *warp_id = p->warp_ids[p->cur_warp];
    *ninsts = p->istart[p->cur_warp + 1] - p->istart[p->cur_warp];
    return GF_OK;
}

gf_status gf_pptgpu_next_inst(gf_pptgpu *p, gf_inst *inst, gf_error *err)
{
    (void)err;
    if (!p->in_block || !p->warp_open || p->cur_item >= p->istart[p->cur_warp + 1])
        return GF_END;
    item it = p->items[p->cur_item];
    uint32_t w = p->cur_warp;
    int last_of_warp = p->cur_item + 1 == p->istart[w + 1];
    p->cur_item++;
    memset(inst, 0, sizeof *inst);
    const tinst *regs_from = NULL;
    if (it.e < 0) {
        const tinst *ti = &p->ti[it.t];
        inst->opcode = ti->opcode;
        inst->base_opcode = ti->base;
        inst->pc = (uint64_t)ti->line;
        uint32_t full = p->warp_ids[w] == p->block_warps - 1 ? p->last_mask : ~0u;
        /* an EXIT followed by more instructions of its warp was predicated off */
        inst->mask = (ti->flags & TF_EXIT) && !last_of_warp ? 0u : full;
        regs_from = ti;
        p->cur_path = p->sass;
        p->cur_line = ti->line;
    } else {
        const mentry *e = &p->ent[it.e];
        inst->opcode = e->opcode;
        inst->base_opcode = e->base;
        inst->mem_width = mem_width(p, e->opcode);
        inst->mask = e->naddr >= 32 ? ~0u : (1u << e->naddr) - 1u;
        memcpy(inst->addr, p->pool + e->off, e->naddr * sizeof(uint64_t));
        if (it.t >= 0 && p->ti[it.t].opcode == e->opcode)
            regs_from = &p->ti[it.t];
        else if (p->first_of_op[e->opcode] >= 0)
            regs_from = &p->ti[p->first_of_op[e->opcode]];
        inst->pc = it.t >= 0 ? (uint64_t)p->ti[it.t].line
                             : regs_from ? (uint64_t)regs_from->line : 0;
        p->cur_path = p->mempath;
        p->cur_line = e->line;
    }
    if (regs_from) {
        inst->ndst = regs_from->ndst;
        inst->nsrc = regs_from->nsrc;
        memcpy(inst->dst, regs_from->regs, regs_from->ndst * sizeof(uint16_t));
        memcpy(inst->src, regs_from->regs + GF_MAX_DST, regs_from->nsrc * sizeof(uint16_t));
    }
    return GF_OK;
}

/* ---------- the kernel-reader operations (kreader_ops.h) ---------- */

static gf_status ops_open(const char *path, void **impl, gf_error *err)
{
    gf_pptgpu *p = NULL;
    gf_status st = gf_pptgpu_open(path, &p, err);
    *impl = p;
    return st;
}

static void ops_close(void *impl)
{
    gf_pptgpu_close(impl);
}

static gf_kernel_info *ops_info(void *impl)
{
    return &((gf_pptgpu *)impl)->info;
}

static const char *ops_path(const void *impl)
{
    return gf_pptgpu_path(impl);
}

static long ops_line(const void *impl)
{
    return gf_pptgpu_line(impl);
}

static gf_status ops_next_block(void *impl, unsigned tb[3], gf_error *err)
{
    return gf_pptgpu_next_block(impl, tb, err);
}

static gf_status ops_next_warp(void *impl, unsigned *warp_id, uint32_t *ninsts, gf_error *err)
{
    return gf_pptgpu_next_warp(impl, warp_id, ninsts, err);
}

/* This format's lanes carry no offset identity (trace.h gf_inst.addr_pattern). */
static gf_status ops_next_inst(void *impl, gf_inst *inst, gf_error *err)
{
    inst->addr_pattern = 0;
    return gf_pptgpu_next_inst(impl, inst, err);
}

const gf_kreader_ops gf_pptgpu_ops = {
    .format = "pptgpu",
    .claims = gf_pptgpu_is_kernel_path,
    .open = ops_open,
    .close = ops_close,
    .info = ops_info,
    .path = ops_path,
    .line = ops_line,
    .next_block = ops_next_block,
    .next_warp = ops_next_warp,
    .next_inst = ops_next_inst,
};
