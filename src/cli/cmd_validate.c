/* gpuforecast validate: predictions against hardware (or simulator) counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "validate/hardware.h"
#include "validate/validate.h"

static void help(void)
{
    fputs(
        "usage: gpuforecast validate PREDICTION.csv HARDWARE... [--format table|csv|json]\n"
        "                            [-o FILE] [--plot DIR]\n\n"
        "Compares predicted counters (the CSV of 'gpuforecast predict --format csv') with\n"
        "counters measured on a GPU or produced by another simulator. Each HARDWARE file\n"
        "is detected as one of:\n"
        "  Nsight Compute CSV   ncu --csv --page raw (or --page details) ...\n"
        "  nvprof               nvprof --csv --metrics ... [--print-gpu-trace] (log or CSV;\n"
        "                       metric summaries use the Avg column)\n"
        "  Accel-Sim log        stdout of accel-sim.out (a second opinion, not hardware)\n"
        "Kernels match by id and name, then by name in launch order; names match when\n"
        "equal or when their function names agree (mangled _Z6vecAddIfEv... = vecAdd).\n"
        "Ids: ncu ID + 1, n-th kernel of an nvprof file = n, Accel-Sim kernel_launch_uid.\n"
        "Unmatched kernels are listed. Several files for the same kernel (repeated runs)\n"
        "are averaged; min, max and count are shown.\n\n"
        "Errors: rates (%%, ratios) by mean absolute error (percentage points); counts and\n"
        "cycles by mean absolute percentage error; Pearson r over kernels (n/a for fewer\n"
        "than 2 kernels or zero variance).\n\n"
        "options:\n"
        "  --format F   table (default), csv or json\n"
        "  -o FILE      write to FILE (atomically) instead of stdout\n"
        "  --plot DIR   correlation plot per counter, DIR/<counter>.png and .svg\n"
        "  -h, --help   this help\n",
        stdout);
}

int gf_cmd_validate(int argc, char **argv)
{
    gf_format fmt = GF_FORMAT_TABLE;
    const char *outpath = NULL, *plotdir = NULL, *predpath = NULL;
    const char **hwpaths = calloc((size_t)argc + 1, sizeof *hwpaths);
    size_t nhw = 0;
    int rc = 0;
    if (!hwpaths) {
        fputs("gpuforecast: error: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            free(hwpaths);
            return 0;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || gf_cli_parse_format(v, &fmt) != 0) {
                free(hwpaths);
                return gf_cli_usage_error(argv[0], "--format needs table, csv or json");
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                   strcmp(a, "--plot") == 0) {
            if (i + 1 >= argc) {
                free(hwpaths);
                return gf_cli_usage_error(argv[0], "%s needs a value", a);
            }
            if (strcmp(a, "--plot") == 0)
                plotdir = argv[++i];
            else
                outpath = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            free(hwpaths);
            return gf_cli_usage_error(argv[0], "unknown option '%s'", a);
        } else if (!predpath) {
            predpath = a;
        } else {
            hwpaths[nhw++] = a;
        }
    }
    if (!predpath || !nhw) {
        free(hwpaths);
        return gf_cli_usage_error(argv[0], "need a prediction CSV and at least one "
                                           "hardware counter file");
    }
    if (nhw > GF_VALIDATE_MAX_FILES) {
        free(hwpaths);
        return gf_cli_usage_error(argv[0], "at most %d hardware files", GF_VALIDATE_MAX_FILES);
    }
#ifndef GF_WITH_PLOTS
    if (plotdir) {
        free(hwpaths);
        fputs("gpuforecast: error: --plot: plots were not built (PLplot not found at build "
              "time; install libplplot-dev and plplot-driver-cairo and rebuild)\n", stderr);
        return 1;
    }
#endif
    gf_error err;
    gf_error_clear(&err);
    gf_report pred;
    gf_hw_file *hw = calloc(nhw, sizeof *hw);
    gf_validation *v = NULL;
    gf_outfile *of = NULL;
    if (!hw) {
        free(hwpaths);
        fputs("gpuforecast: error: out of memory\n", stderr);
        return 1;
    }
    if (gf_report_read_csv(predpath, &pred, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    for (size_t i = 0; i < nhw; i++)
        if (gf_hardware_read(hwpaths[i], GF_HW_AUTO, &hw[i], &err) != GF_OK) {
            rc = gf_cli_error(&err);
            goto out;
        }
    if (gf_validate_run(&pred, hw, nhw, &v, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    if (v->nkernels == 0)
        gf_cli_warn("no predicted kernel matched a hardware kernel (see 'unmatched')");
    if (gf_outfile_open(outpath, &of, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    if (gf_validate_write(v, (gf_report_format)fmt, gf_outfile_stream(of), &err) != GF_OK) {
        gf_outfile_abort(of);
        rc = gf_cli_error(&err);
        goto out;
    }
    if (gf_outfile_commit(of, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    if (plotdir) {
        int n = 0;
        if (gf_validate_plot(v, plotdir, &n, &err) != GF_OK) {
            rc = gf_cli_error(&err);
            goto out;
        }
        fprintf(stderr, "gpuforecast: wrote %d plot(s) (PNG and SVG) to %s\n", n, plotdir);
    }
out:
    gf_validate_free(v);
    for (size_t i = 0; i < nhw; i++)
        gf_hardware_free(&hw[i]);
    free(hw);
    gf_report_free(&pred);
    free(hwpaths);
    return rc;
}
