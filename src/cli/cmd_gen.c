/*
 * `gpuforecast gen KIND [options] -o DIR`: writes a synthetic Accel-Sim trace of a kernel
 * whose behaviour is known (src/trace/gen.h). Argument parsing and printing only; the
 * generator and all validation of values live in the library.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/gen.h"
#include "util/error.h"

static const char gen_help[] =
    "usage: gpuforecast gen KIND [ARG] [options] -o DIR\n"
    "\n"
    "Writes an Accel-Sim tracer-v4 trace (DIR/kernelslist.g + DIR/kernel-1.traceg) of a\n"
    "synthetic kernel whose behaviour is known, to test gpuforecast (or any simulator) on\n"
    "an exact answer. Output is atomic: on failure nothing half-written is left behind.\n"
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

int gf_cmd_gen(int argc, char **argv)
{
    const char *cmd = "gen";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(gen_help, stdout);
            return 0;
        }
    if (argc < 2 || argv[1][0] == '-')
        return gf_cli_usage_error(cmd, "missing KIND (vecadd, stride, l2write, stream, pchase, "
                                       "matmul, spill, ldgsts, hmma, reduce, ffma)");
    gf_gen_kind kind;
    if (gf_gen_kind_parse(argv[1], &kind) != 0)
        return gf_cli_usage_error(cmd, "unknown KIND '%s'", argv[1]);
    gf_gen_params p;
    gf_gen_params_init(&p, kind);
    p.max_bytes = 4ull << 30;
    const char *out = NULL;
    int quiet = 0, have_positional = 0, grid_set = 0, block_set = 0;
    int pchase_n_set = 0, pchase_shape_set = 0;
    gf_error err;
    gf_error_clear(&err);

    for (int i = 2; i < argc; i++) {
        char *a = argv[i];
        const char *val = NULL;
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
#define FLAG(s) (strcmp(name, s) == 0)
#define NEED_VAL()                                                                        \
    do {                                                                                  \
        if (!val) {                                                                       \
            if (i + 1 >= argc)                                                            \
                return gf_cli_usage_error(cmd, "option %s needs a value", name);          \
            val = argv[++i];                                                              \
        }                                                                                 \
    } while (0)
#define BAD_VAL(what) gf_cli_usage_error(cmd, "%s: expected %s, got '%s'", name, what, val)
        if (FLAG("-o") || FLAG("--output")) {
            NEED_VAL();
            out = val;
        } else if (FLAG("--sm")) {
            NEED_VAL();
            if (parse_uint(val, &p.sm))
                return BAD_VAL("a binary version such as 61, 70, 80");
        } else if (FLAG("--grid") || FLAG("--blocks")) {
            NEED_VAL();
            if (parse_dim3(val, p.grid))
                return BAD_VAL("X[,Y[,Z]]");
            if (!p.grid[0] || !p.grid[1] || !p.grid[2]) {
                gf_error_set(&err, GF_ERR_INVALID, "", 0, "--grid: every dimension must be >= 1");
                return gf_cli_error(&err);
            }
            grid_set = 1;
        } else if (FLAG("--block")) {
            NEED_VAL();
            if (parse_dim3(val, p.block))
                return BAD_VAL("X[,Y[,Z]]");
            block_set = 1;
        } else if (FLAG("--sms")) {
            unsigned s;
            NEED_VAL();
            if (parse_uint(val, &s) || s > UINT_MAX / 8)
                return BAD_VAL("a number of SMs");
            p.grid[0] = 8 * s; /* gentrace.py stream: 8 blocks per SM */
            p.grid[1] = p.grid[2] = 1;
            if (!s) {
                gf_error_set(&err, GF_ERR_INVALID, "", 0, "--sms: must be >= 1");
                return gf_cli_error(&err);
            }
            grid_set = 1;
        } else if (FLAG("--warps")) {
            NEED_VAL();
            if (parse_uint(val, &p.warps))
                return BAD_VAL("a number of warps");
            if (!p.warps) {
                gf_error_set(&err, GF_ERR_INVALID, "", 0, "--warps: must be >= 1");
                return gf_cli_error(&err);
            }
        } else if (FLAG("--total-warps")) {
            NEED_VAL();
            if (parse_uint(val, &p.total_warps))
                return BAD_VAL("a number of warps");
            if (!p.total_warps) {
                gf_error_set(&err, GF_ERR_INVALID, "", 0, "--total-warps: must be >= 1");
                return gf_cli_error(&err);
            }
        } else if (FLAG("-n")) {
            NEED_VAL();
            if (parse_u64(val, &p.n))
                return BAD_VAL("a non-negative integer");
            pchase_n_set = 1;
        } else if (FLAG("--stride")) {
            NEED_VAL();
            if (parse_uint(val, &p.stride))
                return BAD_VAL("a non-negative integer");
            pchase_shape_set = 1;
        } else if (FLAG("--footprint")) {
            NEED_VAL();
            if (parse_u64(val, &p.footprint))
                return BAD_VAL("a size in bytes (K, M, G suffixes)");
            pchase_shape_set = 1;
        } else if (FLAG("--level")) {
            NEED_VAL();
            /* Footprints between the levels of every shipped GPU: 16 KiB < any L1 (V100
             * 128 KB unified); 2 MiB > H100's 256 KB L1 and < GTX 1080's 2 MB ... 6 MB
             * L2 is tight on a GTX 1080 (2 MB L2), so l2 is for Volta and later; 256 MiB
             * > any L2 (H100 50 MB). Stride 4 KiB for DRAM: a new DRAM page per load. */
            if (strcmp(val, "l1") == 0)
                p.footprint = 16384, p.stride = 128;
            else if (strcmp(val, "l2") == 0)
                p.footprint = 2u << 20, p.stride = 128;
            else if (strcmp(val, "dram") == 0)
                p.footprint = 256u << 20, p.stride = 4096;
            else
                return BAD_VAL("l1, l2 or dram");
            pchase_shape_set = 1;
        } else if (FLAG("--width")) {
            NEED_VAL();
            if (parse_uint(val, &p.width))
                return BAD_VAL("4 or 16");
        } else if (FLAG("--tile")) {
            NEED_VAL();
            if (parse_uint(val, &p.tile))
                return BAD_VAL("8, 16 or 32");
        } else if (FLAG("--slots")) {
            NEED_VAL();
            if (parse_uint(val, &p.slots))
                return BAD_VAL("a number of 4-byte values");
        } else if (FLAG("--iters")) {
            NEED_VAL();
            if (parse_uint(val, &p.iters))
                return BAD_VAL("a number of passes");
        } else if (FLAG("--acc")) {
            NEED_VAL();
            if (parse_uint(val, &p.acc))
                return BAD_VAL("a number of accumulators");
        } else if (FLAG("--bypass")) {
            p.bypass = 1;
        } else if (FLAG("--atom")) {
            p.atom = 1;
        } else if (FLAG("--max-size")) {
            NEED_VAL();
            if (parse_u64(val, &p.max_bytes))
                return BAD_VAL("a size in bytes (K, M, G suffixes)");
        } else if (FLAG("--gzip")) {
            p.gzip = 1;
        } else if (FLAG("--addr-mode")) {
            NEED_VAL();
            if (strcmp(val, "list") == 0)
                p.addr_mode = GF_GEN_ADDR_LIST;
            else if (strcmp(val, "strided") == 0)
                p.addr_mode = GF_GEN_ADDR_STRIDED;
            else if (strcmp(val, "tracer") == 0)
                p.addr_mode = GF_GEN_ADDR_TRACER;
            else
                return BAD_VAL("list, strided or tracer");
        } else if (FLAG("-q") || FLAG("--quiet")) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return gf_cli_usage_error(cmd, "unknown option '%s'", a);
        } else if (!have_positional && kind == GF_GEN_STRIDE) {
            val = a;
            if (parse_uint(a, &p.stride))
                return gf_cli_usage_error(cmd, "stride: expected S in 1..32, got '%s'", a);
            have_positional = 1;
        } else if (!have_positional && kind == GF_GEN_STREAM) {
            if (gf_gen_stream_op_parse(a, &p.op) != 0)
                return gf_cli_usage_error(cmd, "stream: expected copy, scale, add or triad, "
                                               "got '%s'", a);
            have_positional = 1;
        } else {
            return gf_cli_usage_error(cmd, "unexpected argument '%s'", a);
        }
#undef FLAG
#undef NEED_VAL
#undef BAD_VAL
    }
    if (kind == GF_GEN_STRIDE && !have_positional && !pchase_shape_set)
        return gf_cli_usage_error(cmd, "stride needs S (1..32): gen stride S -o DIR");
    if (kind == GF_GEN_MATMUL && block_set)
        return gf_cli_usage_error(cmd, "matmul's block is tile x tile: use --tile");
    if (kind == GF_GEN_MATMUL && grid_set)
        return gf_cli_usage_error(cmd, "matmul's grid is (n/tile)^2: use -n");
    if (kind == GF_GEN_PCHASE && pchase_shape_set && !pchase_n_set && p.stride &&
        p.footprint >= p.stride)
        p.n = 2 * (p.footprint / p.stride); /* one cold and one warm pass */
    if (!out)
        return gf_cli_usage_error(cmd, "missing -o DIR");

    gf_gen_summary sum;
    if (gf_gen_write_summary(&p, out, &sum, &err) != GF_OK)
        return gf_cli_error(&err);
    if (!quiet)
        printf("wrote %s: %s, %llu blocks, %llu warps, %llu warp instructions "
               "(%llu memory), %llu bytes%s\n",
               out, gf_gen_kind_name(kind), (unsigned long long)sum.blocks,
               (unsigned long long)sum.warps, (unsigned long long)sum.warp_insts,
               (unsigned long long)sum.mem_insts, (unsigned long long)sum.bytes,
               p.gzip ? " before gzip" : "");
    return 0;
}
