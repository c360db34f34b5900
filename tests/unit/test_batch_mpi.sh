#!/bin/sh
# test_batch_mpi.sh RELAXSIM SOURCE_DIR TMPDIR: a small sweep under `mpirun -n 2` gives the same
# sorted results as `-j 1` (summary.json and results.csv byte for byte), every run exactly once.
set -eu
relaxsim=$1 src=$2 tmp=$3/mpi_test
rm -rf "$tmp" && mkdir -p "$tmp"
cat > "$tmp/sweep.ini" <<SWEEP
[sweep]
scenario = $src/problems/scenarios/falling_block.ini
[vary]
model.m = 0.5, 1, 2
run.dt = -1, 0.01
initial.x = 1, 1.2
SWEEP
passed=0 failed=0
check() { if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $*"; fi; }
status=0
"$relaxsim" batch "$tmp/sweep.ini" -j 1 -q -o "$tmp/j1" || status=$?
check [ "$status" = 1 ]   # runs fail the m = 1 contract or have dt = -1
status=0
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun --oversubscribe -n 2 "$relaxsim" batch "$tmp/sweep.ini" -q -o "$tmp/mpi" || status=$?
check [ "$status" = 1 ]
check cmp "$tmp/j1/summary.json" "$tmp/mpi/summary.json"
check cmp "$tmp/j1/results.csv" "$tmp/mpi/results.csv"
check [ "$(wc -l < "$tmp/mpi/results.jsonl")" = 12 ]
check [ "$(cut -d, -f1 "$tmp/mpi/results.jsonl" | sort -u | wc -l)" = 12 ]
status=0
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun --oversubscribe -n 2 "$relaxsim" batch "$tmp/sweep.ini" -j 2 -q -o "$tmp/x" 2>/dev/null || status=$?
check [ "$status" = 2 ]   # -j has no meaning under mpirun
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
