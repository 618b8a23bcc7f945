/* stats.h: summary statistics of repeated measurements (best/median/max and spread). */
#ifndef GV_CORE_STATS_H
#define GV_CORE_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n;
    double min, median, max, mean, stddev;
    double cv; /* stddev / mean, 0 when mean is 0 */
} gv_stats;

/* Summarises x[0..n). n may be 0 (all fields 0). x is not modified. */
void gv_stats_compute(const double *x, int n, gv_stats *out);

/* Median of x[0..n) (copy sorted internally); 0 for n == 0. */
double gv_median(const double *x, int n);

/* The q-quantile (0 <= q <= 1) of x[0..n), linear between the two nearest order statistics
 * (gv_quantile(x, n, 0.5) is the median); 0 for n == 0. */
double gv_quantile(const double *x, int n, double q);

#ifdef __cplusplus
}
#endif

#endif
