#!/usr/bin/env bash
# blas_kernels.sh: the BLAS kernels a contract must hold under, as found on this machine: one line
# per kernel, its name, a tab, and the environment that selects it for one process (assignments
# for env(1)). IPOPT and MUMPS reach BLAS and LAPACK through Debian's libblas.so.3 and
# liblapack.so.3; LD_LIBRARY_PATH puts one implementation's copies first for that process alone,
# and OPENBLAS_CORETYPE picks OpenBLAS's kernel. Listed where their libraries are installed:
#   reference          Debian's reference BLAS and LAPACK (libblas3, liblapack3)
#   openblas           OpenBLAS (libopenblas0-serial) with its own choice of kernel for this CPU
#                      (or the OPENBLAS_CORETYPE this machine's environment already sets)
#   openblas-prescott  OpenBLAS's SSE3 kernel, which runs on every x86-64 CPU
#   openblas-haswell   OpenBLAS's AVX2 kernel, where the CPU has AVX2 and FMA
# Exit 1, with the reason on stderr, when fewer than three kernels are available.
set -euo pipefail
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
lib=/usr/lib/$arch
n=0
if [ -e "$lib/blas/libblas.so.3" ] && [ -e "$lib/lapack/liblapack.so.3" ]; then
  printf 'reference\tLD_LIBRARY_PATH=%s/blas:%s/lapack\n' "$lib" "$lib"; n=$((n + 1))
fi
ob=$lib/openblas-serial
[ -e "$ob/libblas.so.3" ] || ob=$lib/openblas-pthread
if [ -e "$ob/libblas.so.3" ] && [ -e "$ob/liblapack.so.3" ]; then
  printf 'openblas\tLD_LIBRARY_PATH=%s\n' "$ob"; n=$((n + 1))
  printf 'openblas-prescott\tLD_LIBRARY_PATH=%s OPENBLAS_CORETYPE=Prescott\n' "$ob"; n=$((n + 1))
  if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    printf 'openblas-haswell\tLD_LIBRARY_PATH=%s OPENBLAS_CORETYPE=Haswell\n' "$ob"; n=$((n + 1))
  fi
fi
if [ "$n" -lt 3 ]; then
  echo "blas_kernels.sh: $n BLAS kernels found under $lib, 3 needed (install libblas3, liblapack3 and libopenblas0-serial: scripts/setup.sh --test-tools)" >&2
  exit 1
fi
