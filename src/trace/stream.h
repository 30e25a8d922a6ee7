/*
 * Line reader over plain, gzip (zlib) and xz (liblzma) files, chosen by the file's magic
 * bytes rather than its name, because kernelslist.g entries name `kernel-1.traceg` while
 * the file on disk may be compressed (issue #2); and over Accel-Sim 2.0's `.tracez`
 * (zstd sub-chunks behind a text header, told by its structure: trace/tracez.h), whose
 * lines are those of the `.traceg` text the same kernel has.
 *
 * Lines are handed out in place from one large buffer (no per-line copy): the returned
 * pointer is NUL-terminated, has its '\n' (and a trailing '\r') removed, and stays valid
 * until the next call on the same stream. The caller may modify the line's bytes.
 *
 * Prefix: gf_stream_.
 */
#ifndef GF_TRACE_STREAM_H
#define GF_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

typedef enum gf_compression {
    GF_COMPRESSION_NONE = 0,
    GF_COMPRESSION_GZIP = 1,
    GF_COMPRESSION_XZ = 2,
    GF_COMPRESSION_TRACEZ = 3 /* Accel-Sim 2.0 .tracez, read as its text (trace/tracez.h) */
} gf_compression;

typedef struct gf_stream gf_stream; /* opaque */

/* Large reads amortise syscalls and decompressor calls (issue #2 asks for >= 256 KiB);
 * the buffer grows only for a longer line, so memory stays flat (bench/README.md). */
#define GF_STREAM_BUFSIZE (256u * 1024u)
/* Longest accepted line. A mode-0 line of 32 lanes is ~700 bytes; anything beyond this is
 * not a trace line and must not make us buffer a whole file. */
#define GF_STREAM_MAX_LINE (16u * 1024u * 1024u)
/* Bytes after the end of the unread data that gf_stream_peek callers may read (word-sized
 * loads past a token), so that they need no bounds check per byte. */
#define GF_STREAM_PAD 64u

/* Opens path and detects its compression from the first bytes. On success *out is owned
 * by the caller: release with gf_stream_close. A missing/unreadable file is GF_ERR_IO. */
gf_status gf_stream_open(const char *path, gf_stream **out, gf_error *err);
void gf_stream_close(gf_stream *s); /* NULL is fine */

/* Next line: GF_OK with *line and *len (see above), GF_END at end of data, or GF_ERR_IO for
 * a read error or a corrupt/truncated compressed stream (message names the uncompressed
 * byte and line reached), GF_ERR_PARSE for a binary file (GF_STREAM_TEXT_CHECK) or an
 * over-long line. */
gf_status gf_stream_next_line(gf_stream *s, char **line, size_t *len, gf_error *err);

/* For parsers that find line ends themselves, to skip gf_stream_next_line's per-line
 * memchr and '\n' -> NUL store: *p is the unread data, which ends at *lim with a NUL that
 * is not data (and GF_STREAM_PAD more bytes after *lim are readable, values unspecified).
 * The data is not modified. A caller that finds a '\n' before *lim may take that line with
 * gf_stream_skip_line(s, bytes up to and including the '\n'); for anything else (a line
 * that reaches *lim, i.e. continues in data not read yet) it calls gf_stream_next_line,
 * which reads more. Valid until the next call on s. */
void gf_stream_peek(gf_stream *s, const char **p, const char **lim);
void gf_stream_skip_line(gf_stream *s, size_t n);
/* gf_stream_skip_line for nlines whole lines at once, n bytes in all. */
void gf_stream_skip_lines(gf_stream *s, size_t n, long nlines);

/* 1-based number of the line last returned (0 before the first). */
long gf_stream_line(const gf_stream *s);
const char *gf_stream_path(const gf_stream *s);
gf_compression gf_stream_compression(const gf_stream *s);
/* Decompressed bytes handed out so far (line bytes + newlines), for throughput numbers. */
uint64_t gf_stream_bytes(const gf_stream *s);

/* The first line (at most this many decompressed bytes) is checked for text: a NUL or
 * another control byte (other than tab, CR, VT, FF) or DEL there makes the file "not a
 * text trace" (GF_ERR_PARSE, naming the byte's offset), so a binary file is never parsed
 * as lines nor echoed. Only the first line: a binary file shows such a byte at once,
 * checking every byte would cost the hot path, and later lines reach the parsers, which
 * report bad bytes as escapes (gf_stream_printable). */
#define GF_STREAM_TEXT_CHECK (64u * 1024u)

/* Bytes a gf_stream_printable buffer needs for max input bytes (each may become \xNN,
 * plus "..." and the NUL). */
#define GF_PRINTABLE_SIZE(max) (4u * (max) + 4u)
/* Up to max of the len bytes at s, for a message: printable ASCII and bytes >= 0x80
 * (UTF-8) as they are, control bytes as \xNN, "..." when cut. Returns buf. */
const char *gf_stream_printable(const char *s, size_t len, size_t max, char *buf, size_t size);

/* Compression of the file at path from its magic bytes; GF_ERR_IO when unreadable. */
gf_status gf_stream_detect(const char *path, gf_compression *out, gf_error *err);

#endif
