/* torture tests for src/report: counter table, unit conversion, totals, CSV / JSON /
 * table writers and reading our CSV back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/counters.h"
#include "report/report.h"
#include "testutil.h"
#include "util/error.h"

/* ---- a small JSON syntax checker (RFC 8259 grammar, no semantics) ---- */

static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *js_value(const char *p);

static const char *js_string(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
                return NULL;
            }
        }
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (isdigit((unsigned char)*p))
        while (isdigit((unsigned char)*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p > s ? p : NULL;
}

static const char *js_value(const char *p)
{
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = js_string(js_ws(p));
                if (!p)
                    return NULL;
                p = js_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = js_value(p);
            if (!p)
                return NULL;
            p = js_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (strncmp(p, "null", 4) == 0 || strncmp(p, "true", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    return js_number(p);
}

static int json_valid(const char *s)
{
    const char *p = js_value(s);
    return p && *js_ws(p) == '\0';
}

/* Runs a writer into memory. Caller frees. */
static char *write_report(const gf_report *r, gf_report_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gf_error e;
    assert_int_equal(gf_report_write(r, fmt, f, &e), GF_OK);
    fclose(f);
    return buf;
}

/* ---- counter table ---- */

static void torture_counter_table_order(void **state)
{
    (void)state;
    for (int i = 0; i < GF_C_COUNT; i++) {
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)i);
        assert_non_null(d);
        assert_int_equal(d->id, i);
        assert_non_null(d->meaning);
        /* every name (and alias) finds its own entry: names are unique */
        assert_ptr_equal(gf_counter_find(d->name), d);
        if (d->nvprof)
            assert_ptr_equal(gf_counter_find(d->nvprof), d);
        assert_int_equal(d->is_rate, d->unit == GF_CUNIT_PCT || d->unit == GF_CUNIT_RATIO);
    }
    assert_null(gf_counter_def_of(GF_C_COUNT));
}

static void torture_counter_find_both_names(void **state)
{
    (void)state;
    const gf_counter_def *a = gf_counter_find("gld_transactions");
    const gf_counter_def *b = gf_counter_find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_int_equal(a->id, GF_C_L1_GLD_SECTORS);
    assert_int_equal(gf_counter_find("dram_read_transactions")->id, GF_C_DRAM_SECTORS_READ);
    assert_int_equal(gf_counter_find("l2_read_transactions")->id, GF_C_L2_READ_SECTORS_ALL);
    assert_int_equal(gf_counter_find("l2_tex_read_transactions")->id, GF_C_L2_READ_SECTORS);
    assert_int_equal(gf_counter_find("global_hit_rate")->id, GF_C_L1_GLD_HIT_RATE);
    assert_int_equal(gf_counter_find("elapsed_cycles_sm")->id, GF_C_SM_CYCLES_ELAPSED_SUM);
    assert_int_equal(gf_counter_find("inst_executed")->id, GF_C_INST_EXECUTED);
    assert_int_equal(gf_counter_find("gpc__cycles_elapsed.max")->kind, GF_COUNTER_PREDICTED);
    assert_int_equal(gf_counter_find("smsp__inst_executed.sum")->kind, GF_COUNTER_COUNTED);
    assert_null(gf_counter_find("gld_transaction"));
    assert_null(gf_counter_find(""));
    assert_null(gf_counter_find(NULL));
}

static void torture_unit_scale(void **state)
{
    (void)state;
    double s = 0;
    assert_int_equal(gf_counter_unit_scale("%", GF_CUNIT_PCT, &s), 0);
    assert_true(s == 1.0);
    assert_int_equal(gf_counter_unit_scale("Kbyte", GF_CUNIT_BYTES, &s), 0);
    assert_true(s == 1e3);
    assert_int_equal(gf_counter_unit_scale("Mbyte", GF_CUNIT_BYTES, &s), 0);
    assert_true(s == 1e6);
    assert_int_equal(gf_counter_unit_scale("Gbyte", GF_CUNIT_BYTES, &s), 0);
    assert_true(s == 1e9);
    assert_int_equal(gf_counter_unit_scale("KB", GF_CUNIT_BYTES, &s), 0);
    assert_true(s == 1e3);
    assert_int_equal(gf_counter_unit_scale("byte", GF_CUNIT_BYTES, &s), 0);
    assert_true(s == 1.0);
    assert_int_equal(gf_counter_unit_scale("usecond", GF_CUNIT_NS, &s), 0);
    assert_true(s == 1e3);
    assert_int_equal(gf_counter_unit_scale("msecond", GF_CUNIT_NS, &s), 0);
    assert_true(s == 1e6);
    assert_int_equal(gf_counter_unit_scale("nsecond", GF_CUNIT_NS, &s), 0);
    assert_true(s == 1.0);
    assert_int_equal(gf_counter_unit_scale("us", GF_CUNIT_NS, &s), 0);
    assert_true(s == 1e3);
    assert_int_equal(gf_counter_unit_scale("cycle", GF_CUNIT_CYCLES, &s), 0);
    assert_true(s == 1.0);
    assert_int_equal(gf_counter_unit_scale("Kcycle", GF_CUNIT_CYCLES, &s), 0);
    assert_true(s == 1e3);
    assert_int_equal(gf_counter_unit_scale("inst", GF_CUNIT_INSTS, &s), 0);
    assert_int_equal(gf_counter_unit_scale("Msector", GF_CUNIT_SECTORS, &s), 0);
    assert_true(s == 1e6);
    assert_int_equal(gf_counter_unit_scale("", GF_CUNIT_SECTORS, &s), 0);
    assert_true(s == 1.0);
    assert_int_equal(gf_counter_unit_scale(" inst/cycle ", GF_CUNIT_RATIO, &s), 0);
    /* rejected: wrong dimension, throughputs, a duration without unit */
    assert_int_equal(gf_counter_unit_scale("Mbyte/second", GF_CUNIT_BYTES, &s), -1);
    assert_int_equal(gf_counter_unit_scale("byte", GF_CUNIT_CYCLES, &s), -1);
    assert_int_equal(gf_counter_unit_scale("", GF_CUNIT_NS, &s), -1);
    assert_int_equal(gf_counter_unit_scale("cycle", GF_CUNIT_NS, &s), -1);
    assert_int_equal(gf_counter_unit_scale("K%", GF_CUNIT_PCT, &s), -1);
    assert_int_equal(gf_counter_unit_scale("mbyte", GF_CUNIT_BYTES, &s), -1);
}

/* ---- totals ---- */

static void fill_two(gf_report *r)
{
    gf_report_init(r);
    gf_kernel_row *a = gf_report_add(r, "a", 1, "gtx1080");
    gf_kernel_row *b = gf_report_add(r, "b", 2, "gtx1080");
    assert_non_null(a);
    assert_non_null(b);
    a->v[GF_C_GPC_CYCLES_ELAPSED] = 100;
    b->v[GF_C_GPC_CYCLES_ELAPSED] = 300;
    a->v[GF_C_SM_CYCLES_ACTIVE] = 100;
    b->v[GF_C_SM_CYCLES_ACTIVE] = 300;
    a->v[GF_C_INST_EXECUTED] = 10;
    b->v[GF_C_INST_EXECUTED] = 30;
    a->v[GF_C_IPC] = 1.0;
    b->v[GF_C_IPC] = 2.0;
    a->v[GF_C_L2_READ_SECTORS] = 10;
    b->v[GF_C_L2_READ_SECTORS] = 30;
    a->v[GF_C_L2_READ_SECTOR_HITS] = 5;
    b->v[GF_C_L2_READ_SECTOR_HITS] = 30;
    a->v[GF_C_L2_READ_HIT_RATE] = 50;
    b->v[GF_C_L2_READ_HIT_RATE] = 100;
    /* only the rate known, no hit counts: weighted by the sectors */
    a->v[GF_C_L1_GLD_SECTORS] = 10;
    b->v[GF_C_L1_GLD_SECTORS] = 30;
    a->v[GF_C_L1_GLD_HIT_RATE] = 20;
    b->v[GF_C_L1_GLD_HIT_RATE] = 60;
    a->v[GF_C_DRAM_SECTORS_READ] = 7;
    /* b lacks DRAM reads */
}

static void torture_totals_rules(void **state)
{
    (void)state;
    gf_report r;
    fill_two(&r);
    gf_kernel_row t;
    gf_report_totals(&r, &t);
    assert_string_equal(t.name, "total");
    assert_string_equal(t.gpu, "gtx1080");
    assert_true(t.v[GF_C_GPC_CYCLES_ELAPSED] == 400);       /* cycles summed */
    assert_true(t.v[GF_C_INST_EXECUTED] == 40);             /* counts summed */
    assert_true(fabs(t.v[GF_C_IPC] - 1.75) < 1e-12);        /* (1*100 + 2*300) / 400 */
    assert_true(fabs(t.v[GF_C_L2_READ_HIT_RATE] - 87.5) < 1e-12); /* 35 / 40 hits */
    assert_true(fabs(t.v[GF_C_L1_GLD_HIT_RATE] - 50.0) < 1e-12);  /* (2 + 18) / 40 */
    assert_true(isnan(t.v[GF_C_DRAM_SECTORS_READ]));        /* one kernel lacks it */
    assert_true(isnan(t.v[GF_C_WARPS_ACTIVE_PCT]));
    snprintf(r.rows[1].gpu, sizeof r.rows[1].gpu, "v100");
    gf_report_totals(&r, &t);
    assert_string_equal(t.gpu, "");
    gf_report_free(&r);
    gf_report_free(&r); /* twice is fine */
    gf_report empty;
    gf_report_init(&empty);
    gf_report_totals(&empty, &t);
    assert_true(isnan(t.v[GF_C_INST_EXECUTED]));
}

static void torture_derive(void **state)
{
    (void)state;
    gf_report r;
    gf_report_init(&r);
    gf_kernel_row *k = gf_report_add(&r, "k", 1, "");
    k->v[GF_C_DRAM_SECTORS_READ] = 236;
    k->v[GF_C_DRAM_BYTES_WRITE] = 384;
    k->v[GF_C_L1_GLD_SECTORS] = 8;
    k->v[GF_C_L1_GLD_SECTOR_HITS] = 2;
    k->v[GF_C_L2_READ_HIT_RATE] = 12; /* given: never overwritten */
    k->v[GF_C_L2_READ_SECTORS] = 10;
    k->v[GF_C_L2_READ_SECTOR_HITS] = 10;
    gf_report_derive(k);
    assert_true(k->v[GF_C_DRAM_BYTES_READ] == 7552);
    assert_true(k->v[GF_C_DRAM_SECTORS_WRITE] == 12);
    assert_true(k->v[GF_C_L1_GLD_HIT_RATE] == 25);
    assert_true(k->v[GF_C_L2_READ_HIT_RATE] == 12);
    assert_true(isnan(k->v[GF_C_L2_SECTOR_HIT_RATE])); /* write hits unknown */
    gf_report_free(&r);
}

/* ---- writers ---- */

static void torture_csv_quoting_roundtrip(void **state)
{
    (void)state;
    gf_report r;
    gf_report_init(&r);
    const char *nasty = "void f<int, 2>(\"x\", y)";
    gf_kernel_row *k = gf_report_add(&r, nasty, 7, "gtx,1080");
    k->v[GF_C_INST_EXECUTED] = 344;
    k->v[GF_C_IPC] = 0.123456789;
    k->v[GF_C_L2_SECTOR_HIT_RATE] = 30.77;
    char *csv = write_report(&r, GF_REPORT_CSV);
    assert_non_null(strstr(csv, "7,\"void f<int, 2>(\"\"x\"\", y)\",\"gtx,1080\","));
    assert_non_null(strstr(csv, "\ntotal,\"\",\"gtx,1080\","));
    assert_true(strncmp(csv, "kernel_id,kernel_name,gpu,limiter,gpc__cycles_elapsed.max,", 58) == 0);
    const char *path = gf_test_write_file("roundtrip.csv", csv, strlen(csv));
    gf_report back;
    gf_error e;
    assert_int_equal(gf_report_read_csv(path, &back, &e), GF_OK);
    assert_int_equal(back.nrows, 1); /* totals row skipped */
    assert_string_equal(back.rows[0].name, nasty);
    assert_string_equal(back.rows[0].gpu, "gtx,1080");
    assert_int_equal(back.rows[0].id, 7);
    assert_true(back.rows[0].v[GF_C_INST_EXECUTED] == 344);
    assert_true(back.rows[0].v[GF_C_IPC] == 0.123456789);
    assert_true(back.rows[0].v[GF_C_L2_SECTOR_HIT_RATE] == 30.77);
    assert_true(isnan(back.rows[0].v[GF_C_TIME_NS]));
    gf_report_free(&back);
    free(csv);
    gf_report_free(&r);
}

static void torture_json_valid_with_nan(void **state)
{
    (void)state;
    gf_report r;
    gf_report_init(&r);
    gf_kernel_row *k = gf_report_add(&r, "quote\" back\\slash\ttab\x01", 1, "g");
    k->v[GF_C_INST_EXECUTED] = 344;
    k->v[GF_C_IPC] = 1.5e-7;
    k->v[GF_C_TIME_NS] = INFINITY;
    gf_report_add(&r, "second", 2, "g");
    char *js = write_report(&r, GF_REPORT_JSON);
    assert_true(json_valid(js));
    assert_null(strstr(js, "nan"));
    assert_null(strstr(js, "inf"));
    assert_non_null(strstr(js, "\"smsp__inst_executed.sum\": 344"));
    assert_non_null(strstr(js, "\"gpu__time_duration.sum\": null"));
    assert_non_null(strstr(js, "\"quote\\\" back\\\\slash\\ttab\\u0001\""));
    assert_non_null(strstr(js, "\"total\": {"));
    /* the checker itself must reject broken JSON */
    assert_false(json_valid("{\"a\": nan}"));
    assert_false(json_valid("{\"a\": 1,}"));
    assert_false(json_valid("[1 2]"));
    free(js);
    /* no kernels at all is still valid JSON */
    gf_report empty;
    gf_report_init(&empty);
    js = write_report(&empty, GF_REPORT_JSON);
    assert_true(json_valid(js));
    free(js);
    gf_report_free(&r);
}

static void torture_table_aligned(void **state)
{
    (void)state;
    gf_report r;
    fill_two(&r);
    char *t = write_report(&r, GF_REPORT_TABLE);
    assert_non_null(strstr(t, "kernel 1: a (gtx1080)"));
    const char *hdr = strstr(t, "counter ");
    assert_non_null(hdr);
    assert_non_null(strstr(hdr, "kernel 2"));
    /* header and every counter row have the same width: aligned columns */
    size_t width = strcspn(hdr, "\n");
    const char *p = hdr;
    int rows = 0;
    while ((p = strchr(p, '\n')) && p[1]) {
        p++;
        assert_int_equal(strcspn(p, "\n"), width);
        rows++;
    }
    assert_int_equal(rows, GF_C_COUNT);
    assert_non_null(strstr(t, "n/a"));
    free(t);
    gf_error e;
    assert_int_equal(gf_report_write(&r, (gf_report_format)9, stdout, &e), GF_ERR_INVALID);
    gf_report_free(&r);
}

static void torture_counter_list(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    gf_error e;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gf_counter_list_write(GF_REPORT_JSON, f, &e), GF_OK);
    fclose(f);
    assert_true(json_valid(buf));
    assert_non_null(strstr(buf, "\"nvprof\": \"gld_transactions\""));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(gf_counter_list_write(GF_REPORT_CSV, f, &e), GF_OK);
    fclose(f);
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, GF_C_COUNT + 1);
    free(buf);
}

static int counted_or_exact(const gf_counter_def *d, const gf_counter_check *k)
{
    return d->kind == GF_COUNTER_COUNTED || k->exact == k->launches;
}

/* What `counters` states of each counter against Nsight on the H100 set (issue #32 item
 * 5): the compiled-in figures of src/counters/h100_checks.inc, as text. */
static void torture_counter_checks_h100(void **state)
{
    (void)state;
    char text[160];
    unsigned with_check = 0;
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        const gf_counter_check *k = gf_counter_check_h100((gf_counter_id)c);
        gf_counter_check_text((gf_counter_id)c, text, sizeof text);
        assert_true(text[0] != 0);
        if (strncmp(d->name, "gf__", 4) == 0) { /* no Nsight counterpart */
            assert_null(k);
            assert_string_equal(text, "gpuforecast only");
        }
        if (!k)
            continue;
        with_check++;
        assert_string_equal(k->name, d->name);
        assert_true(k->exact <= k->launches && k->launches > 0);
        assert_true(k->based <= k->launches && k->zero_off <= k->launches - k->exact);
        /* a counted counter says "exact" only when it is on every launch */
        if (d->kind == GF_COUNTER_COUNTED)
            assert_int_equal(strncmp(text, "exact on all", 12) == 0, k->exact == k->launches);
        else
            assert_null(strstr(text, "exact on all"));
        /* launches measured 0 that the model does not give 0 are said, not hidden */
        assert_int_equal(strstr(text, " measured 0 where this ") != NULL, k->zero_off > 0);
        /* a mean over fewer launches than the check's says so */
        if (!counted_or_exact(d, k) && k->based && k->based < k->launches)
            assert_non_null(strstr(text, " measured nonzero)"));
    }
    /* the table holds the Nsight counters of the set (a stale or empty .inc fails here) */
    assert_true(with_check >= 40);
    gf_counter_check_text(GF_C_GPC_CYCLES_ELAPSED, text, sizeof text);
    assert_non_null(strstr(text, "mean error "));
    assert_non_null(strstr(text, " %, largest "));
    gf_counter_check_text(GF_C_L2_SLICE_BUSY_PCT, text, sizeof text);
    assert_string_equal(text, "gpuforecast only");
    char small[8];
    gf_counter_check_text(GF_C_GPC_CYCLES_ELAPSED, small, sizeof small);
    assert_int_equal(strlen(small), 7); /* truncated, terminated */
}

/* ---- reading errors name file and line ---- */

static void expect_read_error(const char *name, const char *text, gf_status code, long line,
                              const char *needle)
{
    const char *path = gf_test_write_file(name, text, strlen(text));
    gf_report r;
    gf_error e;
    gf_error_clear(&e);
    assert_int_equal(gf_report_read_csv(path, &r, &e), code);
    assert_string_equal(e.file, path);
    assert_int_equal(e.line, line);
    if (!strstr(e.message, needle))
        fail_msg("message '%s' lacks '%s'", e.message, needle);
    gf_report_free(&r);
}

static void torture_read_csv_errors(void **state)
{
    (void)state;
    expect_read_error("nohdr.csv", "kernel_id,gpu\n1,x\n", GF_ERR_PARSE, 1, "kernel_name");
    expect_read_error("unknown.csv", "kernel_id,kernel_name,gpu,bogus.sum\n", GF_ERR_PARSE, 1,
                      "bogus.sum");
    expect_read_error("nonnum.csv",
                      "kernel_id,kernel_name,gpu,dram__sectors_read.sum\n1,a,g,5\n2,b,g,12x\n",
                      GF_ERR_PARSE, 3, "12x");
    expect_read_error("short.csv", "kernel_id,kernel_name,gpu,dram__sectors_read.sum\n1,a\n",
                      GF_ERR_PARSE, 2, "fields");
    expect_read_error("badid.csv", "kernel_id,kernel_name,gpu\n1.5,a,g\n", GF_ERR_PARSE, 2,
                      "kernel_id");
    expect_read_error("quote.csv", "kernel_id,kernel_name,gpu\n1,a,g\n2,\"never closed,g\n",
                      GF_ERR_PARSE, 3, "quoted");
    expect_read_error("empty.csv", "", GF_ERR_PARSE, 1, "empty");
    gf_report r;
    gf_error e;
    assert_int_equal(gf_report_read_csv("/nonexistent/p.csv", &r, &e), GF_ERR_IO);
    assert_string_equal(e.file, "/nonexistent/p.csv");
    gf_report_free(&r);
    /* nvprof aliases are accepted as column names; empty cells are n/a */
    const char *ok = "kernel_id,kernel_name,gpu,gld_transactions,ipc\n3,k,g,106,\n";
    const char *path = gf_test_write_file("alias.csv", ok, strlen(ok));
    assert_int_equal(gf_report_read_csv(path, &r, &e), GF_OK);
    assert_int_equal(r.nrows, 1);
    assert_true(r.rows[0].v[GF_C_L1_GLD_SECTORS] == 106);
    assert_true(isnan(r.rows[0].v[GF_C_IPC]));
    gf_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_counter_table_order),
        cmocka_unit_test(torture_counter_find_both_names),
        cmocka_unit_test(torture_unit_scale),
        cmocka_unit_test(torture_totals_rules),
        cmocka_unit_test(torture_derive),
        cmocka_unit_test(torture_csv_quoting_roundtrip),
        cmocka_unit_test(torture_json_valid_with_nan),
        cmocka_unit_test(torture_table_aligned),
        cmocka_unit_test(torture_counter_list),
        cmocka_unit_test(torture_counter_checks_h100),
        cmocka_unit_test(torture_read_csv_errors),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
