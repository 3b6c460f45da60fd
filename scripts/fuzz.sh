#!/usr/bin/env bash
# fuzz.sh [SECONDS_PER_HARNESS] [BUILD_DIR]: builds the libFuzzer harnesses of every input reader
# (tests/fuzz/, clang with AddressSanitizer and UBSan, CMake option LADLE_FUZZ) and runs each for
# SECONDS (default 15), FUZZ_JOBS at a time (default 2), from a seed corpus of the repo's test
# data. Fails on any crash, sanitizer report, leak, uncaught exception, timeout or input that
# takes more than 2 GB. Findings are left as crash-*/leak-*/timeout-*/oom-* files in
# BUILD_DIR/findings/. FUZZ_TIMEOUT (seconds, default 10) is the limit per input; it is wall time,
# so on a machine busy with other work raise it, or it measures the machine's load.
# FUZZ_HARNESSES (names separated by blanks) runs only those; FUZZ_BUILD=0 runs the harnesses
# already built; FUZZ_RUNS=N stops a harness after N executions (libFuzzer's -runs) if that comes
# before SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
build=${2:-build-fuzz}
root=$PWD

if [[ ! -f $build/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLADLE_FUZZ=ON >/dev/null
fi
harnesses=(recipe model_config tokenizer conversation jinja launch_script layout_spec
           log_detect log_megatron log_megatron_bridge log_slime log_miles log_nemo log_jsonl log_megatron_golden)
[[ -f src/ladle/layout/job_args.hpp ]] && harnesses+=(job_args)  # `--args` and job scripts
if [[ -n ${FUZZ_HARNESSES:-} ]]; then read -r -a harnesses <<<"$FUZZ_HARNESSES"; fi
[[ ${FUZZ_BUILD:-1} == 0 ]] || cmake --build "$build" --target "${harnesses[@]/#/ladle_fuzz_}"

# seeds HARNESS: the repo's test data that harness reads, and the hostile inputs kept for it in
# tests/fuzz/seeds/HARNESS/ (the probes of past findings).
seeds() {
  [[ -d tests/fuzz/seeds/$1 ]] && find "tests/fuzz/seeds/$1" -type f
  case $1 in
    recipe) find recipes tests/data/recipe tests/cli -name '*.yaml' ;;
    model_config) find data/models tests/data/model tests/cli/model -name '*.json' ;;
    tokenizer) find tests/data/pack/tokenizers -name '*.json' ;;
    conversation) find tests/data/pack tests/cli/pack -name '*.jsonl' ;;
    jinja) find tools/reference/templates tests/data/pack -name '*.jinja' ;;  # the chat templates ladle ships
    launch_script) find tests/data/verify tests/cli/diff -type f ;;
    job_args) find tests/data/verify tests/data/jobs tests/cli/diff tests/cli/predict tests/cli/plan -type f \( -name '*.sh' -o -name 'args' \) ;;
    log_*) find tests/data/runlog tests/cli/steps tests/cli/score tests/cli/converge \
             \( -name '*.log' -o -name '*.jsonl' \) ;;
  esac
}

# max_len HARNESS: the longest input libFuzzer makes for that harness. Each bound holds several
# times the largest real input of its kind in the repo's test data (recipes about 8 KB, config.json
# and conversation lines under 2 KB, a spec a few dozen bytes), so every structure a reader knows
# fits, while a mutated input stays short enough to run thousands of times a second: under
# AddressSanitizer a harness costs about its input's length, and with 1 MB inputs the harnesses ran
# 50 to 1,400 inputs per second. Longer inputs (a log of millions of records, a 500 MB tokenizer)
# are the limits' business, tested in tests/util, tests/pack and tests/runlog and measured in
# bench/log_memory_bench. Seeds longer than the bound are cut to it.
max_len() {
  case $1 in
    layout_spec) echo 512 ;;
    conversation) echo 4096 ;;    # one conversation per line, a few lines per input
    model_config) echo 8192 ;;
    *) echo 16384 ;;              # recipes, tokenizers, launch scripts, job arguments, logs
  esac
}

mkdir -p "$build/findings"
run_one() {
  local name=$1
  local corpus=$build/corpus/$name
  mkdir -p "$corpus"
  seeds "$name" | while read -r f; do
    # Seeds over 1 MB are left out; libFuzzer cuts the others to -max_len.
    [[ -f $f && $(stat -c %s "$f") -le 1048576 ]] && cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-16)"
  done
  local log=$build/findings/$name.log
  if "$build/ladle_fuzz_$name" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
      -malloc_limit_mb=2048 -max_len="$(max_len "$name")" -print_final_stats=1 -artifact_prefix="$build/findings/$name-" -reload=0 ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
      "$corpus" >"$log" 2>&1; then
    echo "fuzz: $name: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') executions, no finding"
  else
    echo "fuzz: $name: FAILED (see $log)"
    tail -40 "$log"
    return 1
  fi
}
export -f run_one seeds max_len
# The sanitizers' options reach the harnesses through the environment (xargs, then bash).
# -reload=0: a harness runs alone on its corpus, so libFuzzer's rereading of the corpus folder
# for units other processes added (every second by default) finds nothing; it was about a tenth
# of the recipe harness's time (perf).
# malloc_context_size=4 keeps 4 frames of each allocation's stack instead of 30: recording them
# was about a tenth of a harness's time; run a finding again with the default for the whole stack.
export build seconds FUZZ_TIMEOUT FUZZ_RUNS UBSAN_OPTIONS=print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:malloc_context_size=4
printf '%s\n' "${harnesses[@]}" | xargs -P "${FUZZ_JOBS:-2}" -I{} bash -c 'run_one {}'
