/*
 * Reuse-distance engine throughput (issue #4): accesses per second and peak memory for
 * 1 M, 10 M and 100 M accesses over a key space of 10 M distinct lines, for three
 * streams:
 *   sweep   cyclic sequential sweep (a streaming kernel; every reuse has distance M-1)
 *   mixed   half next-line-of-a-sweep, half uniform random line (GPU-like: streaming
 *           plus scattered reuse)
 *   random  uniform random lines (worst case for locality)
 * Each configuration runs in a forked child so its peak RSS (getrusage) is its own.
 *
 * usage: bench_reuse [--quick]     (--quick: 1 M and 10 M only)
 *        bench_reuse STREAM N M    (one configuration)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memory/reuse.h"

/* CPU time of this process: the machine is shared, so wall time would measure the
 * neighbours; user + system time is what one core spends on the stream. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_one(const char *stream, uint64_t n, uint64_t m)
{
    gf_reuse *r = gf_reuse_create();
    if (!r) {
        fprintf(stderr, "bench_reuse: out of memory\n");
        return 1;
    }
    uint64_t x = 88172645463325252ull, seq = 0, cold = 0, sum = 0;
    int kind = strcmp(stream, "sweep") == 0 ? 0 : strcmp(stream, "mixed") == 0 ? 1 : 2;
    double t0 = now_s(), c0 = cpu_s();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t key;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (kind == 0 || (kind == 1 && (x & 1))) {
            key = seq;
            if (++seq == m)
                seq = 0;
        } else {
            key = (x >> 1) % m;
        }
        uint64_t d = gf_reuse_access(r, key);
        if (d == GF_REUSE_NOMEM) {
            fprintf(stderr, "bench_reuse: out of memory at access %llu\n", (unsigned long long)i);
            return 1;
        }
        if (d == GF_REUSE_COLD)
            cold++;
        else
            sum += d;
    }
    double dt = now_s() - t0, dc = cpu_s() - c0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-6s %11llu %11llu %10llu %8.2f %8.2f %8.1f %8.1f %9.1f %10.1f\n", stream,
           (unsigned long long)n, (unsigned long long)m, (unsigned long long)gf_reuse_distinct(r),
           dt, dc, (double)n / dt / 1e6, (double)n / dc / 1e6, (double)ru.ru_maxrss / 1024.0,
           (double)gf_reuse_bytes(r) / 1048576.0);
    fflush(stdout); /* the child leaves with _exit, which does not flush */
    (void)cold;
    (void)sum;
    gf_reuse_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4)
        return run_one(argv[1], strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
    int quick = argc == 2 && strcmp(argv[1], "--quick") == 0;
    if (argc != 1 && !quick) {
        fprintf(stderr, "usage: bench_reuse [--quick] | bench_reuse sweep|mixed|random N M\n");
        return 2;
    }
    static const char *streams[] = {"sweep", "mixed", "random"};
    static const uint64_t ns[] = {1000000ull, 10000000ull, 100000000ull};
    const uint64_t m = 10000000ull;
    printf("%-6s %11s %11s %10s %8s %8s %8s %8s %9s %10s\n", "stream", "accesses", "keyspace",
           "distinct", "wall_s", "cpu_s", "M/s_wall", "M/s_cpu", "peakMiB", "engineMiB");
    fflush(stdout);
    for (unsigned s = 0; s < 3; s++)
        for (unsigned k = 0; k < (quick ? 2u : 3u); k++) {
            pid_t pid = fork();
            if (pid < 0)
                return 1;
            if (pid == 0)
                _exit(run_one(streams[s], ns[k], m));
            int st;
            waitpid(pid, &st, 0);
            fflush(stdout);
        }
    return 0;
}
