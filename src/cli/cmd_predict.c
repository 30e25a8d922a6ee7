/* gpuforecast predict: the main command (timing/predict.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli_model.h"
#include "timing/profile.h"

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
    "      --models DIR         directory of model files\n"

    "  -j, --jobs N             threads the SMs are simulated on (default: all cores);\n"
    "                           the output is identical for any N\n"
    "      --hold SIZE          decoded instructions held in memory before long warps\n"
    "                           spill to a file in $TMPDIR (default 32MiB, 0: never);\n"
    "                           the output is the same either way\n"
    "  -q, --quiet              no progress output\n"
    "\n"
    "Predicted counters depend on the model; counted ones are exact counts from the\n"
    "trace ('gpuforecast counters' says which is which).\n";

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
    rc = st == GF_OK ? gf_model_args_write_report(&a, &rep) : gf_cli_error(&err);
    gf_report_free(&rep);
    gf_model_args_free(&a);
    return rc;
}
