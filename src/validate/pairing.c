/*
 * Launch pairing for validate: the rules are in pairing.h. Groups are found by sorting
 * (canonical name, row) pairs, so the work grows as L log L with the launches, whatever
 * the number of launches of one name (the old per-launch scan was quadratic: 200 k
 * launches of one name took minutes).
 */
#include "validate/pairing.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/error.h"
#include "validate/kname.h"

typedef struct nrow {
    const char *canon;
    size_t row;
} nrow;

static int cmp_nrow(const void *a, const void *b)
{
    const nrow *x = a, *y = b;
    int c = strcmp(x->canon, y->canon);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* One list's rows grouped by canonical name: group g is order[start[g] .. start[g+1]),
 * rows in file order. */
typedef struct grouped {
    nrow *order;
    size_t n;
    size_t *start; /* ngroups + 1 entries */
    size_t ngroups;
} grouped;

static void grouped_free(grouped *g)
{
    free(g->order);
    free(g->start);
    memset(g, 0, sizeof *g);
}

/* Groups the rows i with canon[i] != NULL. 0 when out of memory. */
static int group_rows(char *const *canon, size_t nrows, grouped *g)
{
    memset(g, 0, sizeof *g);
    g->order = malloc((nrows + 1) * sizeof *g->order);
    g->start = malloc((nrows + 1) * sizeof *g->start);
    if (!g->order || !g->start)
        return 0;
    for (size_t i = 0; i < nrows; i++)
        if (canon[i])
            g->order[g->n++] = (nrow){canon[i], i};
    qsort(g->order, g->n, sizeof *g->order, cmp_nrow);
    for (size_t i = 0; i < g->n; i++)
        if (i == 0 || strcmp(g->order[i].canon, g->order[i - 1].canon) != 0)
            g->start[g->ngroups++] = i;
    g->start[g->ngroups] = g->n;
    return 1;
}

static size_t group_size(const grouped *g, size_t k) { return g->start[k + 1] - g->start[k]; }

/* The predicted groups by function name, for the look-up of a hardware name. */
typedef struct pbase {
    char base[256];
    size_t group;
} pbase;

static int cmp_pbase(const void *a, const void *b)
{
    const pbase *x = a, *y = b;
    int c = strcmp(x->base, y->base);
    return c ? c : (x->group > y->group) - (x->group < y->group);
}

static gf_status add_issue(gf_vpairing *p, size_t *cap, const char *fmt, ...)
    GF_PRINTF(3, 4);
static gf_status add_issue(gf_vpairing *p, size_t *cap, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->nissues + 1 > *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        char **is = realloc(p->issues, nc * sizeof *is);
        if (!is)
            return GF_ERR_NOMEM;
        p->issues = is;
        *cap = nc;
    }
    if (!(p->issues[p->nissues] = strdup(buf)))
        return GF_ERR_NOMEM;
    p->nissues++;
    return GF_OK;
}

/* A name for a message: printable, at most 120 bytes. */
static const char *shown(const char *name, char *buf)
{
    return gf_report_printable(name, buf, 121);
}

/* selected[k] per the options; canon[k] of unselected rows freed and set to NULL. */
static gf_status select_launches(const gf_report *pred, char **canon,
                                 const gf_validate_options *o, gf_vpairing *p, gf_error *err)
{
    regex_t re;
    int use_re = o->kernel_name && strncmp(o->kernel_name, "regex:", 6) == 0;
    if (use_re && regcomp(&re, o->kernel_name + 6, REG_EXTENDED | REG_NOSUB) != 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "--kernel-name '%s': not a POSIX extended regular expression",
                            o->kernel_name + 6);
    long matched = 0;
    for (size_t k = 0; k < pred->nrows; k++) {
        int in = 1;
        if (o->kernel_name) {
            char base[512];
            gf_kname_base(canon[k], base, sizeof base);
            in = use_re ? regexec(&re, base, 0, NULL, 0) == 0
                        : strcmp(base, o->kernel_name) == 0;
        }
        if (in) {
            in = matched >= o->launch_skip &&
                 (o->launch_count < 0 || matched - o->launch_skip < o->launch_count);
            matched++;
        }
        p->selected[k] = (unsigned char)in;
        p->nselected += (size_t)in;
        if (!in) {
            free(canon[k]);
            canon[k] = NULL;
        }
    }
    if (use_re)
        regfree(&re);
    if (pred->nrows && !p->nselected)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the selection (--kernel-name %s, --launch-skip %ld, "
                            "--launch-count %ld) holds none of the %zu predicted launches "
                            "(%ld match the name)",
                            o->kernel_name ? o->kernel_name : "(all)", o->launch_skip,
                            o->launch_count, pred->nrows, matched);
    return GF_OK;
}

/* The predicted group a hardware group of canonical name hc pairs with: the one of the
 * same name, else the only compatible one. -1: none; -2: ambiguous (*alt1, *alt2: two of
 * the candidates); -3: none compatible, but *alt1 is the one predicted group of the same
 * function name (its template arguments or parameters differ). */
static long find_target(const char *hc, const grouped *pg, const pbase *pb, size_t npb,
                        size_t *alt1, size_t *alt2)
{
    pbase key;
    gf_kname_base(hc, key.base, sizeof key.base);
    key.group = 0;
    /* first entry of this base: lower bound by binary search */
    size_t lo = 0, hi = npb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(pb[mid].base, key.base) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    long found = -1;
    size_t ncand = 0, nsame = 0, same = 0;
    for (size_t i = lo; i < npb && strcmp(pb[i].base, key.base) == 0; i++) {
        size_t g = pb[i].group;
        const char *c = pg->order[pg->start[g]].canon;
        if (strcmp(c, hc) == 0)
            return (long)g;
        if (gf_kname_compatible(hc, c)) {
            if (ncand == 0)
                *alt1 = g;
            else if (ncand == 1)
                *alt2 = g;
            ncand++;
            found = (long)g;
        } else if (gf_kname_same_function(hc, c)) {
            same = g;
            nsame++;
        }
    }
    if (ncand == 0 && nsame == 1) {
        *alt1 = same;
        return -3;
    }
    return ncand > 1 ? -2 : found;
}

/* Pairs file f's groups with the predicted groups. */
static gf_status pair_file(const gf_report *pred, const gf_hw_file *f, long *owner,
                           const grouped *pg, const pbase *pb, size_t npb, int loose,
                           gf_vpairing *p, size_t *icap)
{
    size_t nrows = f->rows.nrows;
    char **canon = calloc(nrows + 1, sizeof *canon);
    size_t *claimed = calloc(pg->ngroups + 1, sizeof *claimed); /* hw group + 1 */
    grouped hg = {0};
    gf_status st = canon && claimed ? GF_OK : GF_ERR_NOMEM;
    for (size_t i = 0; i < nrows && st == GF_OK; i++) {
        owner[i] = -1;
        if (!(canon[i] = gf_kname_canonical(f->rows.rows[i].name)))
            st = GF_ERR_NOMEM;
    }
    if (st == GF_OK && !group_rows(canon, nrows, &hg))
        st = GF_ERR_NOMEM;
    char b1[128], b2[128], b3[128];
    for (size_t h = 0; h < hg.ngroups && st == GF_OK; h++) {
        const nrow *first = &hg.order[hg.start[h]];
        const char *raw = f->rows.rows[first->row].name;
        long line = f->lines ? f->lines[first->row] : 0;
        size_t alt1 = 0, alt2 = 0, nh = group_size(&hg, h);
        long t = find_target(first->canon, pg, pb, npb, &alt1, &alt2);
        if (t == -2) {
            st = add_issue(p, icap,
                           "%s:%ld: kernel '%s' (%zu launch%s) is ambiguous: it could be "
                           "the predicted '%s' or '%s'",
                           f->path, line, shown(raw, b1), nh, nh == 1 ? "" : "es",
                           shown(pred->rows[pg->order[pg->start[alt1]].row].name, b2),
                           shown(pred->rows[pg->order[pg->start[alt2]].row].name, b3));
            continue;
        }
        if (t == -3) {
            /* e.g. the GTX 1080 matrixmul: the trace's mult_gpu<float>(...) was measured
             * as a build of the non-template mult_gpu(float*, ...) */
            st = add_issue(p, icap,
                           "%s:%ld: kernel '%s' differs from the predicted '%s' in its "
                           "template arguments or parameters%s",
                           f->path, line, shown(raw, b1),
                           shown(pred->rows[pg->order[pg->start[alt1]].row].name, b2),
                           loose ? ": paired by function name" : "");
            if (!loose || st != GF_OK)
                continue;
            t = (long)alt1;
        }
        if (t < 0)
            continue;
        if (claimed[t]) {
            const nrow *other = &hg.order[hg.start[claimed[t] - 1]];
            st = add_issue(p, icap,
                           "%s:%ld: kernels '%s' and '%s' (line %ld) both pair with the "
                           "predicted '%s'",
                           f->path, line, shown(raw, b1), shown(f->rows.rows[other->row].name, b2),
                           f->lines ? f->lines[other->row] : 0,
                           shown(pred->rows[pg->order[pg->start[t]].row].name, b3));
            continue;
        }
        claimed[t] = h + 1;
        size_t np = group_size(pg, (size_t)t);
        const nrow *prow = &pg->order[pg->start[t]];
        size_t npair = nh;
        if (nh % np != 0) {
            st = add_issue(p, icap,
                           "%s:%ld: kernel '%s': %zu launch%s measured, %zu predicted, "
                           "neither the same number nor whole repeated runs (an Nsight run "
                           "with --launch-skip/--launch-count/--kernel-name: give them to "
                           "validate too)",
                           f->path, line, shown(raw, b1), nh, nh == 1 ? "" : "es", np);
            npair = loose ? (nh < np ? nh : np) : 0;
        }
        for (size_t j = 0; j < npair; j++)
            owner[hg.order[hg.start[h] + j].row] = (long)prow[j % np].row;
    }
    grouped_free(&hg);
    for (size_t i = 0; canon && i < nrows; i++)
        free(canon[i]);
    free(canon);
    free(claimed);
    return st;
}

gf_status gf_pairing_run(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                         const gf_validate_options *opt, gf_vpairing *out, gf_error *err)
{
    memset(out, 0, sizeof *out);
    gf_validate_options defaults = {0, -1, NULL, 0};
    const gf_validate_options *o = opt ? opt : &defaults;
    size_t n = pred->nrows, icap = 0, npb = 0;
    char **canon = calloc(n + 1, sizeof *canon);
    out->selected = calloc(n + 1, 1);
    out->owner = calloc(nhw + 1, sizeof *out->owner);
    grouped pg = {0};
    pbase *pb = NULL;
    gf_status st = canon && out->selected && out->owner ? GF_OK : GF_ERR_NOMEM;
    for (size_t f = 0; f < nhw && st == GF_OK; f++)
        if (!(out->owner[f] = malloc((hw[f].rows.nrows + 1) * sizeof **out->owner)))
            st = GF_ERR_NOMEM;
    for (size_t k = 0; k < n && st == GF_OK; k++)
        if (!(canon[k] = gf_kname_canonical(pred->rows[k].name)))
            st = GF_ERR_NOMEM;
    if (st == GF_OK) {
        st = select_launches(pred, canon, o, out, err);
        if (st != GF_OK)
            goto done;
    }
    if (st == GF_OK && !group_rows(canon, n, &pg))
        st = GF_ERR_NOMEM;
    if (st == GF_OK && !(pb = malloc((pg.ngroups + 1) * sizeof *pb)))
        st = GF_ERR_NOMEM;
    for (size_t g = 0; st == GF_OK && g < pg.ngroups; g++) {
        gf_kname_base(pg.order[pg.start[g]].canon, pb[npb].base, sizeof pb[npb].base);
        pb[npb++].group = g;
    }
    if (st == GF_OK)
        qsort(pb, npb, sizeof *pb, cmp_pbase);
    for (size_t f = 0; f < nhw && st == GF_OK; f++)
        st = pair_file(pred, &hw[f], out->owner[f], &pg, pb, npb, o->loose, out, &icap);
    if (st == GF_ERR_NOMEM)
        gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
done:
    grouped_free(&pg);
    free(pb);
    for (size_t k = 0; canon && k < n; k++)
        free(canon[k]);
    free(canon);
    return st;
}

void gf_pairing_free(gf_vpairing *p, size_t nhw)
{
    for (size_t f = 0; p->owner && f < nhw; f++)
        free(p->owner[f]);
    free(p->owner);
    free(p->selected);
    for (size_t i = 0; i < p->nissues; i++)
        free(p->issues[i]);
    free(p->issues);
    memset(p, 0, sizeof *p);
}
