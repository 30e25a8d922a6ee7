/*
 * Queueing model: M/D/1 servers for the L2 slices and the DRAM channels, Little's-law
 * caps for the MSHR files, solved as a fixed point with GSL's Brent root finder.
 *
 * Sources and approximations:
 * - Each L2 slice and each DRAM channel is a deterministic-service server fed by
 *   Poisson arrivals (M/D/1: W = rho * s / (2 (1 - rho))). Real arrivals are burstier
 *   (waves of warps), so this underestimates queueing at moderate load.
 * - MSHRs bound throughput by Little's law: bytes/cycle <= MSHRs * 32 B / latency
 *   (multi2sim-gpu-memory-subsystem.txt §5.1: small L2 MSHR files cost 3-5x).
 * - DRAM efficiency: a row miss keeps its bank busy tRP + tRCD; FR-FCFS serves other
 *   banks meanwhile, so the channel loses that time divided by the banks that can
 *   overlap it; FCFS cannot reorder and loses all of it; a closed page pays tRCD on
 *   every access (multi2sim-gpu-memory-subsystem.txt §4.4, DRAM banks and row buffers).
 * - The latency path adds the mean queueing delay to every exposed miss: the issue
 *   model measured S = memory-stall cycles / mean miss latency exposed misses on the
 *   slowest SM. This is the interval-model approximation; it is exact only if stalls
 *   scale linearly with latency.
 */
#include "timing/queueing.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "util/error.h"

const char *gf_limiter_name(gf_limiter l)
{
    static const char *names[] = {"issue", "latency", "l1", "l2", "dram", "mshr"};
    return l < GF_LIM_COUNT ? names[l] : "?";
}

double gf_queue_dram_efficiency(const gf_gpu *g, double row_hit_rate)
{
    if (g->dram_bandwidth <= 0 || g->dram_clock_hz <= 0)
        return 1.0;
    unsigned ch = g->dram_channels ? g->dram_channels : 1;
    double t_burst = 32.0 / (g->dram_bandwidth / ch); /* seconds per sector per channel */
    double miss = 1.0 - row_hit_rate, t_miss;
    if (g->dram_page_policy == GF_PAGE_CLOSED) {
        miss = 1.0;
        t_miss = g->tRCD / g->dram_clock_hz;
    } else {
        t_miss = (g->tRP + g->tRCD) / g->dram_clock_hz;
    }
    double overlap = g->dram_scheduler == GF_SCHED_FCFS ? 1.0
                                                        : (g->dram_banks ? g->dram_banks : 1);
    double eff = t_burst / (t_burst + miss * t_miss / overlap);
    double cap = g->dram_max_efficiency > 0 ? g->dram_max_efficiency : 1.0;
    return eff < cap ? eff : cap;
}

typedef struct qctx {
    const gf_gpu *g;
    const gf_queue_input *in;
    double c2, cd;         /* capacities, bytes per core cycle */
    double c2r;            /* the slices' read return path (0 = part of c2) */
    double w2;             /* cycles the slices need at full rate (l2_work), fixed */
    double s2, sd;         /* service time of one sector at one slice / channel */
    double S;              /* exposed misses of the slowest SM */
    double fdram;          /* fraction of L2 accesses that read DRAM */
    /* filled by F() */
    double q, t_lat, t_m1, t_m2;
} qctx;

static double md1_wait(double rho, double s)
{
    if (rho <= 0)
        return 0;
    if (rho >= 1)
        return HUGE_VAL;
    return rho * s / (2.0 * (1.0 - rho));
}

/* Cycles the slices need for their input slots and, where modelled apart, for returning
 * read data: the busier of the two sets the slices' utilisation. */
static double l2_work(const qctx *c)
{
    const gf_queue_input *in = c->in;
    double slots = in->l2_slots > 0 ? in->l2_slots : in->l2_sectors;
    double w = c->c2 > 0 ? (slots + in->l2_extra_slots) * 32.0 / c->c2 : 0;
    double r = c->c2r > 0 ? in->l2_read_return_sectors * 32.0 / c->c2r : 0;
    return w > r ? w : r;
}

static double F(double T, qctx *c)
{
    const gf_queue_input *in = c->in;
    double r2 = c->w2 / T;
    double rd = c->cd > 0 ? (in->dram_read_sectors + in->dram_write_sectors) * 32.0 / (T * c->cd)
                          : 0;
    double w2 = md1_wait(r2, c->s2), wd = md1_wait(rd, c->sd);
    /* (the issue model's DRAM server already delayed its reads by dram_sim_wait) */
    double wd_left = wd > in->dram_sim_wait ? wd - in->dram_sim_wait : 0;
    c->q = w2 + c->fdram * wd_left;
    c->t_lat = in->t0 + c->S * c->q;
    unsigned m1 = c->g->l1.mshrs, m2 = c->g->l2.mshrs;
    /* stores are posted (write-through): only loads and atomics wait in L1 MSHRs */
    c->t_m1 = m1 ? in->load_miss_sectors_max_sm * (in->mean_load_miss_latency + c->q) / m1 : 0;
    unsigned slices = c->g->l2_slices ? c->g->l2_slices : 1;
    double dram_lat = gf_gpu_dram_latency(c->g) + wd;
    c->t_m2 = m2 ? (in->dram_read_sectors / slices) * dram_lat / m2 : 0;
    double f = c->t_lat;
    if (c->t_m1 > f)
        f = c->t_m1;
    if (c->t_m2 > f)
        f = c->t_m2;
    return f;
}

static double g_of(double T, void *p)
{
    return T - F(T, p);
}

gf_status gf_queue_solve(const gf_gpu *g, const gf_queue_input *in, gf_queue_result *out,
                         gf_error *err)
{
    qctx c = {.g = g, .in = in};
    double ratio = g->l2_clock_hz > 0 && g->core_clock_hz > 0 ? g->l2_clock_hz / g->core_clock_hz
                                                              : 1.0;
    unsigned slices = g->l2_slices ? g->l2_slices : 1;
    double l2cap = slices * g->l2.bytes_per_cycle * ratio;
    if (g->noc_bytes_per_cycle > 0 && (l2cap <= 0 || g->noc_bytes_per_cycle < l2cap))
        l2cap = g->noc_bytes_per_cycle;
    c.c2 = l2cap;
    /* the return path's own peak, in L2 cycles (not capped by noc.bytes_per_cycle, which
     * is in core cycles and bounds the input side above) */
    if (g->l2_read_bytes_per_cycle > 0)
        c.c2r = slices * g->l2_read_bytes_per_cycle * ratio;
    c.w2 = l2_work(&c);
    c.s2 = l2cap > 0 ? 32.0 * slices / l2cap : 0;
    double row_hit = in->dram_row_hit_rate;
    out->dram_efficiency = gf_queue_dram_efficiency(g, row_hit);
    c.cd = g->core_clock_hz > 0 ? g->dram_bandwidth * out->dram_efficiency / g->core_clock_hz : 0;
    unsigned ch = g->dram_channels ? g->dram_channels : 1;
    c.sd = c.cd > 0 ? 32.0 * ch / c.cd : 0;
    c.S = in->mean_miss_latency > 0 ? in->mem_stall / in->mean_miss_latency : 0;
    c.fdram = in->l2_sectors > 0 ? in->dram_read_sectors / in->l2_sectors : 0;
    if (c.fdram > 1)
        c.fdram = 1;

    out->l2_bound = c.w2;
    out->dram_bound =
        c.cd > 0 ? (in->dram_read_sectors + in->dram_write_sectors) * 32.0 / c.cd : 0;
    out->atom_bound = g->l2_atomic_sectors_per_cycle > 0
                          ? in->atom_sectors_max_slice / (g->l2_atomic_sectors_per_cycle * ratio)
                          : 0;
    double floor = out->l2_bound > out->dram_bound ? out->l2_bound : out->dram_bound;
    if (out->atom_bound > floor)
        floor = out->atom_bound;
    if (floor > 0) /* (the servers idle while the code streams in: serial, not overlapped) */
        floor += in->serial_cycles;
    double lo = floor * (1 + 1e-9) + 1e-9;
    if (lo < 1)
        lo = 1;
    double T;
    if (g_of(lo, &c) >= 0) {
        /* F(lo) <= lo: nothing but bandwidth keeps the kernel from finishing sooner. */
        T = lo;
    } else {
        double hi = lo * 2 + in->t0 + 1;
        int guard = 0;
        while (g_of(hi, &c) < 0 && guard++ < 200)
            hi *= 2;
        if (!isfinite(hi) || guard >= 200)
            return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                "queueing model did not converge (no finite time found)");
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
        if (!s) {
            gsl_set_error_handler(old);
            return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        }
        gsl_function fn = {.function = g_of, .params = &c};
        gsl_root_fsolver_set(s, &fn, lo, hi);
        int status = GSL_CONTINUE;
        for (int it = 0; it < 200 && status == GSL_CONTINUE; it++) {
            gsl_root_fsolver_iterate(s);
            status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
                                            gsl_root_fsolver_x_upper(s), 1e-3, 1e-9);
        }
        T = gsl_root_fsolver_x_upper(s);
        gsl_root_fsolver_free(s);
        gsl_set_error_handler(old);
    }
    F(T, &c);
    out->cycles = T;
    out->queue_delay = c.q;
    out->mshr_bound = c.t_m1 > c.t_m2 ? c.t_m1 : c.t_m2;
    out->l2_util = T > 0 ? out->l2_bound / T : 0;
    double peak = g->core_clock_hz > 0 ? g->dram_bandwidth / g->core_clock_hz : 0;
    out->dram_util =
        peak > 0 ? (in->dram_read_sectors + in->dram_write_sectors) * 32.0 / (T * peak) : 0;
    /* The limiter: a saturated server first, then an MSHR cap, then issue vs latency.
     * The 80 % and 60 % thresholds are our reporting convention (what "bound by" means
     * in this output), not hardware numbers; they change no predicted time or count,
     * only the limiter and where the stall stack puts the stretch (predict.c: an
     * atomic-bound stretch is drain for posted atomics). */
    double rd = c.cd > 0 ? out->dram_bound / T : 0, r2 = out->l2_bound / T;
    if (out->atom_bound / T > r2)
        r2 = out->atom_bound / T; /* a slice's atomic unit is part of the L2 */
    if (rd >= 0.8 && rd >= r2)
        out->limiter = GF_LIM_DRAM;
    else if (r2 >= 0.8)
        out->limiter = GF_LIM_L2;
    else if (out->mshr_bound >= c.t_lat && out->mshr_bound > 0)
        out->limiter = GF_LIM_MSHR;
    else if (in->lsu_cycles_max_sm >= 0.8 * T)
        out->limiter = GF_LIM_L1;
    else if (in->issue_util >= 0.6)
        out->limiter = GF_LIM_ISSUE;
    else
        out->limiter = GF_LIM_LATENCY;
    return GF_OK;
}
