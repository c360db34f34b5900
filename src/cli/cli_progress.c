/* cli_progress.c: a progress line on a terminal (see cli_progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_progress.h"
#include "core/timer.h"

void rs_cli_meter_start(rs_cli_meter *m, const char *label)
{
    memset(m, 0, sizeof *m);
    const char *env = getenv("RELAXSIM_PROGRESS");
    m->on = isatty(STDERR_FILENO) && !(env && strcmp(env, "0") == 0);
    m->t0 = rs_wall_seconds();
    m->shown = -1.0;
    m->done0 = -1;
    snprintf(m->label, sizeof m->label, "%s", label);
}

static void format_seconds(char *buf, size_t n, double s)
{
    if (s < 99.5)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 5940.0)
        snprintf(buf, n, "%.0f min", s / 60.0);
    else
        snprintf(buf, n, "%.1f h", s / 3600.0);
}

void rs_cli_meter_show(rs_cli_meter *m, long done, long total, const char *unit,
                       const char *now)
{
    if (!m->on)
        return;
    if (done >= total) {
        rs_cli_meter_clear(m);
        return;
    }
    const double t = rs_wall_seconds();
    if (m->done0 < 0) { /* the first report: the rate counts from here */
        m->done0 = done;
        m->t0 = t;
    }
    if (m->shown >= 0.0 && t - m->shown < 0.1)
        return;
    m->shown = t;
    char left[32] = "?";
    const double rate = t > m->t0 ? (double)(done - m->done0) / (t - m->t0) : 0.0;
    if (rate > 0.0)
        format_seconds(left, sizeof left, (double)(total - done) / rate);
    fprintf(stderr, "\r  %s: %ld / %ld %s (%.0f%%), %s left%s%s\033[K", m->label, done, total,
            unit, 100.0 * (double)done / (double)total, left, now ? ": " : "", now ? now : "");
    fflush(stderr);
}

void rs_cli_meter_clear(rs_cli_meter *m)
{
    if (m->on && m->shown >= 0.0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    m->shown = -1.0;
}
