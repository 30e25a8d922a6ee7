/* gpuforecast predict: the main command (predict/predict.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_model.h"
#include "predict/profile.h"
#include "report/interval.h"

static const char help[] =
    "usage: gpuforecast predict TRACE|PROFILE --gpu NAME [options]\n"
    "\n"
    "Predicts cycles and Nsight Compute counters of every kernel of TRACE (a directory\n"
    "with kernelslist.g, a kernelslist.g, a kernel-N.traceg[.gz|.xz], Accel-Sim 2.0's\n"
    "kernel-N.tracez, or a PPT-GPU directory) or of a profile saved by 'gpuforecast\n"
    "profile', on the GPU model NAME.\n"
    "\n"
    "options:\n"
    "  -g, --gpu NAME           GPU model (gpuforecast gpus), or a path to an .ini\n"
    "  -s, --set KEY=VALUE      override a model key, e.g. l2.size=8MiB (repeatable)\n"
    "  -f, --format FMT         table (default), csv or json\n"
    "  -o, --output FILE        write there (atomically) instead of stdout\n"
    "      --exact              memory counters from the exact LRU simulators\n"
    "      --cold               every kernel starts with empty caches, as Nsight Compute\n"
    "                           profiles by default (--cache-control all): MemcpyHtoD\n"
    "                           warms nothing. Use it to compare with an ncu report; omit\n"
    "                           it for an application run (copies leave data in L2)\n"
    "      --partial            a kernel trace holding fewer thread blocks than its grid\n"
    "                           (cut at a block boundary) is predicted from the blocks\n"
    "                           it has, with a warning, instead of being an error\n"
    "      --scheduler gto|lrr  warp scheduler (default: the model's sm.warp_scheduler)\n"
    "      --unknown-opcode error|alu  unknown opcodes fail (default) or run as ALU\n"
    "      --no-spin-collapse   replay wait loops (mbarrier try-wait, polled flags) as\n"
    "                           traced; by default the iterations that went round are\n"
    "                           dropped (docs/model.md, Warp-specialised kernels)\n"
    "      --models DIR         directory of model files\n"

    "  -j, --jobs N             threads the SMs are simulated on (default: all cores);\n"
    "                           the output is identical for any N\n"
    "      --hold SIZE          decoded instructions held in memory before long warps\n"
    "                           spill to a file in $TMPDIR (default 32MiB, 0: never);\n"
    "                           the output is the same either way\n"
    "  -q, --quiet              no progress output\n"
    "\n"
    "Predicted counters depend on the model; counted ones are exact counts from the\n"
    "trace ('gpuforecast counters' says which is which).\n"
    "\n"
    "Each kernel's cycles come with the interval the measured cycles are expected in\n"
    "(90 %: columns cycles_low, cycles_high, cycles_interval), from the model's\n"
    "cross-validated errors on the GPU's reference kernels of the same class (plain:\n"
    "no shared memory, atomics, local memory or tensor cores; complex: the rest;\n"
    "models/intervals/cycles.ini, docs/intervals.md). A GPU without reference data gets the\n"
    "wider 'uncalibrated' interval; with --set (of a key other than clock.*) or an\n"
    "own model file it is marked 'what-if unchecked'. Memory counters whose left-out\n"
    "errors support an interval get one the same way (models/intervals/counters.ini;\n"
    "today dram__bytes_write.sum from 1 MB predicted): a line under the cycles, columns\n"
    "<counter>_low, <counter>_high, <counter>_interval after every counter in CSV,\n"
    "counter_intervals in JSON. The other counters get none (docs/intervals.md says why).\n";

/* Cycle intervals from <models>/intervals/cycles.ini for the GPU named by --gpu (a path's file
 * name without .ini). Without the file the report goes out without intervals and a
 * warning says why (an interval is never invented); a malformed file is an error, as a
 * malformed model is. Returns 0 or the exit code. */
static int add_intervals(const gf_model_args *a, gf_report *rep)
{
    char path[1024], key[64];
    snprintf(path, sizeof path, "%s/intervals/cycles.ini", gf_gpu_models_dir(a->models_dir));
    const char *base = strrchr(a->gpu_name, '/');
    base = base ? base + 1 : a->gpu_name;
    size_t len = strcspn(base, ".");
    snprintf(key, sizeof key, "%.*s", (int)(len < sizeof key ? len : sizeof key - 1), base);
    int own_file = strcmp(base, a->gpu_name) != 0 || strstr(base, ".ini") != NULL;
    gf_interval_table t;
    gf_error err;
    gf_error_clear(&err);
    gf_status st = gf_interval_load(path, key, &t, &err);
    if (st == GF_ERR_IO) {
        gf_cli_warn("no cycle intervals: %s: %s", err.file, err.message);
        return 0;
    }
    if (st != GF_OK)
        return gf_cli_error(&err);
    /* clocks are not a what-if: the residuals were measured at set clocks (Nsight's) */
    int what_if = own_file;
    for (unsigned i = 0; i < a->sets.count; i++)
        what_if |= strncmp(a->sets.items[i], "clock.", 6) != 0;
    for (size_t k = 0; k < rep->nrows; k++)
        gf_interval_apply(&t, what_if, &rep->rows[k]);
    /* memory counters, where their residuals support an interval (docs/intervals.md);
     * a missing file is said once the cycles' is there (else that warning says it) */
    snprintf(path, sizeof path, "%s/intervals/counters.ini", gf_gpu_models_dir(a->models_dir));
    gf_counter_interval_table ct;
    st = gf_interval_counters_load(path, key, &ct, &err);
    if (st == GF_ERR_IO) {
        gf_cli_warn("no counter intervals: %s: %s", err.file, err.message);
        return 0;
    }
    if (st != GF_OK)
        return gf_cli_error(&err);
    for (size_t k = 0; k < rep->nrows; k++)
        gf_interval_counters_apply(&ct, what_if, &rep->rows[k]);
    return 0;
}

int gf_cmd_predict(int argc, char **argv)
{
    gf_model_args a;
    gf_gpu gpu;
    int rc = gf_model_args_setup(argc, argv, help, &a, "TRACE or PROFILE", 0, 1, &gpu);
    if (rc >= 0)
        return rc;
    gf_report rep;
    gf_report_init(&rep);
    gf_error err;
    gf_error_clear(&err);
    gf_status st;
    if (gf_profile_is_profile(a.positional[0]))
        st = gf_profile_predict(a.positional[0], &gpu, &rep, &err);
    else
        st = gf_predict_trace(a.positional[0], &gpu, &a.popt, &rep, NULL, NULL, &err);
    gf_model_args_progress_end(&a);
    if (st != GF_OK)
        rc = gf_cli_error(&err);
    else if ((rc = add_intervals(&a, &rep)) == 0)
        rc = gf_model_args_write_report(&a, &rep);
    gf_report_free(&rep);
    gf_model_args_free(&a);
    return rc;
}
