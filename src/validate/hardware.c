/*
 * Hardware (and simulator) counter readers; see hardware.h for the formats.
 *
 * Real examples these were written against (refdata/, never copied):
 *  microgpusim/profile-tests/nsight_vectoradd_100_32_metrics_all.csv (ncu, GTX 1080:
 *    Pascal-era metric names such as dram__read_sectors, gpc__elapsed_cycles_max),
 *  microgpusim/vectoradd/nvprof.log, profile-tests/nvprof_*.txt (nvprof metric trace
 *    and GPU trace), gtx1080-matrixmul-hw/N.result.nvprof*.csv (bare nvprof CSV),
 *  accel-sim-runs/NAME.log (Accel-Sim 4.2 / dev 73f9fac stdout).
 */
#include "validate/hardware.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/csvtable.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/error.h"

/* Names other than our Nsight Compute names and nvprof aliases. scale != 0 replaces
 * the unit conversion (nvprof's achieved_occupancy is a 0..1 ratio; our counter is a
 * percentage). add: several columns add up to one counter. */
static const struct alias {
    const char *name;
    gf_counter_id id;
    double scale;
    int add;
} aliases[] = {
    /* nvprof */
    {"achieved_occupancy", GF_C_WARPS_ACTIVE_PCT, 100.0, 0},
    /* Nsight Compute's raw page prints the nvprof-era thread_inst_executed_true (lanes with
     * the predicate on; ncu.csv of the H100 reference set) */
    {"thread_inst_executed_true", GF_C_THREAD_INST_EXECUTED_PRED_ON, 0, 0},
    /* nvprof shared_{load,store}_transactions are shared-memory wavefronts (Nsight
     * Compute CLI docs, nvprof metric comparison: ..._wavefronts_mem_shared_op_ld/st) */
    {"shared_load_transactions", GF_C_SHMEM_WAVEFRONTS, 0, 1},
    {"shared_store_transactions", GF_C_SHMEM_WAVEFRONTS, 0, 1},
    /* Nsight's memory table labels its shared-memory wavefronts 'sectors' (ncu.csv of the
     * H100 reference set): a count, taken as it is */
    {"memory_l1_wavefronts_shared", GF_C_SHMEM_ACCESS_WAVEFRONTS, 1.0, 0},
    /* Nsight Compute on Pascal (the GTX 1080 ncu CSV in refdata) prints older names */
    {"gpc__elapsed_cycles_max", GF_C_GPC_CYCLES_ELAPSED, 0, 0},
    {"gpu__time_duration", GF_C_TIME_NS, 0, 0},
    {"smsp__inst_executed_sum", GF_C_INST_EXECUTED, 0, 0},
    {"sm__inst_executed_avg_per_active_cycle", GF_C_IPC, 0, 0},
    {"sm__active_warps_avg_per_active_cycle_pct", GF_C_WARPS_ACTIVE_PCT, 0, 0},
    {"tex__hitrate_pct", GF_C_L1_SECTOR_HIT_RATE, 0, 0},
    {"tex__global_ld_unique_sector_requests", GF_C_L1_GLD_SECTORS, 0, 0},
    {"lts__request_total_sectors_hitrate_pct", GF_C_L2_SECTOR_HIT_RATE, 0, 0},
    {"dram__read_sectors", GF_C_DRAM_SECTORS_READ, 0, 0},
    {"dram__write_sectors", GF_C_DRAM_SECTORS_WRITE, 0, 0},
    {"dram__read_bytes", GF_C_DRAM_BYTES_READ, 0, 0},
    {"dram__write_bytes", GF_C_DRAM_BYTES_WRITE, 0, 0},
    {"sass__inst_executed_global_loads", GF_C_GLD_INST, 0, 0},
    {"sass__inst_executed_global_stores", GF_C_GST_INST, 0, 0},
    {"sass__inst_executed_shared_loads", GF_C_SHMEM_LD_REQUESTS, 0, 0},
    {"sass__inst_executed_shared_stores", GF_C_SHMEM_ST_REQUESTS, 0, 0},
    /* Our atomic counters hold atomics and reductions together; Nsight files RED (no
     * return value) under op_red and ATOM under op_atom (refdata h100-gfbench
     * hist_global_atomics: 3,000,320 op_red sectors, 0 op_atom) */
    {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", GF_C_L1_ATOM_REQUESTS, 0, 1},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", GF_C_L1_ATOM_REQUESTS, 0, 1},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", GF_C_L1_ATOM_SECTORS, 0, 1},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", GF_C_L1_ATOM_SECTORS, 0, 1},
    {"lts__t_sectors_srcunit_tex_op_atom.sum", GF_C_L2_ATOM_SECTORS, 0, 1},
    {"lts__t_sectors_srcunit_tex_op_red.sum", GF_C_L2_ATOM_SECTORS, 0, 1},
    /* Nsight Compute spelling of the instruction-class counts */
    {"smsp__sass_inst_executed_op_global_ld.sum", GF_C_GLD_INST, 0, 0},
    {"smsp__sass_inst_executed_op_global_st.sum", GF_C_GST_INST, 0, 0},
    {"smsp__sass_inst_executed_op_shared_ld.sum", GF_C_SHMEM_LD_REQUESTS, 0, 0},
    {"smsp__sass_inst_executed_op_shared_st.sum", GF_C_SHMEM_ST_REQUESTS, 0, 0},
};

typedef struct colmap {
    int id; /* -1: unmapped */
    double scale;
    int add;
} colmap;

static colmap map_name(const char *name)
{
    colmap m = {-1, 0, 0};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, name) == 0) {
            m.id = (int)aliases[i].id;
            m.scale = aliases[i].scale;
            m.add = aliases[i].add;
            return m;
        }
    const gf_counter_def *d = gf_counter_find(name);
    if (d)
        m.id = (int)d->id;
    return m;
}

const char *gf_hardware_format_name(gf_hw_format f)
{
    switch (f) {
    case GF_HW_AUTO: return "auto";
    case GF_HW_NCU: return "nsight-compute";
    case GF_HW_NVPROF: return "nvprof";
    case GF_HW_ACCELSIM: return "accel-sim";
    }
    return "?";
}

int gf_hardware_parse_cell(const char *cell, double *v, char *unit_out, size_t unit_n)
{
    char buf[128];
    size_t n = 0;
    if (unit_out && unit_n)
        unit_out[0] = '\0';
    while (isspace((unsigned char)*cell))
        cell++;
    if (*cell == '\0' || strcasecmp(cell, "n/a") == 0) {
        *v = NAN;
        return 0;
    }
    /* Thousands separators ("1,024.00" in ncu output) are dropped from the integer
     * part, which must then be grouped as 1-3 digits followed by groups of exactly 3
     * ("1,2,3" is not a number). */
    const char *p = cell;
    if (*p == '-' || *p == '+')
        buf[n++] = *p++;
    int groups = 0, ndig = 0, bad = 0;
    for (; (isdigit((unsigned char)*p) || *p == ',') && n + 1 < sizeof buf; p++) {
        if (*p == ',') {
            if ((groups == 0 && (ndig < 1 || ndig > 3)) || (groups > 0 && ndig != 3))
                bad = 1;
            groups++;
            ndig = 0;
            continue;
        }
        ndig++;
        buf[n++] = *p;
    }
    if (groups && ndig != 3)
        bad = 1;
    for (; *p && n + 1 < sizeof buf; p++)
        buf[n++] = *p;
    buf[n] = '\0';
    if (bad || *p)
        return -1;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (end == buf || errno == ERANGE || isnan(x) || isinf(x))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    size_t ul = strlen(end);
    while (ul && isspace((unsigned char)end[ul - 1]))
        ul--;
    if (ul) {
        /* a trailing unit must be letters, '%' or '/' (nvprof summary "12.5%",
         * "1.2GB/s"); anything else means the cell was not a number */
        for (size_t i = 0; i < ul; i++)
            if (!isalpha((unsigned char)end[i]) && end[i] != '%' && end[i] != '/')
                return -1;
        if (!unit_out || ul >= unit_n)
            return -1;
        memcpy(unit_out, end, ul);
        unit_out[ul] = '\0';
    }
    *v = x;
    return 0;
}

/* ---- output rows ---- */

static gf_kernel_row *add_row(gf_hw_file *f, const char *name, long id, const char *gpu,
                              long line)
{
    size_t cap = f->rows.cap;
    gf_kernel_row *r = gf_report_add(&f->rows, name, id, gpu);
    if (!r)
        return NULL;
    if (f->rows.cap != cap || !f->lines) {
        long *p = realloc(f->lines, f->rows.cap * sizeof *p);
        if (!p) {
            f->rows.nrows--;
            return NULL;
        }
        f->lines = p;
    }
    f->lines[f->rows.nrows - 1] = line;
    return r;
}

/* Stores cell (of column `colname`, unit `unit`) into r->v per the mapping. unit NULL:
 * the cell carries its own unit ("7.65%", nvprof metric summary). */
static gf_status store(const char *path, long line, const char *colname, const char *cell,
                       const char *unit, colmap m, gf_kernel_row *r, gf_error *err)
{
    if (m.id < 0)
        return GF_OK;
    double v;
    char cell_unit[32];
    const gf_counter_def *d = gf_counter_def_of((gf_counter_id)m.id);
    if (strchr(cell, ';')) {
        /* Nsight Compute instanced metric ("32.00; 32.00; 4.00", e.g. inst_executed
         * per PC in the Pascal ncu CSV): the instances partition a count, so their
         * sum is the kernel's count; a rate cannot be recombined. */
        if (d->is_rate)
            return gf_error_set(err, GF_ERR_PARSE, path, line,
                                "column '%s': per-instance values cannot be combined into "
                                "the rate %s", colname, d->name);
        v = 0;
        char part[128];
        for (const char *p = cell; *p;) {
            size_t len = strcspn(p, ";");
            double x;
            snprintf(part, sizeof part, "%.*s", (int)(len < sizeof part ? len : sizeof part - 1), p);
            if (gf_hardware_parse_cell(part, &x, cell_unit, sizeof cell_unit) != 0) {
                char pb[96];
                return gf_error_set(err, GF_ERR_PARSE, path, line,
                                    "column '%s': expected numbers separated by ';', got '%s'",
                                    colname, gf_report_printable(part, pb, sizeof pb));
            }
            if (!isnan(x))
                v += x;
            p += len;
            if (*p == ';')
                p++;
        }
    } else if (gf_hardware_parse_cell(cell, &v, cell_unit, sizeof cell_unit) != 0 ||
               (cell_unit[0] && unit)) {
        /* a unit inside the cell only in nvprof's metric summary (unit == NULL) */
        char pb[96];
        return gf_error_set(err, GF_ERR_PARSE, path, line,
                            "column '%s': expected a number (or n/a), got '%s'", colname,
                            gf_report_printable(cell, pb, sizeof pb));
    }
    if (isnan(v))
        return GF_OK;
    double scale = m.scale;
    if (scale == 0) {
        const char *u = cell_unit[0] ? cell_unit : (unit ? unit : "");
        if (gf_counter_unit_scale(u, d->unit, &scale) != 0)
            return gf_error_set(err, GF_ERR_PARSE, path, line,
                                "column '%s': unit '%s' cannot be converted to %s (%s)",
                                colname, u, gf_counter_unit_name(d->unit), d->name);
    }
    v *= scale;
    if (m.add && !isnan(r->v[m.id]))
        r->v[m.id] += v;
    else
        r->v[m.id] = v;
    return GF_OK;
}

/* The row after a header is a units row when it has the header's width and no cell
 * is a number: ncu leaves the ID cell empty ("",...,"cycle","%"), nvprof's GPU trace
 * starts "us,us,,,...". */
static int is_units_row(const gf_csvrow *h, const gf_csvrow *r)
{
    if (r->nfields != h->nfields)
        return 0;
    for (size_t j = 0; j < r->nfields; j++) {
        const char *c = r->fields[j];
        char *end;
        if (!*c)
            continue;
        (void)strtod(c, &end);
        if (end != c)
            return 0;
    }
    return 1;
}

static long find_col(const gf_csvrow *h, const char *name)
{
    for (size_t j = 0; j < h->nfields; j++)
        if (strcmp(h->fields[j], name) == 0)
            return (long)j;
    return -1;
}

static gf_status missing_col(const char *path, long line, const char *name, const char *what,
                             gf_error *err)
{
    return gf_error_set(err, GF_ERR_PARSE, path, line,
                        "missing column '%s' in the %s header", name, what);
}

/* ---- Nsight Compute ---- */

static gf_status read_ncu(const gf_csvtable *t, gf_hw_file *f, gf_error *err)
{
    const char *path = f->path;
    size_t i = 0;
    while (i < t->nrows && !(t->rows[i].nfields > 1 && strcmp(t->rows[i].fields[0], "ID") == 0))
        i++;
    if (i == t->nrows)
        return gf_error_set(err, GF_ERR_PARSE, path, 1,
                            "no Nsight Compute header (a row starting with \"ID\")");
    const gf_csvrow *h = &t->rows[i++];
    long cname = find_col(h, "Kernel Name");
    if (cname < 0)
        return missing_col(path, h->line, "Kernel Name", "Nsight Compute", err);
    long cdev = find_col(h, "Device");
    if (cdev < 0)
        cdev = find_col(h, "device__attribute_display_name");
    long cmetric = find_col(h, "Metric Name");
    long cunit = find_col(h, "Metric Unit"), cval = find_col(h, "Metric Value");
    int details = cmetric >= 0;
    if (details && (cunit < 0 || cval < 0))
        return missing_col(path, h->line, cunit < 0 ? "Metric Unit" : "Metric Value",
                           "Nsight Compute --page details", err);
    const gf_csvrow *units = NULL;
    if (!details && i < t->nrows && t->rows[i].nfields && !t->rows[i].fields[0][0] &&
        is_units_row(h, &t->rows[i]))
        units = &t->rows[i++];
    colmap *maps = calloc(h->nfields, sizeof *maps);
    if (!maps)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t j = 0; j < h->nfields; j++)
        maps[j] = map_name(h->fields[j]);
    gf_status st = GF_OK;
    for (; i < t->nrows && st == GF_OK; i++) {
        const gf_csvrow *r = &t->rows[i];
        if (r->nfields != h->nfields) {
            st = gf_error_set(err, GF_ERR_PARSE, path, r->line,
                              "row has %zu fields, the header (line %ld) has %zu",
                              r->nfields, h->line, h->nfields);
            break;
        }
        double idv;
        char *end;
        idv = strtod(r->fields[0], &end);
        if (end == r->fields[0] || *end || !(idv >= 0 && idv < 1e15) || idv != floor(idv)) {
            char pb[96];
            st = gf_error_set(err, GF_ERR_PARSE, path, r->line,
                              "column 'ID': expected a kernel launch number, got '%s'",
                              gf_report_printable(r->fields[0], pb, sizeof pb));
            break;
        }
        long id = (long)idv + 1;
        const char *gpu = cdev >= 0 ? r->fields[cdev] : "";
        gf_kernel_row *k = NULL;
        if (details && f->rows.nrows && f->rows.rows[f->rows.nrows - 1].id == id)
            k = &f->rows.rows[f->rows.nrows - 1];
        else if (!(k = add_row(f, r->fields[cname], id, gpu, r->line))) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, r->line, "out of memory");
            break;
        }
        if (details) {
            colmap m = map_name(r->fields[cmetric]);
            st = store(path, r->line, r->fields[cmetric], r->fields[cval], r->fields[cunit],
                       m, k, err);
        } else {
            for (size_t j = 0; j < r->nfields && st == GF_OK; j++)
                st = store(path, r->line, h->fields[j], r->fields[j],
                           units ? units->fields[j] : "", maps[j], k, err);
        }
    }
    free(maps);
    return st;
}

/* ---- nvprof ---- */

static int row_is_noise(const gf_csvrow *r)
{
    return r->nfields == 0 || strncmp(r->fields[0], "==", 2) == 0;
}

static gf_status read_nvprof(const gf_csvtable *t, gf_hw_file *f, gf_error *err)
{
    const char *path = f->path;
    long ordinal = 0;
    int blocks = 0;
    gf_status st = GF_OK;
    for (size_t i = 0; i < t->nrows && st == GF_OK;) {
        const gf_csvrow *h = &t->rows[i];
        int metric_trace = h->nfields > 1 && strcmp(h->fields[0], "Device") == 0;
        int gpu_trace = h->nfields > 1 && strcmp(h->fields[0], "Start") == 0;
        if (!metric_trace && !gpu_trace) {
            i++;
            continue;
        }
        blocks++;
        i++;
        long ckernel = -1, cmetric = -1, cavg = -1, cdur = -1, cgrid = -1;
        if (metric_trace) {
            ckernel = find_col(h, "Kernel");
            if (ckernel < 0)
                return missing_col(path, h->line, "Kernel", "nvprof", err);
            cmetric = find_col(h, "Metric Name");
            if (cmetric >= 0 && (cavg = find_col(h, "Avg")) < 0)
                return missing_col(path, h->line, "Avg", "nvprof metric summary", err);
        } else {
            ckernel = find_col(h, "Name");
            cdur = find_col(h, "Duration");
            cgrid = find_col(h, "Grid X");
            if (ckernel < 0 || cdur < 0 || cgrid < 0)
                return missing_col(path, h->line,
                                   ckernel < 0 ? "Name" : cdur < 0 ? "Duration" : "Grid X",
                                   "nvprof GPU trace", err);
        }
        long cdev = find_col(h, "Device");
        const gf_csvrow *units = NULL;
        if (i < t->nrows && is_units_row(h, &t->rows[i]))
            units = &t->rows[i++];
        colmap *maps = calloc(h->nfields, sizeof *maps);
        if (!maps)
            return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
        for (size_t j = 0; j < h->nfields; j++)
            maps[j] = gpu_trace ? (colmap){(long)j == cdur ? (int)GF_C_TIME_NS : -1, 0, 0}
                                : cmetric >= 0 ? (colmap){-1, 0, 0} : map_name(h->fields[j]);
        size_t first_summary_row = f->rows.nrows;
        for (; i < t->nrows && st == GF_OK; i++) {
            const gf_csvrow *r = &t->rows[i];
            if (row_is_noise(r))
                break; /* end of this CSV block */
            if (r->nfields != h->nfields) {
                st = gf_error_set(err, GF_ERR_PARSE, path, r->line,
                                  "row has %zu fields, the header (line %ld) has %zu",
                                  r->nfields, h->line, h->nfields);
                break;
            }
            const char *gpu = cdev >= 0 ? r->fields[cdev] : "";
            if (gpu_trace) {
                if (r->fields[cgrid][0] == '\0')
                    continue; /* memcpy / memset rows */
                gf_kernel_row *k = add_row(f, r->fields[ckernel], ++ordinal, gpu, r->line);
                if (!k) {
                    st = gf_error_set(err, GF_ERR_NOMEM, path, r->line, "out of memory");
                    break;
                }
                st = store(path, r->line, "Duration", r->fields[cdur],
                           units ? units->fields[cdur] : "", maps[cdur], k, err);
            } else if (cmetric >= 0) {
                /* summary: one row per (kernel, metric); kernels in first-seen order */
                gf_kernel_row *k = NULL;
                for (size_t q = first_summary_row; q < f->rows.nrows; q++)
                    if (strcmp(f->rows.rows[q].name, r->fields[ckernel]) == 0)
                        k = &f->rows.rows[q];
                if (!k && !(k = add_row(f, r->fields[ckernel], ++ordinal, gpu, r->line))) {
                    st = gf_error_set(err, GF_ERR_NOMEM, path, r->line, "out of memory");
                    break;
                }
                st = store(path, r->line, r->fields[cmetric], r->fields[cavg], NULL,
                           map_name(r->fields[cmetric]), k, err);
            } else {
                gf_kernel_row *k = add_row(f, r->fields[ckernel], ++ordinal, gpu, r->line);
                if (!k) {
                    st = gf_error_set(err, GF_ERR_NOMEM, path, r->line, "out of memory");
                    break;
                }
                for (size_t j = 0; j < r->nfields && st == GF_OK; j++)
                    st = store(path, r->line, h->fields[j], r->fields[j],
                               units ? units->fields[j] : "", maps[j], k, err);
            }
        }
        free(maps);
    }
    if (st == GF_OK && !blocks)
        return gf_error_set(err, GF_ERR_PARSE, path, 1,
                            "no nvprof --csv table (a header row starting with \"Device\" or "
                            "\"Start\"); was nvprof run with --csv?");
    return st;
}

/* ---- Accel-Sim ---- */

/* GPGPU-Sim prints, after each kernel, gpu_sim_cycle / gpu_sim_insn for that kernel
 * but cache, DRAM and gpgpu_n_tot_* statistics as running totals over the whole run,
 * so a kernel's value is its total minus the previous kernel's. Mapping (documented in
 * docs/validation.md by examples/validate-vectoradd.sh):
 *   gpu_sim_cycle                      -> gpc__cycles_elapsed.max (core clock)
 *   gpu_sim_insn (thread instructions, the trace's predicate-on lanes) ->
 *     smsp__thread_inst_executed_pred_on.sum
 *   gpgpu_n_tot_w_icount               -> smsp__inst_executed.sum
 *   Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] / [HIT]
 *                                      -> L1 global load sectors / sector hits
 *   ... [GLOBAL_ACC_W], [LOCAL_ACC_R], [LOCAL_ACC_W] likewise for stores and local
 *   L2_cache_stats_breakdown[GLOBAL_ACC_R + LOCAL_ACC_R][TOTAL_ACCESS] / [HIT]
 *                                      -> lts__t_sectors_srcunit_tex_op_read(_lookup_hit)
 *   L2_cache_stats_breakdown[GLOBAL_ACC_W + LOCAL_ACC_W] -> ..._op_write(_lookup_hit)
 *   total dram reads / writes          -> dram__sectors_read / write.sum
 * The simulator counts a hit on a line with a pending fill (HIT_RESERVED) apart;
 * it is not added to hits. Breakdown lines that are absent count as 0. */
enum acc_key {
    A_WICOUNT,
    A_L1_GLD, A_L1_GLD_HIT, A_L1_GST, A_L1_GST_HIT,
    A_L1_LLD, A_L1_LLD_HIT, A_L1_LST, A_L1_LST_HIT,
    A_L2_GR, A_L2_GR_HIT, A_L2_LR, A_L2_LR_HIT,
    A_L2_GW, A_L2_GW_HIT, A_L2_LW, A_L2_LW_HIT,
    A_DRAM_RD, A_DRAM_WR,
    A_COUNT
};

static const struct acc_pat {
    const char *prefix;
    enum acc_key key;
} acc_pats[] = {
    {"gpgpu_n_tot_w_icount", A_WICOUNT},
    {"Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]", A_L1_GLD},
    {"Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]", A_L1_GLD_HIT},
    {"Total_core_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]", A_L1_GST},
    {"Total_core_cache_stats_breakdown[GLOBAL_ACC_W][HIT]", A_L1_GST_HIT},
    {"Total_core_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS]", A_L1_LLD},
    {"Total_core_cache_stats_breakdown[LOCAL_ACC_R][HIT]", A_L1_LLD_HIT},
    {"Total_core_cache_stats_breakdown[LOCAL_ACC_W][TOTAL_ACCESS]", A_L1_LST},
    {"Total_core_cache_stats_breakdown[LOCAL_ACC_W][HIT]", A_L1_LST_HIT},
    {"L2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]", A_L2_GR},
    {"L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]", A_L2_GR_HIT},
    {"L2_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS]", A_L2_LR},
    {"L2_cache_stats_breakdown[LOCAL_ACC_R][HIT]", A_L2_LR_HIT},
    {"L2_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]", A_L2_GW},
    {"L2_cache_stats_breakdown[GLOBAL_ACC_W][HIT]", A_L2_GW_HIT},
    {"L2_cache_stats_breakdown[LOCAL_ACC_W][TOTAL_ACCESS]", A_L2_LW},
    {"L2_cache_stats_breakdown[LOCAL_ACC_W][HIT]", A_L2_LW_HIT},
    {"total dram reads", A_DRAM_RD},
    {"total dram writes", A_DRAM_WR},
};

typedef struct acc_kernel {
    gf_kernel_row *row;
    long line;
    double cum[A_COUNT];
    int seen_l1, seen_l2, seen[A_COUNT];
} acc_kernel;

static void acc_finish(acc_kernel *k, double *prev)
{
    if (!k->row)
        return;
    double d[A_COUNT];
    for (int a = 0; a < A_COUNT; a++) {
        double cur = k->cum[a];
        int known = k->seen[a] || ((a >= A_L1_GLD && a <= A_L1_LST_HIT) ? k->seen_l1
                                   : (a >= A_L2_GR && a <= A_L2_LW_HIT) ? k->seen_l2 : 0);
        d[a] = known ? cur - prev[a] : NAN;
        if (known)
            prev[a] = cur;
    }
    double *v = k->row->v;
    v[GF_C_INST_EXECUTED] = d[A_WICOUNT];
    v[GF_C_L1_GLD_SECTORS] = d[A_L1_GLD];
    v[GF_C_L1_GLD_SECTOR_HITS] = d[A_L1_GLD_HIT];
    v[GF_C_L1_GST_SECTORS] = d[A_L1_GST];
    v[GF_C_L1_GST_SECTOR_HITS] = d[A_L1_GST_HIT];
    v[GF_C_L1_LLD_SECTORS] = d[A_L1_LLD];
    v[GF_C_L1_LLD_SECTOR_HITS] = d[A_L1_LLD_HIT];
    v[GF_C_L1_LST_SECTORS] = d[A_L1_LST];
    v[GF_C_L1_LST_SECTOR_HITS] = d[A_L1_LST_HIT];
    v[GF_C_L2_READ_SECTORS] = d[A_L2_GR] + d[A_L2_LR];
    v[GF_C_L2_READ_SECTOR_HITS] = d[A_L2_GR_HIT] + d[A_L2_LR_HIT];
    v[GF_C_L2_WRITE_SECTORS] = d[A_L2_GW] + d[A_L2_LW];
    v[GF_C_L2_WRITE_SECTOR_HITS] = d[A_L2_GW_HIT] + d[A_L2_LW_HIT];
    v[GF_C_DRAM_SECTORS_READ] = d[A_DRAM_RD];
    v[GF_C_DRAM_SECTORS_WRITE] = d[A_DRAM_WR];
    if (k->seen_l2)
        v[GF_C_L2_ATOM_SECTORS] = 0; /* atomics are not in the breakdown we read */
    gf_report_derive(k->row);
    if (k->seen_l2)
        v[GF_C_L2_ATOM_SECTORS] = NAN;
}

/* "key = value": returns 1 and the value on a match, 0 when the line is about
 * another key, -1 when the key matches but its value is not a finite number. */
static int kv(const char *line, const char *key, double *v)
{
    size_t kl = strlen(key);
    if (strncmp(line, key, kl) != 0)
        return 0;
    const char *p = line + kl;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '=')
        return 0;
    char *end;
    errno = 0;
    *v = strtod(p + 1, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == p + 1 || *end || errno == ERANGE || !isfinite(*v) || fabs(*v) > 1e18)
        return -1;
    return 1;
}

static gf_status read_accelsim(const char *path, gf_hw_file *f, gf_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    long lineno = 0;
    double prev[A_COUNT] = {0};
    acc_kernel k;
    memset(&k, 0, sizeof k);
    gf_status st = GF_OK;
    size_t kidx = 0;
    int have = 0;
    while (getline(&buf, &cap, in) > 0) {
        lineno++;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        s[strcspn(s, "\r\n")] = '\0';
        if (strncmp(s, "kernel_name = ", 14) == 0) {
            if (have) {
                k.row = &f->rows.rows[kidx];
                acc_finish(&k, prev);
            }
            memset(&k, 0, sizeof k);
            char name[512];
            snprintf(name, sizeof name, "%s", s + 14);
            size_t nl = strlen(name);
            while (nl && name[nl - 1] == ' ')
                name[--nl] = '\0';
            if (!add_row(f, name, (long)f->rows.nrows + 1, "", lineno)) {
                st = gf_error_set(err, GF_ERR_NOMEM, path, lineno, "out of memory");
                break;
            }
            kidx = f->rows.nrows - 1;
            have = 1;
            continue;
        }
        if (!have)
            continue;
        gf_kernel_row *row = &f->rows.rows[kidx];
        double v;
        int m = 0;
        const char *key = NULL;
        if ((m = kv(s, key = "kernel_launch_uid", &v)) > 0)
            row->id = (long)v;
        else if (!m && (m = kv(s, key = "gpu_sim_cycle", &v)) > 0)
            row->v[GF_C_GPC_CYCLES_ELAPSED] = v;
        else if (!m && (m = kv(s, key = "gpu_sim_insn", &v)) > 0)
            row->v[GF_C_THREAD_INST_EXECUTED_PRED_ON] = v;
        else if (!m && strncmp(s, "Total_core_cache_stats:", 23) == 0)
            k.seen_l1 = 1;
        else if (!m && strncmp(s, "L2_total_cache_breakdown:", 25) == 0)
            k.seen_l2 = 1;
        else if (!m) {
            for (size_t i = 0; i < sizeof acc_pats / sizeof acc_pats[0] && !m; i++)
                if ((m = kv(s, key = acc_pats[i].prefix, &v)) > 0) {
                    k.cum[acc_pats[i].key] = v;
                    k.seen[acc_pats[i].key] = 1;
                }
        }
        if (m < 0) {
            char pb[96];
            st = gf_error_set(err, GF_ERR_PARSE, path, lineno,
                              "%s: expected a number after '=', got '%s'", key,
                              gf_report_printable(s, pb, sizeof pb));
            break;
        }
    }
    if (st == GF_OK && have) {
        k.row = &f->rows.rows[kidx];
        acc_finish(&k, prev);
    }
    if (st == GF_OK && !have)
        st = gf_error_set(err, GF_ERR_PARSE, path, lineno,
                          "no 'kernel_name = ' line: not an Accel-Sim/GPGPU-Sim log of a "
                          "finished kernel");
    free(buf);
    fclose(in);
    return st;
}

/* ---- detection ---- */

static gf_hw_format sniff(const char *path, gf_error *err, gf_status *st)
{
    FILE *in = fopen(path, "r");
    *st = GF_OK;
    if (!in) {
        *st = gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
        return GF_HW_AUTO;
    }
    char line[4096];
    gf_hw_format fmt = GF_HW_AUTO;
    for (int n = 0; n < 400 && fmt == GF_HW_AUTO && fgets(line, sizeof line, in); n++) {
        if (strstr(line, "GPGPU-Sim") || strstr(line, "Accel-Sim") ||
            strncmp(line, "kernel_name = ", 14) == 0)
            fmt = GF_HW_ACCELSIM;
        else if (strncmp(line, "\"ID\",", 5) == 0 || strncmp(line, "ID,", 3) == 0)
            fmt = GF_HW_NCU;
        else if (strncmp(line, "\"Device\",", 9) == 0 || strncmp(line, "Device,", 7) == 0 ||
                 strncmp(line, "\"Start\",", 8) == 0 || strncmp(line, "Start,", 6) == 0 ||
                 strstr(line, "NVPROF"))
            fmt = GF_HW_NVPROF;
    }
    fclose(in);
    if (fmt == GF_HW_AUTO)
        *st = gf_error_set(err, GF_ERR_PARSE, path, 1,
                           "unrecognised counter file: expected a Nsight Compute CSV "
                           "(ncu --csv --page raw), an nvprof --csv log or CSV, or an "
                           "Accel-Sim log");
    return fmt;
}

gf_status gf_hardware_read(const char *path, gf_hw_format fmt, gf_hw_file *out, gf_error *err)
{
    memset(out, 0, sizeof *out);
    gf_report_init(&out->rows);
    snprintf(out->path, sizeof out->path, "%s", path);
    gf_status st = GF_OK;
    if (fmt == GF_HW_AUTO) {
        fmt = sniff(path, err, &st);
        if (st != GF_OK)
            return st;
    }
    out->format = fmt;
    if (fmt == GF_HW_ACCELSIM)
        return read_accelsim(path, out, err);
    gf_csvtable t;
    st = gf_csvtable_read(path, &t, err);
    if (st == GF_OK)
        st = fmt == GF_HW_NCU ? read_ncu(&t, out, err) : read_nvprof(&t, out, err);
    gf_csvtable_free(&t);
    if (st == GF_OK)
        for (size_t i = 0; i < out->rows.nrows; i++)
            gf_report_derive(&out->rows.rows[i]);
    return st;
}

void gf_hardware_free(gf_hw_file *f)
{
    if (!f)
        return;
    gf_report_free(&f->rows);
    free(f->lines);
    f->lines = NULL;
}
