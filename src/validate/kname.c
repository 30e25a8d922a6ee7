/*
 * Kernel names: demangling, the canonical form and the compatibility rule of kname.h.
 * Each step is one linear pass over the name that writes a new string; nothing here
 * allocates more than a few copies of the name.
 */
#include "validate/kname.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* ---- a growing string ---- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_putn(sbuf *b, const char *p, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
static void sb_putc(sbuf *b, char c) { sb_putn(b, &c, 1); }

/* The built string (never NULL unless out of memory: "" for an empty one). */
static char *sb_take(sbuf *b)
{
    if (!b->oom && !b->s)
        sb_putn(b, "", 0);
    if (b->oom) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

static int is_id(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int opens(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static int closes(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }

/* Index of the bracket closing the one at s[i], or n when unbalanced. */
static size_t close_of(const char *s, size_t n, size_t i)
{
    int depth = 0;
    for (size_t k = i; k < n; k++) {
        if (opens(s[k]))
            depth++;
        else if (closes(s[k]) && --depth == 0)
            return k;
    }
    return n;
}

/* ---- the canonical form, pass by pass ---- */

/* Anonymous namespaces and Nsight's lambdas in libiberty's spelling. */
static char *pass_spellings(const char *in)
{
    sbuf b = {0};
    size_t n = strlen(in);
    for (size_t i = 0; i < n;) {
        if (strncmp(in + i, "(anonymous namespace)", 21) == 0) {
            sb_puts(&b, "{anon}");
            i += 21;
        } else if (strncmp(in + i, "<unnamed>", 9) == 0) {
            sb_puts(&b, "{anon}");
            i += 9;
        } else if ((i == 0 || !is_id(in[i - 1])) && strncmp(in + i, "_GLOBAL__N_", 11) == 0) {
            /* the Itanium ABI's anonymous-namespace identifier, as a raw name holds it */
            sb_puts(&b, "{anon}");
            for (i += 11; i < n && is_id(in[i]); i++)
                ;
        } else if (strncmp(in + i, "[lambda(", 8) == 0) {
            /* Nsight: "[lambda(ARGS) (instance N)]" = libiberty "{lambda(ARGS)#N}" */
            size_t rp = close_of(in, n, i + 7), p = rp + 1;
            while (p < n && in[p] == ' ')
                p++;
            size_t d = p + 10, d0 = d;
            if (rp < n && strncmp(in + p, "(instance ", 10) == 0) {
                while (d < n && isdigit((unsigned char)in[d]))
                    d++;
            }
            if (d > d0 && strncmp(in + d, ")]", 2) == 0) {
                sb_putc(&b, '{');
                sb_putn(&b, in + i + 1, rp + 1 - (i + 1));
                sb_putc(&b, '#');
                sb_putn(&b, in + d0, d - d0);
                sb_putc(&b, '}');
                i = d + 2;
            } else {
                sb_putc(&b, in[i++]);
            }
        } else {
            sb_putc(&b, in[i++]);
        }
    }
    return sb_take(&b);
}

/* Spaces only between two identifier characters; a leading "void " dropped. */
static char *pass_spaces(const char *in)
{
    sbuf b = {0};
    if (strncmp(in, "void ", 5) == 0)
        in += 5;
    for (size_t i = 0; in[i];) {
        if (in[i] == ' ') {
            while (in[i] == ' ')
                i++;
            if (b.n && is_id(b.s[b.n - 1]) && is_id(in[i]))
                sb_putc(&b, ' ');
            continue;
        }
        sb_putc(&b, in[i++]);
    }
    return sb_take(&b);
}

/* Literals as numbers: "2ul" = "2", "true" = "1", "false" = "0". */
static char *pass_literals(const char *in)
{
    sbuf b = {0};
    for (size_t i = 0; in[i];) {
        if (!is_id(in[i])) {
            sb_putc(&b, in[i++]);
            continue;
        }
        size_t j = i;
        while (is_id(in[j]))
            j++;
        size_t len = j - i;
        if (len == 4 && strncmp(in + i, "true", 4) == 0) {
            sb_putc(&b, '1');
        } else if (len == 5 && strncmp(in + i, "false", 5) == 0) {
            sb_putc(&b, '0');
        } else if (isdigit((unsigned char)in[i])) {
            size_t d = i;
            while (d < j && isdigit((unsigned char)in[d]))
                d++;
            size_t s = d;
            while (s < j && strchr("uUlL", in[s]))
                s++;
            sb_putn(&b, in + i, s == j ? d - i : len);
        } else {
            sb_putn(&b, in + i, len);
        }
        i = j;
    }
    return sb_take(&b);
}

/* The function's template argument list [*tl, *tr] ('<' and '>') and parameter list
 * [*pl, *pr] ('(' and ')'); n when absent. The first top-level '<' or '(' after the name
 * opens them. */
static void find_lists(const char *s, size_t n, size_t *tl, size_t *tr, size_t *pl, size_t *pr)
{
    *tl = *tr = *pl = *pr = n;
    size_t i = 0;
    while (i < n && s[i] != '<' && s[i] != '(') {
        if (s[i] == '{' || s[i] == '[') /* {anon}, {lambda(...)#1} */
            i = close_of(s, n, i);
        if (i < n)
            i++;
    }
    if (i < n && s[i] == '<') {
        *tl = i;
        *tr = close_of(s, n, i);
        i = *tr < n ? *tr + 1 : n;
    }
    if (i < n && s[i] == '(') {
        *pl = i;
        *pr = close_of(s, n, i);
    }
}

/* The top-level items of the list s[lo+1 .. hi): their starts and ends (at most max). */
static size_t split_items(const char *s, size_t lo, size_t hi, size_t *start, size_t *end,
                          size_t max)
{
    size_t k = 0, from = lo + 1;
    int depth = 0;
    if (hi <= lo + 1)
        return 0;
    for (size_t i = lo + 1; i <= hi && k < max; i++) {
        if (i == hi || (depth == 0 && s[i] == ',')) {
            start[k] = from;
            end[k++] = i;
            from = i + 1;
        } else if (opens(s[i])) {
            depth++;
        } else if (closes(s[i])) {
            depth--;
        }
    }
    return k;
}

/* One item with a leading "const " moved after its type: "const float*" = "float const*". */
static void put_item(sbuf *b, const char *p, size_t len)
{
    if (len > 6 && strncmp(p, "const ", 6) == 0) {
        const char *x = p + 6;
        size_t xl = len - 6, q = 0;
        int depth = 0;
        for (; q < xl; q++) {
            if (opens(x[q]))
                depth++;
            else if (closes(x[q]))
                depth--;
            else if (depth == 0 && (x[q] == '*' || x[q] == '&'))
                break;
        }
        sb_putn(b, x, q);
        sb_puts(b, " const");
        sb_putn(b, x + q, xl - q);
        return;
    }
    sb_putn(b, p, len);
}

#define GF_KNAME_MAX_ITEMS 64

/* A list's items, each through put_item, with its brackets. */
static void put_list(sbuf *b, const char *s, size_t lo, size_t hi)
{
    size_t st[GF_KNAME_MAX_ITEMS], en[GF_KNAME_MAX_ITEMS];
    size_t k = split_items(s, lo, hi, st, en, GF_KNAME_MAX_ITEMS);
    sb_putc(b, s[lo]);
    if (k == GF_KNAME_MAX_ITEMS && en[k - 1] != hi) { /* too many items: as it is */
        sb_putn(b, s + lo + 1, hi - lo - 1);
    } else {
        for (size_t i = 0; i < k; i++) {
            if (i)
                sb_putc(b, ',');
            put_item(b, s + st[i], en[i] - st[i]);
        }
    }
    sb_putc(b, s[hi]);
}

/* Nsight's T1, T2, ... in the parameters replaced by the template arguments. */
static char *pass_template_params(const char *in)
{
    size_t n = strlen(in), tl, tr, pl, pr;
    find_lists(in, n, &tl, &tr, &pl, &pr);
    sbuf b = {0};
    if (tr >= n || pr >= n) {
        sb_puts(&b, in);
        return sb_take(&b);
    }
    size_t st[GF_KNAME_MAX_ITEMS], en[GF_KNAME_MAX_ITEMS];
    size_t nargs = split_items(in, tl, tr, st, en, GF_KNAME_MAX_ITEMS);
    sb_putn(&b, in, pl + 1);
    for (size_t i = pl + 1; i < pr;) {
        if (!is_id(in[i]) || (i > 0 && is_id(in[i - 1]))) {
            sb_putc(&b, in[i++]);
            continue;
        }
        size_t j = i;
        while (is_id(in[j]))
            j++;
        size_t t = 0;
        int is_tparam = in[i] == 'T' && j > i + 1;
        for (size_t d = i + 1; d < j && is_tparam; d++) {
            is_tparam = isdigit((unsigned char)in[d]);
            t = t * 10 + (size_t)(in[d] - '0');
        }
        if (is_tparam && t >= 1 && t <= nargs)
            sb_putn(&b, in + st[t - 1], en[t - 1] - st[t - 1]);
        else
            sb_putn(&b, in + i, j - i);
        i = j;
    }
    sb_puts(&b, in + pr);
    return sb_take(&b);
}

/* Leading consts of the template arguments and parameters moved after their types. */
static char *pass_consts(const char *in)
{
    size_t n = strlen(in), tl, tr, pl, pr;
    find_lists(in, n, &tl, &tr, &pl, &pr);
    sbuf b = {0};
    size_t i = 0;
    if (tr < n) {
        sb_putn(&b, in, tl);
        put_list(&b, in, tl, tr);
        i = tr + 1;
    }
    if (pr < n) {
        sb_putn(&b, in + i, pl - i);
        put_list(&b, in, pl, pr);
        i = pr + 1;
    }
    sb_puts(&b, in + i);
    return sb_take(&b);
}

char *gf_kname_canonical(const char *name)
{
    char *cur = NULL;
    if (strncmp(name, "_Z", 2) == 0)
        cur = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    if (!cur) {
        cur = strdup(name);
        if (!cur)
            return NULL;
    }
    char *(*const passes[])(const char *) = {pass_spellings, pass_spaces, pass_literals,
                                             pass_template_params, pass_consts};
    for (size_t p = 0; p < sizeof passes / sizeof passes[0] && cur; p++) {
        char *next = passes[p](cur);
        free(cur);
        cur = next;
    }
    return cur;
}

/* ---- compatibility ---- */

typedef struct span {
    const char *p;
    size_t n;
} span;

/* The next token of s[*i .. n): an identifier (or number), a brace group ({anon},
 * {lambda(float)#1}), "::", or one other character; spaces skipped. n == 0 at the end. */
static span next_tok(const char *s, size_t n, size_t *i)
{
    while (*i < n && s[*i] == ' ')
        (*i)++;
    span t = {s + *i, 0};
    if (*i >= n)
        return t;
    size_t j = *i;
    if (is_id(s[j])) {
        while (j < n && is_id(s[j]))
            j++;
    } else if (s[j] == '{') {
        j = close_of(s, n, j);
        j = j < n ? j + 1 : n;
    } else if (s[j] == ':' && j + 1 < n && s[j + 1] == ':') {
        j += 2;
    } else {
        j++;
    }
    t.n = j - *i;
    *i = j;
    return t;
}

static int is_name_tok(span t) { return t.n && (is_id(t.p[0]) || t.p[0] == '{'); }

static int match_range(const char *a, size_t na, const char *b, size_t nb);

/* Two components: equal text, or two brace groups whose insides match. */
static int comp_eq(span x, span y)
{
    if (x.n && y.n && x.p[0] == '{' && y.p[0] == '{')
        return match_range(x.p + 1, x.n - 2, y.p + 1, y.n - 2);
    return x.n == y.n && memcmp(x.p, y.p, x.n) == 0;
}

#define GF_KNAME_MAX_QUAL 64

/* The qualified name starting with token first (already read): its components into q
 * (at most GF_KNAME_MAX_QUAL; -1 beyond), *i past it. */
static int read_qualified(const char *s, size_t n, size_t *i, span first, span *q)
{
    int k = 0;
    q[k++] = first;
    for (;;) {
        size_t j = *i;
        span sep = next_tok(s, n, &j);
        if (sep.n != 2 || sep.p[0] != ':')
            return k;
        span c = next_tok(s, n, &j);
        if (!is_name_tok(c))
            return k;
        if (k == GF_KNAME_MAX_QUAL)
            return -1;
        q[k++] = c;
        *i = j;
    }
}

/* q[0..nq) contained, in order, in r[0..nr). */
static int subsequence(const span *q, int nq, const span *r, int nr)
{
    int k = 0;
    for (int j = 0; j < nr && k < nq; j++)
        if (comp_eq(q[k], r[j]))
            k++;
    return k == nq;
}

static int qualified_eq(const span *qa, int na, const span *qb, int nb)
{
    if (na < 1 || nb < 1 || !comp_eq(qa[na - 1], qb[nb - 1]))
        return 0;
    return subsequence(qa, na - 1, qb, nb - 1) || subsequence(qb, nb - 1, qa, na - 1);
}

static int match_range(const char *a, size_t na, const char *b, size_t nb)
{
    size_t i = 0, j = 0;
    span qa[GF_KNAME_MAX_QUAL], qb[GF_KNAME_MAX_QUAL];
    for (;;) {
        span ta = next_tok(a, na, &i), tb = next_tok(b, nb, &j);
        if (!ta.n || !tb.n)
            return !ta.n && !tb.n;
        if (is_name_tok(ta) && is_name_tok(tb)) {
            int ka = read_qualified(a, na, &i, ta, qa), kb = read_qualified(b, nb, &j, tb, qb);
            if (ka < 0 || kb < 0 || !qualified_eq(qa, ka, qb, kb))
                return 0;
        } else if (ta.n != tb.n || memcmp(ta.p, tb.p, ta.n) != 0) {
            return 0;
        }
    }
}

/* No template arguments and no parameters: a bare (qualified) function name. */
static int is_bare(const char *s)
{
    size_t n = strlen(s), tl, tr, pl, pr;
    find_lists(s, n, &tl, &tr, &pl, &pr);
    return tl == n && pl == n;
}

/* The leading qualified names of a and b match, and (whole) a bare one has nothing
 * else. */
static int match_function_names(const char *a, const char *b, int whole)
{
    size_t na = strlen(a), nb = strlen(b), i = 0, j = 0;
    span qa[GF_KNAME_MAX_QUAL], qb[GF_KNAME_MAX_QUAL];
    span ta = next_tok(a, na, &i), tb = next_tok(b, nb, &j);
    if (!is_name_tok(ta) || !is_name_tok(tb))
        return 0;
    int ka = read_qualified(a, na, &i, ta, qa), kb = read_qualified(b, nb, &j, tb, qb);
    if (ka < 0 || kb < 0 || !qualified_eq(qa, ka, qb, kb))
        return 0;
    if (!whole)
        return 1;
    return (is_bare(a) ? i == na : 1) && (is_bare(b) ? j == nb : 1);
}

int gf_kname_same_function(const char *a, const char *b)
{
    return match_function_names(a, b, 0);
}

int gf_kname_compatible(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    if (is_bare(a) || is_bare(b))
        return match_function_names(a, b, 1);
    return match_range(a, strlen(a), b, strlen(b));
}

const char *gf_kname_base(const char *canon, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    size_t len = strlen(canon), i = 0;
    span q[GF_KNAME_MAX_QUAL];
    span t = next_tok(canon, len, &i);
    int k = is_name_tok(t) ? read_qualified(canon, len, &i, t, q) : 0;
    if (k > 0)
        snprintf(buf, n, "%.*s", (int)q[k - 1].n, q[k - 1].p);
    else
        snprintf(buf, n, "%s", canon);
    return buf;
}
