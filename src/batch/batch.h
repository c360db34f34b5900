/*
 * batch.h (internal): the runs of a sweep, each one `compare` of one parameter combination with
 * its contract, executed in worker processes (IPOPT and MUMPS are not thread-safe, and a run
 * that crashes must not take the batch down).
 *
 * The parent hands run numbers to idle workers (dynamic scheduling) and appends every finished
 * run to DIR/results.jsonl as ONE write() of one complete line on an O_APPEND descriptor: a write
 * to a regular file is not interrupted by signals, so a batch killed at any moment (SIGKILL
 * included) leaves only whole lines; --resume also drops a torn last line should one exist
 * (a full disk, say). A worker that dies is replaced and its run recorded as "crashed".
 *
 * One batch at a time per directory: the batch holds an exclusive lock (flock) on DIR/.lock for
 * its whole life, and a second batch into the same directory is refused. DIR/sweep.txt records
 * what the sweep is (its combine mode, fixed keys, every varied key with all its values, and a
 * hash of the base scenario file); --resume refuses a directory written by a different sweep,
 * naming the first difference. --resume keeps every valid line of results.jsonl, drops and
 * reports the lines that are not (by line number), and with retry_crashed runs the crashed runs
 * again.
 */
#ifndef RS_BATCH_BATCH_H
#define RS_BATCH_BATCH_H

#include "io/sweep.h"

typedef struct rs_batch_options {
    int jobs;              /* worker processes, 1..256 */
    const char *out_dir;   /* created if missing */
    int resume;            /* skip runs already in results.jsonl */
    int retry_crashed;     /* with resume: run again the runs recorded as crashed */
    int shard_index;       /* this shard, 0..shard_count-1: runs i with i % shard_count == index */
    int shard_count;       /* >= 1 */
    int stack;             /* 1..RS_BATCH_MAX_STACK: runs handed to a worker together; their
                              compatible ones advance in lock-step with stacked NLP solves
                              (sim/stack.h). 1: every run alone */
    int keep;              /* 1: each run's trajectories and summary also go to
                              DIR/runs/<run>/ (trajectory_nlp.csv, trajectory_lemke.csv,
                              summary.json), for relaxsim plot's scene picture */
} rs_batch_options;

#define RS_BATCH_MAX_STACK 256

typedef struct rs_batch_counts {
    long total;            /* runs in this shard */
    long skipped;          /* already complete (--resume) */
    long done;             /* finished now or before */
    long passed;           /* contract passed */
    long contract_failed;
    long bad_input;        /* the parameter combination is invalid (e.g. dt = -1) */
    long crashed;          /* the worker died */
    long retried;          /* crashed runs found by --resume and run again (retry_crashed) */
    long bad_lines;        /* lines of results.jsonl that were not a result, dropped */
    long bad_line[8];      /* the first of them, by line number (1-based) */
    double wall_s;
} rs_batch_counts;

typedef void (*rs_batch_progress_fn)(void *ctx, const rs_batch_counts *counts);

rs_error rs_batch_run(const rs_sweep *sweep, const rs_batch_options *options,
                      rs_batch_progress_fn progress, void *progress_ctx, rs_batch_counts *counts,
                      rs_error_detail *detail);

/*
 * The results file of a batch, for a coordinator of workers (processes here, MPI ranks in the
 * optional MPI build): open (creating DIR, resuming), hand out the next run, append a line.
 */
typedef struct rs_batch_results {
    int fd;                 /* DIR/results.jsonl, O_APPEND */
    int lock_fd;            /* DIR/.lock, flock'ed for the batch's life */
    char path[1200];
    unsigned char *done;    /* per run: complete or handed out */
    long next;              /* cursor over this shard's runs */
    double t0;
} rs_batch_results;

rs_error rs_batch_results_open(const rs_sweep *sweep, const rs_batch_options *options,
                               rs_batch_results *res, rs_batch_counts *counts,
                               rs_error_detail *detail);
/* The next run of this shard not yet done or handed out (and mark it handed out); -1 if none. */
long rs_batch_results_next(const rs_sweep *sweep, const rs_batch_options *options,
                           rs_batch_results *res);
/* Append one result line (one write()) and count its outcome. */
rs_error rs_batch_results_append(rs_batch_results *res, const char *line, rs_batch_counts *counts,
                                 rs_error_detail *detail);
rs_error rs_batch_results_close(rs_batch_results *res, rs_error_detail *detail);

/* The result line of one run (JSON, no trailing newline), computed in the calling process.
 * Caller frees. Exposed for tests: a line depends only on (sweep, run), apart from time_s. */
char *rs_batch_run_line(const rs_sweep *sweep, long run);

/* The result lines of runs (stacked when compatible); keep_dir: write each run's trajectories
 * and summary to keep_dir/runs/<run>/ (NULL: none). */
void rs_batch_run_lines(const rs_sweep *sweep, const long *runs, int count, const char *keep_dir,
                        char **lines);

#endif
