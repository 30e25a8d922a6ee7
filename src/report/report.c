#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "report/csvtable.h"
#include "report/interval.h"
#include "util/error.h"

const char *gf_report_format_value(double v, char *buf, size_t n)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, n, "%s", "");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.10g", v);
    return buf;
}

void gf_report_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void gf_report_json_number(FILE *out, double v)
{
    char buf[40];
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fputs(gf_report_format_value(v, buf, sizeof buf), out);
}

const char *gf_report_printable(const char *s, char *buf, size_t n)
{
    size_t j = 0;
    if (!n)
        return buf;
    for (; *s && j + 1 < n; s++)
        buf[j++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    buf[j] = '\0';
    if (*s && n > 4)
        memcpy(buf + n - 4, "...", 4);
    return buf;
}

void gf_report_csv_string(FILE *out, const char *s)
{
    csv_fwrite(out, s, strlen(s));
}

static gf_status finish(FILE *out, gf_error *err)
{
    if (fflush(out) != 0 || ferror(out))
        return gf_error_set(err, GF_ERR_IO, "", 0, "write failed: %s", strerror(errno));
    return GF_OK;
}

/* ---- CSV ---- */

/* The entry of row for counter id, or NULL. */
static const struct gf_counter_iv *row_civ(const gf_kernel_row *row, int id)
{
    for (int i = 0; i < row->nciv; i++)
        if (row->civ[i].id == id)
            return &row->civ[i];
    return NULL;
}

/* cols: the counters given interval columns (after every counter), ncols of them. */
static void csv_row(FILE *out, const gf_kernel_row *row, int is_total, int with_interval,
                    const struct gf_counter_iv *cols, int ncols)
{
    char buf[40];
    if (is_total)
        fputs("total", out);
    else
        fprintf(out, "%ld", row->id);
    fputc(',', out);
    gf_report_csv_string(out, is_total ? "" : row->name);
    fputc(',', out);
    gf_report_csv_string(out, row->gpu);
    fputc(',', out);
    gf_report_csv_string(out, is_total ? "" : row->limiter);
    if (with_interval) {
        fputc(',', out);
        fputs(row->interval[0] ? gf_report_format_value(row->cycles_lo, buf, sizeof buf) : "", out);
        fputc(',', out);
        fputs(row->interval[0] ? gf_report_format_value(row->cycles_hi, buf, sizeof buf) : "", out);
        fputc(',', out);
        gf_report_csv_string(out, row->interval);
    }
    for (int c = 0; c < GF_C_COUNT; c++) {
        fputc(',', out);
        fputs(gf_report_format_value(row->v[c], buf, sizeof buf), out);
    }
    for (int i = 0; i < ncols; i++) {
        const struct gf_counter_iv *e = row_civ(row, cols[i].id);
        int has = e && e->basis[0];
        fputc(',', out);
        fputs(has ? gf_report_format_value(e->lo, buf, sizeof buf) : "", out);
        fputc(',', out);
        fputs(has ? gf_report_format_value(e->hi, buf, sizeof buf) : "", out);
        fputc(',', out);
        gf_report_csv_string(out, has ? e->basis : "");
    }
    fputc('\n', out);
}

static void write_csv(const gf_report *r, const gf_kernel_row *tot, FILE *out)
{
    /* interval columns only when some kernel has one, so a report without (a profile, a
     * read-back CSV) keeps its columns */
    int with_interval = 0;
    for (size_t k = 0; k < r->nrows; k++)
        with_interval |= r->rows[k].interval[0] != 0;
    fputs("kernel_id,kernel_name,gpu,limiter", out);
    if (with_interval)
        fputs(",cycles_low,cycles_high,cycles_interval", out);
    for (int c = 0; c < GF_C_COUNT; c++)
        fprintf(out, ",%s", gf_counter_def_of((gf_counter_id)c)->name);
    /* counter intervals: after every counter, so the columns before stay as they were;
     * every kernel row lists the same counters (report/interval.h) */
    const struct gf_counter_iv *cols = r->nrows ? r->rows[0].civ : NULL;
    int ncols = r->nrows ? r->rows[0].nciv : 0;
    for (int i = 0; i < ncols; i++) {
        const char *n = gf_counter_def_of((gf_counter_id)cols[i].id)->name;
        fprintf(out, ",%s_low,%s_high,%s_interval", n, n, n);
    }
    fputc('\n', out);
    for (size_t k = 0; k < r->nrows; k++)
        csv_row(out, &r->rows[k], 0, with_interval, cols, ncols);
    csv_row(out, tot, 1, with_interval, cols, ncols);
}

/* "<counter>_low", "_high" or "_interval" of a known counter (csv_row's interval columns). */
static int is_counter_interval_column(const char *f)
{
    static const char *const suffix[] = {"_low", "_high", "_interval"};
    size_t len = strlen(f);
    for (int i = 0; i < 3; i++) {
        size_t sl = strlen(suffix[i]);
        char name[160];
        if (len > sl && len - sl < sizeof name && strcmp(f + len - sl, suffix[i]) == 0) {
            memcpy(name, f, len - sl);
            name[len - sl] = 0;
            if (gf_counter_find(name))
                return 1;
        }
    }
    return 0;
}

/* ---- JSON ---- */

static void json_row(FILE *out, const gf_kernel_row *row, int is_total)
{
    fputs("{", out);
    if (!is_total) {
        fprintf(out, "\"id\": %ld, \"name\": ", row->id);
        gf_report_json_string(out, row->name);
        fputs(", ", out);
    }
    fputs("\"gpu\": ", out);
    gf_report_json_string(out, row->gpu);
    if (!is_total && row->limiter[0]) {
        fputs(", \"limiter\": ", out);
        gf_report_json_string(out, row->limiter);
    }
    if (row->interval[0]) {
        fputs(", \"cycles_interval\": {\"low\": ", out);
        gf_report_json_number(out, row->cycles_lo);
        fputs(", \"high\": ", out);
        gf_report_json_number(out, row->cycles_hi);
        if (!is_total) {
            fputs(", \"class\": ", out);
            gf_report_json_string(out, gf_interval_class_name(row));
        }
        fputs(", \"basis\": ", out);
        gf_report_json_string(out, row->interval);
        fputc('}', out);
    }
    int nciv = 0;
    for (int i = 0; i < row->nciv; i++) {
        const struct gf_counter_iv *e = &row->civ[i];
        if (!e->basis[0])
            continue;
        fputs(nciv++ ? ", " : ", \"counter_intervals\": {", out);
        gf_report_json_string(out, gf_counter_def_of((gf_counter_id)e->id)->name);
        fputs(": {\"low\": ", out);
        gf_report_json_number(out, e->lo);
        fputs(", \"high\": ", out);
        gf_report_json_number(out, e->hi);
        fputs(", \"basis\": ", out);
        gf_report_json_string(out, e->basis);
        fputc('}', out);
    }
    if (nciv)
        fputc('}', out);
    fputs(", \"counters\": {", out);
    for (int c = 0; c < GF_C_COUNT; c++) {
        fprintf(out, "%s\n      ", c ? "," : "");
        gf_report_json_string(out, gf_counter_def_of((gf_counter_id)c)->name);
        fputs(": ", out);
        gf_report_json_number(out, row->v[c]);
    }
    fputs("}}", out);
}

static void write_json(const gf_report *r, const gf_kernel_row *tot, FILE *out)
{
    fprintf(out, "{\"tool\": \"gpuforecast\", \"version\": \"%s\",\n \"kernels\": [", gf_version());
    for (size_t k = 0; k < r->nrows; k++) {
        fputs(k ? ",\n  " : "\n  ", out);
        json_row(out, &r->rows[k], 0);
    }
    fputs("],\n \"total\": ", out);
    json_row(out, tot, 1);
    fputs("}\n", out);
}

/* ---- terminal table ---- */

static const char *table_value(const gf_counter_def *d, double v, char *buf, size_t n)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, n, "n/a");
    else if (d->is_rate || v != floor(v))
        snprintf(buf, n, "%.2f", v);
    else
        snprintf(buf, n, "%.0f", v);
    return buf;
}

/* The row's warp stall reasons (docs/stalls.md), largest first, one line each: its
 * ratio (warp-cycles per issued instruction) and share of the stalled warp-cycles (all
 * but selected), with a bar; the reasons under 1 % are left out. Nothing when the row
 * has no stall counters (a measured or older file). */
static void write_stall_stack(const gf_kernel_row *row, FILE *out)
{
    enum { N = GF_C_STALL_LAST - GF_C_STALL_FIRST };
    gf_counter_id id[N];
    double sum = 0;
    int n = 0;
    for (int c = GF_C_STALL_FIRST; c < GF_C_STALL_LAST; c++) { /* (selected: not a stall) */
        double v = row->v[c];
        if (isnan(v))
            return;
        sum += v;
        id[n++] = (gf_counter_id)c;
    }
    if (!(sum > 0))
        return;
    for (int i = 1; i < n; i++) /* (insertion sort, stable: ties keep the table order) */
        for (int j = i; j > 0 && row->v[id[j]] > row->v[id[j - 1]]; j--) {
            gf_counter_id t = id[j];
            id[j] = id[j - 1];
            id[j - 1] = t;
        }
    fprintf(out, "  stalls: %.1f warp-cycles per instruction issued, besides its own\n", sum);
    char name[64];
    for (int i = 0; i < n; i++) {
        double share = row->v[id[i]] / sum;
        if (share < 0.01)
            break;
        int bar = (int)(share * 40 + 0.5);
        fprintf(out, "    %-19s %8.2f %4.0f %%  ", gf_counter_stall_reason(id[i], name, sizeof name),
                row->v[id[i]], 100 * share);
        for (int k = 0; k < bar; k++)
            fputc('#', out);
        fputc('\n', out);
    }
}

static void write_table(const gf_report *r, const gf_kernel_row *tot, FILE *out)
{
    int wname = 7;
    for (int c = 0; c < GF_C_COUNT; c++) {
        int l = (int)strlen(gf_counter_def_of((gf_counter_id)c)->name);
        if (l > wname)
            wname = l;
    }
    size_t ncol = r->nrows + 1;
    int *w = calloc(ncol, sizeof *w);
    char buf[64];
    for (size_t k = 0; k < r->nrows; k++) {
        const gf_kernel_row *row = &r->rows[k];
        fprintf(out, "kernel %ld: %s%s%s%s%s%s\n", row->id, row->name, row->gpu[0] ? " (" : "",
                row->gpu, row->gpu[0] ? ")" : "", row->limiter[0] ? ", limited by " : "",
                row->limiter);
        if (row->interval[0])
            fprintf(out, "  cycles %.0f (%.0f - %.0f: %s)\n", row->v[GF_C_GPC_CYCLES_ELAPSED],
                    row->cycles_lo, row->cycles_hi, row->interval);
        for (int i = 0; i < row->nciv; i++) {
            const struct gf_counter_iv *e = &row->civ[i];
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)e->id);
            int prec = d->is_rate ? 2 : 0; /* counts as whole numbers */
            if (e->basis[0])
                fprintf(out, "  %s %.*f (%.*f - %.*f: %s)\n", d->name, prec, row->v[e->id],
                        prec, e->lo, prec, e->hi, e->basis);
        }
        write_stall_stack(row, out);
    }
    if (r->nrows)
        fputc('\n', out);
    for (size_t k = 0; k < ncol && w; k++) {
        const gf_kernel_row *row = k < r->nrows ? &r->rows[k] : tot;
        w[k] = k < r->nrows ? snprintf(buf, sizeof buf, "kernel %ld", row->id) : 5;
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            int l = (int)strlen(table_value(d, row->v[c], buf, sizeof buf));
            if (l > w[k])
                w[k] = l;
        }
    }
    fprintf(out, "%-*s  %-7s", wname, "counter", "unit");
    for (size_t k = 0; k < ncol; k++) {
        if (k < r->nrows)
            snprintf(buf, sizeof buf, "kernel %ld", r->rows[k].id);
        else
            snprintf(buf, sizeof buf, "total");
        fprintf(out, "  %*s", w ? w[k] : 12, buf);
    }
    fputc('\n', out);
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        fprintf(out, "%-*s  %-7s", wname, d->name, gf_counter_unit_name(d->unit));
        for (size_t k = 0; k < ncol; k++) {
            const gf_kernel_row *row = k < r->nrows ? &r->rows[k] : tot;
            fprintf(out, "  %*s", w ? w[k] : 12, table_value(d, row->v[c], buf, sizeof buf));
        }
        fputc('\n', out);
    }
    free(w);
}

gf_status gf_report_write(const gf_report *r, gf_report_format fmt, FILE *out,
                          gf_error *err)
{
    gf_kernel_row *tot = malloc(sizeof *tot);
    if (!tot)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    gf_report_totals(r, tot);
    switch (fmt) {
    case GF_REPORT_TABLE: write_table(r, tot, out); break;
    case GF_REPORT_CSV: write_csv(r, tot, out); break;
    case GF_REPORT_JSON: write_json(r, tot, out); break;
    default:
        free(tot);
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "unknown report format %d (expected table, csv or json)", fmt);
    }
    free(tot);
    return finish(out, err);
}

/* ---- reading our CSV ---- */

/* Strict number: the whole cell must be a finite decimal number. */
static int parse_number(const char *s, double *v)
{
    char *end;
    while (*s == ' ')
        s++;
    if (!*s)
        return -1;
    errno = 0;
    *v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (*end || errno == ERANGE || isnan(*v) || isinf(*v))
        return -1;
    return 0;
}

gf_status gf_report_read_csv(const char *path, gf_report *r, gf_error *err)
{
    gf_report_init(r);
    gf_csvtable t;
    gf_status st = gf_csvtable_read(path, &t, err);
    if (st != GF_OK) {
        gf_csvtable_free(&t);
        return st;
    }
    int *col = NULL; /* column -> counter id, -1 for id/name/gpu */
    if (t.nrows == 0) {
        st = gf_error_set(err, GF_ERR_PARSE, path, 1,
                          "empty prediction CSV (expected a header kernel_id,kernel_name,"
                          "gpu,<counters>; write one with 'gpuforecast predict --format csv')");
        goto out;
    }
    const gf_csvrow *h = &t.rows[0];
    col = malloc((h->nfields ? h->nfields : 1) * sizeof *col);
    if (!col) {
        st = gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
        goto out;
    }
    long cid = -1, cname = -1, cgpu = -1;
    for (size_t j = 0; j < h->nfields; j++) {
        const char *f = h->fields[j];
        col[j] = -1;
        if (strcmp(f, "kernel_id") == 0)
            cid = (long)j;
        else if (strcmp(f, "kernel_name") == 0)
            cname = (long)j;
        else if (strcmp(f, "gpu") == 0)
            cgpu = (long)j;
        else if (strcmp(f, "limiter") == 0 || strcmp(f, "cycles_low") == 0 ||
                 strcmp(f, "cycles_high") == 0 || strcmp(f, "cycles_interval") == 0 ||
                 is_counter_interval_column(f))
            ; /* informative only */
        else {
            const gf_counter_def *d = gf_counter_find(f);
            if (!d) {
                char pb[96];
                st = gf_error_set(err, GF_ERR_PARSE, path, h->line,
                                  "unknown counter column '%s' (column %zu; "
                                  "'gpuforecast counters' lists the names)",
                                  gf_report_printable(f, pb, sizeof pb), j + 1);
                goto out;
            }
            col[j] = (int)d->id;
        }
    }
    if (cid < 0 || cname < 0) {
        st = gf_error_set(err, GF_ERR_PARSE, path, h->line,
                          "missing column '%s' in the header (expected kernel_id,"
                          "kernel_name,gpu,<counters>)", cid < 0 ? "kernel_id" : "kernel_name");
        goto out;
    }
    for (size_t i = 1; i < t.nrows; i++) {
        const gf_csvrow *row = &t.rows[i];
        if (row->nfields != h->nfields) {
            st = gf_error_set(err, GF_ERR_PARSE, path, row->line,
                              "row has %zu fields, the header has %zu", row->nfields,
                              h->nfields);
            goto out;
        }
        const char *ids = row->fields[cid];
        if (strcmp(ids, "total") == 0)
            continue;
        double idv;
        if (parse_number(ids, &idv) != 0 || idv != floor(idv) || fabs(idv) > 1e15) {
            char pb[96];
            st = gf_error_set(err, GF_ERR_PARSE, path, row->line,
                              "kernel_id: expected an integer, got '%s'",
                              gf_report_printable(ids, pb, sizeof pb));
            goto out;
        }
        gf_kernel_row *k = gf_report_add(r, row->fields[cname], (long)idv,
                                         cgpu >= 0 ? row->fields[cgpu] : "");
        if (!k) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, row->line, "out of memory");
            goto out;
        }
        for (size_t j = 0; j < row->nfields; j++) {
            if (col[j] < 0 || row->fields[j][0] == '\0')
                continue;
            if (parse_number(row->fields[j], &k->v[col[j]]) != 0) {
                char pb[96];
                st = gf_error_set(err, GF_ERR_PARSE, path, row->line,
                                  "column '%s': expected a number, got '%s'", h->fields[j],
                                  gf_report_printable(row->fields[j], pb, sizeof pb));
                goto out;
            }
        }
    }
out:
    free(col);
    gf_csvtable_free(&t);
    return st;
}

/* ---- counter list ---- */

#define CHECK_HEAD "against Nsight on the H100 set"

/* , "h100_check": {...} or null: gf_counter_check_h100 of id (error_unit "pct": % of
 * Nsight's value, "pp", or "abs": the counter's own unit), and "h100_check_text". */
static void json_counter_check(FILE *out, gf_counter_id id)
{
    static const char *const units[] = {"pct", "pp", "abs"};
    const gf_counter_check *c = gf_counter_check_h100(id);
    char text[160];
    gf_counter_check_text(id, text, sizeof text);
    fputs(", \"h100_check\": ", out);
    if (!c) {
        fputs("null, \"h100_check_text\": ", out);
    } else {
        fprintf(out,
                "{\"launches\": %u, \"exact\": %u, \"error_launches\": %u, "
                "\"measured_zero_predicted_not\": %u, \"error_unit\": \"%s\", \"mean_error\": ",
                c->launches, c->exact, c->based, c->zero_off, units[c->unit]);
        if (c->mean < 0)
            fputs("null, \"largest_error\": null}", out);
        else
            fprintf(out, "%.10g, \"largest_error\": %.10g}", c->mean, c->largest);
        fputs(", \"h100_check_text\": ", out);
    }
    gf_report_json_string(out, text);
}

gf_status gf_counter_list_write(gf_report_format fmt, FILE *out, gf_error *err)
{
    char check[160];
    if (fmt == GF_REPORT_CSV) {
        fputs("name,nvprof,unit,kind,h100_check,meaning\n", out);
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            gf_counter_check_text((gf_counter_id)c, check, sizeof check);
            gf_report_csv_string(out, d->name);
            fputc(',', out);
            gf_report_csv_string(out, d->nvprof ? d->nvprof : "");
            fputc(',', out);
            gf_report_csv_string(out, gf_counter_unit_name(d->unit));
            fprintf(out, ",%s,", d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted");
            gf_report_csv_string(out, check);
            fputc(',', out);
            gf_report_csv_string(out, d->meaning);
            fputc('\n', out);
        }
    } else if (fmt == GF_REPORT_JSON) {
        fputs("[", out);
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            fputs(c ? ",\n {\"name\": " : "\n {\"name\": ", out);
            gf_report_json_string(out, d->name);
            fputs(", \"nvprof\": ", out);
            if (d->nvprof)
                gf_report_json_string(out, d->nvprof);
            else
                fputs("null", out);
            fputs(", \"unit\": ", out);
            gf_report_json_string(out, gf_counter_unit_name(d->unit));
            fprintf(out, ", \"kind\": \"%s\", \"rate\": %s, \"meaning\": ",
                    d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted",
                    d->is_rate ? "true" : "false");
            gf_report_json_string(out, d->meaning);
            json_counter_check(out, (gf_counter_id)c);
            fputs("}", out);
        }
        fputs("\n]\n", out);
    } else if (fmt == GF_REPORT_TABLE) {
        int wn = 4, wa = 6;
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            if ((int)strlen(d->name) > wn)
                wn = (int)strlen(d->name);
            if (d->nvprof && (int)strlen(d->nvprof) > wa)
                wa = (int)strlen(d->nvprof);
        }
        int wc = (int)strlen(CHECK_HEAD);
        for (int c = 0; c < GF_C_COUNT; c++) {
            gf_counter_check_text((gf_counter_id)c, check, sizeof check);
            if ((int)strlen(check) > wc)
                wc = (int)strlen(check);
        }
        fprintf(out, "%-*s  %-*s  %-7s  %-9s  %-*s  %s\n", wn, "name", wa, "nvprof", "unit",
                "kind", wc, CHECK_HEAD, "meaning");
        for (int c = 0; c < GF_C_COUNT; c++) {
            const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
            gf_counter_check_text((gf_counter_id)c, check, sizeof check);
            fprintf(out, "%-*s  %-*s  %-7s  %-9s  %-*s  %s\n", wn, d->name, wa,
                    d->nvprof ? d->nvprof : "-", gf_counter_unit_name(d->unit),
                    d->kind == GF_COUNTER_COUNTED ? "counted" : "predicted", wc, check,
                    d->meaning);
        }
        fputs("\ncounted = from the trace alone (instructions, addresses), no cache or "
              "timing model; predicted =\noutput of the cache and timing models. Against "
              "Nsight: launch by launch on the H100 reference\nset (data/h100; "
              "docs/validation-h100.md, \"Every counter against Nsight\"); exact = within "
              "0.5;\nerrors of counts in % of Nsight's value (over the launches it measured "
              "nonzero), of\npercentages in pp, of ratios in the counter's own unit.\n",
              out);
    } else {
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "unknown format %d (expected table, csv or json)", fmt);
    }
    return finish(out, err);
}
