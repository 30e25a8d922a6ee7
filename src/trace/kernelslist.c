/*
 * Command list of an Accel-Sim trace (gf_trace_*, trace.h): kernelslist.g, a directory
 * holding one, or a single kernel file.
 *
 * kernelslist.g lines (refdata microgpusim/<app>/<app>-N-M-trace/kernelslist.g):
 *   MemcpyHtoD,0x00007f2b2d500000,400   copy before the next kernel
 *   kernel-1.traceg                     kernel file, relative to the list's directory
 * The list and the single-file case are told apart by content (a kernel file starts with a
 * `-key = value` header), and a listed file that does not exist is looked for with .gz and
 * .xz appended, since traces are often compressed after tracing without editing the list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/pptgpu.h"
#include "trace/stream.h"
#include "trace/trace.h"
#include "util/alloc.h"
#include "util/error.h"

struct gf_trace {
    gf_command *cmds;
    size_t n, cap;
};

static int is_regular(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A list line for a message (stream.h: no raw control bytes). */
static const char *shown(const char *line, char *buf, size_t size)
{
    return gf_stream_printable(line, strlen(line), 60, buf, size);
}

static gf_status add(gf_trace *t, const gf_command *c, const char *path, gf_error *err)
{
    if (gf_grow((void **)&t->cmds, &t->cap, t->n + 1, sizeof *t->cmds) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, path, c->line, "out of memory");
    t->cmds[t->n++] = *c;
    return GF_OK;
}

static char *trim(char *s, size_t *len)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    *len = n;
    return s;
}

/* "MemcpyHtoD,0xADDR,BYTES" */
static int parse_memcpy(const char *s, uint64_t *addr, uint64_t *bytes)
{
    const char *p = strchr(s, ',');
    if (!p)
        return -1;
    p++;
    while (*p == ' ')
        p++;
    char *end;
    errno = 0;
    if (!(p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
        return -1;
    unsigned long long a = strtoull(p + 2, &end, 16);
    if (errno || end == p + 2)
        return -1;
    p = end;
    while (*p == ' ')
        p++;
    if (*p != ',')
        return -1;
    p++;
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    unsigned long long b = strtoull(p, &end, 10);
    if (errno)
        return -1;
    while (*end == ' ')
        end++;
    if (*end)
        return -1;
    *addr = a;
    *bytes = b;
    return 0;
}

/* A copy whose last byte lies past 2^64 - 1 is no copy a 64-bit GPU can make. */
static int memcpy_wraps(uint64_t addr, uint64_t bytes)
{
    return bytes > 0 && bytes - 1 > UINT64_MAX - addr;
}

/* hint: said after a missing kernel file (a file given as TRACE is read as a list when
 * it has no kernel header, and its first line may be anything). */
static gf_status read_list(gf_trace *t, gf_stream *s, const char *listpath, const char *hint,
                           gf_error *err)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", listpath);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    char *line;
    size_t len;
    gf_status st;
    char show[GF_PRINTABLE_SIZE(60)];
    while ((st = gf_stream_next_line(s, &line, &len, err)) == GF_OK) {
        long ln = gf_stream_line(s);
        line = trim(line, &len);
        if (len == 0 || line[0] == '#')
            continue;
        gf_command c;
        memset(&c, 0, sizeof c);
        c.line = ln;
        if (strncmp(line, "Memcpy", 6) == 0) {
            if (strncmp(line, "MemcpyHtoD,", 11) != 0 ||
                parse_memcpy(line, &c.addr, &c.bytes) != 0)
                return gf_error_set(err, GF_ERR_PARSE, listpath, ln,
                                    "expected 'MemcpyHtoD,0xADDRESS,BYTES', found '%s'",
                                    shown(line, show, sizeof show));
            if (memcpy_wraps(c.addr, c.bytes))
                return gf_error_set(err, GF_ERR_PARSE, listpath, ln,
                                    "MemcpyHtoD of %llu bytes at 0x%016llx runs past the end "
                                    "of the 64-bit address space: expected address + bytes "
                                    "<= 2^64",
                                    (unsigned long long)c.bytes, (unsigned long long)c.addr);
            c.kind = GF_CMD_MEMCPY_HTOD;
        } else {
            if (len >= 512 || memchr(line, ',', len))
                return gf_error_set(err, GF_ERR_PARSE, listpath, ln,
                                    "expected a kernel trace file name or "
                                    "'MemcpyHtoD,0xADDRESS,BYTES', found '%s'",
                                    shown(line, show, sizeof show));
            c.kind = GF_CMD_KERNEL;
            char base[1024];
            if (line[0] == '/')
                snprintf(base, sizeof base, "%s", line);
            else
                snprintf(base, sizeof base, "%s%s", dir, line);
            static const char *const suffix[] = {"", ".gz", ".xz"};
            int found = 0;
            for (size_t i = 0; i < 3 && !found; i++) {
                snprintf(c.path, sizeof c.path, "%s%s", base, suffix[i]);
                found = is_regular(c.path);
            }
            if (!found && is_dir(base))
                return gf_error_set(err, GF_ERR_IO, listpath, ln,
                                    "kernel file '%s' is a directory: expected a kernel trace "
                                    "file",
                                    base);
            if (!found)
                return gf_error_set(err, GF_ERR_IO, listpath, ln,
                                    "kernel file '%s' not found (also tried .gz and .xz)%s",
                                    base, hint);
        }
        st = add(t, &c, listpath, err);
        if (st != GF_OK)
            return st;
    }
    if (st != GF_END)
        return st;
    if (t->n == 0)
        return gf_error_set(err, GF_ERR_PARSE, listpath, gf_stream_line(s) + 1,
                            "empty kernels list: expected kernel file names or MemcpyHtoD "
                            "lines");
    return GF_OK;
}

/* A file called kernelslist.g is a list by name; any other is one by a guess. */
static int named_as_list(const char *path)
{
    const char *base = strrchr(path, '/');
    return strcmp(base ? base + 1 : path, "kernelslist.g") == 0;
}

static const char guessed_list[] = "; the file was read as a kernels list, having no kernel "
                                   "header ('-kernel name = ...')";

/* PPT-GPU directory (pptgpu.h): one kernel command per app_config.py dict. */
static gf_status open_pptgpu(const char *dir, gf_trace **out, gf_error *err)
{
    gf_trace *t = gf_calloc(1, sizeof *t);
    if (!t)
        return gf_error_set(err, GF_ERR_NOMEM, dir, 0, "out of memory");
    gf_status st = gf_pptgpu_commands(dir, &t->cmds, &t->n, err);
    if (st != GF_OK) {
        free(t);
        return st;
    }
    t->cap = t->n;
    *out = t;
    return GF_OK;
}

gf_status gf_trace_open(const char *path, gf_trace **out, gf_error *err)
{
    *out = NULL;
    char list[1024];
    struct stat sb;
    if (stat(path, &sb) != 0)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode)) {
        size_t n = strlen(path);
        snprintf(list, sizeof list, "%s%skernelslist.g", path,
                 n && path[n - 1] == '/' ? "" : "/");
        if (!is_regular(list) && gf_pptgpu_is_dir(path))
            return open_pptgpu(path, out, err);
        if (!is_regular(list))
            return gf_error_set(err, GF_ERR_IO, path, 0,
                                "directory has no kernelslist.g: expected an Accel-Sim trace "
                                "directory (or a PPT-GPU one: app_config.py and "
                                "sass_traces/)");
    } else {
        /* PPT-GPU: its app_config.py stands for the directory; one .sass is one kernel */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (strcmp(base, "app_config.py") == 0) {
            char dir[1024];
            snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
            return open_pptgpu(dir[0] ? dir : ".", out, err);
        }
        snprintf(list, sizeof list, "%s", path);
    }
    gf_trace *t = gf_calloc(1, sizeof *t);
    if (!t)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    gf_stream *s;
    gf_status st = gf_stream_open(list, &s, err);
    if (st != GF_OK) {
        free(t);
        return st;
    }
    /* Peek at the first non-blank line: a kernel file opens with its '-' header. */
    char *line;
    size_t len;
    for (;;) {
        st = gf_stream_next_line(s, &line, &len, err);
        if (st != GF_OK)
            break;
        line = trim(line, &len);
        if (len)
            break;
    }
    if (st == GF_END) {
        st = gf_error_set(err, GF_ERR_PARSE, list, gf_stream_line(s) + 1,
                          "empty file: expected a kernelslist.g or an Accel-Sim kernel "
                          "trace");
        goto fail;
    }
    if (st != GF_OK)
        goto fail;
    int kernel_file = line[0] == '-' || gf_pptgpu_is_kernel_path(list);
    gf_stream_close(s);
    s = NULL;
    if (kernel_file) {
        gf_command c;
        memset(&c, 0, sizeof c);
        c.kind = GF_CMD_KERNEL;
        snprintf(c.path, sizeof c.path, "%s", list);
        st = add(t, &c, list, err);
        if (st != GF_OK)
            goto fail;
    } else {
        st = gf_stream_open(list, &s, err);
        if (st != GF_OK)
            goto fail;
        st = read_list(t, s, list, named_as_list(list) ? "" : guessed_list, err);
        gf_stream_close(s);
        s = NULL;
        if (st != GF_OK)
            goto fail;
    }
    *out = t;
    return GF_OK;
fail:
    gf_stream_close(s);
    gf_trace_free(t);
    return st;
}

void gf_trace_free(gf_trace *t)
{
    if (!t)
        return;
    free(t->cmds);
    free(t);
}

size_t gf_trace_command_count(const gf_trace *t)
{
    return t->n;
}

const gf_command *gf_trace_command(const gf_trace *t, size_t i)
{
    return i < t->n ? &t->cmds[i] : NULL;
}
