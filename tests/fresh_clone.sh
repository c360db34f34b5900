#!/usr/bin/env bash
# fresh_clone.sh [--into DIR] [REPO [CMAKE_OPTION...]]: the repository stands on its own. Clones
# REPO (default: the checkout this script is in) into DIR/relaxsim, DIR an empty directory (default:
# a new temporary one, removed at the end), builds it there (Release, with the CMake options given)
# in DIR/relaxsim/build-release and runs the fast tests (ctest -L fast). Nothing beside the clone
# exists, so a build, a test, a script or a page that reads a path outside the repository fails
# here. With --into the clone and its build are kept: scripts/test.sh goes on in them. The clone is
# of the committed HEAD: uncommitted changes are not in it (a note says so).
set -euo pipefail
into=
if [ "${1:-}" = --into ]; then
  into=${2:?fresh_clone.sh: --into needs a directory}
  shift 2
fi
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
[ $# -gt 0 ] && shift
if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  echo "fresh_clone.sh: $repo is not a git checkout; nothing to clone" >&2
  exit 2
fi
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "fresh_clone.sh: note: uncommitted changes in $repo are not in the clone (it is of HEAD)"
fi
if [ -n "$into" ]; then
  if [ ! -d "$into" ] || [ -n "$(ls -A "$into")" ]; then
    echo "fresh_clone.sh: $into is not an empty directory" >&2
    exit 2
  fi
  root=$(cd "$into" && pwd)
else
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
fi
git clone --quiet --no-local "$repo" "$root/relaxsim"
echo "fresh_clone.sh: cloned $(git -C "$root/relaxsim" rev-parse --short HEAD) into $root/relaxsim" \
  "(beside it: $(ls -A "$root" | tr '\n' ' '))"
cmake -S "$root/relaxsim" -B "$root/relaxsim/build-release" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$root/relaxsim/build-release" -j"$(nproc)" >/dev/null
ctest --test-dir "$root/relaxsim/build-release" --output-on-failure -j"$(nproc)" -L fast
