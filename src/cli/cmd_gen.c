/*
 * `gpuforecast gen KIND [options] -o DIR`: writes a synthetic Accel-Sim trace of a kernel
 * whose behaviour is known (src/gen/gen.h). Argument parsing and printing only; the
 * generator and all validation of values live in the library.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "gen/gen.h"
#include "util/error.h"

static const char gen_help[] =
    "usage: gpuforecast gen KIND [ARG] [options] -o DIR\n"
    "\n"
    "Writes an Accel-Sim tracer-v4 trace (DIR/kernelslist.g + DIR/kernel-1.traceg) of a\n"
    "synthetic kernel whose behaviour is known, to test gpuforecast (or any simulator) on\n"
    "an exact answer. Output is atomic: on failure, or when a signal such as SIGINT ends\n"
    "it, nothing half-written and no temporary file or directory is left behind.\n"
    "\n"
    "kinds (defaults in brackets):\n"
    "  vecadd              c[i] = a[i] + b[i] with a bounds check; kernelslist.g copies a\n"
    "                      and b in (MemcpyHtoD), so they start in L2.  -n N [1048576]\n"
    "                      tests: coalescing of unit-stride loads, masks of the last warp,\n"
    "                      L2 hits after MemcpyHtoD.\n"
    "  stride S            coalescer micro-benchmark (Volta memory paper, Fig. 3), S in\n"
    "                      1..32 (or --stride S); 1 block of 256 threads [--block]. Byte-\n"
    "                      identical to tools/gentrace.py. tests: sectors per warp =\n"
    "                      (32/S)*ceil(S/8).\n"
    "  l2write             L2 write-policy micro-benchmark (Fig. 5), one thread, loads\n"
    "                      bypass L1. Byte-identical to gentrace.py. tests: lazy\n"
    "                      fetch-on-read, 2 DRAM read sectors.\n"
    "  stream OP           STREAM copy|scale|add|triad over -n N floats [4194304], grid-\n"
    "                      stride loop, --grid [640] or --sms S (grid = 8*S), --block [256],\n"
    "                      --width 4|16 bytes per access [16]. copy with 16 B is byte-\n"
    "                      identical to `gentrace.py stream N S` (give the same --sm).\n"
    "                      tests: DRAM bandwidth and the queueing model.\n"
    "  pchase              pointer chase by one thread: each LDG.E.64's address is the\n"
    "                      previous load's result. --stride BYTES [128], --footprint BYTES\n"
    "                      [16K], -n LOADS [2*footprint/stride], or --level l1|l2|dram\n"
    "                      (16K/2M/256M footprint). tests: L1, L2, DRAM load latency.\n"
    "  matmul              tiled n x n SGEMM with shared memory: LDG -> STS, BAR.SYNC,\n"
    "                      LDS.128 + LDS + FFMA. -n ORDER [256], --tile 8|16|32 [16]\n"
    "                      (block = tile x tile, grid = n/tile squared). tests: shared\n"
    "                      memory wavefronts, barriers, FMA pipe.\n"
    "  spill               register spilling: --slots K [16] values per thread STL'd to the\n"
    "                      stack and LDL'd back --iters I [4] times; -n N threads [65536].\n"
    "                      tests: local-memory requests, sectors and hit rates.\n"
    "  ldgsts              async global->shared copy (sm_80+, default --sm 80): LDGSTS.E,\n"
    "                      LDGSTS.E.128, or with --bypass LDGSTS.E.BYPASS.128, then\n"
    "                      LDGDEPBAR/DEPBAR.LE/BAR.SYNC and LDS. -n TILES per block [8],\n"
    "                      --width 4|16 [16], --grid [80]. tests: L1 bypass of LDGSTS.\n"
    "  hmma                tensor-core loop (sm_70+): per k-step two LDG.E.128 fragments and\n"
    "                      a 16x16x16 MMA (HMMA.884 x16 on sm_70, HMMA.1688 x4 on sm_75,\n"
    "                      HMMA.16816 x2 on sm_80+). -n STEPS [64], --block [128], --grid\n"
    "                      [80]. tests: tensor pipe utilisation.\n"
    "  reduce              shared-memory tree reduction then one RED.E.ADD.F32 per block\n"
    "                      (--atom: ATOM instead). -n N [1048576], --block 2^k >= 32 [256].\n"
    "                      tests: barriers, divergent masks, atomics to one address.\n"
    "  ffma                compute bound: -n ITERS [256] trips of --acc K [8] (4..64)\n"
    "                      independent FFMA chains. --grid [80]. tests: FMA pipe\n"
    "                      throughput; with --warps 2 vs 4 and the same --total-warps,\n"
    "                      the sub-core imbalance study.\n"
    "  warpspec            Hopper warp-specialised GEMM (sm_90): a producer warp issues\n"
    "                      TMA loads (UTMALDG), two consumer warpgroups run HGMMA, and\n"
    "                      they hand over through --stages N [4] mbarrier pairs; every\n"
    "                      wait is a try-wait retry loop that the trace shows going round\n"
    "                      --spin R [1] times. -n K-TILES per block [16], --grid [132].\n"
    "                      tests: spin-wait collapse (the prediction must not depend on R).\n"
    "\n"
    "options for every kind:\n"
    "  -o, --output DIR    output directory (created; an existing one gets its\n"
    "                      kernelslist.g and kernel file replaced)\n"
    "  --sm VERSION        binary version written in the header and the SASS flavour:\n"
    "                      < 70 uses XMAD/ISCADD/IADD (Pascal), 70+ IMAD/IADD3/LEA [70]\n"
    "  --grid X[,Y[,Z]]    blocks (data-parallel kinds derive it from -n)\n"
    "  --block X[,Y[,Z]]   threads per block (<= 1024)\n"
    "  --warps W           block of W warps (32*W threads)\n"
    "  --total-warps T     with --warps: grid = T/W blocks (same work, other block shape)\n"
    "  -n N                problem size (see the kind); K, M, G suffixes = 2^10, 2^20, 2^30\n"
    "  --gzip              write kernel-1.traceg.gz (zlib)\n"
    "  --addr-mode list|strided|tracer  address encoding: list = mode 0 (one address\n"
    "                      per lane) everywhere; strided = mode 1 (base+stride) wherever\n"
    "                      lanes are evenly spaced, else mode 0; tracer = what the\n"
    "                      Accel-Sim tracer writes: mode 1 for one contiguous run of lanes\n"
    "                      at a constant stride, else mode 2 (base+deltas) [tracer; list\n"
    "                      for the gentrace.py kinds stride, l2write, stream copy]\n"
    "  -q, --quiet         do not print the summary line\n"
    "  -h, --help          this text\n"
    "\n"
    "examples:\n"
    "  gpuforecast gen stride 8 -o /tmp/s8\n"
    "  gpuforecast gen stream triad -n 16M --sms 80 -o /tmp/triad --gzip\n"
    "  gpuforecast gen pchase --level l2 -o /tmp/l2lat\n"
    "  gpuforecast gen ffma --warps 2 --total-warps 64 -o /tmp/w2\n";

/* Parses a non-negative integer with an optional K/M/G (binary) suffix. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end)
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
    uint64_t v;
    if (parse_u64(s, &v) != 0 || v > UINT_MAX)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* X[,Y[,Z]] -> d[3], missing dimensions 1. */
static int parse_dim3(const char *s, unsigned d[3])
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    d[0] = d[1] = d[2] = 1;
    char *save = NULL;
    int i = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (i == 3 || parse_uint(tok, &d[i]) != 0)
            return -1;
        i++;
    }
    return i ? 0 : -1;
}

/* What the command line asked for, beyond the generator's parameters. */
typedef struct gen_args {
    gf_gen_params p;
    const char *out;
    int quiet, have_positional, grid_set, block_set;
    int pchase_n_set, pchase_shape_set; /* pchase -n defaults to two passes of the shape */
} gen_args;

static int bad_value(const char *name, const char *what, const char *val)
{
    return gf_cli_usage_error("gen", "%s: expected %s, got '%s'", name, what, val);
}

static int invalid(const char *msg)
{
    gf_error err;
    gf_error_set(&err, GF_ERR_INVALID, "", 0, "%s", msg);
    return gf_cli_error(&err);
}

static const char *const value_options[] = {
    "-o", "--output", "--sm", "--grid", "--blocks", "--block", "--sms", "--warps",
    "--total-warps", "-n", "--stride", "--footprint", "--level", "--width", "--tile",
    "--slots", "--iters", "--acc", "--max-size", "--addr-mode", "--stages", "--spin"};

static int takes_value(const char *name)
{
    for (size_t i = 0; i < sizeof value_options / sizeof value_options[0]; i++)
        if (strcmp(name, value_options[i]) == 0)
            return 1;
    return 0;
}

/* The grid and block options; 0 or the exit code of the error reported. */
static int set_shape_option(gen_args *g, const char *name, const char *val)
{
    gf_gen_params *p = &g->p;
    if (strcmp(name, "--grid") == 0 || strcmp(name, "--blocks") == 0) {
        if (parse_dim3(val, p->grid))
            return bad_value(name, "X[,Y[,Z]]", val);
        if (!p->grid[0] || !p->grid[1] || !p->grid[2])
            return invalid("--grid: every dimension must be >= 1");
        g->grid_set = 1;
    } else if (strcmp(name, "--block") == 0) {
        if (parse_dim3(val, p->block))
            return bad_value(name, "X[,Y[,Z]]", val);
        g->block_set = 1;
    } else if (strcmp(name, "--sms") == 0) {
        unsigned sms;
        if (parse_uint(val, &sms) || sms > UINT_MAX / 8)
            return bad_value(name, "a number of SMs", val);
        if (!sms)
            return invalid("--sms: must be >= 1");
        p->grid[0] = 8 * sms; /* gentrace.py stream: 8 blocks per SM */
        p->grid[1] = p->grid[2] = 1;
        g->grid_set = 1;
    } else if (strcmp(name, "--warps") == 0) {
        if (parse_uint(val, &p->warps))
            return bad_value(name, "a number of warps", val);
        if (!p->warps)
            return invalid("--warps: must be >= 1");
    } else if (strcmp(name, "--total-warps") == 0) {
        if (parse_uint(val, &p->total_warps))
            return bad_value(name, "a number of warps", val);
        if (!p->total_warps)
            return invalid("--total-warps: must be >= 1");
    }
    return 0;
}

/* The pointer chase's shape: --level picks a footprint between the levels of every
 * shipped GPU: 16 KiB < any L1 (V100 128 KB unified); 2 MiB > H100's 256 KB L1 and < GTX
 * 1080's 2 MB ... 6 MB L2 is tight on a GTX 1080 (2 MB L2), so l2 is for Volta and later;
 * 256 MiB > any L2 (H100 50 MB). Stride 4 KiB for DRAM: a new DRAM page per load. */
static int set_chase_option(gen_args *g, const char *name, const char *val)
{
    gf_gen_params *p = &g->p;
    if (strcmp(name, "--stride") == 0) {
        if (parse_uint(val, &p->stride))
            return bad_value(name, "a non-negative integer", val);
    } else if (strcmp(name, "--footprint") == 0) {
        if (parse_u64(val, &p->footprint))
            return bad_value(name, "a size in bytes (K, M, G suffixes)", val);
    } else if (strcmp(val, "l1") == 0) { /* --level */
        p->footprint = 16384, p->stride = 128;
    } else if (strcmp(val, "l2") == 0) {
        p->footprint = 2u << 20, p->stride = 128;
    } else if (strcmp(val, "dram") == 0) {
        p->footprint = 256u << 20, p->stride = 4096;
    } else {
        return bad_value(name, "l1, l2 or dram", val);
    }
    g->pchase_shape_set = 1;
    return 0;
}

/* Options that take a number and set one parameter. */
static int set_number_option(gen_args *g, const char *name, const char *val)
{
    static const struct {
        const char *name, *what;
        size_t off;
    } opts[] = {
        {"--sm", "a binary version such as 61, 70, 80", offsetof(gf_gen_params, sm)},
        {"--width", "4 or 16", offsetof(gf_gen_params, width)},
        {"--tile", "8, 16 or 32", offsetof(gf_gen_params, tile)},
        {"--slots", "a number of 4-byte values", offsetof(gf_gen_params, slots)},
        {"--iters", "a number of passes", offsetof(gf_gen_params, iters)},
        {"--acc", "a number of accumulators", offsetof(gf_gen_params, acc)},
        {"--stages", "a number of pipeline stages", offsetof(gf_gen_params, stages)},
        {"--spin", "a number of wait-loop rounds", offsetof(gf_gen_params, spin)},
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strcmp(name, opts[i].name) == 0)
            return parse_uint(val, (unsigned *)((char *)&g->p + opts[i].off))
                       ? bad_value(name, opts[i].what, val)
                       : 0;
    if (strcmp(name, "-n") == 0) {
        if (parse_u64(val, &g->p.n))
            return bad_value(name, "a non-negative integer", val);
        g->pchase_n_set = 1;
    } else if (strcmp(name, "--max-size") == 0) {
        if (parse_u64(val, &g->p.max_bytes))
            return bad_value(name, "a size in bytes (K, M, G suffixes)", val);
    }
    return 0;
}

/* An option with its value; 0 or the exit code of the error reported. */
static int set_value_option(gen_args *g, const char *name, const char *val)
{
    if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
        g->out = val;
        return 0;
    }
    if (strcmp(name, "--stride") == 0 || strcmp(name, "--footprint") == 0 ||
        strcmp(name, "--level") == 0)
        return set_chase_option(g, name, val);
    if (strcmp(name, "--addr-mode") == 0) {
        if (strcmp(val, "list") == 0)
            g->p.addr_mode = GF_GEN_ADDR_LIST;
        else if (strcmp(val, "strided") == 0)
            g->p.addr_mode = GF_GEN_ADDR_STRIDED;
        else if (strcmp(val, "tracer") == 0)
            g->p.addr_mode = GF_GEN_ADDR_TRACER;
        else
            return bad_value(name, "list, strided or tracer", val);
        return 0;
    }
    int rc = set_shape_option(g, name, val);
    return rc ? rc : set_number_option(g, name, val);
}

/* A flag without a value; 1 when name is one. */
static int set_flag(gen_args *g, const char *name)
{
    if (strcmp(name, "--bypass") == 0)
        g->p.bypass = 1;
    else if (strcmp(name, "--atom") == 0)
        g->p.atom = 1;
    else if (strcmp(name, "--gzip") == 0)
        g->p.gzip = 1;
    else if (strcmp(name, "-q") == 0 || strcmp(name, "--quiet") == 0)
        g->quiet = 1;
    else
        return 0;
    return 1;
}

/* stride's S and stream's OP; 0 or the exit code of the error reported. */
static int set_positional(gen_args *g, const char *a)
{
    if (!g->have_positional && g->p.kind == GF_GEN_STRIDE) {
        if (parse_uint(a, &g->p.stride))
            return gf_cli_usage_error("gen", "stride: expected S in 1..32, got '%s'", a);
    } else if (!g->have_positional && g->p.kind == GF_GEN_STREAM) {
        if (gf_gen_stream_op_parse(a, &g->p.op) != 0)
            return gf_cli_usage_error("gen", "stream: expected copy, scale, add or triad, "
                                             "got '%s'", a);
    } else {
        return gf_cli_usage_error("gen", "unexpected argument '%s'", a);
    }
    g->have_positional = 1;
    return 0;
}

/* Reads argv[2..] into g; 0 or the exit code of the error reported. */
static int parse_gen_args(gen_args *g, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[64];
        /* --opt=value and --opt value */
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        int rc = 0;
        if (takes_value(name)) {
            if (!val && i + 1 >= argc)
                return gf_cli_usage_error("gen", "option %s needs a value", name);
            rc = set_value_option(g, name, val ? val : argv[++i]);
        } else if (set_flag(g, name)) {
            rc = 0;
        } else if (a[0] == '-' && a[1]) {
            rc = gf_cli_usage_error("gen", "unknown option '%s'", a);
        } else {
            rc = set_positional(g, a);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* What the options cannot say alone; 0 or the exit code of the error reported. */
static int finish_gen_args(gen_args *g)
{
    gf_gen_params *p = &g->p;
    if (p->kind == GF_GEN_STRIDE && !g->have_positional && !g->pchase_shape_set)
        return gf_cli_usage_error("gen", "stride needs S (1..32): gen stride S -o DIR");
    if (p->kind == GF_GEN_MATMUL && g->block_set)
        return gf_cli_usage_error("gen", "matmul's block is tile x tile: use --tile");
    if (p->kind == GF_GEN_MATMUL && g->grid_set)
        return gf_cli_usage_error("gen", "matmul's grid is (n/tile)^2: use -n");
    if (p->kind == GF_GEN_PCHASE && g->pchase_shape_set && !g->pchase_n_set && p->stride &&
        p->footprint >= p->stride)
        p->n = 2 * (p->footprint / p->stride); /* one cold and one warm pass */
    if (!g->out)
        return gf_cli_usage_error("gen", "missing -o DIR");
    return 0;
}

int gf_cmd_gen(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(gen_help, stdout);
            return 0;
        }
    if (argc < 2 || argv[1][0] == '-')
        return gf_cli_usage_error("gen", "missing KIND (vecadd, stride, l2write, stream, "
                                         "pchase, matmul, spill, ldgsts, hmma, reduce, ffma)");
    gf_gen_kind kind;
    if (gf_gen_kind_parse(argv[1], &kind) != 0)
        return gf_cli_usage_error("gen", "unknown KIND '%s'", argv[1]);
    gen_args g;
    memset(&g, 0, sizeof g);
    gf_gen_params_init(&g.p, kind);
    g.p.max_bytes = 4ull << 30;
    int rc = parse_gen_args(&g, argc, argv);
    if (!rc)
        rc = finish_gen_args(&g);
    if (rc)
        return rc;
    gf_gen_summary sum;
    gf_error err;
    gf_error_clear(&err);
    if (gf_gen_write_summary(&g.p, g.out, &sum, &err) != GF_OK)
        return gf_cli_error(&err);
    if (!g.quiet)
        printf("wrote %s: %s, %llu blocks, %llu warps, %llu warp instructions "
               "(%llu memory), %llu bytes%s\n",
               g.out, gf_gen_kind_name(kind), (unsigned long long)sum.blocks,
               (unsigned long long)sum.warps, (unsigned long long)sum.warp_insts,
               (unsigned long long)sum.mem_insts, (unsigned long long)sum.bytes,
               g.p.gzip ? " before gzip" : "");
    return 0;
}
