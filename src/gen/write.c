/*
 * Writing a synthetic trace: gf_gen_count runs the kernel without output; the writer
 * builds kernel-1.traceg[.gz] and kernelslist.g under temporary names and renames them
 * into place (a fresh directory is built beside the target and renamed last), so an
 * interrupted or failed run never leaves a half-written trace that looks complete. The
 * temporary names are registered with util/atomic_file.h's signal handlers, so a program
 * that installed them (the CLI) leaves none behind when a signal ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gen/gen_internal.h"
#include "util/atomic_file.h"

gf_status gf_gen_count(const gf_gen_params *in, gf_gen_summary *sum, gf_error *err)
{
    gf_gen_params p;
    gf_status st = gf_gen_resolve(in, &p, err);
    if (st != GF_OK)
        return st;
    gen *g = calloc(1, sizeof *g);
    if (!g)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    g->p = &p;
    gf_gen_run_kernel(g);
    if (sum)
        *sum = g->sum;
    free(g);
    return GF_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Atomic output */

static unsigned long tmp_counter;

/* Creates a new file dir/name.tmp.<pid>.<k> with O_EXCL (mode 0666 & ~umask, like any
 * file the user creates); path receives its name. */
static int create_tmp(const char *dir, const char *name, char *path, size_t cap)
{
    for (int tries = 0; tries < 100; tries++) {
        snprintf(path, cap, "%.1000s/.%.32s.tmp.%ld.%lu", dir, name, (long)getpid(),
                 tmp_counter++);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* One write in progress: the target (without trailing slashes, so "dir/" renames like
 * "dir"), the directory the files are made in (the target when it exists, else newdir, a
 * fresh directory beside it that is renamed into place last) and the temporary names
 * still to remove on failure ("" once renamed). */
typedef struct out_job {
    char target[1024], workdir[1024], newdir[1024];
    char ktmp[1200], ltmp[1200];
    char kfinal[1200], lfinal[1200]; /* the files' names in workdir */
    const char *kname;
    /* gf_tmpname_track slots (-1: none): the temporary files, the fresh directory and,
     * inside it, the final names (renamed into it before the directory is renamed) */
    int kslot, lslot, dslot, kfslot, lfslot;
} out_job;

static void job_forget(out_job *j)
{
    gf_tmpname_forget(j->kslot);
    gf_tmpname_forget(j->lslot);
    gf_tmpname_forget(j->kfslot);
    gf_tmpname_forget(j->lfslot);
    gf_tmpname_forget(j->dslot);
    j->kslot = j->lslot = j->kfslot = j->lfslot = j->dslot = -1;
}

static gf_status job_start(out_job *j, const char *out_dir, const gf_gen_params *p,
                           gf_error *err)
{
    memset(j, 0, sizeof *j);
    j->kslot = j->lslot = j->dslot = j->kfslot = j->lfslot = -1;
    j->kname = p->gzip ? "kernel-1.traceg.gz" : "kernel-1.traceg";
    if (!out_dir || !*out_dir)
        return gf_gen_invalid(err, "-o: an output directory is required");
    size_t dl = strlen(out_dir);
    if (dl > 900)
        return gf_error_set(err, GF_ERR_INVALID, out_dir, 0, "output path too long");
    memcpy(j->target, out_dir, dl + 1);
    while (dl > 1 && j->target[dl - 1] == '/')
        j->target[--dl] = 0;
    struct stat sb;
    if (stat(j->target, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return gf_error_set(err, GF_ERR_IO, j->target, 0,
                                "exists and is not a directory (expected an output directory)");
        snprintf(j->workdir, sizeof j->workdir, "%.900s", j->target);
        snprintf(j->kfinal, sizeof j->kfinal, "%s/%s", j->workdir, j->kname);
        snprintf(j->lfinal, sizeof j->lfinal, "%s/kernelslist.g", j->workdir);
        return GF_OK;
    }
    for (int tries = 0; tries < 100; tries++) {
        snprintf(j->newdir, sizeof j->newdir, "%.900s.tmp.%ld.%lu", j->target,
                 (long)getpid(), tmp_counter++);
        if (mkdir(j->newdir, 0777) == 0) {
            snprintf(j->workdir, sizeof j->workdir, "%s", j->newdir);
            snprintf(j->kfinal, sizeof j->kfinal, "%s/%s", j->workdir, j->kname);
            snprintf(j->lfinal, sizeof j->lfinal, "%s/kernelslist.g", j->workdir);
            /* the files inside before the directory; the final names too, as they exist
             * inside the fresh directory until it is renamed */
            j->dslot = gf_tmpname_track(j->newdir, 1);
            j->kfslot = gf_tmpname_track(j->kfinal, 0);
            j->lfslot = gf_tmpname_track(j->lfinal, 0);
            return GF_OK;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    j->newdir[0] = 0;
    return gf_error_set(err, GF_ERR_IO, j->target, 0, "cannot create directory: %s",
                        strerror(e));
}

/* Removes what a failed write left: temporary files and the fresh directory. */
static void job_abort(out_job *j)
{
    if (j->ktmp[0])
        unlink(j->ktmp);
    if (j->ltmp[0])
        unlink(j->ltmp);
    if (j->newdir[0])
        rmdir(j->newdir);
    job_forget(j);
}

/* With --max-size, a counting pass refuses a trace that would be too large before any
 * byte is written. */
static gf_status check_max_size(const gf_gen_params *p, gf_error *err)
{
    if (!p->max_bytes)
        return GF_OK;
    gen *c = calloc(1, sizeof *c);
    if (!c)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    c->p = p;
    gf_gen_run_kernel(c);
    gf_status st = GF_OK;
    if (c->io_failed == 2)
        st = gf_gen_invalid(err,
                            "--max-size: the trace would exceed %llu bytes (%llu+ warp "
                            "instructions); raise --max-size or shrink -n/--grid",
                            (unsigned long long)p->max_bytes,
                            (unsigned long long)c->sum.warp_insts);
    free(c);
    return st;
}

/* Opens g's output on the new temporary kernel file: plain, or gzip when asked. */
static gf_status open_kernel_out(out_job *j, gen *g, gf_error *err)
{
    int fd = create_tmp(j->workdir, j->kname, j->ktmp, sizeof j->ktmp);
    if (fd < 0) {
        j->ktmp[0] = 0;
        return gf_error_set(err, GF_ERR_IO, j->workdir, 0, "cannot create trace file: %s",
                            strerror(errno));
    }
    j->kslot = gf_tmpname_track(j->ktmp, 0);
    if (g->p->gzip) {
        if (!(g->gz = gzdopen(fd, "wb6"))) {
            close(fd);
            return gf_error_set(err, GF_ERR_IO, j->ktmp, 0, "cannot start gzip stream");
        }
        gzbuffer(g->gz, 1u << 17);
    } else if (!(g->fp = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return gf_error_set(err, GF_ERR_IO, j->ktmp, 0, "cannot open: %s", strerror(e));
    }
    return GF_OK;
}

/* Writes the kernel file under its temporary name; *sum receives what was written. */
static gf_status write_kernel(out_job *j, const gf_gen_params *p, gf_gen_summary *sum,
                              gf_error *err)
{
    gen *g = calloc(1, sizeof *g);
    if (!g)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
    g->p = p;
    g->writing = 1;
    gf_status st = open_kernel_out(j, g, err);
    if (st == GF_OK) {
        gf_gen_run_kernel(g);
        int closed = g->gz ? gzclose(g->gz) == Z_OK : fclose(g->fp) == 0;
        if (!closed && !g->io_failed)
            g->io_failed = 1, g->io_errno = errno;
        if (g->io_failed == 2)
            st = gf_gen_invalid(err,
                                "--max-size: the trace would exceed %llu bytes; raise "
                                "--max-size or shrink -n/--grid",
                                (unsigned long long)p->max_bytes);
        else if (g->io_failed)
            st = gf_error_set(err, GF_ERR_IO, j->ktmp, 0, "write failed: %s",
                              g->io_errno ? strerror(g->io_errno) : "disk full?");
        g->sum.bytes = g->bytes;
        *sum = g->sum;
    }
    free(g);
    return st;
}

/* Writes kernelslist.g under its temporary name: vecadd's two input copies, the kernel. */
static gf_status write_kernelslist(out_job *j, const gf_gen_params *p, gf_error *err)
{
    int fd = create_tmp(j->workdir, "kernelslist.g", j->ltmp, sizeof j->ltmp);
    if (fd >= 0)
        j->lslot = gf_tmpname_track(j->ltmp, 0);
    FILE *lf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!lf) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        else
            j->ltmp[0] = 0;
        return gf_error_set(err, GF_ERR_IO, j->workdir, 0, "cannot create kernelslist.g: %s",
                            strerror(e));
    }
    if (p->kind == GF_GEN_VECADD) /* the host copies a and b in before the launch */
        fprintf(lf, "MemcpyHtoD,0x%016llx,%llu\nMemcpyHtoD,0x%016llx,%llu\n",
                (unsigned long long)A_BASE, (unsigned long long)(p->n * 4),
                (unsigned long long)B_BASE, (unsigned long long)(p->n * 4));
    fprintf(lf, "%s\n", j->kname);
    int bad = ferror(lf) != 0, e = errno;
    if (fclose(lf) != 0 && !bad)
        bad = 1, e = errno;
    return bad ? gf_error_set(err, GF_ERR_IO, j->ltmp, 0, "write failed: %s", strerror(e))
               : GF_OK;
}

/* Renames the files into place, the kernel file first (kernelslist.g only ever names a
 * complete file), then a fresh directory onto the target. */
static gf_status job_publish(out_job *j, gf_error *err)
{
    const char *kfinal = j->kfinal, *lfinal = j->lfinal;
    if (rename(j->ktmp, kfinal) != 0)
        return gf_error_set(err, GF_ERR_IO, kfinal, 0, "cannot rename into place: %s",
                            strerror(errno));
    j->ktmp[0] = 0;
    if (rename(j->ltmp, lfinal) != 0) {
        gf_status st = gf_error_set(err, GF_ERR_IO, lfinal, 0, "cannot rename into place: %s",
                                    strerror(errno));
        unlink(kfinal);
        return st;
    }
    j->ltmp[0] = 0;
    if (j->newdir[0] && rename(j->newdir, j->target) != 0) {
        gf_status st = gf_error_set(err, GF_ERR_IO, j->target, 0,
                                    "cannot rename into place: %s", strerror(errno));
        unlink(kfinal);
        unlink(lfinal);
        return st;
    }
    j->newdir[0] = 0;
    job_forget(j); /* after the renames: a signal in between finds the names gone */
    return GF_OK;
}

gf_status gf_gen_write_summary(const gf_gen_params *in, const char *out_dir,
                               gf_gen_summary *sum, gf_error *err)
{
    gf_gen_params p;
    out_job j;
    gf_gen_summary written;
    gf_status st = gf_gen_resolve(in, &p, err);
    if (st != GF_OK)
        return st;
    st = job_start(&j, out_dir, &p, err);
    if (st != GF_OK)
        return st;
    st = check_max_size(&p, err);
    if (st == GF_OK)
        st = write_kernel(&j, &p, &written, err);
    if (st == GF_OK)
        st = write_kernelslist(&j, &p, err);
    if (st == GF_OK)
        st = job_publish(&j, err);
    if (st != GF_OK) {
        job_abort(&j);
        return st;
    }
    if (sum)
        *sum = written;
    return GF_OK;
}

gf_status gf_gen_write(const gf_gen_params *p, const char *out_dir, gf_error *err)
{
    return gf_gen_write_summary(p, out_dir, NULL, err);
}
