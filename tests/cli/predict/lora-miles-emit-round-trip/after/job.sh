#!/bin/bash
# Planned by `ladle plan` for llama-3.1-8b on 1 x h100-sxm; not measured yet.
# Engine: miles (github.com/radixark/miles); base: the job --args (every argument that sets no layout knob is the job's, verbatim).
# 1 node x 1 GPUs. Job shape after radixark/miles miles/utils/external_utils/command_utils.py (execute_train) and model_args_utils.py at 31f1ca961a94cb860cec3b2dea34ec332bfa8f76.
set -euo pipefail

# Options: --master-addr HOST (the first node, when not under Slurm).
while [[ $# -gt 0 ]]; do
  case $1 in
    --master-addr) MASTER_ADDR=$2; shift 2 ;;
    *) echo "ladle job: unknown option '$1' (expected --master-addr HOST)" >&2; exit 2 ;;
  esac
done

# Inputs: every one is checked before anything starts; all that are missing are named, one
# line each, and the job stops (exit 2).
missing=()
outputs=()
need() {  # need NAME KIND WHAT
  local value=${!1:-}
  if [[ -z "$value" ]]; then missing+=("$1 is not set: $3"); return; fi
  case $2 in
    dir) [[ -d "$value" ]] || missing+=("$1=$value is not a folder: $3") ;;
    file) [[ -f "$value" ]] || missing+=("$1=$value is not a file: $3") ;;
    prefix) [[ -f "$value.bin" && -f "$value.idx" ]] || missing+=("$1=$value has no $value.bin and $value.idx: $3") ;;
    out) outputs+=("$1") ;;
  esac
}
need MILES_DIR dir 'a miles checkout (github.com/radixark/miles)'
need OUTPUT_DIR out 'a folder for logs and checkpoints (created)'
if (( ${#missing[@]} > 0 )); then
  printf 'ladle job: %s\n' "${missing[@]}" >&2
  exit 2
fi
for name in "${outputs[@]}"; do
  mkdir -p "${!name}" || { echo "ladle job: $name=${!name} cannot be created" >&2; exit 2; }
done

# Environment of the base.


MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}
RAY_PORT=${RAY_PORT:-6379}
RAY_DASHBOARD_PORT=${RAY_DASHBOARD_PORT:-8265}
# The Ray head on this node; only the processes this job starts are its own (nothing is killed).
ray start --head --node-ip-address "$MASTER_ADDR" --port "$RAY_PORT" --num-gpus 1 --disable-usage-stats --dashboard-host=0.0.0.0 --dashboard-port="$RAY_DASHBOARD_PORT"

RUNTIME_ENV_JSON="{\"env_vars\": {\"PYTHONPATH\": \"${MEGATRON_DIR:-/root/Megatron-LM}:$MILES_DIR\", \"MASTER_ADDR\": \"${MASTER_ADDR}\"}}"
cd "$MILES_DIR"
ray job submit --address="http://127.0.0.1:$RAY_DASHBOARD_PORT" \
  --runtime-env-json="${RUNTIME_ENV_JSON}" \
  -- python3 train.py \
  --actor-num-nodes 1 \
  --actor-num-gpus-per-node 1 \
  --rollout-batch-size 16 \
  --n-samples-per-prompt 8 \
  --rollout-max-prompt-len 1024 \
  --rollout-max-response-len 2048 \
  --global-batch-size 128 \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 1 \
  --context-parallel-size 1 \
  --use-dynamic-batch-size \
  --max-tokens-per-gpu 9216 \
  --accumulate-allreduce-grads-in-fp32 \
  --fp16 \
  --lora-rank 32 \
  --lora-alpha 32 \
  --target-modules all-linear \
  --colocate 2>&1 | tee "$OUTPUT_DIR/train.log"
