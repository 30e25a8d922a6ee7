/*
 * ISA tables: models/isa/<arch>.csv (libcsv) maps a SASS base opcode to its unit,
 * latency, issue interval and, for memory operations, space, direction and default
 * width. Modifiers on the full opcode ("LDG.E.128", "LDGSTS.E.BYPASS.128") refine width
 * and L1 bypass in code below. Lookups are cached per interned opcode id (sass/opcode.h).
 */
#include "gpu/isa.h"

#include <csv.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "sass/opcode.h"
#include "util/error.h"

#define OPLEN 32
#define NCOLS 8

typedef struct isa_row {
    char opcode[OPLEN];
    gf_isa_entry e;
    int absent; /* its unit has no lanes in the model (gf_isa_scale_intervals) */
} isa_row;

typedef struct cache_slot {
    unsigned char state; /* 0 not looked up, 1 known, 2 unknown (fallback given) */
    gf_isa_entry e;
} cache_slot;

struct gf_isa {
    char arch[32];
    char path[1024];
    isa_row *rows;
    size_t nrows, cap;
    gf_isa_entry fallback; /* GF_UNKNOWN_ALU: the table's first ALU row */
    pthread_mutex_t lock;  /* guards first lookups; the cache is filled once per id */
    cache_slot cache[GF_OPCODE_MAX];
};

static const char *const unit_names[GF_UNIT_COUNT] = {"alu", "fma", "fp64", "sfu", "tensor",
                                                      "lsu", "branch", "uniform"};
static const char *const space_names[GF_SPACE_COUNT] = {
    "none", "global", "local", "shared", "const", "texture", "generic", "atomic",
    "shared_atomic", "ldgsts"};
static const char *const dir_names[] = {"none", "load", "store", "atomic"};
static const char *const columns[NCOLS] = {"opcode", "unit", "latency", "interval",
                                           "space", "dir", "width", "source"};

const char *gf_unit_name(gf_unit u)
{
    return (unsigned)u < GF_UNIT_COUNT ? unit_names[u] : "unknown";
}

const char *gf_isa_lane_key(gf_unit u)
{
    static const char *const keys[GF_UNIT_COUNT] = {
        "sm.int32_lanes", "sm.fp32_lanes", "sm.fp64_lanes", "sm.sfu_lanes",
        "sm.tensor_units", "sm.lsu_lanes", NULL, NULL};
    return (unsigned)u < GF_UNIT_COUNT ? keys[u] : NULL;
}

gf_status gf_isa_scale_intervals(gf_isa *isa, const unsigned ref[GF_UNIT_COUNT],
                                 const unsigned lanes[GF_UNIT_COUNT], gf_error *err)
{
    if (!isa)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "gf_isa_scale_intervals: no ISA table");
    for (size_t i = 0; i < isa->nrows; i++) {
        isa_row *r = &isa->rows[i];
        unsigned u = r->e.unit;
        if (!gf_isa_lane_key(r->e.unit) || lanes[u] == ref[u])
            continue;
        if (ref[u] == 0)
            return gf_error_set(err, GF_ERR_INVALID, isa->path, 0,
                                "opcode '%s' runs on the %s unit, but the table's lane counts "
                                "(isa/lanes.csv) give that unit none",
                                r->opcode, unit_names[u]);
        if (lanes[u] == 0) {
            r->absent = 1;
            continue;
        }
        /* a warp's 32 threads pass through the unit's lanes: its issue interval is
         * inversely proportional to the lanes (docs/model.md, "Unit lanes"); whole cycles,
         * rounded up, at least 1 */
        unsigned long long iv = ((unsigned long long)r->e.interval * ref[u] + lanes[u] - 1) /
                                lanes[u];
        r->e.interval = iv == 0 ? 1u : iv > 100000 ? 100000u : (unsigned)iv;
    }
    /* the fallback for unknown opcodes is the table's first ALU row, scaled with it */
    for (size_t i = 0; i < isa->nrows; i++)
        if (isa->rows[i].e.unit == GF_UNIT_ALU && isa->rows[i].e.space == GF_SPACE_NONE) {
            if (!isa->rows[i].absent)
                isa->fallback = isa->rows[i].e;
            break;
        }
    return GF_OK;
}

const char *gf_mem_space_name(gf_mem_space s)
{
    return (unsigned)s < GF_SPACE_COUNT ? space_names[s] : "unknown";
}

/* ------------------------------------------------------------------ CSV reading */

typedef struct csv_state {
    gf_isa *isa;
    gf_error *err;
    gf_status st;
    long line;         /* 1-based row number = line (the tables have no quoted newlines) */
    unsigned col;
    char fields[NCOLS][256];
    int too_many;
} csv_state;

static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static int parse_small(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static void on_field(void *data, size_t len, void *p)
{
    csv_state *cs = p;
    if (cs->col >= NCOLS) {
        cs->too_many = 1;
        cs->col++;
        return;
    }
    if (len >= sizeof cs->fields[0])
        len = sizeof cs->fields[0] - 1;
    memcpy(cs->fields[cs->col], data ? data : "", data ? len : 0);
    cs->fields[cs->col][data ? len : 0] = 0;
    cs->col++;
}

static gf_status row_error(csv_state *cs, const char *fmt, ...) GF_PRINTF(2, 3);
static gf_status row_error(csv_state *cs, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs->st = gf_error_set(cs->err, GF_ERR_PARSE, cs->isa->path, cs->line, "%s", msg);
    return cs->st;
}

static void on_row(int c, void *p)
{
    (void)c;
    csv_state *cs = p;
    cs->line++;
    unsigned ncol = cs->col;
    cs->col = 0;
    if (cs->st != GF_OK)
        return;
    if (ncol == 1 && cs->fields[0][0] == 0)
        return; /* blank line */
    if (ncol != NCOLS || cs->too_many) {
        row_error(cs, "expected 8 columns (opcode,unit,latency,interval,space,dir,width,source), got %u",
                  ncol);
        return;
    }
    if (cs->line == 1) {
        for (int i = 0; i < NCOLS; i++)
            if (strcmp(cs->fields[i], columns[i]) != 0) {
                row_error(cs, "header column '%s': expected '%s'", cs->fields[i], columns[i]);
                return;
            }
        return;
    }
    gf_isa *isa = cs->isa;
    isa_row r;
    memset(&r, 0, sizeof r);
    const char *op = cs->fields[0];
    if (!*op || strlen(op) >= OPLEN || strchr(op, '.')) {
        row_error(cs, "opcode '%s': expected a SASS base opcode without modifiers", op);
        return;
    }
    memcpy(r.opcode, op, strlen(op) + 1);
    int u = name_index(unit_names, GF_UNIT_COUNT, cs->fields[1]);
    if (u < 0) {
        row_error(cs, "unit '%s': expected alu, fma, fp64, sfu, tensor, lsu, branch or uniform",
                  cs->fields[1]);
        return;
    }
    r.e.unit = (gf_unit)u;
    if (parse_small(cs->fields[2], 0, 100000, &r.e.latency) != 0) {
        row_error(cs, "latency '%s': expected cycles 0..100000", cs->fields[2]);
        return;
    }
    if (parse_small(cs->fields[3], 1, 100000, &r.e.interval) != 0) {
        row_error(cs, "interval '%s': expected cycles 1..100000", cs->fields[3]);
        return;
    }
    int s = name_index(space_names, GF_SPACE_COUNT, cs->fields[4]);
    if (s < 0) {
        row_error(cs, "space '%s': expected none, global, local, shared, const, texture, generic, "
                      "atomic, shared_atomic or ldgsts", cs->fields[4]);
        return;
    }
    r.e.space = (gf_mem_space)s;
    int d = name_index(dir_names, 4, cs->fields[5]);
    if (d < 0) {
        row_error(cs, "dir '%s': expected none, load, store or atomic", cs->fields[5]);
        return;
    }
    r.e.dir = (gf_mem_dir)d;
    if (parse_small(cs->fields[6], 0, 128, &r.e.width) != 0) {
        row_error(cs, "width '%s': expected bytes per lane 0..128", cs->fields[6]);
        return;
    }
    if ((r.e.space == GF_SPACE_NONE) != (r.e.dir == GF_DIR_NONE)) {
        row_error(cs, "opcode '%s': space and dir must both be none or both be set", op);
        return;
    }
    if (!cs->fields[7][0]) {
        row_error(cs, "opcode '%s': empty source column (every row cites its source)", op);
        return;
    }
    for (size_t i = 0; i < isa->nrows; i++)
        if (strcmp(isa->rows[i].opcode, op) == 0) {
            row_error(cs, "opcode '%s' listed twice", op);
            return;
        }
    if (isa->nrows == isa->cap) {
        size_t nc = isa->cap ? isa->cap * 2 : 256;
        isa_row *p2 = realloc(isa->rows, nc * sizeof *p2);
        if (!p2) {
            cs->st = gf_error_set(cs->err, GF_ERR_NOMEM, isa->path, cs->line, "out of memory");
            return;
        }
        isa->rows = p2;
        isa->cap = nc;
    }
    isa->rows[isa->nrows++] = r;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const isa_row *)a)->opcode, ((const isa_row *)b)->opcode);
}

gf_status gf_isa_load(const char *arch, const char *models_dir, gf_isa **out, gf_error *err)
{
    if (!out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "gf_isa_load: no output");
    *out = NULL;
    if (!arch || !*arch || strlen(arch) >= 32 || strchr(arch, '/'))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "architecture '%s': expected a name like volta or ampere",
                            arch ? arch : "");
    gf_isa *isa = calloc(1, sizeof *isa);
    if (!isa)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for the ISA table");
    pthread_mutex_init(&isa->lock, NULL);
    snprintf(isa->arch, sizeof isa->arch, "%s", arch);
    snprintf(isa->path, sizeof isa->path, "%s/isa/%s.csv", gf_gpu_models_dir(models_dir), arch);
    FILE *f = fopen(isa->path, "rb");
    if (!f) {
        gf_status s = gf_error_set(err, GF_ERR_IO, isa->path, 0,
                                   "no ISA table '%s' (the model's gpu.isa, else gpu.arch): %s", arch, strerror(errno));
        gf_isa_free(isa);
        return s;
    }
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL);
    csv_state cs;
    memset(&cs, 0, sizeof cs);
    cs.isa = isa;
    cs.err = err;
    cs.st = GF_OK;
    char buf[8192];
    size_t n;
    while (cs.st == GF_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, on_field, on_row, &cs) != n && cs.st == GF_OK)
            cs.st = gf_error_set(err, GF_ERR_PARSE, isa->path, cs.line + 1, "malformed CSV: %s",
                                 csv_strerror(csv_error(&p)));
    if (cs.st == GF_OK && ferror(f))
        cs.st = gf_error_set(err, GF_ERR_IO, isa->path, 0, "read error");
    if (cs.st == GF_OK)
        csv_fini(&p, on_field, on_row, &cs);
    csv_free(&p);
    fclose(f);
    if (cs.st == GF_OK && isa->nrows == 0)
        cs.st = gf_error_set(err, GF_ERR_PARSE, isa->path, 0, "no opcodes in the ISA table");
    if (cs.st != GF_OK) {
        gf_isa_free(isa);
        return cs.st;
    }
    qsort(isa->rows, isa->nrows, sizeof *isa->rows, cmp_row);
    /* the documented fallback for unknown opcodes: the table's integer ALU timing */
    isa->fallback.unit = GF_UNIT_ALU;
    isa->fallback.latency = 4;
    isa->fallback.interval = 2;
    for (size_t i = 0; i < isa->nrows; i++)
        if (isa->rows[i].e.unit == GF_UNIT_ALU && isa->rows[i].e.space == GF_SPACE_NONE) {
            isa->fallback = isa->rows[i].e;
            break;
        }
    *out = isa;
    return GF_OK;
}

void gf_isa_free(gf_isa *isa)
{
    if (!isa)
        return;
    pthread_mutex_destroy(&isa->lock);
    free(isa->rows);
    free(isa);
}

/* ------------------------------------------------------------------ modifiers */

/* Warpgroup MMA (sm_90 HGMMA/IGMMA/QGMMA/BGMMA.64xNxK): the table row is the m64n64
 * instruction (AC's one GMMA initiation interval, 32 cycles, for every shape). The tensor
 * cores do a fixed number of multiply-adds a cycle (WP: 512 dense FP16 FMA per tensor core,
 * twice that for 8-bit inputs with twice the K), so a warp's quarter of an m64nN
 * instruction holds its sub-core's tensor unit N/64 times as long: 64 cycles at N = 128,
 * 128 at N = 256, and for N > 64 the result comes that much later (for N < 64 the
 * latency stays the row's: no data on how it shrinks). 8-bit inputs (QGMMA/IGMMA,
 * K = 32) take the same cycles for twice the multiply-adds, the whitepaper's 2x rate.
 * Checked on one case, HGMMA.64x64x16 of refdata h100-gfbench cublas_hgemm1024 (tensor
 * pipe 41.2 % predicted against Nsight's 42.9 %); FP8 and N > 64 are not checked. */
static void gmma_shape(const char *base, char tok[][24], unsigned nt, gf_isa_entry *e)
{
    if (strcmp(base, "HGMMA") != 0 && strcmp(base, "IGMMA") != 0 &&
        strcmp(base, "QGMMA") != 0 && strcmp(base, "BGMMA") != 0)
        return;
    for (unsigned i = 0; i < nt; i++) {
        unsigned m, n, k;
        char end;
        if (sscanf(tok[i], "%ux%ux%u%c", &m, &n, &k, &end) != 3 || m != 64 || n < 8 ||
            n > 256 || n % 8 != 0)
            continue;
        unsigned iv = (unsigned)(((unsigned long long)e->interval * n + 63) / 64);
        e->latency += iv > e->interval ? iv - e->interval : 0;
        e->interval = iv ? iv : 1;
        return;
    }
}

/* Applies the modifier rules to the table entry of the base opcode. tokens are the
 * dot-separated parts after the base ("E", "128"). */
static void apply_modifiers(const char *base, const char *full, gf_isa_entry *e)
{
    char tok[16][24];
    unsigned nt = 0;
    const char *p = strchr(full, '.');
    while (p && nt < 16) {
        p++;
        const char *q = strchr(p, '.');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len >= sizeof tok[0])
            len = sizeof tok[0] - 1;
        memcpy(tok[nt], p, len);
        tok[nt][len] = 0;
        nt++;
        p = q;
    }
    int mem = e->space != GF_SPACE_NONE;
    for (unsigned i = 0; i < nt; i++) {
        const char *t = tok[i];
        if (mem) {
            /* .E = 64-bit address: no effect on the data width */
            if (strcmp(t, "64") == 0)
                e->width = 8;
            else if (strcmp(t, "128") == 0)
                e->width = 16;
            else if (strcmp(t, "32") == 0)
                e->width = 4;
            else if (strcmp(t, "U8") == 0 || strcmp(t, "S8") == 0)
                e->width = 1;
            else if (strcmp(t, "U16") == 0 || strcmp(t, "S16") == 0)
                e->width = 2;
            /* .CG: cache-global = L2 only, for loads (Pascal's default LDG.E.CG) */
            else if (strcmp(t, "CG") == 0 && e->dir == GF_DIR_LOAD)
                e->bypass_l1 = 1;
            /* LDGSTS.E.BYPASS: copy to shared memory through L2 only
             * (Abdelkhalik et al., "Modeling and Characterizing Shared and Local Memories of the Ampere GPUs") */
            else if (strcmp(t, "BYPASS") == 0)
                e->bypass_l1 = 1;
            /* .STRONG.GPU / .STRONG.SYS: coherent at GPU/system scope, so L1 (not coherent)
             * is skipped; plain .SYS on Volta's LDG.E.SYS is the default caching load */
            else if (strcmp(t, "STRONG") == 0 && i + 1 < nt &&
                     (strcmp(tok[i + 1], "GPU") == 0 || strcmp(tok[i + 1], "SYS") == 0))
                e->bypass_l1 = 1;
            /* volatile forms: always re-read from the point of coherence */
            else if (strcmp(t, "VOLATILE") == 0 || strcmp(t, "CV") == 0)
                e->bypass_l1 = 1;
        }
    }
    if (strcmp(base, "BAR") == 0) {
        /* BAR / BAR.SYNC / BAR.RED wait for the block; BAR.ARV only arrives */
        int arv = 0;
        for (unsigned i = 0; i < nt; i++)
            if (strcmp(tok[i], "ARV") == 0)
                arv = 1;
        e->is_barrier = !arv;
    }
    if (strcmp(base, "EXIT") == 0)
        e->is_exit = 1;
    /* sm_90 tensor-memory-accelerator and bulk copies that move data (not UTMACCTL or
     * UTMACMDFLUSH): one lane names a descriptor or a base; the tile or block it moves is
     * not in an NVBit trace */
    static const char *const bulk[] = {"UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF",
                                       "UBLKCP",  "UBLKRED", "UBLKPF"};
    for (size_t i = 0; i < sizeof bulk / sizeof *bulk; i++)
        if (strcmp(base, bulk[i]) == 0)
            e->is_bulk_copy = 1;
    /* They move data between L2 and shared memory through the TMA unit and allocate
     * nothing in L1 (NVIDIA H100 Tensor Core GPU Architecture whitepaper, "Tensor Memory
     * Accelerator"; refdata h100-gfbench cublas_hgemm1024: l1tex__t_sectors_pipe_lsu 0,
     * l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld 50 MB): past L1, as .BYPASS. */
    if (e->is_bulk_copy)
        e->bypass_l1 = 1;
    gmma_shape(base, tok, nt, e);
}

static const isa_row *find_row(const gf_isa *isa, const char *base)
{
    isa_row key;
    memset(&key, 0, sizeof key);
    snprintf(key.opcode, sizeof key.opcode, "%s", base);
    return bsearch(&key, isa->rows, isa->nrows, sizeof *isa->rows, cmp_row);
}

gf_status gf_isa_lookup(gf_isa *isa, uint16_t opcode, gf_unknown_policy policy,
                        const gf_isa_entry **out, int *warned, gf_error *err)
{
    if (warned)
        *warned = 0;
    if (!isa || !out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "gf_isa_lookup: no ISA table");
    if (opcode >= GF_OPCODE_MAX)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "opcode id %u out of range", opcode);
    cache_slot *c = &isa->cache[opcode];
    gf_status st = GF_OK;
    pthread_mutex_lock(&isa->lock);
    if (c->state == 0) {
        const char *full = gf_opcode_name(opcode);
        if (!full)
            full = "";
        char base[OPLEN];
        size_t len = strcspn(full, ".");
        if (len >= sizeof base)
            len = sizeof base - 1;
        memcpy(base, full, len);
        base[len] = 0;
        const isa_row *r = find_row(isa, base);
        if (r && r->absent) {
            st = gf_error_set(err, GF_ERR_INVALID, "", 0,
                              "opcode '%s' runs on the %s unit, which the model does not have "
                              "(%s = 0)",
                              full, unit_names[r->e.unit], gf_isa_lane_key(r->e.unit));
        } else if (r) {
            c->e = r->e;
            apply_modifiers(base, full, &c->e);
            c->state = 1;
        } else if (policy == GF_UNKNOWN_ALU) {
            c->e = isa->fallback;
            c->state = 2;
            if (warned)
                *warned = 1;
        } else {
            st = gf_error_set(err, GF_ERR_PARSE, "", 0,
                              "unknown opcode '%s' (not in models/isa/%s.csv; "
                              "--unknown-opcode=alu times it as an integer ALU op)",
                              full, isa->arch);
        }
    } else if (c->state == 2 && policy != GF_UNKNOWN_ALU) {
        st = gf_error_set(err, GF_ERR_PARSE, "", 0, "unknown opcode '%s' (not in models/isa/%s.csv)",
                          gf_opcode_name(opcode), isa->arch);
    }
    pthread_mutex_unlock(&isa->lock);
    if (st != GF_OK)
        return st;
    *out = &c->e;
    return GF_OK;
}
