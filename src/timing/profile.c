/*
 * Profile files: build (run the expensive part once), save/load (zlib + CRC-32,
 * versioned), check against a model, evaluate (cheap; sweeps call it thousands of
 * times). See profile.h for what a profile depends on.
 */
#include "timing/profile.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/error.h"

static const char magic[8] = "GFPROF\n";

typedef gf_kernel_summary kentry;

struct gf_profile {
    gf_gpu gpu;
    size_t n;
    kentry *k;
};

/* ------------------------------------------------------------------ dependencies */

/* Model fields a profile depends on (profile.h). Each is compared as raw bytes. */
typedef struct dep_field {
    const char *key;
    size_t offset, size;
} dep_field;

#define DEP(key, field) {key, offsetof(gf_gpu, field), sizeof(((gf_gpu *)0)->field)}
static const dep_field deps[] = {
    DEP("gpu.arch", arch),
    DEP("gpu.isa", isa),
    DEP("gpu.compute_capability", compute_capability),
    DEP("sm.count", num_sms),
    DEP("sm.subcores", subcores_per_sm),
    DEP("sm.max_threads", max_threads_per_sm),
    DEP("sm.max_warps", max_warps_per_sm),
    DEP("sm.max_blocks", max_blocks_per_sm),
    DEP("sm.max_threads_per_block", max_threads_per_block),
    DEP("sm.registers", regs_per_sm),
    DEP("sm.max_regs_per_thread", max_regs_per_thread),
    DEP("shmem.reserved_per_block", shmem_reserved_per_block),
    DEP("sm.reg_alloc_unit", reg_alloc_unit),
    DEP("sm.warp_alloc_unit", warp_alloc_unit),
    DEP("shmem.unified_size", unified_l1_shmem),
    DEP("shmem.per_sm", shmem_per_sm),
    DEP("shmem.per_block", shmem_per_block),
    DEP("shmem.alloc_unit", shmem_alloc_unit),
    DEP("shmem.carveouts", carveouts),
    DEP("shmem.banks", shmem_banks),
    DEP("shmem.latency", shmem_latency),
    DEP("sm.warp_scheduler", warp_scheduler),
    DEP("l1.coalescer", coalescer),
    DEP("l1.line", l1.line),
    DEP("l1.sector", l1.sector),
    DEP("l1.ways", l1.ways),
    DEP("l1.latency", l1.latency),
    DEP("l1.bytes_per_cycle", l1.bytes_per_cycle),
    DEP("l1.caches_global", l1_caches_global),
    DEP("l1.size", l1_size_fixed),
    DEP("l2.line", l2.line),
    DEP("l2.sector", l2.sector),
    DEP("l2.latency", l2.latency),
    DEP("l2.slices", l2_slices),
    DEP("l2.hash", l2_hash),
    DEP("dram.latency", dram_latency),
    DEP("dram.latency_ns", dram_latency_ns),
    DEP("l2.latency_ns", l2_latency_ns),
    DEP("dram.fetch_bytes", dram_fetch_bytes),
    DEP("l2.slice_interleave", l2_slice_interleave),
    DEP("l2.writes_hit", l2_writes_hit),
    DEP("launch.block_cycles", block_launch_cycles),
    DEP("launch.store_drain", store_drain),
    DEP("l1.data_banks", l1_data_banks),
};

gf_status gf_profile_check(const gf_profile *p, const gf_gpu *gpu, gf_error *err)
{
    for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++) {
        const char *a = (const char *)&p->gpu + deps[i].offset;
        const char *b = (const char *)gpu + deps[i].offset;
        if (memcmp(a, b, deps[i].size) != 0) {
            char va[128] = "?", vb[128] = "?";
            for (size_t k = 0; k < gf_gpu_key_count(); k++)
                if (strcmp(gf_gpu_key_name(k), deps[i].key) == 0) {
                    gf_gpu_key_format(gpu, k, va, sizeof va);
                    gf_gpu_key_format(&p->gpu, k, vb, sizeof vb);
                }
            return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                "the profile was made with %s = %s, the model has %s: profile "
                                "the trace again for this model",
                                deps[i].key, vb, va);
        }
    }
    /* Latencies given partly in ns become cycles at the SM clock when the issue model
     * runs, so the clock matters once they are (h100.ini); and the atomic units' model
     * being on or off changes the atomic passes the profile counted. */
    if (gf_gpu_l2_latency(&p->gpu) != gf_gpu_l2_latency(gpu) ||
        gf_gpu_dram_latency(&p->gpu) != gf_gpu_dram_latency(gpu))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the profile was made with L2 / DRAM latencies of %u / %u cycles, "
                            "the model has %u / %u (clock.core with l2.latency_ns or "
                            "dram.latency_ns): profile the trace again for this model",
                            gf_gpu_l2_latency(&p->gpu), gf_gpu_dram_latency(&p->gpu),
                            gf_gpu_l2_latency(gpu), gf_gpu_dram_latency(gpu));
    if ((p->gpu.l2_atomic_sectors_per_cycle > 0) != (gpu->l2_atomic_sectors_per_cycle > 0))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the profile was made with l2.atomic_sectors_per_cycle %s, the "
                            "model %s: profile the trace again for this model",
                            p->gpu.l2_atomic_sectors_per_cycle > 0 ? "set" : "unset",
                            gpu->l2_atomic_sectors_per_cycle > 0 ? "sets it" : "does not");
    return GF_OK;
}

/* ------------------------------------------------------------------ build */

gf_status gf_profile_build(const char *trace, const gf_gpu *gpu, const gf_predict_options *opt,
                           gf_profile **out, gf_error *err)
{
    gf_profile *p = calloc(1, sizeof *p);
    if (!p)
        return gf_error_set(err, GF_ERR_NOMEM, trace, 0, "out of memory");
    p->gpu = *gpu;
    gf_report rep;
    gf_report_init(&rep);
    gf_kernel_summary *sums = NULL;
    size_t n = 0;
    gf_status st = gf_predict_trace(trace, gpu, opt, &rep, &sums, &n, err);
    gf_report_free(&rep);
    if (st != GF_OK) {
        free(p);
        return st;
    }
    p->k = sums;
    p->n = n;
    *out = p;
    return GF_OK;
}

void gf_profile_free(gf_profile *p)
{
    if (!p)
        return;
    free(p->k);
    free(p);
}

size_t gf_profile_kernel_count(const gf_profile *p)
{
    return p->n;
}

const gf_gpu *gf_profile_gpu(const gf_profile *p)
{
    return &p->gpu;
}

/* ------------------------------------------------------------------ evaluate */

static unsigned ways_of(const gf_cache_model *c)
{
    return c->ways;
}

/* L2 size or associativity differ from the profiled model: re-derive L2 hits and DRAM
 * reads from the histograms (memory/hierarchy.h gf_hier_rates_for), keeping what the
 * cache model cannot see (MemcpyHtoD warming, partial-sector fetches) as an offset,
 * and move the issue model's time by the change in mean miss latency times its
 * measured exposure (crit stall cycles / mean miss latency). */
static void reevaluate_l2(gf_kernel_summary *k, const gf_gpu *base, const gf_gpu *gpu)
{
    if (base->l2.size == gpu->l2.size && base->l2.ways == gpu->l2.ways)
        return;
    const gf_hier_kernel_profile *hp = &k->hp;
    unsigned slices = gpu->l2_slices ? gpu->l2_slices : 1;
    uint64_t line = gpu->l2.line ? gpu->l2.line : 128;
    uint64_t lines = gpu->l2.size / line / slices;
    gf_hier_rates was, now;
    gf_hier_rates_for(hp, hp->l1_lines, hp->l1_ways, hp->l2_lines, hp->l2_ways, &was);
    gf_hier_rates_for(hp, hp->l1_lines, hp->l1_ways, lines, ways_of(&gpu->l2), &now);
    double *m = k->mem;
    double d_dram = now.dram_read_sectors - was.dram_read_sectors;
    if (!isnan(m[GF_C_DRAM_SECTORS_READ])) {
        m[GF_C_DRAM_SECTORS_READ] = fmax(0, m[GF_C_DRAM_SECTORS_READ] + d_dram);
        m[GF_C_DRAM_BYTES_READ] = 32.0 * m[GF_C_DRAM_SECTORS_READ];
    }
    double dr = now.l2_hits[GF_HIER_L2_READ] - was.l2_hits[GF_HIER_L2_READ];
    /* with l2.writes_hit writes and atomics are lookup hits whatever the size */
    double dw = gpu->l2_writes_hit ? 0 : now.l2_hits[GF_HIER_L2_WRITE] - was.l2_hits[GF_HIER_L2_WRITE];
    double da = gpu->l2_writes_hit ? 0 : now.l2_hits[GF_HIER_L2_ATOM] - was.l2_hits[GF_HIER_L2_ATOM];
    double reads = m[GF_C_L2_READ_SECTORS], writes = m[GF_C_L2_WRITE_SECTORS];
    double atoms = isnan(m[GF_C_L2_ATOM_SECTORS]) ? 0 : m[GF_C_L2_ATOM_SECTORS];
    double all = reads + writes + atoms;
    /* All hits (reads, writes and atomics) as the profiled model counted them, moved by
     * the cache model's change for each class. */
    double all_hits = all > 0 && !isnan(m[GF_C_L2_SECTOR_HIT_RATE])
                          ? m[GF_C_L2_SECTOR_HIT_RATE] / 100.0 * all + dr + dw + da
                          : NAN;
    if (!isnan(m[GF_C_L2_READ_SECTOR_HITS]))
        m[GF_C_L2_READ_SECTOR_HITS] = fmax(0, m[GF_C_L2_READ_SECTOR_HITS] + dr);
    if (!isnan(m[GF_C_L2_WRITE_SECTOR_HITS]))
        m[GF_C_L2_WRITE_SECTOR_HITS] = fmax(0, m[GF_C_L2_WRITE_SECTOR_HITS] + dw);
    if (reads > 0)
        m[GF_C_L2_READ_HIT_RATE] = 100.0 * m[GF_C_L2_READ_SECTOR_HITS] / reads;
    if (all > 0 && !isnan(all_hits))
        m[GF_C_L2_SECTOR_HIT_RATE] = 100.0 * fmin(all, fmax(0, all_hits)) / all;
    gf_ksim_result *ks = &k->ks;
    double past_l1 = (double)ks->l2_sectors;
    if (past_l1 > 0 && ks->mean_miss_latency > 0) {
        double d_lat = d_dram / past_l1 * gf_gpu_dram_latency(gpu);
        double exposed = (double)ks->crit_mem_stall_cycles / ks->mean_miss_latency;
        double t = (double)ks->sm_cycles_max + exposed * d_lat;
        double scale = ks->sm_cycles_max ? fmax(t, 1) / (double)ks->sm_cycles_max : 1;
        ks->sm_cycles_max = (uint64_t)fmax(t, 1);
        ks->sm_cycles_avg *= scale;
        ks->warp_cycles_resident *= scale;
        ks->crit_mem_stall_cycles = (uint64_t)fmax(0, (double)ks->crit_mem_stall_cycles +
                                                          exposed * d_lat);
        ks->mean_miss_latency = fmax(1, ks->mean_miss_latency + d_lat);
        /* DRAM reads are loads: their latency moves by d_lat over the load share */
        double ld = ks->max_l1_miss_sectors_sm
                        ? (double)ks->max_l1_load_miss_sectors_sm / (double)ks->max_l1_miss_sectors_sm
                        : 1;
        ks->mean_load_miss_latency = fmax(1, ks->mean_load_miss_latency + (ld > 0 ? d_lat / ld : 0));
    }
}

gf_status gf_profile_evaluate(const gf_profile *p, const gf_gpu *gpu, gf_report *out,
                              gf_error *err)
{
    for (size_t i = 0; i < p->n; i++) {
        gf_kernel_summary *k = malloc(sizeof *k);
        if (!k)
            return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        *k = p->k[i];
        reevaluate_l2(k, &p->gpu, gpu);
        gf_kernel_row *row = gf_report_add(out, k->name, k->id, gpu->name);
        gf_status st = row ? gf_predict_evaluate(gpu, k, row, NULL, err)
                           : gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        free(k);
        if (st != GF_OK)
            return st;
    }
    return GF_OK;
}

/* ------------------------------------------------------------------ file format */

static void put_u32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint64_t get_u64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Payload: u64 sizeof(gf_gpu), sizeof(kentry) (a build with other struct layouts is
 * refused rather than misread), u64 kernel count, the gf_gpu, the entries. */
gf_status gf_profile_save(const gf_profile *p, const char *path, gf_error *err)
{
    size_t plen = 24 + sizeof(gf_gpu) + p->n * sizeof(kentry);
    unsigned char *payload = malloc(plen);
    if (!payload)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    put_u64(payload, sizeof(gf_gpu));
    put_u64(payload + 8, sizeof(kentry));
    put_u64(payload + 16, p->n);
    memcpy(payload + 24, &p->gpu, sizeof(gf_gpu));
    if (p->n)
        memcpy(payload + 24 + sizeof(gf_gpu), p->k, p->n * sizeof(kentry));
    uLongf zlen = compressBound((uLong)plen);
    unsigned char *z = malloc(zlen);
    if (!z) {
        free(payload);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    if (compress2(z, &zlen, payload, (uLong)plen, 6) != Z_OK) {
        free(payload);
        free(z);
        return gf_error_set(err, GF_ERR_IO, path, 0, "zlib compression failed");
    }
    unsigned char head[24];
    memcpy(head, magic, 8);
    put_u32(head + 8, GF_PROFILE_VERSION);
    put_u64(head + 12, plen);
    put_u32(head + 20, (uint32_t)crc32_z(0L, payload, plen));
    free(payload);
    gf_outfile *f;
    gf_status st = gf_outfile_open(path, &f, err);
    if (st != GF_OK) {
        free(z);
        return st;
    }
    FILE *fp = gf_outfile_stream(f);
    if (fwrite(head, 1, sizeof head, fp) != sizeof head || fwrite(z, 1, zlen, fp) != zlen) {
        free(z);
        gf_outfile_abort(f);
        return gf_error_set(err, GF_ERR_IO, path, 0, "write failed");
    }
    free(z);
    return gf_outfile_commit(f, err);
}

int gf_profile_is_profile(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char b[8];
    int ok = fread(b, 1, 8, f) == 8 && memcmp(b, magic, 8) == 0;
    fclose(f);
    return ok;
}

gf_status gf_profile_load(const char *path, gf_profile **out, gf_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open profile: %s",
                            strerror(errno));
    unsigned char head[24];
    if (fread(head, 1, sizeof head, f) != sizeof head || memcmp(head, magic, 8) != 0) {
        fclose(f);
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "not a gpuforecast profile (expected the GFPROF header)");
    }
    uint32_t version = get_u32(head + 8);
    uint64_t plen = get_u64(head + 12);
    uint32_t crc = get_u32(head + 20);
    if (version != GF_PROFILE_VERSION) {
        fclose(f);
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "profile format version %u, this gpuforecast reads version %u",
                            version, GF_PROFILE_VERSION);
    }
    if (plen < 24 + sizeof(gf_gpu) || plen > ((uint64_t)1 << 34)) {
        fclose(f);
        return gf_error_set(err, GF_ERR_PARSE, path, 0, "corrupt profile: bad payload length");
    }
    /* The compressed body is the rest of the file. */
    unsigned char *z = NULL;
    size_t zlen = 0, zcap = 0;
    for (;;) {
        void *q = z;
        if (gf_grow(&q, &zcap, zlen + 65536, 1) != 0) {
            free(z);
            fclose(f);
            return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
        }
        z = q;
        size_t got = fread(z + zlen, 1, zcap - zlen, f);
        zlen += got;
        if (got == 0)
            break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(z);
        return gf_error_set(err, GF_ERR_IO, path, 0, "read error");
    }
    unsigned char *payload = malloc(plen);
    if (!payload) {
        free(z);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    uLongf dlen = (uLongf)plen;
    int zst = uncompress(payload, &dlen, z, (uLong)zlen);
    free(z);
    const char *why = zst != Z_OK        ? "compressed data does not inflate"
                      : dlen != plen     ? "payload shorter than its header says"
                      : crc32_z(0L, payload, plen) != crc ? "checksum mismatch"
                                                            : NULL;
    if (why) {
        free(payload);
        return gf_error_set(err, GF_ERR_PARSE, path, 0, "corrupt or truncated profile (%s)",
                            why);
    }
    if (get_u64(payload) != sizeof(gf_gpu) || get_u64(payload + 8) != sizeof(kentry)) {
        free(payload);
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "profile written by a different build of gpuforecast "
                            "(record sizes differ): profile the trace again");
    }
    uint64_t n = get_u64(payload + 16);
    if (n > (plen - 24 - sizeof(gf_gpu)) / sizeof(kentry) ||
        24 + sizeof(gf_gpu) + n * sizeof(kentry) != plen) {
        free(payload);
        return gf_error_set(err, GF_ERR_PARSE, path, 0, "corrupt profile: bad kernel count");
    }
    gf_profile *p = calloc(1, sizeof *p);
    if (!p || (n && !(p->k = gf_calloc(n, sizeof *p->k)))) {
        free(p);
        free(payload);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    memcpy(&p->gpu, payload + 24, sizeof(gf_gpu));
    if (n)
        memcpy(p->k, payload + 24 + sizeof(gf_gpu), n * sizeof(kentry));
    p->n = n;
    free(payload);
    /* Strings came from a file: make sure they end. */
    p->gpu.name[sizeof p->gpu.name - 1] = 0;
    p->gpu.arch[sizeof p->gpu.arch - 1] = 0;
    p->gpu.isa[sizeof p->gpu.isa - 1] = 0;
    p->gpu.marketing[sizeof p->gpu.marketing - 1] = 0;
    p->gpu.dram_type[sizeof p->gpu.dram_type - 1] = 0;
    for (size_t i = 0; i < n; i++) {
        gf_kernel_summary *k = &p->k[i];
        k->name[sizeof k->name - 1] = 0;
        /* A checksum guards against damage, not against a crafted file: refuse values no
         * profile run can produce rather than print them as a prediction. */
        int bad = k->ks.sm_cycles_max > (1ull << 56) || k->ks.warp_insts > (1ull << 56) ||
                  !isfinite(k->ks.mean_miss_latency) || k->ks.mean_miss_latency < 0 ||
                  !isfinite(k->ks.sm_cycles_avg) || !isfinite(k->ks.warp_cycles_resident) ||
                  k->ks.crit_mem_stall_cycles > k->ks.sm_cycles_max;
        for (int c = 0; c < GF_C_COUNT && !bad; c++)
            bad = isinf(k->mem[c]) || k->mem[c] < 0 || k->mem[c] > 1e18;
        if (bad) {
            gf_profile_free(p);
            return gf_error_set(err, GF_ERR_PARSE, path, 0,
                                "corrupt profile: kernel %zu holds impossible values", i + 1);
        }
    }
    *out = p;
    return GF_OK;
}

gf_status gf_profile_predict(const char *path, const gf_gpu *gpu, gf_report *out, gf_error *err)
{
    gf_profile *p;
    gf_status st = gf_profile_load(path, &p, err);
    if (st != GF_OK)
        return st;
    st = gf_profile_check(p, gpu, err);
    if (st == GF_OK)
        st = gf_profile_evaluate(p, gpu, out, err);
    if (st != GF_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    gf_profile_free(p);
    return st;
}
