/*
 * outset.h (internal): a command's output files, written so that a reader never sees a torn file,
 * a mixed set, or a file written through a link.
 *
 * A directory set (rs_outset, for compare, grad, study, plot, check's reports into a directory):
 * every file is created in a private staging directory inside the output directory
 * (DIR/.relaxsim-stage-XXXXXX, mode 0700, O_CREAT|O_EXCL|O_NOFOLLOW), and only when every one was
 * written whole does rs_outset_commit put them in place: the set's index (summary.json, say) is
 * removed first, the files the command owns that the new set lacks are removed (an old run's
 * capsules), the new files are renamed into place, the index last. A full disk, a failed write
 * or an interrupt before the commit leaves the previous set as it was; renames do not need space,
 * so the commit itself does not fail half-way on a full disk.
 *
 * A single file (rs_outfile, for run -o FILE, dataset -o FILE, check --junit FILE): a regular
 * file or a new name is written under an unpredictable temporary name beside it and renamed into
 * place; a character device or a FIFO (/dev/null, a pipe) is written into as a stream; a
 * symbolic link, a directory, a socket or a block device is refused.
 *
 * On SIGINT or SIGTERM the command's handler calls rs_outset_remove_staged(), which removes every
 * staged file and directory with async-signal-safe calls only.
 */
#ifndef RS_IO_OUTSET_H
#define RS_IO_OUTSET_H

#include <stdio.h>

#include "relaxsim/error.h"

typedef struct rs_outset rs_outset;

/* Begin a set in dir (made, with its parents, if missing). index: the file a reader takes as the
 * mark of a complete set (committed last, removed first), or NULL. Refuses a dir that is not a
 * directory, and one a running `relaxsim batch` holds (its DIR/.lock). */
rs_error rs_outset_begin(const char *dir, const char *index, rs_outset **out,
                         rs_error_detail *detail);

/* Create the staged file name ("summary.json", "capsules/step_3.json": one level of
 * subdirectory) for writing. NULL (detail filled, naming DIR/name) on failure. */
FILE *rs_outset_create(rs_outset *s, const char *name, rs_error_detail *detail);

/* Flush and close a staged file; a failed write (a full disk) is reported naming the output
 * (DIR/name), and fails the commit. */
rs_error rs_outset_close(rs_outset *s, FILE *f, const char *name, rs_error_detail *detail);

/* A file that another program (gnuplot) writes into the staging directory: registered so that an
 * interrupt removes it and the commit checks that it exists, is a regular file and is not empty,
 * and, a .png or a .gif, that it is whole (picture_whole.h: a writer cut short by a full disk
 * may still exit 0). A file that fails is a failed write (RS_ERR_WRITE): nothing is replaced. */
rs_error rs_outset_expect(rs_outset *s, const char *name, rs_error_detail *detail);

/* Forget a staged file (removed now; not committed): a picture gnuplot could not draw. */
void rs_outset_drop(rs_outset *s, const char *name);

/* The staging directory (a program writing into the set runs there) and the output directory. */
/* 1 once a file of the set could not be written for want of room or device (a full disk:
 * RS_ERR_WRITE), not for its name. */
int rs_outset_write_failed(const rs_outset *s);

const char *rs_outset_stage(const rs_outset *s);
const char *rs_outset_dir(const rs_outset *s);

/* Put the set in place (see above). owned: the names or "prefix*" patterns of the files in dir
 * that this command writes; those the new set lacks are removed. The set is freed either way. */
rs_error rs_outset_commit(rs_outset *s, const char *const *owned, int nowned,
                          rs_error_detail *detail);

/* Give the set up: the staged files are removed, the previous outputs stay. NULL is a no-op. */
void rs_outset_abort(rs_outset *s);

typedef struct rs_outfile rs_outfile;

/* Begin writing path (see above); its directory is made if missing. */
rs_error rs_outfile_begin(const char *path, rs_outfile **out, rs_error_detail *detail);
/* The stream to write into. */
FILE *rs_outfile_stream(rs_outfile *o);
/* 1 if the file is the process's standard output (/dev/stdout, /dev/fd/1): a command then sends
 * what it says to stderr (rs_cli_outfile_begin); the library never redirects a stream. */
int rs_outfile_is_stdout(const rs_outfile *o);
/* 1 if path names the process's standard output (/dev/stdout, /dev/fd/1). */
int rs_path_is_stdout(const char *path);
/* Close and put in place (a failed write is reported naming path); freed either way. */
rs_error rs_outfile_commit(rs_outfile *o, rs_error_detail *detail);
/* Give up: the temporary is removed, the previous file stays. NULL is a no-op. */
void rs_outfile_abort(rs_outfile *o);

/* Remove every staged file, staging directory and temporary of the live sets and files: for a
 * signal handler (only unlinkat is called). */
void rs_outset_remove_staged(void);

/* In a forked child: forget the parent's live sets and files (they are the parent's to remove). */
void rs_outset_forget_inherited(void);

/* 1 if path names a directory a running batch holds (its DIR/.lock is locked). */
int rs_directory_held_by_batch(const char *dir);

#endif
