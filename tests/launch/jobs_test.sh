#!/usr/bin/env bash
# Runs every kind of job `ladle plan --emit` writes (slime, miles, Megatron-LM, Megatron-Bridge;
# one and two nodes; BF16 and FP8; plain and --slurm) with stand-ins for python3, torchrun, ray,
# srun, scontrol and ssh on PATH that record their argv and environment, and checks that:
#   - the script passes `bash -n` and shellcheck;
#   - the engine's entry point receives exactly the arguments `ladle plan --json` gives the layout
#     (every base and layout argument, the model's arguments in place of "${MODEL_ARGS[@]}");
#   - a multi-node slime/miles job starts Ray on every node and submits once;
#   - FP8 jobs carry the FP8 flags, dense models no MoE flags, CP layouts of DSA models --allgather-cp;
#   - a missing input stops the job with one line and exit 2;
#   - `ladle diff BASE EMITTED` shows no math-changing difference for every catalog recipe;
#   - hostile arguments (flag names and values holding $(...), backticks, $5, $$, quotes and
#     newlines; a base file whose name holds a newline) reach the entry point as their literal text,
#     and neither the job nor plan --json's args evaluated by a shell run anything (issue 29).
# Usage: jobs_test.sh LADLE_BINARY
set -uo pipefail
ladle=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# --- stand-ins ------------------------------------------------------------------------------
bin=$work/bin
mkdir -p "$bin"
# Each call is written to its own file (background Ray workers run while the job goes on), named
# so that sorting the names restores the order of the calls; collect_calls joins them.
# With LADLE_STUB_ARGV set, each call's argv is also appended there NUL-separated after "CALL" and
# the tool's name: exact even for words that hold newlines.
record='if [[ -n "${LADLE_STUB_ARGV:-}" ]]; then printf "%s\0" CALL "$(basename "$0")" "$@" >> "$LADLE_STUB_ARGV"; fi
  mkdir -p "$LADLE_STUB_LOG.d"; part="$LADLE_STUB_LOG.d/$(date +%s%N).$$";
  { printf "CALL %s\n" "$(basename "$0")"; for a in "$@"; do printf "ARG %s\n" "$a"; done;
  printf "ENV CUDA_DEVICE_MAX_CONNECTIONS=%s\n" "${CUDA_DEVICE_MAX_CONNECTIONS-}"; printf "END\n"; } > "$part.tmp";
  mv "$part.tmp" "$part"'
collect_calls() {  # LOG
  if [[ -d "$1.d" ]]; then find "$1.d" -type f ! -name '*.tmp' | sort | xargs cat > "$1"; else : > "$1"; fi
}
for tool in torchrun ray; do
  printf '#!/bin/bash\n%s\n' "$record" > "$bin/$tool"
done
cat > "$bin/python3" <<STUB
#!/bin/bash
if [[ "\${1:-}" == *model_args_utils.py ]]; then echo "--num-layers 2 --hidden-size 64"; exit 0; fi
$record
STUB
cat > "$bin/srun" <<STUB
#!/bin/bash
$record
while [[ \$# -gt 0 ]]; do
  case \$1 in -w|-N|-n) shift 2 ;; -*) shift ;; *) break ;; esac
done
exec "\$@"
STUB
cat > "$bin/ssh" <<STUB
#!/bin/bash
$record
shift
exec "\$@"
STUB
cat > "$bin/scontrol" <<'STUB'
#!/bin/bash
for i in $(seq 1 "${LADLE_STUB_NODES:-1}"); do echo "node$i"; done
STUB
chmod +x "$bin"/*

# --- inputs every job may name ------------------------------------------------------------------
inputs=$work/inputs
mkdir -p "$inputs"/{slime/scripts/models,miles,megatron,bridge,hf,dist,ckpt,tok,out}
for name in qwen3-30B-A3B llama3.1-8B-Instruct glm5.2-744B-A40B; do
  echo 'MODEL_ARGS=(--num-layers 2 --hidden-size 64)' > "$inputs/slime/scripts/models/$name.sh"
done
touch "$inputs/rows.jsonl" "$inputs/data.bin" "$inputs/data.idx"
printf 'node1\nnode2\n' > "$inputs/hostfile"
job_env=(SLIME_DIR="$inputs/slime" MILES_DIR="$inputs/miles" MEGATRON_DIR="$inputs/megatron"
         BRIDGE_DIR="$inputs/bridge" HF_CKPT="$inputs/hf" TORCH_DIST="$inputs/dist" SFT_DATA="$inputs/rows.jsonl"
         DATA_PATH="$inputs/data" TOKENIZER="$inputs/tok" CHECKPOINT="$inputs/ckpt" OUTPUT_DIR="$inputs/out"
         KERNEL_CACHE="$inputs/out/kernels" PATH="$bin:$PATH")

# The `args` string of the first layout of `ladle plan --json` (JSON unescaped for our content).
json_args() { sed -n 's/^ *"args": "\(.*\)",\{0,1\}$/\1/p' | head -n 1 | sed 's/\\"/"/g; s/\\\\/\\/g'; }

# The recorded argv of the entry point: the words after the entry script in the last call of $1.
entry_argv() {  # LOG TOOL ENTRY
  awk -v tool="$2" -v entry="$3" '
    /^CALL / { cur = ($2 == tool); n = 0; seen = 0; delete words; next }
    cur && /^ARG / { w = substr($0, 5); if (seen) words[++n] = w; else if (w ~ entry "$") seen = 1; next }
    cur && /^END/ { if (seen) { out = ""; for (i = 1; i <= n; i++) out = out w_sep(i) words[i]; last = out } }
    function w_sep(i) { return i == 1 ? "" : "\n" }
    END { print last }' "$1"
}

check_job() {  # MODEL ENGINE GPUS PRECISION SLURM(0/1) ENTRY_TOOL ENTRY
  local model=$1 engine=$2 gpus=$3 precision=$4 slurm=$5 tool=$6 entry=$7
  local name="$model-$engine-$gpus-$precision-slurm$slurm"
  local dir=$work/$name
  mkdir -p "$dir"
  local flags=(plan "$model" --gpu h200 --gpus "$gpus" --top 1 --engine "$engine" --precision "$precision")
  ((slurm)) && flags+=(--slurm)
  if ! "$ladle" "${flags[@]}" --emit "$dir/job.sh" >/dev/null 2>"$dir/emit.err"; then
    fail "$name: ladle plan --emit: $(cat "$dir/emit.err")"
    return
  fi
  "$ladle" "${flags[@]}" --json > "$dir/plan.json"
  bash -n "$dir/job.sh" || fail "$name: bash -n"
  if command -v shellcheck >/dev/null; then
    shellcheck "$dir/job.sh" > "$dir/shellcheck.txt" || fail "$name: shellcheck: $(head -n 5 "$dir/shellcheck.txt")"
  else
    echo "note: shellcheck is not installed (scripts/setup.sh installs it); skipped" >&2
  fi
  local run_env=("${job_env[@]}" LADLE_STUB_LOG="$dir/calls.log")
  local nodes=$(( (gpus + 7) / 8 ))
  local run_args=()
  if ((slurm)); then
    run_env+=(SLURM_JOB_ID=1 SLURM_JOB_NODELIST="node[1-$nodes]" LADLE_STUB_NODES="$nodes")
  elif ((nodes > 1)); then
    run_env+=(HOSTFILE="$inputs/hostfile")
    run_args=(--master-addr node1)
  fi
  if ! (cd "$dir" && env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST "${run_env[@]}" bash job.sh "${run_args[@]}" \
        >"$dir/job.out" 2>"$dir/job.err"); then
    fail "$name: the job failed: $(tail -n 3 "$dir/job.err")"
    return
  fi
  # Background Ray workers (srun ... &) may still be writing: wait for them, boundedly.
  local starts=0
  for _ in $(seq 50); do
    collect_calls "$dir/calls.log"
    starts=$(awk '/^CALL / { ray = ($2 == "ray") } ray && /^ARG start$/ { n++ } END { print n + 0 }' "$dir/calls.log")
    [[ "$family" != slime || $starts -ge $nodes ]] && break
    sleep 0.1
  done
  # The expected words: the plan's args for this layout, expanded as the job's shell would.
  local args
  args=$(json_args < "$dir/plan.json")
  [[ -n "$args" ]] || { fail "$name: plan --json has no args"; return; }
  local expected
  # MODEL_ARGS: the job's own array where it writes the model's architecture arguments, else the
  # stub file's (a job that sources MODEL_ARGS_FILE).
  local model_args
  model_args=$(awk '/^MODEL_ARGS=\($/ { on = 1 } on { print } on && /^\)$/ { exit }' "$dir/job.sh")
  [[ -n "$model_args" ]] || model_args='MODEL_ARGS=(--num-layers 2 --hidden-size 64)'
  expected=$(env "${job_env[@]}" bash -c "$model_args"'
    eval "words=($1)"; printf "%s\n" "${words[@]}"' _ "$args")
  local actual
  actual=$(entry_argv "$dir/calls.log" "$tool" "$entry")
  if [[ "$actual" != "$expected" ]]; then
    fail "$name: the entry point's arguments differ from plan --json's args"
    diff <(echo "$expected") <(echo "$actual") | head -n 10 >&2
  fi
  if [[ "$family" == slime ]]; then
    [[ $starts -eq $nodes ]] || fail "$name: ray start ran $starts times for $nodes nodes"
    local submits
    submits=$(awk '/^CALL / { ray = ($2 == "ray") } ray && /^ARG submit$/ { n++ } END { print n + 0 }' "$dir/calls.log")
    [[ $submits -eq 1 ]] || fail "$name: ray job submit ran $submits times"
    grep -q '^ARG --runtime-env-json=.*CUDA_DEVICE_MAX_CONNECTIONS.*: .1.' "$dir/calls.log" ||
      fail "$name: the runtime env does not carry the base's CUDA_DEVICE_MAX_CONNECTIONS=1"
  else
    grep -q '^ENV CUDA_DEVICE_MAX_CONNECTIONS=1$' "$dir/calls.log" || fail "$name: torchrun ran without the base's env"
    if ((nodes > 1)); then
      grep -q '^ARG --rdzv-endpoint$' "$dir/calls.log" || fail "$name: multi-node torchrun has no rendezvous"
    fi
  fi
  if [[ "$precision" == fp8 ]]; then
    if [[ "$engine" == bridge ]]; then
      grep -qE '^ARG mixed_precision(=bf16_with_fp8|\.fp8=)' "$dir/calls.log" || fail "$name: an FP8 plan without FP8 precision"
    else
      grep -q '^ARG --fp8-format$' "$dir/calls.log" || fail "$name: an FP8 plan without --fp8-format"
    fi
  fi
  if [[ "$model" == llama-3.1-8b ]] && grep -qE '^ARG --(moe-|expert-)' "$dir/calls.log"; then
    fail "$name: a dense model got MoE arguments"
  fi
  if ((slurm)); then
    grep -q '^#SBATCH --nodes=' "$dir/job.sh" && grep -q '^#SBATCH --exclusive' "$dir/job.sh" &&
      grep -q '^#SBATCH --time=' "$dir/job.sh" && grep -q '^#SBATCH --output=' "$dir/job.sh" &&
      grep -q "^#SBATCH --gpus-per-node=" "$dir/job.sh" || fail "$name: the sbatch header is incomplete"
    ((nodes > 1)) && ! grep -q '^CALL srun' "$dir/calls.log" && fail "$name: a multi-node sbatch job without srun"
  fi
  if grep -qE 'pkill|killall|ray stop' "$dir/job.sh"; then fail "$name: the job kills processes it did not start"; fi
}

for engine in slime miles megatron bridge; do
  case $engine in
    slime | miles) family=slime; tool=ray ;;
    *) family=megatron; tool=torchrun ;;
  esac
  case $engine in
    slime) entry=train_async.py ;;
    miles) entry=train.py ;;
    megatron) entry=pretrain_gpt.py ;;
    bridge) entry=run_recipe.py ;;
  esac
  for gpus in 8 16; do
    for precision in bf16 fp8; do
      for slurm in 0 1; do
        check_job qwen3-30b-a3b "$engine" "$gpus" "$precision" "$slurm" "$tool" "$entry"
      done
    done
  done
  if [[ "$engine" != bridge ]]; then
    check_job llama-3.1-8b "$engine" 16 bf16 0 "$tool" "$entry"
  fi
done
# GLM-5.2 on Bridge: its complete library recipe (--recipe), not a model stem.
check_job glm-5.2 bridge 128 bf16 1 torchrun run_recipe.py
grep -q -- '--recipe glm52_pretrain_416gpu_h100_bf16_config' "$work/glm-5.2-bridge-128-bf16-slurm1/job.sh" ||
  fail "glm-5.2 on bridge: no --recipe selection"

# A CP layout of a DSA model on slime carries --allgather-cp (the planner picks CP 2 for GLM-5.2 on 128).
family=slime
"$ladle" plan glm-5.2 --gpu h200 --gpus 128 --top 1 --engine slime --emit "$work/glm.sh" >/dev/null
if grep -q -- '--context-parallel-size [2-9]' "$work/glm.sh" && ! grep -q -- '--allgather-cp' "$work/glm.sh"; then
  fail "glm-5.2 slime: a CP layout without --allgather-cp"
fi

# A missing input stops the job at once, with one line.
mkdir -p "$work/missing"
"$ladle" plan qwen3-30b-a3b --gpu h200 --gpus 8 --top 1 --engine slime --emit "$work/missing/job.sh" >/dev/null
without_hf=()
for kv in "${job_env[@]}"; do [[ $kv == HF_CKPT=* ]] || without_hf+=("$kv"); done
(cd "$work/missing" && env -u HF_CKPT "${without_hf[@]}" LADLE_STUB_LOG="$work/missing/calls.log" bash job.sh \
   >/dev/null 2>"$work/missing/err")
status=$?
[[ $status -eq 2 ]] || fail "a job without HF_CKPT exited $status, not 2"
[[ $(wc -l < "$work/missing/err") -eq 1 ]] && grep -q '^ladle job: HF_CKPT is not set: ' "$work/missing/err" ||
  fail "a job without HF_CKPT said: $(cat "$work/missing/err")"
[[ ! -e "$work/missing/calls.log.d" ]] || fail "a job without HF_CKPT started something"

# plan --emit --base then diff: no math-changing difference, for every catalog recipe.
for base in glm-5.2-744b-a40b/h200/attune-tp4-pp4 glm-5.2-744b-a40b/h200/attune-tp8-pp4 \
            glm-4.7-flash/h200/attune-tp1-pp1-ep8; do
  case $base in
    glm-5.2*) model=glm-5.2; gpus=128; engine=slime ;;
    *) model=glm-4.7-flash; gpus=8; engine=miles ;;
  esac
  for slurm in "" --slurm; do
    out=$work/diff-$(basename "$base")$slurm.yaml
    "$ladle" plan "$model" --gpu h200 --gpus "$gpus" --top 1 --engine "$engine" --base "$base" $slurm --emit "$out" \
      >/dev/null || { fail "$base: plan --emit --base"; continue; }
    "$ladle" diff "$base" "$out" --json > "$out.diff.json"
    grep -q '"configuration": "pass"' "$out.diff.json" || fail "$base$slurm: diff of the emitted recipe does not pass"
    grep -q '"class": "\(math_changing\|unclassified\|precision_changing\)"' "$out.diff.json" &&
      fail "$base$slurm: diff shows a difference that is not layout-class: $(grep -B6 '"class": "\(math\|uncl\|prec\)' "$out.diff.json" | grep '"flag"' | head -n 3)"
  done
done

# predict --emit: the recipe predicted is the base when it drives the engine's family.
"$ladle" predict --recipe attune-tp1-pp1-ep8 --engine miles --emit "$work/predicted.yaml" >/dev/null ||
  fail "predict --emit"
"$ladle" diff glm-4.7-flash/h200/attune-tp1-pp1-ep8 "$work/predicted.yaml" --json > "$work/predicted.diff.json"
grep -q '"configuration": "pass"' "$work/predicted.diff.json" || fail "predict --emit: diff against its recipe does not pass"
grep -q '"class": "\(math_changing\|unclassified\|precision_changing\)"' "$work/predicted.diff.json" &&
  fail "predict --emit: the recipe's own layout differs from the recipe in more than layout"

# plan/predict --args: the arguments that set no knob reach the job verbatim (each flag once, the
# base's value replaced); the knobs they set stay the layout's.
user_args="--seed 1234 --lr 3e-4 --data-path /data/my_text_document --tensor-model-parallel-size 1"
"$ladle" plan glm-4.7-flash --gpu h200 --gpus 8 --top 1 --engine megatron --args "$user_args" \
  --emit "$work/args-plan.yaml" >/dev/null || fail "plan --args --emit"
"$ladle" predict --model glm-4.7-flash --gpu h200 --gpus 8 --engine megatron \
  --args "$user_args --expert-model-parallel-size 8 --optimizer-cpu-offload --optimizer-offload-fraction 1.0 --use-precision-aware-optimizer --use-distributed-optimizer" --emit "$work/args-predict.yaml" >/dev/null 2>"$work/args-predict.err" ||
  fail "predict --args --emit: $(cat "$work/args-predict.err")"
for emitted in "$work/args-plan.yaml" "$work/args-predict.yaml"; do
  for arg in "--seed 1234" "--lr 3e-4" "--data-path /data/my_text_document"; do
    [[ $(grep -cE -- '^ +'"$arg"' \\$' "$emitted") == 1 ]] || fail "$(basename "$emitted"): '$arg' is not in the run once"
  done
  [[ $(grep -c -- "--lr " "$emitted") == 1 ]] || fail "$(basename "$emitted"): --lr appears twice"
  "$ladle" check "$emitted" >/dev/null || fail "$(basename "$emitted"): ladle check"
done

# --- hostile arguments (issue 29) ------------------------------------------------------------------
# The user's arguments below are each meant literally (single quotes, escaped $): the entry point
# must get exactly these words, and no marker file may appear under $MARK.
marks=$work/marks
mkdir -p "$marks"
cat > "$work/hostile.sh" <<'ARGS'
--wandb-project 'lit$(touch "$MARK/wandb")' --wandb-exp-name 'bq`touch "$MARK/bq"`' \
  --cost 'cost$5' --pw 'pa$$w' '--foo$(touch "$MARK/flag")' '--bar`touch "$MARK/flag2"`' \
  --note 'two
lines; touch "$MARK/nl"' --quoted "it's \"q\" \$(touch \"\$MARK/dq\") \`touch \"\$MARK/dq2\"\`"
ARGS
hostile_words=(--wandb-project 'lit$(touch "$MARK/wandb")' --wandb-exp-name 'bq`touch "$MARK/bq"`'
  --cost 'cost$5' --pw 'pa$$w' '--foo$(touch "$MARK/flag")' '--bar`touch "$MARK/flag2"`'
  --note $'two\nlines; touch "$MARK/nl"' --quoted "it's \"q\" \$(touch \"\$MARK/dq\") \`touch \"\$MARK/dq2\"\`")
# Megatron-Bridge takes only the flags it has overrides for: literal values of those.
cat > "$work/hostile-bridge.sh" <<'ARGS'
--save 'ck$(touch "$MARK/save")pt' --load 'cost$5 pa$$w `touch "$MARK/load"`' \
  --tokenizer-model 'two
lines; touch "$MARK/nl"' --data-path '/d/$(touch "$MARK/data")'
ARGS
bridge_literals=('ck$(touch "$MARK/save")pt' 'cost$5 pa$$w `touch "$MARK/load"`' '/d/$(touch "$MARK/data")')

sep=$'\x1f'  # joins words that may hold newlines (never NUL, which bash strings cannot hold)
# The words after the entry point in the last call of TOOL recorded in the NUL-separated ARGV file.
argv_after_entry() {  # ARGV TOOL ENTRY
  local words=() out="" i last=-1
  mapfile -d '' -t words < "$1"
  for ((i = 0; i + 1 < ${#words[@]}; i++)); do
    [[ ${words[i]} == CALL && ${words[i + 1]} == "$2" ]] && last=$i
  done
  ((last >= 0)) || return 0
  for ((i = last + 2; i < ${#words[@]}; i++)); do [[ ${words[i]} == *"$3" ]] && break; done
  for ((i = i + 1; i < ${#words[@]}; i++)); do
    [[ ${words[i]} == CALL ]] && break
    out+=${words[i]}$sep
  done
  printf '%s' "$out"
}

check_hostile() {  # ENGINE TOOL ENTRY ARGS_FILE LITERAL...
  local engine=$1 tool=$2 entry=$3 args_file=$4
  shift 4
  local dir=$work/hostile-$engine
  mkdir -p "$dir"
  # The file holds bare arguments, not a script bash could run: --args reads them as written.
  local flags=(plan qwen3-30b-a3b --gpu h200 --gpus 8 --top 1 --engine "$engine" --args "$(cat "$args_file")")
  if ! "$ladle" "${flags[@]}" --emit "$dir/job.sh" >/dev/null 2>"$dir/emit.err"; then
    fail "hostile $engine: ladle plan --emit: $(cat "$dir/emit.err")"
    return
  fi
  "$ladle" "${flags[@]}" --json > "$dir/plan.json"
  bash -n "$dir/job.sh" || fail "hostile $engine: bash -n"
  (cd "$dir" && env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST "${job_env[@]}" MARK="$marks" LADLE_STUB_LOG="$dir/calls.log" \
     LADLE_STUB_ARGV="$dir/argv" bash job.sh >"$dir/job.out" 2>"$dir/job.err") ||
    fail "hostile $engine: the job failed: $(tail -n 3 "$dir/job.err")"
  local actual expected
  actual=$(argv_after_entry "$dir/argv" "$tool" "$entry")
  # plan --json's args, read by a shell as a user would paste them: the same words, nothing run.
  expected=$(env "${job_env[@]}" MARK="$marks" bash -c 'MODEL_ARGS=(--num-layers 2 --hidden-size 64)
    eval "words=($1)"; for w in "${words[@]}"; do printf "%s\x1f" "$w"; done' _ "$(json_args < "$dir/plan.json")")
  [[ -n "$actual" && "$actual" == "$expected" ]] ||
    fail "hostile $engine: the entry point's argv differs from plan --json's args: $(diff <(tr '\037' '\n' <<<"$expected") <(tr '\037' '\n' <<<"$actual") | head -n 6)"
  local literal
  for literal in "$@"; do
    [[ "$sep$actual" == *"$literal"* ]] || fail "hostile $engine: the entry point did not get '$literal' literally"
  done
  if [[ -n "$(ls -A "$marks")" ]]; then
    fail "hostile $engine: something ran: $(ls -A "$marks" | tr '\n' ' ')"
    rm -f "$marks"/*
  fi
}

joined=""
for w in "${hostile_words[@]}"; do joined+=$w$sep; done
check_hostile slime ray train_async.py "$work/hostile.sh" "$sep$joined"
check_hostile miles ray train.py "$work/hostile.sh" "$sep$joined"
check_hostile megatron torchrun pretrain_gpt.py "$work/hostile.sh" "$sep$joined"
check_hostile bridge torchrun run_recipe.py "$work/hostile-bridge.sh" "${bridge_literals[@]}"

# A base recipe whose run passes single-quoted literals (which `check` passes): every job planned
# from it passes them literally, and runs nothing of them.
hostile_base=$work/hostile-base.yaml
sed 's|^    --input-key messages \\$|    --input-key messages --wandb-project '"'"'lit$(touch "$MARK/base-wandb")'"'"' --wandb-group '"'"'pa$$w cost$5'"'"' \\|' \
  "$(dirname "$0")/../../recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml" > "$hostile_base"
grep -q 'base-wandb' "$hostile_base" || fail "the hostile base recipe was not made"
"$ladle" check "$hostile_base" >/dev/null || fail "check refuses a base whose run holds single-quoted literals"
mkdir -p "$work/hostile-base"
if "$ladle" plan glm-4.7-flash --gpu h200 --gpus 8 --top 1 --engine miles --base "$hostile_base" \
     --emit "$work/hostile-base/job.sh" >/dev/null 2>"$work/hostile-base/emit.err"; then
  (cd "$work/hostile-base" && env "${job_env[@]}" MARK="$marks" LADLE_STUB_LOG="$work/hostile-base/calls.log" \
     LADLE_STUB_ARGV="$work/hostile-base/argv" bash job.sh >/dev/null 2>"$work/hostile-base/job.err") ||
    fail "the job of the hostile base failed: $(tail -n 3 "$work/hostile-base/job.err")"
  actual=$(argv_after_entry "$work/hostile-base/argv" ray train.py)
  [[ "$sep$actual" == *"$sep--wandb-project${sep}lit\$(touch \"\$MARK/base-wandb\")$sep--wandb-group${sep}pa\$\$w cost\$5$sep"* ]] ||
    fail "the job of the hostile base did not pass its literals: $(tr '\037' ' ' <<<"$actual" | head -c 300)"
  [[ -z "$(ls -A "$marks")" ]] || fail "the job of the hostile base ran: $(ls -A "$marks")"
else
  fail "plan --base with single-quoted literals: $(cat "$work/hostile-base/emit.err")"
fi

# A base recipe whose file name holds a newline and a command: the job's header keeps it on its
# comment line (quoted), and running the job runs nothing of it.
evil_base="$work/evil"$'\n''touch base-ran'$'\n''.yaml'
cp "$(dirname "$0")/../../recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml" "$evil_base"
mkdir -p "$work/evil-job"
if "$ladle" plan glm-4.7-flash --gpu h200 --gpus 8 --top 1 --engine miles --base "$evil_base" \
     --emit "$work/evil-job/job.sh" >/dev/null 2>"$work/evil-job/emit.err"; then
  grep -q '^touch' "$work/evil-job/job.sh" && fail "a base name's newline put a command on its own line"
  bash -n "$work/evil-job/job.sh" || fail "the job of a base named with a newline: bash -n"
  (cd "$work/evil-job" && env "${job_env[@]}" LADLE_STUB_LOG="$work/evil-job/calls.log" bash job.sh >/dev/null 2>&1)
  [[ ! -e "$work/evil-job/base-ran" ]] || fail "the job of a base named with a newline ran the command in its name"
else
  fail "plan --base with a newline in its name: $(cat "$work/evil-job/emit.err")"
fi

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all jobs ran with every argument in place"
