#include "cli/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int gf_cli_error(const gf_error *err)
{
    fputs("gpuforecast: error: ", stderr);
    if (err->file[0]) {
        fputs(err->file, stderr);
        if (err->line > 0)
            fprintf(stderr, ":%ld", err->line);
        fputs(": ", stderr);
    }
    fprintf(stderr, "%s\n", err->message[0] ? err->message : gf_status_name(err->code));
    return 1;
}

int gf_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gpuforecast%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'gpuforecast %s%s--help' for more information.\n", cmd ? cmd : "",
            cmd ? " " : "");
    return 2;
}

void gf_cli_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("gpuforecast: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int gf_cli_parse_format(const char *s, gf_format *out)
{
    if (strcmp(s, "table") == 0)
        *out = GF_FORMAT_TABLE;
    else if (strcmp(s, "csv") == 0)
        *out = GF_FORMAT_CSV;
    else if (strcmp(s, "json") == 0)
        *out = GF_FORMAT_JSON;
    else
        return -1;
    return 0;
}

int gf_setlist_add(gf_setlist *l, const char *kv)
{
    if (!strchr(kv, '=') || kv[0] == '=')
        return -1;
    if (l->count == l->cap) {
        unsigned n = l->cap ? l->cap * 2 : 8;
        const char **p = realloc(l->items, n * sizeof *p);
        if (!p)
            return -1;
        l->items = p;
        l->cap = n;
    }
    l->items[l->count++] = kv;
    return 0;
}

void gf_setlist_free(gf_setlist *l)
{
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}
