#!/bin/sh
# readme_examples.sh CLI SOURCE_DIR WORK_DIR: run the examples of the README and of docs/ as a
# reader would copy them: every line of their code blocks that starts with build/relaxsim or
# "$ build/relaxsim" (continuation lines included), page by page in the README's order (the
# README, the command pages, the other pages), in a scratch directory where build/relaxsim is
# the built command and problems/ and tests/ the repository's; the sweep file of
# docs/commands/batch.md's ```ini block (beside the base scenario it names); and the C program
# of docs/api.md's ```c block, compiled against this build's library and run. Each must exit 0 (a
# plot needs gnuplot: skipped when it is missing). Prints one line per example and a closing
# "N passed, N failed".
set -u
cli=$1 src=$2 work=$3/readme_examples
rm -rf "$work" && mkdir -p "$work/build" "$work/sweep" || exit 1
ln -s "$cli" "$work/build/relaxsim"
ln -s "$src/problems" "$work/problems"
ln -s "$src/tests" "$work/tests" # docs/commands/lcp.md solves a file of tests/data
# the commands: code-block lines starting with build/relaxsim (or "$ build/relaxsim"), joined
# over trailing '\'
for page in "$src/README.md" \
    $(for c in compare run replay check batch grad dataset study plot lcp; do
        echo "$src/docs/commands/$c.md"; done) "$src"/docs/*.md; do
  awk '/^```/{on=!on; next} on { sub(/^\$ /, ""); print }' "$page"
done |
  awk '{ if (cont) { cmd = cmd "\n" $0 } else { cmd = $0 }
         cont = ($0 ~ /\\$/)
         if (!cont && cmd ~ /^build\/relaxsim/) { gsub(/\n/, " ", cmd); gsub(/\\ /, " ", cmd); print cmd } }' \
  > "$work/commands.txt"
# the sweep file: the ```ini block of the batch page, its scenario copied beside it
awk '/^```ini/{on=1; next} /^```/{if (on) exit} on' "$src/docs/commands/batch.md" > "$work/sweep/readme_sweep.ini"
base=$(sed -n 's/^scenario *= *\([^ #;]*\).*/\1/p' "$work/sweep/readme_sweep.ini")
cp "$src/problems/sweeps/$base" "$work/sweep/"
echo "build/relaxsim batch sweep/readme_sweep.ini -j 2 -q -o out/readme_sweep" >> "$work/commands.txt"
# the library example: the ```c block of the API page, built against this build's library
awk '/^```c$/{on=1; next} /^```/{if (on) exit} on' "$src/docs/api.md" > "$work/example.c"
libdir=$(dirname "$cli")
sanitize=""
nm -D "$libdir/librelaxsim.so" 2>/dev/null | grep -q __asan_init && sanitize="-fsanitize=address,undefined"
echo "cc -std=c11 -Wall -Werror $sanitize -I$src/include example.c -L$libdir -lrelaxsim -o example && LD_LIBRARY_PATH=$libdir ./example" >> "$work/commands.txt"
passed=0 failed=0
cd "$work" || exit 1
while IFS= read -r cmd; do
  case "$cmd" in *" plot "*) command -v gnuplot >/dev/null || { echo "skip  $cmd"; continue; } ;; esac
  if sh -c "$cmd" >/dev/null 2>"$work/err.txt"; then
    echo "ok    $cmd"; passed=$((passed + 1))
  else
    echo "FAIL  $cmd"; sed 's/^/      /' "$work/err.txt"; failed=$((failed + 1))
  fi
done < "$work/commands.txt"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
