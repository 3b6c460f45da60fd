#!/bin/bash
# The benchmark wrapper both launchers run (the form of Megatron-MoE-ModelZoo's
# sbatch_benchmarking.sh): sizes from the environment, the model's arguments from a sourced file.
set -eu
source "$(dirname "$0")/model.conf"
PARAMS="--tensor-model-parallel-size ${TP} --expert-model-parallel-size ${EP} --global-batch-size ${GBS}"
if [[ ${PR:-bf16} == fp8 ]]; then
  PARAMS="${PARAMS} --fp8-format e4m3"
fi
srun --nodes "${NNODES}" --ntasks-per-node 8 python pretrain_gpt.py ${MODEL_ARGS} ${PARAMS} "$@"
