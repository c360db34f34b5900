#!/usr/bin/env python3
"""unknown_friction.py: the unknown-friction study's first figure (`relaxsim study
unknown-friction`, note 001 section 3.2), reproduced from Python through relaxsim's library.

The sliding block of sliding_block_traditional.ini (2 m/s, pushed by 1 N, true mu = 0.5: it
slides 0.52 s, then sticks) is observed by its Lemke trajectory. For a guess mu, the loss is
the sum over the steps of the squared position errors of the Lemke trajectory with that mu
against the observation: L(mu) on a log grid over [0.01, 10] (61 points, as the study), and a
golden-section search of L on [0.001, 10] until the bracket is below 1e-10 mu.

Writes OUT/unknown_friction_python.dat (the curve), OUT/golden_python.dat (the search) and,
with gnuplot, OUT/unknown_friction_python.png. Exit 0 when the curve's smallest value is at
the grid point nearest the truth and the search ends within 1e-9 of it (relative; the study's
C search: 1.2e-11), 1 otherwise.

    PYTHONPATH=build/python python3 examples/unknown_friction.py [OUT] [SCENARIO]
"""
import os
import shutil
import subprocess
import sys

import numpy as np

import relaxsim

out = sys.argv[1] if len(sys.argv) > 1 else "out/unknown_friction_python"
path = sys.argv[2] if len(sys.argv) > 2 else "problems/scenarios/sliding_block_traditional.ini"
os.makedirs(out, exist_ok=True)

base = relaxsim.Scenario(path)
mu_true = base.params["mu"]
ix = base.state_names.index("x_m")


def positions(mu):
    """The Lemke trajectory's positions with friction coefficient mu."""
    sc = relaxsim.Scenario(path, set={"model.mu": mu})
    run = relaxsim.Simulation(sc, "lemke").run(sc.steps)
    if not run.ok.all():
        raise RuntimeError("a Lemke step failed at mu = %g" % mu)
    return run.states[:, ix]


observed = positions(mu_true)


def loss(mu):
    return float(np.sum((positions(mu) - observed) ** 2))


# the loss curve
grid = 0.01 * (10.0 / 0.01) ** (np.arange(61) / 60.0)
curve = np.array([loss(mu) for mu in grid])

# golden-section search, as the study's
r = (np.sqrt(5.0) - 1.0) / 2.0
a, b = 1e-3, 10.0
x1, x2 = b - r * (b - a), a + r * (b - a)
f1, f2 = loss(x1), loss(x2)
path_mu = [(a + b) / 2]
while b - a > 1e-10 * (a + b) / 2 and len(path_mu) < 240:
    if f1 <= f2:
        b, x2, f2 = x2, x1, f1
        x1 = b - r * (b - a)
        f1 = loss(x1)
    else:
        a, x1, f1 = x1, x2, f2
        x2 = a + r * (b - a)
        f2 = loss(x2)
    path_mu.append((a + b) / 2)
mu_fit = (a + b) / 2
errors = np.abs(np.array(path_mu) - mu_true) / mu_true

np.savetxt(os.path.join(out, "unknown_friction_python.dat"), np.column_stack([grid, curve]),
           header="mu loss_m2 (Lemke trajectories against the observation at mu = %g)" % mu_true)
np.savetxt(os.path.join(out, "golden_python.dat"),
           np.column_stack([np.arange(len(errors)), np.maximum(errors, 1e-17)]),
           header="iteration relative_error_of_the_bracket_midpoint")

nearest = int(np.argmin(np.abs(np.log(grid / mu_true))))
ok = int(np.argmin(curve)) == nearest and abs(mu_fit - mu_true) <= 1e-9 * mu_true
print("observed: %s, true mu = %g, %d steps" % (os.path.basename(path), mu_true, base.steps))
print("loss curve: smallest %.3g m^2 at mu = %.4g (grid point nearest the truth: %.4g)"
      % (curve.min(), grid[int(np.argmin(curve))], grid[nearest]))
print("golden section: mu = %.12g after %d iterations, relative error %.2g"
      % (mu_fit, len(path_mu) - 1, abs(mu_fit - mu_true) / mu_true))

# the figure, by gnuplot without a shell; every string in the script is this file's own
if shutil.which("gnuplot"):
    script = """set terminal pngcairo size 1200,480 font ",10"
set output "unknown_friction_python.png"
set multiplot layout 1,2 title "Fitting the sliding block's mu from Python (relaxsim's library, Lemke trajectories)" noenhanced
set logscale xy
set format y "10^{%%L}"
set grid
set xlabel "mu"
set ylabel "loss: sum of squared position errors (m^2)"
set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dashtype 2 lc rgb "gray40"
plot "unknown_friction_python.dat" using 1:2 with linespoints pt 7 ps 0.5 lc rgb "#1f77b4" title "L(mu)"
unset arrow
unset logscale x
set xlabel "iteration"
set ylabel "|mu - mu_{true}| / mu_{true}"
plot "golden_python.dat" using 1:2 with points pt 7 ps 0.5 lc rgb "#2ca02c" title "golden section"
unset multiplot
""" % (mu_true, mu_true)
    done = subprocess.run(["gnuplot"], input=script, text=True, cwd=out, capture_output=True)
    if done.returncode != 0:
        print("gnuplot failed: %s" % done.stderr.strip())
        ok = False
    else:
        print("wrote %s" % os.path.join(out, "unknown_friction_python.png"))
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
