#!/usr/bin/env bash
# Runs one golden case of the ladle binary: tests/cli/<command>/<case>/ holds `args` (shell words,
# one line), optional `stdin`, and the expected `stdout`, `stderr` and `exit_code` (each optional).
# The command runs inside a scratch copy of the case folder. Set LADLE_UPDATE_GOLDEN=1 to rewrite them.
set -u
bin=$1
case_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$case_dir"/. "$work"/
cd "$work"
eval "set -- $(cat args)"
if [[ -f stdin ]]; then
  "$bin" "$@" <stdin >actual.stdout 2>actual.stderr
else
  "$bin" "$@" </dev/null >actual.stdout 2>actual.stderr
fi
echo $? >actual.exit_code
status=0
for part in stdout stderr exit_code; do
  if [[ "${LADLE_UPDATE_GOLDEN:-0}" == 1 ]]; then
    cp "actual.$part" "$case_dir/$part"
  elif [[ -f "$case_dir/$part" ]] && ! diff -u "$case_dir/$part" "actual.$part"; then
    echo "run_case: $part differs for $case_dir" >&2
    status=1
  fi
done
exit $status
