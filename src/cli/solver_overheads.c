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
 * Environment: RELAXSIM_SOLVER_OVERHEADS=keep turns all of them off at start-up (the
 * replacements then forward to the libraries' own functions).
 */
#define _GNU_SOURCE /* RTLD_NEXT, RTLD_DEFAULT */
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int keep_overheads; /* RELAXSIM_SOLVER_OVERHEADS=keep */

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
    if (keep_overheads) {
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
    if (keep_overheads)
        return forward("_ZN5Ipopt7CpuTimeEv");
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double _ZN5Ipopt7SysTimeEv(void)
{
    return keep_overheads ? forward("_ZN5Ipopt7SysTimeEv") : 0.0;
}
#endif

__attribute__((constructor)) static void rs_solver_overheads_init(void)
{
    const char *env = getenv("RELAXSIM_SOLVER_OVERHEADS");
    keep_overheads = env && strcmp(env, "keep") == 0;
    if (keep_overheads)
        return;
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
