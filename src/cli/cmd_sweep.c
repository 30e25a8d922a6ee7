/* gpuforecast sweep: design-space sweeps over a profile (timing/sweep.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_model.h"
#include "timing/sweep.h"
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
    "      --models DIR, --exact, --scheduler, --unknown-opcode as in predict\n";

typedef struct sweep_ctx {
    gf_sweep_spec spec;
    char *owned[GF_SWEEP_MAX_AXES];
    const char **vals[GF_SWEEP_MAX_AXES];
    const char *cmd;
} sweep_ctx;

static int extra(int opt, const char *arg, void *p)
{
    sweep_ctx *c = p;
    (void)opt; /* the only extra option: --vary */
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
    unsigned k = 0;
    for (char *tok = strtok(copy + (eq - arg) + 1, ","); tok; tok = strtok(NULL, ","))
        c->vals[a][k++] = tok;
    if (k == 0)
        return gf_cli_usage_error(c->cmd, "--vary %s has no values", copy);
    c->spec.axes[a].key = copy;
    c->spec.axes[a].values = c->vals[a];
    c->spec.axes[a].nvalues = k;
    c->spec.naxes++;
    return 0;
}

int gf_cmd_sweep(int argc, char **argv)
{
    static const char *const names[] = {"vary", NULL};
    sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.cmd = argv[0];
    gf_model_args a;
    int rc = gf_model_args_parse(argc, argv, help, &a, extra, &c, names);
    if (rc < 0 && (a.npositional != 1 || !a.gpu_name || c.spec.naxes == 0))
        rc = gf_cli_usage_error(argv[0], "expected TRACE|PROFILE, --gpu NAME and --vary");
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
        gf_outfile *f;
        if (gf_outfile_open(a.output, &f, &err) != GF_OK)
            rc = gf_cli_error(&err);
        else if (gf_sweep_run(&c.spec, p, gf_outfile_stream(f), &err) != GF_OK) {
            gf_outfile_abort(f);
            rc = gf_cli_error(&err);
        } else
            rc = gf_outfile_commit(f, &err) == GF_OK ? 0 : gf_cli_error(&err);
    }
    gf_profile_free(p);
    for (unsigned i = 0; i < GF_SWEEP_MAX_AXES; i++) {
        free(c.owned[i]);
        free(c.vals[i]);
    }
    gf_model_args_free(&a);
    return rc;
}
