/* gpuforecast memory: memory-hierarchy counters only (memory/hierarchy.h). */
#include <math.h>
#include <stdio.h>

#include "cli/cli_model.h"

static const char help[] =
    "usage: gpuforecast memory TRACE --gpu NAME [options]\n"
    "\n"
    "Memory-hierarchy counters of every kernel of TRACE: L1 requests, sectors and hits per\n"
    "space (global, local, atomic), shared-memory wavefronts and bank conflicts, L2 read,\n"
    "write and atomic sectors and hits, DRAM sectors and bytes. Accesses reach the caches\n"
    "in the order the issue model issues them, as in 'predict'.\n"
    "\n"
    "options:\n"
    "  -g, --gpu NAME           GPU model (gpuforecast gpus), or a path to an .ini\n"
    "  -s, --set KEY=VALUE      override a model key, e.g. l1.ways=0 (repeatable)\n"
    "      --exact              counters from the exact sectored set-associative LRU\n"
    "                           simulators (the oracle) instead of the reuse-distance model\n"
    "      --cold               empty caches before every kernel, as Nsight Compute's\n"
    "                           default --cache-control all (MemcpyHtoD warms nothing)\n"
    "  -f, --format FMT         table (default), csv or json\n"
    "  -o, --output FILE        write there (atomically) instead of stdout\n"
    "      --partial            a kernel trace holding fewer thread blocks than its grid\n"
    "                           is counted from the blocks it has, with a warning\n"
    "      --scheduler gto|lrr  warp scheduler, which sets the interleaving (default:\n"
    "                           the model's sm.warp_scheduler)\n"
    "      --unknown-opcode error|alu\n"
    "      --models DIR         directory of model files\n"
    "  -j, --jobs N             threads the SMs are simulated on (default: all cores);\n"
    "                           the output is identical for any N\n"
    "      --hold SIZE          decoded instructions held in memory before long warps\n"
    "                           spill to a file in $TMPDIR (default 32MiB, 0: never);\n"
    "                           the output is the same either way\n"
    "  -q, --quiet              no progress output\n";

/* Counters that describe time, not memory: left out of this command's output. */
static const gf_counter_id time_counters[] = {
    GF_C_GPC_CYCLES_ELAPSED, GF_C_SM_CYCLES_ACTIVE, GF_C_TIME_NS, GF_C_IPC,
    GF_C_WARPS_ACTIVE_PCT, GF_C_PIPE_ALU_PCT, GF_C_PIPE_FMA_PCT, GF_C_PIPE_FP64_PCT,
    GF_C_PIPE_SFU_PCT, GF_C_PIPE_TENSOR_PCT, GF_C_PIPE_LSU_PCT, GF_C_L2_BW_PCT,
    GF_C_L2_SLICE_BUSY_PCT,
    GF_C_DRAM_BW_PCT, GF_C_THEORETICAL_OCCUPANCY_PCT, GF_C_SM_CYCLES_ELAPSED_SUM};

int gf_cmd_memory(int argc, char **argv)
{
    gf_model_args a;
    gf_gpu gpu;
    int rc = gf_model_args_setup(argc, argv, help, &a, "TRACE", 0, 0, &gpu);
    if (rc >= 0)
        return rc;
    gf_report rep;
    gf_report_init(&rep);
    gf_error err;
    gf_error_clear(&err);
    gf_status st = gf_predict_trace(a.positional[0], &gpu, &a.popt, &rep, NULL, NULL, &err);
    gf_model_args_progress_end(&a);
    if (st == GF_OK) {
        for (size_t i = 0; i < rep.nrows; i++)
            for (size_t k = 0; k < sizeof time_counters / sizeof time_counters[0]; k++)
                rep.rows[i].v[time_counters[k]] = NAN;
        rc = gf_model_args_write_report(&a, &rep);
    } else {
        rc = gf_cli_error(&err);
    }
    gf_report_free(&rep);
    gf_model_args_free(&a);
    return rc;
}
