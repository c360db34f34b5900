#!/bin/sh
# models_doc.sh: the list of models in docs/models.md is what `relaxsim models` prints, so that it
# cannot drift from the registry.
#   scripts/models_doc.sh [RELAXSIM]           rewrite the list in docs/models.md
#   scripts/models_doc.sh --check [RELAXSIM]   exit 1 (and show the difference) if it is stale
# RELAXSIM: the command to ask (default build/relaxsim). The list sits between the lines
# "<!-- relaxsim models: begin -->" and "<!-- relaxsim models: end -->", in a code block.
set -eu
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = "--check" ] && { check=1; shift; }
cli=${1:-build/relaxsim}
page=docs/models.md
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.page"' EXIT
"$cli" models > "$tmp"
awk -v list="$tmp" '
  /^<!-- relaxsim models: begin -->$/ { print; print "```"; while ((getline l < list) > 0) print l;
                                         print "```"; skip = 1; next }
  /^<!-- relaxsim models: end -->$/   { skip = 0 }
  !skip' "$page" > "$tmp.page"
grep -q '^<!-- relaxsim models: begin -->$' "$page" || { echo "$page: no begin marker" >&2; exit 2; }
if [ "$check" = 1 ]; then
  if ! diff -u "$page" "$tmp.page"; then
    echo "$page: the list of models is stale: run scripts/models_doc.sh" >&2
    exit 1
  fi
  echo "$page: the list of models is what relaxsim models prints"
else
  cp "$tmp.page" "$page"
fi
