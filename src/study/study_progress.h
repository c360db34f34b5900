/*
 * study_progress.h (internal): how a study tells its caller how far it has come. The library
 * never prints; the command shows the figures on a terminal (cli/cli_progress.h).
 */
#ifndef RS_STUDY_PROGRESS_H
#define RS_STUDY_PROGRESS_H

typedef struct rs_study_progress {
    void (*fn)(void *ctx, long done, long total); /* NULL: nobody is told */
    void *ctx;
} rs_study_progress;

static inline void rs_study_report(const rs_study_progress *p, long done, long total)
{
    if (p && p->fn)
        p->fn(p->ctx, done, total);
}

#endif
