#!/usr/bin/env bash
# One meaning per exit code (src/ladle/cli/exit_code.hpp): 0 yes/done, 1 the answer is "no", 2 bad
# input or usage. Walks every command `ladle --help` lists through its golden cases in
# tests/cli/<command>/ and requires a case exiting 0 and one exiting 2, plus one exiting 1 for
# each command whose answer can be "no"; no case may exit with any other code. The golden cases
# themselves (run by run_case.sh) check what each path prints.
set -u
bin=$1
cli_dir=$(cd "$(dirname "$0")" && pwd)
# Commands whose answer can be "no", and what "no" means for each.
declare -A no_answer=(
  [plan]="no layout fits"
  [predict]="the layout does not fit"
  [check]="a rule is broken"
  [fmt]="--check: a file is not canonical"
  [ls]="no recipe matches"
  [converge]="the candidate's loss does not follow the reference"
  [diff]="the two differ in a way that changes the result"
  [numerics]="a component test failed"
)
status=0
commands=$("$bin" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
if [[ -z "$commands" ]]; then
  echo "exit_codes: ladle --help lists no subcommands" >&2
  exit 1
fi
for command in $commands; do
  dir="$cli_dir/$command"
  codes=" "
  for code_file in "$dir"/*/exit_code; do
    [[ -f "$code_file" ]] || continue
    code=$(tr -d '[:space:]' <"$code_file")
    case "$code" in
      0 | 1 | 2) codes+="$code " ;;
      *)
        echo "exit_codes: $code_file: exit code '$code' has no meaning (0, 1 or 2)" >&2
        status=1
        ;;
    esac
  done
  wanted="0 2"
  [[ -n "${no_answer[$command]:-}" ]] && wanted="0 1 2"
  for code in $wanted; do
    if [[ "$codes" != *" $code "* ]]; then
      echo "exit_codes: '$command' has no golden case in tests/cli/$command/ exiting $code" >&2
      status=1
    fi
  done
done
# The binary itself: --version is an answer, a misspelt command is bad usage.
"$bin" --version >/dev/null 2>&1 || { echo "exit_codes: ladle --version did not exit 0" >&2; status=1; }
"$bin" versoin >/dev/null 2>&1
[[ $? == 2 ]] || { echo "exit_codes: a misspelt command did not exit 2" >&2; status=1; }
exit $status
