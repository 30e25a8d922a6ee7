/*
 * Whole reads from a file descriptor: read()/pread() until n bytes or end of file,
 * retrying on EINTR (short reads are normal on pipes and some file systems).
 *
 * Prefix: gf_fd_.
 */
#ifndef GF_UTIL_FDIO_H
#define GF_UTIL_FDIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads up to n bytes into dst: at the descriptor's position when off < 0 (read), else
 * at byte off without moving it (pread). Returns the bytes read (fewer than n only at
 * end of file) or -1 with errno set. */
ssize_t gf_fd_read_full(int fd, void *dst, size_t n, int64_t off);

#endif
