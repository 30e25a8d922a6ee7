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

static gf_status eval_config(const job *j, unsigned long long i, gf_report *rep, gf_error *err)
{
    const gf_sweep_spec *s = j->s;
    unsigned n = s->nsets + s->naxes;
    const char **over = gf_calloc(n ? n : 1, sizeof *over);
    char(*kv)[512] = gf_calloc(s->naxes ? s->naxes : 1, sizeof *kv);
    gf_status st = GF_OK;
    if (!over || !kv) {
        st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        goto done;
    }
    for (unsigned k = 0; k < s->nsets; k++)
        over[k] = s->sets[k];
    for (unsigned a = 0; a < s->naxes; a++) {
        snprintf(kv[a], sizeof kv[a], "%s=%s", s->axes[a].key,
                 s->axes[a].values[value_index(s, i, a)]);
        over[s->nsets + a] = kv[a];
    }
    gf_gpu gpu;
    st = gf_gpu_load(s->gpu_name, s->models_dir, over, n, &gpu, err);
    if (st == GF_OK)
        st = gf_profile_check(j->p, &gpu, err);
    if (st == GF_OK)
        st = gf_profile_evaluate(j->p, &gpu, rep, err);
done:
    free(over);
    free(kv);
    return st;
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

gf_status gf_sweep_run(const gf_sweep_spec *s, const gf_profile *p, FILE *out, gf_error *err)
{
    unsigned long long n = gf_sweep_count(s);
    if (n == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the sweep has no configurations (an empty --vary list) or too many");
    for (unsigned a = 0; a < s->naxes; a++)
        for (unsigned b = 0; b < a; b++)
            if (strcmp(s->axes[a].key, s->axes[b].key) == 0)
                return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                    "--vary %s is given twice; list all its values in one --vary",
                                    s->axes[a].key);
    job j = {.s = s, .p = p, .n = n};
    j.slots = gf_calloc(WINDOW, sizeof *j.slots);
    if (!j.slots)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.cv_ready, NULL);
    pthread_cond_init(&j.cv_free, NULL);

    csv_field(out, "config", 1);
    for (unsigned a = 0; a < s->naxes; a++)
        csv_field(out, s->axes[a].key, 0);
    csv_field(out, "kernel_id", 0);
    csv_field(out, "kernel_name", 0);
    csv_field(out, "limiter", 0);
    for (int c = 0; c < GF_C_COUNT; c++)
        csv_field(out, gf_counter_def_of((gf_counter_id)c)->name, 0);
    fputc('\n', out);

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
            st = sl->status;
            if (err) {
                /* The configuration, not a --set argument, is what failed. */
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "configuration %llu: %.900s", i, sl->err.message);
                gf_error_set(err, st, "", 0, "%s", msg);
            }
        } else {
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
    if (st == GF_OK && ferror(out))
        st = gf_error_set(err, GF_ERR_IO, "", 0, "write failed");
    return st;
}
