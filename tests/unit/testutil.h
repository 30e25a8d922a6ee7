/* Helpers shared by the cmocka unit tests: temp files, refdata location. */
#ifndef GF_TESTUTIL_H
#define GF_TESTUTIL_H

#include <stddef.h>

/* Writes len bytes to a fresh file under the test temp dir; returns its path
 * (static buffer rotated among 8 slots). */
const char *gf_test_write_file(const char *name, const void *data, size_t len);
/* Path of the test temp dir (created on first use). */
const char *gf_test_tmpdir(void);
/* Sets environment variable name to value; returns its old value (owned by the caller:
 * pass it to gf_test_restore_env) or NULL when it was unset. */
char *gf_test_set_env(const char *name, const char *value);
/* Puts back what gf_test_set_env returned (NULL: unsets name) and frees it. */
void gf_test_restore_env(const char *name, char *old);
/* refdata path joined with rel, or NULL when ../shared/refdata is absent (print a skip
 * message and skip). */
const char *gf_test_refdata(const char *rel);

#endif
