/*
 * models/isa/lanes.csv (libcsv): one row per ISA table, "isa,fp32,int32,fp64,sfu,tensor,
 * lsu,source", the lanes per sub-core its issue intervals were written for. Every row
 * cites its source; a table listed twice, a missing column or a count out of 0..1024 is
 * an error naming the file and line.
 */
#include "gpu/lanes.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define LCOLS 8

static const char *const lane_columns[LCOLS] = {"isa", "fp32", "int32", "fp64",
                                                "sfu", "tensor", "lsu", "source"};
/* the unit each numeric column sets, in column order 1..6 */
static const gf_unit column_unit[6] = {GF_UNIT_FMA, GF_UNIT_ALU, GF_UNIT_FP64,
                                       GF_UNIT_SFU, GF_UNIT_TENSOR, GF_UNIT_LSU};

void gf_lanes_of_model(const gf_gpu *g, unsigned lanes[GF_UNIT_COUNT])
{
    memset(lanes, 0, GF_UNIT_COUNT * sizeof *lanes);
    lanes[GF_UNIT_FMA] = g->fp32_lanes;
    lanes[GF_UNIT_ALU] = g->int32_lanes;
    lanes[GF_UNIT_FP64] = g->fp64_lanes;
    lanes[GF_UNIT_SFU] = g->sfu_lanes;
    lanes[GF_UNIT_TENSOR] = g->tensor_units;
    lanes[GF_UNIT_LSU] = g->lsu_lanes;
}

typedef struct lanes_state {
    const char *want, *path;
    unsigned *ref;
    gf_error *err;
    gf_status st;
    long line;
    unsigned col;
    char fields[LCOLS][128];
    int too_many, found;
} lanes_state;

static void on_field(void *data, size_t len, void *p)
{
    lanes_state *ls = p;
    if (ls->col >= LCOLS) {
        ls->too_many = 1;
        return;
    }
    if (len >= sizeof ls->fields[0])
        len = sizeof ls->fields[0] - 1;
    memcpy(ls->fields[ls->col], data ? data : "", data ? len : 0);
    ls->fields[ls->col][data ? len : 0] = 0;
    ls->col++;
}

static void on_row(int c, void *p)
{
    (void)c;
    lanes_state *ls = p;
    unsigned ncol = ls->col;
    int too_many = ls->too_many;
    ls->col = 0;
    ls->too_many = 0;
    ls->line++;
    if (ls->st != GF_OK || (ncol == 1 && !ls->fields[0][0]))
        return;
    if (ncol != LCOLS || too_many) {
        ls->st = gf_error_set(ls->err, GF_ERR_PARSE, ls->path, ls->line,
                              "expected 8 columns (isa,fp32,int32,fp64,sfu,tensor,lsu,source), "
                              "got %u", ncol);
        return;
    }
    if (ls->line == 1) {
        for (int i = 0; i < LCOLS; i++)
            if (strcmp(ls->fields[i], lane_columns[i]) != 0) {
                ls->st = gf_error_set(ls->err, GF_ERR_PARSE, ls->path, 1,
                                      "header column '%s': expected '%s'", ls->fields[i],
                                      lane_columns[i]);
                return;
            }
        return;
    }
    if (!ls->fields[7][0]) {
        ls->st = gf_error_set(ls->err, GF_ERR_PARSE, ls->path, ls->line,
                              "table '%s': empty source column (every row cites its source)",
                              ls->fields[0]);
        return;
    }
    if (strcmp(ls->fields[0], ls->want) != 0)
        return;
    if (ls->found) {
        ls->st = gf_error_set(ls->err, GF_ERR_PARSE, ls->path, ls->line,
                              "table '%s' listed twice", ls->want);
        return;
    }
    for (int i = 0; i < 6; i++) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(ls->fields[1 + i], &end, 10);
        if (!ls->fields[1 + i][0] || *end || errno || v > 1024 || ls->fields[1 + i][0] == '-') {
            ls->st = gf_error_set(ls->err, GF_ERR_PARSE, ls->path, ls->line,
                                  "%s '%s': expected lanes per sub-core 0..1024", lane_columns[1 + i],
                                  ls->fields[1 + i]);
            return;
        }
        ls->ref[column_unit[i]] = (unsigned)v;
    }
    ls->found = 1;
}

gf_status gf_lanes_reference(const char *isa_name, const char *models_dir,
                             unsigned ref[GF_UNIT_COUNT], gf_error *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/isa/lanes.csv", gf_gpu_models_dir(models_dir));
    memset(ref, 0, GF_UNIT_COUNT * sizeof *ref);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_error_set(err, GF_ERR_IO, path, 0,
                            "cannot open the ISA tables' lane counts: %s", strerror(errno));
    lanes_state ls;
    memset(&ls, 0, sizeof ls);
    ls.want = isa_name;
    ls.path = path;
    ls.ref = ref;
    ls.err = err;
    ls.st = GF_OK;
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL);
    char buf[4096];
    size_t n;
    while (ls.st == GF_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, on_field, on_row, &ls) != n && ls.st == GF_OK)
            ls.st = gf_error_set(err, GF_ERR_PARSE, path, ls.line + 1, "malformed CSV: %s",
                                 csv_strerror(csv_error(&p)));
    if (ls.st == GF_OK && ferror(f))
        ls.st = gf_error_set(err, GF_ERR_IO, path, 0, "read error");
    if (ls.st == GF_OK)
        csv_fini(&p, on_field, on_row, &ls);
    csv_free(&p);
    fclose(f);
    if (ls.st == GF_OK && !ls.found)
        ls.st = gf_error_set(err, GF_ERR_PARSE, path, 0,
                             "no row for the ISA table '%s': expected the lanes per sub-core "
                             "its issue intervals were written for",
                             isa_name);
    return ls.st;
}

gf_status gf_lanes_fit(gf_isa *isa, const gf_gpu *g, const char *models_dir, gf_error *err)
{
    unsigned ref[GF_UNIT_COUNT], lanes[GF_UNIT_COUNT];
    gf_status st = gf_lanes_reference(g->isa, models_dir, ref, err);
    if (st != GF_OK)
        return st;
    gf_lanes_of_model(g, lanes);
    return gf_isa_scale_intervals(isa, ref, lanes, err);
}
