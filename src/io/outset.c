/*
 * outset.c: output sets and single output files written whole, in place as one set, never
 * through a link (see outset.h). Every file is opened relative to a directory descriptor with
 * O_NOFOLLOW, created with O_EXCL under a name nobody can predict, and renamed into place.
 */
#define _GNU_SOURCE /* getrandom's header, O_NOFOLLOW, O_DIRECTORY */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/detail.h"
#include "io/outset.h"
#include "io/output.h"
#include "io/picture_whole.h"

#define MAX_NAMES 128 /* files of one set: five results, 20 capsules and the requested ones,
                         a study's data files and pictures */
#define NAME_LEN 96
#define MAX_SUBDIRS 4
#define MAX_LIVE 8    /* sets and files open at once in one process */

struct rs_outset {
    char dir[1100];
    char index[NAME_LEN];
    char stage_name[40];   /* .relaxsim-stage-XXXXXXXXXXXX, inside dir */
    char stage[1200];      /* dir/stage_name */
    int dirfd, stagefd;
    char names[MAX_NAMES][NAME_LEN];
    unsigned char expected[MAX_NAMES]; /* written by another program */
    volatile sig_atomic_t nnames;
    char subdirs[MAX_SUBDIRS][NAME_LEN];
    volatile sig_atomic_t nsubdirs;
    int failed;            /* a write failed: the set cannot be committed */
    int write_failed;      /* ... and it was the data's write (RS_ERR_WRITE), not a name */
};

struct rs_outfile {
    char path[1100];
    char base[NAME_LEN * 4];
    char temp[NAME_LEN * 4 + 32];
    int dirfd;             /* -1 for a stream */
    int is_stdout;         /* the process's standard output (/dev/stdout, /dev/fd/1) */
    FILE *f;
};

/* The live sets and files, for rs_outset_remove_staged (a signal handler). */
static void *volatile live_sets[MAX_LIVE];
static void *volatile live_files[MAX_LIVE];

/* Put item in the table's slot that holds replace (NULL: a free slot). */
static void set_live(void *volatile *table, void *item, void *replace)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (table[i] == replace) {
            table[i] = item;
            return;
        }
}

/* A name nobody can guess: prefix and 12 hex digits of the kernel's randomness. */
static void random_name(char *buf, size_t len, const char *prefix)
{
    unsigned char r[6] = {0};
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) { /* never on Linux >= 3.17 */
        const unsigned long x = (unsigned long)getpid() ^ (unsigned long)(size_t)buf;
        memcpy(r, &x, sizeof r < sizeof x ? sizeof r : sizeof x);
    }
    snprintf(buf, len, "%s%02x%02x%02x%02x%02x%02x", prefix, r[0], r[1], r[2], r[3], r[4], r[5]);
}

/* A plain relative name: no "..", no absolute path, no empty part, at most one '/'. */
static int name_ok(const char *name)
{
    const char *slash = strchr(name, '/');
    if (!*name || strlen(name) >= NAME_LEN || name[0] == '/' || name[0] == '.' ||
        (slash && (strchr(slash + 1, '/') || slash[1] == '\0' || slash[1] == '.')))
        return 0;
    return 1;
}

/* The directory fd of sub (made if missing) below fd, never through a link; -1 on failure. */
static int open_subdir(int fd, const char *sub, mode_t mode)
{
    if (mkdirat(fd, sub, mode) != 0 && errno != EEXIST)
        return -1;
    return openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int rs_directory_held_by_batch(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/.lock", dir);
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* releases the shared lock if it was taken */
    return held;
}

rs_error rs_outset_begin(const char *dir, const char *index, rs_outset **out,
                         rs_error_detail *detail)
{
    *out = NULL;
    struct stat st;
    if (strlen(dir) >= 1000)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%.60s...: the path is too long", dir);
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: is a file, not a directory", dir);
    rs_error err = rs_make_directory(dir, detail);
    if (err != RS_OK)
        return err;
    if (rs_directory_held_by_batch(dir))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: a running batch is writing into this "
                             "directory; wait for it to end, or choose another -o", dir);
    rs_outset *s = calloc(1, sizeof *s);
    if (!s)
        return RS_ERR_NOMEM;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->index, sizeof s->index, "%s", index ? index : "");
    s->stagefd = -1;
    s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->dirfd < 0) {
        err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
        free(s);
        return err;
    }
    for (int tries = 0; tries < 16; tries++) {
        random_name(s->stage_name, sizeof s->stage_name, ".relaxsim-stage-");
        if (mkdirat(s->dirfd, s->stage_name, 0700) == 0 || errno != EEXIST)
            break;
    }
    s->stagefd = openat(s->dirfd, s->stage_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s->stagefd < 0) {
        err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot write there: %s", dir, strerror(errno));
        unlinkat(s->dirfd, s->stage_name, AT_REMOVEDIR);
        close(s->dirfd);
        free(s);
        return err;
    }
    snprintf(s->stage, sizeof s->stage, "%s/%s", dir, s->stage_name);
    set_live(live_sets, s, NULL);
    *out = s;
    return RS_OK;
}

/* Record name (and its subdirectory) in the set; -1 if the set is full. */
static int add_name(rs_outset *s, const char *name, int expected)
{
    for (int i = 0; i < s->nnames; i++)
        if (strcmp(s->names[i], name) == 0)
            return i;
    if (s->nnames == MAX_NAMES)
        return -1;
    const int i = s->nnames;
    snprintf(s->names[i], NAME_LEN, "%s", name);
    s->expected[i] = (unsigned char)expected;
    s->nnames = i + 1; /* after the name is complete: the signal handler reads up to nnames */
    return i;
}

/* Make the staged subdirectory of name, if it has one; 0 on failure. */
static int stage_subdir(rs_outset *s, const char *name)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        return 1;
    char sub[NAME_LEN];
    snprintf(sub, sizeof sub, "%.*s", (int)(slash - name), name);
    for (int i = 0; i < s->nsubdirs; i++)
        if (strcmp(s->subdirs[i], sub) == 0)
            return 1;
    if (s->nsubdirs == MAX_SUBDIRS)
        return 0;
    snprintf(s->subdirs[s->nsubdirs], NAME_LEN, "%s", sub);
    s->nsubdirs = s->nsubdirs + 1;
    return mkdirat(s->stagefd, sub, 0700) == 0 || errno == EEXIST;
}

/* 1 if errno e says the data found no room or no device to go to (a full disk, a quota, an I/O
 * error): a failed write (RS_ERR_WRITE), not a path refused. */
static int no_room(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG;
}


FILE *rs_outset_create(rs_outset *s, const char *name, rs_error_detail *detail)
{
    if (!name_ok(name) || !stage_subdir(s, name) || add_name(s, name, 0) < 0) {
        s->failed = 1;
        rs_detail_set(detail, RS_ERR_BAD_ARG, "%s/%s: cannot be staged (name or count)", s->dir,
                      name);
        return NULL;
    }
    const int fd = openat(s->stagefd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        const int e = errno;
        if (fd >= 0)
            close(fd);
        s->failed = 1;
        s->write_failed |= no_room(e);
        rs_detail_set(detail, no_room(e) ? RS_ERR_WRITE : RS_ERR_IO, "%s/%s: cannot write: %s",
                      s->dir, name, strerror(e));
    }
    return f;
}

rs_error rs_outset_close(rs_outset *s, FILE *f, const char *name, rs_error_detail *detail)
{
    char what[1300];
    snprintf(what, sizeof what, "%s/%s", s->dir, name);
    const rs_error err = rs_close_written(f, what, detail);
    if (err != RS_OK) {
        s->failed = 1;
        s->write_failed |= err == RS_ERR_WRITE;
    }
    return err;
}

rs_error rs_outset_expect(rs_outset *s, const char *name, rs_error_detail *detail)
{
    if (!name_ok(name) || !stage_subdir(s, name) || add_name(s, name, 1) < 0) {
        s->failed = 1;
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s/%s: cannot be staged", s->dir, name);
    }
    return RS_OK;
}

void rs_outset_drop(rs_outset *s, const char *name)
{
    for (int i = 0; i < s->nnames; i++)
        if (strcmp(s->names[i], name) == 0) {
            unlinkat(s->stagefd, name, 0);
            s->names[i][0] = '\0'; /* an empty name is skipped by the commit */
        }
}

int rs_outset_write_failed(const rs_outset *s)
{
    return s && s->write_failed;
}

const char *rs_outset_stage(const rs_outset *s)
{
    return s->stage;
}

const char *rs_outset_dir(const rs_outset *s)
{
    return s->dir;
}

/* Remove what is staged: the files, their subdirectories, the staging directory (signal-safe). */
static void remove_stage(rs_outset *s)
{
    for (int i = 0; i < s->nnames; i++)
        if (s->names[i][0])
            unlinkat(s->stagefd, s->names[i], 0);
    for (int i = 0; i < s->nsubdirs; i++)
        unlinkat(s->stagefd, s->subdirs[i], AT_REMOVEDIR);
    unlinkat(s->dirfd, s->stage_name, AT_REMOVEDIR);
}

static void free_set(rs_outset *s)
{
    set_live(live_sets, NULL, s);
    close(s->stagefd);
    close(s->dirfd);
    free(s);
}

void rs_outset_abort(rs_outset *s)
{
    if (!s)
        return;
    remove_stage(s);
    free_set(s);
}

static int in_set(const rs_outset *s, const char *name)
{
    for (int i = 0; i < s->nnames; i++)
        if (strcmp(s->names[i], name) == 0)
            return 1;
    return 0;
}

/* Remove the files of dir matching one owned pattern ("name", "sub/name", or a shell pattern of
 * names with '*', "prefix*", "bodies_*.dat", "sub/prefix*"; a hidden name matches only a
 * pattern that starts with '.') that the new set does not have. */
static void remove_stale(rs_outset *s, const char *pattern)
{
    const char *slash = strchr(pattern, '/');
    char sub[NAME_LEN] = "";
    if (slash)
        snprintf(sub, sizeof sub, "%.*s", (int)(slash - pattern), pattern);
    const char *leaf = slash ? slash + 1 : pattern;
    const int wildcard = strchr(leaf, '*') != NULL;
    /* a descriptor of its own (a dup would share the directory's read position: after one
     * pattern's listing, the next one's would start at the end and find nothing) */
    const int fd = openat(s->dirfd, sub[0] ? sub : ".",
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (!wildcard) {
        if (!in_set(s, pattern))
            unlinkat(fd, leaf, 0);
        close(fd);
        return;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    /* the names first, then the removals: removing while reading may skip entries */
    char (*victims)[NAME_LEN] = NULL;
    int nv = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char full[2 * NAME_LEN + 8];
        if (fnmatch(leaf, e->d_name, FNM_PERIOD) != 0 || strlen(e->d_name) >= NAME_LEN)
            continue;
        snprintf(full, sizeof full, "%s%s%.*s", sub, sub[0] ? "/" : "", NAME_LEN - 1, e->d_name);
        if (in_set(s, full))
            continue;
        if (nv == cap) {
            cap = cap ? 2 * cap : 32;
            void *more = realloc(victims, sizeof *victims * (size_t)cap);
            if (!more)
                break;
            victims = more;
        }
        snprintf(victims[nv++], NAME_LEN, "%.*s", NAME_LEN - 1, e->d_name);
    }
    for (int i = 0; i < nv; i++)
        unlinkat(dirfd(d), victims[i], 0);
    free(victims);
    closedir(d);
}

/* Rename the staged file name into dir, never through a link in dir's subdirectory. */
static rs_error put_in_place(rs_outset *s, const char *name, rs_error_detail *detail)
{
    const char *slash = strchr(name, '/');
    int to = s->dirfd;
    const char *leaf = name;
    if (slash) {
        char sub[NAME_LEN];
        snprintf(sub, sizeof sub, "%.*s", (int)(slash - name), name);
        if ((to = open_subdir(s->dirfd, sub, 0777)) < 0)
            return rs_detail_set(detail, RS_ERR_IO, "%s/%s: cannot be a directory here: %s", s->dir,
                                 sub, strerror(errno));
        leaf = slash + 1;
    }
    struct stat st;
    rs_error err = RS_OK;
    if (fstatat(to, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        err = rs_detail_set(detail, RS_ERR_IO, "%s/%s: is a directory", s->dir, name);
    else if (renameat(s->stagefd, name, to, leaf) != 0)
        err = rs_detail_set(detail, RS_ERR_IO, "%s/%s: cannot write: %s", s->dir, name,
                            strerror(errno));
    if (to != s->dirfd)
        close(to);
    return err;
}

rs_error rs_outset_commit(rs_outset *s, const char *const *owned, int nowned,
                          rs_error_detail *detail)
{
    rs_error err = RS_OK;
    if (s->failed)
        err = rs_detail_set(detail, s->write_failed ? RS_ERR_WRITE : RS_ERR_IO,
                            "%s: a file of the set could not be written; the previous outputs "
                            "are unchanged", s->dir);
    for (int i = 0; err == RS_OK && i < s->nnames; i++) { /* another program's files: whole? */
        struct stat st;
        if (!s->names[i][0] || !s->expected[i])
            continue;
        char why[80];
        if (fstatat(s->stagefd, s->names[i], &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_size == 0)
            err = rs_detail_set(detail, RS_ERR_WRITE, "%s/%s: was not written", s->dir,
                                s->names[i]);
        else if (rs_picture_whole(s->stagefd, s->names[i], why, sizeof why) == 0)
            /* cut short (a full disk) though its writer exited 0: not an output */
            err = rs_detail_set(detail, RS_ERR_WRITE,
                                "%s/%s: was not written whole (%s, %lld bytes; a full disk?); "
                                "the previous outputs are unchanged",
                                s->dir, s->names[i], why, (long long)st.st_size);
    }
    for (int i = 0; err == RS_OK && i < s->nsubdirs; i++) { /* every target directory a real one,
                                                             before anything is touched */
        const int fd = open_subdir(s->dirfd, s->subdirs[i], 0777);
        if (fd < 0)
            err = rs_detail_set(detail, RS_ERR_IO, "%s/%s: cannot be a directory here: %s%s",
                                s->dir, s->subdirs[i], strerror(errno),
                                errno == ELOOP || errno == ENOTDIR
                                    ? " (a link or a file is in the way; relaxsim does not "
                                      "write through links)"
                                    : "");
        else
            close(fd);
    }
    for (int i = 0; err == RS_OK && i < s->nnames; i++) {
        struct stat st;
        if (s->names[i][0] && !strchr(s->names[i], '/') &&
            fstatat(s->dirfd, s->names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            err = rs_detail_set(detail, RS_ERR_IO, "%s/%s: is a directory", s->dir, s->names[i]);
    }
    if (err != RS_OK) {
        rs_outset_abort(s);
        return err;
    }
    if (s->index[0])
        unlinkat(s->dirfd, s->index, 0); /* from here on the old set is incomplete */
    for (int i = 0; i < nowned; i++)
        remove_stale(s, owned[i]);
    int index_at = -1;
    for (int i = 0; err == RS_OK && i < s->nnames; i++) {
        if (!s->names[i][0])
            continue;
        if (strcmp(s->names[i], s->index) == 0)
            index_at = i;
        else
            err = put_in_place(s, s->names[i], detail);
    }
    if (err == RS_OK && index_at >= 0)
        err = put_in_place(s, s->names[index_at], detail);
    rs_outset_abort(s); /* what is left in the stage (nothing, unless a rename failed) */
    return err;
}

/* ---- single files -------------------------------------------------------------------------- */

/* The standard stream a path names (/dev/stdout, /dev/stderr, /dev/fd/1, /dev/fd/2: links to the
 * process's own descriptors, the one kind of link relaxsim writes through), or -1. Its
 * descriptor is duplicated, so that the output goes where the shell sent the stream (appended to
 * a file, into a pipe) rather than reopened at offset 0. */
static int standard_stream(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/fd/1") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0 || strcmp(path, "/dev/fd/2") == 0)
        return STDERR_FILENO;
    return -1;
}

rs_error rs_outfile_begin(const char *path, rs_outfile **out, rs_error_detail *detail)
{
    *out = NULL;
    if (!*path || strlen(path) >= 1000)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "'%.60s': not a usable file name", path);
    struct stat st;
    int stream = 0;
    const int standard = standard_stream(path); /* a link, followed by name only */
    if (standard >= 0) {
        stream = 1; /* the process's own stream, wherever the shell sent it (a file, a pipe) */
    } else if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: is a symbolic link; relaxsim does "
                                 "not write through links (give the file it points to)", path);
        if (S_ISDIR(st.st_mode))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: is a directory (give a file name)",
                                 path);
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            stream = 1;
        else if (!S_ISREG(st.st_mode))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: is neither a file, a character "
                                 "device nor a FIFO", path);
    }
    rs_outfile *o = calloc(1, sizeof *o);
    if (!o)
        return RS_ERR_NOMEM;
    snprintf(o->path, sizeof o->path, "%s", path);
    o->dirfd = -1;
    rs_error err = RS_OK;
    if (stream) { /* written into, never replaced; a FIFO nobody reads is an error, not a hang */
        const int fd = standard >= 0
                           ? fcntl(standard, F_DUPFD_CLOEXEC, 0) /* its flags are the shell's */
                           : open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        o->is_stdout = standard == STDOUT_FILENO;
        if (fd >= 0 && standard < 0)
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
            err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot write: %s", path,
                                errno == ENXIO ? "no process reads this FIFO" : strerror(errno));
            if (fd >= 0)
                close(fd);
        }
    } else {
        const char *slash = strrchr(path, '/');
        char dir[1100];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        if (!dir[0])
            snprintf(dir, sizeof dir, "/");
        snprintf(o->base, sizeof o->base, "%s", slash ? slash + 1 : path);
        err = rs_make_directory(dir, detail);
        if (err == RS_OK && (o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
        int fd = -1;
        for (int tries = 0; err == RS_OK && fd < 0 && tries < 16; tries++) {
            char prefix[NAME_LEN * 4 + 16];
            snprintf(prefix, sizeof prefix, ".%.200s.tmp-", o->base);
            random_name(o->temp, sizeof o->temp, prefix);
            fd = openat(o->dirfd, o->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0666);
            if (fd < 0 && errno != EEXIST)
                err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot write there: %s", dir,
                                    strerror(errno));
        }
        if (err == RS_OK && (fd < 0 || !(o->f = fdopen(fd, "w")))) {
            err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
            if (fd >= 0) {
                close(fd);
                unlinkat(o->dirfd, o->temp, 0);
            }
        }
    }
    if (err != RS_OK) {
        if (o->dirfd >= 0)
            close(o->dirfd);
        free(o);
        return err;
    }
    set_live(live_files, o, NULL);
    *out = o;
    return RS_OK;
}

int rs_outfile_is_stdout(const rs_outfile *o)
{
    return o->is_stdout;
}

int rs_path_is_stdout(const char *path)
{
    return path && standard_stream(path) == STDOUT_FILENO;
}

FILE *rs_outfile_stream(rs_outfile *o)
{
    return o->f;
}

static void free_file(rs_outfile *o)
{
    set_live(live_files, NULL, o);
    if (o->dirfd >= 0)
        close(o->dirfd);
    free(o);
}

rs_error rs_outfile_commit(rs_outfile *o, rs_error_detail *detail)
{
    rs_error err = rs_close_written(o->f, o->path, detail);
    o->f = NULL;
    if (o->dirfd >= 0) {
        if (err == RS_OK && renameat(o->dirfd, o->temp, o->dirfd, o->base) != 0)
            err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot write: %s", o->path,
                                strerror(errno));
        unlinkat(o->dirfd, o->temp, 0); /* gone after a rename; removed after a failure */
    }
    free_file(o);
    return err;
}

void rs_outfile_abort(rs_outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    if (o->dirfd >= 0)
        unlinkat(o->dirfd, o->temp, 0);
    free_file(o);
}

void rs_outset_remove_staged(void)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        rs_outset *s = live_sets[i];
        if (s)
            remove_stage(s);
        rs_outfile *o = live_files[i];
        if (o && o->dirfd >= 0)
            unlinkat(o->dirfd, o->temp, 0);
    }
}

void rs_outset_forget_inherited(void)
{
    for (int i = 0; i < MAX_LIVE; i++)
        live_sets[i] = live_files[i] = NULL;
}
