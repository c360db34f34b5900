/*
 * test_cli_outputs.c: what the command writes, and where: file and directory names are data,
 * never code (no shell, every string escaped before gnuplot sees it); no file is written through a
 * link, and a device or a FIFO is never replaced; a capsule never makes relaxsim read a file it
 * names; outputs are whole or absent as a set, also on a full disk and after Ctrl-C; a path that
 * cannot be written is said before the work. Each command runs by fork and exec with its
 * arguments as given (no shell between the test and the command either).
 */
#define _GNU_SOURCE /* mkdtemp */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TMP RS_TEST_TMPDIR "/out_"
#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static char out_buf[1 << 16], err_buf[1 << 16];

/* Start relaxsim with argv (NULL-terminated, without the program) in directory cwd (NULL: here),
 * its output into out_*.txt; returns the child's pid. */
static pid_t start(const char *cwd, const char *const *args)
{
    const char *argv[64] = {RS_CLI_PATH};
    int n = 1;
    for (; args[n - 1] && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int o = open(TMP "stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        const int e = open(TMP "stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || (cwd && chdir(cwd) != 0))
            _exit(126);
        execv(RS_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Wait for the child; its exit code (128 + signal if it was killed). */
static int finish(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        assert_int_equal(errno, EINTR);
    slurp(TMP "stdout.txt", out_buf, sizeof out_buf);
    slurp(TMP "stderr.txt", err_buf, sizeof err_buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_in(const char *cwd, const char *const *args)
{
    return finish(start(cwd, args));
}

#define RUN(...) run_in(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_IN(cwd, ...) run_in(cwd, (const char *const[]){__VA_ARGS__, NULL})

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void sh(const char *cmd) /* the test's own set-up (fixed paths, no data) */
{
    const int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* 1 if dir holds a staging directory or a temporary file of relaxsim (left behind). */
static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        found |= strncmp(e->d_name, ".relaxsim-stage-", 16) == 0 || strstr(e->d_name, ".tmp-");
    if (d)
        closedir(d);
    return found;
}

/* A fresh empty directory TMP<name>, returned in buf. */
static const char *fresh_dir(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, TMP "%s", name);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    sh(cmd);
    return buf;
}

/* ---- S1: no shell ------------------------------------------------------------------------- */

static void test_output_names_never_reach_a_shell(void **state)
{
    (void)state;
    char dir[400];
    fresh_dir("s1", dir, sizeof dir);
    /* a study and a continuation curve drawn into directories named like shell commands */
    const char *evil = "out/x';touch INJECTED;'";
    assert_int_equal(RUN_IN(dir, "study", "decomposed-velocities", "--train", "40", "--test", "20",
                            "--noises", "0,1e-6", "-q", "-o", evil),
                     0);
    char path[1400];
    snprintf(path, sizeof path, "%s/INJECTED", dir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/%s/decomposed_velocities.png", dir, evil);
    assert_true(is_regular(path));
    snprintf(path, sizeof path, "%s/cap", dir);
    assert_int_equal(RUN("compare", SCEN "point2d_friction_blog.ini", "--set", "run.steps=2",
                         "--set", "nlp.max_iter=20", "--capsule", "1", "-o", path, "-q"),
                     1);
    snprintf(path, sizeof path, "%s/cap/capsules/step_1.json", dir);
    const int rc = RUN_IN(dir, "replay", path, "--continuation", "-o", "c';touch X;'");
    assert_true(rc == 0 || rc == 1);
    snprintf(path, sizeof path, "%s/X", dir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/c';touch X;'", dir);
    assert_true(exists(path)); /* the directory of that name, made as named */
    assert_false(leftovers(path));
}

/* ---- S2: strings from a results directory are never gnuplot code ------------------------- */

/* Replace the first occurrence of what in file with with (the test's own edit). */
static void edit(const char *file, const char *what, const char *with)
{
    static char text[1 << 20], edited[1 << 20];
    slurp(file, text, sizeof text);
    char *at = strstr(text, what);
    assert_non_null(at);
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, with, at + strlen(what));
    write_file(file, edited);
}

/* Set the string (or the one-string array when as_array) key of the JSON file to value. */
static void json_set(const char *file, const char *key, const char *value, int as_array)
{
    static char text[1 << 20];
    slurp(file, text, sizeof text);
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    cJSON *v = cJSON_CreateString(value);
    if (as_array) {
        cJSON *a = cJSON_CreateArray();
        cJSON_AddItemToArray(a, v);
        v = a;
    }
    assert_true(cJSON_ReplaceItemInObject(o, key, v));
    char *printed = cJSON_Print(o);
    write_file(file, printed);
    free(printed);
    cJSON_Delete(o);
}

static void test_plot_escapes_what_it_reads(void **state)
{
    (void)state;
    char dir[400], path[1400], flag[1400];
    fresh_dir("s2", dir, sizeof dir);
    snprintf(flag, sizeof flag, "%s/INJ", dir);
    const char *payload_fmt = "x' . system('touch %s') . '";
    char payload[1600];
    snprintf(payload, sizeof payload, payload_fmt, flag);
    /* a batch summary.json's keys */
    snprintf(path, sizeof path, "%s/sweep.ini", dir);
    write_file(path, "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1, 2\n"
                     "[set]\nrun.steps = 5\n");
    char bdir[600];
    snprintf(bdir, sizeof bdir, "%s/batch", dir);
    assert_int_equal(RUN("batch", path, "-q", "-o", bdir), 1);
    snprintf(path, sizeof path, "%s/summary.json", bdir);
    json_set(path, "keys", payload, 1);
    assert_int_equal(RUN("plot", bdir), 0);
    assert_false(exists(flag));
    /* a comparison's variant, with a scene */
    char cdir[600];
    snprintf(cdir, sizeof cdir, "%s/cmp", dir);
    assert_int_equal(RUN("compare", SCEN "polygon_tiles.ini", "--set", "run.steps=20", "-o", cdir,
                         "-q"),
                     1);
    snprintf(path, sizeof path, "%s/summary.json", cdir);
    json_set(path, "variant", payload, 0);
    assert_int_equal(RUN("plot", cdir), 0);
    assert_false(exists(flag));
    snprintf(path, sizeof path, "%s/scene.png", cdir);
    assert_true(is_regular(path));
    /* the first header field of a gradient sweep */
    char gdir[600];
    snprintf(gdir, sizeof gdir, "%s/grad", dir);
    assert_int_equal(RUN("grad", SCEN "sliding_block_traditional.ini", "--wrt", "mu", "--of", "x",
                         "--sweep", "mu=0.4:0.5:2", "--set", "run.steps=20", "-o", gdir, "-q"),
                     0);
    snprintf(path, sizeof path, "%s/sweep.csv", gdir);
    edit(path, "model.mu,", payload);
    assert_int_equal(RUN("plot", gdir), 0);
    assert_false(exists(flag));
    /* and no string of theirs went into plot.gp unquoted */
    snprintf(path, sizeof path, "%s/plot.gp", gdir);
    static char text[1 << 16];
    slurp(path, text, sizeof text);
    assert_non_null(strstr(text, "'x'' . system(''touch "));
}

/* ---- S3: never through a link ------------------------------------------------------------- */

static void test_links_are_never_followed(void **state)
{
    (void)state;
    char dir[400], victim[1400], path[1400];
    fresh_dir("s3", dir, sizeof dir);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    write_file(victim, "precious\n");
    /* links planted where the outputs go */
    char cdir[600];
    snprintf(cdir, sizeof cdir, "%s/cmp", dir);
    mkdir(cdir, 0777);
    snprintf(path, sizeof path, "%s/trajectory_nlp.csv", cdir);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/plot.gp", cdir);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/capsules", cdir);
    assert_int_equal(symlink(dir, path), 0); /* capsules/ pointing elsewhere */
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "--capsule", "3", "-o", cdir, "-q"),
                     2);
    assert_non_null(strstr(err_buf, "capsules"));
    unlink(path);
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "--capsule", "3", "-o", cdir, "-q"),
                     0);
    assert_int_equal(RUN("plot", cdir), 0);
    slurp(victim, out_buf, sizeof out_buf);
    assert_string_equal(out_buf, "precious\n");
    snprintf(path, sizeof path, "%s/trajectory_nlp.csv", cdir);
    assert_true(is_regular(path)); /* the link itself replaced, its target untouched */
    snprintf(path, sizeof path, "%s/plot.gp", cdir);
    assert_true(is_regular(path));
    assert_false(leftovers(cdir));
    /* -o naming a link is refused, for run and dataset */
    snprintf(path, sizeof path, "%s/traj.csv", dir);
    assert_int_equal(symlink(victim, path), 0);
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", path, "-q"), 2);
    assert_non_null(strstr(err_buf, "symbolic link"));
    assert_int_equal(RUN("dataset", SCEN "falling_block.ini", "-o", path, "-q"), 2);
    slurp(victim, out_buf, sizeof out_buf);
    assert_string_equal(out_buf, "precious\n");
    assert_false(leftovers(dir));
}

/* ---- S4: a capsule is self-contained ------------------------------------------------------ */

static void test_capsule_never_opens_a_file(void **state)
{
    (void)state;
    char dir[400], path[1400], secret[1400];
    fresh_dir("s4", dir, sizeof dir);
    snprintf(secret, sizeof secret, "%s/secret.scene", dir);
    write_file(secret, "the first line of a file nobody asked for\n");
    char cdir[600];
    snprintf(cdir, sizeof cdir, "%s/cmp", dir);
    assert_int_equal(RUN("compare", SCEN "polygon_tiles.ini", "--set", "run.steps=20",
                         "--capsule", "5", "-o", cdir, "-q"),
                     1);
    snprintf(path, sizeof path, "%s/capsules/step_5.json", cdir);
    static char text[1 << 20];
    slurp(path, text, sizeof text);
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    cJSON *scen = cJSON_GetObjectItem(o, "scenario");
    cJSON_DeleteItemFromObject(scen, "scene_text");
    const char *old = cJSON_GetStringValue(cJSON_GetObjectItem(scen, "text"));
    char *scene_line = strstr(old, "scene =");
    assert_non_null(scene_line);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*sscene = %s%s", (int)(scene_line - old), old, secret,
             strchr(scene_line, '\n'));
    cJSON_ReplaceItemInObject(scen, "text", cJSON_CreateString(edited));
    char *printed = cJSON_Print(o);
    write_file(path, printed);
    free(printed);
    cJSON_Delete(o);
    assert_int_equal(RUN("replay", path), 2);
    assert_null(strstr(err_buf, "nobody asked"));
    assert_null(strstr(out_buf, "nobody asked"));
    assert_non_null(strstr(err_buf, "carries its scene as text"));
}

/* ---- S5: devices, FIFOs and a directory a batch holds ------------------------------------ */

static void test_devices_fifos_and_held_directories(void **state)
{
    (void)state;
    struct stat st;
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", "/dev/null", "-q"), 0);
    assert_true(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* a full disk is a failed write, exit 1 (not bad usage) */
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", "/dev/full", "-q"), 1);
    assert_non_null(strstr(err_buf, "/dev/full"));
    assert_true(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    /* the process's own stream (/dev/stdout, a link into /proc: it was refused as a link),
     * written where the shell sent it, here the file this test reads */
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", "/dev/stdout", "-q"), 0);
    assert_true(strncmp(out_buf, "step,t_s,", 9) == 0);
    assert_non_null(strstr(out_buf, "\n99,"));
    /* what the command says goes to stderr then: stdout is the file alone (check's totals
     * followed its JSON report) */
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", "/dev/stdout"), 0);
    assert_true(strncmp(out_buf, "step,t_s,", 9) == 0);
    assert_null(strstr(out_buf, "contract"));
    assert_non_null(strstr(err_buf, "contract: passed"));
    assert_int_equal(RUN("check", SCEN "falling_block.ini", "--json", "/dev/stdout"), 0);
    cJSON *report = cJSON_Parse(out_buf);
    assert_non_null(report);
    cJSON_Delete(report);
    assert_non_null(strstr(err_buf, "1 passed"));
    char dir[400], fifo[600];
    fresh_dir("s5", dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0666), 0);
    /* no reader: an error, not a hang */
    assert_int_equal(RUN("dataset", SCEN "falling_block.ini", "-o", fifo, "-q"), 2);
    assert_non_null(strstr(err_buf, "no process reads"));
    /* a reader (this test, the FIFO open before the command starts): the trajectory streamed
     * into the FIFO (100 rows fit its buffer), which stays a FIFO */
    const int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    assert_int_equal(RUN("run", SCEN "falling_block.ini", "-o", fifo, "-q"), 0);
    const ssize_t got = read(reader, out_buf, sizeof out_buf - 1);
    close(reader);
    assert_true(got > 0);
    out_buf[got] = '\0';
    assert_true(strncmp(out_buf, "step,t_s,", 9) == 0);
    assert_non_null(strstr(out_buf, "\n99,"));
    assert_true(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    /* a directory a running batch holds is refused by compare, as by a second batch */
    char held[600], lock[700];
    snprintf(held, sizeof held, "%s/held", dir);
    mkdir(held, 0777);
    snprintf(lock, sizeof lock, "%s/.lock", held);
    const int fd = open(lock, O_RDWR | O_CREAT, 0666);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "-o", held, "-q"), 2);
    assert_non_null(strstr(err_buf, "a running batch"));
    close(fd);
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "-o", held, "-q"), 0);
}

/* ---- O1 and O5: a full disk, and paths said before the work ------------------------------ */

/* A tmpfs of size bytes at dir (root only: skipped elsewhere). */
static int mount_small(const char *dir, const char *size)
{
    char opts[64];
    snprintf(opts, sizeof opts, "size=%s", size);
    mkdir(dir, 0777);
    return mount("tmpfs", dir, "tmpfs", 0, opts) == 0;
}

/* Fill the file system of dir up to the last few kilobytes. */
static void fill(const char *dir, long keep_bytes)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/filler", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    static char block[4096];
    while (fwrite(block, 1, sizeof block, f) == sizeof block && fflush(f) == 0)
        ;
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size > keep_bytes ? st.st_size - keep_bytes : 0), 0);
}

static void test_full_disk_keeps_every_set_whole(void **state)
{
    (void)state;
    char mnt[400], path[1400], before[1 << 14], after[1 << 14];
    snprintf(mnt, sizeof mnt, TMP "full");
    umount2(mnt, MNT_DETACH);
    if (!mount_small(mnt, "4m"))
        skip(); /* not root: the full-disk cases need a tmpfs of their own */
    /* compare: a set written, then a longer run on a disk that holds only part of it */
    char cdir[600];
    snprintf(cdir, sizeof cdir, "%s/cmp", mnt);
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "--capsule", "2", "-o", cdir, "-q"),
                     0);
    snprintf(path, sizeof path, "%s/summary.json", cdir);
    slurp(path, before, sizeof before);
    fill(mnt, 64 * 1024);
    /* (a full disk: exit 1, a failed write, as every command's below) */
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "--set", "run.steps=4000",
                         "--capsule", "5", "-o", cdir, "-q"),
                     1);
    assert_non_null(strstr(err_buf, "No space left on device"));
    assert_null(strstr(err_buf, ".relaxsim-stage")); /* the output is named, not a temporary */
    slurp(path, after, sizeof after);
    assert_string_equal(before, after);
    snprintf(path, sizeof path, "%s/capsules/step_2.json", cdir);
    assert_true(is_regular(path)); /* the old set's capsule, still listed in its summary */
    snprintf(path, sizeof path, "%s/capsules/step_5.json", cdir);
    assert_false(exists(path));
    assert_false(leftovers(cdir));
    /* grad: gradients.csv, tangents.csv and grad.json replaced together or not at all */
    char gdir[600];
    snprintf(gdir, sizeof gdir, "%s/grad", mnt);
    fill(mnt, 4096);
    assert_int_equal(RUN("grad", SCEN "falling_block.ini", "--wrt", "m", "--of", "x", "-o", gdir,
                         "-q"),
                     1);
    assert_false(exists(gdir) && is_regular(strcat(strcpy(path, gdir), "/gradients.csv")));
    assert_false(leftovers(gdir));
    /* check: its JUnit and JSON reports whole or absent */
    snprintf(path, sizeof path, "%s/check.xml", mnt);
    write_file(path, "old");
    fill(mnt, 512);
    char json[600];
    snprintf(json, sizeof json, "%s/check.json", mnt);
    assert_int_equal(RUN("check", SCEN "falling_block.ini", SCEN "sliding_block_forward.ini",
                         "--junit", path, "--json", json, "-q"),
                     1);
    slurp(path, after, sizeof after);
    assert_string_equal(after, "old");
    assert_false(exists(json));
    assert_false(leftovers(mnt));
    /* study: nothing reported as written that was not */
    char sdir[600];
    snprintf(sdir, sizeof sdir, "%s/study", mnt);
    fill(mnt, 4096);
    assert_int_equal(RUN("study", "noisy-sticking", "--samples", "2000", "-o", sdir), 1);
    assert_null(strstr(out_buf, "wrote"));
    assert_false(leftovers(sdir));
    snprintf(path, sizeof path, "%s/summary.json", sdir);
    assert_false(exists(path));
    umount2(mnt, MNT_DETACH);
}

/* The whole file at path into a new buffer, its size into *n. */
static char *slurp_all(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    *n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)*n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)*n, f), (size_t)*n);
    fclose(f);
    return buf;
}

/* contacts_nlp.csv and contacts_lemke.csv: every contact of every step of a scene of bodies, its
 * bodies, point, normal, gap and forces; the stack of five 1 kg boxes: the ground's two corner
 * contacts carry 5 m g between them, each at x = -+0.2 m; another model's comparison writes
 * none, and takes the old ones away with the old set. */
static void test_per_contact_files(void **state)
{
    (void)state;
    char dir[400], path[1400];
    fresh_dir("contacts", dir, sizeof dir);
    assert_int_equal(RUN("compare", SCEN "bodies_stack.ini", "--set", "run.steps=5", "-o", dir,
                         "-q"),
                     0);
    for (int b = 0; b < 2; b++) {
        snprintf(path, sizeof path, "%s/contacts_%s.csv", dir, b ? "lemke" : "nlp");
        long n;
        char *csv = slurp_all(path, &n);
        csv[n] = '\0';
        assert_true(strncmp(csv, "step,t_s,contact,a,b,x_m,z_m,nx,nz,gap_m,fn_N,ft_N\n", 51) == 0);
        int rows = 0;
        double ground = 0.0;
        for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
            int step, contact;
            char a[32], bb[32];
            double x, z, nx, nz, gap, fn, ft;
            assert_int_equal(sscanf(line, "%d,%*[^,],%d,%31[^,],%31[^,],%lf,%lf,%lf,%lf,%lf,%lf,%lf",
                                    &step, &contact, a, bb, &x, &z, &nx, &nz, &gap, &fn, &ft),
                             11);
            rows++;
            if (step == 4 && strcmp(bb, "static") == 0) {
                assert_close(fabs(x), 0.2, 1e-12, 0.0);
                assert_close(nz, 1.0, 1e-12, 0.0);
                ground += fn;
            }
        }
        assert_int_equal(rows, 5 * 10);
        assert_close(ground, 5 * 9.81, 1e-9 * 9.81, 0.0);
        free(csv);
    }
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "-o", dir, "-q"), 0);
    snprintf(path, sizeof path, "%s/contacts_nlp.csv", dir);
    assert_false(exists(path));
}

/* The outline times bodies.png's title gives in DIR/plot.gp ("outlines at t = a, b, c s"), into
 * t; returns how many. */
static int outline_times(const char *dir, double *t, int cap)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    long n;
    char *gp = slurp_all(path, &n);
    gp[n] = '\0';
    const char *at = strstr(gp, "outlines at t =");
    assert_non_null(at);
    at += strlen("outlines at t =");
    int k = 0;
    for (char *end; k < cap; at = end + 1) {
        t[k] = strtod(at, &end);
        if (end == at)
            break;
        k++;
        if (*end != ',')
            break;
    }
    free(gp);
    return k;
}

/* bodies.png's outlines: spread over the motion, which in the disc's valley ends at rest at
 * 0.459 s of its 1.5 s (before: evenly over the run, four of six outlines at the final pose), or
 * at the user's times (plot --at); a time outside the run, or a list that does not increase, is
 * refused. A scene of many bodies keeps its force panels' legend to one entry per kind of column
 * (it listed 48 columns over the pile's panels). */
static void test_plot_outlines_follow_the_motion(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    char dir[400], path[1400];
    fresh_dir("outlines", dir, sizeof dir);
    assert_int_equal(RUN("compare", SCEN "bodies_disc_valley.ini", "-o", dir, "-q"), 0);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char sum[1 << 16];
    slurp(path, sum, sizeof sum);
    /* the motion ends at the later of the two runs' rest times (the NLP's, then Lemke's) */
    double rest_s = 0.0;
    const char *rest = sum;
    for (int run = 0; run < 2; run++) {
        rest = strstr(rest, "\"rest_time_s\":");
        assert_non_null(rest);
        rest += strlen("\"rest_time_s\":");
        rest_s = fmax(rest_s, strtod(rest, NULL));
    }
    const double frame = 1.5 / 149;
    assert_true(rest_s > 0.3 && rest_s < 0.6); /* (measured 0.459 s) */
    assert_int_equal(RUN("plot", dir), 0);
    double t[16];
    int n = outline_times(dir, t, 16);
    assert_int_equal(n, 6);
    for (int j = 0; j < n - 1; j++) /* the motion, to rest */
        assert_true(t[j] <= rest_s + frame);
    assert_close(t[n - 2], rest_s, frame, 0.0);
    assert_close(t[n - 1], 1.5, 1e-9, 0.0); /* and the end, once */
    assert_int_equal(RUN("plot", dir, "--at", "0.1,0.2,0.3"), 0);
    n = outline_times(dir, t, 16);
    assert_int_equal(n, 3);
    for (int j = 0; j < 3; j++) /* the frame nearest each */
        assert_close(t[j], 0.1 * (j + 1), frame, 0.0);
    assert_int_equal(RUN("plot", dir, "--at", "0.2,0.1"), 2);
    assert_non_null(strstr(err_buf, "the times must increase"));
    assert_int_equal(RUN("plot", dir, "--at", "2"), 2);
    assert_non_null(strstr(err_buf, "outside the run"));
    /* many bodies: the pile's fall (no contact yet), its legend by kind of column */
    fresh_dir("outlines_pile", dir, sizeof dir);
    assert_int_equal(RUN("compare", SCEN "bodies_pile.ini", "--set", "run.steps=10", "-o", dir,
                         "-q"),
                     1); /* (its contract needs the whole run) */
    assert_int_equal(RUN("plot", dir), 0);
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    long len;
    char *gp = slurp_all(path, &len);
    gp[len] = '\0';
    assert_null(strstr(gp, "box0.fx_N NLP"));
    assert_non_null(strstr(gp, "fx_N of every body: NLP solid, Lemke dashed"));
    free(gp);
}


/* plot on a full disk: gnuplot's animated GIF stops where the disk does and gnuplot still exits
 * 0 (a 1.3 MB bodies.gif was replaced by a 147 KB stub, "wrote" said so, exit 0). Each picture
 * is read to its end marker before the set replaces the old one: exit 1, the reason, the old
 * pictures as they were, no staging left behind. */
static void test_plot_on_a_full_disk_replaces_no_picture(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    char mnt[400], dir[600], path[1400];
    snprintf(mnt, sizeof mnt, TMP "fullplot");
    umount2(mnt, MNT_DETACH);
    if (!mount_small(mnt, "8m"))
        skip(); /* not root: the full-disk cases need a tmpfs of their own */
    snprintf(dir, sizeof dir, "%s/tip", mnt);
    assert_int_equal(RUN("compare", SCEN "bodies_tip_above.ini", "-o", dir, "-q"), 0);
    assert_int_equal(RUN("plot", dir), 0);
    snprintf(path, sizeof path, "%s/bodies.gif", dir);
    long n_before, n_after;
    char *before = slurp_all(path, &n_before);
    assert_true(n_before > 500 * 1024); /* the animation's size, here 1.3 MB */
    fill(mnt, 700 * 1024); /* room for the PNGs (0.4 MB) but not the animation */
    assert_int_equal(RUN("plot", dir), 1);
    assert_non_null(strstr(err_buf, "bodies.gif: was not written whole"));
    assert_null(strstr(out_buf, "wrote"));
    char *after = slurp_all(path, &n_after);
    assert_int_equal(n_after, n_before);
    assert_memory_equal(after, before, (size_t)n_before);
    assert_false(leftovers(dir));
    free(before);
    free(after);
    umount2(mnt, MNT_DETACH);
}

static void test_unwritable_paths_said_before_the_work(void **state)
{
    (void)state;
    assert_int_equal(RUN("check", SCEN, "--junit", "/proc/relaxsim.xml", "-q"), 2);
    assert_non_null(strstr(err_buf, "--junit"));
    assert_null(strstr(out_buf, "passed")); /* no file was checked */
    /* the report that cannot be written is the one named (--json alone was called --junit) */
    assert_int_equal(RUN("check", SCEN, "--json", "/proc/relaxsim.json", "-q"), 2);
    assert_non_null(strstr(err_buf, "check: --json: /proc"));
    assert_int_equal(RUN("check", SCEN, "--junit", "/proc/relaxsim.xml", "--json", "/proc/x.json",
                         "-q"),
                     2);
    assert_non_null(strstr(err_buf, "check: --junit: /proc"));
    /* two reports into one file or one stream: refused (the second went to stderr, or replaced
     * the first) */
    assert_int_equal(RUN("check", SCEN, "--junit", "/dev/stdout", "--json", "/dev/fd/1", "-q"), 2);
    assert_non_null(strstr(err_buf, "--junit and --json name the same file"));
    assert_int_equal(RUN("check", SCEN, "--junit", "r.x", "--json", "r.x", "-q"), 2);
    char dir[400], path[1400];
    fresh_dir("o5", dir, sizeof dir);
    /* an output directory that is a file (batch took it, and named its .lock) */
    snprintf(path, sizeof path, "%s/a_file", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(RUN("batch", RS_SOURCE_DIR "/problems/sweeps/point2d_friction_mu_xd.ini",
                         "-o", path, "-q"),
                     2);
    assert_non_null(strstr(err_buf, "a_file: exists and is not a directory"));
    snprintf(path, sizeof path, "%s/cap", dir);
    assert_int_equal(RUN("compare", SCEN "point2d_friction_blog.ini", "--set", "run.steps=2",
                         "--set", "nlp.max_iter=20", "--capsule", "1", "-o", path, "-q"),
                     1);
    snprintf(path, sizeof path, "%s/cap/capsules/step_1.json", dir);
    assert_int_equal(RUN("replay", path, "--continuation", "-o", "/proc/relaxsim-curve"), 2);
    assert_null(strstr(out_buf, "relaxation-bias curve")); /* said before the curve was drawn */
}

/* ---- O2: Ctrl-C ----------------------------------------------------------------------------- */

/* Wait (generously) until dir holds a staged file of relaxsim; 1 if it does. */
static int wait_for_stage(const char *dir)
{
    for (int i = 0; i < 1200; i++) {
        if (leftovers(dir))
            return 1;
        usleep(50000);
    }
    return 0;
}

static void test_interrupt_keeps_previous_outputs(void **state)
{
    (void)state;
    char dir[400], path[1400], before[1 << 12], after[1 << 12];
    fresh_dir("o2", dir, sizeof dir);
    /* dataset: the previous file stays, no temporary is left */
    snprintf(path, sizeof path, "%s/data.csv", dir);
    write_file(path, "previous\n");
    pid_t pid = start(NULL, (const char *const[]){"dataset", SCEN "point2d_friction.ini", "--set",
                                                  "run.steps=2000000", "-o", path, "-q", NULL});
    assert_true(wait_for_stage(dir));
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 130);
    slurp(path, after, sizeof after);
    assert_string_equal(after, "previous\n");
    assert_false(leftovers(dir));
    /* study: the previous set stays */
    char sdir[600];
    snprintf(sdir, sizeof sdir, "%s/study", dir);
    assert_int_equal(RUN("study", "noisy-sticking", "--samples", "200", "-q", "-o", sdir), 0);
    snprintf(path, sizeof path, "%s/summary.json", sdir);
    slurp(path, before, sizeof before);
    pid = start(NULL, (const char *const[]){"study", "noisy-sticking", "--samples", "100000000",
                                            "-q", "-o", sdir, NULL});
    assert_true(wait_for_stage(sdir));
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 130);
    slurp(path, after, sizeof after);
    assert_string_equal(before, after);
    assert_false(leftovers(sdir));
    /* an interrupted fresh batch leaves its own partial results, never the old summary beside
     * them */
    char bdir[600], sweep[600];
    snprintf(bdir, sizeof bdir, "%s/batch", dir);
    snprintf(sweep, sizeof sweep, "%s/a.ini", dir);
    write_file(sweep, "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1, 2\n"
                      "[set]\nrun.steps = 5\n");
    assert_int_equal(RUN("batch", sweep, "-q", "-o", bdir), 1);
    snprintf(sweep, sizeof sweep, "%s/b.ini", dir);
    write_file(sweep, "[sweep]\nscenario = " SCEN "point2d_friction.ini\n[vary]\n"
                      "model.mu = 0.1 .. 0.3 / 40\n");
    pid = start(NULL, (const char *const[]){"batch", sweep, "-q", "-j", "1", "-o", bdir, NULL});
    snprintf(path, sizeof path, "%s/sweep.txt", bdir);
    for (int i = 0; i < 1200; i++) { /* the new sweep recorded: the batch has begun */
        slurp(path, after, sizeof after);
        if (strstr(after, "model.mu"))
            break;
        usleep(50000);
    }
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 130);
    snprintf(path, sizeof path, "%s/summary.json", bdir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/results.csv", bdir);
    assert_false(exists(path));
}

/* A new comparison into a plotted directory takes the old pictures and their data with the old
 * set: a bodies comparison plotted, then a falling block compared into the same directory (its
 * bodies_*.dat stayed, and the PNGs of the bodies beside the block's data). And a second
 * pattern's listing sees the directory too (the patterns' listings shared one read position). */
static void test_a_new_set_takes_the_old_plots(void **state)
{
    (void)state;
    char dir[400], path[600];
    fresh_dir("replot", dir, sizeof dir);
    /* (20 of its 10,000 steps meet its contract: every step of the box at rest carries m g) */
    assert_int_equal(
        RUN("compare", SCEN "bodies_box_rest.ini", "--set", "run.steps=20", "-o", dir, "-q"), 0);
    assert_int_equal(RUN("plot", dir), 0);
    static const char *const plotted[] = {"bodies_nlp.dat", "bodies_lemke_paths.dat",
                                          "positions.png", "plot.gp"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, plotted[i]);
        assert_true(exists(path));
    }
    assert_int_equal(RUN("compare", SCEN "falling_block.ini", "-o", dir, "-q"), 0);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, plotted[i]);
        assert_false(exists(path));
    }
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_true(exists(path));
}

/* cJSON objects a and b equal but for the figures that are times of this run (wall_time_s and
 * the us_per_* medians and means): 1 if so, else 0 with the first differing key printed. */
static int same_but_times(const cJSON *a, const cJSON *b, const char *key)
{
    if (key && (strcmp(key, "wall_time_s") == 0 || strncmp(key, "us_per_", 7) == 0))
        return 1;
    if (cJSON_IsObject(a) || cJSON_IsArray(a)) {
        if (a->type != b->type || cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return print_message("summary: %s differs in shape\n", key ? key : "(top)"), 0;
        for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next)
            if ((x->string && (!y->string || strcmp(x->string, y->string) != 0)) ||
                !same_but_times(x, y, x->string ? x->string : key))
                return 0;
        return 1;
    }
    if (!cJSON_Compare(a, b, 1))
        return print_message("summary: %s differs\n", key ? key : "(top)"), 0;
    return 1;
}

/* compare --summary-only writes summary.json and the capsules alone, and they say what a full
 * run's say (the same verdicts, checks, figures and capsules, the times of the run aside); into
 * a directory of a full run's set it removes that run's per-step files (no stale set). The
 * post's variant for 2 steps at 20 iterations: both steps fail, so there are capsules. */
static void test_summary_only_writes_the_summary_alone(void **state)
{
    (void)state;
    char full[400], only[400], path[1400];
    fresh_dir("summary_full", full, sizeof full);
    fresh_dir("summary_only", only, sizeof only);
    const char *sets[] = {"--set", "run.steps=2", "--set", "nlp.max_iter=20"};
    assert_int_equal(RUN("compare", SCEN "point2d_friction_blog.ini", sets[0], sets[1], sets[2],
                         sets[3], "-o", full, "-q"),
                     1);
    sh("cp -r " TMP "summary_full/. " TMP "summary_only/");
    assert_int_equal(RUN("compare", SCEN "point2d_friction_blog.ini", sets[0], sets[1], sets[2],
                         sets[3], "--summary-only", "-o", only, "-q"),
                     1);
    static const char *const per_step[] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                           "shadow.csv", "steps.jsonl"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", full, per_step[i]);
        assert_true(is_regular(path));
        snprintf(path, sizeof path, "%s/%s", only, per_step[i]);
        assert_false(exists(path));
    }
    snprintf(path, sizeof path, "%s/capsules/step_1.json", only);
    assert_true(is_regular(path));
    char *text[2];
    for (int k = 0; k < 2; k++) {
        long n;
        snprintf(path, sizeof path, "%s/summary.json", k ? only : full);
        text[k] = slurp_all(path, &n);
        text[k][n] = '\0';
    }
    cJSON *a = cJSON_Parse(text[0]), *b = cJSON_Parse(text[1]);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(a, "capsules")) == 2);
    assert_true(same_but_times(a, b, NULL));
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(text[0]);
    free(text[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_names_never_reach_a_shell),
        cmocka_unit_test(test_plot_escapes_what_it_reads),
        cmocka_unit_test(test_plot_outlines_follow_the_motion),
        cmocka_unit_test(test_per_contact_files),
        cmocka_unit_test(test_summary_only_writes_the_summary_alone),
        cmocka_unit_test(test_links_are_never_followed),
        cmocka_unit_test(test_capsule_never_opens_a_file),
        cmocka_unit_test(test_devices_fifos_and_held_directories),
        cmocka_unit_test(test_full_disk_keeps_every_set_whole),
        cmocka_unit_test(test_plot_on_a_full_disk_replaces_no_picture),
        cmocka_unit_test(test_unwritable_paths_said_before_the_work),
        cmocka_unit_test(test_interrupt_keeps_previous_outputs),
        cmocka_unit_test(test_a_new_set_takes_the_old_plots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
