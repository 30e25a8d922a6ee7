/* gpuforecast gpus: the shipped GPU models, one line each. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gpu/gpu.h"
#include "util/error.h"

static const char help[] =
    "usage: gpuforecast gpus [--models DIR] [--format table|csv]\n"
    "\n"
    "Lists the GPU models in the models directory (models/<name>.ini): name, marketing\n"
    "name, architecture, compute capability, SMs, L2 size and peak DRAM bandwidth.\n"
    "Use a name with --gpu or 'gpuforecast show-gpu NAME'.\n"
    "\n"
    "  --models DIR   models directory (default: $GF_MODELS_DIR, the source tree's\n"
    "                 models/, then the installed share/gpuforecast/models)\n"
    "  --format F     table (default) or csv\n";

int gf_cmd_gpus(int argc, char **argv)
{
    const char *models = NULL;
    gf_format fmt = GF_FORMAT_TABLE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            return 0;
        } else if (strcmp(a, "--models") == 0 || strcmp(a, "--format") == 0) {
            if (i + 1 >= argc)
                return gf_cli_usage_error("gpus", "%s needs a value", a);
            if (strcmp(a, "--models") == 0)
                models = argv[++i];
            else if (gf_cli_parse_format(argv[++i], &fmt) != 0 || fmt == GF_FORMAT_JSON)
                return gf_cli_usage_error("gpus", "--format '%s': expected table or csv", argv[i]);
        } else {
            return gf_cli_usage_error("gpus", "unexpected argument '%s'", a);
        }
    }
    gf_error err;
    gf_error_clear(&err);
    char **names;
    size_t n;
    if (gf_gpu_list(models, &names, &n, &err) != GF_OK)
        return gf_cli_error(&err);
    if (n == 0) {
        gf_error_set(&err, GF_ERR_IO, gf_gpu_models_dir(models), 0, "no *.ini GPU models here");
        gf_gpu_list_free(names, n);
        return gf_cli_error(&err);
    }
    if (fmt == GF_FORMAT_CSV)
        puts("name,marketing,arch,compute_capability,sms,l2_bytes,dram_bandwidth_gbs");
    else
        printf("%-10s %-36s %-7s %4s %5s %9s %10s\n", "NAME", "GPU", "ARCH", "CC", "SMS", "L2",
               "DRAM GB/s");
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        gf_gpu g;
        if (gf_gpu_load(names[i], models, NULL, 0, &g, &err) != GF_OK) {
            rc = gf_cli_error(&err);
            continue;
        }
        if (fmt == GF_FORMAT_CSV) {
            printf("%s,\"%s\",%s,%u,%u,%llu,%.1f\n", g.name, g.marketing, g.arch,
                   g.compute_capability, g.num_sms, (unsigned long long)g.l2.size,
                   g.dram_bandwidth / 1e9);
        } else {
            char l2[32];
            if (g.l2.size % 1048576 == 0)
                snprintf(l2, sizeof l2, "%lluMiB", (unsigned long long)(g.l2.size / 1048576));
            else
                snprintf(l2, sizeof l2, "%lluKiB", (unsigned long long)(g.l2.size / 1024));
            printf("%-10s %-36s %-7s %4.1f %5u %9s %10.1f\n", g.name, g.marketing, g.arch,
                   g.compute_capability / 10.0, g.num_sms, l2, g.dram_bandwidth / 1e9);
        }
    }
    gf_gpu_list_free(names, n);
    return rc;
}
