#include "report/csvtable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct reader {
    gf_csvtable *t;
    long line;      /* physical line being fed */
    long row_line;  /* line of the current row's first field */
    char **fields;
    size_t nfields, cap;
    int nomem;
} reader;

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->nomem)
        return;
    void *p = r->fields;
    char *f = malloc(len + 1);
    if (!f || gf_grow(&p, &r->cap, r->nfields + 1, sizeof *r->fields) != 0) {
        free(f);
        r->nomem = 1;
        return;
    }
    r->fields = p;
    if (len)
        memcpy(f, s, len);
    f[len] = '\0';
    r->fields[r->nfields++] = f;
}

static void on_row(int c, void *data)
{
    (void)c;
    reader *r = data;
    if (r->nomem)
        return;
    void *p = r->t->rows;
    if (gf_grow(&p, &r->t->cap, r->t->nrows + 1, sizeof *r->t->rows) != 0) {
        r->nomem = 1;
        return;
    }
    r->t->rows = p;
    gf_csvrow *row = &r->t->rows[r->t->nrows++];
    row->fields = r->fields;
    row->nfields = r->nfields;
    row->line = r->row_line;
    r->fields = NULL;
    r->nfields = r->cap = 0;
}

gf_status gf_csvtable_read(const char *path, gf_csvtable *t, gf_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    gf_status st = gf_csvtable_read_stream(f, path, t, err);
    fclose(f);
    return st;
}

gf_status gf_csvtable_read_stream(FILE *f, const char *path, gf_csvtable *t, gf_error *err)
{
    memset(t, 0, sizeof *t);
    struct csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    reader r = {.t = t};
    char *buf = NULL;
    size_t bcap = 0;
    ssize_t n;
    gf_status st = GF_OK;
    /* Fed line by line so a row knows where it started. */
    while ((n = getline(&buf, &bcap, f)) > 0) {
        r.line++;
        /* libcsv's state 0 is ROW_NOT_BEGUN: a row that begins on this line. */
        if (p.pstate == 0 && r.nfields == 0)
            r.row_line = r.line;
        if ((size_t)csv_parse(&p, buf, (size_t)n, on_field, on_row, &r) != (size_t)n) {
            st = gf_error_set(err, GF_ERR_PARSE, path, r.line, "malformed CSV: %s",
                              csv_strerror(csv_error(&p)));
            break;
        }
        if (r.nomem)
            break;
    }
    if (st == GF_OK && ferror(f))
        st = gf_error_set(err, GF_ERR_IO, path, r.line, "read error: %s", strerror(errno));
    /* An unterminated quoted field swallows the rest of the file: libcsv only reports
     * it at the end, so name the line the field started on. */
    if (st == GF_OK && !r.nomem) {
        /* state 2 is FIELD_BEGUN; inside quotes it means the closing quote is missing */
        if (p.pstate == 2 && p.quoted)
            st = gf_error_set(err, GF_ERR_PARSE, path, r.row_line,
                              "malformed CSV: quoted field never closed (missing '\"')");
        else
            csv_fini(&p, on_field, on_row, &r);
    }
    if (st == GF_OK && r.nomem)
        st = gf_error_set(err, GF_ERR_NOMEM, path, r.line, "out of memory");
    for (size_t i = 0; i < r.nfields; i++)
        free(r.fields[i]);
    free(r.fields);
    free(buf);
    csv_free(&p);
    return st;
}

void gf_csvtable_free(gf_csvtable *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->rows[i].nfields; j++)
            free(t->rows[i].fields[j]);
        free(t->rows[i].fields);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}
