#!/usr/bin/env bash
# test.sh: everything that must pass before a change lands, stage by stage; stops at the first
# failing stage. Budget: 15 minutes of CPU time (user + sys, printed at the end) on a 2-core
# machine.
#   1. set-up: the missing Debian packages; a clone of HEAD into a temporary directory with
#      nothing beside it builds there (the optimised build: Release, warnings as errors, the
#      optional MPI batch) and passes the fast tests (tests/fresh_clone.sh). Every later stage
#      runs in that clone: what is tested is HEAD (uncommitted changes are not; a note says so)
#   2. the optimised build's slow tests, whose long simulations run here once (the fast ones ran
#      in stage 1)
#   3. relaxsim check problems/: every shipped scenario and sweep against its contract, under
#      three BLAS kernels (scripts/blas_kernels.sh), each JUnit report validated (the 1,000-run
#      robustness sweeps excepted: scripts/robustness.sh)
#   4. a Debug build under AddressSanitizer + UndefinedBehaviorSanitizer (warnings as errors): the
#      fast tests and the slow ones, reduced (RS_TEST_REDUCED=1: the same code paths on shorter
#      runs, where a test has a shorter form; the README's examples are the command's, run in
#      stage 2)
#   5. the fast unit tests that call the library (reduced likewise) and the command under
#      valgrind (--error-exitcode)
#   6. install into a temporary prefix and build a consumer with CMake and with pkg-config (a
#      simulation and a comparison through the installed library); the Python binding's tests
#      on the installed package; the consumer's own scenarios under its ctest
#      (relaxsim_add_check)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage=0
# the CPU time (user + sys, s) of everything this script has run so far, into $cpu: `times` in
# this shell (in a subshell it would count the subshell's children only)
cpu=0
cpu_time() {
  local t
  t=$(mktemp)
  times >"$t"
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$t")
  rm -f "$t"
}
banner() {
  stage=$((stage + 1))
  cpu_time
  printf '\n==== [%d/6] %s (CPU so far %.0f s) ====\n' "$stage" "$1" "$cpu"
}
trap 'echo; echo "==== FAILED at stage $stage ===="' ERR
# the fresh clone every stage runs in (stage 1): removed after a pass, kept after a failure
root=$(mktemp -d)
trap 'if [ $? = 0 ]; then rm -rf "$root"; else echo "(the clone and its builds: $root/relaxsim)"; fi' EXIT

banner "set-up: packages, and a fresh clone on its own"
scripts/setup.sh --test-tools --no-build
# Every stage but the kernels' runs on Debian's reference BLAS (scripts/blas_kernels.sh's
# "reference" line, put before any LD_LIBRARY_PATH already set): on these small KKT systems it costs about a quarter less CPU than
# OpenBLAS (the pile's check, 51 s against 66 s; each kernel's whole check, 116 s against 155 s),
# whose per-call set-up dominates there. Stage 3 runs the contracts under every kernel.
reference=$(scripts/blas_kernels.sh | awk -F '\t' '$1 == "reference" { print $2 }')
[ -n "$reference" ] || { echo "test.sh: Debian's reference BLAS is missing (libblas3, liblapack3)"; false; }
export LD_LIBRARY_PATH="${reference#LD_LIBRARY_PATH=}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# the repository stands on its own: a clone with nothing beside it builds and passes the fast
# tests; its build is the optimised build of the stages below, which run in the clone
tests/fresh_clone.sh --into "$root" . -DRS_WERROR=ON -DRS_WITH_MPI=ON
cd "$root/relaxsim"
data=tests/data/siconos # the Siconos LCP collection the valgrind stage solves

banner "the optimised build's slow tests (-Werror, with MPI; stage 1 built it and ran the fast ones)"
ctest --test-dir build-release --output-on-failure -j"$jobs" -LE fast

banner "relaxsim check problems/ under three BLAS kernels (contracts, JUnit reports)"
# every shipped contract holds whichever BLAS kernel IPOPT and MUMPS run on: the first three of
# scripts/blas_kernels.sh (Debian's reference BLAS, OpenBLAS's own choice for this CPU, its SSE3
# kernel), each selected for the command's process alone. point2d_friction_blog.ini, the post's
# formulation as published (1,200 cold IPOPT solves of up to 2,000 iterations, 998 of them
# failing by design), is half of each kernel's CPU: it runs under the first kernel only (its
# contract, a range of failed steps, measured under four kernels: 2026-12-03, AMD EPYC)
scripts/blas_kernels.sh > build-release/kernels-all.txt
head -n 3 build-release/kernels-all.txt > build-release/kernels.txt
first=1
while IFS=$'\t' read -r kernel assignments; do
  echo "  kernel $kernel: $assignments"
  only_first=()
  [ "$first" = 1 ] || only_first=(--exclude '*/point2d_friction_blog.ini')
  first=0
  env $assignments build-release/relaxsim check problems --exclude '*_robust.ini' \
    --exclude '*_robust_no_start_check.ini' "${only_first[@]}" \
    --junit "build-release/check-$kernel.xml" -q
  xmllint --noout --schema tests/junit/junit.xsd "build-release/check-$kernel.xml"
done < build-release/kernels.txt
[ "$(wc -l < build-release/kernels.txt)" -ge 3 ]

banner "AddressSanitizer + UndefinedBehaviorSanitizer: fast and slow tests, reduced"
# without MPI: OpenMPI's own allocations would be reported by LeakSanitizer
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRS_WERROR=ON -DRS_SANITIZE=ON -DRS_BUILD_BENCH=OFF \
  -DRS_WITH_MPI=OFF >/dev/null
cmake --build build-asan -j"$jobs"
# (a quarantine of 16 MB instead of 256, and allocation stacks of 2 frames instead of 30: IPOPT
# and MUMPS allocate and free their vectors and workspaces at every iteration, and most of this
# stage's CPU is AddressSanitizer's allocator serving them: the default quarantine's recycling
# cost a fifth of it in mmap and madvise, recording each allocation's stack at 5 frames a fifth
# of the rest. A use after free is still caught within the last 16 MB freed, a bad access
# reported with the stack where it happened, a leak found (LeakSanitizer needs 2 frames: with
# fewer it reports none); a failing test runs once more with stacks of 30 frames, whose report
# says where the memory was allocated and freed)
asan_stacks=detect_leaks=1:abort_on_error=1:quarantine_size_mb=16
export ASAN_OPTIONS=$asan_stacks:malloc_context_size=2
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
asan_ctest() { # asan_ctest CTEST_OPTION...: the tests, reduced; the failing ones again with stacks
  RS_TEST_REDUCED=1 ctest --test-dir build-asan --output-on-failure -j"$jobs" "$@" && return 0
  echo "  (the failing tests again, with allocation stacks)"
  ASAN_OPTIONS=$asan_stacks RS_TEST_REDUCED=1 ctest --test-dir build-asan --output-on-failure \
    --rerun-failed || true
  return 1
}
asan_ctest -L fast
asan_ctest -L slow -E readme_examples
unset ASAN_OPTIONS UBSAN_OPTIONS

banner "valgrind"
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
# (without --track-origins: it finds the same errors and only adds where an uninitialised value
# came from, at about 1.6 times the CPU (the seesaw's compare: 12.3 s against 7.5 s); a failing
# case is run once more with it, into its log, by vg_origins)
vg_origins() { # vg_origins LOG COMMAND...: COMMAND again under valgrind, origins tracked, into LOG
  local log=$1
  shift
  echo "  (again with --track-origins=yes, into $log)"
  "${vg[@]}" --track-origins=yes "$@" >>"$log" 2>&1 || true
}
status=0
# the slow tests (ctest -L slow), test_study and test_bodies simulate thousands of IPOPT steps or
# Lemke solves (minutes to hours under valgrind: test_bodies alone took 346 s of this stage's
# 616); they run in stages 2 and 4, and the same code runs here through the command below (a
# stacked batch, the polygon model's paths and the bodies' included).
# test_cli_check, _lcp, _outputs, _progress and _replay only run the command as child processes,
# which valgrind does not follow (no --trace-children): under it they would check their own
# harness and nothing of the library (30 s of this stage); the command runs under valgrind below.
slow=" $(ctest --test-dir build-release -N -L slow | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ') test_study test_bodies "
slow+="test_cli_check test_cli_lcp test_cli_outputs test_cli_progress test_cli_replay "
for t in build-release/tests/unit/test_*; do
  [ -x "$t" ] || continue
  case "$slow" in *" $(basename "$t") "*) continue ;; esac
  printf '  %-40s' "$(basename "$t")"
  if RS_TEST_REDUCED=1 "${vg[@]}" "$t" >"build-release/valgrind-$(basename "$t").log" 2>&1; then echo "clean"
  else
    echo "FAILED (see build-release/valgrind-$(basename "$t").log)"; status=1
    RS_TEST_REDUCED=1 vg_origins "build-release/valgrind-$(basename "$t").log" "$t"
  fi
done
# The command itself, on a solve, a failed solve and a malformed file (exit codes 0, 1, 2).
printf '2 0 2 2 2 2 1 nan 3 4 -1 -1\n' > build-release/bad.dat
for case in "0 $data/lcp_exp_murty2.dat" "1 $data/lcp_CPS_3.dat" "2 build-release/bad.dat"; do
  set -- $case
  printf '  %-40s' "relaxsim lcp solve $(basename "$2")"
  rc=0
  "${vg[@]}" build-release/relaxsim lcp solve "$2" --json >/dev/null 2>build-release/valgrind-cli.log || rc=$?
  if [ "$rc" = "$1" ]; then echo "clean (exit $rc)"
  else
    echo "FAILED (exit $rc, expected $1)"; status=1
    vg_origins build-release/valgrind-cli.log build-release/relaxsim lcp solve "$2" --json
    cat build-release/valgrind-cli.log
  fi
done
# Time stepping with both backends: point2d through its landing (step 451) and the impact,
# the published variant for a few failing steps, a 1-D model with its LCP relaxation; the
# polygon model: its own NLP with friction over the peg board's first contacts (from step 187),
# the relaxation through the valley's landing (step 318), a disc on a rounded corner (step 73);
# the 3-D point through its landing (its sparse exact-cone NLP and the 8-direction LCP); the
# bodies: two boxes through their impact (box contacts clipped face to face, the polish), two
# pucks through theirs in the post's NLP (its cone and direction rows, friction between bodies),
# the seesaw's disc landing on its plank (a rotating body on a corner, friction in the pairs NLP).
scen=problems/scenarios
# (the published variant's failing steps are cut at 50 iterations: at its own 2000 they take
# minutes under valgrind, and the code they exercise is the same)
for case in "point2d_friction.ini run.steps=460" "point2d_friction_blog.ini run.steps=3 nlp.max_iter=50" \
            "sliding_block_direct_random.ini run.steps=200" \
            "polygon_corner_stewart_trinkle.ini run.steps=210" \
            "polygon_pegboard.ini run.steps=260" \
            "polygon_valley.ini run.steps=330 nlp.form=relaxation" \
            "polygon_disc_corner_rounded.ini run.steps=90" \
            "point3d_friction.ini run.steps=460" \
            "bodies_collide.ini run.steps=336" \
            "bodies_table_shot.ini run.steps=226 model.variant=post" \
            "bodies_seesaw.ini run.steps=190"; do
  set -- $case
  printf '  %-66s ' "relaxsim compare $1 (${*:2})"
  sets=()
  for s in "${@:2}"; do sets+=(--set "$s"); done
  rc=0
  "${vg[@]}" build-release/relaxsim compare "$scen/$1" "${sets[@]}" -o build-release/vg-out -q \
    2>build-release/valgrind-cli.log || rc=$?
  if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then echo "clean (exit $rc)"  # 1: a short run fails its contract
  else
    echo "FAILED (exit $rc)"; status=1
    vg_origins build-release/valgrind-cli.log build-release/relaxsim compare "$scen/$1" "${sets[@]}" \
      -o build-release/vg-out -q
    cat build-release/valgrind-cli.log
  fi
done
# A stacked batch: two point2d runs through their landing, in one block-diagonal NLP per step
# (the forked worker stays under valgrind).
printf '[sweep]\nscenario = %s/problems/sweeps/point2d_friction_generic.ini\n[vary]\nmodel.mu = 0.1, 0.3\nrun.steps = 460\n' \
  "$PWD" > build-release/vg-stack.ini
printf '  %-66s ' "relaxsim batch (2 runs, --stack 2)"
rc=0
"${vg[@]}" build-release/relaxsim batch build-release/vg-stack.ini --stack 2 -o build-release/vg-stack -q \
  2>build-release/valgrind-cli.log || rc=$?
if [ "$rc" = 0 ] && grep -q '"stack":2' build-release/vg-stack/results.jsonl; then
  echo "clean (exit $rc)"
else echo "FAILED (exit $rc)"; cat build-release/valgrind-cli.log; status=1; fi
# Gradients: point2d through its landing by the three methods (MUMPS's KKT sensitivity at every
# NLP step, the LCP derivative at every Lemke step, the differences' runs), and a sweep of two
# points of the sliding block (through its sticking at step 52).
for case in "point2d_friction.ini --wrt mu,z --of x,fz@455 --set run.steps=460" \
            "sliding_block_traditional.ini --wrt mu,u --sweep mu=0.4:0.5:2 --set run.steps=60"; do
  set -- $case
  printf '  %-66s ' "relaxsim grad $1 (${*:2})"
  rc=0
  "${vg[@]}" build-release/relaxsim grad "$scen/$1" "${@:2}" -o build-release/vg-grad -q \
    2>build-release/valgrind-cli.log || rc=$?
  if [ "$rc" = 0 ]; then echo "clean (exit $rc)"
  else echo "FAILED (exit $rc)"; cat build-release/valgrind-cli.log; status=1; fi
done
# A capsule and its replay: the post's variant's first failed steps, replayed bitwise (exit 1:
# the step fails), and its relaxation-bias curve (flagged, exit 1)
printf '  %-66s ' "relaxsim compare --capsule / relaxsim replay (--continuation)"
rc=0
"${vg[@]}" build-release/relaxsim compare "$scen/point2d_friction_blog.ini" --set run.steps=2 \
  --set nlp.max_iter=20 --capsule 1 -o build-release/vg-cap -q 2>build-release/valgrind-cli.log || rc=$?
for extra in "" "--continuation"; do
  [ "$rc" -le 1 ] || break
  rc=0
  "${vg[@]}" build-release/relaxsim replay build-release/vg-cap/capsules/step_1.json $extra \
    >build-release/vg-replay.txt 2>>build-release/valgrind-cli.log || rc=$?
done
if [ "$rc" = 1 ] && grep -q "FLAG" build-release/vg-replay.txt; then echo "clean (exit $rc)"
else echo "FAILED (exit $rc)"; cat build-release/valgrind-cli.log; status=1; fi
[ "$status" = 0 ] || { cat build-release/valgrind-*.log; false; }

banner "install and consumer"
prefix=$(mktemp -d)
cmake --install build-release --prefix "$prefix" >/dev/null
rm -rf build-consumer  # a fresh build: its dependencies point into the last run's prefix
cmake -S tests/consumer -B build-consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build-consumer
LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'librelaxsim.so' | head -n1)")" build-consumer/consumer
pcdir=$(dirname "$(find "$prefix" -name relaxsim.pc | head -n1)")
cc -std=c11 -Wall -Werror tests/consumer/consumer.c -o build-consumer/consumer_pc \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs relaxsim)
LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'librelaxsim.so' | head -n1)")" build-consumer/consumer_pc
"$prefix/bin/relaxsim" --version
# the manual pages as installed, read with the command CONTRIBUTING.md gives for a prefix of
# one's own (man -M PREFIX/share/man PAGE; nothing else set)
man -M "$prefix/share/man" relaxsim 2>/dev/null | grep -q "relaxsim compare" ||
  { echo "man -M $prefix/share/man relaxsim: no manual entry"; false; }
man -M "$prefix/share/man" relaxsim-scenario 2>/dev/null | grep -q "\[expect\]" ||
  { echo "man -M $prefix/share/man relaxsim-scenario: no manual entry"; false; }
echo "man -M PREFIX/share/man relaxsim, relaxsim-scenario: installed"
# the Python binding as installed, next to the library it finds from its own place
pydir=$(dirname "$(dirname "$(find "$prefix" -path '*dist-packages/relaxsim/__init__.py' | head -n1)")")
python=/usr/bin/python3; [ -x "$python" ] || python=python3
(unset RELAXSIM_LIBRARY; cd build-consumer && RS_SOURCE_DIR="$OLDPWD" PYTHONPATH="$pydir" \
  "$python" "$OLDPWD/tests/python/test_relaxsim.py" 2>&1 | tail -n 3)
# the project's own scenarios under its ctest, through relaxsim_add_check, with a valid JUnit file
ctest --test-dir build-consumer --output-on-failure
xmllint --noout --schema tests/junit/junit.xsd build-consumer/relaxsim-check.xml
rm -rf "$prefix"

echo
cpu_time
awk -v s="$cpu" 'BEGIN { printf "==== all 6 stages passed: %.1f min of CPU time (user + sys; budget 15) ====\n", s / 60 }'
