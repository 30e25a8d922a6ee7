/* The public prediction entry point (include/gpuforecast/gpuforecast.h): a thin facade
 * over gf_gpu_load + gf_predict_trace that hides the internal structs. */
#include <math.h>
#include <stdlib.h>

#include "gpuforecast/gpuforecast.h"
#include "report/counters.h"
#include "timing/predict.h"
#include "util/error.h"

struct gf_result {
    gf_report rep;
};

gf_status gf_predict_file(const gf_predict_request *req, gf_result **out, gf_error *err)
{
    *out = NULL;
    if (!req || !req->trace || !req->gpu)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "gf_predict_file: a trace and a GPU model are required");
    gf_gpu gpu;
    gf_status st = gf_gpu_load(req->gpu, req->models_dir, req->overrides, req->noverrides, &gpu,
                               err);
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
