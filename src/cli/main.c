/*
 * gpuforecast command-line entry: dispatches to one file per subcommand (cmd_*.c).
 * Exit codes: 0 success, 1 failed run (error printed), 2 usage error.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/atomic_file.h"
#include "util/error.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"predict", gf_cmd_predict, "predict cycles and Nsight Compute counters of a trace"},
    {"memory", gf_cmd_memory, "memory-hierarchy counters only (coalescer, L1, L2, DRAM)"},
    {"info", gf_cmd_info, "summarise a trace: kernels, blocks, warps, instruction mix"},
    {"profile", gf_cmd_profile, "save a trace's reuse profile for fast re-evaluation"},
    {"sweep", gf_cmd_sweep, "evaluate a design-space sweep over model parameters"},
    {"validate", gf_cmd_validate, "compare predictions with hardware or simulator counters"},
    {"gen", gf_cmd_gen, "generate synthetic micro-benchmark traces"},
    {"gpus", gf_cmd_gpus, "list the shipped GPU models"},
    {"show-gpu", gf_cmd_show_gpu, "print a resolved GPU model"},
    {"occupancy", gf_cmd_occupancy, "blocks and warps per SM for a launch configuration"},
    {"counters", gf_cmd_counters, "list the counters gpuforecast reports"},
};

static void usage(FILE *out)
{
    fputs("usage: gpuforecast <command> [options]\n"
          "       gpuforecast <command> --help\n"
          "       gpuforecast --version\n\n"
          "Predicts how a CUDA kernel performs on a GPU from an NVBit (Accel-Sim or PPT-GPU)\n"
          "trace, without running it.\n\ncommands:\n",
          out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nExit status: 0 success, 1 error, 2 usage error.\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return gf_cli_usage_error(NULL, "missing command");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gpuforecast %s\n", gf_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* Every command's temporary output (-o FILE's FILE.tmpXXXXXX, gen's files and
             * directory) is removed when a signal ends the process (atomic_file.h). */
            gf_error err;
            gf_error_clear(&err);
            if (gf_outfile_catch_signals(&err) != GF_OK)
                return gf_cli_error(&err);
            return commands[i].run(argc - 1, argv + 1);
        }
    return gf_cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
