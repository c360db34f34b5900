#!/usr/bin/env bash
# robustness.sh: run the robustness sweeps of problems/sweeps/*_robust*.ini (1,000 seeded runs
# each over the documented ranges) with `relaxsim batch -j 2` and print one table row per sweep,
# recomputed from its results.jsonl: runs whose contract passed, failed NLP and Lemke steps, the
# lowest mode agreement, the steps solved by IPOPT and their mean iterations, the slowest NLP
# step (a failing one included) and the wall time. The README's robustness table is this output.
#   scripts/robustness.sh                  every robustness sweep (about 20 minutes on 2 cores)
#   scripts/robustness.sh point2d          the sweeps whose file name contains "point2d"
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-}"
scripts/setup.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, relaxsim batch -j 2"
echo
printf '| %-44s | %5s | %7s | %6s | %6s | %8s | %11s | %9s | %11s | %7s |\n' sweep runs passed \
  "NLP failed" "Lemke failed" "min mode agr." "IPOPT steps" "iter/IPOPT" "max step ms" "wall s"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" ------- --------- \
  ------------ -------------- --------------- ------------- ------------ ------------- ---------
for sweep in problems/sweeps/*_robust*.ini; do
  case "$sweep" in *_base.ini) continue ;; esac
  case "$sweep" in *"$filter"*) ;; *) continue ;; esac
  name=$(basename "$sweep" .ini)
  start=$(date +%s.%N)
  build/relaxsim batch "$sweep" -j 2 -q -o "$out/$name" || true  # exit 1: a contract failed
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  python3 - "$out/$name/results.jsonl" "$name" "$wall" <<'PY'
import json, sys
path, name, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = [json.loads(line) for line in open(path)]
passed = sum(r["outcome"] == "passed" for r in rows)
def total(key): return sum(r.get(key, 0) for r in rows)
agree = min(r.get("mode_agreement", float("nan")) for r in rows)
ipopt = total("ipopt_steps")
iters = sum(r["ipopt_steps"] * r["iterations_per_ipopt_step"] for r in rows if r.get("ipopt_steps"))
worst = max(r.get("nlp_step_max_us", float("nan")) for r in rows) / 1000.0
print("| %-44s | %5d | %7d | %10d | %12d | %13.4f | %11d | %10s | %11.1f | %7.0f |" % (
    name, len(rows), passed, total("nlp_failed_steps"), total("lemke_failed_steps"), agree, ipopt,
    "%.2f" % (iters / ipopt) if ipopt else "-", worst, wall))
for r in rows:
    if r["outcome"] != "passed":
        print("    run %d %s: %s" % (r["run"], r["outcome"], "; ".join(r.get("failed_checks", [r.get("reason", "")]))))
PY
done
