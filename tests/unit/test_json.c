/* torture tests for the one JSON string escaper (gf_report_json_string, src/report/report.c),
 * which report, validate and `info --format json` share: quotes, backslash, control
 * characters, UTF-8 and DEL passed through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* gf_report_json_string(s) as a string (the caller frees it). */
static char *escaped(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gf_report_json_string(f, s);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void expect(const char *in, const char *want)
{
    char *got = escaped(in);
    if (strcmp(got, want) != 0)
        fail_msg("escaping gave %s, expected %s", got, want);
    free(got);
}

static void torture_json_string_escapes(void **state)
{
    (void)state;
    expect("", "\"\"");
    expect("plain_kernel<float>(int)", "\"plain_kernel<float>(int)\"");
    expect("say \"hi\"", "\"say \\\"hi\\\"\"");
    expect("a\\b", "\"a\\\\b\"");
    expect("\\\"", "\"\\\\\\\"\"");
    expect("l1\nl2\r\tx", "\"l1\\nl2\\r\\tx\"");
    /* the other control characters as \u00XX, lower-case hex */
    expect("\x01\x08\x0b\x0c\x1b\x1f", "\"\\u0001\\u0008\\u000b\\u000c\\u001b\\u001f\"");
    /* not control characters: space, DEL and every byte of UTF-8 pass through */
    expect(" \x7f", "\" \x7f\"");
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
    /* a path as info prints it */
    expect("/tmp/a b/kernel-1.traceg", "\"/tmp/a b/kernel-1.traceg\"");
}

/* Every byte 0x01..0xff once: the output is valid JSON text for the same bytes (each
 * control character escaped, nothing else changed). */
static void torture_json_string_every_byte(void **state)
{
    (void)state;
    char in[256];
    for (int i = 1; i < 256; i++)
        in[i - 1] = (char)i;
    in[255] = 0;
    char *got = escaped(in);
    size_t n = strlen(got);
    assert_true(n >= 2 && got[0] == '"' && got[n - 1] == '"');
    /* decode it back */
    char back[256];
    size_t j = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)got[i];
        assert_true(c >= 0x20); /* no raw control character */
        assert_true(c != '"');  /* quotes only escaped */
        if (c != '\\') {
            back[j++] = (char)c;
            continue;
        }
        char e = got[++i];
        if (e == 'u') {
            unsigned v;
            assert_int_equal(sscanf(got + i + 1, "%4x", &v), 1);
            assert_true(v < 0x20);
            back[j++] = (char)v;
            i += 4;
        } else {
            const char *from = "\"\\ntr", *to = "\"\\\n\t\r";
            const char *k = strchr(from, e);
            assert_non_null(k);
            back[j++] = to[k - from];
        }
        assert_true(j < sizeof back);
    }
    back[j] = 0;
    assert_string_equal(back, in);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_json_string_escapes),
        cmocka_unit_test(torture_json_string_every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
