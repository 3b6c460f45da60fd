#!/bin/bash
# An RL job of Qwen3-30B-A3B on two 8-GPU nodes in the form of miles' scripts/run-*.sh (see
# .source.txt): the model file sourced from the script's folder, the parallel arguments built by a
# function from its own arguments, a colocation switch in an if-block on a positional argument,
# a runtime env written with a heredoc and read back with $(...).
set -euo pipefail

MODE=${1:-colocate}
NUM_NODES=${NUM_NODES:-2}

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/qwen3-30B-A3B.sh"

perf_args() {
  local tp=$1 ep=$2
  PERF_ARGS=(
    --tensor-model-parallel-size "${tp}"
    --sequence-parallel
    --pipeline-model-parallel-size 1
    --expert-model-parallel-size "${ep}"
    --expert-tensor-parallel-size 1
    --recompute-granularity full
    --recompute-method uniform
    --recompute-num-layers 1
    --use-dynamic-batch-size
    --max-tokens-per-gpu $(( 8 * 2048 ))
  )
}
perf_args 2 $(( NUM_NODES * 4 ))

ROLLOUT_ARGS=(
  --rollout-batch-size 32
  --n-samples-per-prompt 8
  --rollout-max-response-len 8192
  --global-batch-size 256
)

DEPLOY_ARGS=(--actor-num-nodes "${NUM_NODES}" --actor-num-gpus-per-node 8)
if [[ "${MODE}" == colocate ]]; then
  DEPLOY_ARGS+=(--colocate)
else
  DEPLOY_ARGS+=(--rollout-num-gpus 8)
fi

ENV_FILE=$(mktemp)
cat > "${ENV_FILE}" <<EOF
{
  "env_vars": {
    "PYTHONPATH": "/root/Megatron-LM/",
    "CUDA_DEVICE_MAX_CONNECTIONS": "1",
    "NCCL_ALGO": "Ring"
  }
}
EOF

ray start --head --node-ip-address 127.0.0.1 --num-gpus 8 --disable-usage-stats
ray job submit --address="http://127.0.0.1:8265" \
  --runtime-env-json="$(cat "${ENV_FILE}")" \
  -- python3 train.py \
  "${DEPLOY_ARGS[@]}" \
  "${MODEL_ARGS[@]}" \
  "${PERF_ARGS[@]}" \
  "${ROLLOUT_ARGS[@]}" \
  --optimizer adam --lr 1e-6 --attention-backend flash
