/* gpuforecast sweep: design-space sweeps over a profile (predict/sweep.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_model.h"
#include "predict/sweep.h"
#include "report/csvtable.h"
#include "util/atomic_file.h"
#include "validate/validate.h"

static const char help[] =
    "usage: gpuforecast sweep TRACE|PROFILE --gpu NAME --vary KEY=V1,V2,... [options]\n"
    "\n"
    "Evaluates the cartesian product of the --vary lists (first --vary varies slowest) and\n"
    "writes one CSV row per (configuration, kernel): config, the varied values, kernel id\n"
    "and name, then every counter. A TRACE is profiled once first; the varied keys must\n"
    "be ones a profile can absorb (see 'gpuforecast profile --help'), e.g. l2.size,\n"
    "l2.ways, dram.bandwidth, l1.mshrs, l2.mshrs, dram.page_policy.\n"
    "\n"
    "options:\n"
    "  -g, --gpu NAME           base GPU model\n"
    "  -s, --set KEY=VALUE      fixed override applied to every configuration\n"
    "      --vary KEY=V1,V2,... one axis of the sweep (repeatable, up to 16)\n"
    "  -j, --jobs N             threads (default: all cores); output is identical for any N\n"
    "  -o, --output FILE        CSV file (atomically); default stdout\n"
    "      --max-configs N      refuse sweeps of more than N configurations (default\n"
    "                           1000000: about a minute and 335 MB of CSV a kernel)\n"
    "      --plot DIR           also draw each kernel's predicted warp stall stack along the\n"
    "                           sweep, one stacked bar per configuration (at most 100):\n"
    "                           DIR/sweep_stalls_kernel<id>_<name>.png and .svg, reasons in\n"
    "                           the colours of 'validate --plot' (docs/stalls.md). Needs a\n"
    "                           build with PLplot (optional: without it --plot is an error)\n"
    "  -q, --quiet              do not state the sweep's size on stderr first\n"
    "      --models DIR, --exact, --scheduler, --unknown-opcode as in predict\n"
    "\n"
    "Before running, the number of configurations and rows and the estimated CSV size and\n"
    "time are stated on stderr; nothing is written until every --vary value has been\n"
    "checked and the first configuration has run. -o FILE follows symlinks, writes into a\n"
    "device or FIFO in place, keeps an existing file's mode, and leaves no temporary\n"
    "FILE.tmpXXXXXX behind on an error or when a signal ends it (SIGINT, TERM, HUP, QUIT,\n"
    "PIPE, ALRM, XCPU, XFSZ, USR1, USR2, VTALRM or PROF; SIGKILL cannot be caught and\n"
    "leaves it).\n";

typedef struct sweep_ctx {
    gf_sweep_spec spec;
    char *owned[GF_SWEEP_MAX_AXES];
    const char **vals[GF_SWEEP_MAX_AXES];
    const char *cmd;
    unsigned long long max_configs;
    const char *plotdir; /* --plot DIR, or NULL */
} sweep_ctx;

enum { EXTRA_VARY, EXTRA_MAX_CONFIGS, EXTRA_PLOT };

static int parse_max_configs(sweep_ctx *c, const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    /* Up to 2^40, the most gf_sweep_count counts. */
    if (arg[0] < '0' || arg[0] > '9' || *end || errno || v < 1 || v > (1ull << 40))
        return gf_cli_usage_error(c->cmd, "--max-configs takes a number from 1 to %llu, not '%s'",
                                  1ull << 40, arg);
    c->max_configs = v;
    return 0;
}

static int extra(int opt, const char *arg, void *p)
{
    sweep_ctx *c = p;
    if (opt == EXTRA_MAX_CONFIGS)
        return parse_max_configs(c, arg);
    if (opt == EXTRA_PLOT) {
        if (!*arg)
            return gf_cli_usage_error(c->cmd, "--plot takes a directory");
        c->plotdir = arg;
        return 0;
    }
    if (c->spec.naxes == GF_SWEEP_MAX_AXES)
        return gf_cli_usage_error(c->cmd, "at most %d --vary axes", GF_SWEEP_MAX_AXES);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return gf_cli_usage_error(c->cmd, "--vary takes KEY=V1,V2,..., got '%s'", arg);
    unsigned a = c->spec.naxes;
    char *copy = strdup(arg);
    if (!copy)
        return 1;
    c->owned[a] = copy;
    copy[eq - arg] = 0;
    unsigned n = 1;
    for (const char *q = eq + 1; *q; q++)
        n += *q == ',';
    c->vals[a] = calloc(n, sizeof(char *));
    if (!c->vals[a])
        return 1;
    /* split on every comma: an empty value (k=1,,2 or a trailing comma) is an error,
     * not dropped */
    unsigned k = 0;
    for (char *tok = copy + (eq - arg) + 1;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        if (!*tok)
            return gf_cli_usage_error(c->cmd, "--vary %s: value %u of '%s' is empty", copy,
                                      k + 1, eq + 1);
        c->vals[a][k++] = tok;
        if (!comma)
            break;
        tok = comma + 1;
    }
    c->spec.axes[a].key = copy;
    c->spec.axes[a].values = c->vals[a];
    c->spec.axes[a].nvalues = k;
    c->spec.naxes++;
    return 0;
}

/* Before any model or trace is read: a sweep past the limit is refused at once. */
static int check_limit(const sweep_ctx *c)
{
    unsigned long long n = gf_sweep_count(&c->spec);
    gf_error err;
    gf_error_clear(&err);
    if (n == 0)
        for (unsigned a = 0; a < c->spec.naxes; a++)
            if (c->spec.axes[a].nvalues == 0)
                return -1; /* empty list: gf_sweep_run names it */
    if (n == 0) {
        gf_error_set(&err, GF_ERR_INVALID, "", 0,
                     "the sweep has more than %llu configurations (the product of the --vary "
                     "lists); at most %llu can be run",
                     1ull << 40, 1ull << 40);
        return gf_cli_error(&err);
    }
    if (c->plotdir && n > GF_PLOT_SWEEP_MAX_BARS)
        return gf_cli_usage_error(c->cmd,
                                  "--plot draws one bar per configuration, at most %d; this "
                                  "sweep has %llu",
                                  GF_PLOT_SWEEP_MAX_BARS, n);
    if (n <= c->max_configs)
        return -1;
    gf_error_set(&err, GF_ERR_INVALID, "", 0,
                 "the sweep has %llu configurations (the product of the --vary lists), more "
                 "than the limit of %llu; pass --max-configs %llu to run it anyway",
                 n, c->max_configs, n);
    return gf_cli_error(&err);
}

static void human_bytes(unsigned long long b, char *buf, size_t n)
{
    static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1000.0 && u < 5) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, n, u ? "%.3g %s" : "%.0f %s", v, unit[u]);
}

static void human_seconds(double s, char *buf, size_t n)
{
    if (s < 1)
        snprintf(buf, n, "under a second");
    else if (s < 60)
        snprintf(buf, n, "%.2g s", s);
    else if (s < 3600)
        snprintf(buf, n, "%.2g min", s / 60);
    else
        snprintf(buf, n, "%.3g h", s / 3600);
}

/* The size of what is about to run, on stderr, before any of it is written. */
static void state_plan(const gf_sweep_plan *pl, unsigned threads)
{
    char bytes[32], secs[32];
    human_bytes(pl->bytes, bytes, sizeof bytes);
    human_seconds(pl->seconds, secs, sizeof secs);
    fprintf(stderr,
            "gpuforecast: sweep: %llu configurations, %llu CSV rows, about %s of CSV, %s on "
            "%u thread%s (estimated)\n",
            pl->configs, pl->rows, bytes, secs, threads, threads == 1 ? "" : "s");
}

/* Index of column name in the header, or -1. */
static long column(const gf_csvrow *h, const char *name)
{
    for (size_t i = 0; i < h->nfields; i++)
        if (strcmp(h->fields[i], name) == 0)
            return (long)i;
    return -1;
}

/* --plot: each kernel's stall stack along the sweep, from the sweep's own CSV (read back
 * from csv, which holds it whole), so the plot shows exactly the numbers written. */
static gf_status plot_sweep(const sweep_ctx *c, FILE *csv, int *nplots, gf_error *err)
{
    const char *src = "the sweep's CSV";
    gf_csvtable t;
    *nplots = 0;
    rewind(csv);
    gf_status st = gf_csvtable_read_stream(csv, src, &t, err);
    if (st != GF_OK) {
        gf_csvtable_free(&t);
        return st;
    }
    enum { NR = GF_PLOT_STALL_REASONS };
    long col[NR], kid_col = -1, kname_col = -1;
    if (t.nrows > 0) {
        kid_col = column(&t.rows[0], "kernel_id");
        kname_col = column(&t.rows[0], "kernel_name");
    }
    for (int r = 0; r < NR && kid_col >= 0; r++) {
        const char *name = gf_counter_def_of((gf_counter_id)(GF_C_STALL_FIRST + r))->name;
        if ((col[r] = column(&t.rows[0], name)) < 0) {
            st = gf_error_set(err, GF_ERR_PARSE, src, 1, "no column %s", name);
            break;
        }
    }
    if (st == GF_OK && (kid_col < 0 || kname_col < 0))
        st = gf_error_set(err, GF_ERR_PARSE, src, 1, "no kernel_id or kernel_name column");
    size_t nrows = t.nrows ? t.nrows - 1 : 0;
    double *ratios = calloc(nrows ? nrows * NR : 1, sizeof *ratios);
    char **labels = calloc(nrows ? nrows : 1, sizeof *labels);
    const char **lab = calloc(nrows ? nrows : 1, sizeof *lab);
    char *done = calloc(nrows ? nrows : 1, 1);
    char xtitle[512] = "";
    for (unsigned a = 0; a < c->spec.naxes; a++)
        snprintf(xtitle + strlen(xtitle), sizeof xtitle - strlen(xtitle), "%s%s",
                 a ? " / " : "", c->spec.axes[a].key);
    if (st == GF_OK && (!ratios || !labels || !lab || !done))
        st = gf_error_set(err, GF_ERR_NOMEM, src, 0, "out of memory");
    /* rows are (configuration, kernel), configurations in order: one kernel at a time */
    for (size_t first = 1; first < t.nrows && st == GF_OK; first++) {
        if (done[first - 1])
            continue;
        const gf_csvrow *k0 = &t.rows[first];
        if (k0->nfields <= (size_t)kname_col) {
            st = gf_error_set(err, GF_ERR_PARSE, src, k0->line, "short row");
            break;
        }
        int nb = 0;
        for (size_t i = first; i < t.nrows && st == GF_OK; i++) {
            const gf_csvrow *row = &t.rows[i];
            if (done[i - 1] || row->nfields <= (size_t)kname_col ||
                strcmp(row->fields[kid_col], k0->fields[kid_col]) != 0)
                continue;
            done[i - 1] = 1;
            for (int r = 0; r < NR; r++) {
                const char *f = (size_t)col[r] < row->nfields ? row->fields[col[r]] : "";
                char *end;
                double v = strtod(f, &end);
                ratios[(size_t)nb * NR + r] = *f && !*end ? v : NAN;
            }
            /* the configuration's values: columns 1 .. naxes */
            size_t len = 1;
            for (unsigned a = 0; a < c->spec.naxes && a + 1 < row->nfields; a++)
                len += strlen(row->fields[a + 1]) + 1;
            labels[nb] = malloc(len);
            if (!labels[nb]) {
                st = gf_error_set(err, GF_ERR_NOMEM, src, 0, "out of memory");
                break;
            }
            labels[nb][0] = 0;
            for (unsigned a = 0; a < c->spec.naxes && a + 1 < row->nfields; a++) {
                if (a)
                    strcat(labels[nb], "/");
                strcat(labels[nb], row->fields[a + 1]);
            }
            lab[nb] = labels[nb];
            nb++;
        }
        if (st == GF_OK) {
            long kid = strtol(k0->fields[kid_col], NULL, 10);
            st = gf_plot_sweep_stalls(c->plotdir, kid, k0->fields[kname_col], nb, lab, xtitle,
                                      ratios, err);
            if (st == GF_OK)
                (*nplots)++;
        }
        for (int i = 0; i < nb; i++) {
            free(labels[i]);
            labels[i] = NULL;
        }
    }
    free(ratios);
    free(labels);
    free(lab);
    free(done);
    gf_csvtable_free(&t);
    return st;
}

/* Copies the whole of in (rewound) to out. */
static int copy_stream(FILE *in, FILE *out)
{
    char buf[65536];
    size_t n;
    rewind(in);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            return -1;
    return ferror(in) ? -1 : 0;
}

static int run(sweep_ctx *c, const gf_model_args *a, const gf_profile *p)
{
    gf_error err;
    gf_error_clear(&err);
    gf_sweep_plan plan;
    if (gf_sweep_plan_make(&c->spec, p, &plan, &err) != GF_OK)
        return gf_cli_error(&err);
    if (!a->quiet)
        state_plan(&plan, c->spec.threads);
    /* A sweep can run for long with FILE.tmpXXXXXX open: remove it if interrupted
     * (main installed the handlers for every command; this keeps the guarantee local). */
    if (gf_outfile_catch_signals(&err) != GF_OK)
        return gf_cli_error(&err);
    gf_outfile *f;
    if (gf_outfile_open(a->output, &f, &err) != GF_OK)
        return gf_cli_error(&err);
    /* --plot: the CSV goes to a temporary file first, to be read back for the plots (at
     * most GF_PLOT_SWEEP_MAX_BARS configurations), then copied to the output */
    FILE *tmp = NULL;
    if (c->plotdir && !(tmp = tmpfile())) {
        gf_error_set(&err, GF_ERR_IO, "", 0, "--plot: cannot create a temporary file: %s",
                     strerror(errno));
        gf_outfile_abort(f);
        return gf_cli_error(&err);
    }
    gf_status st = gf_sweep_run(&c->spec, p, tmp ? tmp : gf_outfile_stream(f), &err);
    if (st == GF_OK && tmp && fflush(tmp) != 0)
        st = gf_error_set(&err, GF_ERR_IO, "", 0, "--plot: cannot write the temporary file: %s",
                          strerror(errno));
    else if (st != GF_OK && tmp && !err.file[0] && ferror(tmp))
        gf_error_set(&err, GF_ERR_IO, "", 0, "--plot: cannot write the temporary file: %s",
                     strerror(errno));
    else if (st != GF_OK)
        gf_outfile_blame(f, &err, errno);
    if (st == GF_OK && tmp && copy_stream(tmp, gf_outfile_stream(f)) != 0) {
        st = gf_error_set(&err, GF_ERR_IO, "", 0, "write error");
        gf_outfile_blame(f, &err, errno);
    }
    if (st != GF_OK) {
        gf_outfile_abort(f);
        if (tmp)
            fclose(tmp);
        return gf_cli_error(&err);
    }
    if (gf_outfile_commit(f, &err) != GF_OK) {
        if (tmp)
            fclose(tmp);
        return gf_cli_error(&err);
    }
    if (!tmp)
        return 0;
    int nplots;
    st = plot_sweep(c, tmp, &nplots, &err);
    fclose(tmp);
    if (st != GF_OK)
        return gf_cli_error(&err);
    if (!a->quiet)
        fprintf(stderr, "gpuforecast: wrote %d sweep stall plot(s) (PNG and SVG) to %s\n",
                nplots, c->plotdir);
    return 0;
}

int gf_cmd_sweep(int argc, char **argv)
{
    static const char *const names[] = {"vary", "max-configs", "plot", NULL};
    sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.cmd = argv[0];
    c.max_configs = GF_SWEEP_MAX_CONFIGS_DEFAULT;
    gf_model_args a;
    int rc = gf_model_args_parse(argc, argv, help, &a, extra, &c, names);
    if (rc < 0 && (a.npositional != 1 || !a.gpu_name || c.spec.naxes == 0))
        rc = gf_cli_usage_error(argv[0], "expected TRACE|PROFILE, --gpu NAME and --vary");
    if (rc < 0)
        rc = gf_model_args_check_profile(&a, argv[0]);
#ifndef GF_WITH_PLOTS
    if (rc < 0 && c.plotdir) {
        fputs("gpuforecast: error: --plot: plots were not built (PLplot not found at build "
              "time; install libplplot-dev and plplot-driver-cairo and rebuild)\n", stderr);
        rc = 1;
    }
#endif
    if (rc < 0)
        rc = check_limit(&c);
    gf_gpu gpu;
    if (rc < 0 && (rc = gf_model_args_load_gpu(&a, &gpu)) == 0)
        rc = -1;
    gf_profile *p = NULL;
    gf_error err;
    gf_error_clear(&err);
    if (rc < 0) {
        gf_status st = gf_profile_is_profile(a.positional[0])
                           ? gf_profile_load(a.positional[0], &p, &err)
                           : gf_profile_build(a.positional[0], &gpu, &a.popt, &p, &err);
        gf_model_args_progress_end(&a);
        if (st != GF_OK)
            rc = gf_cli_error(&err);
    }
    if (rc < 0) {
        c.spec.threads = a.jobs;
        c.spec.gpu_name = a.gpu_name;
        c.spec.models_dir = a.models_dir;
        c.spec.sets = a.sets.items;
        c.spec.nsets = a.sets.count;
        rc = run(&c, &a, p);
    }
    gf_profile_free(p);
    for (unsigned i = 0; i < GF_SWEEP_MAX_AXES; i++) {
        free(c.owned[i]);
        free(c.vals[i]);
    }
    gf_model_args_free(&a);
    return rc;
}
