/* gpuforecast occupancy: resident blocks and warps per SM for a launch configuration. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_model.h"
#include "gpu/gpu.h"
#include "gpu/occupancy.h"
#include "util/error.h"

static const char help[] =
    "usage: gpuforecast occupancy --gpu NAME --block THREADS [--regs R] [--smem BYTES]\n"
    "                             [--blocks N] [--set section.key=value ...] [--models DIR]\n"
    "\n"
    "Theoretical occupancy of a kernel launch, by the CUDA occupancy calculator's rules:\n"
    "blocks per SM limited by threads, warps, registers (per-warp allocation granularity),\n"
    "shared memory and the per-SM block limit. On GPUs with a unified L1/shared array the\n"
    "driver's carveout is the smallest that does not cut occupancy; the L1 gets the rest.\n"
    "\n"
    "  --gpu NAME       GPU model (gpuforecast gpus) or a path to an .ini\n"
    "  --block THREADS  threads per block (x*y*z)\n"
    "  --regs R         registers per thread (default 0 = not limiting)\n"
    "  --smem BYTES     shared memory per block, static + dynamic (units: 48KiB)\n"
    "  --blocks N       blocks in the grid: also prints waves and the last wave\n"
    "  --set k=v        override a model key (see show-gpu --help)\n"
    "  --models DIR     models directory\n";

static int parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return -1;
    *out = v;
    return 0;
}

int gf_cmd_occupancy(int argc, char **argv)
{
    const char *gpu_name = NULL, *models = NULL;
    unsigned long long block = 0, regs = 0, blocks = 0;
    uint64_t smem = 0;
    int have_block = 0;
    gf_setlist sets = {0};
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            gf_setlist_free(&sets);
            return 0;
        }
        char opt[32];
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof opt) {
            memcpy(opt, a, (size_t)(eq - a));
            opt[eq - a] = 0;
            v = eq + 1;
        } else {
            snprintf(opt, sizeof opt, "%s", a);
            if (strncmp(a, "--", 2) == 0) {
                if (i + 1 >= argc) {
                    rc = gf_cli_usage_error("occupancy", "%s needs a value", a);
                    goto done;
                }
                v = argv[++i];
            }
        }
        if (strcmp(opt, "--gpu") == 0) {
            gpu_name = v;
        } else if (strcmp(opt, "--models") == 0) {
            models = v;
        } else if (strcmp(opt, "--block") == 0) {
            if (parse_count(v, 1u << 20, &block) != 0 || block == 0) {
                rc = gf_cli_usage_error("occupancy", "--block '%s': expected threads per block, 1 or more", v);
                goto done;
            }
            have_block = 1;
        } else if (strcmp(opt, "--regs") == 0) {
            if (parse_count(v, 1u << 16, &regs) != 0) {
                rc = gf_cli_usage_error("occupancy", "--regs '%s': expected registers per thread", v);
                goto done;
            }
        } else if (strcmp(opt, "--blocks") == 0) {
            if (parse_count(v, ~0ULL, &blocks) != 0) {
                rc = gf_cli_usage_error("occupancy", "--blocks '%s': expected a block count", v);
                goto done;
            }
        } else if (strcmp(opt, "--smem") == 0) {
            const char *why;
            if (gf_gpu_parse_size(v, &smem, &why) != 0) {
                rc = gf_cli_usage_error("occupancy", "--smem '%s': %s", v, why);
                goto done;
            }
        } else if (strcmp(opt, "--set") == 0) {
            if (gf_setlist_add(&sets, v) != 0) {
                rc = gf_cli_usage_error("occupancy", "--set '%s': expected section.key=value", v);
                goto done;
            }
        } else {
            rc = gf_cli_usage_error("occupancy", "unknown argument '%s'", a);
            goto done;
        }
    }
    if (!gpu_name || !have_block) {
        rc = gf_cli_usage_error("occupancy", "--gpu and --block are required");
        goto done;
    }
    gf_gpu g;
    gf_error err;
    gf_error_clear(&err);
    if (gf_gpu_load(gpu_name, models, sets.items, sets.count, &g, &err) != GF_OK) {
        gf_cli_gpu_load_failed(gpu_name, &err);
        rc = gf_cli_error(&err);
        goto done;
    }
    if (block > 0xFFFFFFFFull || regs > 0xFFFFFFFFull) {
        gf_error_set(&err, GF_ERR_INVALID, "", 0, "block or register count too large");
        rc = gf_cli_error(&err);
        goto done;
    }
    gf_occupancy o;
    if (gf_occupancy_compute(&g, (unsigned)block, (unsigned)regs, smem, blocks, &o, &err) != GF_OK) {
        rc = gf_cli_error(&err);
        goto done;
    }
    printf("gpu               %s (%s)\n", g.name, g.marketing);
    printf("blocks_per_sm     %u\n", o.blocks_per_sm);
    printf("warps_per_block   %u\n", o.warps_per_block);
    printf("warps_per_sm      %u of %u\n", o.warps_per_sm, g.max_warps_per_sm);
    printf("occupancy         %.1f%%\n", o.occupancy * 100.0);
    printf("limiter           %s\n", gf_occ_limit_name(o.limiter));
    printf("carveout          %llu B (%.0f KiB)\n", (unsigned long long)o.carveout, (double)o.carveout / 1024.0);
    printf("l1_size           %llu B (%.0f KiB)\n", (unsigned long long)o.l1_size, (double)o.l1_size / 1024.0);
    if (blocks) {
        printf("waves             %llu\n", o.waves);
        printf("last_wave_blocks  %llu of %llu\n", o.last_wave_blocks,
               (unsigned long long)o.blocks_per_sm * g.num_sms);
    }
done:
    gf_setlist_free(&sets);
    return rc;
}
