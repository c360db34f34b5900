#!/usr/bin/env bash
# bench_nlp_step.sh: the NLP step of the default scenario (point2d_friction.ini, 1200 steps) by
# the relaxsim command of this tree against the command built from a baseline commit, side by
# side in one run, with the start check off (IPOPT on every step) and on. The baseline has no
# removal of IPOPT's and MUMPS's per-step overheads (src/cli/solver_overheads.c): this tree is
# compared with it with the removal off (RELAXSIM_SOLVER_OVERHEADS=keep), the same setting on
# both sides, and the removal is its own row (this tree with it against without it). Per variant: the steps
# that called IPOPT, their median time (median of 3 interleaved runs), their mean iterations, how
# many IPOPT accepted at its first test (0 iterations), the median time of the others and the
# total time of all IPOPT steps,
# instructions per IPOPT step (callgrind, the first 200 steps, start check off: deterministic on a
# busy machine), the largest per-step shadow |xd| difference, and the contract. Then the slowest
# NLP step of every shipped scenario (the post's variant as published included, reported as is).
# Beside them, the floor: what one IpoptSolve of a 2-variable problem costs (tests/bench/ipopt_floor).
#   scripts/bench_nlp_step.sh [BASELINE_COMMIT]      (default 079ebe6: main before the NLP
#                                                      step's warm starts and start checks)
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev="${1:-079ebe6}"
scripts/setup.sh >/dev/null
command -v valgrind >/dev/null || scripts/setup.sh --test-tools --no-build >/dev/null
base_src=build-baseline-src
if [ ! -d "$base_src" ] || [ "$(git -C "$base_src" rev-parse --short HEAD 2>/dev/null)" != "$(git rev-parse --short "$base_rev")" ]; then
  rm -rf "$base_src"
  git worktree prune
  git worktree add --detach "$base_src" "$base_rev" >/dev/null 2>&1
fi
cmake -S "$base_src" -B "$base_src/build" -DCMAKE_BUILD_TYPE=Release -DRS_BUILD_TESTS=OFF \
  -DRS_BUILD_BENCH=OFF >/dev/null
cmake --build "$base_src/build" -j"$(nproc)" --target relaxsim_cli >/dev/null
new=build/relaxsim
old="$base_src/build/relaxsim"
scen=problems/scenarios/point2d_friction.ini
# the baseline reads its own copy of the scenario (the same physics and settings; its parser
# predates comments after a value, which the contracts now carry)
scen_old="$base_src/problems/scenarios/point2d_friction.ini"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "commit $(git rev-parse --short HEAD) against baseline $(git rev-parse --short "$base_rev"); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo
# steps.jsonl -> IPOPT steps, their median time, mean iterations, the steps IPOPT accepted at
# iteration 0, the median time of the steps that iterated and the total time of all IPOPT steps
# (old files: not at_start)
figures() {
  python3 - "$1" <<'PY'
import json, statistics, sys
steps = [json.loads(l)["nlp"] for l in open(sys.argv[1] + "/steps.jsonl")]
ipopt = [s for s in steps if (s["path"].startswith("ipopt") if "path" in s else not s["at_start"])]
summary = json.load(open(sys.argv[1] + "/summary.json"))
iterating = [s["time_us"] for s in ipopt if s["iterations"] > 0]
print(len(ipopt), statistics.median(s["time_us"] for s in ipopt) if ipopt else float("nan"),
      sum(s["iterations"] for s in ipopt) / max(len(ipopt), 1),
      summary["shadow"]["max_abs_diff"]["xd_mps"], summary["contract"]["passed"],
      len(ipopt) - len(iterating), statistics.median(iterating) if iterating else float("nan"),
      sum(s["time_us"] for s in ipopt) / 1000.0)
PY
}
declare -A med iters steps_n xd contract zero med_it total
floor0="" floor1=""
for rep in 1 2 3; do
  # the fixed cost of one IpoptSolve (0 and 1 iterations) on a 2-variable problem
  read -r f0 f1 < <(build/tests/bench/ipopt_floor)
  floor0="$floor0 $f0"; floor1="$floor1 $f1"
  for who in old keep new; do
    bin=$old; sc=$scen_old; [ "$who" != old ] && bin=$new && sc=$scen
    for cs in no yes; do
      if [ "$who" = keep ]; then
        RELAXSIM_SOLVER_OVERHEADS=keep "$bin" compare "$sc" --set nlp.check_start=$cs -q \
          -o "$out/$who-$cs" >/dev/null || true
      else
        "$bin" compare "$sc" --set nlp.check_start=$cs -q -o "$out/$who-$cs" >/dev/null || true
      fi
      read -r n m it x c z mi tot < <(figures "$out/$who-$cs")
      med[$who-$cs]="${med[$who-$cs]:-} $m"; iters[$who-$cs]=$it; steps_n[$who-$cs]=$n
      xd[$who-$cs]=$x; contract[$who-$cs]=$c; zero[$who-$cs]=$z
      med_it[$who-$cs]="${med_it[$who-$cs]:-} $mi"
      total[$who-$cs]="${total[$who-$cs]:-} $tot"
    done
  done
done
median3() { python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" $1; }
# instructions per IPOPT step: callgrind over the first 200 steps, start check off
instr() {
  local bin=$1 tag=$2 keep=${3:-} sc=$scen
  [ "$bin" = "$old" ] && sc=$scen_old
  RELAXSIM_SOLVER_OVERHEADS=$keep valgrind --tool=callgrind --callgrind-out-file="$out/cg-$tag" \
    "$bin" run "$sc" --set nlp.check_start=no --set run.steps=200 -q >/dev/null \
    2>"$out/cg-$tag.log" || true
  grep -m1 '^summary:' "$out/cg-$tag" | awk '{print $2}'
}
ir_old=$(instr "$old" old); ir_keep=$(instr "$new" keep keep); ir_new=$(instr "$new" new)
printf '| %-34s | %11s | %15s | %10s | %9s | %15s | %15s | %13s | %15s | %-8s |\n' "" "IPOPT steps" "us/IPOPT step" "iter/IPOPT" "0 iter." "us, iterating" "ms, all IPOPT" "instr/IPOPT" "shadow max|xd|" contract
printf '| %-34s | %11s | %15s | %10s | %9s | %15s | %15s | %13s | %15s | %-8s |\n' "" "" "median (3 runs)" "step" "steps" "median (3 runs)" "steps (3 runs)" "step (200)" "m/s" ""
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" ------------- ----------------- ------------ ----------- ----------------- ----------------- --------------- ----------------- ----------
row() { # label key instructions
  printf '| %-34s | %11s | %15.1f | %10.2f | %9s | %15.1f | %15.1f | %13s | %15.3g | %-8s |\n' "$1" "${steps_n[$2]}" \
    "$(median3 "${med[$2]}")" "${iters[$2]}" "${zero[$2]}" "$(median3 "${med_it[$2]}")" \
    "$(median3 "${total[$2]}")" "$3" "${xd[$2]}" \
    "$([ "${contract[$2]}" = True ] && echo passed || echo FAILED)"
}
row "baseline $base_rev, start check off" old-no "$(( ir_old / 200 ))"
row "this tree, removal off, check off" keep-no "$(( ir_keep / 200 ))"
row "this tree, removal on, check off" new-no "$(( ir_new / 200 ))"
row "baseline $base_rev, start check on" old-yes "-"
row "this tree, removal off, check on" keep-yes "-"
row "this tree, removal on, check on" new-yes "-"
ratio() { python3 -c "print('%.3f' % ($1 / $2))"; }
# this tree against the baseline with the same overhead setting (the removal off on both sides)
r_time=$(ratio "$(median3 "${med[keep-no]}")" "$(median3 "${med[old-no]}")")
r_it=$(ratio "$(median3 "${med_it[keep-no]}")" "$(median3 "${med_it[old-no]}")")
r_ir=$(ratio "$ir_keep" "$ir_old")
r_tot=$(ratio "$(median3 "${total[keep-no]}")" "$(median3 "${total[old-no]}")")
printf '| %-34s | %11s | %15s | %10s | %9s | %15s | %15s | %13s | %15s | %-8s |\n' "this tree / baseline, removal off" "" "$r_time" \
  "$(ratio "${iters[keep-no]}" "${iters[old-no]}")" "" "$r_it" "$r_tot" "$r_ir" "" ""
# the removal alone: this tree with it against without it
printf '| %-34s | %11s | %15s | %10s | %9s | %15s | %15s | %13s | %15s | %-8s |\n' "the removal: on / off, check off" "" \
  "$(ratio "$(median3 "${med[new-no]}")" "$(median3 "${med[keep-no]}")")" "" "" \
  "$(ratio "$(median3 "${med_it[new-no]}")" "$(median3 "${med_it[keep-no]}")")" \
  "$(ratio "$(median3 "${total[new-no]}")" "$(median3 "${total[keep-no]}")")" "$(ratio "$ir_new" "$ir_keep")" "" ""
echo
echo "   0 iter.: IPOPT steps whose start IPOPT accepted at its first test (this tree, check off:"
echo "   the free-flight steps, started from the contact-free prediction); us, iterating: the"
echo "   median over the other IPOPT steps, the cost of an IPOPT step that iterates; ms, all IPOPT"
echo "   steps: their total time in one run (the same 1200 steps in both trees)."
echo
# the median IPOPT step by its iterations (this tree, start check off, the last run)
python3 - "$out/new-no" <<'PY'
import collections, json, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1] + "/steps.jsonl"):
    s = json.loads(line)["nlp"]
    by[min(s["iterations"], 3)].append(s["time_us"])
print("   this tree, start check off (one run), median time of an IPOPT step by its iterations:")
print("  ", ", ".join("%s: %.0f us (%d steps)" % ("3+" if k == 3 else k, statistics.median(v), len(v))
                for k, v in sorted(by.items())))
PY
echo
ok_iter=$(python3 -c "print(${iters[new-no]} <= 1.5)")
# the time target is judged on both medians: over all IPOPT steps (the figure the target names)
# and over the IPOPT steps that iterate (free flights accepted at iteration 0 would otherwise
# carry the median)
ok_time=$(python3 -c "print($r_time <= 0.2 and $r_it <= 0.2)")
ok_xd=$(python3 -c "print(${xd[new-no]} <= 1e-9 and ${xd[new-yes]} <= 1e-9)")
echo "targets, start check off: iterations per IPOPT step <= 1.5: $([ "$ok_iter" = True ] && echo met || echo NOT met);"
echo "  median time per IPOPT step <= 1/5 of the baseline's (the removal off on both sides),"
echo "  over all IPOPT steps and over those that iterate: $([ "$ok_time" = True ] && echo met || echo NOT met) ($r_time and $r_it);"
echo "  shadow |xd| <= 1e-9 m/s with the start check off and on: $([ "$ok_xd" = True ] && echo met || echo NOT met)"
f0=$(median3 "$floor0"); f1=$(median3 "$floor1")
echo
echo "The floor (tests/bench/ipopt_floor, median of 3 runs of 2000 solves): one IpoptSolve of a"
echo "2-variable, 1-constraint quadratic through the same adapter, options and overhead removals"
printf '  costs %.1f us at 0 iterations and %.1f us at 1 iteration; 1 iteration = %s of the\n' "$f0" "$f1" \
  "$(ratio "$f1" "$(median3 "${med[old-no]}")")"
echo "  baseline's median IPOPT step. IPOPT 3.11's C interface rebuilds its algorithm and MUMPS"
echo "  instance on every solve, so no IPOPT step that iterates can cost less, whatever its NLP."
echo
echo "Slowest NLP step of each shipped scenario (this tree, default settings):"
echo
printf '| %-34s | %12s | %11s | %-8s |\n' scenario "max step ms" "NLP failed" contract
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" -------------- ------------- ----------
for f in problems/scenarios/*.ini; do
  name=$(basename "$f" .ini)
  "$new" compare "$f" -q -o "$out/s-$name" >/dev/null || true
  python3 - "$out/s-$name/summary.json" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("| %-34s | %12.2f | %11d | %-8s |" % (sys.argv[2], s["nlp"]["us_per_step_max"] / 1000.0,
      s["nlp"]["failed_steps"], "passed" if s["contract"]["passed"] else "FAILED"))
PY
done
