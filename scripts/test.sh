#!/usr/bin/env bash
# test.sh: everything that must pass before a change lands, stage by stage; stops at the first
# failing stage.
#   1. set-up (missing Debian packages, Release build)
#   2. relaxsim check problems/: every shipped scenario and sweep against its contract, the JUnit
#      report validated (the 1,000-run robustness sweeps excepted: scripts/robustness.sh)
#   3. Debug build with warnings as errors and the optional MPI batch, then ctest
#   4. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer
#   5. the unit tests and the command under valgrind (--error-exitcode)
#   6. install into a temporary prefix and build a consumer with CMake and with pkg-config; run
#      the consumer's own scenarios under its ctest (relaxsim_add_check)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage=0
banner() {
  stage=$((stage + 1))
  printf '\n==== [%d/6] %s ====\n' "$stage" "$1"
}
trap 'echo; echo "==== FAILED at stage $stage ===="' ERR

banner "set-up: packages and Release build"
scripts/setup.sh --test-tools

banner "relaxsim check problems/ (contracts, JUnit report)"
build/relaxsim check problems --exclude '*_robust.ini' --exclude '*_robust_no_start_check.ini' \
  --junit build/check.xml -q
xmllint --noout --schema tests/junit/junit.xsd build/check.xml

# the Siconos LCP collection (outside the repository): RS_LCP_DATA_DIR, or ../shared's
data=${RS_LCP_DATA_DIR:-../shared/lcp-data/siconos}
[ -d "$data" ] && data=$(cd "$data" && pwd)

banner "Debug build (-Werror, with MPI) and ctest"
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DRS_WERROR=ON -DRS_WITH_MPI=ON \
  -DRS_LCP_DATA_DIR="$data" >/dev/null
cmake --build build-debug -j"$jobs"
ctest --test-dir build-debug --output-on-failure -j"$jobs"

banner "AddressSanitizer + UndefinedBehaviorSanitizer"
# without MPI: OpenMPI's own allocations would be reported by LeakSanitizer
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRS_WERROR=ON -DRS_SANITIZE=ON -DRS_BUILD_BENCH=OFF \
  -DRS_WITH_MPI=OFF -DRS_LCP_DATA_DIR="$data" >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

banner "valgrind"
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --track-origins=yes)
status=0
# test_compare, test_cli_sim, test_stack, test_polygon_steps, test_gradient, test_point3d and
# test_study simulate thousands of IPOPT steps or Lemke solves (minutes to hours under valgrind);
# they run in full in stages 3 and 4, and the same code runs
# here through the command below (a stacked batch and the polygon model's paths included).
for t in build-debug/tests/unit/test_*; do
  [ -x "$t" ] || continue
  case "$(basename "$t")" in test_compare|test_cli_sim|test_stack|test_polygon_steps|test_gradient|test_point3d|test_study) continue ;; esac
  printf '  %-40s' "$(basename "$t")"
  if "${vg[@]}" "$t" >"build-debug/valgrind-$(basename "$t").log" 2>&1; then echo "clean"
  else echo "FAILED (see build-debug/valgrind-$(basename "$t").log)"; status=1; fi
done
# The command itself, on a solve, a failed solve and a malformed file (exit codes 0, 1, 2).
printf '2 0 2 2 2 2 1 nan 3 4 -1 -1\n' > build-debug/bad.dat
for case in "0 $data/lcp_exp_murty2.dat" "1 $data/lcp_CPS_3.dat" "2 build-debug/bad.dat"; do
  set -- $case
  printf '  %-40s' "relaxsim lcp solve $(basename "$2")"
  rc=0
  "${vg[@]}" build-debug/relaxsim lcp solve "$2" --json >/dev/null 2>build-debug/valgrind-cli.log || rc=$?
  if [ "$rc" = "$1" ]; then echo "clean (exit $rc)"
  else echo "FAILED (exit $rc, expected $1)"; cat build-debug/valgrind-cli.log; status=1; fi
done
# Time stepping with both backends: point2d through its landing (step 451) and the impact,
# the published variant for a few failing steps, a 1-D model with its LCP relaxation; the
# polygon model: its own NLP with friction over the peg board's first contacts (from step 187),
# the relaxation through the valley's landing (step 318), a disc on a rounded corner (step 73);
# the 3-D point through its landing (its sparse exact-cone NLP and the 8-direction LCP).
scen=problems/scenarios
# (the published variant's failing steps are cut at 50 iterations: at its own 2000 they take
# minutes under valgrind, and the code they exercise is the same)
for case in "point2d_friction.ini run.steps=460" "point2d_friction_blog.ini run.steps=3 nlp.max_iter=50" \
            "sliding_block_direct_random.ini run.steps=200" \
            "polygon_corner_stewart_trinkle.ini run.steps=210" \
            "polygon_pegboard.ini run.steps=260" \
            "polygon_valley.ini run.steps=330 nlp.form=relaxation" \
            "polygon_disc_corner_rounded.ini run.steps=90" \
            "point3d_friction.ini run.steps=460"; do
  set -- $case
  printf '  %-66s' "relaxsim compare $1 (${*:2})"
  sets=()
  for s in "${@:2}"; do sets+=(--set "$s"); done
  rc=0
  "${vg[@]}" build-debug/relaxsim compare "$scen/$1" "${sets[@]}" -o build-debug/vg-out -q \
    2>build-debug/valgrind-cli.log || rc=$?
  if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then echo "clean (exit $rc)"  # 1: a short run fails its contract
  else echo "FAILED (exit $rc)"; cat build-debug/valgrind-cli.log; status=1; fi
done
# A stacked batch: two point2d runs through their landing, in one block-diagonal NLP per step
# (the forked worker stays under valgrind).
printf '[sweep]\nscenario = %s/problems/sweeps/point2d_friction_generic.ini\n[vary]\nmodel.mu = 0.1, 0.3\nrun.steps = 460\n' \
  "$PWD" > build-debug/vg-stack.ini
printf '  %-66s' "relaxsim batch (2 runs, --stack 2)"
rc=0
"${vg[@]}" build-debug/relaxsim batch build-debug/vg-stack.ini --stack 2 -o build-debug/vg-stack -q \
  2>build-debug/valgrind-cli.log || rc=$?
if [ "$rc" = 0 ] && grep -q '"stack":2' build-debug/vg-stack/results.jsonl; then
  echo "clean (exit $rc)"
else echo "FAILED (exit $rc)"; cat build-debug/valgrind-cli.log; status=1; fi
# Gradients: point2d through its landing by the three methods (MUMPS's KKT sensitivity at every
# NLP step, the LCP derivative at every Lemke step, the differences' runs), and a sweep of two
# points of the sliding block.
for case in "point2d_friction.ini --wrt mu,z --of x,fz@455 --set run.steps=460" \
            "sliding_block_traditional.ini --wrt mu,u --sweep mu=0.4:0.5:2"; do
  set -- $case
  printf '  %-66s' "relaxsim grad $1 (${*:2})"
  rc=0
  "${vg[@]}" build-debug/relaxsim grad "$scen/$1" "${@:2}" -o build-debug/vg-grad -q \
    2>build-debug/valgrind-cli.log || rc=$?
  if [ "$rc" = 0 ]; then echo "clean (exit $rc)"
  else echo "FAILED (exit $rc)"; cat build-debug/valgrind-cli.log; status=1; fi
done
# A capsule and its replay: the post's variant's first failed steps, replayed bitwise (exit 1:
# the step fails), and its relaxation-bias curve (flagged, exit 1)
printf '  %-66s' "relaxsim compare --capsule / relaxsim replay (--continuation)"
rc=0
"${vg[@]}" build-debug/relaxsim compare "$scen/point2d_friction_blog.ini" --set run.steps=2 \
  --set nlp.max_iter=20 --capsule 1 -o build-debug/vg-cap -q 2>build-debug/valgrind-cli.log || rc=$?
for extra in "" "--continuation"; do
  [ "$rc" -le 1 ] || break
  rc=0
  "${vg[@]}" build-debug/relaxsim replay build-debug/vg-cap/capsules/step_1.json $extra \
    >build-debug/vg-replay.txt 2>>build-debug/valgrind-cli.log || rc=$?
done
if [ "$rc" = 1 ] && grep -q "FLAG" build-debug/vg-replay.txt; then echo "clean (exit $rc)"
else echo "FAILED (exit $rc)"; cat build-debug/valgrind-cli.log; status=1; fi
[ "$status" = 0 ] || { cat build-debug/valgrind-*.log; false; }

banner "install and consumer"
prefix=$(mktemp -d)
cmake --install build-debug --prefix "$prefix" >/dev/null
rm -rf build-consumer  # a fresh build: its dependencies point into the last run's prefix
cmake -S tests/consumer -B build-consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build-consumer
LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'librelaxsim.so' | head -n1)")" build-consumer/consumer
pcdir=$(dirname "$(find "$prefix" -name relaxsim.pc | head -n1)")
cc -std=c11 -Wall -Werror tests/consumer/consumer.c -o build-consumer/consumer_pc \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs relaxsim)
LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'librelaxsim.so' | head -n1)")" build-consumer/consumer_pc
"$prefix/bin/relaxsim" --version
# the project's own scenarios under its ctest, through relaxsim_add_check, with a valid JUnit file
ctest --test-dir build-consumer --output-on-failure
xmllint --noout --schema tests/junit/junit.xsd build-consumer/relaxsim-check.xml
rm -rf "$prefix"

echo
echo "==== all 6 stages passed ===="
