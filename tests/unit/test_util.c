#define _XOPEN_SOURCE 700 /* mknod */
/* torture tests for src/util: error filling, atomic output files, big arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "util/atomic_file.h"
#include "util/bigmem.h"
#include "util/bits.h"
#include "util/error.h"

static void torture_error_set_fills_fields(void **state)
{
    (void)state;
    gf_error e;
    gf_error_clear(&e);
    assert_int_equal(gf_error_set(&e, GF_ERR_PARSE, "a.traceg", 12, "bad %s", "hex"),
                     GF_ERR_PARSE);
    assert_string_equal(e.file, "a.traceg");
    assert_int_equal(e.line, 12);
    assert_string_equal(e.message, "bad hex");
    assert_int_equal(gf_error_set(NULL, GF_ERR_IO, "x", 1, "y"), GF_ERR_IO);
}

static void torture_outfile_commit_and_abort(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%d.txt", gf_test_tmpdir(), (int)getpid());
    unlink(path);
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("partial", gf_outfile_stream(f));
    gf_outfile_abort(f);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing left behind */

    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("whole", gf_outfile_stream(f));
    assert_int_equal(access(path, F_OK) == 0, 0); /* not visible before commit */
    assert_int_equal(gf_outfile_commit(f, &e), GF_OK);
    FILE *r = fopen(path, "r");
    assert_non_null(r);
    char buf[16] = {0};
    assert_non_null(fgets(buf, sizeof buf, r));
    fclose(r);
    assert_string_equal(buf, "whole");
    unlink(path);
}

static void torture_outfile_bad_dir(void **state)
{
    (void)state;
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open("/nonexistent-dir/x.csv", &f, &e), GF_ERR_IO);
    assert_string_equal(e.file, "/nonexistent-dir/x.csv");
}

/* ---- -o rules (issue #22): each case in its own directory, so a stray temporary
 * file is seen. ---- */

static const char *case_dir(const char *name)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s-%d", gf_test_tmpdir(), name, (int)getpid());
    mkdir(dir, 0777);
    return dir;
}

static const char *in_dir(const char *dir, const char *file)
{
    static char paths[4][1024];
    static int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, 1024, "%s/%s", dir, file);
    return p;
}

/* Entries of dir whose name holds ".tmp" (temporary outputs left behind). */
static int temps_in(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs(text, gf_outfile_stream(f));
    assert_int_equal(gf_outfile_commit(f, &e), GF_OK);
}

static void assert_file_holds(const char *path, const char *want)
{
    char buf[64] = {0};
    FILE *r = fopen(path, "r");
    assert_non_null(r);
    size_t n = fread(buf, 1, sizeof buf - 1, r);
    fclose(r);
    buf[n] = 0;
    assert_string_equal(buf, want);
}

/* -o LINK replaces the file the link names, in its directory; the link stays. A dangling
 * link creates its target, as `>` would. */
static void torture_outfile_through_symlink(void **state)
{
    (void)state;
    const char *dir = case_dir("symlink");
    const char *real = in_dir(dir, "real.csv"), *link = in_dir(dir, "link.csv");
    unlink(real);
    unlink(link);
    write_text(real, "old");
    assert_int_equal(symlink("real.csv", link), 0); /* relative: resolved from dir */
    write_text(link, "new");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_holds(real, "new");

    const char *made = in_dir(dir, "made.csv"), *dangling = in_dir(dir, "dangling.csv");
    unlink(made);
    unlink(dangling);
    assert_int_equal(symlink("made.csv", dangling), 0);
    write_text(dangling, "created");
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_holds(made, "created");
    assert_int_equal(temps_in(dir), 0);
    unlink(made);
    unlink(dangling);
    unlink(real);
    unlink(link);
    rmdir(dir);
}

/* A replaced file keeps its mode whatever the umask; a new one gets 0666 & ~umask. */
static void torture_outfile_keeps_mode(void **state)
{
    (void)state;
    const char *dir = case_dir("mode");
    const char *old = in_dir(dir, "old.csv"), *fresh = in_dir(dir, "new.csv");
    unlink(old);
    unlink(fresh);
    write_text(old, "1");
    assert_int_equal(chmod(old, 0604), 0);
    mode_t saved = umask(077);
    write_text(old, "2");
    umask(027);
    write_text(fresh, "3");
    umask(saved);
    struct stat st;
    assert_int_equal(stat(old, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
    assert_int_equal(stat(fresh, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_file_holds(old, "2");
    unlink(old);
    unlink(fresh);
    rmdir(dir);
}

/* A FIFO is written into, not replaced by a regular file. */
static void torture_outfile_fifo_written_in_place(void **state)
{
    (void)state;
    const char *dir = case_dir("fifo");
    const char *fifo = in_dir(dir, "pipe");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so opening to write cannot block */
    assert_true(rd >= 0);
    write_text(fifo, "rows");
    char buf[16] = {0};
    ssize_t n = read(rd, buf, sizeof buf - 1);
    close(rd);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(n, 4);
    assert_string_equal(buf, "rows");
    assert_int_equal(temps_in(dir), 0);
    unlink(fifo);
    rmdir(dir);
}

/* A character device stays one. As root, a private null device made with mknod stands
 * in for /dev/null, so a regression cannot replace the system's; without root,
 * /dev/null itself (whose directory we may not write, so it cannot be harmed). */
static void torture_outfile_char_device_kept(void **state)
{
    (void)state;
    const char *dir = case_dir("chardev");
    const char *dev = "/dev/null";
    const char *own = in_dir(dir, "null");
    unlink(own);
    if (geteuid() == 0) {
        if (mknod(own, S_IFCHR | 0666, makedev(1, 3)) != 0) {
            rmdir(dir);
            gf_test_skip(); /* root without CAP_MKNOD: not worth risking /dev/null */
        }
        dev = own;
    }
    write_text(dev, "discarded");
    struct stat st;
    assert_int_equal(stat(dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(temps_in(dir), 0);
    unlink(own);
    rmdir(dir);
}

/* A directory is refused at open, naming the path, and left as it was. */
static void torture_outfile_refuses_directory(void **state)
{
    (void)state;
    const char *dir = case_dir("isdir");
    gf_error e;
    gf_outfile *f = NULL;
    assert_int_equal(gf_outfile_open(dir, &f, &e), GF_ERR_IO);
    assert_string_equal(e.file, dir);
    assert_non_null(strstr(e.message, "directory"));
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(rmdir(dir), 0); /* empty: no temporary file beside it either */
}

/* In a child: open an output, write, then die of sig (or exit without committing when
 * sig is 0). The child must leave no temporary file and die of the same signal. */
static void die_with_open_output(const char *dir, int sig)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        gf_error e;
        static gf_outfile *f; /* static: still reachable at exit, not a leak to LSan */
        if (gf_outfile_catch_signals(&e) != GF_OK ||
            gf_outfile_open(in_dir(dir, "out.csv"), &f, &e) != GF_OK)
            _exit(3);
        fputs("half a sweep", gf_outfile_stream(f));
        fflush(gf_outfile_stream(f));
        if (sig)
            raise(sig);
        exit(0); /* the exit hook removes it too */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (sig) {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sig);
    } else {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(temps_in(dir), 0);
    assert_int_not_equal(access(in_dir(dir, "out.csv"), F_OK), 0);
}

static void torture_outfile_signal_removes_temp(void **state)
{
    (void)state;
    const char *dir = case_dir("signal");
    die_with_open_output(dir, SIGTERM);
    die_with_open_output(dir, SIGINT);
    die_with_open_output(dir, SIGHUP);
    die_with_open_output(dir, 0);
    rmdir(dir);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Growth keeps the contents on both paths (calloc/realloc below 1 MiB, mapped above) and
 * across the switch between them, many times over; the new tail is zero wherever
 * gf_big_tail_zero says so, which is the case for every mapped array. */
static void torture_bigmem_grow_keeps_and_zeroes(void **state)
{
    (void)state;
    void *p = NULL;
    size_t cap = 0, used = 0;
    for (size_t need = 1; need <= ((size_t)24 << 20); need = need * 3 + 1) {
        assert_int_equal(gf_big_grow(&p, &cap, need, 1), 0);
        assert_true(cap >= need);
        unsigned char *b = p;
        for (size_t i = 0; i < used; i++)
            assert_true(b[i] == (unsigned char)(i * 7 + 1));
        if (cap >= ((size_t)1 << 20))
            assert_true(gf_big_tail_zero(p));
        if (gf_big_tail_zero(p))
            assert_true(all_zero(b + used, cap - used));
        for (size_t i = used; i < need; i++)
            b[i] = (unsigned char)(i * 7 + 1);
        used = need;
    }
    gf_big_free(p);
    gf_big_free(NULL);
    assert_false(gf_big_tail_zero(NULL));
}

static void torture_bigmem_calloc_and_overflow(void **state)
{
    (void)state;
    /* both sides of 64 KiB (prefaulted from there) and of 1 MiB (mapped from there) */
    for (size_t n = 0; n <= ((size_t)3 << 20); n += ((size_t)1 << 16) - 3) {
        unsigned char *p = gf_big_calloc(n, 1);
        assert_non_null(p);
        assert_true(all_zero(p, n));
        memset(p, 0xab, n);
        gf_big_free(p);
    }
    assert_null(gf_big_calloc(SIZE_MAX / 2, 4));
    void *p = NULL;
    size_t cap = 0;
    assert_int_equal(gf_big_grow(&p, &cap, SIZE_MAX / 2, 4), -1);
    assert_null(p);
    assert_int_equal(cap, 0);
}

/* Prefaulting never changes contents, on small, calloc'd and mapped arrays, and clips a
 * range past the end or empty. */
static void torture_bigmem_prefault_keeps_contents(void **state)
{
    (void)state;
    const size_t sizes[] = {100, (size_t)200 << 10, (size_t)3 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *p = gf_big_calloc(n, 1);
        assert_non_null(p);
        for (size_t i = 0; i < n; i += 97)
            p[i] = (unsigned char)(i * 5 + 3);
        gf_prefault_reach(p, n, 0, n);
        gf_prefault_reach(p, n, n / 3, SIZE_MAX); /* clipped to the array */
        gf_prefault_reach(p, n, n, n);            /* empty */
        gf_prefault_reach(p, n, n + 4096, n);     /* empty, from past the end */
        for (size_t i = 0; i < n; i++)
            assert_true(p[i] == (i % 97 ? 0 : (unsigned char)(i * 5 + 3)));
        gf_big_free(p);
    }
}

/* gf_grow_prefaulted keeps the bytes in use on both sides of 64 KiB (realloc below, a
 * prefaulted copy above) and leaves the buffer as it was when it cannot grow. */
static void torture_grow_prefaulted_keeps_bytes(void **state)
{
    (void)state;
    void *p = NULL;
    size_t cap = 0, used = 0;
    for (size_t need = 1; need <= ((size_t)1 << 20); need = need * 3 + 1) {
        assert_int_equal(gf_grow_prefaulted(&p, &cap, used, need), 0);
        assert_true(cap >= need);
        unsigned char *b = p;
        for (size_t i = 0; i < used; i++)
            assert_true(b[i] == (unsigned char)(i * 7 + 1));
        for (size_t i = used; i < need; i++)
            b[i] = (unsigned char)(i * 7 + 1);
        used = need;
    }
    void *q = p;
    size_t c = cap;
    assert_int_equal(gf_grow_prefaulted(&p, &cap, used, SIZE_MAX), -1);
    assert_ptr_equal(p, q);
    assert_int_equal(cap, c);
    free(p);
}

/* The bit counts against a plain loop: every 4-bit mask, with and without higher bits
 * set (gf_popcount4 ignores them), and 32-bit masks including the full warp. */
static void torture_popcounts(void **state)
{
    (void)state;
    for (unsigned m = 0; m < 64; m++) {
        unsigned want = 0;
        for (unsigned b = 0; b < 4; b++)
            want += m >> b & 1u;
        assert_int_equal(gf_popcount4(m), want);
    }
    static const uint32_t x[] = {0, 1, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x55555555u,
                                 0x0f0f00f1u};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        unsigned want = 0;
        for (unsigned b = 0; b < 32; b++)
            want += x[i] >> b & 1u;
        assert_int_equal(gf_popcount32(x[i]), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_error_set_fills_fields),
        cmocka_unit_test(torture_outfile_commit_and_abort),
        cmocka_unit_test(torture_outfile_bad_dir),
        cmocka_unit_test(torture_outfile_through_symlink),
        cmocka_unit_test(torture_outfile_keeps_mode),
        cmocka_unit_test(torture_outfile_fifo_written_in_place),
        cmocka_unit_test(torture_outfile_char_device_kept),
        cmocka_unit_test(torture_outfile_refuses_directory),
        cmocka_unit_test(torture_outfile_signal_removes_temp),
        cmocka_unit_test(torture_bigmem_grow_keeps_and_zeroes),
        cmocka_unit_test(torture_bigmem_calloc_and_overflow),
        cmocka_unit_test(torture_bigmem_prefault_keeps_contents),
        cmocka_unit_test(torture_grow_prefaulted_keeps_bytes),
        cmocka_unit_test(torture_popcounts),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
