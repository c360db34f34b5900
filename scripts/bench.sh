#!/usr/bin/env bash
# bench.sh: build Release (via setup.sh) and run the benchmarks in tests/bench. Prints tables.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
build/tests/bench/lemke_bench "$@"
