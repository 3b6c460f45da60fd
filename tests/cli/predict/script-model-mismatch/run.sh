#!/bin/bash
# slime's form: the model's arguments in a sourced file, the sizes in a function, the launch in an
# if-block on the first argument.
set -e
source "$(dirname "$0")/models/qwen3-30B-A3B.sh"
perf() {
  PERF=(--tensor-model-parallel-size "$1" --sequence-parallel --expert-model-parallel-size $(( $1 * 4 )))
}
perf 2
if [[ "${1:-train}" == train ]]; then
  python3 train.py "${MODEL_ARGS[@]}" "${PERF[@]}" --seq-length 4096 --global-batch-size 128 \
    --micro-batch-size 1 --bf16
fi
