/* gpuforecast counters: the counter table every report uses (counters/counters.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "util/atomic_file.h"
#include "util/error.h"

static void help(void)
{
    fputs("usage: gpuforecast counters [--format table|csv|json] [-o FILE]\n\n"
          "Lists the counters gpuforecast reports: the Nsight Compute name (the column\n"
          "name in predict/validate CSV), the nvprof alias for older GPUs, the unit, and\n"
          "whether the value is counted from the trace alone (instruction mix,\n"
          "coalescer requests and sectors, shared-memory wavefronts, theoretical\n"
          "occupancy) or predicted by the cache and timing models (cycles, hit rates,\n"
          "L2 and DRAM traffic, utilisation), and how far each is from Nsight Compute\n"
          "on the H100 reference set (data/h100), launch by launch: exact (within 0.5)\n"
          "on how many launches, or the mean and largest error (of counts in % of\n"
          "Nsight's value, over the launches it measured nonzero; of percentages in pp;\n"
          "of ratios in their own unit), and the launches Nsight measured 0 that\n"
          "gpuforecast does not. The figures of docs/validation-h100.md, \"Every\n"
          "counter against Nsight\", compiled in (scripts/validate-h100.sh\n"
          "--counter-checks).\n\n"
          "options:\n"
          "  --format F   table (default), csv or json\n"
          "  -o FILE      write to FILE (atomically) instead of stdout\n"
          "  -h, --help   this help\n",
          stdout);
}

int gf_cmd_counters(int argc, char **argv)
{
    gf_format fmt = GF_FORMAT_TABLE;
    const char *outpath = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return 0;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return gf_cli_usage_error(argv[0], "--format needs a value");
            if (gf_cli_parse_format(v, &fmt) != 0)
                return gf_cli_usage_error(argv[0], "unknown format '%s' (table, csv, json)", v);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return gf_cli_usage_error(argv[0], "%s needs a file name", a);
            outpath = argv[++i];
        } else {
            return gf_cli_usage_error(argv[0], "unexpected argument '%s'", a);
        }
    }
    gf_error err;
    gf_error_clear(&err);
    gf_outfile *of;
    if (gf_outfile_open(outpath, &of, &err) != GF_OK)
        return gf_cli_error(&err);
    if (gf_counter_list_write((gf_report_format)fmt, gf_outfile_stream(of), &err) != GF_OK) {
        gf_outfile_abort(of);
        return gf_cli_error(&err);
    }
    if (gf_outfile_commit(of, &err) != GF_OK)
        return gf_cli_error(&err);
    return 0;
}
