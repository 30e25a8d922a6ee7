/*
 * What a fresh page costs (bigmem.h's gf_prefault): writes one byte to every 4 KiB page
 * of N MiB of fresh anonymous memory, either letting each page fault in on its first
 * write or faulting in K pages at a time with gf_prefault before writing them, and
 * prints the wall time per page of each. On the 2-core VMs this project runs on a fault
 * costs ~16 us and a page prefaulted 16 at a time ~4 us (bench/README.md, tenth session),
 * which is why the reuse engines' arrays, payload groups, histogram partials and warp
 * pools are prefaulted. Wall time, not CPU time: part of a fault's cost is the
 * hypervisor's and is charged to no process.
 *
 * usage: bench_faults [MiB=100]
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "util/bigmem.h"

#define PAGE 4096u

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* us per page to write one byte a page of n bytes of fresh memory, prefaulting `group`
 * pages at a time first (0: no prefault); -1 if the memory cannot be mapped. */
static double run(size_t n, size_t group)
{
    unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    size_t step = group ? group * PAGE : PAGE;
    double t0 = now_s();
    for (size_t off = 0; off < n; off += step) {
        size_t len = n - off < step ? n - off : step;
        if (group)
            gf_prefault(p + off, len);
        for (size_t i = off; i < off + len; i += PAGE)
            p[i] = 1;
    }
    double t = now_s() - t0;
    munmap(p, n);
    return t * 1e6 / (double)(n / PAGE);
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long mib = argc > 1 ? strtol(argv[1], &end, 10) : 100;
    if (argc > 2 || (argc > 1 && *end) || mib < 1 || mib > 65536) {
        fprintf(stderr, "usage: %s [MiB, 1..65536]\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)mib << 20;
    const size_t groups[] = {0, 1, 4, 16, 64};
    printf("%ld MiB of fresh memory, one write a page\n", mib);
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++) {
        double us = run(n, groups[k]);
        if (us < 0) {
            fprintf(stderr, "%s: cannot map %ld MiB\n", argv[0], mib);
            return 1;
        }
        if (groups[k])
            printf("prefaulted %2zu pages a call: %6.2f us a page\n", groups[k], us);
        else
            printf("a page fault a page:         %6.2f us a page\n", us);
    }
    return 0;
}
