#!/usr/bin/env bash
# cone_study.sh: what Stewart's polyhedral friction cone costs (note 000 section 2.4),
# measured with relaxsim run on problems/scenarios/point3d_planar_block.ini with no push: a 1 kg
# block slides on flat ground at 2 m/s along the angle theta, mu = 0.5, dt = 1 ms, 500 steps.
# The exact cone's answer (the discrete scheme: the speed falls by mu g dt per step along theta
# until the block stops; the NLP reproduces it, test_point3d) against the LCP with k = 4, 8, 16,
# 32, 64 directions, worst over theta at the same places of a sector between two directions:
# theta = s 360/k degrees, s = 0, 1/8, 1/4, 3/8, 1/2 (s = 0 on a direction, 1/2 on an edge's
# normal):
#   direction error   the largest |angle of the velocity - theta| over the sliding steps, degrees
#   stop error        |stopping point - exact one| / exact distance
#   force error       1 - |f_t| / (mu m g), the largest over the sliding steps (the polygon's
#                     friction is smaller where the velocity points between two directions)
# and each error's order in 1/k, fitted by least squares on log(error) against log(k). Prints a
# Markdown table; draws docs/cone_errors.png (the errors against k, log-log, with the fits) and
# docs/cone_paths.png (the paths at theta = 30 degrees for each k and the NLP, over the exact
# line). Builds with scripts/setup.sh first. Under a minute on 2 cores.
#   scripts/cone_study.sh [OUT_DIR]     (default out/cone_study; the pictures go to docs/)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
out=${1:-out/cone_study}
bin=$PWD/build/relaxsim
scen=problems/scenarios/point3d_planar_block.ini
mkdir -p "$out" docs
v0=2 mu=0.5 g=9.81 m=1 dt=1e-3 steps=500
fractions="0 0.125 0.25 0.375 0.5"
# the exact distance of the discrete scheme: dt (v_1 + ... + v_K), v_k = v0 - k mu g dt > 0
exact=$(awk -v v0=$v0 -v a="$(awk -v m=$mu -v g=$g -v d=$dt 'BEGIN{print m*g*d}')" -v dt=$dt \
  'BEGIN { s = 0; for (k = 1; v0 - k * a > 0; k++) s += dt * (v0 - k * a); printf "%.17g", s }')

run() { # backend k theta -> CSV path
  local csv="$out/$1_k$2_t$3.csv" rc=0
  # the scenario's contract is written for its own push and direction: with these overrides
  # `run` exits 1 on it (its lines go to the log); what counts here is that every step solved
  "$bin" run "$scen" --backend "$1" -q -o "$csv" --set input.uy=0 --set "model.directions=$2" \
    --set "run.steps=$steps" \
    --set "initial.xd=$(awk -v v=$v0 -v t="$3" 'BEGIN{printf "%.17g", v*cos(t*atan2(0,-1)/180)}')" \
    --set "initial.yd=$(awk -v v=$v0 -v t="$3" 'BEGIN{printf "%.17g", v*sin(t*atan2(0,-1)/180)}')" \
    2>>"$out/contract_lines.log" || rc=$?
  if [ "$rc" -gt 1 ] || ! awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i }
                                  NR > 1 && $c != "solved" { bad = 1 } END { exit bad }' "$csv"; then
    echo "cone_study.sh: the $1 run with k = $2 at $3 degrees failed (exit $rc, or a step not" \
         "solved): no table" >&2
    exit 1
  fi
  echo "$csv"
}

# trajectory CSV columns: step,t_s,ux,uy,uz,x,y,z,xd,yd,zd,fx,fy,fz,...
: > "$out/errors.dat"
: > "$out/by_angle.txt"
for k in 4 8 16 32 64; do
  worst_dir=0 worst_stop=0 worst_force=0
  row="| $k |"
  for s in $fractions; do
    t=$(awk -v s="$s" -v k="$k" 'BEGIN { printf "%.10g", s * 360 / k }')
    csv=$(run lemke "$k" "$t")
    read -r d s f < <(awk -F, -v t="$t" -v e="$exact" -v mu=$mu -v g=$g -v m=$m '
      BEGIN { pi = atan2(0, -1); a = t * pi / 180 }
      NR > 1 && sqrt($9^2 + $10^2) > 1e-6 {
        short = 1 - sqrt($12^2 + $13^2) / (mu * m * g); if (short > f) f = short
        dir = atan2($10, $9) - a; if (dir < 0) dir = -dir; if (dir > d) d = dir }
      END { x = $6; y = $7; ex = e * cos(a); ey = e * sin(a)
            printf "%.6g %.6g %.6g\n", d * 180 / pi, sqrt((x - ex)^2 + (y - ey)^2) / e, f }' "$csv")
    row="$row $(awk -v d="$d" -v s="$s" 'BEGIN { printf "%.3g / %.2g", d, s }') |"
    worst_dir=$(awk -v a="$worst_dir" -v b="$d" 'BEGIN{print (b > a ? b : a)}')
    worst_stop=$(awk -v a="$worst_stop" -v b="$s" 'BEGIN{print (b > a ? b : a)}')
    worst_force=$(awk -v a="$worst_force" -v b="$f" 'BEGIN{print (b > a ? b : a)}')
  done
  echo "$k $worst_dir $worst_stop $worst_force" >> "$out/errors.dat"
  echo "$row" >> "$out/by_angle.txt"
done

# the exact cone (NLP) at theta = 30 degrees, and the paths of every k there
nlp30=$(run nlp 8 30)
nlp_err=$(awk -F, -v e="$exact" 'END { pi = atan2(0, -1); a = 30 * pi / 180
  printf "%.2g", sqrt(($6 - e * cos(a))^2 + ($7 - e * sin(a))^2) / e }' "$nlp30")

# least-squares slope of log(error) against log(k): the error ~ C k^-p
fit() { awk -v c="$1" '$c > 0 { x = log($1); y = log($c); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
  END { b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
        printf "%.2f %.6g\n", -b, exp(a) }' "$out/errors.dat"; }
read -r p_dir c_dir < <(fit 2)
read -r p_stop c_stop < <(fit 3)
read -r p_force c_force < <(fit 4)

echo "The polygonal cone's cost: point3d_planar_block.ini, no push, v0 = $v0 m/s, worst over theta = s 360/k, s = ${fractions// /, }"
echo "(the exact cone, NLP, at 30 degrees: stopping point within $nlp_err of the discrete scheme's)"
echo
echo "| directions k | direction error (deg) | stopping point error (relative) | friction size error (relative) |"
echo "|-------------:|----------------------:|--------------------------------:|-------------------------------:|"
awk '{ printf "| %d | %.3g | %.3g | %.3g |\n", $1, $2, $3, $4 }' "$out/errors.dat"
echo "| fitted order p (error ~ k^-p) | $p_dir | $p_stop | $p_force |"
echo
echo "Bounds of a k-gon: direction pi/k (order 1), friction size 1 - cos(pi/k) ~ pi^2/(2 k^2) (order 2)."
echo
echo "Each k and direction theta = s 360/k: direction error (deg) / stopping point error (relative)"
echo
echo "| k | s = ${fractions// / | s = } |"
echo "|--:|$(for s in $fractions; do printf -- '--:|'; done)"
cat "$out/by_angle.txt"

cd "$out"
awk -v e="$exact" 'BEGIN { pi = atan2(0, -1); print "x,y"; print "0,0"
                           printf "%.9g,%.9g\n", e * cos(pi / 6), e * sin(pi / 6) }' > exact.csv
cat > plot.gp <<EOF
set terminal pngcairo noenhanced size 1000,650 font ',11'
set output 'cone_errors.png'
set logscale xy
set grid
set key outside right
set xlabel 'friction directions k'
set ylabel 'error (worst over 5 places in a sector)'
set xtics (4, 8, 16, 32, 64)
set title "Stewart's polyhedral cone against the exact one: errors and fitted orders"
plot 'errors.dat' using 1:2 with points pt 7 ps 1.5 lc rgb '#1f77b4' title 'direction, degrees', \
     $c_dir * x**(-$p_dir) with lines lc rgb '#1f77b4' dt (8,6) title 'fit: order $p_dir', \
     'errors.dat' using 1:3 with points pt 5 ps 1.5 lc rgb '#d62728' title 'stopping point, relative', \
     $c_stop * x**(-$p_stop) with lines lc rgb '#d62728' dt (8,6) title 'fit: order $p_stop', \
     'errors.dat' using 1:4 with points pt 9 ps 1.5 lc rgb '#2ca02c' title 'friction size, relative', \
     $c_force * x**(-$p_force) with lines lc rgb '#2ca02c' dt (8,6) title 'fit: order $p_force'
set output 'cone_paths.png'
unset logscale
set xtics auto
set size ratio -1
set key inside top left box opaque
set xrange [0:0.45]
set yrange [0:0.4]
set xlabel 'x (m)'
set ylabel 'y (m)'
set datafile separator ','
set title 'sliding paths from 2 m/s at 30 degrees (mu = 0.5, dt = 1 ms)'
plot 'exact.csv' skip 1 using 1:2 with lines lw 6 lc rgb '#cccccc' title 'exact: straight at 30 degrees (discrete scheme)', \
     'lemke_k4_t30.csv' skip 1 using 6:7 with lines lw 2 lc rgb '#d62728' title 'LCP, k = 4', \
     'lemke_k8_t30.csv' skip 1 using 6:7 with lines lw 2 lc rgb '#ff7f0e' title 'LCP, k = 8', \
     'lemke_k16_t30.csv' skip 1 using 6:7 with lines lw 2 lc rgb '#2ca02c' title 'LCP, k = 16', \
     'lemke_k32_t30.csv' skip 1 using 6:7 with lines lw 2 lc rgb '#9467bd' title 'LCP, k = 32', \
     'lemke_k64_t30.csv' skip 1 using 6:7 with lines lw 2 lc rgb '#17becf' title 'LCP, k = 64', \
     'nlp_k8_t30.csv' skip 1 using 6:7 with lines lw 2 dt (8,6) lc rgb '#1f77b4' title 'NLP, exact cone'
EOF
gnuplot plot.gp > plot.log 2>&1
cd - >/dev/null
cp "$out/cone_errors.png" "$out/cone_paths.png" docs/
echo
echo "docs/cone_errors.png, docs/cone_paths.png (gnuplot script: $out/plot.gp)"
