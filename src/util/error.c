#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

gf_status gf_error_set(gf_error *err, gf_status code, const char *file, long line,
                       const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->column = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

void gf_error_clear(gf_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

const char *gf_version(void)
{
    return GF_VERSION_STRING;
}

const char *gf_status_name(gf_status status)
{
    switch (status) {
    case GF_OK: return "ok";
    case GF_END: return "end";
    case GF_ERR_IO: return "i/o error";
    case GF_ERR_PARSE: return "parse error";
    case GF_ERR_NOMEM: return "out of memory";
    case GF_ERR_INVALID: return "invalid argument";
    case GF_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}
