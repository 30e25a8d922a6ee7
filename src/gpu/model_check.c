/*
 * The rules a GPU model must satisfy (gf_gpu_validate, and the loader before it returns a
 * model): every key within its table row's range, then the rules that tie keys together
 * (threads and warps, register and shared-memory allocation, cache geometry, the unified
 * L1/shared array and its carveouts, L2 slices and DRAM channels), and the defaults of
 * the keys a file may leave out.
 *
 * Invariant: one rule set for every source of a model (a file with overrides, a sweep's
 * configuration, a profile's stored GPU): a message names the file and line (or the
 * --set) of the key assigned last among those a broken rule involves (blame), or the
 * profile a whole model came from. Reads the key table (model_keys.c); changes nothing but
 * the defaults model_apply_defaults writes.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/model_internal.h"
#include "util/error.h"

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }


/* Fails naming where the key was set; keys may be a comma-separated list of the keys the
 * check involves, and the one assigned last (the override that broke it) is named. */
static gf_status invalid(const blame *b, const char *keys_csv, gf_error *err,
                         const char *fmt, ...) GF_PRINTF(4, 5);
static gf_status invalid(const blame *b, const char *keys_csv, gf_error *err,
                         const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!b->where)
        return gf_error_set(err, GF_ERR_INVALID, b->origin, 0, "%s", msg);
    size_t i = 0;
    unsigned best = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", keys_csv);
    char *save = NULL;
    for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        size_t j = model_key_index(k);
        if (b->where[j].seq >= best) {
            best = b->where[j].seq;
            i = j;
        }
    }
    return gf_error_set(err, GF_ERR_INVALID, b->where[i].file, b->where[i].line, "%s",
                        msg);
}

/* "file:line" or "--set k=v" of where key got its value, for messages that involve
 * several keys. */
static const char *origin_of(const blame *b, const char *key, char *buf, size_t n)
{
    if (!b->where) {
        snprintf(buf, n, "%s from %s", key, b->origin);
        return buf;
    }
    const origin *o = &b->where[model_key_index(key)];
    if (o->line > 0)
        snprintf(buf, n, "%s = set at %s:%ld", key, o->file, o->line);
    else
        snprintf(buf, n, "%s = set by %s", key, o->file);
    return buf;
}

/* One key's value within its table row's range: what set_value enforces on text,
 * checked on the struct for a model that did not come through set_value (a profile). */
static gf_status check_key(const gf_gpu *g, const blame *b, const key_def *k, gf_error *err)
{
    const char *base = (const char *)g + k->offset;
    uint64_t v = 0;
    switch (k->type) {
    case K_STR:
        if (!memchr(base, 0, k->size))
            return invalid(b, k->name, err, "key '%s': text not terminated within %zu bytes",
                           k->name, k->size);
        if (!base[0])
            return invalid(b, k->name, err, "key '%s': empty (expected text)", k->name);
        return GF_OK;
    case K_ENUM:
    case K_BOOL: {
        int e, cnt = 2;
        memcpy(&e, base, sizeof e);
        if (k->type == K_ENUM)
            for (cnt = 0; k->enum_names[cnt];)
                cnt++;
        if (e < 0 || e >= cnt)
            return invalid(b, k->name, err, "key '%s' = %d out of range (expected 0..%d)",
                           k->name, e, cnt - 1);
        return GF_OK;
    }
    case K_SIZELIST:
        if (g->ncarveouts < 1 || g->ncarveouts > GF_MAX_CARVEOUTS)
            return invalid(b, k->name, err, "key '%s': %u carveouts (expected 1..%d)", k->name,
                           g->ncarveouts, GF_MAX_CARVEOUTS);
        for (unsigned i = 1; i < g->ncarveouts; i++)
            if (g->carveouts[i] <= g->carveouts[i - 1])
                return invalid(b, k->name, err,
                               "key '%s': carveout %u = %llu after %llu (expected strictly "
                               "ascending)",
                               k->name, i + 1, (unsigned long long)g->carveouts[i],
                               (unsigned long long)g->carveouts[i - 1]);
        v = g->carveouts[g->ncarveouts - 1];
        break;
    case K_SIZE:
        memcpy(&v, base, sizeof v);
        break;
    case K_UINT:
    case K_SIZE32: {
        unsigned u;
        memcpy(&u, base, sizeof u);
        v = u;
        break;
    }
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: {
        double d;
        memcpy(&d, base, sizeof d);
        if (!(d >= k->min && d <= k->max)) /* NaN fails too */
            return invalid(b, k->name, err, "key '%s' = %g out of range (expected %g..%g)",
                           k->name, d, k->min, k->max);
        return GF_OK;
    }
    }
    if ((double)v < k->min || (double)v > k->max)
        return invalid(b, k->name, err, "key '%s' = %llu out of range (expected %.0f..%.0f)",
                       k->name, (unsigned long long)v, k->min, k->max);
    return GF_OK;
}

static gf_status check_cache(const blame *b, const char *lvl, const gf_cache_model *c,
                             gf_error *err)
{
    char k[64];
    snprintf(k, sizeof k, "%s.line", lvl);
    if (!is_pow2(c->line))
        return invalid(b, k, err, "%s.line = %u: expected a power of two", lvl, c->line);
    snprintf(k, sizeof k, "%s.sector", lvl);
    if (!is_pow2(c->sector))
        return invalid(b, k, err, "%s.sector = %u: expected a power of two", lvl, c->sector);
    snprintf(k, sizeof k, "%s.line,%s.sector", lvl, lvl);
    if (c->sector > c->line)
        return invalid(b, k, err, "%s.sector = %u larger than %s.line = %u", lvl, c->sector, lvl,
                       c->line);
    return GF_OK;
}

/* The L1 data size a carveout list leaves (unified array) or the fixed L1; 0 when the
 * keys cannot give one (the checks below say why). */
static uint64_t l1_size_of(const gf_gpu *g)
{
    if (!g->unified_l1_shmem)
        return g->l1_size_fixed;
    if (g->ncarveouts < 1 || g->ncarveouts > GF_MAX_CARVEOUTS || g->carveouts[0] > g->unified_l1_shmem)
        return 0;
    return g->unified_l1_shmem - g->carveouts[0];
}

/* Values the model file may leave out, as the rest of the code expects them. */
void model_apply_defaults(gf_gpu *g)
{
    if (!g->isa[0]) /* gf_gpu.arch is shorter than gf_gpu.isa */
        memcpy(g->isa, g->arch, sizeof g->arch);
    if (g->l2_slice_interleave == 0)
        g->l2_slice_interleave = 128;
    if (g->l2_partial_write_cycles == 0) /* absent: as a full sector */
        g->l2_partial_write_cycles = 1;
    if (g->dram_max_efficiency == 0)
        g->dram_max_efficiency = 1;
    if (g->dram_fetch_bytes == 0)
        g->dram_fetch_bytes = 32;
    g->l1.size = l1_size_of(g);
}

static gf_status check_shmem(const gf_gpu *g, const blame *b, gf_error *err)
{
    char ob[700];
    if (g->shmem_per_block > g->shmem_per_sm)
        return invalid(b, "shmem.per_sm,shmem.per_block", err,
                       "shmem.per_block = %llu larger than shmem.per_sm = %llu",
                       (unsigned long long)g->shmem_per_block, (unsigned long long)g->shmem_per_sm);
    uint64_t maxc = g->carveouts[g->ncarveouts - 1];
    if (g->shmem_per_sm != maxc)
        return invalid(b, "shmem.carveouts,shmem.per_sm", err,
                       "shmem.per_sm = %llu differs from the largest carveout %llu",
                       (unsigned long long)g->shmem_per_sm, (unsigned long long)maxc);
    uint64_t l1way = (uint64_t)(g->l1.ways ? g->l1.ways : 1) * g->l1.line;
    if (g->unified_l1_shmem) {
        if (g->l1_size_fixed)
            return invalid(b, "shmem.unified_size,l1.size", err,
                           "l1.size = %llu set on a unified L1/shared array (shmem.unified_size = %llu): "
                           "set one of them to 0",
                           (unsigned long long)g->l1_size_fixed, (unsigned long long)g->unified_l1_shmem);
        for (unsigned i = 0; i < g->ncarveouts; i++) {
            if (g->carveouts[i] > g->unified_l1_shmem)
                return invalid(b, "shmem.unified_size,shmem.carveouts", err,
                               "carveout %llu larger than the unified size %llu (%s)",
                               (unsigned long long)g->carveouts[i], (unsigned long long)g->unified_l1_shmem,
                               origin_of(b, "shmem.unified_size", ob, sizeof ob));
            uint64_t l1 = g->unified_l1_shmem - g->carveouts[i];
            if (l1 % l1way)
                return invalid(b, "shmem.unified_size,shmem.carveouts,l1.line,l1.ways", err,
                               "L1 of %llu bytes left by carveout %llu is not a whole number of sets "
                               "of l1.ways = %u x l1.line = %u",
                               (unsigned long long)l1, (unsigned long long)g->carveouts[i], g->l1.ways,
                               g->l1.line);
        }
    } else {
        if (!g->l1_size_fixed)
            return invalid(b, "shmem.unified_size,l1.size", err,
                           "l1.size = 0 and shmem.unified_size = 0: one of them must give the L1 size");
        if (g->ncarveouts != 1)
            return invalid(b, "l1.size,shmem.carveouts", err,
                           "a separate L1 (l1.size) allows exactly one shared-memory size, got %u",
                           g->ncarveouts);
        if (g->l1_size_fixed % l1way)
            return invalid(b, "l1.line,l1.ways,l1.size", err,
                           "l1.size = %llu is not sets x l1.ways = %u x l1.line = %u for a whole number of sets",
                           (unsigned long long)g->l1_size_fixed, g->l1.ways, g->l1.line);
    }
    /* derived, not a key: only a model from elsewhere (a profile) can disagree */
    if (g->l1.size != l1_size_of(g))
        return invalid(b, "shmem.unified_size,shmem.carveouts,l1.size", err,
                       "L1 data size %llu differs from the %llu the L1 and carveout keys give",
                       (unsigned long long)g->l1.size, (unsigned long long)l1_size_of(g));
    return GF_OK;
}

/* A size in the units a model file takes: "14200KiB", "3MiB", else bytes. */
static const char *size_text(uint64_t v, char *buf, size_t n)
{
    if (v && v % (1u << 20) == 0)
        snprintf(buf, n, "%lluMiB", (unsigned long long)(v >> 20));
    else if (v && v % 1024 == 0)
        snprintf(buf, n, "%lluKiB", (unsigned long long)(v >> 10));
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

/* The valid L2 sizes nearest to l2.size: every slice a whole number of sets, so a
 * multiple of l2.slices x l2.ways x l2.line (one set in every slice). */
static const char *l2_nearest(const gf_gpu *g, char *buf, size_t n)
{
    uint64_t unit = (uint64_t)g->l2_slices * (g->l2.ways ? g->l2.ways : 1) * g->l2.line;
    uint64_t below = g->l2.size / unit * unit, above = below + unit;
    char u[32], lo[32], hi[32];
    size_text(unit, u, sizeof u);
    if (below == 0)
        snprintf(buf, n, "valid sizes are multiples of l2.slices x l2.ways x l2.line = %s: the "
                 "nearest is %s", u, size_text(above, hi, sizeof hi));
    else
        snprintf(buf, n, "valid sizes are multiples of l2.slices x l2.ways x l2.line = %s: the "
                 "nearest are %s and %s", u, size_text(below, lo, sizeof lo),
                 size_text(above, hi, sizeof hi));
    return buf;
}

static gf_status check_l2_dram(const gf_gpu *g, const blame *b, gf_error *err)
{
    char ob[700], near[200];
    if (g->l2.size % g->l2_slices)
        return invalid(b, "l2.size,l2.slices", err,
                       "l2.slices = %u does not divide l2.size = %llu (%s); %s",
                       g->l2_slices, (unsigned long long)g->l2.size,
                       origin_of(b, "l2.size", ob, sizeof ob), l2_nearest(g, near, sizeof near));
    uint64_t slice = g->l2.size / g->l2_slices;
    uint64_t l2way = (uint64_t)(g->l2.ways ? g->l2.ways : 1) * g->l2.line;
    if (slice % l2way)
        return invalid(b, "l2.size,l2.slices,l2.line,l2.ways", err,
                       "L2 slice of %llu bytes (l2.size / l2.slices) is not sets x l2.ways = %u x "
                       "l2.line = %u for a whole number of sets (%s); %s",
                       (unsigned long long)slice, g->l2.ways, g->l2.line,
                       origin_of(b, "l2.size", ob, sizeof ob), l2_nearest(g, near, sizeof near));
    if (g->dram_channels > g->dram_bus_bits)
        return invalid(b, "dram.bus_bits,dram.channels", err, "dram.channels = %u wider than dram.bus_bits = %u",
                       g->dram_channels, g->dram_bus_bits);
    if (!is_pow2(g->l2_slice_interleave) || g->l2_slice_interleave < 128)
        return invalid(b, "l2.slice_interleave", err,
                       "l2.slice_interleave = %u: expected a power of two of at least 128 "
                       "(whole lines)",
                       g->l2_slice_interleave);
    if (g->l2_partitions > 1 && g->l2_slices % g->l2_partitions != 0)
        return invalid(b, "l2.partitions,l2.slices", err,
                       "l2.partitions = %u does not divide l2.slices = %u: expected whole "
                       "partitions of slices",
                       g->l2_partitions, g->l2_slices);
    if (g->l2_atomic_sectors_per_cycle > 0 && g->l2_atomic_sectors_per_cycle < 0.01)
        return invalid(b, "l2.atomic_sectors_per_cycle", err,
                       "l2.atomic_sectors_per_cycle = %g: expected 0 (no limit) or at least "
                       "0.01 sectors per L2 cycle",
                       g->l2_atomic_sectors_per_cycle);
    if (g->dram_fetch_bytes != 32 && g->dram_fetch_bytes != 64 && g->dram_fetch_bytes != 128)
        return invalid(b, "dram.fetch_bytes", err,
                       "dram.fetch_bytes = %u: expected 32, 64 or 128 (whole sectors, aligned)",
                       g->dram_fetch_bytes);
    if (!is_pow2(g->dram_row_bytes))
        return invalid(b, "dram.row_bytes", err, "dram.row_bytes = %u: expected a power of two",
                       g->dram_row_bytes);
    return GF_OK;
}

/* The one rule set of a resolved model (defaults applied): every key in its range, then
 * the rules that tie keys together. The loader and gf_gpu_validate both run it. */
gf_status model_check(const gf_gpu *g, const blame *b, gf_error *err)
{
    gf_status s;
    if (!memchr(g->name, 0, sizeof g->name))
        return invalid(b, "gpu.marketing", err, "model name not terminated within %zu bytes",
                       sizeof g->name);
    for (size_t i = 0; i < model_nkeys; i++)
        if ((s = check_key(g, b, &model_keys[i], err)) != GF_OK)
            return s;
    const char *isa_key = b->where && !b->set[model_key_index("gpu.isa")] ? "gpu.arch" : "gpu.isa";
    /* the name becomes part of a path: models/isa/<isa>.csv */
    for (const char *c = g->isa; *c; c++)
        if (!(*c == '_' || *c == '-' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z')))
            return invalid(b, isa_key, err,
                           "%s = '%s': an ISA table name (models/isa/<name>.csv) takes "
                           "lower-case letters, digits, '-' or '_'",
                           isa_key, g->isa);
    if (g->max_threads_per_sm > g->max_warps_per_sm * 32u)
        return invalid(b, "sm.max_warps,sm.max_threads", err,
                       "sm.max_threads = %u exceeds sm.max_warps = %u times 32 threads",
                       g->max_threads_per_sm, g->max_warps_per_sm);
    if (g->max_threads_per_block > g->max_threads_per_sm)
        return invalid(b, "sm.max_threads,sm.max_threads_per_block", err,
                       "sm.max_threads_per_block = %u exceeds sm.max_threads = %u",
                       g->max_threads_per_block, g->max_threads_per_sm);
    if (g->regs_per_sm % g->subcores_per_sm)
        return invalid(b, "sm.subcores,sm.registers", err, "sm.registers = %u not divisible among %u sub-cores",
                       g->regs_per_sm, g->subcores_per_sm);
    if (!is_pow2(g->reg_alloc_unit))
        return invalid(b, "sm.reg_alloc_unit", err, "sm.reg_alloc_unit = %u: expected a power of two",
                       g->reg_alloc_unit);
    if (!is_pow2(g->shmem_alloc_unit))
        return invalid(b, "shmem.alloc_unit", err, "shmem.alloc_unit = %u: expected a power of two",
                       g->shmem_alloc_unit);
    if ((s = check_cache(b, "l1", &g->l1, err)) != GF_OK || (s = check_cache(b, "l2", &g->l2, err)) != GF_OK)
        return s;
    if ((s = check_shmem(g, b, err)) != GF_OK)
        return s;
    return check_l2_dram(g, b, err);
}

gf_status gf_gpu_validate(const gf_gpu *g, const char *where, gf_error *err)
{
    if (!g)
        return gf_error_set(err, GF_ERR_INVALID, where ? where : "", 0, "no GPU model given");
    blame b = {NULL, NULL, where ? where : ""};
    return model_check(g, &b, err);
}

