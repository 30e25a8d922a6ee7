/*
 * The units of model values (gf_gpu_parse_*, declared in gpu.h): sizes, frequencies,
 * bandwidths, transfer rates and plain numbers, each a finite non-negative number and an
 * optional unit from a fixed table. Used by model files, --set and sweeps.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

/* Splits "1.5MiB" into 1.5 and "MiB"; the number must be finite and non-negative. */
static int split_number(const char *s, double *v, const char **unit, const char **why)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) {
        *why = "empty value";
        return -1;
    }
    if (*s == '-') {
        *why = "negative value";
        return -1;
    }
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(d)) {
        *why = "expected a number";
        return -1;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    /* strip trailing blanks of the unit */
    *v = d;
    *unit = end;
    return 0;
}

static int unit_is(const char *u, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(u, name, n) != 0)
        return 0;
    for (u += n; *u; u++)
        if (*u != ' ' && *u != '\t')
            return 0;
    return 1;
}

typedef struct unit_mult {
    const char *name;
    double mult;
} unit_mult;

static int scale(const char *s, const unit_mult *tab, double *out, const char **why,
                 const char *badunit)
{
    double v;
    const char *u;
    if (split_number(s, &v, &u, why) != 0)
        return -1;
    for (const unit_mult *t = tab; t->name; t++)
        if (unit_is(u, t->name)) {
            *out = v * t->mult;
            return 0;
        }
    *why = badunit;
    return -1;
}

int gf_gpu_parse_size(const char *s, uint64_t *out, const char **why)
{
    /* Binary prefixes with 'i', decimal without, as IEC 80000-13 says; GPU vendors write
     * "6 MB" for 6 MiB of L2, so the model files use KiB/MiB explicitly. */
    static const unit_mult tab[] = {
        {"", 1}, {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
        {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {NULL, 0}};
    double v;
    if (scale(s, tab, &v, why, "unknown size unit (expected B, KiB, MiB, GiB, KB, MB, GB)") != 0)
        return -1;
    if (v >= 1.8e19) {
        *why = "size too large";
        return -1;
    }
    if (v != floor(v)) {
        *why = "size is not a whole number of bytes";
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int gf_gpu_parse_freq(const char *s, double *out, const char **why)
{
    static const unit_mult tab[] = {{"", 1}, {"Hz", 1}, {"kHz", 1e3}, {"KHz", 1e3},
                                    {"MHz", 1e6}, {"GHz", 1e9}, {NULL, 0}};
    return scale(s, tab, out, why, "unknown frequency unit (expected Hz, kHz, MHz, GHz)");
}

int gf_gpu_parse_bandwidth(const char *s, double *out, const char **why)
{
    static const unit_mult tab[] = {
        {"", 1}, {"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
        {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
        {"TiB/s", 1099511627776.0}, {NULL, 0}};
    return scale(s, tab, out, why,
                 "unknown bandwidth unit (expected B/s, KB/s, MB/s, GB/s, TB/s, GiB/s)");
}

int gf_gpu_parse_xfer(const char *s, double *out, const char **why)
{
    static const unit_mult tab[] = {{"", 1}, {"T/s", 1}, {"bps", 1}, {"MT/s", 1e6},
                                    {"GT/s", 1e9}, {"Mbps", 1e6}, {"Gbps", 1e9}, {NULL, 0}};
    return scale(s, tab, out, why, "unknown transfer-rate unit (expected MT/s, GT/s, Mbps, Gbps)");
}

int gf_gpu_parse_plain(const char *s, double *out, const char **why)
{
    double v;
    const char *u;
    if (split_number(s, &v, &u, why) != 0)
        return -1;
    if (*u) {
        *why = "expected a plain number without a unit";
        return -1;
    }
    *out = v;
    return 0;
}

int gf_gpu_parse_whole(const char *s, double *out, const char **why)
{
    double v;
    if (gf_gpu_parse_plain(s, &v, why) != 0)
        return -1;
    if (v != floor(v)) {
        *why = "expected a whole number";
        return -1;
    }
    *out = v;
    return 0;
}
