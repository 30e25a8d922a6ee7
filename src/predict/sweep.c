#include "predict/sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <csv.h>

#include "report/report.h"
#include "util/alloc.h"
#include "util/error.h"

unsigned long long gf_sweep_count(const gf_sweep_spec *s)
{
    unsigned long long n = 1;
    for (unsigned a = 0; a < s->naxes; a++) {
        if (s->axes[a].nvalues == 0 || n > (1ull << 40) / s->axes[a].nvalues)
            return 0;
        n *= s->axes[a].nvalues;
    }
    return n;
}

/* Configurations are computed by a pool of threads and written by the calling thread
 * strictly in index order through a window of WINDOW slots, so memory stays bounded
 * whatever the sweep's size and the output never depends on the thread count. */
#define WINDOW 256u

typedef struct slot {
    gf_report rep;
    gf_status status;
    gf_error err;
    int ready;
} slot;

typedef struct job {
    const gf_sweep_spec *s;
    const gf_profile *p;
    const gf_gpu_parsed *m;       /* the base model file, parsed once */
    unsigned long long n;
    slot *slots;                  /* WINDOW slots; configuration i uses i % WINDOW */
    pthread_mutex_t lock;
    pthread_cond_t cv_ready, cv_free;
    unsigned long long next;      /* next configuration to claim */
    unsigned long long written;   /* configurations written (slots below are free) */
    int stop;
} job;

/* Value index of axis a in configuration i: mixed radix, last axis fastest. */
static unsigned value_index(const gf_sweep_spec *s, unsigned long long i, unsigned a)
{
    for (unsigned b = s->naxes; b-- > a + 1;)
        i /= s->axes[b].nvalues;
    return (unsigned)(i % s->axes[a].nvalues);
}

/* The model of configuration i (the parsed base model with its overrides), checked
 * against the profile. */
static gf_status load_config(const gf_sweep_spec *s, const gf_gpu_parsed *m,
                             const gf_profile *p, unsigned long long i, gf_gpu *gpu,
                             gf_error *err)
{
    unsigned n = s->nsets + s->naxes;
    const char **over = gf_calloc(n ? n : 1, sizeof *over);
    const char **from = gf_calloc(n ? n : 1, sizeof *from);
    char(*kv)[512] = gf_calloc(s->naxes ? s->naxes : 1, sizeof *kv);
    gf_status st = GF_OK;
    if (!over || !from || !kv) {
        st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        goto done;
    }
    for (unsigned k = 0; k < s->nsets; k++) {
        over[k] = s->sets[k];
        from[k] = "--set";
    }
    for (unsigned a = 0; a < s->naxes; a++) {
        snprintf(kv[a], sizeof kv[a], "%s=%s", s->axes[a].key,
                 s->axes[a].values[value_index(s, i, a)]);
        over[s->nsets + a] = kv[a];
        from[s->nsets + a] = "--vary";
    }
    st = gf_gpu_from_parsed(m, over, from, n, gpu, err);
    if (st == GF_OK)
        st = gf_profile_check(p, gpu, err);
done:
    free(over);
    free(from);
    free(kv);
    return st;
}

static gf_status eval_config(const job *j, unsigned long long i, gf_report *rep, gf_error *err)
{
    gf_gpu gpu;
    gf_status st = load_config(j->s, j->m, j->p, i, &gpu, err);
    if (st == GF_OK)
        st = gf_profile_evaluate(j->p, &gpu, rep, err);
    return st;
}

/* err names configuration i as what failed (not a --set argument), with inner's message. */
static gf_status config_error(gf_error *err, gf_status st, unsigned long long i,
                              const gf_error *inner)
{
    if (!err)
        return st;
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "configuration %llu: %.900s", i, inner->message);
    return gf_error_set(err, st, "", 0, "%s", msg);
}

static void *worker(void *arg)
{
    job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        unsigned long long i;
        for (;;) {
            i = j->next;
            if (j->stop || i >= j->n) {
                pthread_mutex_unlock(&j->lock);
                return NULL;
            }
            if (i < j->written + WINDOW)
                break;
            pthread_cond_wait(&j->cv_free, &j->lock);
        }
        j->next++;
        slot *sl = &j->slots[i % WINDOW];
        pthread_mutex_unlock(&j->lock);
        gf_report_init(&sl->rep);
        gf_error_clear(&sl->err);
        sl->status = eval_config(j, i, &sl->rep, &sl->err);
        pthread_mutex_lock(&j->lock);
        sl->ready = 1;
        pthread_cond_broadcast(&j->cv_ready);
        pthread_mutex_unlock(&j->lock);
    }
}

static void csv_field(FILE *out, const char *s, int first)
{
    if (!first)
        fputc(',', out);
    csv_fwrite(out, s, strlen(s));
}

static void write_rows(const gf_sweep_spec *s, unsigned long long i, const gf_report *r,
                       FILE *out)
{
    char buf[64];
    for (size_t k = 0; k < r->nrows; k++) {
        fprintf(out, "%llu", i);
        for (unsigned a = 0; a < s->naxes; a++)
            csv_field(out, s->axes[a].values[value_index(s, i, a)], 0);
        fprintf(out, ",%ld", r->rows[k].id);
        csv_field(out, r->rows[k].name, 0);
        csv_field(out, r->rows[k].limiter, 0);
        for (int c = 0; c < GF_C_COUNT; c++)
            fprintf(out, ",%s", gf_report_format_value(r->rows[k].v[c], buf, sizeof buf));
        fputc('\n', out);
    }
}

static void write_header(const gf_sweep_spec *s, FILE *out)
{
    csv_field(out, "config", 1);
    for (unsigned a = 0; a < s->naxes; a++)
        csv_field(out, s->axes[a].key, 0);
    csv_field(out, "kernel_id", 0);
    csv_field(out, "kernel_name", 0);
    csv_field(out, "limiter", 0);
    for (int c = 0; c < GF_C_COUNT; c++)
        csv_field(out, gf_counter_def_of((gf_counter_id)c)->name, 0);
    fputc('\n', out);
}

static gf_status check_axes(const gf_sweep_spec *s, gf_error *err)
{
    if (gf_sweep_count(s) == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the sweep has no configurations (an empty --vary list) or too many");
    for (unsigned a = 0; a < s->naxes; a++)
        for (unsigned b = 0; b < a; b++)
            if (strcmp(s->axes[a].key, s->axes[b].key) == 0)
                return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                    "--vary %s is given twice; list all its values in one --vary",
                                    s->axes[a].key);
    /* a --set the --vary would silently override */
    for (unsigned a = 0; a < s->naxes; a++)
        for (unsigned k = 0; k < s->nsets; k++) {
            const char *eq = strchr(s->sets[k], '=');
            size_t n = eq ? (size_t)(eq - s->sets[k]) : strlen(s->sets[k]);
            while (n && (s->sets[k][n - 1] == ' ' || s->sets[k][n - 1] == '\t'))
                n--;
            if (strlen(s->axes[a].key) == n && strncmp(s->sets[k], s->axes[a].key, n) == 0)
                return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                    "--set %s and --vary %s give the same key: keep one (a --vary "
                                    "would override the --set in every configuration)",
                                    s->sets[k], s->axes[a].key);
        }
    return GF_OK;
}

/* Every value of every axis, before anything is written: configuration 0 and, per axis,
 * the configurations that differ from it in that axis alone (sum of the list lengths
 * model loads, not their product). */
static gf_status check_config(const gf_sweep_spec *s, const gf_gpu_parsed *m,
                              const gf_profile *p, unsigned long long i, gf_error *err)
{
    gf_gpu gpu;
    gf_error inner;
    gf_error_clear(&inner);
    gf_status st = load_config(s, m, p, i, &gpu, &inner);
    return st == GF_OK ? GF_OK : config_error(err, st, i, &inner);
}

static gf_status check_values(const gf_sweep_spec *s, const gf_gpu_parsed *m,
                              const gf_profile *p, gf_error *err)
{
    gf_status st = check_config(s, m, p, 0, err);
    unsigned long long stride = 1; /* index step of axis a: the product of later axes */
    for (unsigned a = s->naxes; st == GF_OK && a-- > 0;) {
        for (unsigned v = 1; st == GF_OK && v < s->axes[a].nvalues; v++)
            st = check_config(s, m, p, stride * v, err);
        stride *= s->axes[a].nvalues;
    }
    return st;
}

/* The base model, parsed once for every configuration; a file that does not parse fails
 * configuration 0, as it would have when each configuration read the file. */
static gf_status parse_base(const gf_sweep_spec *s, gf_gpu_parsed **m, gf_error *err)
{
    gf_error inner;
    gf_error_clear(&inner);
    gf_status st = gf_gpu_parse(s->gpu_name, s->models_dir, m, &inner);
    return st == GF_OK ? GF_OK : config_error(err, st, 0, &inner);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

gf_status gf_sweep_plan_make(const gf_sweep_spec *s, const gf_profile *p, gf_sweep_plan *plan,
                             gf_error *err)
{
    memset(plan, 0, sizeof *plan);
    gf_gpu_parsed *m = NULL;
    gf_status st = check_axes(s, err);
    if (st == GF_OK)
        st = parse_base(s, &m, err);
    if (st == GF_OK)
        st = check_values(s, m, p, err);
    if (st != GF_OK) {
        gf_gpu_parsed_free(m);
        return st;
    }
    /* The first configuration, written to memory, stands for every one: rows differ
     * only in their values' widths. */
    job j = {.s = s, .p = p, .m = m, .n = 1};
    gf_report rep;
    gf_report_init(&rep);
    gf_error inner;
    gf_error_clear(&inner);
    double t0 = seconds_now();
    st = eval_config(&j, 0, &rep, &inner);
    double t = seconds_now() - t0;
    char *buf = NULL;
    size_t hlen = 0, len = 0;
    FILE *mem = st == GF_OK ? open_memstream(&buf, &len) : NULL;
    if (st != GF_OK)
        st = config_error(err, st, 0, &inner);
    else if (!mem)
        st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    else {
        write_header(s, mem);
        fflush(mem);
        hlen = len;
        write_rows(s, 0, &rep, mem);
        if (fclose(mem) != 0)
            st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    }
    if (st == GF_OK) {
        unsigned long long n = gf_sweep_count(s);
        unsigned nt = s->threads ? s->threads : 1;
        plan->configs = n;
        plan->rows = n * rep.nrows;
        plan->bytes = hlen + n * (len - hlen);
        plan->seconds = t * (double)n / (double)(nt < n ? nt : n);
    }
    free(buf);
    gf_report_free(&rep);
    gf_gpu_parsed_free(m);
    return st;
}

gf_status gf_sweep_run(const gf_sweep_spec *s, const gf_profile *p, FILE *out, gf_error *err)
{
    gf_gpu_parsed *m = NULL;
    gf_status st0 = check_axes(s, err);
    if (st0 == GF_OK)
        st0 = parse_base(s, &m, err);
    if (st0 == GF_OK)
        st0 = check_values(s, m, p, err);
    if (st0 != GF_OK) {
        gf_gpu_parsed_free(m);
        return st0;
    }
    unsigned long long n = gf_sweep_count(s);
    job j = {.s = s, .p = p, .m = m, .n = n};
    j.slots = gf_calloc(WINDOW, sizeof *j.slots);
    if (!j.slots) {
        gf_gpu_parsed_free(m);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    }
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.cv_ready, NULL);
    pthread_cond_init(&j.cv_free, NULL);

    unsigned nt = s->threads ? s->threads : 1;
    if (nt > n)
        nt = (unsigned)n;
    pthread_t *tids = gf_calloc(nt, sizeof *tids);
    unsigned started = 0;
    for (unsigned t = 0; tids && t < nt; t++)
        if (pthread_create(&tids[t], NULL, worker, &j) == 0)
            started++;
    gf_status st = GF_OK;
    if (started == 0)
        st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "cannot start a sweep thread");
    for (unsigned long long i = 0; i < n && st == GF_OK; i++) {
        slot *sl = &j.slots[i % WINDOW];
        pthread_mutex_lock(&j.lock);
        while (!sl->ready)
            pthread_cond_wait(&j.cv_ready, &j.lock);
        pthread_mutex_unlock(&j.lock);
        if (sl->status != GF_OK) {
            st = config_error(err, sl->status, i, &sl->err);
        } else {
            if (i == 0) /* only now: a sweep failing at once prints nothing */
                write_header(s, out);
            write_rows(s, i, &sl->rep, out);
        }
        gf_report_free(&sl->rep);
        pthread_mutex_lock(&j.lock);
        sl->ready = 0;
        j.written++;
        if (st != GF_OK)
            j.stop = 1;
        pthread_cond_broadcast(&j.cv_free);
        pthread_mutex_unlock(&j.lock);
    }
    pthread_mutex_lock(&j.lock);
    j.stop = 1;
    pthread_cond_broadcast(&j.cv_free);
    pthread_mutex_unlock(&j.lock);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    /* Slots finished after a stop still hold reports. */
    for (unsigned k = 0; k < WINDOW; k++)
        if (j.slots[k].ready)
            gf_report_free(&j.slots[k].rep);
    free(j.slots);
    pthread_mutex_destroy(&j.lock);
    pthread_cond_destroy(&j.cv_ready);
    pthread_cond_destroy(&j.cv_free);
    gf_gpu_parsed_free(m);
    if (st == GF_OK && ferror(out))
        st = gf_error_set(err, GF_ERR_IO, "", 0, "write failed");
    return st;
}
