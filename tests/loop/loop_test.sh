#!/usr/bin/env bash
# The loop as a user walks it (issue 31), with a stand-in engine on PATH (tests/tune/fake_engine.cpp
# behind torchrun, python3 and `ray job submit`), for a Megatron-LM job and a slime job:
#   my job -> ladle plan --script my_job.sh --emit recipe.yaml (and job.sh)
#          -> ladle diff my_job.sh job.sh: only layout-class differences
#          -> bash job.sh under the stand-ins (my job itself runs the same way: the reference)
#          -> ladle score train.log --recipe recipe.yaml --write  (MFU, the prediction beside)
#          -> ladle converge --reference my.log --candidate train.log --write recipe.yaml --keep-logs
#          -> ladle check recipe.yaml
#          -> ladle site: the page draws the loss and step-time curves and gives MFU.
# Also: a job with no input given names every missing input at once (exit 2); a job planned with
# no script has the model's architecture arguments and needs no other engine's checkout; plan
# refuses a GPU count that is no whole number of nodes; tune --script keeps the job, and stops once
# on a setup error that every trial would hit.
# Usage: loop_test.sh LADLE_BINARY FAKE_ENGINE_BINARY
set -uo pipefail
ladle=$(realpath "$1")
engine=$(realpath "$2")
work=$(mktemp -d)
trap '[[ -n "${LOOP_KEEP:-}" ]] || rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo "--- $*"; }

# --- stand-ins: torchrun and python3 run the stand-in engine; ray starts nothing and runs what
# `ray job submit ... --` is given ---------------------------------------------------------------
bin=$work/bin
mkdir -p "$bin"
printf '#!/bin/bash\nexec %q "$@"\n' "$engine" > "$bin/torchrun"
printf '#!/bin/bash\nexec %q "$@"\n' "$engine" > "$bin/python3"
cat > "$bin/ray" <<'STUB'
#!/bin/bash
if [[ "${1:-}" == job && "${2:-}" == submit ]]; then
  while [[ $# -gt 0 && "$1" != "--" ]]; do shift; done
  shift
  exec "$@"
fi
exit 0
STUB
chmod +x "$bin"/*
export PATH="$bin:$PATH"
export FAKE_ENGINE_STATE=$work/engine FAKE_ENGINE_MODEL=qwen3-30b-a3b FAKE_ENGINE_GPU=h200
export FAKE_ENGINE_TIME_SCALE=0 FAKE_ENGINE_FLAKE_EVERY=0

inputs=$work/inputs
mkdir -p "$inputs"/{megatron,slime,hf,dist}
touch "$inputs/corpus_text_document.bin" "$inputs/corpus_text_document.idx" "$inputs/rows.jsonl"

# --- the user's jobs ----------------------------------------------------------------------------
# A Megatron-LM job as its examples write one (examples/gpt3/train_gpt3_175b_distributed.sh shape):
# settings that differ from what ladle's defaults would write (beta2, init std, warm-up, dropout).
cat > "$work/megatron_job.sh" <<EOF2
#!/bin/bash
cd "\$MEGATRON_DIR"
torchrun --nproc-per-node 8 pretrain_gpt.py \\
  --num-layers 48 --hidden-size 2048 --ffn-hidden-size 6144 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 4 --kv-channels 128 \\
  --num-experts 128 --moe-ffn-hidden-size 768 --moe-router-topk 8 \\
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 --expert-model-parallel-size 8 \\
  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 --use-distributed-optimizer \\
  --seq-length 4096 --global-batch-size 64 --micro-batch-size 1 \\
  --train-iters 24 --lr 3e-4 --min-lr 3e-5 --lr-warmup-iters 5 --adam-beta2 0.999 \\
  --init-method-std 0.02 --hidden-dropout 0.1 --attention-dropout 0.1 --seed 1234 --bf16 \\
  --data-path "\$DATA_PATH" --tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-30B-A3B \\
  --log-interval 1 2>&1 | tee "\$OUTPUT_DIR/train.log"
EOF2
# A slime SFT job (slime scripts/run-qwen3-4B-base-sft.sh shape), its model arguments inline.
cat > "$work/slime_job.sh" <<EOF2
#!/bin/bash
MODEL_ARGS=(--num-layers 48 --hidden-size 2048 --ffn-hidden-size 6144 --num-attention-heads 32
  --group-query-attention --num-query-groups 4 --kv-channels 128
  --num-experts 128 --moe-ffn-hidden-size 768 --moe-router-topk 8)
cd "\$SLIME_DIR"
ray job submit --address="http://127.0.0.1:8265" -- python3 train_async.py \\
  --actor-num-nodes 1 --actor-num-gpus-per-node 8 "\${MODEL_ARGS[@]}" \\
  --tensor-model-parallel-size 1 --expert-model-parallel-size 8 --use-dynamic-batch-size --max-tokens-per-gpu 8192 \\
  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \\
  --hf-checkpoint "\$HF_CKPT" --ref-load "\$TORCH_DIST" --prompt-data "\$SFT_DATA" --input-key messages \\
  --rollout-function-path slime.rollout.sft_rollout.generate_rollout --loss-type sft_loss \\
  --num-rollout 24 --rollout-batch-size 64 --global-batch-size 64 --seq-length 8192 \\
  --optimizer adam --lr 2e-5 --lr-decay-style cosine --min-lr 2e-6 --lr-warmup-fraction 0.05 \\
  --weight-decay 0.05 --adam-beta1 0.9 --adam-beta2 0.98 --seed 7 \\
  --calculate-per-token-loss --disable-compute-advantages-and-returns --debug-train-only 2>&1 | tee "\$OUTPUT_DIR/train.log"
EOF2

walk() {  # NAME JOB ENV...
  local name=$1 job=$2
  shift 2
  local dir=$work/$name
  mkdir -p "$dir/mine" "$dir/planned" "$dir/site-recipes"
  local run_env=("$@")
  # The job reads its inputs from the environment, which plan and diff (running it in a sandbox)
  # are not given: the emitted job must read them at run time as the user's job does. The stand-in
  # engine's memory runs 7% over the prediction, so the plan keeps 12% of HBM free.
  local plan=(plan qwen3-30b-a3b --gpu h200 --gpus 8 --script "$job" --top 1 --margin 0.12)
  step "$name: plan --script --emit"
  if ! "$ladle" "${plan[@]}" --emit "$dir/site-recipes/recipe.yaml" > "$dir/plan.out" 2> "$dir/plan.err"; then
    fail "$name: plan --emit: $(tail -n 3 "$dir/plan.err")"
    return
  fi
  "$ladle" "${plan[@]}" --emit "$dir/job.sh" > /dev/null 2>&1 ||
    fail "$name: plan --emit job.sh"
  grep -q "^# Engine: .*; base: the job $job" "$dir/job.sh" || fail "$name: the job's header does not name the job as its base"
  # Each argument the job reads from its environment is read at run time in the emitted job too:
  # `--data-path "$DATA_PATH"`, not `--data-path ''` (plan ran the job with none of them set).
  local input written passed=()
  for input in "${run_env[@]}"; do
    input=${input%%=*}
    while IFS= read -r written; do
      passed+=("$written")
      grep -qF -- "  $written" "$dir/job.sh" ||
        fail "$name: the emitted job does not pass $written as the job does: $(grep -n -- "$input" "$dir/job.sh" | head -n 3)"
    done < <(grep -oE -- "--[a-z-]+ \"\\\$$input\"" "$job")
  done
  ((${#passed[@]} > 0)) || fail "$name: the job passes no input read from its environment (the check above checked nothing)"
  step "$name: diff my job against the emitted one (both run in the sandbox)"
  if ! "$ladle" diff "$job" "$dir/job.sh" > "$dir/diff.out" 2> "$dir/diff.err"; then
    fail "$name: diff my_job.sh job.sh failed: $(tail -n 3 "$dir/diff.err")"
  fi
  grep -q '^correctness.configuration: pass$' "$dir/diff.out" ||
    fail "$name: diff my_job.sh job.sh is not layout-only: $(grep -E '^verdict|^--' "$dir/diff.out" | head -n 12)"
  # Only layout differences: no argument that passes an input of the environment differs.
  for written in "${passed[@]}"; do
    grep -qE -- "^${written%% *} " "$dir/diff.out" &&
      fail "$name: diff shows ${written%% *} as a difference: $(grep -E -- "^${written%% *} " "$dir/diff.out")"
  done
  step "$name: run my job and the emitted job under the stand-ins"
  if ! (env "${run_env[@]}" OUTPUT_DIR="$dir/mine" bash "$job" > "$dir/mine.out" 2>&1); then
    fail "$name: my job failed under the stand-ins: $(tail -n 3 "$dir/mine.out")"
    return
  fi
  if ! (cd "$dir" && env "${run_env[@]}" OUTPUT_DIR="$dir/planned" bash job.sh > "$dir/job.out" 2>&1); then
    fail "$name: the emitted job failed: $(tail -n 3 "$dir/job.out")"
    return
  fi
  step "$name: score --write"
  if ! "$ladle" score "$dir/planned/train.log" --recipe "$dir/site-recipes/recipe.yaml" --write > "$dir/score.out" 2>&1; then
    fail "$name: score --write: $(tail -n 3 "$dir/score.out")"
    return
  fi
  grep -qE '^MFU +[0-9.]+%' "$dir/score.out" || fail "$name: score gives no MFU: $(grep MFU "$dir/score.out")"
  grep -q '^measured / predicted tokens/s per GPU: ' "$dir/score.out" || fail "$name: score prints no prediction"
  step "$name: converge --write --keep-logs"
  if ! "$ladle" converge --reference "$dir/mine/train.log" --candidate "$dir/planned/train.log" \
      --write "$dir/site-recipes/recipe.yaml" --keep-logs > "$dir/converge.out" 2>&1; then
    fail "$name: converge --write: $(tail -n 3 "$dir/converge.out")"
    return
  fi
  grep -q 'reference_log: recipe.logs/reference-train.log' "$dir/site-recipes/recipe.yaml" ||
    fail "$name: converge --write recorded no reference log"
  step "$name: check"
  "$ladle" check "$dir/site-recipes/recipe.yaml" > "$dir/check.out" 2>&1 ||
    fail "$name: check rejects the recipe: $(head -n 5 "$dir/check.out")"
  step "$name: site"
  if ! "$ladle" site --recipes "$dir/site-recipes" --out "$dir/site" > "$dir/site.out" 2>&1; then
    fail "$name: site: $(tail -n 3 "$dir/site.out")"
    return
  fi
  local page
  page=$(grep -rl 'id="chart-loss"' "$dir/site" | head -n 1)
  [[ -n "$page" ]] || { fail "$name: no page draws the loss curves"; return; }
  grep -q 'id="chart-step-time"' "$page" || fail "$name: the page draws no step-time curve"
  grep -qE 'data-fact="mfu">[0-9]' "$page" || fail "$name: the page gives no MFU"
}

walk megatron "$work/megatron_job.sh" MEGATRON_DIR="$inputs/megatron" DATA_PATH="$inputs/corpus_text_document"
walk slime "$work/slime_job.sh" SLIME_DIR="$inputs/slime" HF_CKPT="$inputs/hf" TORCH_DIST="$inputs/dist" \
  SFT_DATA="$inputs/rows.jsonl"

# --- every missing input at once, before anything starts ------------------------------------------
step "missing inputs"
"$ladle" plan qwen3-30b-a3b --gpu h200 --gpus 8 --top 1 --engine megatron --emit "$work/defaults.sh" > /dev/null 2>&1 ||
  fail "plan --engine megatron --emit"
out=$(env -u MEGATRON_DIR -u DATA_PATH -u OUTPUT_DIR -u TOKENIZER -u CHECKPOINT bash "$work/defaults.sh" 2>&1)
rc=$?
[[ $rc -eq 2 ]] || fail "a job without its inputs exits $rc, not 2"
for input in MEGATRON_DIR DATA_PATH TOKENIZER CHECKPOINT OUTPUT_DIR; do
  grep -q "^ladle job: $input is not set" <<< "$out" || fail "a job without its inputs does not name $input: $out"
done
grep -q '^CALL\|train.log' <<< "$out" && fail "a job without its inputs started something"

# --- no script: the model's architecture arguments, no other engine's checkout --------------------
step "architecture arguments from the model"
grep -q 'MODEL_ARGS_FILE\|SLIME_DIR' "$work/defaults.sh" && fail "a Megatron-LM job depends on MODEL_ARGS_FILE or a slime checkout"
grep -q "^  --num-layers 48$" "$work/defaults.sh" || fail "the Megatron-LM job sets no --num-layers 48 from the model"

# --- node granularity -----------------------------------------------------------------------------
step "whole nodes"
"$ladle" plan qwen3-30b-a3b --gpu h100 --gpus 12 --emit "$work/r12.yaml" > /dev/null 2> "$work/r12.err"
rc=$?
[[ $rc -eq 2 ]] || fail "plan --gpus 12 on 8-GPU nodes exits $rc, not 2"
grep -q '8 .*GPUs' "$work/r12.err" || fail "plan --gpus 12 does not name the node size: $(cat "$work/r12.err")"
[[ -e "$work/r12.yaml" ]] && fail "plan --gpus 12 wrote a recipe"

# --- tune --script ----------------------------------------------------------------------------------
step "tune --script: a setup error stops the run once"
out=$(env -u MEGATRON_DIR -u DATA_PATH "$ladle" tune --model qwen3-30b-a3b --gpu h200 --gpus 8 \
        --script "$work/megatron_job.sh" --backend local --budget 6 --steps 6 --out "$work/tune-unset" 2>&1)
rc=$?
[[ $rc -eq 2 ]] || fail "tune with MEGATRON_DIR unset exits $rc, not 2: $(tail -n 3 <<< "$out")"
grep -q 'MEGATRON_DIR is not set' <<< "$out" || fail "tune does not name the unset input: $(tail -n 3 <<< "$out")"
submitted=$(grep -c 'submitted ladle-' <<< "$out")
[[ $submitted -eq 1 ]] || fail "tune submitted $submitted trials before it stopped on a setup error"
step "tune --script"
if env MEGATRON_DIR="$inputs/megatron" DATA_PATH="$inputs/corpus_text_document" OUTPUT_DIR="$work/tune-out" \
    "$ladle" tune --model qwen3-30b-a3b --gpu h200 --gpus 8 --script "$work/megatron_job.sh" --backend local \
    --budget 3 --per-round 3 --steps 6 --confirm-steps 12 --out "$work/tune" > "$work/tune.out" 2>&1 ||
   [[ $? -eq 1 ]]; then
  recipe=$work/tune/recipe.yaml
  [[ -f "$recipe" ]] || fail "tune wrote no recipe: $(tail -n 3 "$work/tune.out")"
  grep -q "base: the job megatron_job.sh" "$recipe" || fail "tune's recipe does not keep the job as its base"
  grep -q -- "--adam-beta2 0.999" "$recipe" || fail "tune's recipe does not keep the job's --adam-beta2 0.999"
  if grep -q '^status: verified' "$recipe"; then
    "$ladle" check "$recipe" > /dev/null 2>&1 || fail "tune marked verified a recipe check rejects"
  fi
else
  fail "tune --script: $(tail -n 3 "$work/tune.out")"
fi

if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "loop: every step passed"
