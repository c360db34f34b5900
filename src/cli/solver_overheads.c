/*
 * solver_overheads.c: per-step overheads of Debian 12's IPOPT 3.11 and MUMPS 5.5, removed in the
 * relaxsim command only (the library, and programs that link it, keep the solvers as they are).
 *
 * Each replacement is a definition in the executable of a function the shared libraries call
 * through their PLT (JUMP_SLOT relocations; neither library is linked -Bsymbolic), so the
 * dynamic linker binds their calls to it. CMake compiles each one only for the library version
 * whose internals it replaces (RS_OVH_* below). None changes an answer: trajectories are
 * bitwise identical with and without them (test_cli_sim checks it).
 *
 *   RS_OVH_MUMPS_MEMSAVE  MUMPS 5.5 computes, after every factorisation and solve, how large a
 *                         saved copy of its instance would be (DMUMPS_COMPUTE_MEMORY_SAVE; only
 *                         the informational RINFO(7:8), RINFOG(17:18) read it): a no-op here.
 *   RS_OVH_IPOPT_CPUTIME  IPOPT 3.11 times every task with getrusage (Ipopt::CpuTime, SysTime):
 *                         CpuTime reads the vDSO monotonic clock instead, SysTime returns 0. IPOPT's
 *                         max_cpu_time (unused by relaxsim) would count wall time.
 *   malloc                glibc gives the heap back after every solve and takes it again: fixed
 *                         mmap and trim thresholds keep it.
 *   BLAS threads          a threaded BLAS (OpenBLAS, BLIS, MKL) selected by the alternatives
 *                         system is limited to one thread: the matrices are tiny.
 *
 * The replacements stand on internals of the library versions the command was built with: at
 * start-up the versions linked at run time are read (IPOPT's from its own banner string in the
 * loaded library, MUMPS's from its soname), and a replacement whose library is another version
 * is turned off, said once on stderr; the command works on without it.
 *
 * Environment: RELAXSIM_SOLVER_OVERHEADS=keep turns all of them off at start-up (the
 * replacements then forward to the libraries' own functions). RELAXSIM_IPOPT_VERSION and
 * RELAXSIM_MUMPS_VERSION stand for the run-time versions (for the test of a mismatch).
 */
#define _GNU_SOURCE /* RTLD_NEXT, RTLD_DEFAULT, dladdr, dl_iterate_phdr */
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int keep_overheads; /* RELAXSIM_SOLVER_OVERHEADS=keep */
static int keep_ipopt, keep_mumps; /* the library linked is not the version replaced */

/* The shared library's own definition of a replaced function. */
static void *next_definition(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#ifdef RS_OVH_MUMPS_MEMSAVE
/* MUMPS 5.5 src/dmumps_save_restore.F, module DMUMPS_SAVE_RESTORE:
 *   SUBROUTINE DMUMPS_COMPUTE_MEMORY_SAVE(id, TOTAL_FILE_SIZE, TOTAL_STRUC_SIZE)
 *   TYPE(DMUMPS_STRUC) :: id;  INTEGER(8) :: TOTAL_FILE_SIZE, TOTAL_STRUC_SIZE
 * (gfortran: all by reference, no hidden arguments). */
typedef void memsave_fn(void *, int64_t *, int64_t *);
void __dmumps_save_restore_MOD_dmumps_compute_memory_save(void *id, int64_t *file_size,
                                                          int64_t *struc_size);
void __dmumps_save_restore_MOD_dmumps_compute_memory_save(void *id, int64_t *file_size,
                                                          int64_t *struc_size)
{
    if (keep_overheads || keep_mumps) {
        memsave_fn *real;
        *(void **)&real = next_definition("__dmumps_save_restore_MOD_dmumps_compute_memory_save");
        if (real) {
            real(id, file_size, struc_size);
            return;
        }
    }
    *file_size = 0;
    *struc_size = 0;
}
#endif

#ifdef RS_OVH_IPOPT_CPUTIME
/* IPOPT 3.11 IpUtils.hpp: namespace Ipopt { Number CpuTime(); Number SysTime(); } */
typedef double clock_fn(void);
double _ZN5Ipopt7CpuTimeEv(void);
double _ZN5Ipopt7SysTimeEv(void);

static double forward(const char *name)
{
    clock_fn *real;
    *(void **)&real = next_definition(name);
    return real ? real() : 0.0;
}

double _ZN5Ipopt7CpuTimeEv(void)
{
    if (keep_overheads || keep_ipopt)
        return forward("_ZN5Ipopt7CpuTimeEv");
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double _ZN5Ipopt7SysTimeEv(void)
{
    return keep_overheads || keep_ipopt ? forward("_ZN5Ipopt7SysTimeEv") : 0.0;
}
#endif

/* ---- the versions linked at run time ----------------------------------------------------- */

/* The loaded object that defines symbol: its base address and its file name. */
static int object_of(const char *symbol, Dl_info *info)
{
    void *sym = dlsym(RTLD_DEFAULT, symbol);
    return sym && dladdr(sym, info) && info->dli_fbase && info->dli_fname;
}

typedef struct banner_search {
    const void *base;
    const char *needle;
    char found[32]; /* the version after the needle */
} banner_search;

/* dl_iterate_phdr: in the readable loaded segments of the object at base, the text after the
 * needle, up to the first character that is not part of a version. */
static int find_banner(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    banner_search *b = data;
    if ((const void *)info->dlpi_addr != b->base)
        return 0;
    const size_t nl = strlen(b->needle);
    for (int p = 0; p < info->dlpi_phnum; p++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[p];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || ph->p_filesz < nl)
            continue;
        const char *seg = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *hit = memmem(seg, ph->p_filesz, b->needle, nl);
        if (hit) {
            size_t k = 0;
            for (const char *c = hit + nl; k + 1 < sizeof b->found && c < seg + ph->p_filesz &&
                                           ((*c >= '0' && *c <= '9') || *c == '.');
                 c++)
                b->found[k++] = *c;
            b->found[k] = '\0';
            return 1;
        }
    }
    return 1;
}

/* The IPOPT version linked, from its banner ("This is Ipopt version 3.11.9, ..."); "" if none
 * is found. */
static void ipopt_version(char *buf, size_t len)
{
    Dl_info info;
    banner_search b = {NULL, "Ipopt version ", ""};
    if (object_of("CreateIpoptProblem", &info)) {
        b.base = info.dli_fbase;
        dl_iterate_phdr(find_banner, &b);
    }
    snprintf(buf, len, "%s", b.found);
}

/* The MUMPS version linked, from its Debian soname (libdmumps_seq-5.5.so: "5.5"); "" if none. */
static void mumps_version(char *buf, size_t len)
{
    Dl_info info;
    buf[0] = '\0';
    if (!object_of("dmumps_c", &info))
        return;
    const char *dash = strrchr(info.dli_fname, '-');
    if (!dash)
        return;
    size_t k = 0;
    for (const char *c = dash + 1; k + 1 < len && ((*c >= '0' && *c <= '9') || *c == '.'); c++)
        buf[k++] = *c;
    while (k > 0 && buf[k - 1] == '.') /* "5.5.so" read as "5.5." */
        k--;
    buf[k] = '\0';
}

/* 1 if the linked version (run) is the one built for (built: its major.minor decides). */
static int same_version(const char *run, const char *built)
{
    const char *dot = strchr(built, '.');
    const char *second = dot ? strchr(dot + 1, '.') : NULL;
    const size_t n = second ? (size_t)(second - built) : strlen(built);
    return strncmp(run, built, n) == 0 && (run[n] == '\0' || run[n] == '.');
}

/* Turn a replacement off when its library is another version, said once on stderr. */
static void check_version(const char *what, const char *override_env, const char *built,
                          void (*read_version)(char *, size_t), int *keep)
{
    char run[32];
    const char *pretend = getenv(override_env);
    if (pretend)
        snprintf(run, sizeof run, "%s", pretend);
    else
        read_version(run, sizeof run);
    if (same_version(run, built))
        return;
    *keep = 1;
    fprintf(stderr, "relaxsim: %s %s is linked, not the %s its per-step overhead removal was "
                    "built for: the removal is off (answers are the same, steps may be slower)\n",
            what, run[0] ? run : "(version unknown)", built);
}

__attribute__((constructor)) static void rs_solver_overheads_init(void)
{
    const char *env = getenv("RELAXSIM_SOLVER_OVERHEADS");
    keep_overheads = env && strcmp(env, "keep") == 0;
    if (keep_overheads)
        return;
#ifdef RS_OVH_IPOPT_CPUTIME
    check_version("IPOPT", "RELAXSIM_IPOPT_VERSION", RS_OVH_IPOPT_BUILT, ipopt_version,
                  &keep_ipopt);
#endif
#ifdef RS_OVH_MUMPS_MEMSAVE
    check_version("MUMPS", "RELAXSIM_MUMPS_VERSION", RS_OVH_MUMPS_BUILT, mumps_version,
                  &keep_mumps);
#endif
    /* blocks up to 32 MiB from the heap; the heap is trimmed only when 64 MiB at its top are free
     * (fixed values also turn off glibc's dynamic mmap threshold) */
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
    /* whichever libblas.so.3 is selected at run time: looked up, not linked */
    static const char *const setters[] = {"openblas_set_num_threads", "goto_set_num_threads",
                                          "MKL_Set_Num_Threads"}; /* all void(int) */
    for (size_t i = 0; i < sizeof setters / sizeof setters[0]; i++) {
        void *sym = dlsym(RTLD_DEFAULT, setters[i]);
        if (sym) {
            void (*set)(int);
            *(void **)&set = sym;
            set(1);
            break;
        }
    }
}
