/* gpuforecast show-gpu: every resolved key of a GPU model, in key-table order. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_model.h"
#include "gpu/gpu.h"
#include "util/error.h"

static void print_help(void)
{
    fputs("usage: gpuforecast show-gpu NAME|FILE.ini [--set section.key=value ...] [--models DIR]\n"
          "\n"
          "Prints the resolved GPU model (includes and --set overrides applied, then validated):\n"
          "one line per key with its value and unit. Sizes take B, KiB, MiB, GiB (or KB, MB, GB\n"
          "= powers of ten), frequencies Hz..GHz, bandwidths B/s..TB/s, data rates MT/s, GT/s,\n"
          "Gbps. The same keys work in model files (section [l2], key size) and with --set on\n"
          "every command (--set l2.size=8MiB).\n"
          "\n"
          "keys:\n",
          stdout);
    for (size_t i = 0; i < gf_gpu_key_count(); i++)
        printf("  %-26s %s\n", gf_gpu_key_name(i), gf_gpu_key_help(i));
}

int gf_cmd_show_gpu(int argc, char **argv)
{
    const char *name = NULL, *models = NULL;
    gf_setlist sets = {0};
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help();
            gf_setlist_free(&sets);
            return 0;
        } else if (strcmp(a, "--set") == 0 || strcmp(a, "--models") == 0) {
            if (i + 1 >= argc) {
                rc = gf_cli_usage_error("show-gpu", "%s needs a value", a);
                goto done;
            }
            if (strcmp(a, "--models") == 0) {
                models = argv[++i];
            } else if (gf_setlist_add(&sets, argv[++i]) != 0) {
                rc = gf_cli_usage_error("show-gpu", "--set '%s': expected section.key=value", argv[i]);
                goto done;
            }
        } else if (strncmp(a, "--set=", 6) == 0) {
            if (gf_setlist_add(&sets, a + 6) != 0) {
                rc = gf_cli_usage_error("show-gpu", "--set '%s': expected section.key=value", a + 6);
                goto done;
            }
        } else if (a[0] == '-') {
            rc = gf_cli_usage_error("show-gpu", "unknown option '%s'", a);
            goto done;
        } else if (name) {
            rc = gf_cli_usage_error("show-gpu", "more than one GPU name ('%s' and '%s')", name, a);
            goto done;
        } else {
            name = a;
        }
    }
    if (!name) {
        rc = gf_cli_usage_error("show-gpu", "missing GPU name (see 'gpuforecast gpus')");
        goto done;
    }
    gf_gpu g;
    gf_error err;
    gf_error_clear(&err);
    if (gf_gpu_load(name, models, sets.items, sets.count, &g, &err) != GF_OK) {
        gf_cli_gpu_load_failed(name, &err);
        rc = gf_cli_error(&err);
        goto done;
    }
    printf("%-26s %s\n", "name", g.name);
    for (size_t i = 0; i < gf_gpu_key_count(); i++) {
        char buf[256];
        printf("%-26s %s\n", gf_gpu_key_name(i), gf_gpu_key_format(&g, i, buf, sizeof buf));
    }
done:
    gf_setlist_free(&sets);
    return rc;
}
