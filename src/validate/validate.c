#include "validate/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "util/alloc.h"
#include "util/error.h"
#include "validate/kname.h"

/* ---- names ---- */

const char *gf_validate_base_name(const char *name, char *buf, size_t n)
{
    char *canon = gf_kname_canonical(name);
    if (!canon) {
        snprintf(buf, n, "%s", name);
        return buf;
    }
    gf_kname_base(canon, buf, n);
    free(canon);
    return buf;
}

/* ---- statistics ---- */

double gf_validate_error(const double *pred, const double *hw, size_t n, int is_rate,
                         int *n_used)
{
    double s = 0;
    int used = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(pred[i]) || isnan(hw[i]))
            continue;
        if (is_rate) {
            s += fabs(pred[i] - hw[i]);
        } else if (hw[i] != 0) {
            s += fabs(pred[i] - hw[i]) / fabs(hw[i]) * 100.0;
        } else if (pred[i] == 0) {
            /* both zero: exactly right */
        } else {
            continue;
        }
        used++;
    }
    if (n_used)
        *n_used = used;
    return used ? s / used : NAN;
}

double gf_validate_correlation(const double *pred, const double *hw, size_t n)
{
    if (n < 2)
        return NAN;
    double vp = gsl_stats_variance(pred, 1, n), vh = gsl_stats_variance(hw, 1, n);
    if (!(vp > 0) || !(vh > 0))
        return NAN;
    return gsl_stats_correlation(pred, 1, hw, 1, n);
}

static double kernel_error(double p, double h, int is_rate)
{
    if (isnan(p) || isnan(h))
        return NAN;
    if (is_rate)
        return p - h;
    if (h != 0)
        return (p - h) / fabs(h) * 100.0;
    return p == 0 ? 0.0 : NAN;
}

/* ---- matching ---- */

static gf_status add_unmatched(gf_validation *v, size_t *cap, const char *file, long line,
                               long id, const char *name)
{
    void *p = v->unmatched;
    if (gf_grow(&p, cap, v->nunmatched + 1, sizeof *v->unmatched) != 0)
        return GF_ERR_NOMEM;
    v->unmatched = p;
    gf_vunmatched *u = &v->unmatched[v->nunmatched++];
    snprintf(u->file, sizeof u->file, "%s", file);
    u->line = line;
    u->id = id;
    snprintf(u->name, sizeof u->name, "%s", name);
    return GF_OK;
}

/* v->sources: the formats of the hardware files, e.g. "nvprof x3". */
static void describe_sources(gf_validation *v, const gf_hw_file *hw, size_t nhw)
{
    for (size_t f = 0; f < nhw; f++) {
        size_t same = 0, first = f;
        for (size_t g = 0; g < nhw; g++)
            if (hw[g].format == hw[f].format) {
                same++;
                if (g < first)
                    first = g;
            }
        if (first != f)
            continue;
        size_t l = strlen(v->sources);
        snprintf(v->sources + l, sizeof v->sources - l, "%s%s x%zu", l ? ", " : "",
                 gf_hardware_format_name(hw[f].format), same);
    }
}

/* The kernels of v: every selected predicted row that some hardware row measures, in
 * prediction order (kidx[k] its index, -1 for none); the selected rows no file measures
 * become unmatched entries. 0 when out of memory. */
static int make_kernels(gf_validation *v, const gf_vpairing *pr, const gf_report *pred,
                        const gf_hw_file *hw, size_t nhw, long *kidx, size_t *ucap)
{
    for (size_t k = 0; k < pred->nrows; k++)
        kidx[k] = -1;
    for (size_t f = 0; f < nhw; f++)
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            if (pr->owner[f][i] >= 0)
                kidx[pr->owner[f][i]] = 0;
    gf_kernel_row *prow = malloc(sizeof *prow);
    if (!prow)
        return 0;
    for (size_t k = 0; k < pred->nrows; k++) {
        if (!pr->selected[k])
            continue;
        *prow = pred->rows[k];
        gf_report_derive(prow);
        if (kidx[k] < 0) {
            if (add_unmatched(v, ucap, "", 0, prow->id, prow->name) != GF_OK) {
                free(prow);
                return 0;
            }
            continue;
        }
        kidx[k] = (long)v->nkernels;
        gf_vkernel *vk = &v->kernels[v->nkernels++];
        vk->id = prow->id;
        snprintf(vk->name, sizeof vk->name, "%s", prow->name);
        snprintf(vk->gpu, sizeof vk->gpu, "%s", prow->gpu);
        for (int c = 0; c < GF_C_COUNT; c++)
            vk->v[c].pred = prow->v[c];
    }
    free(prow);
    return 1;
}

/* v->pairs: every measured launch that paired, files and rows in order; v->paths. 0 when
 * out of memory. */
static int record_pairs(gf_validation *v, const gf_vpairing *pr, const long *kidx,
                        const gf_hw_file *hw, size_t nhw)
{
    size_t n = 0;
    for (size_t f = 0; f < nhw; f++)
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            n += pr->owner[f][i] >= 0;
    v->pairs = malloc((n + 1) * sizeof *v->pairs);
    v->paths = calloc(nhw + 1, sizeof *v->paths);
    if (!v->pairs || !v->paths)
        return 0;
    for (size_t f = 0; f < nhw; f++) {
        snprintf(v->paths[f], sizeof v->paths[f], "%s", hw[f].path);
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            if (pr->owner[f][i] >= 0)
                v->pairs[v->npairs++] = (gf_vpair){kidx[pr->owner[f][i]], f,
                                                   hw[f].lines ? hw[f].lines[i] : 0};
    }
    return 1;
}

/* Each kernel's hardware values: the mean, minimum and maximum of the rows that measure
 * it (files in order, rows in order), and its error. The rows are bucketed by kernel
 * first (a counting sort), so this is linear in the rows. 0 when out of memory. */
static int measure_kernels(gf_validation *v, const gf_vpairing *pr, const long *kidx,
                           const gf_hw_file *hw, size_t nhw)
{
    size_t nall = 0;
    for (size_t f = 0; f < nhw; f++)
        nall += hw[f].rows.nrows;
    size_t *first = calloc(v->nkernels + 1, sizeof *first);
    const gf_kernel_row **rows = malloc((nall + 1) * sizeof *rows);
    double *samples = malloc((nall + 1) * sizeof *samples);
    int ok = first && rows && samples;
    for (size_t f = 0; ok && f < nhw; f++)
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            if (pr->owner[f][i] >= 0)
                first[kidx[pr->owner[f][i]] + 1]++;
    for (size_t k = 0; ok && k < v->nkernels; k++)
        first[k + 1] += first[k];
    for (size_t f = 0; ok && f < nhw; f++)
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            if (pr->owner[f][i] >= 0)
                rows[first[kidx[pr->owner[f][i]]]++] = &hw[f].rows.rows[i];
    /* first[k] now ends kernel k's rows: shift back to starts */
    for (size_t k = v->nkernels; ok && k > 0; k--)
        first[k] = first[k - 1];
    if (ok)
        first[0] = 0;
    for (size_t vk_i = 0; ok && vk_i < v->nkernels; vk_i++) {
        gf_vkernel *vk = &v->kernels[vk_i];
        for (int c = 0; c < GF_C_COUNT; c++) {
            gf_vvalue *x = &vk->v[c];
            size_t ns = 0;
            for (size_t r = first[vk_i]; r < first[vk_i + 1]; r++)
                if (!isnan(rows[r]->v[c]))
                    samples[ns++] = rows[r]->v[c];
            x->hw_n = (int)ns;
            if (ns) {
                x->hw_mean = gsl_stats_mean(samples, 1, ns);
                gsl_stats_minmax(&x->hw_min, &x->hw_max, samples, 1, ns);
            } else {
                x->hw_mean = x->hw_min = x->hw_max = NAN;
            }
            x->error = kernel_error(x->pred, x->hw_mean,
                                    gf_counter_def_of((gf_counter_id)c)->is_rate);
        }
    }
    free(first);
    free(rows);
    free(samples);
    return ok;
}

/* The hardware rows no kernel took, as unmatched entries after the predicted ones. 0 when
 * out of memory. */
static int add_unmatched_hw(gf_validation *v, const gf_vpairing *pr, const gf_hw_file *hw,
                            size_t nhw, size_t *ucap)
{
    for (size_t f = 0; f < nhw; f++)
        for (size_t i = 0; i < hw[f].rows.nrows; i++)
            if (pr->owner[f][i] < 0 &&
                add_unmatched(v, ucap, hw[f].path, hw[f].lines ? hw[f].lines[i] : 0,
                              hw[f].rows.rows[i].id, hw[f].rows.rows[i].name) != GF_OK)
                return 0;
    return 1;
}

/* Per-counter statistics over the matched kernels. 0 when out of memory. */
static int summarize(gf_validation *v)
{
    double *ps = malloc((v->nkernels + 1) * sizeof *ps);
    double *hs = malloc((v->nkernels + 1) * sizeof *hs);
    int ok = ps && hs;
    for (int c = 0; ok && c < GF_C_COUNT; c++) {
        size_t n = 0;
        for (size_t k = 0; k < v->nkernels; k++) {
            const gf_vvalue *x = &v->kernels[k].v[c];
            if (isnan(x->pred) || isnan(x->hw_mean))
                continue;
            ps[n] = x->pred;
            hs[n] = x->hw_mean;
            n++;
        }
        gf_vsummary *s = &v->summary[c];
        s->n = (int)n;
        s->error = gf_validate_error(ps, hs, n, gf_counter_def_of((gf_counter_id)c)->is_rate,
                                     &s->n_error);
        s->correlation = gf_validate_correlation(ps, hs, n);
    }
    free(ps);
    free(hs);
    return ok;
}

/* The issues as one error message: as many as fit, then how many more. */
static gf_status issues_error(const gf_vpairing *pr, gf_error *err)
{
    char msg[1000];
    size_t l = (size_t)snprintf(msg, sizeof msg, "%zu kernel pairing%s failed (--loose makes "
                                "them warnings): ", pr->nissues, pr->nissues == 1 ? "" : "s");
    size_t shown = 0;
    for (; shown < pr->nissues && l + strlen(pr->issues[shown]) + 40 < sizeof msg; shown++)
        l += (size_t)snprintf(msg + l, sizeof msg - l, "%s%s", shown ? "; " : "",
                              pr->issues[shown]);
    if (shown < pr->nissues)
        snprintf(msg + l, sizeof msg - l, "%s(and %zu more)", shown ? "; " : "",
                 pr->nissues - shown);
    return gf_error_set(err, GF_ERR_INVALID, "", 0, "%s", msg);
}

gf_status gf_validate_run(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                          gf_validation **out, gf_error *err)
{
    return gf_validate_run_opts(pred, hw, nhw, NULL, out, err);
}

gf_status gf_validate_run_opts(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                               const gf_validate_options *opt, gf_validation **out,
                               gf_error *err)
{
    *out = NULL;
    if (nhw > GF_VALIDATE_MAX_FILES)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "%zu hardware files given, at most %d are compared", nhw,
                            GF_VALIDATE_MAX_FILES);
    gf_vpairing pr;
    gf_status st = gf_pairing_run(pred, hw, nhw, opt, &pr, err);
    if (st == GF_OK && pr.nissues && !(opt && opt->loose))
        st = issues_error(&pr, err);
    if (st != GF_OK) {
        gf_pairing_free(&pr, nhw);
        return st;
    }
    gf_validation *v = calloc(1, sizeof *v);
    long *kidx = malloc((pred->nrows + 1) * sizeof *kidx);
    size_t ucap = 0;
    int ok = v && kidx;
    if (ok) {
        v->nfiles = nhw;
        v->nskipped = pred->nrows - pr.nselected;
        v->kernels = calloc(pred->nrows ? pred->nrows : 1, sizeof *v->kernels);
        ok = v->kernels != NULL;
    }
    if (ok) {
        describe_sources(v, hw, nhw);
        ok = make_kernels(v, &pr, pred, hw, nhw, kidx, &ucap) &&
             measure_kernels(v, &pr, kidx, hw, nhw) && record_pairs(v, &pr, kidx, hw, nhw) &&
             add_unmatched_hw(v, &pr, hw, nhw, &ucap) &&
             summarize(v);
    }
    if (ok) { /* loose: the issues become the caller's warnings */
        v->warnings = pr.issues;
        v->nwarnings = pr.nissues;
        pr.issues = NULL;
        pr.nissues = 0;
    }
    gf_pairing_free(&pr, nhw);
    free(kidx);
    if (!ok) {
        gf_validate_free(v);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    }
    *out = v;
    return GF_OK;
}

void gf_validate_free(gf_validation *v)
{
    if (!v)
        return;
    free(v->kernels);
    free(v->unmatched);
    free(v->pairs);
    free(v->paths);
    for (size_t i = 0; i < v->nwarnings; i++)
        free(v->warnings[i]);
    free(v->warnings);
    free(v);
}

/* ---- writers ---- */

static const char *fmt_num(double x, int is_rate, char *buf, size_t n)
{
    if (isnan(x) || isinf(x))
        snprintf(buf, n, "n/a");
    else if (!is_rate && x == floor(x) && fabs(x) < 1e15)
        snprintf(buf, n, "%.0f", x);
    else if (fabs(x) >= 1e6 || (x != 0 && fabs(x) < 1e-2))
        snprintf(buf, n, "%.4g", x);
    else
        snprintf(buf, n, "%.2f", x);
    return buf;
}

static const char *error_label(const gf_counter_def *d, int summary)
{
    if (d->is_rate)
        return summary ? (d->unit == GF_CUNIT_PCT ? "MAE_pp" : "MAE") :
                         (d->unit == GF_CUNIT_PCT ? "error_pp" : "error");
    return summary ? "MAPE_pct" : "error_pct";
}

/* The width of the table's counter column: the longest name it shows, at least 58 (the
 * stall ratios' names run to 76 characters). */
static int name_width(const gf_validation *v)
{
    size_t w = 58;
    for (int c = 0; c < GF_C_COUNT; c++) {
        int shown = v->summary[c].n > 0;
        for (size_t k = 0; !shown && k < v->nkernels; k++)
            shown = v->kernels[k].v[c].hw_n > 0;
        size_t l = strlen(gf_counter_def_of((gf_counter_id)c)->name);
        if (shown && l > w)
            w = l;
    }
    return (int)w;
}

static void write_table(const gf_validation *v, FILE *out)
{
    char b1[48], b2[48], b3[48], b4[48];
    int nw = name_width(v);
    fprintf(out, "validation: %zu predicted kernel(s) matched; hardware: %s\n",
            v->nkernels, v->sources[0] ? v->sources : "none");
    if (v->nskipped)
        fprintf(out, "(%zu predicted launch(es) outside --kernel-name/--launch-skip/"
                "--launch-count not compared)\n", v->nskipped);
    fputc('\n', out);
    fputs("per counter (rates: mean absolute error, pp = percentage points; counts and "
          "cycles: mean absolute percentage error; r: Pearson)\n", out);
    fprintf(out, "%-*s %-7s %7s %-9s %10s %7s\n", nw, "counter", "unit", "kernels", "metric",
            "error", "r");
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_vsummary *s = &v->summary[c];
        if (!s->n)
            continue;
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        fmt_num(s->error, 1, b1, sizeof b1);
        if (!isnan(s->error))
            strcat(b1, d->is_rate ? (d->unit == GF_CUNIT_PCT ? "pp" : "") : "%");
        fmt_num(s->correlation, 1, b2, sizeof b2);
        fprintf(out, "%-*s %-7s %7d %-9s %10s %7s\n", nw, d->name, gf_counter_unit_name(d->unit),
                s->n, d->is_rate ? "MAE" : "MAPE", b1, b2);
    }
    for (size_t k = 0; k < v->nkernels; k++) {
        const gf_vkernel *vk = &v->kernels[k];
        fprintf(out, "\nkernel %ld: %s\n", vk->id, vk->name);
        fprintf(out, "  %-*s %12s %12s %25s %4s %10s\n", nw, "counter", "predicted", "hardware",
                "hardware min..max", "n", "error");
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_vvalue *x = &vk->v[c];
            if (!x->hw_n)
                continue;
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            char range[112];
            fmt_num(x->hw_min, d->is_rate, b3, sizeof b3);
            fmt_num(x->hw_max, d->is_rate, b4, sizeof b4);
            snprintf(range, sizeof range, "%s..%s", b3, b4);
            fmt_num(x->error, 1, b3, sizeof b3);
            if (!isnan(x->error))
                strcat(b3, d->is_rate ? (d->unit == GF_CUNIT_PCT ? "pp" : "") : "%");
            /* with repeated measurements, say when the prediction is within their spread */
            int inside = x->hw_n > 1 && x->pred >= x->hw_min && x->pred <= x->hw_max;
            fprintf(out, "  %-*s %12s %12s %25s %4d %10s%s\n", nw, d->name,
                    fmt_num(x->pred, d->is_rate, b1, sizeof b1),
                    fmt_num(x->hw_mean, d->is_rate || x->hw_n > 1, b2, sizeof b2),
                    x->hw_n > 1 ? range : "", x->hw_n, b3, inside ? "  within the runs" : "");
        }
    }
    if (v->nunmatched) {
        fputs("\nunmatched kernels:\n", out);
        for (size_t i = 0; i < v->nunmatched; i++) {
            const gf_vunmatched *u = &v->unmatched[i];
            if (u->file[0])
                fprintf(out, "  hardware   %s:%ld: kernel %ld %s\n", u->file, u->line, u->id,
                        u->name);
            else
                fprintf(out, "  prediction kernel %ld %s (no hardware counters)\n", u->id,
                        u->name);
        }
    }
}

static void csv_num(FILE *out, double x)
{
    char buf[40];
    fputc(',', out);
    fputs(gf_report_format_value(x, buf, sizeof buf), out);
}

static void write_csv(const gf_validation *v, FILE *out)
{
    fputs("section,kernel_id,kernel_name,counter,unit,kind,predicted,hardware_mean,"
          "hardware_min,hardware_max,samples,error,error_metric,correlation,kernels,"
          "source\n", out);
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_vsummary *s = &v->summary[c];
        if (!s->n)
            continue;
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        fprintf(out, "summary,,,%s,", d->name);
        gf_report_csv_string(out, gf_counter_unit_name(d->unit));
        fprintf(out, ",%s,,,,,", d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted");
        csv_num(out, s->error);
        fprintf(out, ",%s", error_label(d, 1));
        csv_num(out, s->correlation);
        fprintf(out, ",%d,\n", s->n);
    }
    for (size_t k = 0; k < v->nkernels; k++) {
        const gf_vkernel *vk = &v->kernels[k];
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_vvalue *x = &vk->v[c];
            if (!x->hw_n)
                continue;
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            fprintf(out, "kernel,%ld,", vk->id);
            gf_report_csv_string(out, vk->name);
            fprintf(out, ",%s,", d->name);
            gf_report_csv_string(out, gf_counter_unit_name(d->unit));
            fprintf(out, ",%s", d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted");
            csv_num(out, x->pred);
            csv_num(out, x->hw_mean);
            csv_num(out, x->hw_min);
            csv_num(out, x->hw_max);
            fprintf(out, ",%d", x->hw_n);
            csv_num(out, x->error);
            fprintf(out, ",%s,,,\n", error_label(d, 0));
        }
    }
    for (size_t i = 0; i < v->nunmatched; i++) {
        const gf_vunmatched *u = &v->unmatched[i];
        fprintf(out, "unmatched,%ld,", u->id);
        gf_report_csv_string(out, u->name);
        fputs(",,,,,,,,,,,,,", out);
        char src[600];
        if (u->file[0])
            snprintf(src, sizeof src, "%s:%ld", u->file, u->line);
        else
            snprintf(src, sizeof src, "prediction");
        gf_report_csv_string(out, src);
        fputc('\n', out);
    }
    for (size_t i = 0; i < v->npairs; i++) {
        const gf_vpair *q = &v->pairs[i];
        fprintf(out, "pair,%ld,", v->kernels[q->kernel].id);
        gf_report_csv_string(out, v->kernels[q->kernel].name);
        fputs(",,,,,,,,,,,,,", out);
        char src[600];
        snprintf(src, sizeof src, "%s:%ld", v->paths[q->file], q->line);
        gf_report_csv_string(out, src);
        fputc('\n', out);
    }
}

static void write_json(const gf_validation *v, FILE *out)
{
    fputs("{\"hardware\": ", out);
    gf_report_json_string(out, v->sources);
    fputs(",\n \"summary\": [", out);
    int first = 1;
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_vsummary *s = &v->summary[c];
        if (!s->n)
            continue;
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        fputs(first ? "\n  {\"counter\": " : ",\n  {\"counter\": ", out);
        first = 0;
        gf_report_json_string(out, d->name);
        fputs(", \"unit\": ", out);
        gf_report_json_string(out, gf_counter_unit_name(d->unit));
        fprintf(out, ", \"kernels\": %d, \"metric\": \"%s\", \"error\": ", s->n,
                error_label(d, 1));
        gf_report_json_number(out, s->error);
        fputs(", \"correlation\": ", out);
        gf_report_json_number(out, s->correlation);
        fputs("}", out);
    }
    fputs("],\n \"kernels\": [", out);
    for (size_t k = 0; k < v->nkernels; k++) {
        const gf_vkernel *vk = &v->kernels[k];
        fprintf(out, "%s\n  {\"id\": %ld, \"name\": ", k ? "," : "", vk->id);
        gf_report_json_string(out, vk->name);
        fputs(", \"counters\": [", out);
        int f2 = 1;
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_vvalue *x = &vk->v[c];
            if (!x->hw_n)
                continue;
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            fputs(f2 ? "\n    {\"counter\": " : ",\n    {\"counter\": ", out);
            f2 = 0;
            gf_report_json_string(out, d->name);
            fputs(", \"unit\": ", out);
            gf_report_json_string(out, gf_counter_unit_name(d->unit));
            fprintf(out, ", \"kind\": \"%s\", \"predicted\": ",
                    d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted");
            gf_report_json_number(out, x->pred);
            fputs(", \"hardware_mean\": ", out);
            gf_report_json_number(out, x->hw_mean);
            fputs(", \"hardware_min\": ", out);
            gf_report_json_number(out, x->hw_min);
            fputs(", \"hardware_max\": ", out);
            gf_report_json_number(out, x->hw_max);
            fprintf(out, ", \"samples\": %d, \"%s\": ", x->hw_n, error_label(d, 0));
            gf_report_json_number(out, x->error);
            fputs("}", out);
        }
        fputs("]}", out);
    }
    fputs("],\n \"unmatched\": [", out);
    for (size_t i = 0; i < v->nunmatched; i++) {
        const gf_vunmatched *u = &v->unmatched[i];
        fprintf(out, "%s\n  {\"id\": %ld, \"name\": ", i ? "," : "", u->id);
        gf_report_json_string(out, u->name);
        fputs(", \"source\": ", out);
        if (u->file[0]) {
            gf_report_json_string(out, u->file);
            fprintf(out, ", \"line\": %ld}", u->line);
        } else {
            fputs("\"prediction\"}", out);
        }
    }
    fputs("],\n \"pairs\": [", out);
    for (size_t i = 0; i < v->npairs; i++) {
        const gf_vpair *q = &v->pairs[i];
        fprintf(out, "%s\n  {\"id\": %ld, \"source\": ", i ? "," : "",
                v->kernels[q->kernel].id);
        gf_report_json_string(out, v->paths[q->file]);
        fprintf(out, ", \"line\": %ld}", q->line);
    }
    fputs("]}\n", out);
}

gf_status gf_validate_write(const gf_validation *v, gf_report_format fmt, FILE *out,
                            gf_error *err)
{
    switch (fmt) {
    case GF_REPORT_TABLE: write_table(v, out); break;
    case GF_REPORT_CSV: write_csv(v, out); break;
    case GF_REPORT_JSON: write_json(v, out); break;
    default:
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "unknown format %d (expected table, csv or json)", fmt);
    }
    if (fflush(out) != 0 || ferror(out))
        return gf_error_set(err, GF_ERR_IO, "", 0, "write failed");
    return GF_OK;
}
