/* host.h: the CPU side of telemetry and probe: package energy from RAPL (powercap
 * energy_uj), the current CPU frequency and the load average, all read below a root. */
#ifndef GV_SYS_HOST_H
#define GV_SYS_HOST_H

#define SYS_RAPL_MAX 8

/* The package zones of /sys/class/powercap (intel-rapl:N named package-N; AMD Zen CPUs
 * use the same driver and names). */
typedef struct {
    int n;                       /* zones found and readable */
    char zone[SYS_RAPL_MAX][64]; /* "/sys/class/powercap/intel-rapl:0" */
    double range_j[SYS_RAPL_MAX];/* max_energy_range_uj: where the counter wraps */
    char why[256];               /* when n is 0: why (missing, not readable) */
} sys_rapl;

void sys_rapl_open(const char *root, sys_rapl *r);
/* Reads each zone's counter in joules into e[0..r->n); returns 0, or -1 when one failed. */
int sys_rapl_read(const char *root, const sys_rapl *r, double *e);
/* Energy between two readings of all zones, taking each counter's wrap-around into account. */
double sys_rapl_delta_j(const sys_rapl *r, const double *e0, const double *e1);

/* Mean current frequency over the CPUs in MHz (cpufreq scaling_cur_freq, else the
 * "cpu MHz" lines of /proc/cpuinfo); NAN when neither can be read. */
double sys_cpu_mhz(const char *root);
/* One-minute load average from /proc/loadavg; NAN if unreadable. */
double sys_loadavg1(const char *root);

#endif
