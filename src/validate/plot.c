/*
 * Correlation scatter plots in the manner of the correlation figures of
 * Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling": one point per kernel, hardware on x,
 * prediction on y, the y = x line, the error and Pearson r in the title; and per kernel
 * its warp stall stack, predicted beside measured (docs/stalls.md). Drawn with
 * PLplot's cairo devices (pngcairo, svgcairo); built only with GF_WITH_PLOTS.
 */
#include "validate/validate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"

/* Log axes once the values span more than two decades (and are all positive). */
#define GF_PLOT_LOG_RANGE 100.0
/* A linear axis spans at least this fraction of its largest value: PLplot labels ticks
 * with about four significant digits, so a narrower axis (one kernel, or prediction and
 * hardware within 0.01 %) printed the same label, "3.356", at every tick (issue #34). */
#define GF_PLOT_MIN_SPAN 0.1

void gf_validate_plot_range(const double *x, const double *y, int n, double *lo, double *hi,
                            int *logax)
{
    double l = INFINITY, h = -INFINITY;
    int positive = 1, nonneg = 1;
    for (int i = 0; i < n; i++) {
        l = fmin(l, fmin(x[i], y[i]));
        h = fmax(h, fmax(x[i], y[i]));
        if (x[i] <= 0 || y[i] <= 0)
            positive = 0;
        if (x[i] < 0 || y[i] < 0)
            nonneg = 0;
    }
    if (n == 0)
        l = h = 0;
    *logax = positive && h / l > GF_PLOT_LOG_RANGE;
    if (*logax) {
        *lo = l / 2;
        *hi = h * 2;
        return;
    }
    double mag = fmax(fabs(l), fabs(h)), span = GF_PLOT_MIN_SPAN * (mag > 0 ? mag : 1);
    if (h - l < span) {
        double mid = (l + h) / 2;
        l = mid - span / 2;
        h = mid + span / 2;
        if (nonneg && l < 0) { /* (a stall of 0 predicted and measured: 0 .. span, not
                                  a half of negative ticks no counter can take) */
            h -= l;
            l = 0;
        }
    }
    double pad = (h - l) * 0.08;
    l -= pad;
    h += pad;
    if (l < 0 && positive)
        l = 0;
    *lo = l;
    *hi = h;
}

#ifdef GF_WITH_PLOTS
#include <plplot.h>

static void safe_name(const char *name, char *out, size_t n)
{
    size_t j = 0;
    for (const char *p = name; *p && j + 1 < n; p++)
        out[j++] = (char)(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-')
                              ? *p
                              : '_');
    out[j] = '\0';
}

/* The plot's title, two lines above the box: the counter's name (in smaller letters when
 * long: Nsight's stall ratios run to 73 characters, which with the statistics ran off
 * both sides of the page) and the statistics. */
static void draw_title(const char *name, const char *stats)
{
    size_t len = strlen(name);
    plschr(0, len > 64 ? 0.8 * 64 / (double)len : 0.8);
    plmtex("t", 3.2, 0.5, 0.5, name);
    plschr(0, 0.8);
    plmtex("t", 1.6, 0.5, 0.5, stats);
}

static void draw(const char *device, const char *path, const double *x, const double *y,
                 int n, int logax, double lo, double hi, const char *name, const char *stats,
                 const char *unit)
{
    PLINT strm;
    plmkstrm(&strm);
    plsdev(device);
    plsfnam(path);
    plspage(0, 0, 720, 720, 0, 0);
    plscol0(0, 255, 255, 255); /* white background */
    plscol0(1, 0, 0, 0);       /* black frame and text */
    plscol0(2, 200, 30, 30);   /* points */
    plscol0(3, 90, 90, 90);    /* y = x */
    plinit();
    plcol0(1);
    plschr(0, 0.8);
    double l = logax ? log10(lo) : lo, h = logax ? log10(hi) : hi;
    plenv(l, h, l, h, 1, logax ? 30 : 0);
    char xl[128], yl[128];
    snprintf(xl, sizeof xl, "hardware (%s)", unit);
    snprintf(yl, sizeof yl, "gpuforecast (%s)", unit);
    pllab(xl, yl, "");
    draw_title(name, stats);
    PLFLT lx[2] = {l, h}, ly[2] = {l, h};
    plcol0(3);
    pllsty(2);
    plline(2, lx, ly);
    pllsty(1);
    PLFLT *px = malloc((size_t)n * sizeof *px), *py = malloc((size_t)n * sizeof *py);
    if (px && py) {
        for (int i = 0; i < n; i++) {
            px[i] = logax ? log10(x[i]) : x[i];
            py[i] = logax ? log10(y[i]) : y[i];
        }
        plcol0(2);
        plssym(0, 1.6);
        plpoin(n, px, py, 4);
    }
    free(px);
    free(py);
    plend1();
}

/* Colours of the stall reasons (GF_C_STALL_FIRST .. LAST - 1), cmap0 entries 4 on. */
static const int stall_rgb[][3] = {
    {31, 119, 180}, {174, 199, 232}, {255, 127, 14}, {148, 103, 189}, {214, 39, 40},
    {255, 152, 150}, {44, 160, 44}, {127, 127, 127}, {140, 86, 75}, {188, 189, 34}, {23, 190, 207}};
#define GF_PLOT_NSTALL GF_PLOT_STALL_REASONS
_Static_assert(sizeof stall_rgb / sizeof stall_rgb[0] == GF_PLOT_NSTALL,
               "a colour per stall reason");

/* Opens a PLplot stream on device/path, a page `width` x 720 px, white with black text
 * and the stall reasons' colours (cmap0 4 on), and starts its first page. */
static void stall_page_open(const char *device, const char *path, double width)
{
    PLINT strm;
    plmkstrm(&strm);
    plsdev(device);
    plsfnam(path);
    plspage(0, 0, (PLINT)width, 720, 0, 0);
    plscol0(0, 255, 255, 255);
    plscol0(1, 0, 0, 0);
    for (int i = 0; i < GF_PLOT_NSTALL; i++)
        plscol0(4 + i, stall_rgb[i][0], stall_rgb[i][1], stall_rgb[i][2]);
    plinit();
    plcol0(1);
    plschr(0, 0.8);
    pladv(0);
}

/* The stall reasons' legend, in validate's colours: a box from x0 to x1 and the reason's
 * name at xt, one row per reason from ytop down by dy, boxes 2 half high (world units of
 * the current window). */
static void stall_legend(double x0, double x1, double xt, double ytop, double dy, double half)
{
    char name[64];
    for (int i = 0; i < GF_PLOT_NSTALL; i++) {
        double y = ytop - dy * i;
        PLFLT fx[4] = {x0, x1, x1, x0}, fy[4] = {y - half, y - half, y + half, y + half};
        plcol0(4 + i);
        plfill(4, fx, fy);
        plcol0(1);
        plptex(xt, y, 1, 0, 0,
               gf_counter_stall_reason((gf_counter_id)(GF_C_STALL_FIRST + i), name, sizeof name));
    }
}

/* One kernel's warp stall stack (issue 35): the predicted and the measured shares of the
 * stall reasons the model predicts (selected left out), side by side, with a legend. */
static void draw_stalls(const char *device, const char *path, const double pred[],
                        const double hw[], const char *title)
{
    stall_page_open(device, path, 720);
    plvsta();
    plwind(0, 4.2, 0, 100);
    plbox("bc", 0, 0, "bcnstv", 0, 0);
    pllab("", "share of the stalled warp-cycles (%)", title);
    const double *side[2] = {pred, hw};
    const char *label[2] = {"gpuforecast", "Nsight"};
    for (int b = 0; b < 2; b++) {
        double sum = 0, y = 0, x0 = 0.3 + 1.2 * b, x1 = x0 + 0.9;
        for (int i = 0; i < GF_PLOT_NSTALL; i++)
            sum += side[b][i];
        for (int i = 0; i < GF_PLOT_NSTALL && sum > 0; i++) {
            double h = 100 * side[b][i] / sum;
            if (h <= 0)
                continue;
            PLFLT fx[4] = {x0, x1, x1, x0}, fy[4] = {y, y, y + h, y + h};
            plcol0(4 + i);
            plfill(4, fx, fy);
            y += h;
        }
        plcol0(1);
        plmtex("b", 1.5, (x0 + x1) / 2 / 4.2, 0.5, label[b]);
    }
    stall_legend(2.75, 2.95, 3.0, 95, 10, 2);
    plend1();
}

/* Along a sweep (issue 35): a stacked bar of predicted stall ratios per configuration, on a
 * linear axis from 0, the legend in a viewport of its own on the right. */
static void draw_sweep_stalls(const char *device, const char *path, int nbars,
                              const char *const *labels, const char *xtitle,
                              const double *ratios, double ymax, const char *title)
{
    /* wide enough for every bar (26 px each past the first 20) and a 280 px legend */
    double width = nbars > 20 ? 720 + 26 * (nbars - 20) : 720;
    stall_page_open(device, path, width);
    /* vertical bar labels when there are many or long ones */
    size_t longest = 0;
    for (int i = 0; i < nbars; i++)
        longest = strlen(labels[i]) > longest ? strlen(labels[i]) : longest;
    int vertical = nbars > 8 || longest > (size_t)(60 / nbars);
    /* the axis title below the labels: a character is about 0.75 of its height wide, and
     * one height is about 11.6 px on this 720 px page at this size */
    double disp = vertical ? 2.0 + 0.75 * (double)longest : 3.2;
    double bottom = fmin(0.5, (disp + 1.5) * 11.6 / 720);
    plvpor(72 / width, 1 - 280 / width, bottom, 0.9);
    plwind(0, nbars, 0, ymax);
    plbox("bc", 0, 0, "bcnstv", 0, 0);
    pllab("", "warp-cycles stalled per instruction issued", title);
    plmtex("b", disp, 0.5, 0.5, xtitle);
    for (int b = 0; b < nbars; b++) {
        double y = 0, x0 = b + 0.15, x1 = b + 0.85;
        for (int i = 0; i < GF_PLOT_NSTALL; i++) {
            double h = ratios[(size_t)b * GF_PLOT_NSTALL + i];
            if (!(h > 0))
                continue;
            PLFLT fx[4] = {x0, x1, x1, x0}, fy[4] = {y, y, y + h, y + h};
            plcol0(4 + i);
            plfill(4, fx, fy);
            y += h;
        }
        plcol0(1);
        if (vertical)
            plmtex("bv", 0.5, (b + 0.5) / nbars, 1.0, labels[b]);
        else
            plmtex("b", 1.5, (b + 0.5) / nbars, 0.5, labels[b]);
    }
    plvpor(1 - 260 / width, 1, bottom, 0.9);
    plwind(0, 1, 0, 1);
    stall_legend(0.06, 0.14, 0.18, 0.97, 0.08, 0.02);
    plend1();
}
#endif

#ifdef GF_WITH_PLOTS
/* mkdir -p: the plot directory and any missing parents. */
static int make_dirs(const char *dir)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The plot directory made (with its parents) and checked to be one. */
static gf_status plot_dir(const char *dir, gf_error *err)
{
    if (make_dirs(dir) != 0)
        return gf_error_set(err, GF_ERR_IO, dir, 0, "cannot create plot directory: %s",
                            strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gf_error_set(err, GF_ERR_IO, dir, 0, "not a directory");
    return GF_OK;
}
#endif

gf_status gf_validate_plot(const gf_validation *v, const char *dir, int *nplots,
                           gf_error *err)
{
    if (nplots)
        *nplots = 0;
#ifndef GF_WITH_PLOTS
    (void)v;
    return gf_error_set(err, GF_ERR_UNSUPPORTED, dir, 0,
                        "plots were not built: rebuild with PLplot installed "
                        "(libplplot-dev, plplot-driver-cairo) and -DGF_WITH_PLOTS=ON");
#else
    gf_status ds = plot_dir(dir, err);
    if (ds != GF_OK)
        return ds;
    double *x = malloc((v->nkernels + 1) * sizeof *x);
    double *y = malloc((v->nkernels + 1) * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return gf_error_set(err, GF_ERR_NOMEM, dir, 0, "out of memory");
    }
    gf_status st = GF_OK;
    for (int c = 0; c < GF_C_COUNT && st == GF_OK; c++) {
        const gf_vsummary *s = &v->summary[c];
        if (!s->n)
            continue;
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        int n = 0;
        double lo, hi;
        for (size_t k = 0; k < v->nkernels; k++) {
            const gf_vvalue *e = &v->kernels[k].v[c];
            if (isnan(e->pred) || isnan(e->hw_mean))
                continue;
            x[n] = e->hw_mean;
            y[n] = e->pred;
            n++;
        }
        if (!n)
            continue;
        int logax;
        gf_validate_plot_range(x, y, n, &lo, &hi, &logax);
        char stats[128], e1[32], e2[32];
        if (isnan(s->error))
            snprintf(e1, sizeof e1, "n/a");
        else
            snprintf(e1, sizeof e1, "%.2f%s", s->error,
                     d->is_rate ? (d->unit == GF_CUNIT_PCT ? " pp" : "") : "%");
        if (isnan(s->correlation))
            snprintf(e2, sizeof e2, "n/a");
        else
            snprintf(e2, sizeof e2, "%.3f", s->correlation);
        snprintf(stats, sizeof stats, "%s %s  r %s  (%d kernel%s)",
                 d->is_rate ? "MAE" : "MAPE", e1, e2, n, n == 1 ? "" : "s");
        char base[200], path[1024];
        safe_name(d->name, base, sizeof base);
        snprintf(path, sizeof path, "%s/%s.png", dir, base);
        draw("pngcairo", path, x, y, n, logax, lo, hi, d->name, stats,
             gf_counter_unit_name(d->unit));
        FILE *chk = fopen(path, "rb");
        if (!chk) {
            st = gf_error_set(err, GF_ERR_IO, path, 0, "PLplot did not write the plot");
            break;
        }
        fclose(chk);
        snprintf(path, sizeof path, "%s/%s.svg", dir, base);
        draw("svgcairo", path, x, y, n, logax, lo, hi, d->name, stats,
             gf_counter_unit_name(d->unit));
        if (nplots)
            (*nplots)++;
    }
    free(x);
    free(y);
    /* a stall stack per kernel with every stall reason predicted and measured */
    for (size_t k = 0; k < v->nkernels && st == GF_OK; k++) {
        double pred[GF_PLOT_NSTALL], hw[GF_PLOT_NSTALL], ps = 0, hs = 0;
        int ok = 1;
        for (int i = 0; i < GF_PLOT_NSTALL; i++) {
            const gf_vvalue *e = &v->kernels[k].v[GF_C_STALL_FIRST + i];
            pred[i] = e->pred;
            hw[i] = e->hw_mean;
            if (isnan(pred[i]) || isnan(hw[i]) || pred[i] < 0 || hw[i] < 0)
                ok = 0;
            else {
                ps += pred[i];
                hs += hw[i];
            }
        }
        if (!ok || !(ps > 0) || !(hs > 0))
            continue;
        char title[256], path[1024], kname[96];
        safe_name(v->kernels[k].name, kname, sizeof kname);
        snprintf(title, sizeof title, "warp stalls, kernel %ld: %.60s", v->kernels[k].id,
                 v->kernels[k].name);
        snprintf(path, sizeof path, "%s/stalls_kernel%ld_%s.png", dir, v->kernels[k].id, kname);
        draw_stalls("pngcairo", path, pred, hw, title);
        FILE *chk = fopen(path, "rb");
        if (!chk) {
            st = gf_error_set(err, GF_ERR_IO, path, 0, "PLplot did not write the plot");
            break;
        }
        fclose(chk);
        snprintf(path, sizeof path, "%s/stalls_kernel%ld_%s.svg", dir, v->kernels[k].id, kname);
        draw_stalls("svgcairo", path, pred, hw, title);
        if (nplots)
            (*nplots)++;
    }
    return st;
#endif
}

gf_status gf_plot_sweep_stalls(const char *dir, long kernel_id, const char *kernel_name,
                               int nbars, const char *const *labels, const char *xtitle,
                               const double *ratios, gf_error *err)
{
    if (nbars < 1 || nbars > GF_PLOT_SWEEP_MAX_BARS)
        return gf_error_set(err, GF_ERR_INVALID, dir, 0,
                            "a sweep plot draws 1 to %d configurations, not %d",
                            GF_PLOT_SWEEP_MAX_BARS, nbars);
#ifndef GF_WITH_PLOTS
    (void)kernel_id;
    (void)kernel_name;
    (void)labels;
    (void)xtitle;
    (void)ratios;
    return gf_error_set(err, GF_ERR_UNSUPPORTED, dir, 0,
                        "plots were not built: rebuild with PLplot installed "
                        "(libplplot-dev, plplot-driver-cairo) and -DGF_WITH_PLOTS=ON");
#else
    gf_status ds = plot_dir(dir, err);
    if (ds != GF_OK)
        return ds;
    /* the tallest stack, 5 % headroom; an all-zero sweep still gets an axis */
    double ymax = 0;
    for (int b = 0; b < nbars; b++) {
        double sum = 0;
        for (int i = 0; i < GF_PLOT_NSTALL; i++) {
            double h = ratios[(size_t)b * GF_PLOT_NSTALL + i];
            sum += h > 0 ? h : 0;
        }
        ymax = fmax(ymax, sum);
    }
    ymax = ymax > 0 ? ymax * 1.05 : 1;
    char title[256], path[1024], kname[96];
    safe_name(kernel_name, kname, sizeof kname);
    snprintf(title, sizeof title, "predicted warp stalls, kernel %ld: %.60s", kernel_id,
             kernel_name);
    static const char *const ext[2] = {"png", "svg"}, *const dev[2] = {"pngcairo", "svgcairo"};
    for (int e = 0; e < 2; e++) {
        if (snprintf(path, sizeof path, "%s/sweep_stalls_kernel%ld_%s.%s", dir, kernel_id, kname,
                     ext[e]) >= (int)sizeof path)
            return gf_error_set(err, GF_ERR_IO, dir, 0, "plot path too long");
        remove(path); /* so a stale file is not taken for PLplot's */
        draw_sweep_stalls(dev[e], path, nbars, labels, xtitle, ratios, ymax, title);
        struct stat sb;
        if (stat(path, &sb) != 0 || sb.st_size == 0)
            return gf_error_set(err, GF_ERR_IO, path, 0, "PLplot did not write the plot");
    }
    return GF_OK;
#endif
}
