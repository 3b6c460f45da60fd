#!/usr/bin/env bash
# Output that cannot be written is an error: with standard output on /dev/full (every write fails
# with ENOSPC), each command ladle --help lists, run as its first golden case that answers (exit 0,
# else 1) on standard output, must exit 2 and say so in one line, never 0 or 1 with its answer lost.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cli_dir=$(cd "$(dirname "$0")" && pwd)
if [[ ! -w /dev/full ]]; then
  echo "stdout_errors: no /dev/full to write to" >&2
  exit 77
fi
expected="ladle: error: writing standard output: No space left on device"
status=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME DIR ARGS...: runs the binary in DIR with stdout on /dev/full and checks the result.
run() {
  local name=$1 dir=$2
  shift 2
  local stdin=/dev/null
  [[ -f "$dir/stdin" ]] && stdin="$dir/stdin"
  (cd "$dir" && "$bin" "$@" <"$stdin" >/dev/full 2>"$work/stderr")
  local code=$?
  if [[ $code != 2 ]]; then
    echo "stdout_errors: $name: exit $code with standard output on /dev/full, expected 2" >&2
    status=1
  fi
  if [[ "$(grep -cxF "$expected" "$work/stderr")" != 1 || "$(tail -n 1 "$work/stderr")" != "$expected" ]]; then
    echo "stdout_errors: $name: standard error does not end with the one line '$expected':" >&2
    cat "$work/stderr" >&2
    status=1
  fi
}

commands=$("$bin" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
for command in $commands; do
  found=""
  for wanted in 0 1; do
    for case_dir in "$cli_dir/$command"/*/; do
      case_dir=${case_dir%/}
      [[ -f "$case_dir/args" && -s "$case_dir/stdout" && -f "$case_dir/exit_code" ]] || continue
      [[ "$(tr -d '[:space:]' <"$case_dir/exit_code")" == "$wanted" ]] || continue
      found=$case_dir
      break 2
    done
  done
  if [[ -z "$found" ]]; then
    echo "stdout_errors: '$command' has no golden case in tests/cli/$command/ that answers on standard output" >&2
    status=1
    continue
  fi
  scratch="$work/case"
  rm -rf "$scratch" && mkdir -p "$scratch" && cp -r "$found"/. "$scratch"/
  eval "set -- $(cat "$found/args")"
  run "$command/$(basename "$found")" "$scratch" "$@"
done
# The binary's own output, and an answer of "no" (exit 1) whose reason is lost.
run "--help" "$work" --help
run "--version" "$work" --version
run "ls --json --gpu b200 (no match)" "$work" ls --json --gpu b200
exit $status
