#!/usr/bin/env python3
"""contract_margins.py: how far each bound of a scenario's contract is from what is measured.

    scripts/contract_margins.py [--relaxsim build/relaxsim] SCENARIO.ini ...

Runs `relaxsim compare` on each scenario (into a temporary directory) and prints, for every
check of its [expect] section, the measured value and the margin: the error a check allows
against the error measured (value +- tol, shadow/drift bounds, final_diff). A margin far above
100 is a bound that cannot catch a regression; the contracts keep each within about two orders
of magnitude of what is measured. Standard library only.
"""
import argparse
import json
import math
import re
import subprocess
import sys
import tempfile


def margin(text, actual):
    """(allowed, measured) errors of a check, or None when the check is not an error bound."""
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
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--relaxsim', default='build/relaxsim')
    ap.add_argument('scenarios', nargs='+')
    args = ap.parse_args()
    loose = 0
    print(f'{"scenario / check":62s} {"on":6s} {"measured":>24s} {"allowed":>9s} {"error":>9s}'
          f' {"margin":>8s}')
    for path in args.scenarios:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([args.relaxsim, 'compare', path, '-o', out, '-q'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            try:
                with open(f'{out}/summary.json') as f:
                    summary = json.load(f)
            except (OSError, ValueError):
                print(f'{path}: no summary (the scenario does not run)')
                continue
        print(path)
        for c in summary['contract']['checks']:
            m = margin(c['check'], c['actual'])
            cells = ('', '', '')
            if m:
                allowed, error = m
                ratio = allowed / error if error > 0 else math.inf
                loose += 100 < ratio < math.inf
                cells = (f'{allowed:9.2g}', f'{error:9.2g}', f'{ratio:8.3g}')
            print(f'  {c["check"]:60s} {c["applies_to"]:6s} {c["actual"]!s:>24s} '
                  f'{cells[0]:>9s} {cells[1]:>9s} {cells[2]:>8s}')
    print(f'\n{loose} error bounds more than 100 times the error measured (an exact result, error 0,\n'
          'has margin inf: its bound is the rounding the check allows)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
