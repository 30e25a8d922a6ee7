/* Prediction intervals on cycles; see interval.h for the file and the classes. */
#include "report/interval.h"

#include <errno.h>
#include <ini.h>

/* inih keeps section names of up to INI_MAX_SECTION - 1 characters (its default 50, as
 * Debian builds it; ini.h does not export it): a longer one arrives cut. */
#define GF_INI_MAX_SECTION 50
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[GF_INTERVAL_CLASSES] = {"plain", "complex"};

/* Where an intervals file is read from, for both loaders' errors (read_line, fail). */
typedef struct ini_src {
    const char *path;
    FILE *fp;
    long line; /* of the line inih is handling */
    gf_error *err;
    int failed;
} ini_src;

typedef struct load_state {
    ini_src src;
    const char *gpu;
    gf_interval_factors own[GF_INTERVAL_CLASSES], fallback[GF_INTERVAL_CLASSES];
} load_state;

/* inih's reader, counting lines so a bad value can be named with its line. */
static char *read_line(char *str, int num, void *stream)
{
    ini_src *st = stream;
    if (!fgets(str, num, st->fp))
        return NULL;
    st->line++;
    return str;
}

static int fail(ini_src *st, const char *fmt, ...) GF_PRINTF(2, 3);
static int fail(ini_src *st, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gf_error_set(st->err, GF_ERR_PARSE, st->path, st->line, "%s", msg);
    st->failed = 1;
    return 0;
}

/* A number, whole value only ("0.93", not "0.93x"). */
static int number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    return end != s && !*end && errno == 0 && isfinite(*v);
}

/* Sections are "<gpu>.<class>" or "uncalibrated.<class>"; others are ignored, so one file
 * serves every GPU. */
static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    if (st->src.failed)
        return 0;
    const char *dot = strrchr(section, '.');
    if (!dot)
        return 1;
    size_t plen = (size_t)(dot - section);
    gf_interval_factors *set;
    if (strlen(st->gpu) == plen && strncmp(section, st->gpu, plen) == 0)
        set = st->own;
    else if (plen == 12 && strncmp(section, "uncalibrated", 12) == 0)
        set = st->fallback;
    else
        return 1;
    int c = -1;
    for (int i = 0; i < GF_INTERVAL_CLASSES; i++)
        if (strcmp(dot + 1, class_names[i]) == 0)
            c = i;
    if (c < 0)
        return fail(&st->src, "section [%s]: unknown class '%s' (expected plain or complex)", section,
                    dot + 1);
    gf_interval_factors *f = &set[c];
    f->present = 1;
    double v;
    if (strcmp(name, "basis") == 0)
        return 1; /* prose for readers */
    if (!number(value, &v))
        return fail(&st->src, "key '%s': '%s' is not a number", name, value);
    if (strcmp(name, "level") == 0) {
        if (!(v > 0 && v < 1))
            return fail(&st->src, "key '%s': %s is not a level between 0 and 1", name, value);
        f->level = v;
    } else if (strcmp(name, "n") == 0) {
        if (v < 2 || v != floor(v) || v > 1e6)
            return fail(&st->src, "key '%s': %s is not a count of at least 2 kernels", name, value);
        f->n = (long)v;
    } else if (strcmp(name, "low") == 0 || strcmp(name, "high") == 0) {
        if (!(v > 0 && v < 100))
            return fail(&st->src, "key '%s': %s is not a factor between 0 and 100", name, value);
        *(name[0] == 'l' ? &f->low : &f->high) = v;
    } else {
        return fail(&st->src, "unknown key '%s' in [%s] (expected level, n, low, high, basis)", name,
                    section);
    }
    return 1;
}

/* Every class given is whole: level, n, and low < high. */
static gf_status check(load_state *st, const gf_interval_factors *set, const char *prefix)
{
    for (int c = 0; c < GF_INTERVAL_CLASSES; c++) {
        const gf_interval_factors *f = &set[c];
        if (f->present && (!f->level || !f->n || !f->low || !f->high || f->low >= f->high))
            return gf_error_set(st->src.err, GF_ERR_PARSE, st->src.path, 0,
                                "section [%s.%s]: needs level, n, low and high with low < high",
                                prefix, class_names[c]);
    }
    return GF_OK;
}

gf_status gf_interval_load(const char *path, const char *gpu, gf_interval_table *out,
                           gf_error *err)
{
    memset(out, 0, sizeof *out);
    load_state st = {.src = {.path = path, .err = err}, .gpu = gpu ? gpu : ""};
    st.src.fp = fopen(path, "r");
    if (!st.src.fp)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    int rc = ini_parse_stream(read_line, &st.src, handler, &st);
    fclose(st.src.fp);
    if (st.src.failed)
        return GF_ERR_PARSE;
    if (rc != 0)
        return gf_error_set(err, GF_ERR_PARSE, path, rc,
                            "expected '[section]' or 'key = value'");
    gf_status s = check(&st, st.own, st.gpu);
    if (s == GF_OK)
        s = check(&st, st.fallback, "uncalibrated");
    if (s != GF_OK)
        return s;
    int own = 0, fallback = 0;
    for (int c = 0; c < GF_INTERVAL_CLASSES; c++) {
        own |= st.own[c].present;
        fallback |= st.fallback[c].present;
    }
    if (!own && !fallback)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "no [%s.plain|complex] and no [uncalibrated.plain|complex] section",
                            st.gpu);
    out->calibrated = own;
    snprintf(out->gpu, sizeof out->gpu, "%s", own ? st.gpu : "");
    memcpy(out->cls, own ? st.own : st.fallback, sizeof out->cls);
    return GF_OK;
}

const char *gf_interval_class_name(const gf_kernel_row *row)
{
    static const gf_counter_id marks[] = {
        GF_C_SHMEM_LD_REQUESTS, GF_C_SHMEM_ST_REQUESTS, GF_C_L1_ATOM_REQUESTS,
        GF_C_L1_LLD_REQUESTS, GF_C_L1_LST_REQUESTS, GF_C_PIPE_TENSOR_PCT,
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (row->v[marks[i]] > 0) /* NAN compares false: not counted is not a mark */
            return class_names[1];
    return class_names[0];
}

void gf_interval_apply(const gf_interval_table *t, int what_if, gf_kernel_row *row)
{
    row->cycles_lo = row->cycles_hi = NAN;
    row->interval[0] = 0;
    double cyc = row->v[GF_C_GPC_CYCLES_ELAPSED];
    const char *cls = gf_interval_class_name(row);
    const gf_interval_factors *f = &t->cls[strcmp(cls, class_names[0]) == 0 ? 0 : 1];
    if (!isfinite(cyc) || !f->present)
        return;
    row->cycles_lo = cyc * f->low;
    row->cycles_hi = cyc * f->high;
    snprintf(row->interval, sizeof row->interval, "%.0f%% %.24s %s, n %ld%s",
             f->level * 100, t->calibrated ? t->gpu : "uncalibrated", cls, f->n,
             what_if ? ", what-if unchecked" : "");
}

/* ---- memory counters: models/intervals/counters.ini ---- */

enum { K_SPACE = 1, K_LEVEL = 2, K_N = 4, K_LOW = 8, K_HIGH = 16 };

typedef struct centry {
    gf_counter_interval_def d;
    unsigned keys; /* K_* seen */
    long line;     /* of its section header, for a later complaint */
    char section[160];
} centry;

typedef struct cload_state {
    ini_src src;
    const char *gpu;
    centry own[GF_ROW_COUNTER_INTERVALS], fallback[GF_ROW_COUNTER_INTERVALS];
    int nown, nfallback;
} cload_state;

/* The entry of section "<prefix> <counter>", made on its first key. */
static centry *centry_of(cload_state *st, const char *section)
{
    const char *sp = strchr(section, ' ');
    if (!sp)
        return NULL;
    size_t plen = (size_t)(sp - section);
    centry *set;
    int *n;
    if (strlen(st->gpu) == plen && strncmp(section, st->gpu, plen) == 0) {
        set = st->own;
        n = &st->nown;
    } else if (plen == 12 && strncmp(section, "uncalibrated", 12) == 0) {
        set = st->fallback;
        n = &st->nfallback;
    } else {
        return NULL; /* another GPU's */
    }
    for (int i = 0; i < *n; i++)
        if (strcmp(set[i].section, section) == 0)
            return &set[i];
    const gf_counter_def *d = gf_counter_find(sp + 1);
    if (!d && strlen(section) >= GF_INI_MAX_SECTION - 1) {
        fail(&st->src, "section [%s...]: names of %d characters or more are cut by the .ini "
                       "reader; the counter it names cannot be told",
              section, GF_INI_MAX_SECTION - 1);
        return NULL;
    }
    if (!d) {
        fail(&st->src, "section [%s]: unknown counter '%s' ('gpuforecast counters' lists them)",
              section, sp + 1);
        return NULL;
    }
    if (*n == GF_ROW_COUNTER_INTERVALS) {
        fail(&st->src, "section [%s]: more than %d counters for one GPU", section,
              GF_ROW_COUNTER_INTERVALS);
        return NULL;
    }
    centry *e = &set[(*n)++];
    memset(e, 0, sizeof *e);
    snprintf(e->section, sizeof e->section, "%s", section);
    e->d.id = d->id;
    e->line = st->src.line;
    return e;
}

static int chandler(void *user, const char *section, const char *name, const char *value)
{
    cload_state *st = user;
    if (st->src.failed)
        return 0;
    centry *e = centry_of(st, section);
    if (!e)
        return !st->src.failed;
    if (strcmp(name, "basis") == 0)
        return 1;
    if (strcmp(name, "space") == 0) {
        if (strcmp(value, "log") != 0 && strcmp(value, "pp") != 0)
            return fail(&st->src, "key 'space': '%s' is not log or pp", value);
        e->d.log_space = value[0] == 'l';
        e->keys |= K_SPACE;
        return 1;
    }
    double v;
    if (!number(value, &v))
        return fail(&st->src, "key '%s': '%s' is not a number", name, value);
    if (strcmp(name, "level") == 0) {
        if (!(v > 0 && v < 1))
            return fail(&st->src, "key 'level': %s is not a level between 0 and 1", value);
        e->d.level = v;
        e->keys |= K_LEVEL;
    } else if (strcmp(name, "n") == 0) {
        if (v < 2 || v != floor(v) || v > 1e6)
            return fail(&st->src, "key 'n': %s is not a count of at least 2 launches", value);
        e->d.n = (long)v;
        e->keys |= K_N;
    } else if (strcmp(name, "min_predicted") == 0) {
        if (v < 0)
            return fail(&st->src, "key 'min_predicted': %s is negative", value);
        e->d.min_predicted = v;
    } else if (strcmp(name, "low") == 0 || strcmp(name, "high") == 0) {
        if (fabs(v) > 1e6)
            return fail(&st->src, "key '%s': %s is out of range", name, value);
        *(name[0] == 'l' ? &e->d.low : &e->d.high) = v;
        e->keys |= name[0] == 'l' ? K_LOW : K_HIGH;
    } else {
        return fail(&st->src, "unknown key '%s' in [%s] (expected space, level, n, min_predicted, "
                     "low, high, basis)", name, section);
    }
    return 1;
}

/* Every entry whole: all keys, low < high, factors positive in log space. */
static gf_status ccheck(cload_state *st, const centry *set, int n)
{
    for (int i = 0; i < n; i++) {
        const centry *e = &set[i];
        if ((e->keys & (K_SPACE | K_LEVEL | K_N | K_LOW | K_HIGH)) !=
                (K_SPACE | K_LEVEL | K_N | K_LOW | K_HIGH) ||
            e->d.low >= e->d.high || (e->d.log_space && !(e->d.low > 0)))
            return gf_error_set(st->src.err, GF_ERR_PARSE, st->src.path, e->line,
                                "section [%s]: needs space, level, n, low and high with low < "
                                "high (and low > 0 for space = log)",
                                e->section);
    }
    return GF_OK;
}

gf_status gf_interval_counters_load(const char *path, const char *gpu,
                                    gf_counter_interval_table *out, gf_error *err)
{
    memset(out, 0, sizeof *out);
    cload_state *st = calloc(1, sizeof *st);
    if (!st)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    st->src.path = path;
    st->gpu = gpu ? gpu : "";
    st->src.err = err;
    st->src.fp = fopen(path, "r");
    if (!st->src.fp) {
        free(st);
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    }
    int rc = ini_parse_stream(read_line, &st->src, chandler, st);
    fclose(st->src.fp);
    gf_status s = GF_OK;
    if (st->src.failed)
        s = GF_ERR_PARSE;
    else if (rc != 0)
        s = gf_error_set(err, GF_ERR_PARSE, path, rc, "expected '[section]' or 'key = value'");
    if (s == GF_OK)
        s = ccheck(st, st->own, st->nown);
    if (s == GF_OK)
        s = ccheck(st, st->fallback, st->nfallback);
    if (s == GF_OK) {
        int own = st->nown > 0;
        const centry *set = own ? st->own : st->fallback;
        out->calibrated = own;
        snprintf(out->gpu, sizeof out->gpu, "%s", own ? st->gpu : "");
        out->n = own ? st->nown : st->nfallback;
        for (int i = 0; i < out->n; i++)
            out->c[i] = set[i].d;
    }
    free(st);
    return s;
}

void gf_interval_counters_apply(const gf_counter_interval_table *t, int what_if,
                                gf_kernel_row *row)
{
    row->nciv = 0;
    for (int i = 0; i < t->n && i < GF_ROW_COUNTER_INTERVALS; i++) {
        const gf_counter_interval_def *d = &t->c[i];
        struct gf_counter_iv *e = &row->civ[row->nciv++];
        e->id = (int)d->id;
        e->lo = e->hi = NAN;
        e->basis[0] = 0;
        double v = row->v[d->id];
        if (!isfinite(v) || v < d->min_predicted || (d->log_space && !(v > 0)))
            continue;
        if (d->log_space) {
            e->lo = v * d->low;
            e->hi = v * d->high;
        } else { /* a percentage stays within 0-100 */
            e->lo = fmin(100, fmax(0, v + d->low));
            e->hi = fmin(100, fmax(0, v + d->high));
        }
        snprintf(e->basis, sizeof e->basis, "%.0f%% %.20s, n %ld%s", d->level * 100,
                 t->calibrated ? t->gpu : "uncalibrated", d->n,
                 what_if ? ", what-if unchecked" : "");
    }
}
