/* batch_mpi.h: the batch over MPI ranks (only in builds with -DRS_WITH_MPI=ON). */
#ifndef RS_CLI_BATCH_MPI_H
#define RS_CLI_BATCH_MPI_H

#include "batch/batch.h"

/* 1 when this process was started by mpirun with more than one rank. */
int rs_cli_mpi_launched(void);

/* Run the batch over the ranks; *is_root is 1 on rank 0, which alone has counts and output. */
rs_error rs_cli_batch_mpi(const rs_sweep *sweep, const rs_batch_options *options,
                          rs_batch_progress_fn progress, rs_batch_counts *counts, int *is_root,
                          rs_error_detail *detail);

#endif
