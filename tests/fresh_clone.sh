#!/usr/bin/env bash
# fresh_clone.sh [REPO]: the repository stands on its own. Clones REPO (default: the checkout this
# script is in) into a new temporary directory that holds nothing else, builds it there and runs
# the fast tests (ctest -L fast). Nothing beside the clone exists, so a build, a test, a script or
# a page that reads a path outside the repository fails here. The clone is of the committed HEAD:
# uncommitted changes are not in it (a warning says so).
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  echo "fresh_clone.sh: $repo is not a git checkout; nothing to clone" >&2
  exit 2
fi
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "fresh_clone.sh: note: uncommitted changes in $repo are not in the clone (it is of HEAD)"
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
git clone --quiet --no-local "$repo" "$root/relaxsim"
echo "fresh_clone.sh: cloned $(git -C "$root/relaxsim" rev-parse --short HEAD) into $root/relaxsim" \
  "(beside it: $(ls -A "$root" | tr '\n' ' '))"
cmake -S "$root/relaxsim" -B "$root/relaxsim/build" -DCMAKE_BUILD_TYPE=Release \
  -DRS_BUILD_BENCH=OFF >/dev/null
cmake --build "$root/relaxsim/build" -j"$(nproc)" >/dev/null
ctest --test-dir "$root/relaxsim/build" --output-on-failure -j"$(nproc)" -L fast
