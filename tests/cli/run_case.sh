#!/usr/bin/env bash
# Runs one golden case of the ladle binary: tests/cli/<command>/<case>/ holds `args` (shell words,
# one line), optional `stdin`, and the expected `exit_code` plus `stdout` and/or `stderr`; a part
# without a file is not compared, but a case must hold exit_code and at least one of the other two.
# The command runs inside a scratch copy of the case folder; after/<file>, when present, is what
# <file> must hold once it ran. Set LADLE_UPDATE_GOLDEN=1 to rewrite them.
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
if [[ "${LADLE_UPDATE_GOLDEN:-0}" != 1 ]] &&
   { [[ ! -f "$case_dir/exit_code" ]] || { [[ ! -f "$case_dir/stdout" ]] && [[ ! -f "$case_dir/stderr" ]]; }; }; then
  echo "run_case: $case_dir has no expected exit_code and stdout/stderr (LADLE_UPDATE_GOLDEN=1 writes them)" >&2
  status=1
fi
for part in stdout stderr exit_code; do
  if [[ "${LADLE_UPDATE_GOLDEN:-0}" == 1 ]]; then
    cp "actual.$part" "$case_dir/$part"
  elif [[ -f "$case_dir/$part" ]] && ! diff -u "$case_dir/$part" "actual.$part"; then
    echo "run_case: $part differs for $case_dir" >&2
    status=1
  fi
done
# after/<file>: what <file> in the scratch folder must hold once the command ran (files it writes).
if [[ -d "$case_dir/after" ]]; then
  while IFS= read -r -d '' expected; do
    rel=${expected#"$case_dir/after/"}
    if [[ "${LADLE_UPDATE_GOLDEN:-0}" == 1 ]]; then
      cp "$rel" "$expected"
    elif ! diff -u "$expected" "$rel"; then
      echo "run_case: $rel differs from after/$rel for $case_dir" >&2
      status=1
    fi
  done < <(find "$case_dir/after" -type f -print0)
fi
exit $status
