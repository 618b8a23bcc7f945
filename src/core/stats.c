/* stats.c: summary statistics of repeated measurements. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gv_quantile(const double *x, int n, double q)
{
    if (n <= 0)
        return 0.0;
    double *s = gv_xmalloc(sizeof(double) * (size_t)n);
    memcpy(s, x, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    double pos = (q < 0 ? 0 : q > 1 ? 1 : q) * (n - 1);
    int lo = (int)pos, hi = lo + 1 < n ? lo + 1 : lo;
    double m = s[lo] + (pos - lo) * (s[hi] - s[lo]);
    free(s);
    return m;
}

double gv_median(const double *x, int n)
{
    return gv_quantile(x, n, 0.5);
}

void gv_stats_compute(const double *x, int n, gv_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0)
        return;
    double mn = x[0], mx = x[0], sum = 0;
    for (int i = 0; i < n; i++) {
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
        sum += x[i];
    }
    double mean = sum / n, ss = 0;
    for (int i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    out->min = mn;
    out->max = mx;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->cv = mean != 0 ? out->stddev / fabs(mean) : 0.0;
    out->median = gv_median(x, n);
}
