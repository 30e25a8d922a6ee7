/*
 * GPU model files: models/<gpu>.ini read with inih, `include = other.ini` for what-ifs,
 * `--set section.key=value` overrides, units on values. The key table (model_keys.c) is
 * the only list of keys: parsing, --set, show-gpu, validation and the `gpus` listing all walk it
 * (in the spirit of Redis's config.c table).
 *
 * This file: reading a model's .ini files into a gf_gpu and recording where each key was
 * set (gf_gpu_parse, gf_gpu_from_parsed with its overrides), and a key's value as text
 * (gf_gpu_key_format). The key table itself: model_keys.c. What it hands on: a model is only returned
 * after the defaults (model_apply_defaults) and the one rule set (model_check,
 * model_check.c) have passed, with the key set last blamed for a broken rule. Where the
 * models are: model_dir.c; values the keys imply: model_derived.c.
 */
#include "gpu/gpu.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/model_internal.h"
#include "util/error.h"

/* ------------------------------------------------------------------ loading state */


typedef struct load_state {
    gf_gpu *gpu;
    origin where[MODEL_NKEYS];
    int set[MODEL_NKEYS];
    gf_error *err;
    int failed;
    int depth;
    unsigned seq;
    const char *models_dir; /* as given to gf_gpu_load: where a bare include falls back */
    /* current file for the line-counting reader */
    const char *file;
    long line;
    FILE *fp;
} load_state;

static const char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

static const char *type_desc(key_type t)
{
    switch (t) {
    case K_STR: return "text";
    case K_UINT: return "whole number";
    case K_SIZE:
    case K_SIZE32: return "size (e.g. 4096, 32KiB, 6MiB)";
    case K_FREQ: return "frequency (e.g. 1455MHz, 1.2GHz)";
    case K_BW: return "bandwidth (e.g. 900GB/s)";
    case K_XFER: return "transfer rate (e.g. 14Gbps, 1.75GT/s)";
    case K_DOUBLE: return "number";
    case K_ENUM: return "name";
    case K_BOOL: return "boolean (0/1, true/false)";
    case K_SIZELIST: return "comma-separated sizes";
    }
    return "value";
}

/* Stores value into the field of key k; on failure fills err naming file:line. */
/* The setters of set_value, one per kind of value: each parses v (trimmed) into the key's
 * field at base, or names the key, the value and what was expected. */
static gf_status set_text(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    if (!*v)
        return gf_error_set(err, GF_ERR_PARSE, file, line,
                            "key '%s': expected %s, got an empty value", k->name,
                            type_desc(k->type));
    if (strlen(v) >= k->size)
        return gf_error_set(err, GF_ERR_PARSE, file, line,
                            "key '%s': value '%s' longer than %zu characters", k->name, v,
                            k->size - 1);
    /* zero the whole field so equal models compare equal byte for byte (profiles memcmp
     * model fields) */
    memset(base, 0, k->size);
    memcpy(base, v, strlen(v));
    return GF_OK;
}

static gf_status set_enum(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    for (int i = 0; k->enum_names[i]; i++)
        if (strcasecmp(v, k->enum_names[i]) == 0) {
            memcpy(base, &i, sizeof i);
            return GF_OK;
        }
    char names[128] = "";
    for (int i = 0; k->enum_names[i]; i++) {
        strncat(names, i ? " | " : "", sizeof names - strlen(names) - 1);
        strncat(names, k->enum_names[i], sizeof names - strlen(names) - 1);
    }
    return gf_error_set(err, GF_ERR_PARSE, file, line,
                        "key '%s': unknown value '%s' (expected %s)", k->name, v, names);
}

static gf_status set_bool(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    int b;
    if (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0)
        b = 1;
    else if (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0)
        b = 0;
    else
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': expected %s, got '%s'",
                            k->name, type_desc(k->type), v);
    memcpy(base, &b, sizeof b);
    return GF_OK;
}

/* The carveout list: comma-separated sizes, strictly ascending (buf is modified). */
static gf_status set_carveouts(gf_gpu *g, const key_def *k, char *buf, const char *file,
                               long line, gf_error *err)
{
    uint64_t vals[GF_MAX_CARVEOUTS];
    unsigned n = 0;
    const char *why = NULL;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *t = trim(tok);
        if (n == GF_MAX_CARVEOUTS)
            return gf_error_set(err, GF_ERR_PARSE, file, line,
                                "key '%s': more than %d carveouts", k->name, GF_MAX_CARVEOUTS);
        if (gf_gpu_parse_size(t, &vals[n], &why) != 0)
            return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': carveout '%s': %s",
                                k->name, t, why);
        if (n && vals[n] <= vals[n - 1])
            return gf_error_set(err, GF_ERR_INVALID, file, line,
                                "key '%s': carveouts must be strictly ascending ('%s' after %llu)",
                                k->name, t, (unsigned long long)vals[n - 1]);
        n++;
    }
    if (n == 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': expected %s", k->name,
                            type_desc(k->type));
    memset(g->carveouts, 0, sizeof g->carveouts);
    memcpy(g->carveouts, vals, n * sizeof vals[0]);
    g->ncarveouts = n;
    return GF_OK;
}

static gf_status set_size(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    uint64_t s;
    const char *why = NULL;
    if (gf_gpu_parse_size(v, &s, &why) != 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': '%s': %s (expected %s)",
                            k->name, v, why, type_desc(k->type));
    double d = (double)s;
    if (d < k->min || d > k->max)
        return gf_error_set(err, GF_ERR_INVALID, file, line,
                            "key '%s': %s out of range (expected %.0f..%.0f bytes)", k->name, v,
                            k->min, k->max);
    if (k->type == K_SIZE) {
        memcpy(base, &s, sizeof s);
    } else {
        unsigned u = (unsigned)s;
        memcpy(base, &u, sizeof u);
    }
    return GF_OK;
}

/* Plain numbers, frequencies, bandwidths and transfer rates. */
static gf_status set_number(const key_def *k, char *base, const char *v, const char *file,
                            long line, gf_error *err)
{
    double d = 0;
    const char *why = NULL;
    int rc = k->type == K_UINT   ? gf_gpu_parse_whole(v, &d, &why)
             : k->type == K_FREQ ? gf_gpu_parse_freq(v, &d, &why)
             : k->type == K_BW   ? gf_gpu_parse_bandwidth(v, &d, &why)
             : k->type == K_XFER ? gf_gpu_parse_xfer(v, &d, &why)
                                 : gf_gpu_parse_plain(v, &d, &why);
    if (rc != 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': '%s': %s (expected %s)",
                            k->name, v, why, type_desc(k->type));
    if (d < k->min || d > k->max)
        return gf_error_set(err, GF_ERR_INVALID, file, line,
                            "key '%s': %s out of range (expected %g..%g)", k->name, v, k->min,
                            k->max);
    if (k->type == K_UINT) {
        unsigned u = (unsigned)d;
        memcpy(base, &u, sizeof u);
    } else {
        memcpy(base, &d, sizeof d);
    }
    return GF_OK;
}

static gf_status set_value(gf_gpu *g, const key_def *k, const char *value, const char *file,
                           long line, gf_error *err)
{
    char *base = (char *)g + k->offset;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    const char *v = trim(buf);
    switch (k->type) {
    case K_STR: return set_text(k, base, v, file, line, err);
    case K_ENUM: return set_enum(k, base, v, file, line, err);
    case K_BOOL: return set_bool(k, base, v, file, line, err);
    case K_SIZELIST: return set_carveouts(g, k, buf, file, line, err);
    case K_SIZE:
    case K_SIZE32: return set_size(k, base, v, file, line, err);
    case K_UINT:
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: return set_number(k, base, v, file, line, err);
    }
    return gf_error_set(err, GF_ERR_INVALID, file, line, "key '%s': internal type error", k->name);
}

static gf_status parse_file(load_state *st, const char *path);

/* Counts lines as inih reads them, so handler errors can name the line (Debian's inih
 * is built without INI_HANDLER_LINENO). Reads byte by byte: fgets cannot tell a NUL byte
 * from the end of the line. */
static char *line_reader(char *str, int num, void *stream)
{
    load_state *st = stream;
    if (st->failed)
        return NULL;
    int n = 0, c = EOF;
    while (n < num - 1 && (c = getc(st->fp)) != EOF) {
        if (c == 0) {
            gf_error_set(st->err, GF_ERR_PARSE, st->file, st->line + 1,
                         "NUL byte at line %ld, column %d (expected a text .ini file)",
                         st->line + 1, n + 1);
            st->failed = 1;
            return NULL;
        }
        str[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (ferror(st->fp)) {
        gf_error_set(st->err, GF_ERR_IO, st->file, st->line + 1, "read error: %s",
                     strerror(errno));
        st->failed = 1;
        return NULL;
    }
    if (n == 0)
        return NULL;
    str[n] = 0;
    if (c != '\n' && c != EOF) {
        int next = getc(st->fp);
        if (next != EOF) {
            /* inih would read the rest as another line; refuse instead */
            gf_error_set(st->err, GF_ERR_PARSE, st->file, st->line + 1,
                         "line longer than %d characters", num - 2);
            st->failed = 1;
            return NULL;
        }
    }
    st->line++;
    return str;
}

static int model_ini_handler(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    if (st->failed)
        return 0;
    long line = st->line;
    if (!section[0] && strcmp(name, "include") == 0) {
        /* relative to the including file */
        char path[1024];
        char v[512];
        snprintf(v, sizeof v, "%s", value);
        const char *inc = trim(v);
        if (inc[0] == '/') {
            snprintf(path, sizeof path, "%s", inc);
        } else {
            const char *slash = strrchr(st->file, '/');
            int dirlen = slash ? (int)(slash - st->file) : 1;
            snprintf(path, sizeof path, "%.*s/%s", dirlen, slash ? st->file : ".", inc);
            /* a bare name missing beside the including file is a shipped model: a user's
             * what-if in their own folder says `include = v100.ini` */
            if (!strchr(inc, '/') && access(path, F_OK) != 0) {
                char shipped[1024];
                snprintf(shipped, sizeof shipped, "%s/%s", gf_gpu_models_dir(st->models_dir), inc);
                if (access(shipped, F_OK) == 0)
                    snprintf(path, sizeof path, "%s", shipped);
            }
        }
        if (st->depth >= 8) {
            gf_error_set(st->err, GF_ERR_INVALID, st->file, line,
                         "include '%s': includes nested deeper than 8 (a cycle?)", inc);
            st->failed = 1;
            return 0;
        }
        /* save reader state: the nested parse uses its own file and counter */
        const char *sf = st->file;
        long sl = st->line;
        FILE *sfp = st->fp;
        st->depth++;
        gf_status s = parse_file(st, path);
        st->depth--;
        st->file = sf;
        st->line = sl;
        st->fp = sfp;
        if (s != GF_OK) {
            if (s == GF_ERR_IO)
                gf_error_set(st->err, GF_ERR_IO, sf, line, "include '%s': cannot open %s", inc, path);
            st->failed = 1;
            return 0;
        }
        return 1;
    }
    char full[256];
    snprintf(full, sizeof full, "%s.%s", section, name);
    size_t idx;
    const key_def *k = model_find_key(full, &idx);
    if (!section[0]) {
        gf_error_set(st->err, GF_ERR_PARSE, st->file, line,
                     "key '%s' outside a section (only 'include' may come before the first [section])",
                     name);
        st->failed = 1;
        return 0;
    }
    if (!k) {
        gf_error_set(st->err, GF_ERR_PARSE, st->file, line,
                     "unknown key '%s' (see 'gpuforecast show-gpu --help' for the keys)", full);
        st->failed = 1;
        return 0;
    }
    if (set_value(st->gpu, k, value, st->file, line, st->err) != GF_OK) {
        st->failed = 1;
        return 0;
    }
    snprintf(st->where[idx].file, sizeof st->where[idx].file, "%s", st->file);
    st->where[idx].line = line;
    st->where[idx].seq = ++st->seq;
    st->set[idx] = 1;
    return 1;
}

static gf_status parse_file(load_state *st, const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (st->depth == 0)
            return gf_error_set(st->err, GF_ERR_IO, path, 0, "cannot open GPU model: %s",
                                strerror(errno));
        return GF_ERR_IO;
    }
    /* fopen opens a directory and reading it gives nothing: say so rather than report
     * the first missing key. st->file is still the including file here. */
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(fp);
        st->failed = 1;
        if (st->depth == 0)
            return gf_error_set(st->err, GF_ERR_INVALID, path, 0,
                                "is a directory, not a GPU model file (expected a model "
                                "name or the path of an .ini file)");
        return gf_error_set(st->err, GF_ERR_INVALID, st->file, st->line,
                            "include '%s' is a directory, not a GPU model file", path);
    }
    st->fp = fp;
    st->file = path;
    st->line = 0;
    int rc = ini_parse_stream(line_reader, st, model_ini_handler, st);
    fclose(fp);
    if (st->failed)
        return st->err ? st->err->code : GF_ERR_PARSE;
    if (rc != 0) {
        st->failed = 1;
        return gf_error_set(st->err, GF_ERR_PARSE, path, rc > 0 ? rc : 0,
                            "malformed line (expected [section], key = value, or a ; or # comment)");
    }
    return GF_OK;
}

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 4 && strcmp(s + n - 4, ".ini") == 0);
}

gf_status gf_gpu_load(const char *name_or_path, const char *models_dir,
                      const char *const *overrides, unsigned noverrides, gf_gpu *out,
                      gf_error *err)
{
    return gf_gpu_load_from(name_or_path, models_dir, overrides, NULL, noverrides, out, err);
}

/* A model file parsed once (includes followed), before overrides, defaults and checks:
 * what gf_gpu_load_from does per call and a sweep does once for all its configurations. */
struct gf_gpu_parsed {
    load_state st; /* where each key was set, which keys are set; st.gpu is &gpu */
    gf_gpu gpu;
    char path[1024];
    char stem[256];
};

gf_status gf_gpu_parse(const char *name_or_path, const char *models_dir, gf_gpu_parsed **out,
                       gf_error *err)
{
    *out = NULL;
    if (!name_or_path || !*name_or_path)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    char path[1024];
    const char *stem = name_or_path;
    if (looks_like_path(name_or_path)) {
        snprintf(path, sizeof path, "%s", name_or_path);
        const char *slash = strrchr(name_or_path, '/');
        stem = slash ? slash + 1 : name_or_path;
    } else {
        for (const char *c = name_or_path; *c; c++)
            if (!(*c == '_' || *c == '-' || *c == '.' || (*c >= '0' && *c <= '9') ||
                  (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
                return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                    "GPU model name '%s': expected letters, digits, '-' or '_' "
                                    "(see 'gpuforecast gpus')",
                                    name_or_path);
        const char *dir = gf_gpu_models_dir(models_dir);
        snprintf(path, sizeof path, "%s/%s.ini", dir, name_or_path);
        if (access(path, R_OK) != 0)
            return gf_error_set(err, GF_ERR_IO, path, 0,
                                "unknown GPU model '%s' (no %s; 'gpuforecast gpus' lists the models)",
                                name_or_path, path);
    }
    gf_gpu_parsed *m = calloc(1, sizeof *m);
    if (!m)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory loading a GPU model");
    snprintf(m->path, sizeof m->path, "%s", path);
    snprintf(m->stem, sizeof m->stem, "%s", stem);
    load_state *st = &m->st;
    st->gpu = &m->gpu;
    st->err = err;
    st->models_dir = models_dir;
    gf_status s = parse_file(st, m->path);
    /* (reader state: not used past the parse) */
    st->gpu = NULL;
    st->err = NULL;
    st->models_dir = NULL;
    st->file = NULL;
    st->fp = NULL;
    if (s != GF_OK) {
        free(m);
        return s;
    }
    *out = m;
    return GF_OK;
}

void gf_gpu_parsed_free(gf_gpu_parsed *m)
{
    free(m);
}

gf_status gf_gpu_from_parsed(const gf_gpu_parsed *m, const char *const *overrides,
                             const char *const *options, unsigned noverrides, gf_gpu *out,
                             gf_error *err)
{
    if (!m || !out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    load_state *st = malloc(sizeof *st);
    gf_gpu *g = malloc(sizeof *g);
    if (!st || !g) {
        free(st);
        free(g);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory loading a GPU model");
    }
    *st = m->st;
    *g = m->gpu;
    st->gpu = g;
    st->err = err;
    const char *path = m->path, *stem = m->stem;
    gf_status s = GF_OK;
    for (unsigned i = 0; s == GF_OK && i < noverrides; i++) {
        const char *kv = overrides[i];
        char where[512];
        snprintf(where, sizeof where, "%s %s", options && options[i] ? options[i] : "--set",
                 kv ? kv : "(null)");
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            s = gf_error_set(err, GF_ERR_PARSE, where, 0, "expected section.key=value");
            break;
        }
        char name[128];
        size_t n = (size_t)(eq - kv);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, kv, n);
        name[n] = 0;
        size_t idx;
        const key_def *k = model_find_key(trim(name), &idx);
        if (!k) {
            s = gf_error_set(err, GF_ERR_PARSE, where, 0,
                             "unknown key '%s' (see 'gpuforecast show-gpu --help' for the keys)",
                             trim(name));
            break;
        }
        if ((s = set_value(g, k, eq + 1, where, 0, err)) != GF_OK)
            break;
        snprintf(st->where[idx].file, sizeof st->where[idx].file, "%s", where);
        st->where[idx].line = 0;
        st->where[idx].seq = ++st->seq;
        st->set[idx] = 1;
    }
    if (s == GF_OK) {
        for (size_t i = 0; i < MODEL_NKEYS; i++)
            if (!st->set[i] && !model_keys[i].optional) {
                s = gf_error_set(err, GF_ERR_INVALID, path, 0, "missing key '%s' (%s)",
                                 model_keys[i].name, model_keys[i].help);
                break;
            }
    }
    if (s == GF_OK) {
        model_apply_defaults(g);
        blame b = {st->where, st->set, path};
        s = model_check(g, &b, err);
    }
    if (s == GF_OK) {
        size_t n = strlen(stem);
        if (n > 4 && strcmp(stem + n - 4, ".ini") == 0)
            n -= 4;
        if (n >= sizeof g->name)
            n = sizeof g->name - 1;
        memcpy(g->name, stem, n);
        g->name[n] = 0;
        *out = *g;
    }
    free(st);
    free(g);
    return s;
}

gf_status gf_gpu_load_from(const char *name_or_path, const char *models_dir,
                           const char *const *overrides, const char *const *options,
                           unsigned noverrides, gf_gpu *out, gf_error *err)
{
    if (!out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    gf_gpu_parsed *m;
    gf_status s = gf_gpu_parse(name_or_path, models_dir, &m, err);
    if (s != GF_OK)
        return s;
    s = gf_gpu_from_parsed(m, overrides, options, noverrides, out, err);
    gf_gpu_parsed_free(m);
    return s;
}

const char *gf_gpu_key_format(const gf_gpu *g, size_t i, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = 0;
    if (i >= MODEL_NKEYS || !g)
        return buf;
    const key_def *k = &model_keys[i];
    const char *base = (const char *)g + k->offset;
    switch (k->type) {
    case K_STR:
        snprintf(buf, n, "%s", base);
        break;
    case K_UINT: {
        unsigned u;
        memcpy(&u, base, sizeof u);
        snprintf(buf, n, "%u", u);
        break;
    }
    case K_SIZE:
    case K_SIZE32: {
        uint64_t v;
        if (k->type == K_SIZE) {
            memcpy(&v, base, sizeof v);
        } else {
            unsigned u;
            memcpy(&u, base, sizeof u);
            v = u;
        }
        if (v >= 1048576 && v % 1048576 == 0)
            snprintf(buf, n, "%lluMiB", (unsigned long long)(v / 1048576));
        else if (v >= 1024 && v % 1024 == 0)
            snprintf(buf, n, "%lluKiB", (unsigned long long)(v / 1024));
        else
            snprintf(buf, n, "%lluB", (unsigned long long)v);
        break;
    }
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: {
        /* Doubles print in the unit their key is written in. */
        double d;
        memcpy(&d, base, sizeof d);
        double scale = k->type == K_FREQ ? 1e6 : k->type == K_DOUBLE ? 1.0 : 1e9;
        const char *unit = k->type == K_FREQ ? "MHz"
                           : k->type == K_BW ? "GB/s"
                           : k->type == K_XFER ? "GT/s" : "";
        snprintf(buf, n, "%g%s", d / scale, unit);
        break;
    }
    case K_ENUM: {
        int v;
        memcpy(&v, base, sizeof v);
        int cnt = 0;
        while (k->enum_names[cnt])
            cnt++;
        snprintf(buf, n, "%s", v >= 0 && v < cnt ? k->enum_names[v] : "?");
        break;
    }
    case K_BOOL: {
        int v;
        memcpy(&v, base, sizeof v);
        snprintf(buf, n, "%s", v ? "true" : "false");
        break;
    }
    case K_SIZELIST: {
        size_t used = 0;
        /* a model that skipped gf_gpu_validate must not send us past the array */
        unsigned nc = g->ncarveouts < GF_MAX_CARVEOUTS ? g->ncarveouts : GF_MAX_CARVEOUTS;
        for (unsigned c = 0; c < nc && used + 1 < n; c++) {
            uint64_t v = g->carveouts[c];
            int w;
            if (v % 1024 == 0)
                w = snprintf(buf + used, n - used, "%s%lluKiB", c ? "," : "",
                             (unsigned long long)(v / 1024));
            else
                w = snprintf(buf + used, n - used, "%s%lluB", c ? "," : "", (unsigned long long)v);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        break;
    }
    }
    return buf;
}

