#!/usr/bin/env python3
"""contract_margins.py: each bound of a scenario's contract against its floor and the worst error.

    scripts/contract_margins.py [--relaxsim build/relaxsim] [--kernels] [--strict] SCENARIO.ini ...

Runs `relaxsim compare` on each scenario (into a temporary directory), once, or with --kernels
once under every BLAS kernel scripts/blas_kernels.sh lists, and prints for every check of its
[expect] section the measured value, the error the check allows, the worst error measured (over
the kernels), the check's floor and the margin (allowed / worst error).

The rule every bound follows (CONTRIBUTING.md, "Contracts"):
  - a bound on a quantity of the NLP is at least the NLP's certificate tolerance (cert_tol) in
    that quantity's natural unit: an IPOPT answer is good to its certificate, not to the last bit
    of one machine's BLAS kernel;
  - a bound on a quantity of Lemke's is at least 64 unit roundoffs of the quantity's scale (its
    bound's value or its natural unit, the larger);
  - above that floor, a bound sits within about two orders of magnitude of the worst error
    measured under the kernels.
relaxsim writes each column check's natural unit and floor into summary.json (`unit`, `floor`);
a check is marked BELOW FLOOR when the error it allows (or, for a one-sided bound, its distance
from the measured value) is smaller than its floor, and LOOSE when it allows more than 100 times
both the worst error and the floor. --strict exits 1 when any check is BELOW FLOOR.
Standard library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def kernels(use_all):
    """[(name, {env})]: this machine's BLAS kernels (blas_kernels.sh), or the default alone."""
    if not use_all:
        return [('default', {})]
    out = subprocess.run([os.path.join(HERE, 'blas_kernels.sh')], check=True,
                         capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        name, assignments = line.split('\t', 1)
        found.append((name, dict(a.split('=', 1) for a in assignments.split())))
    return found


def allowed_error(text, actual):
    """(allowed, measured) errors of a two-sided check; the distance of a one-sided bound from
    the value (allowed) with 0 measured; None for a check that is no bound on a value."""
    if actual is None or (isinstance(actual, float) and math.isnan(actual)):
        return None
    m = re.match(r'(\S+) = (\S+) \+- (\S+?)(%?)$', text)
    if m:
        value, tol = float(m.group(2)), float(m.group(3))
        if m.group(4):
            tol = tol / 100.0 * abs(value)
        return tol, abs(actual - value)
    m = re.match(r'(shadow_max_abs|drift_max_abs|final_diff)\.\S+ = (\S+)$', text)
    if m:
        return float(m.group(2)), abs(actual)
    m = re.match(r'max_speed_(nlp|lemke)\.\S+ = (\S+)( from \S+)?$', text)
    if m:  # a speed that should be 0 over its window: the speed is the error
        return float(m.group(2)), abs(actual)
    m = re.match(r'(min|max)_(nlp|lemke)\.\S+ = (\S+)$', text)
    if m:
        return abs(float(m.group(3)) - actual), 0.0
    return None


def run(relaxsim, path, env):
    """summary.json of a comparison of path under env, or None."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([relaxsim, 'compare', path, '-o', out, '-q'], env={**os.environ, **env},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        try:
            with open(f'{out}/summary.json') as f:
                return json.load(f)
        except (OSError, ValueError):
            return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--relaxsim', default='build/relaxsim')
    ap.add_argument('--kernels', action='store_true',
                    help='run under every BLAS kernel of scripts/blas_kernels.sh')
    ap.add_argument('--strict', action='store_true', help='exit 1 if a check is below its floor')
    ap.add_argument('scenarios', nargs='+')
    args = ap.parse_args()
    ks = kernels(args.kernels)
    print('kernels: ' + ', '.join(k for k, _ in ks))
    loose = below = 0
    print(f'{"scenario / check":58s} {"on":6s} {"measured":>22s} {"allowed":>9s} {"worst":>9s}'
          f' {"floor":>9s} {"margin":>8s}')
    for path in args.scenarios:
        summaries = [s for s in (run(args.relaxsim, path, env) for _, env in ks) if s]
        if len(summaries) < len(ks):
            print(f'{path}: no summary under {len(ks) - len(summaries)} of the kernels '
                  '(the scenario does not run)')
            continue
        print(path)
        for i, c in enumerate(summaries[0]['contract']['checks']):
            runs = [s['contract']['checks'][i] for s in summaries]
            m = [allowed_error(r['check'], r['actual']) for r in runs]
            cells, flag = ('', '', '', ''), ''
            if all(m):
                allowed = min(a for a, _ in m)  # a one-sided bound's distance: the nearest run's
                worst = max(e for _, e in m)
                floor = max((r.get('floor') or 0.0) for r in runs)
                ratio = allowed / worst if worst > 0 else math.inf
                if floor and allowed < floor:
                    flag, below = '  BELOW FLOOR', below + 1
                elif worst > 0 and allowed > 100 * max(worst, floor):
                    flag, loose = '  LOOSE', loose + 1
                cells = (f'{allowed:9.2g}', f'{worst:9.2g}',
                         f'{floor:9.2g}' if floor else f'{"":9s}', f'{ratio:8.3g}')
            print(f'  {c["check"]:56s} {c["applies_to"]:6s} {c["actual"]!s:>22s} '
                  f'{cells[0]:>9s} {cells[1]:>9s} {cells[2]:>9s} {cells[3]:>8s}{flag}')
    print(f'\n{below} checks below their floor; {loose} error bounds more than 100 times both the '
          'worst error measured and the floor (an exact result, error 0, has margin inf: its '
          'bound is the rounding the check allows)')
    return 1 if args.strict and below else 0


if __name__ == '__main__':
    sys.exit(main())
