/* gpuforecast validate: predictions against hardware (or simulator) counters. */
#include <errno.h>
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
        "                            [-o FILE] [--plot DIR] [--loose] [--kernel-name NAME]\n"
        "                            [--launch-skip N] [--launch-count N]\n\n"
        "Compares predicted counters (the CSV of 'gpuforecast predict --format csv') with\n"
        "counters measured on a GPU or produced by another simulator. Each HARDWARE file\n"
        "is detected as one of:\n"
        "  Nsight Compute CSV   ncu --csv --page raw (or --page details) ...\n"
        "  nvprof               nvprof --csv --metrics ... [--print-gpu-trace] (log or CSV;\n"
        "                       metric summaries use the Avg column)\n"
        "  Accel-Sim log        stdout of accel-sim.out (a second opinion, not hardware)\n"
        "Launches pair by order within one full kernel name: mangled names are demangled,\n"
        "namespaces, template arguments and parameters compared (anonymous namespaces,\n"
        "Nsight's <unnamed>, and its T1, T2 template parameters understood); a bare name\n"
        "such as ncu's 'vecAdd' pairs with the one kernel of that function name. Launch ids\n"
        "are not used. A file holding k times the predicted launches of a name holds k\n"
        "runs: they are averaged (min, max and count shown), as are several files.\n"
        "An ambiguous pairing (one name fits several kernels), a mismatched one (the only\n"
        "kernel of that function name has other template arguments or parameters) or a\n"
        "partial one (launch counts that differ otherwise) is an error listing them;\n"
        "kernels measured or predicted but absent from the other side are listed as\n"
        "unmatched. Rules: docs/validation.md, \"Pairing\".\n\n"
        "Errors: rates (%, ratios) by mean absolute error (percentage points); counts and\n"
        "cycles by mean absolute percentage error; Pearson r over kernels (n/a for fewer\n"
        "than 2 kernels or zero variance).\n\n"
        "options:\n"
        "  --format F   table (default), csv or json\n"
        "  -o FILE      write to FILE (atomically) instead of stdout\n"
        "  --plot DIR   correlation plot per counter, DIR/<counter>.png and .svg, and per\n"
        "               kernel its warp stall stack beside the measured one,\n"
        "               DIR/stalls_kernel<id>_<name>.png and .svg\n"
        "  --loose      those pairings are warnings: an ambiguous name stays unmatched, a\n"
        "               mismatched one pairs by function name, a partial one pairs its\n"
        "               first launches in order\n"
        "  --kernel-name NAME, --launch-skip N, --launch-count N\n"
        "               the launches the profiler was told to profile, as ncu's -k, -s and\n"
        "               -c mean them: of the predicted launches whose function name is NAME\n"
        "               (or matches regex:EXPR; default all), skip N, then take N; the\n"
        "               others are left out of the comparison\n"
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
    gf_validate_options opt = {0, -1, NULL, 0};
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
        } else if (strcmp(a, "--loose") == 0) {
            opt.loose = 1;
        } else if (strcmp(a, "--kernel-name") == 0 || strcmp(a, "--launch-skip") == 0 ||
                   strcmp(a, "--launch-count") == 0) {
            if (i + 1 >= argc) {
                free(hwpaths);
                return gf_cli_usage_error(argv[0], "%s needs a value", a);
            }
            const char *val = argv[++i];
            if (strcmp(a, "--kernel-name") == 0) {
                if (!val[0]) {
                    free(hwpaths);
                    return gf_cli_usage_error(argv[0], "--kernel-name needs a name");
                }
                opt.kernel_name = val;
            } else {
                char *end;
                errno = 0;
                long n = strtol(val, &end, 10);
                if (end == val || *end || errno || n < 0) {
                    free(hwpaths);
                    return gf_cli_usage_error(argv[0], "%s needs a whole number >= 0, got "
                                              "'%s'", a, val);
                }
                if (strcmp(a, "--launch-skip") == 0)
                    opt.launch_skip = n;
                else
                    opt.launch_count = n;
            }
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
    if (gf_validate_run_opts(&pred, hw, nhw, &opt, &v, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    for (size_t i = 0; i < v->nwarnings; i++)
        gf_cli_warn("%s", v->warnings[i]);
    if (v->nkernels == 0)
        gf_cli_warn("no predicted kernel matched a hardware kernel (see 'unmatched')");
    if (gf_outfile_open(outpath, &of, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto out;
    }
    if (gf_validate_write(v, (gf_report_format)fmt, gf_outfile_stream(of), &err) != GF_OK) {
        gf_outfile_blame(of, &err, errno);
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
