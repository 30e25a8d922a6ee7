#include "cli/cli_model.h"

#include <errno.h>
#include <getopt.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "predict/profile.h"
#include "report/report.h"
#include "trace/trace.h"
#include "util/atomic_file.h"
#include "util/error.h"

static void warn_unknown(void *ctx, const char *opcode, const char *file, long line)
{
    (void)ctx;
    gf_cli_warn("%s:%ld: unknown opcode '%s' treated as an ALU instruction "
                "(--unknown-opcode=alu)",
                file, line, opcode);
}

static void warn_header(void *ctx, const char *file, const char *message)
{
    (void)ctx;
    gf_cli_warn("%s: %s", file, message);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Progress on stderr: only on a terminal, only once a run has taken a second, at most
 * five updates a second; --quiet turns it off. */
static void show_progress(void *ctx, const char *kernel, uint64_t done, uint64_t total)
{
    struct gf_progress_state *p = ctx;
    double t = now_seconds();
    if (t - p->start < 1.0 || (t - p->last < 0.2 && done < total))
        return;
    p->last = t;
    p->shown = 1;
    fprintf(stderr, "\r\033[Kgpuforecast: %.40s: block %llu of %llu (%.0f %%), %.0f s", kernel,
            (unsigned long long)done, (unsigned long long)total,
            total ? 100.0 * (double)done / (double)total : 0.0, t - p->start);
    fflush(stderr);
}

void gf_model_args_progress_end(gf_model_args *a)
{
    if (a->progress.shown)
        fputs("\r\033[K", stderr);
    a->progress.shown = 0;
}

enum { OPT_MODELS = 1000, OPT_EXACT, OPT_SCHED, OPT_UNKNOWN, OPT_QUIET, OPT_JOBS, OPT_HOLD, OPT_COLD, OPT_PARTIAL, OPT_NO_SPIN, OPT_EXTRA0 };

/* The options every model command takes, then extra_names (OPT_EXTRA0 + i, with a value),
 * then the terminating zero entry; opts has room for 32. */
static void fill_options(struct option *opts, const char *const *extra_names)
{
    static const struct option common[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"models", required_argument, NULL, OPT_MODELS},
        {"exact", no_argument, NULL, OPT_EXACT},
        {"scheduler", required_argument, NULL, OPT_SCHED},
        {"unknown-opcode", required_argument, NULL, OPT_UNKNOWN},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {"jobs", required_argument, NULL, 'j'},
        {"hold", required_argument, NULL, OPT_HOLD},
        {"cold", no_argument, NULL, OPT_COLD},
        {"partial", no_argument, NULL, OPT_PARTIAL},
        {"no-spin-collapse", no_argument, NULL, OPT_NO_SPIN},
    };
    int n = (int)(sizeof common / sizeof common[0]);
    memcpy(opts, common, sizeof common);
    for (int i = 0; extra_names && extra_names[i] && n < 30; i++, n++) {
        opts[n].name = extra_names[i];
        opts[n].has_arg = required_argument;
        opts[n].flag = NULL;
        opts[n].val = OPT_EXTRA0 + i;
    }
    opts[n] = (struct option){0};
}

/* --jobs N and --hold SIZE: values checked and stored. -1 = taken, else the exit code. */
static int take_number_option(int c, const char *cmd, gf_model_args *a)
{
    if (c == 'j') {
        char *end;
        long jobs = strtol(optarg, &end, 10);
        if (*end || jobs < 1 || jobs > 1024)
            return gf_cli_usage_error(cmd, "--jobs takes a number from 1 to 1024, not '%s'",
                                      optarg);
        a->jobs = (unsigned)jobs;
        return -1;
    }
    const char *why = NULL;
    uint64_t v;
    if (gf_gpu_parse_size(optarg, &v, &why) != 0)
        return gf_cli_usage_error(cmd, "--hold takes a size such as 512MiB or 0, not "
                                  "'%s' (%s)", optarg, why ? why : "not a size");
    a->popt.ksim.hold_bytes = v;
    return -1;
}

/* One option getopt_long returned (c, with optarg). -1 = taken, go on; else the exit
 * code (0 after --help, 2 on a usage error, already printed). */
static int take_option(int c, char **argv, const char *help, gf_model_args *a,
                       int (*extra)(int opt, const char *arg, void *ctx), void *ctx)
{
    const char *cmd = argv[0];
    switch (c) {
    case 'g': a->gpu_name = optarg; break;
    case 's':
        if (gf_setlist_add(&a->sets, optarg) != 0)
            return gf_cli_usage_error(cmd, "--set takes key=value, got '%s'", optarg);
        break;
    case 'f':
        if (gf_cli_parse_format(optarg, &a->format) != 0)
            return gf_cli_usage_error(cmd, "--format must be table, csv or json, not '%s'",
                                      optarg);
        break;
    case 'o': a->output = optarg; break;
    case 'j':
    case OPT_HOLD: return take_number_option(c, cmd, a);
    case OPT_MODELS: a->models_dir = optarg; break;
    case OPT_EXACT: a->popt.mode = GF_HIER_EXACT; break;
    case OPT_COLD: a->popt.cold = 1; break;
    case OPT_PARTIAL: a->partial = 1; break;
    case OPT_NO_SPIN: a->popt.ksim.no_spin_collapse = 1; break;
    case OPT_SCHED:
        /* A shorthand for --set sm.warp_scheduler=...: the model file's choice is
         * the default. */
        if (strcmp(optarg, "gto") == 0)
            gf_setlist_add(&a->sets, "sm.warp_scheduler=gto");
        else if (strcmp(optarg, "lrr") == 0)
            gf_setlist_add(&a->sets, "sm.warp_scheduler=lrr");
        else
            return gf_cli_usage_error(cmd, "--scheduler must be gto or lrr, not '%s'",
                                      optarg);
        break;
    case OPT_UNKNOWN:
        if (strcmp(optarg, "error") == 0)
            a->popt.ksim.unknown = GF_UNKNOWN_ERROR;
        else if (strcmp(optarg, "alu") == 0)
            a->popt.ksim.unknown = GF_UNKNOWN_ALU;
        else
            return gf_cli_usage_error(cmd, "--unknown-opcode must be error or alu, not '%s'",
                                      optarg);
        break;
    case 'q':
    case OPT_QUIET: a->quiet = 1; break;
    case 'h': fputs(help, stdout); return 0;
    case ':':
        if (optopt && optopt < 256)
            return gf_cli_usage_error(cmd, "option '-%c' needs a value", optopt);
        return gf_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    case '?':
        if (optopt && optopt < 256)
            return gf_cli_usage_error(cmd, "unknown option '-%c'", optopt);
        return gf_cli_usage_error(cmd, "unknown option or unexpected value '%s'",
                                  argv[optind - 1]);
    default:
        if (c >= OPT_EXTRA0 && extra) { /* (its nonzero returns are exit codes, > 0) */
            int rc = extra(c - OPT_EXTRA0, optarg, ctx);
            if (rc)
                return rc;
            break;
        }
        return gf_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    return -1;
}

int gf_model_args_parse(int argc, char **argv, const char *help, gf_model_args *a,
                        int (*extra)(int opt, const char *arg, void *ctx), void *ctx,
                        const char *const *extra_names)
{
    memset(a, 0, sizeof *a);
    a->popt.ksim.unknown = GF_UNKNOWN_ERROR;
    a->popt.ksim.hold_bytes = GF_KSIM_HOLD_DEFAULT;
    a->popt.ksim.warn_unknown = warn_unknown;
    a->popt.ksim.warn_header = warn_header;
    a->popt.mode = GF_HIER_REUSE;
    struct option opts[32];
    fill_options(opts, extra_names);
    const char *cmd = argv[0];
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":g:s:f:o:hqj:", opts, NULL)) != -1) {
        int rc = take_option(c, argv, help, a, extra, ctx);
        if (rc >= 0)
            return rc;
    }
    for (int i = optind; i < argc; i++) {
        if (a->npositional == sizeof a->positional / sizeof a->positional[0])
            return gf_cli_usage_error(cmd, "too many arguments");
        a->positional[a->npositional++] = argv[i];
    }
    a->popt.models_dir = a->models_dir;
    a->popt.ksim.partial = a->partial;
    if (!a->jobs) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        a->jobs = ncpu > 0 ? (unsigned)ncpu : 1;
    }
    /* All cores unless asked: on the 2-core machine of bench/README.md -j 2 is 10-20 %
     * faster than -j 1 on memory-bound traces and as fast on the others (reading the
     * trace stays on one thread). More cores are not measured yet. */
    a->popt.ksim.threads = a->jobs;
    if (!a->quiet && isatty(STDERR_FILENO)) {
        a->progress.start = a->progress.last = now_seconds();
        a->popt.ksim.progress = show_progress;
        a->popt.ksim.progress_ctx = &a->progress;
    }
    return -1;
}

void gf_cli_gpu_load_failed(const char *name, gf_error *err)
{
    size_t n = name ? strlen(name) : 0;
    if (!n || (!strchr(name, '/') && !(n > 4 && strcmp(name + n - 4, ".ini") == 0)))
        return; /* a model name, not a path (gf_gpu_load's rule) */
    FILE *fp = fopen(name, "r");
    if (!fp)
        return;
    int c, blank = 1;
    for (long i = 0; blank && i < 65536 && (c = getc(fp)) != EOF; i++)
        blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    int bad = ferror(fp);
    fclose(fp);
    if (blank && !bad)
        gf_error_set(err, GF_ERR_PARSE, name, 0,
                     "empty file: not a GPU model (expected an .ini file with [gpu], [sm], "
                     "[l1], [l2], [dram] ... sections, as models/*.ini; 'gpuforecast gpus' "
                     "lists the shipped models)");
}

int gf_model_args_load_gpu(const gf_model_args *a, gf_gpu *gpu)
{
    gf_error err;
    gf_error_clear(&err);
    if (gf_gpu_load(a->gpu_name, a->models_dir, a->sets.items, a->sets.count, gpu, &err) != GF_OK) {
        gf_cli_gpu_load_failed(a->gpu_name, &err);
        return gf_cli_error(&err);
    }
    return 0;
}

void gf_model_args_free(gf_model_args *a)
{
    gf_model_args_progress_end(a);
    gf_setlist_free(&a->sets);
}

int gf_model_args_write_report(const gf_model_args *a, const gf_report *r)
{
    gf_error err;
    gf_error_clear(&err);
    gf_outfile *f;
    if (gf_outfile_open(a->output, &f, &err) != GF_OK)
        return gf_cli_error(&err);
    if (gf_report_write(r, (gf_report_format)a->format, gf_outfile_stream(f), &err) != GF_OK) {
        gf_outfile_blame(f, &err, errno);
        gf_outfile_abort(f);
        return gf_cli_error(&err);
    }
    if (gf_outfile_commit(f, &err) != GF_OK)
        return gf_cli_error(&err);
    return 0;
}

int gf_model_args_check_profile(const gf_model_args *a, const char *cmd)
{
    if (a->npositional == 1 && gf_profile_is_profile(a->positional[0]) &&
        (a->popt.mode == GF_HIER_EXACT || a->popt.cold || a->partial ||
         a->popt.ksim.no_spin_collapse ||
         a->popt.ksim.unknown != GF_UNKNOWN_ERROR))
        return gf_cli_usage_error(cmd, "--exact, --cold, --partial, --unknown-opcode and "
                                       "--no-spin-collapse act "
                                       "when a trace is profiled, not on a saved profile");
    return -1;
}

int gf_model_args_setup(int argc, char **argv, const char *help, gf_model_args *a,
                        const char *what, int need_output, int allow_profile, gf_gpu *gpu)
{
    int rc = gf_model_args_parse(argc, argv, help, a, NULL, NULL, NULL);
    if (rc < 0 && a->npositional != 1)
        rc = gf_cli_usage_error(argv[0], "expected one %s argument", what);
    else if (rc < 0 && !a->gpu_name)
        rc = gf_cli_usage_error(argv[0], "--gpu NAME is required (see 'gpuforecast gpus')");
    else if (rc < 0 && need_output && !a->output)
        rc = gf_cli_usage_error(argv[0], "-o FILE is required");
    else if (rc < 0 && !allow_profile && gf_profile_is_profile(a->positional[0]))
        rc = gf_cli_usage_error(argv[0], "%s is a saved profile; this command needs a trace",
                                a->positional[0]);
    else if (rc < 0)
        rc = gf_model_args_check_profile(a, argv[0]);
    if (rc < 0)
        rc = gf_model_args_load_gpu(a, gpu) ? 1 : -1;
    if (rc >= 0)
        gf_model_args_free(a);
    return rc;
}
