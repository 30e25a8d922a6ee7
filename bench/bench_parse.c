/*
 * Trace-parse throughput: MB/s and warp instructions/s of the Accel-Sim reader on plain,
 * gzip and xz copies of one large trace, and the peak RSS of the parsing process.
 *
 * usage: bench_parse [--mb N] [--xz-mb N] [--keep] [TRACE.traceg]
 *   Without TRACE, writes a synthetic trace of N MB (default 512) to /tmp by repeating
 *   thread blocks shaped like the refdata matrixmul kernel (tracer v4: ALU lines, mode-1
 *   LDG/STG/LDS/STS lines, a few mode-0 lines with 32 addresses), compresses it with zlib
 *   (level 6, like `gzip`) and liblzma (preset 1; the whole file, or with --xz-mb N a
 *   prefix of N MB cut at a block end, for traces whose xz compression would take minutes
 *   of a shared machine), parses each, and deletes the files unless --keep.
 * Each parse runs in a forked child so its peak RSS (getrusage) is the parser's alone; a
 * short run on a 1/8-size file shows whether RSS depends on trace length. The gz number
 * is compared with `zcat FILE | wc -l` (issue #2: within 2x).
 * See bench/README.md for results.
 */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/trace.h"

typedef struct result {
    int ok;
    double seconds, cpu;
    unsigned long long insts, blocks;
    long maxrss_kb;
    char msg[512];
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (long long)sb.st_size : -1;
}

static void parse(const char *path, result *r)
{
    gf_error e;
    gf_kreader *k;
    memset(r, 0, sizeof *r);
    double t0 = now();
    if (gf_kreader_open(path, &k, &e) != GF_OK) {
        snprintf(r->msg, sizeof r->msg, "%s:%ld: %s", e.file, e.line, e.message);
        return;
    }
    /* The generated trace and its prefixes hold fewer blocks than the header's grid
     * (it is written to a size, not to a grid): read what is there. */
    gf_kreader_set_partial(k, 1, NULL, NULL);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    gf_status st;
    while ((st = gf_kreader_next_block(k, tb, &e)) == GF_OK) {
        r->blocks++;
        while ((st = gf_kreader_next_warp(k, &w, &n, &e)) == GF_OK) {
            while ((st = gf_kreader_next_inst(k, &in, &e)) == GF_OK)
                r->insts++;
            if (st != GF_END)
                break;
        }
        if (st != GF_END)
            break;
    }
    r->seconds = now() - t0;
    if (st != GF_END) {
        snprintf(r->msg, sizeof r->msg, "%s:%ld: %s", e.file, e.line, e.message);
    } else {
        r->ok = 1;
    }
    gf_kreader_close(k);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->maxrss_kb = ru.ru_maxrss;
    r->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Parses in a child so the RSS is the parser's, not the generator's or compressor's. */
static result parse_in_child(const char *path)
{
    result r;
    memset(&r, 0, sizeof r);
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(r.msg, sizeof r.msg, "pipe failed");
        return r;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        parse(path, &r);
        ssize_t wn = write(fd[1], &r, sizeof r);
        _exit(wn == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = pid > 0 ? read(fd[0], &r, sizeof r) : -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    if (got != (ssize_t)sizeof r)
        snprintf(r.msg, sizeof r.msg, "child failed");
    return r;
}

/* One thread block of 32 warps, ~138 instructions each (matrixmul-like mix). */
static size_t write_block(FILE *f, unsigned long b)
{
    static char buf[1 << 20];
    size_t n = 0;
    unsigned long long g = 0x7fb02d700000ull + (b % 4096) * 0x1000ull;
    unsigned long long s = 0x7fb05c000000ull;
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "#BEGIN_TB\n\nthread block = %lu,0,0\n\n", b);
    for (int w = 0; w < 32; w++) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "warp = %d\ninsts = 138\n", w);
        for (int i = 0; i < 138; i++) {
            unsigned pc = (unsigned)i * 8u;
            switch (i % 12) {
            case 0:
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "%04x ffffffff 1 R%d LDG.E.CG 1 R%d 4 1 0x%llx 4 \n", pc,
                                      i % 40, (i + 3) % 40, g + (unsigned)(w * 128));
                break;
            case 1:
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "%04x ffffffff 0 STS 2 R%d R%d 4 1 0x%llx 4 \n", pc,
                                      i % 40, (i + 5) % 40, s + (unsigned)(w * 128));
                break;
            case 2:
            case 3:
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "%04x ffffffff 1 R%d LDS.U.32 1 R%d 4 1 0x%llx 0 \n", pc,
                                      i % 40, (i + 7) % 40, s + (unsigned)(i * 4));
                break;
            case 4:
                if (i == 4 || i == 100) { /* a scattered access: mode 0, 32 addresses */
                    n += (size_t)snprintf(buf + n, sizeof buf - n,
                                          "%04x ffffffff 1 R9 LDG.E 1 R10 4 0", pc);
                    for (int l = 0; l < 32; l++)
                        n += (size_t)snprintf(buf + n, sizeof buf - n, " 0x%llx",
                                              g + (unsigned)((l * 2654435761u) & 0xffffu));
                    n += (size_t)snprintf(buf + n, sizeof buf - n, " \n");
                    break;
                }
                /* fall through */
            default:
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "%04x ffffffff 1 R%d FFMA 3 R%d R%d R%d 0 \n", pc, i % 40,
                                      (i + 1) % 40, (i + 2) % 40, (i + 3) % 40);
            }
        }
    }
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\n#END_TB\n\n");
    return fwrite(buf, 1, n, f);
}

static int generate(const char *path, long long bytes, unsigned long long *insts)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    long long n = fprintf(f, "-kernel name = _Z8mult_gpuIfEvPT_S1_S1_ii\n-kernel id = 1\n"
                             "-grid dim = (65536,1,1)\n-block dim = (32,32,1)\n"
                             "-shmem = 8192\n-nregs = 30\n-binary version = 61\n"
                             "-cuda stream id = 0\n-shmem base_addr = 0x00007fb05c000000\n"
                             "-local mem base_addr = 0x00007fb05a000000\n"
                             "-nvbit version = 1.5.5\n-accelsim tracer version = 4\n"
                             "-enable lineinfo = 0\n\n#traces format = [line_num] PC mask "
                             "dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
                             "[adrrescompress?] [mem_addresses]\n\n\n");
    *insts = 0;
    for (unsigned long b = 0; n < bytes; b++) {
        n += (long long)write_block(f, b);
        *insts += 32 * 138;
    }
    return fclose(f);
}

static int compress_gz(const char *in, const char *out, long long limit)
{
    FILE *f = fopen(in, "rb");
    gzFile g = gzopen(out, "wb6");
    if (!f || !g)
        return -1;
    static char buf[1 << 20];
    size_t n;
    long long total = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && (limit < 0 || total < limit)) {
        if (gzwrite(g, buf, (unsigned)n) != (int)n)
            return -1;
        total += (long long)n;
    }
    fclose(f);
    return gzclose(g) == Z_OK ? 0 : -1;
}

/* Copies the first `limit` bytes of in, cut at a block boundary, to out (xz). */
static int compress_xz(const char *in, const char *out, long long limit, long long *written)
{
    FILE *f = fopen(in, "rb"), *o = fopen(out, "wb");
    if (!f || !o)
        return -1;
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_easy_encoder(&z, 1, LZMA_CHECK_CRC64) != LZMA_OK)
        return -1;
    static uint8_t ib[1 << 20], ob[1 << 20];
    long long total = 0;
    char line[4096];
    /* stop after the first #END_TB past the limit so the prefix is a valid trace */
    int done = 0;
    while (!done) {
        size_t n = 0;
        while (n + sizeof line < sizeof ib && fgets(line, sizeof line, f)) {
            size_t l = strlen(line);
            memcpy(ib + n, line, l);
            n += l;
            if (total + (long long)n >= limit && strncmp(line, "#END_TB", 7) == 0) {
                done = 1;
                break;
            }
        }
        if (n == 0)
            done = 1;
        total += (long long)n;
        z.next_in = ib;
        z.avail_in = n;
        lzma_action act = done ? LZMA_FINISH : LZMA_RUN;
        for (;;) {
            z.next_out = ob;
            z.avail_out = sizeof ob;
            lzma_ret rc = lzma_code(&z, act);
            fwrite(ob, 1, sizeof ob - z.avail_out, o);
            if (rc == LZMA_STREAM_END)
                break;
            if (rc != LZMA_OK)
                return -1;
            if (act == LZMA_RUN && z.avail_in == 0)
                break;
        }
    }
    lzma_end(&z);
    fclose(f);
    *written = total;
    return fclose(o);
}

static void report(const char *label, const char *path, long long plain_bytes, result r)
{
    if (!r.ok) {
        printf("%-22s FAILED: %s\n", label, r.msg);
        return;
    }
    double mb = (double)plain_bytes / 1e6;
    printf("%-18s %7.1f MB %7.1f MB(file) %6.2f s wall %6.2f s cpu %7.1f MB/s(cpu) "
           "%7.1f MB/s(wall) %6.2f Minst/s(cpu)  rss %6ld KB\n",
           label, mb, (double)file_size(path) / 1e6, r.seconds, r.cpu, mb / r.cpu,
           mb / r.seconds, (double)r.insts / r.cpu / 1e6, r.maxrss_kb);
}

int main(int argc, char **argv)
{
    long long mb = 512, xz_mb = -1; /* -1: the whole file */
    int keep = 0;
    const char *given = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
            mb = atoll(argv[++i]);
        else if (strcmp(argv[i], "--xz-mb") == 0 && i + 1 < argc)
            xz_mb = atoll(argv[++i]);
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else if (argv[i][0] != '-')
            given = argv[i];
        else {
            fprintf(stderr, "usage: bench_parse [--mb N] [--xz-mb N] [--keep] [TRACE]\n");
            return 2;
        }
    }
    char plain[256], small[256], gz[256], xz[256];
    int pid = (int)getpid();
    snprintf(small, sizeof small, "/tmp/gf-bench-%d-small.traceg", pid);
    snprintf(gz, sizeof gz, "/tmp/gf-bench-%d.traceg.gz", pid);
    snprintf(xz, sizeof xz, "/tmp/gf-bench-%d.traceg.xz", pid);
    unsigned long long expect = 0, expect_small = 0;
    double t0 = now();
    if (given) {
        snprintf(plain, sizeof plain, "%s", given);
    } else {
        snprintf(plain, sizeof plain, "/tmp/gf-bench-%d.traceg", pid);
        if (generate(plain, mb * 1000000, &expect) != 0 ||
            generate(small, mb * 1000000 / 8, &expect_small) != 0) {
            fprintf(stderr, "bench_parse: cannot write /tmp\n");
            return 1;
        }
        printf("generated %s (%.1f MB, %llu warp insts) in %.1f s\n", plain,
               (double)file_size(plain) / 1e6, expect, now() - t0);
    }
    long long psize = file_size(plain);
    t0 = now();
    if (compress_gz(plain, gz, -1) != 0) {
        fprintf(stderr, "bench_parse: gzip failed\n");
        return 1;
    }
    printf("gzip -6 (zlib) in %.1f s\n", now() - t0);
    t0 = now();
    long long xplain = 0;
    if (xz_mb < 0)
        xz_mb = (psize + 999999) / 1000000 + 1;
    if (compress_xz(plain, xz, xz_mb * 1000000, &xplain) != 0) {
        fprintf(stderr, "bench_parse: xz failed\n");
        return 1;
    }
    printf("xz -1 (liblzma) of %.1f MB in %.1f s\n", (double)xplain / 1e6, now() - t0);

    result r = parse_in_child(plain);
    report("plain", plain, psize, r);
    if (expect && r.insts != expect)
        printf("  MISMATCH: parsed %llu warp insts, generated %llu\n", r.insts, expect);
    if (!given) {
        result rs = parse_in_child(small);
        report("plain (1/8 size)", small, file_size(small), rs);
    }
    result rg = parse_in_child(gz);
    report("gzip", gz, psize, rg);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "zcat %s | wc -l >/dev/null", gz);
    t0 = now();
    int sysrc = system(cmd);
    double zt = now() - t0;
    struct rusage zr;
    getrusage(RUSAGE_CHILDREN, &zr); /* cumulative over children; zcat's share dominates */
    printf("%-18s %7.1f MB %24.2f s wall %28.1f MB/s(wall)   gf gzip parse / zcat (wall) = "
           "%.2fx%s\n",
           "zcat | wc -l", (double)psize / 1e6, zt, (double)psize / 1e6 / zt,
           rg.ok ? rg.seconds / zt : 0.0, sysrc ? " [zcat failed]" : "");
    (void)zr;
    result rx = parse_in_child(xz);
    report(xplain < psize ? "xz (prefix)" : "xz", xz, xplain, rx); /* MB/s over the prefix's plain bytes */
    if (!keep && !given)
        unlink(plain);
    if (!keep) {
        unlink(small);
        unlink(gz);
        unlink(xz);
    }
    return r.ok && rg.ok && rx.ok ? 0 : 1;
}
