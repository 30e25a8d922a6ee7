/*
 * Memory profile + GPU -> memory counters (l2counters.h). Sources of each rule are given
 * where it is applied; the cache model is memory/cachemodel.c's binomial model.
 */
#include "memory/l2counters.h"

#include <math.h>
#include <string.h>

#include "counters/counters.h"
#include "memory/cachemodel.h"

static double pct(double num, double den)
{
    return den > 0 ? 100.0 * num / den : NAN;
}

/* pct as Nsight prints a rate over no events: 0, not undefined (refdata h100-gfbench
 * cublas_hgemm1024's L1 hit rate, whose global traffic is all TMA copies: GF_HIER_NOT_LSU) */
static double pct_or_0(double num, double den)
{
    return den > 0 ? pct(num, den) : 0.0;
}

void gf_l2c_rates_for(const gf_hier_kernel_profile *p, uint64_t l1_lines, unsigned l1_ways,
                      uint64_t l2_lines_per_slice, unsigned l2_ways, gf_l2c_rates *out)
{
    memset(out, 0, sizeof *out);
    double l1h = 0, l1n = 0;
    for (unsigned c = 0; c < GF_HIER_NL1; c++) {
        out->l1_hits[c] = gf_cachemodel_hits(&p->l1_sector[c], l1_lines, l1_ways);
        out->l1_tag_hits[c] = gf_cachemodel_hits(&p->l1_tag[c], l1_lines, l1_ways);
        l1h += out->l1_hits[c];
        l1n += (double)p->l1_sectors[c];
    }
    double l2h = 0, l2n = 0;
    for (unsigned c = 0; c < GF_HIER_NL2; c++) {
        out->l2_hits[c] = gf_cachemodel_hits(&p->l2_sector[c], l2_lines_per_slice, l2_ways);
        l2h += out->l2_hits[c];
        l2n += (double)p->l2_sectors[c];
    }
    out->dram_read_sectors = (double)p->l2_sectors[GF_HIER_L2_READ] - out->l2_hits[GF_HIER_L2_READ] +
                             (double)p->l2_sectors[GF_HIER_L2_ATOM] - out->l2_hits[GF_HIER_L2_ATOM] +
                             (double)p->dram_group_fetches;
    out->l1_sector_hit_rate_pct = pct(l1h, l1n);
    out->l2_sector_hit_rate_pct = pct(l2h, l2n);
    out->l2_read_hit_rate_pct = pct(out->l2_hits[GF_HIER_L2_READ], (double)p->l2_sectors[GF_HIER_L2_READ]);
}

double gf_l2c_fabric_shared(const gf_hier_kernel_profile *p, uint64_t lines, unsigned ways)
{
    return gf_cachemodel_hits(&p->l2_far_first, lines, ways);
}

/* The counters at the profiled geometry. r: the cache model there (REUSE mode; unused in
 * EXACT mode, whose counters are the oracles' decisions). */
static void at_profiled(const gf_hier_kernel_profile *p, const gf_gpu *g, const gf_l2c_rates *r,
                        double *v)
{
    double l1hit[GF_HIER_NL1], l1tag[GF_HIER_NL1], l2hit[GF_HIER_NL2], dram_read;
    if (p->mode == GF_HIER_EXACT) {
        for (unsigned c = 0; c < GF_HIER_NL1; c++) {
            l1hit[c] = (double)p->dec_l1_hits[c];
            l1tag[c] = (double)p->dec_l1_tag_hits[c];
        }
        for (unsigned c = 0; c < GF_HIER_NL2; c++)
            l2hit[c] = (double)p->dec_l2_hits[c];
        dram_read = (double)p->dec_dram_read;
    } else {
        memcpy(l1hit, r->l1_hits, sizeof l1hit);
        memcpy(l1tag, r->l1_tag_hits, sizeof l1tag);
        memcpy(l2hit, r->l2_hits, sizeof l2hit);
        dram_read = r->dram_read_sectors;
    }
    double bad = p->nomem ? NAN : 0.0; /* poison everything if a tracker ran out of memory */
    v[GF_C_L1_GLD_REQUESTS] = (double)p->l1_requests[GF_HIER_GLD] + bad;
    v[GF_C_L1_GLD_SECTORS] = (double)p->l1_sectors[GF_HIER_GLD] + bad;
    v[GF_C_L1_GLD_SECTOR_HITS] = l1hit[GF_HIER_GLD] + bad;
    v[GF_C_L1_GLD_TAG_HITS] = l1tag[GF_HIER_GLD] + bad;
    v[GF_C_L1_GST_REQUESTS] = (double)p->l1_requests[GF_HIER_GST] + bad;
    v[GF_C_L1_GST_SECTORS] = (double)p->l1_sectors[GF_HIER_GST] + bad;
    v[GF_C_L1_GST_SECTOR_HITS] = l1hit[GF_HIER_GST] + bad;
    v[GF_C_L1_LLD_REQUESTS] = (double)p->l1_requests[GF_HIER_LLD] + bad;
    v[GF_C_L1_LLD_SECTORS] = (double)p->l1_sectors[GF_HIER_LLD] + bad;
    v[GF_C_L1_LLD_SECTOR_HITS] = l1hit[GF_HIER_LLD] + bad;
    v[GF_C_L1_LST_REQUESTS] = (double)p->l1_requests[GF_HIER_LST] + bad;
    v[GF_C_L1_LST_SECTORS] = (double)p->l1_sectors[GF_HIER_LST] + bad;
    v[GF_C_L1_LST_SECTOR_HITS] = l1hit[GF_HIER_LST] + bad;
    v[GF_C_L1_ATOM_REQUESTS] = (double)p->l1_requests[GF_HIER_ATOM] + bad;
    v[GF_C_L1_ATOM_SECTORS] = (double)p->l1_sectors[GF_HIER_ATOM] + bad;
    double hsum = 0, nsum = 0;
    for (unsigned c = 0; c < GF_HIER_NL1; c++) {
        hsum += l1hit[c];
        nsum += (double)p->l1_sectors[c];
    }
    v[GF_C_L1_SECTOR_HIT_RATE] = pct_or_0(hsum, nsum) + bad;
    v[GF_C_L1_GLD_HIT_RATE] = pct_or_0(l1hit[GF_HIER_GLD], (double)p->l1_sectors[GF_HIER_GLD]) + bad;
    v[GF_C_SHMEM_LD_REQUESTS] = (double)p->shmem_ld_requests;
    v[GF_C_SHMEM_ST_REQUESTS] = (double)p->shmem_st_requests;
    /* (with l1.shared_pipe_mio the data pipe's count needs the decoded instructions:
     * predict adds them, gf_ksim_result.mio_wavefronts; unknown from the memory side) */
    v[GF_C_SHMEM_WAVEFRONTS] = g->l1_shared_pipe_mio ? NAN : (double)p->shmem_wavefronts;
    v[GF_C_SHMEM_ACCESS_WAVEFRONTS] = (double)p->shmem_wavefronts;
    v[GF_C_SHMEM_BANK_CONFLICTS] = (double)p->shmem_conflicts;
    v[GF_C_L2_READ_SECTORS] = (double)p->l2_sectors[GF_HIER_L2_READ] + bad;
    v[GF_C_L2_WRITE_SECTORS] = (double)p->l2_sectors[GF_HIER_L2_WRITE] + bad;
    double atoms = (double)(p->l2_sectors[GF_HIER_L2_ATOM] + p->l2_atom_extra);
    v[GF_C_L2_ATOM_SECTORS] = atoms + bad;
    v[GF_C_L2_READ_SECTOR_HITS] = l2hit[GF_HIER_L2_READ] + bad;
    /* With l2.writes_hit (H100), Nsight's lookup hits: a write or an atomic never
     * misses in a write-validate, sector-masked L2 (refdata h100-gfbench ncu.csv:
     * lts__t_sector_op_write_hit_rate ~100 % after a cache flush, 3,000,297 of
     * hist_global_atomics' 3,000,320 RED sectors hit), so lts__t_sector_hit_rate =
     * (read hits + writes + atomics) / all: stream_copy 50.0 % (measured 51.2), vecadd
     * 33.3 (35.4), stride16 11.1 (10.9). Without it a write hits where its line was
     * present (Volta, Fig. 5 of the seed paper). What the model decides for writes
     * (allocation, dirty sectors) is the same either way. */
    if (g->l2_writes_hit) {
        l2hit[GF_HIER_L2_WRITE] = (double)p->l2_sectors[GF_HIER_L2_WRITE];
        l2hit[GF_HIER_L2_ATOM] = atoms;
    }
    v[GF_C_L2_WRITE_SECTOR_HITS] = l2hit[GF_HIER_L2_WRITE] + bad;
    double l2n = (double)(p->l2_sectors[0] + p->l2_sectors[1] + p->l2_sectors[2] +
                          p->l2_atom_extra);
    v[GF_C_L2_SECTOR_HIT_RATE] = pct(l2hit[0] + l2hit[1] + l2hit[2], l2n) + bad;
    v[GF_C_L2_READ_HIT_RATE] = pct(l2hit[GF_HIER_L2_READ], (double)p->l2_sectors[GF_HIER_L2_READ]) + bad;
    v[GF_C_DRAM_SECTORS_READ] = dram_read + bad;
    v[GF_C_DRAM_SECTORS_WRITE] = (double)p->dec_dram_write + bad;
    v[GF_C_DRAM_BYTES_READ] = 32.0 * dram_read + bad;
    v[GF_C_DRAM_BYTES_WRITE] = 32.0 * (double)p->dec_dram_write + bad;
}

/* DRAM write-backs a cache of `lines` per slice and `ways` would make, from the dirty
 * histograms (gf_hier_kernel_profile.l2_wb, l2_wb_end): a dirty line met again at
 * distance d was evicted in between iff d >= lines (the per-access decisions are fully
 * associative); one still dirty at the kernel's end counts as the profiled run counted
 * it, with its set's chance of eviction or past the capacity. Approximation: a line's
 * dirty sectors are the profiled capacity's (at a smaller L2 a line written back early
 * and met again clean counts again at the end; at a larger one a line the profiled L2
 * wrote back is not followed further). Exact for data written and not met again. */
static double writebacks_at(const gf_hier_kernel_profile *hp, uint64_t lines, unsigned ways)
{
    double wb = (double)gf_hist_total(&hp->l2_wb) - gf_cachemodel_hits(&hp->l2_wb, lines, 0);
    unsigned end_ways = hp->wb_final ? ways : 0;
    return wb + (double)gf_hist_total(&hp->l2_wb_end) -
           gf_cachemodel_hits(&hp->l2_wb_end, lines, end_ways);
}

/* A what-if: v holds the counters at the profiled geometry (at_profiled; was is the
 * cache model there); move the L2 hits and DRAM reads by the cache model's change to
 * `lines` per slice and `ways` (now), the DRAM write-backs likewise (writebacks_at).
 *
 * Why a move and not the model at the new size alone: in EXACT mode the counters are the
 * oracles' decisions, which also see what the histograms cannot (MemcpyHtoD warming, set
 * conflicts), and DRAM writes are the decisions in both modes (per access plus the kernel
 * end's flush) where writebacks_at is the histograms' estimate; the move keeps that
 * difference. In REUSE mode the hits and DRAM reads at the profiled geometry are the
 * model's (`was`), so v + (now - was) is `now` up to one rounding; it is kept in this
 * form so that outputs stay byte-identical with the row patching it replaced. */
static void move_to(const gf_hier_kernel_profile *hp, const gf_gpu *g, uint64_t lines,
                    const gf_l2c_rates *was, double *v, gf_l2c_whatif *w)
{
    gf_l2c_rates now;
    gf_l2c_rates_for(hp, hp->l1_lines, hp->l1_ways, lines, g->l2.ways, &now);
    double *m = v;
    double d_dram = now.dram_read_sectors - was->dram_read_sectors;
    if (!isnan(m[GF_C_DRAM_SECTORS_READ])) {
        m[GF_C_DRAM_SECTORS_READ] = fmax(0, m[GF_C_DRAM_SECTORS_READ] + d_dram);
        m[GF_C_DRAM_BYTES_READ] = 32.0 * m[GF_C_DRAM_SECTORS_READ];
    }
    if (!isnan(m[GF_C_DRAM_SECTORS_WRITE])) {
        double d_wb = writebacks_at(hp, lines, g->l2.ways) -
                      writebacks_at(hp, hp->l2_lines, hp->l2_ways);
        m[GF_C_DRAM_SECTORS_WRITE] = fmax(0, m[GF_C_DRAM_SECTORS_WRITE] + d_wb);
        m[GF_C_DRAM_BYTES_WRITE] = 32.0 * m[GF_C_DRAM_SECTORS_WRITE];
    }
    double dr = now.l2_hits[GF_HIER_L2_READ] - was->l2_hits[GF_HIER_L2_READ];
    /* with l2.writes_hit writes and atomics are lookup hits whatever the size */
    double dw = g->l2_writes_hit ? 0 : now.l2_hits[GF_HIER_L2_WRITE] - was->l2_hits[GF_HIER_L2_WRITE];
    double da = g->l2_writes_hit ? 0 : now.l2_hits[GF_HIER_L2_ATOM] - was->l2_hits[GF_HIER_L2_ATOM];
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
    if (w) {
        w->moved = 1;
        w->d_dram_read = d_dram;
    }
}

/* gf_l2c_counters, or with kept = 1 its second half on the counters v already holds at
 * the profiled L2 (gf_l2c_counters_kept). */
static void counters(const gf_hier_kernel_profile *p, const gf_gpu *g, double *v,
                     gf_l2c_whatif *w, int kept)
{
    if (w) {
        w->moved = 0;
        w->d_dram_read = 0;
    }
    uint64_t lines = gf_gpu_l2_lines_per_slice(g);
    int moved = lines != p->l2_lines || g->l2.ways != p->l2_ways;
    gf_l2c_rates was;
    if ((p->mode != GF_HIER_EXACT && !kept) || moved)
        gf_l2c_rates_for(p, p->l1_lines, p->l1_ways, p->l2_lines, p->l2_ways, &was);
    if (!kept)
        at_profiled(p, g, &was, v);
    if (moved)
        move_to(p, g, lines, &was, v, w);
}

void gf_l2c_counters(const gf_hier_kernel_profile *p, const gf_gpu *g, double *v,
                     gf_l2c_whatif *w)
{
    counters(p, g, v, w, 0);
}

void gf_l2c_counters_kept(const gf_hier_kernel_profile *p, const gf_gpu *g, double *v,
                          gf_l2c_whatif *w)
{
    counters(p, g, v, w, 1);
}

/* Sectors that cross the L2 partition fabric (h100.ini [l2] partitions): with P partitions
 * and lines homed evenly over them, (P - 1) / P of the accesses from any SM are to lines
 * homed elsewhere. Writes and atomics always go on to the home slice; a read does when
 * its own partition misses: where the home misses too, approximated by that share of the
 * sectors DRAM fills (each filled at home and copied near); where the home hits, the
 * hierarchy's histogram decides them at this L2 (gf_l2c_fabric_shared: data the other
 * partition's SMs brought in). The idle background (l2.fabric_idle_sectors) is added for
 * the counter only. NAN when not modelled. */
static double far_share(const gf_gpu *g)
{
    return (double)(g->l2_partitions - 1) / g->l2_partitions;
}

static double fabric_sectors(const gf_gpu *g, double writes, double atoms, double dram_reads,
                             double shared)
{
    if (g->l2_partitions == 0)
        return NAN;
    return far_share(g) * (writes + atoms + (isnan(dram_reads) ? 0 : dram_reads)) + shared;
}

/* Nsight's lts__t_sector_hit_rate is lookup hits over every L2 lookup, the fabric's at the
 * home slice and other units' included (refdata h100-gfbench ncu.csv:
 * lts__t_sectors_lookup_hit.sum / lts__t_sectors.sum, 3,284,697 / 6,411,871 = 51.2 % on
 * stream_copy, 61,590 / 130,985 = 47.0 % on pchase_dram). Fabric writes and atomics hit
 * (l2.writes_hit), its DRAM-filled reads miss, its idle background hits. A shared read
 * (fabric_sectors) is a near miss and a home hit: the one hit the hierarchy counted, in
 * two lookups. The other units' background (l2.background_sectors) hits. rate is the
 * hierarchy's over the lookups from L1; returned unchanged where neither the fabric nor a
 * background is modelled. */
static double nsight_l2_hit_rate(const gf_gpu *g, double rate, double tex_sectors,
                                 double write_hits, double atoms, double fabric)
{
    double bg = g->l2_background_sectors;
    if (isnan(rate) || (isnan(fabric) && bg <= 0))
        return rate;
    double fabric_hits = 0;
    if (isnan(fabric))
        fabric = 0;
    else
        fabric_hits = far_share(g) * ((isnan(write_hits) ? 0 : write_hits) +
                                      (g->l2_writes_hit ? atoms : 0)) +
                      g->l2_fabric_idle_sectors;
    if (tex_sectors + fabric + bg <= 0)
        return rate;
    return 100.0 * (rate / 100.0 * tex_sectors + fabric_hits + bg) / (tex_sectors + fabric + bg);
}

void gf_l2c_nsight_view(const gf_hier_kernel_profile *p, const gf_gpu *g, const double *v,
                        double rate, gf_l2c_nsight *out)
{
    double l2r = isnan(v[GF_C_L2_READ_SECTORS]) ? 0 : v[GF_C_L2_READ_SECTORS];
    double l2w = isnan(v[GF_C_L2_WRITE_SECTORS]) ? 0 : v[GF_C_L2_WRITE_SECTORS];
    double l2a = isnan(v[GF_C_L2_ATOM_SECTORS]) ? 0 : v[GF_C_L2_ATOM_SECTORS];
    double fabric = fabric_sectors(g, l2w, l2a, v[GF_C_DRAM_SECTORS_READ],
                                   gf_l2c_fabric_shared(p, gf_gpu_l2_lines_per_slice(g), g->l2.ways));
    if (isnan(v[GF_C_L2_READ_SECTORS]))
        fabric = NAN; /* the memory model failed (out of memory): its counters are NAN too */
    out->fabric = fabric;
    out->fabric_all = isnan(fabric) ? NAN : fabric + g->l2_fabric_idle_sectors;
    out->hit_rate = nsight_l2_hit_rate(g, rate, l2r + l2w + l2a, v[GF_C_L2_WRITE_SECTOR_HITS],
                                       l2a, out->fabric_all);
}
