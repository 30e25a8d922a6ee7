/* The public prediction entry point (include/gpuforecast/gpuforecast.h): a thin facade
 * over gf_gpu_load + gf_predict_trace that hides the internal structs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuforecast/gpuforecast.h"
#include "counters/counters.h"
#include "predict/predict.h"
#include "util/error.h"

struct gf_result {
    gf_report rep;
};

/* The request's warning callback behind the options' two kinds of warning. */
typedef struct warn_to {
    void (*fn)(void *ctx, const char *file, const char *message);
    void *ctx;
} warn_to;

static void warn_header(void *ctx, const char *file, const char *message)
{
    const warn_to *w = ctx;
    w->fn(w->ctx, file, message);
}

static void warn_unknown(void *ctx, const char *opcode, const char *file, long line)
{
    const warn_to *w = ctx;
    char msg[256];
    snprintf(msg, sizeof msg, "line %ld: unknown opcode '%.100s' timed as an integer ALU op",
             line, opcode);
    w->fn(w->ctx, file, msg);
}

gf_status gf_predict_file(const gf_predict_request *req, gf_result **out, gf_error *err)
{
    *out = NULL;
    if (!req || !req->trace || !req->gpu)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "gf_predict_file: a trace and a GPU model are required");
    if (req->scheduler && strcmp(req->scheduler, "gto") != 0 && strcmp(req->scheduler, "lrr") != 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "gf_predict_request.scheduler '%.100s': expected gto, lrr or NULL",
                            req->scheduler);
    if (req->noverrides && !req->overrides)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "gf_predict_request: noverrides = %u but no overrides",
                            req->noverrides);
    /* the scheduler is the key it stands for, applied after the caller's overrides */
    const char **over = calloc((size_t)req->noverrides + 1, sizeof *over);
    if (!over)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    unsigned n = 0;
    for (; n < req->noverrides; n++)
        over[n] = req->overrides[n];
    char sched[64];
    if (req->scheduler) {
        snprintf(sched, sizeof sched, "sm.warp_scheduler=%s", req->scheduler);
        over[n++] = sched;
    }
    gf_gpu gpu;
    gf_status st = gf_gpu_load(req->gpu, req->models_dir, over, n, &gpu, err);
    free(over);
    if (st != GF_OK)
        return st;
    gf_result *r = calloc(1, sizeof *r);
    if (!r)
        return gf_error_set(err, GF_ERR_NOMEM, req->trace, 0, "out of memory");
    gf_report_init(&r->rep);
    gf_predict_options opt = {0};
    opt.mode = req->exact ? GF_HIER_EXACT : GF_HIER_REUSE;
    opt.ksim.unknown = req->unknown_opcodes_as_alu ? GF_UNKNOWN_ALU : GF_UNKNOWN_ERROR;
    opt.ksim.hold_bytes = req->hold_bytes == 0            ? GF_KSIM_HOLD_DEFAULT
                          : req->hold_bytes == UINT64_MAX ? 0 /* never spill */
                                                          : req->hold_bytes;
    opt.models_dir = req->models_dir;
    opt.cold = req->cold_cache != 0;
    opt.ksim.partial = req->partial != 0;
    opt.ksim.threads = req->jobs;
    warn_to w = {req->warn, req->warn_ctx};
    if (req->warn) {
        opt.ksim.warn_header = warn_header;
        opt.ksim.warn_unknown = warn_unknown;
        opt.ksim.warn_ctx = &w;
    }
    st = gf_predict_trace(req->trace, &gpu, &opt, &r->rep, NULL, NULL, err);
    if (st != GF_OK) {
        gf_result_free(r);
        return st;
    }
    *out = r;
    return GF_OK;
}

void gf_result_free(gf_result *r)
{
    if (!r)
        return;
    gf_report_free(&r->rep);
    free(r);
}

size_t gf_result_kernel_count(const gf_result *r)
{
    return r ? r->rep.nrows : 0;
}

const char *gf_result_kernel_name(const gf_result *r, size_t k)
{
    return r && k < r->rep.nrows ? r->rep.rows[k].name : NULL;
}

long gf_result_kernel_id(const gf_result *r, size_t k)
{
    return r && k < r->rep.nrows ? r->rep.rows[k].id : -1;
}

const char *gf_result_limiter(const gf_result *r, size_t k)
{
    return r && k < r->rep.nrows ? r->rep.rows[k].limiter : NULL;
}

double gf_result_value(const gf_result *r, size_t k, const char *counter)
{
    const gf_counter_def *d = counter ? gf_counter_find(counter) : NULL;
    if (!r || k >= r->rep.nrows || !d)
        return NAN;
    return r->rep.rows[k].v[d->id];
}
