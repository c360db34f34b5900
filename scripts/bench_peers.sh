#!/usr/bin/env bash
# bench_peers.sh: relaxsim beside Box2D and Chipmunk2D on the same six scenes (slide, tip,
# slip_roll, ramp, stack, pile), each against its closed form, in one table. About 3 minutes.
#   relaxsim: Lemke and the NLP (IPOPT), through the library (tests/bench/peers/relaxsim_peers.c)
#   Box2D 2.4.1 and Chipmunk 7.0.3 at their default iterations and at 50
#   (tests/bench/peers/box2d_peers.cpp, chipmunk_peers.c: optional, benchmark-only dependencies,
#   Debian's libbox2d-dev and libchipmunk-dev, installed here when apt-get is available)
# The pile's penetration is recomputed for every engine from its final poses by relaxsim's
# contact geometry, the same checker for all.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=""
for p in libbox2d-dev libchipmunk-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  # shellcheck disable=SC2086
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends $missing >/dev/null; } ||
    echo "bench_peers.sh:$missing not installed: those engines' rows are skipped"
  rm -f build/CMakeCache.txt  # let CMake find them
fi
scripts/setup.sh >/dev/null
bench=build/tests/bench
scenes=problems/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench/relaxsim_peers" "$PWD" >"$tmp/rows.tsv"
# one engine at one iteration setting: its rows, and the penetration row of its pile's poses
peer() { # PROGRAM LABEL [ITERATIONS]
  local prog=$1 label=$2 poses="$tmp/poses_$2.txt" rows="$tmp/$2.tsv"
  if [ ! -x "$bench/$prog" ]; then
    echo "bench_peers.sh: $bench/$prog not built: its rows are skipped" >&2
    return 0
  fi
  PEERS_POSES="$poses" "$bench/$prog" "$scenes" ${3:+"$3"} >"$rows" 2>/dev/null
  cat "$rows" >>"$tmp/rows.tsv"
  local engine us
  engine=$(awk -F'\t' '$1 == "pile" { print $2; exit }' "$rows")
  us=$(awk -F'\t' '$1 == "pile" { print $7; exit }' "$rows")
  "$bench/relaxsim_peers" "$PWD" --poses "$poses" "$engine" "$us" >>"$tmp/rows.tsv"
}
peer box2d_peers box2d_default
peer box2d_peers box2d_50 50
peer chipmunk_peers chipmunk_default
peer chipmunk_peers chipmunk_50 50

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
# the rows grouped by scene, then quantity (in the order met), engines in the order run
awk -F'\t' '
  { key = $1 "\t" $3
    if (!(key in seen)) { seen[key] = 1; order[++n] = key; closed[key] = $4 }
    rows[key] = rows[key] sprintf("| %-9s | %-40s | %11s | %-40s | %12s | %9s | %9.3g |\n",
                                  $1, $3, $4, $2, $5, sprintf("%.2g", $6), $7) }
  END {
    printf "| %-9s | %-40s | %11s | %-40s | %12s | %9s | %9s |\n", "scene", "quantity",
           "closed form", "engine", "measured", "error", "us/step"
    printf "|-----------|------------------------------------------|------------:|"
    printf "------------------------------------------|-------------:|----------:|----------:|\n"
    for (i = 1; i <= n; i++) printf "%s", rows[order[i]]
  }' "$tmp/rows.tsv"
cat <<'EOF'

   error: relative to the closed form (absolute, in the quantity's unit, where the closed form
   is 0). us/step: the wall clock of the scene's run over its steps (the tip: over its 16
   bisection runs); relaxsim's includes each step's certificate and statistics. The scenes:
   slide (a box pushed by 8 N, mu = 0.3: a = F/m - mu g), tip (a tall box pushed 0.3 m above the
   ground: it tips when F h > m g w / 2; 16 bisections on F, tipped: below -0.01 rad after 2 s),
   slip_roll (a disc thrown at 3 m/s: it rolls at 2/3 of it), ramp (a box on a 30 degree ramp,
   mu = 0.3: a = g (sin - mu cos)), stack (five 1 kg boxes: the contact under box k carries
   (6 - k) m g; the top box's drift after 2 s), pile (24 bodies dropped into a valley: the
   largest speed after 2 s, and the deepest overlap of the final poses). Box2D mixes friction
   as sqrt(mu1 mu2) and Chipmunk as mu1 mu2: each shape's coefficient is set so that every
   pair gets the scene's mu. Chipmunk's collision slop is set to 1e-4 m (its default, 0.1, is
   meant for pixels); Box2D's slop (0.005 m) and polygon skin (0.01 m) are compiled in: its
   stack stands on five skins less the slop, 5 x (2 x 0.01 - 0.005) = 0.075 m above the boxes'
   own heights, which is its top box's drift. Chipmunk's pile at 50 iterations is still rocking
   after 2 s (its largest speed grows with the iterations).
EOF
