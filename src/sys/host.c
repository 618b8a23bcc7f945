/* host.c: RAPL package energy, CPU frequency and load average (see host.h). */
#include "sys/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysfs.h"

void sys_rapl_open(const char *root, sys_rapl *r)
{
    memset(r, 0, sizeof *r);
    char zones[32][SYS_NAME_MAX];
    int n = sys_list_dir(root, "/sys/class/powercap", "intel-rapl:", zones, 32);
    if (n < 0) {
        snprintf(r->why, sizeof r->why, "/sys/class/powercap: %s (no RAPL driver: virtual machine, or intel_rapl not loaded)",
                 sys_why(n));
        return;
    }
    int seen = 0, last_err = 0;
    for (int i = 0; i < n && r->n < SYS_RAPL_MAX; i++) {
        if (strchr(zones[i] + 11, ':')) /* sub-zones intel-rapl:0:0 (core, uncore) */
            continue;
        char rel[SYS_PATH_MAX], name[64];
        snprintf(rel, sizeof rel, "/sys/class/powercap/%.60s/name", zones[i]);
        if (sys_read_line(root, rel, name, sizeof name) != 0 || strncmp(name, "package-", 8) != 0)
            continue;
        seen++;
        uint64_t uj, range = 0;
        snprintf(rel, sizeof rel, "/sys/class/powercap/%.60s/energy_uj", zones[i]);
        int e = sys_read_u64(root, rel, &uj);
        if (e) {
            last_err = e;
            continue;
        }
        snprintf(rel, sizeof rel, "/sys/class/powercap/%.60s/max_energy_range_uj", zones[i]);
        sys_read_u64(root, rel, &range);
        snprintf(r->zone[r->n], sizeof r->zone[0], "/sys/class/powercap/%.40s", zones[i]);
        r->range_j[r->n] = (double)range * 1e-6;
        r->n++;
    }
    if (r->n == 0)
        snprintf(r->why, sizeof r->why, "%s",
                 !seen ? "no package zone in /sys/class/powercap"
                 : last_err == -13 ? "energy_uj is not readable (root only since Linux 5.10): run as root, or allow it with chmod o+r"
                                   : "energy_uj could not be read");
}

int sys_rapl_read(const char *root, const sys_rapl *r, double *e)
{
    for (int i = 0; i < r->n; i++) {
        char rel[SYS_PATH_MAX];
        uint64_t uj;
        snprintf(rel, sizeof rel, "%s/energy_uj", r->zone[i]);
        if (sys_read_u64(root, rel, &uj) != 0)
            return -1;
        e[i] = (double)uj * 1e-6;
    }
    return 0;
}

double sys_rapl_delta_j(const sys_rapl *r, const double *e0, const double *e1)
{
    double sum = 0;
    for (int i = 0; i < r->n; i++) {
        double d = e1[i] - e0[i];
        if (d < 0) /* the counter wrapped at max_energy_range_uj */
            d += r->range_j[i];
        sum += d;
    }
    return sum;
}

double sys_cpu_mhz(const char *root)
{
    char cpus[1024][SYS_NAME_MAX];
    int n = sys_list_dir(root, "/sys/devices/system/cpu", "cpu", cpus, 1024);
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        if (!strchr("0123456789", cpus[i][3]) || !cpus[i][3])
            continue;
        char rel[SYS_PATH_MAX];
        uint64_t khz;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/%.60s/cpufreq/scaling_cur_freq", cpus[i]);
        if (sys_read_u64(root, rel, &khz) == 0) {
            sum += (double)khz / 1000.0;
            cnt++;
        }
    }
    if (cnt)
        return sum / cnt;
    char *text = NULL;
    if (sys_read_text(root, "/proc/cpuinfo", &text) != 0)
        return NAN;
    for (const char *p = text; (p = strstr(p, "cpu MHz")) != NULL; p++) {
        const char *c = strchr(p, ':');
        if (!c)
            break;
        sum += strtod(c + 1, NULL);
        cnt++;
    }
    free(text);
    return cnt ? sum / cnt : NAN;
}

double sys_loadavg1(const char *root)
{
    char buf[128];
    if (sys_read_line(root, "/proc/loadavg", buf, sizeof buf) != 0)
        return NAN;
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? NAN : v;
}
