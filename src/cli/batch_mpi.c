/*
 * batch_mpi.c: `mpirun -n K relaxsim batch SWEEP` (built with -DRS_WITH_MPI=ON). Rank 0
 * coordinates: it hands run numbers to ranks 1..K-1 as they become idle (dynamic scheduling) and
 * appends their result lines to DIR/results.jsonl through the same code as the worker-process
 * batch (resume, one write() per line). Ranks 1..K-1 compute runs (rs_batch_run_line), so the
 * results are those of `-j 1`.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch_mpi.h"
#include "core/detail.h"

enum { TAG_TASK = 1, TAG_RESULT = 2 };

int rs_cli_mpi_launched(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!size)
        size = getenv("PMI_SIZE");
    return size && atoi(size) > 1;
}

static void send_task(int rank, long run)
{
    MPI_Send(&run, 1, MPI_LONG, rank, TAG_TASK, MPI_COMM_WORLD);
}

static void worker_loop(const rs_sweep *sw)
{
    for (;;) {
        long run;
        MPI_Recv(&run, 1, MPI_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (run < 0)
            return;
        char *line = rs_batch_run_line(sw, run);
        const char *text = line ? line : "";
        MPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(line);
    }
}

static rs_error coordinate(const rs_sweep *sw, const rs_batch_options *o, int size,
                           rs_batch_progress_fn progress, rs_batch_counts *counts,
                           rs_error_detail *detail)
{
    rs_batch_results res;
    rs_error err = rs_batch_results_open(sw, o, &res, counts, detail);
    int busy = 0;
    for (int rank = 1; rank < size; rank++) { /* one run each to start; -1 stops a rank */
        const long run = err == RS_OK ? rs_batch_results_next(sw, o, &res) : -1;
        send_task(rank, run);
        busy += run >= 0;
    }
    while (busy > 0) {
        MPI_Status st;
        int len;
        MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &len);
        char *line = malloc((size_t)len + 1);
        MPI_Recv(line, len, MPI_CHAR, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        line[len > 0 ? len - 1 : 0] = '\0';
        if (err == RS_OK)
            err = rs_batch_results_append(&res, line, counts, detail);
        free(line);
        if (progress && err == RS_OK)
            progress(NULL, counts);
        const long run = err == RS_OK ? rs_batch_results_next(sw, o, &res) : -1;
        send_task(st.MPI_SOURCE, run);
        busy -= run < 0;
    }
    if (res.done) {
        const rs_error close_err = rs_batch_results_close(&res, detail);
        if (err == RS_OK)
            err = close_err;
    }
    return err;
}

rs_error rs_cli_batch_mpi(const rs_sweep *sw, const rs_batch_options *o,
                          rs_batch_progress_fn progress, rs_batch_counts *counts, int *is_root,
                          rs_error_detail *detail)
{
    int rank = 0, size = 1;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *is_root = rank == 0;
    rs_error err = RS_OK;
    memset(counts, 0, sizeof *counts);
    if (size < 2)
        err = rs_detail_set(detail, RS_ERR_BAD_ARG, "batch under MPI needs at least 2 ranks "
                                                    "(rank 0 coordinates)");
    else if (rank == 0)
        err = coordinate(sw, o, size, progress, counts, detail);
    else
        worker_loop(sw);
    MPI_Finalize();
    return err;
}
