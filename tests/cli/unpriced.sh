#!/usr/bin/env bash
# bench/unpriced/ holds published runs ladle cannot price yet (bench/unpriced/README.md). Each must
# be refused, not priced as something else: `ladle calibrate --measurements FILE` exits 2 with
# nothing on standard output and one line on standard error, FILE:LINE:COL: error: WHAT, where
# WHAT is what the file's entry in bench/unpriced/README.md quotes (the missing recipe or GPU).
# With no file there it exits 77, which ctest reports as skipped.
set -u
shopt -s nullglob
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
for path in "$root"/bench/unpriced/*.yaml; do
  name=$(basename "$path")
  count=$((count + 1))
  (cd "$root/bench/unpriced" && "$bin" calibrate --measurements "$name" >"$work/stdout" 2>"$work/stderr")
  code=$?
  want=$(grep -E "^- \`$name\`" "$root/bench/unpriced/README.md" | sed -E 's/.*refused at `([^`]*)`.*/\1/')
  if [[ $code != 2 ]]; then
    echo "unpriced: $name: exit $code, expected 2" >&2
    status=1
  fi
  if [[ -s "$work/stdout" || "$(wc -l <"$work/stderr")" != 1 ]]; then
    echo "unpriced: $name: expected no output and one error line, got:" >&2
    cat "$work/stdout" "$work/stderr" >&2
    status=1
  fi
  if [[ -z "$want" || "$(grep -cE "^$name:[0-9]+:[0-9]+: error: " "$work/stderr")" != 1 ]] ||
     ! grep -qF ": error: $want" "$work/stderr"; then
    echo "unpriced: $name: expected '$name:LINE:COL: error: ${want:-<its README entry>}...', got:" >&2
    cat "$work/stderr" >&2
    status=1
  fi
done
if [[ $count == 0 ]]; then
  echo "unpriced: no run is waiting in bench/unpriced/; nothing to check" >&2
  exit 77
fi
exit $status
