/* gpuforecast sweep: design-space sweeps over a profile (predict/sweep.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_model.h"
#include "predict/sweep.h"
#include "util/atomic_file.h"

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
} sweep_ctx;

enum { EXTRA_VARY, EXTRA_MAX_CONFIGS };

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
    if (gf_sweep_run(&c->spec, p, gf_outfile_stream(f), &err) != GF_OK) {
        gf_outfile_blame(f, &err, errno);
        gf_outfile_abort(f);
        return gf_cli_error(&err);
    }
    return gf_outfile_commit(f, &err) == GF_OK ? 0 : gf_cli_error(&err);
}

int gf_cmd_sweep(int argc, char **argv)
{
    static const char *const names[] = {"vary", "max-configs", NULL};
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
