#!/usr/bin/env bash
# setup.sh: install the Debian packages relaxsim needs that are missing, then configure and build
# a Release build in build/. Idempotent; quick when everything is already there.
#
#   scripts/setup.sh                 build dependencies, then the Release build
#   scripts/setup.sh --test-tools    also what the test script uses (valgrind, OpenMPI, xmllint,
#                                    python3-numpy for the Python binding, man-db for the manual,
#                                    git for the fresh-clone test, the reference BLAS and
#                                    OpenBLAS for the contracts under several BLAS kernels; as
#                                    Debian does, OpenBLAS then becomes the system's BLAS)
#   scripts/setup.sh --no-build      install only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config coinor-libipopt-dev libmumps-seq-dev libcmocka-dev
          libinih-dev libcjson-dev gnuplot-nox)
build=1
for arg in "$@"; do
  case "$arg" in
    --test-tools) packages+=(valgrind libopenmpi-dev openmpi-bin libxml2-utils locales python3-numpy man-db git
                              libblas3 liblapack3 libopenblas0-serial) ;;
    --no-build) build=0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# the test of numbers under a decimal-comma locale (tests/unit/test_locale.c) needs one
if [[ " ${packages[*]} " == *" locales "* ]] && ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo localedef -i de_DE -f UTF-8 de_DE.UTF-8
fi

if ((build)); then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)"
fi
