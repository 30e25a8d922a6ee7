#include "timing/sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct job {
    const gf_sweep_spec *s;
    const gf_profile *p;
    unsigned long long n;
    gf_report *results;       /* one report per configuration */
    gf_error *errors;         /* one per configuration */
    gf_status *status;
    pthread_mutex_t lock;
    unsigned long long next;
    int failed;
} job;

/* Value index of axis a in configuration i: mixed radix, last axis fastest. */
static unsigned value_index(const gf_sweep_spec *s, unsigned long long i, unsigned a)
{
    for (unsigned b = s->naxes; b-- > a + 1;)
        i /= s->axes[b].nvalues;
    return (unsigned)(i % s->axes[a].nvalues);
}

static gf_status eval_config(const job *j, unsigned long long i, gf_report *rep, gf_error *err)
{
    const gf_sweep_spec *s = j->s;
    const char *over[64 + GF_SWEEP_MAX_AXES];
    char kv[GF_SWEEP_MAX_AXES][512];
    unsigned n = 0;
    for (unsigned k = 0; k < s->nsets && n < 64; k++)
        over[n++] = s->sets[k];
    for (unsigned a = 0; a < s->naxes; a++) {
        snprintf(kv[a], sizeof kv[a], "%s=%s", s->axes[a].key,
                 s->axes[a].values[value_index(s, i, a)]);
        over[n++] = kv[a];
    }
    gf_gpu gpu;
    gf_status st = gf_gpu_load(s->gpu_name, s->models_dir, over, n, &gpu, err);
    if (st == GF_OK)
        st = gf_profile_check(j->p, &gpu, err);
    if (st == GF_OK)
        st = gf_profile_evaluate(j->p, &gpu, rep, err);
    return st;
}

static void *worker(void *arg)
{
    job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        unsigned long long i = j->next++;
        int stop = j->failed;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->n || stop)
            return NULL;
        gf_error_clear(&j->errors[i]);
        j->status[i] = eval_config(j, i, &j->results[i], &j->errors[i]);
        if (j->status[i] != GF_OK) {
            pthread_mutex_lock(&j->lock);
            j->failed = 1;
            pthread_mutex_unlock(&j->lock);
        }
    }
}

static void csv_field(FILE *out, const char *s, int first)
{
    if (!first)
        fputc(',', out);
    csv_fwrite(out, s, strlen(s));
}

gf_status gf_sweep_run(const gf_sweep_spec *s, const gf_profile *p, FILE *out, gf_error *err)
{
    unsigned long long n = gf_sweep_count(s);
    if (n == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the sweep has no configurations (an empty --vary list) or too many");
    job j = {.s = s, .p = p, .n = n};
    j.results = gf_calloc(n, sizeof *j.results);
    j.errors = gf_calloc(n, sizeof *j.errors);
    j.status = gf_calloc(n, sizeof *j.status);
    if (!j.results || !j.errors || !j.status) {
        free(j.results);
        free(j.errors);
        free(j.status);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for %llu configurations", n);
    }
    for (unsigned long long i = 0; i < n; i++)
        gf_report_init(&j.results[i]);
    pthread_mutex_init(&j.lock, NULL);
    unsigned nt = s->threads ? s->threads : 1;
    if (nt > n)
        nt = (unsigned)n;
    pthread_t *tids = gf_calloc(nt, sizeof *tids);
    unsigned started = 0;
    for (unsigned t = 0; tids && t < nt; t++)
        if (pthread_create(&tids[t], NULL, worker, &j) == 0)
            started++;
    if (started == 0)
        worker(&j); /* no threads available: run here */
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    pthread_mutex_destroy(&j.lock);

    gf_status st = GF_OK;
    for (unsigned long long i = 0; i < n && st == GF_OK; i++)
        if (j.status[i] != GF_OK) {
            st = j.status[i];
            if (err) {
                *err = j.errors[i];
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "configuration %llu: %.900s", i, j.errors[i].message);
                snprintf(err->message, sizeof err->message, "%s", msg);
            }
        }
    if (st == GF_OK) {
        csv_field(out, "config", 1);
        for (unsigned a = 0; a < s->naxes; a++)
            csv_field(out, s->axes[a].key, 0);
        csv_field(out, "kernel_id", 0);
        csv_field(out, "kernel_name", 0);
        for (int c = 0; c < GF_C_COUNT; c++)
            csv_field(out, gf_counter_def_of((gf_counter_id)c)->name, 0);
        fputc('\n', out);
        char buf[64];
        for (unsigned long long i = 0; i < n; i++) {
            const gf_report *r = &j.results[i];
            for (size_t k = 0; k < r->nrows; k++) {
                fprintf(out, "%llu", i);
                for (unsigned a = 0; a < s->naxes; a++)
                    csv_field(out, s->axes[a].values[value_index(s, i, a)], 0);
                fprintf(out, ",%ld", r->rows[k].id);
                csv_field(out, r->rows[k].name, 0);
                for (int c = 0; c < GF_C_COUNT; c++)
                    fprintf(out, ",%s", gf_report_format_value(r->rows[k].v[c], buf, sizeof buf));
                fputc('\n', out);
            }
        }
        if (ferror(out))
            st = gf_error_set(err, GF_ERR_IO, "", 0, "write failed");
    }
    for (unsigned long long i = 0; i < n; i++)
        gf_report_free(&j.results[i]);
    free(j.results);
    free(j.errors);
    free(j.status);
    return st;
}
