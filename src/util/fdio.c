/* Whole reads from a file descriptor (fdio.h). */
#include "util/fdio.h"

#include <errno.h>
#include <unistd.h>

ssize_t gf_fd_read_full(int fd, void *dst, size_t n, int64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = off < 0 ? read(fd, (char *)dst + got, n - got)
                            : pread(fd, (char *)dst + got, n - got, (off_t)(off + (int64_t)got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}
