#!/usr/bin/env bash
# bench.sh: build Release (via setup.sh) and run the benchmarks in tests/bench and
# scripts/bench_nlp_step.sh; prints tables, each figure beside its baseline and their ratio.
# About 20 minutes on 2 cores, 12 of them the pile's memory over 100,000 steps. (The robustness
# sweeps: scripts/robustness.sh, about 9 minutes; the peers table: scripts/bench_peers.sh.)
#   scripts/bench.sh              all benchmarks
#   scripts/bench.sh --lemke      the Lemke tables only
#   scripts/bench.sh --pile       the growing pile of boxes only (time per step, memory)
# The Siconos comparison needs Debian's libsiconos-numerics-dev (an optional, benchmark-only
# dependency): scripts/bench.sh installs it when apt-get is available.
set -euo pipefail
cd "$(dirname "$0")/.."
only_lemke=0 only_pile=0
[ "${1:-}" = "--lemke" ] && only_lemke=1
[ "${1:-}" = "--pile" ] && only_pile=1
if ! dpkg-query -W -f='${Status}' libsiconos-numerics-dev 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends libsiconos-numerics-dev >/dev/null; } ||
    echo "bench.sh: libsiconos-numerics-dev not installed: Siconos comparison skipped"
  rm -f build/CMakeCache.txt  # let CMake find it
fi
scripts/setup.sh >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
if [ "$only_pile" = 1 ]; then
  build/tests/bench/pile_bench
  exit 0
fi
build/tests/bench/lemke_bench
echo
if [ -x build/tests/bench/lemke_vs_siconos ]; then
  build/tests/bench/lemke_vs_siconos
  echo
fi
[ "$only_lemke" = 1 ] && exit 0
build/tests/bench/sim_bench "$PWD"
echo
echo "6. The NLP step through the relaxsim command, against a baseline build (scripts/bench_nlp_step.sh)"
echo
scripts/bench_nlp_step.sh
echo
build/tests/bench/sim_bench "$PWD" 7
build/tests/bench/sim_bench "$PWD" 8
build/tests/bench/sim_bench "$PWD" 9
echo
build/tests/bench/memory_bench "$PWD" build/relaxsim
echo
build/tests/bench/pile_bench
