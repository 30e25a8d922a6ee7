/*
 * Output files written atomically: data goes to a temporary file beside the target,
 * which is renamed over it only on success, so an error never leaves a half-written
 * file (docs/architecture.md, errors). A NULL or "-" path writes to stdout instead.
 *
 * What -o may not destroy (issue #22):
 * - a symlink is written through: the file it finally names is replaced (or created,
 *   for a dangling link), in that file's directory, and the link stays a link;
 * - a character device or FIFO (/dev/null, a named pipe) is opened and written
 *   directly, never replaced; it cannot be rolled back, so an error leaves what was
 *   written there; directories, block devices and sockets are refused;
 * - a replaced file keeps its permission bits (not set-user/group-ID) and, where the
 *   process may, its owner and group; a new file gets 0666 less the umask, as a shell
 *   redirection would;
 * - the temporary file (PATH.tmpXXXXXX) is removed on every error path, and, once the
 *   program has called gf_outfile_catch_signals, on the signals it lists and at exit().
 *   SIGKILL cannot be caught: it leaves the temporary file behind.
 * A file with several hard links loses the link to the other names when replaced.
 */
#ifndef GF_UTIL_ATOMIC_FILE_H
#define GF_UTIL_ATOMIC_FILE_H

#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

typedef struct gf_outfile gf_outfile; /* opaque */

/* *out owned by caller: finish with gf_outfile_commit or gf_outfile_abort. */
gf_status gf_outfile_open(const char *path, gf_outfile **out, gf_error *err);
FILE *gf_outfile_stream(gf_outfile *f);
/* Flushes, closes and renames into place; frees f (also on failure, after removing the
 * temporary file). */
gf_status gf_outfile_commit(gf_outfile *f, gf_error *err);
/* A write to f's stream failed in code that did not know the stream's name (err filled
 * there, maybe with no file and no reason): names f's path ("<stdout>" for stdout) and,
 * when the message gives no reason, the one the stream gives on a retried flush, else
 * e (the errno right after the failed call; 0: none known). Call before commit/abort. */
void gf_outfile_blame(gf_outfile *f, gf_error *err, int e);
/* Discards: removes the temporary file and frees f. NULL is fine. */
void gf_outfile_abort(gf_outfile *f);

/* For programs (the CLI), not libraries embedding gpuforecast: installs handlers for
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2,
 * SIGVTALRM and SIGPROF (those not ignored and not already handled) that remove the
 * temporary files of outputs still open (and the names gf_tmpname_track registered) and
 * then die of the same signal, and an atexit hook doing the same. Up to 16 names at once
 * are covered. Idempotent. */
gf_status gf_outfile_catch_signals(gf_error *err);

/* Another writer's temporary name (gen's trace files and the directory it builds beside
 * its target): removed by those handlers and that hook, directories (is_dir, removed
 * with rmdir, so only once empty) after files. Register a name right after creating it
 * and forget it right after renaming it into place. Returns the slot to forget, or -1
 * (no slot free or the name too long: the name is then not covered). */
int gf_tmpname_track(const char *name, int is_dir);
void gf_tmpname_forget(int slot); /* -1 is fine */

#endif
