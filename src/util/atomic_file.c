#define _XOPEN_SOURCE 700 /* realpath */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

struct gf_outfile {
    FILE *fp;
    int is_stdout;
    int direct;    /* a device or FIFO written in place: nothing to rename or remove */
    int live;      /* slot in the signal registry, -1 when none */
    char *path;    /* as given, for messages */
    char *target;  /* the file to replace: path with its symlinks followed */
    char *tmp;
};

/* ---- live temporary files, for the signal handler ----
 * Fixed slots so the handler needs no allocation or lock: a slot is claimed (1), its
 * name copied, then published (2); the handler unlinks published names only. */
#define LIVE_SLOTS 16
#define LIVE_NAME 4096

static struct {
    atomic_int state; /* 0 free, 1 being filled, 2 live */
    int is_dir;       /* removed with rmdir, after every file */
    char name[LIVE_NAME];
} live[LIVE_SLOTS];

static int live_add_kind(const char *name, int is_dir)
{
    if (strlen(name) >= LIVE_NAME)
        return -1; /* still written and removed on errors, just not on signals */
    for (int i = 0; i < LIVE_SLOTS; i++) {
        int free_state = 0;
        if (atomic_compare_exchange_strong(&live[i].state, &free_state, 1)) {
            strcpy(live[i].name, name);
            live[i].is_dir = is_dir;
            atomic_store(&live[i].state, 2);
            return i;
        }
    }
    return -1;
}

static int live_add(const char *name)
{
    return live_add_kind(name, 0);
}

int gf_tmpname_track(const char *name, int is_dir)
{
    return live_add_kind(name, is_dir != 0);
}

void gf_tmpname_forget(int slot)
{
    if (slot >= 0 && slot < LIVE_SLOTS)
        atomic_store(&live[slot].state, 0);
}

static void live_drop(int i)
{
    if (i >= 0)
        atomic_store(&live[i].state, 0);
}

/* Async-signal-safe: atomic loads, unlink and rmdir only. Files first, then the
 * directories they were in. */
static void live_unlink_all(void)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < LIVE_SLOTS; i++)
            if (atomic_load(&live[i].state) == 2 && live[i].is_dir == pass)
                (void)(pass ? rmdir(live[i].name) : unlink(live[i].name));
}

static void on_signal(int sig)
{
    int saved = errno;
    live_unlink_all();
    errno = saved;
    /* SA_RESETHAND put the default action back; the signal is blocked until we
     * return, so the process then dies of it, with the status a caller expects. */
    raise(sig);
}

gf_status gf_outfile_catch_signals(gf_error *err)
{
    static atomic_int done;
    if (atomic_exchange(&done, 1))
        return GF_OK;
    if (atexit(live_unlink_all) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "cannot register the exit hook");
    /* Every signal whose default action ends the process and that arrives from outside
     * or from the environment (a closed pipe, a CPU or file-size limit, a timer); not
     * the faults (SIGSEGV, SIGBUS, ...), whose handlers belong to sanitizers and
     * debuggers. */
    static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM,
                               SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(sigs[k], NULL, &old) != 0)
            continue;
        /* nohup and background jobs ignore some signals: keep that; and do not take
         * over a handler someone else installed. */
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[k], &sa, NULL);
    }
    return GF_OK;
}

/* ---- where to write ---- */

static char *join_dir(const char *link, const char *rel)
{
    const char *slash = strrchr(link, '/');
    size_t d = slash ? (size_t)(slash - link) + 1 : 0;
    char *s = malloc(d + strlen(rel) + 1);
    if (s) {
        memcpy(s, link, d);
        strcpy(s + d, rel);
    }
    return s;
}

/* path does not exist as a file: it is absent or a dangling symlink. Follows the links
 * (a relative one from its own directory) to the name a shell redirection would create. */
static char *follow_dangling(const char *path, int *e)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char buf[LIVE_NAME];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            *e = errno;
            free(cur);
            return NULL;
        }
        buf[n] = 0;
        char *next = buf[0] == '/' ? strdup(buf) : join_dir(cur, buf);
        free(cur);
        cur = next;
    }
    *e = cur ? ELOOP : ENOMEM;
    free(cur);
    return NULL;
}

/* Frees a half-opened f; st is what gf_error_set returned (already naming f->path). */
static gf_status open_fail(gf_outfile *f, gf_status st)
{
    free(f->path);
    free(f->target);
    free(f->tmp);
    free(f);
    return st;
}

static const char *refused_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return NULL;
}

/* A character device or FIFO: written in place (no O_TRUNC: devices ignore it and a
 * FIFO has nothing to truncate; no O_CREAT: it exists). */
static gf_status open_direct(gf_outfile *f, gf_error *err)
{
    int fd = open(f->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return open_fail(f, gf_error_set(err, GF_ERR_IO, f->path, 0, "cannot open output: %s",
                                         strerror(errno)));
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || !(f->fp = fdopen(fd, "w"))) {
        close(fd);
        return open_fail(f, gf_error_set(err, GF_ERR_IO, f->path, 0,
                                         "output changed while being opened"));
    }
    f->direct = 1;
    return GF_OK;
}

static unsigned long long tmp_suffix(unsigned attempt)
{
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                 ((uint64_t)getpid() << 40) ^ atomic_fetch_add(&counter, 1) ^ attempt;
    /* splitmix64 finaliser, so names of one process do not look alike */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A regular file or a new one: a temporary file beside target. mkstemp would make it
 * 0600; opening it ourselves with 0666 lets the kernel apply the umask (and a default
 * ACL) as for any new file, and an existing file's mode is copied onto it. */
static gf_status open_temp(gf_outfile *f, const struct stat *old, gf_error *err)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(f->target) + 16;
    f->tmp = malloc(n);
    if (!f->tmp)
        return open_fail(f, gf_error_set(err, GF_ERR_NOMEM, f->path, 0, "out of memory"));
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        unsigned long long r = tmp_suffix(attempt);
        char sfx[7];
        for (int i = 0; i < 6; i++, r /= 36)
            sfx[i] = digits[r % 36];
        sfx[6] = 0;
        snprintf(f->tmp, n, "%s.tmp%s", f->target, sfx);
        fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, old ? 0600 : 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return open_fail(f, gf_error_set(err, GF_ERR_IO, f->path, 0,
                                         "cannot create output file: %s", strerror(errno)));
    f->live = live_add(f->tmp);
    if (old) {
        /* Best effort: only root may give a file away; the mode is set after, as
         * chown clears set-ID bits (which a rewrite does not keep anyway). */
        if (old->st_uid != geteuid() || old->st_gid != getegid())
            (void)!fchown(fd, old->st_uid, old->st_gid);
        fchmod(fd, old->st_mode & 0777);
    }
    if (!(f->fp = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        live_drop(f->live);
        return open_fail(f, gf_error_set(err, GF_ERR_IO, f->path, 0,
                                         "cannot create output file: %s", strerror(e)));
    }
    return GF_OK;
}

/* The descriptor a path names when it is one of our own open descriptors
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. */
static int descriptor_of(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *num = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        num = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        num = path + 14;
    if (!num || *num < '0' || *num > '9')
        return -1;
    char *end;
    long fd = strtol(num, &end, 10);
    return *end || fd > 1 << 20 ? -1 : (int)fd;
}

/* A regular file reached through one of our descriptors (`-o /dev/stdout` with stdout
 * redirected to a file, `>> log`): written through a copy of the descriptor, at its
 * offset and with its append mode, as the shell opened it. Renaming over the file
 * would drop what the shell wrote before us and, with >>, wipe the log. */
static int open_descriptor(gf_outfile *f, int fd)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0)
        return 0;
    if (!(f->fp = fdopen(copy, "w"))) {
        close(copy);
        return 0;
    }
    f->direct = 1;
    return 1;
}

gf_status gf_outfile_open(const char *path, gf_outfile **out, gf_error *err)
{
    gf_outfile *f = calloc(1, sizeof *f);
    if (!f)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    f->live = -1;
    if (!path || strcmp(path, "-") == 0) {
        f->fp = stdout;
        f->is_stdout = 1;
        *out = f;
        return GF_OK;
    }
    if (!(f->path = strdup(path)))
        return open_fail(f, gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory"));
    if (open_descriptor(f, descriptor_of(path))) {
        *out = f;
        return GF_OK;
    }
    struct stat st;
    gf_status s;
    if (stat(path, &st) == 0) {
        const char *kind = refused_kind(st.st_mode);
        if (kind)
            return open_fail(f, gf_error_set(err, GF_ERR_IO, path, 0,
                                             "output is %s; expected a regular file, a "
                                             "character device such as /dev/null or a FIFO",
                                             kind));
        if (!S_ISREG(st.st_mode))
            s = open_direct(f, err);
        else if (!(f->target = realpath(path, NULL)))
            return open_fail(f, gf_error_set(err, GF_ERR_IO, path, 0,
                                             "cannot resolve output path: %s", strerror(errno)));
        else
            s = open_temp(f, &st, err);
    } else {
        int e = errno;
        if (e == ENOENT)
            f->target = follow_dangling(path, &e);
        if (!f->target)
            return open_fail(f, gf_error_set(err, GF_ERR_IO, path, 0,
                                             "cannot create output file: %s", strerror(e)));
        s = open_temp(f, NULL, err);
    }
    if (s == GF_OK)
        *out = f;
    return s;
}

FILE *gf_outfile_stream(gf_outfile *f)
{
    return f->fp;
}

static void outfile_free(gf_outfile *f)
{
    free(f->path);
    free(f->target);
    free(f->tmp);
    free(f);
}

gf_status gf_outfile_commit(gf_outfile *f, gf_error *err)
{
    if (f->is_stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        int e = errno;
        outfile_free(f);
        return bad ? gf_error_set(err, GF_ERR_IO, "<stdout>", 0, "write failed: %s",
                                  strerror(e))
                   : GF_OK;
    }
    int bad = fflush(f->fp) != 0 || ferror(f->fp);
    int e = errno;
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && !f->direct && rename(f->tmp, f->target) != 0) {
        bad = 1;
        e = errno;
    }
    gf_status st = GF_OK;
    if (bad) {
        if (!f->direct)
            unlink(f->tmp);
        st = gf_error_set(err, GF_ERR_IO, f->path, 0, "cannot write output file: %s",
                          strerror(e));
    }
    /* After the rename, so a signal in between finds the name gone, not left. */
    live_drop(f->live);
    outfile_free(f);
    return st;
}

void gf_outfile_blame(gf_outfile *f, gf_error *err, int e)
{
    if (!f || !err || err->code != GF_ERR_IO)
        return;
    if (!err->file[0])
        snprintf(err->file, sizeof err->file, "%s", f->is_stdout ? "<stdout>" : f->path);
    if (!strchr(err->message, ':')) { /* "write failed": add why */
        clearerr(f->fp);
        if (fflush(f->fp) != 0)
            e = errno;
        if (e) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, ": %s", strerror(e));
        }
    }
}

void gf_outfile_abort(gf_outfile *f)
{
    if (!f)
        return;
    if (!f->is_stdout) {
        fclose(f->fp);
        if (!f->direct)
            unlink(f->tmp);
        live_drop(f->live);
    }
    outfile_free(f);
}
