#!/usr/bin/env bash
# grad_tables.sh: the README's gradient tables and picture, measured (relaxsim grad):
#   1. point2d's default scenario: d final x / d (mu, xd0, z0, m) by the LCP's forward mode, the
#      NLP's KKT sensitivity and central differences;
#   2. the NLP's distance from the differences as IPOPT's tol shrinks (the relaxation's bias);
#   3. docs/grad_sweep.png: a sweep of mu across the stick/slip switch of the landing step.
# Builds with scripts/setup.sh first. About a minute on 2 cores.
#   scripts/grad_tables.sh [OUT_DIR]     (default out/grad_tables; the picture goes to docs/)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
out=${1:-out/grad_tables}
bin=build/relaxsim
scen=problems/scenarios/point2d_friction.ini
mkdir -p "$out" docs

# gradients.csv columns: output,key,value,lcp,nlp,fd,fd_step,rel_lcp_fd,rel_nlp_fd,switch_step,
# verdict,fd_nlp,rel_nlp_fd_nlp
echo "Table 1: d x_m@1199 / d key for $scen (IPOPT tol 1e-10); rel: |A - FD| relative, as in the verdicts"
echo
"$bin" grad "$scen" --wrt mu,xd,z,m --of x -q -o "$out/t1"
echo "| key | LCP (forward mode) | NLP (KKT sensitivity) | FD (central, h) | rel LCP | rel NLP | verdict |"
echo "|-----|-------------------:|----------------------:|----------------:|--------:|--------:|---------|"
awk -F, 'NR > 1 { printf "| %s | %.10g | %.10g | %.10g (h %.2g) | %.1e | %.1e | %s |\n",
                  $2, $4, $5, $6, $7, $8, $9, $11 }' "$out/t1/gradients.csv"
echo

echo "Table 2: the NLP gradient's distance from the differences as IPOPT's tol shrinks"
echo
echo "| nlp.tol | rel NLP, mu | rel NLP, xd | rel NLP, z | rel NLP, m | rel LCP (largest) |"
echo "|--------:|------------:|------------:|-----------:|-----------:|------------------:|"
for tol in 1e-6 1e-8 1e-10 1e-12; do
  "$bin" grad "$scen" --wrt mu,xd,z,m --of x -q -o "$out/t2_$tol" --set "nlp.tol=$tol" || true
  awk -F, -v tol="$tol" 'NR > 1 { r[NR - 1] = $9; l = ($8 > l ? $8 : l) }
      END { printf "| %s | %.1e | %.1e | %.1e | %.1e | %.1e |\n", tol, r[1], r[2], r[3], r[4], l }' \
      "$out/t2_$tol/gradients.csv"
done
echo

echo "Picture: docs/grad_sweep.png, mu across the landing step's stick/slip switch (nlp.tol 1e-6)"
"$bin" grad "$scen" --wrt mu --of xd@451,x --sweep mu=0.2309:0.2313:41 --set nlp.tol=1e-6 \
  --fd-nlp --fd-nlp-step 2e-5 -q -o "$out/sweep"
"$bin" plot "$out/sweep" >/dev/null
cp "$out/sweep/grad_sweep.png" docs/grad_sweep.png
awk -F, 'NR > 1 && $2 == "xd_mps@451" { n++; if ($12 == "non_smooth") s++
           if ($5 != 0) slide++ } END { printf "  %d values of mu: the LCP gradient of xd@451 is nonzero (sliding) at %d, 0 (stuck) at the others\n", n, slide }' \
  "$out/sweep/sweep.csv"
