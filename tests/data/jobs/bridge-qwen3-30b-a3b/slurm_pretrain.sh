#!/bin/bash
# A Megatron-Bridge pretraining job of Qwen3-30B-A3B on two 8-GPU nodes, in the form of
# Megatron-Bridge's examples/models/*/slurm_pretrain.sh (see .source.txt): the Hydra-style
# overrides of run_recipe.py built in for-loops over lists, the node count from Slurm's
# environment, and srun + torchrun in front of the recipe.
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1

NNODES=${SLURM_NNODES:-2}
GPUS_PER_NODE=8
SEQ_LENGTH=4096
GLOBAL_BATCH=$(( 16 * NNODES * GPUS_PER_NODE ))

PARALLELISM=(
  tensor_model_parallel_size=1
  pipeline_model_parallel_size=1
  expert_model_parallel_size=8
  sequence_parallel=false
)
TRAIN=(
  train_iters=100
  global_batch_size=${GLOBAL_BATCH}
  micro_batch_size=1
)

OVERRIDES=()
for kv in "${PARALLELISM[@]}"; do
  OVERRIDES+=("model.${kv}")
done
for kv in "${TRAIN[@]}"; do
  OVERRIDES+=("train.${kv}")
done
OVERRIDES+=("model.seq_length=${SEQ_LENGTH}" "dataset.seq_length=${SEQ_LENGTH}")
OVERRIDES+=("model.moe_token_dispatcher_type=alltoall" "mixed_precision=bf16_mixed")

srun --mpi=pmix torchrun --nnodes "${NNODES}" --nproc-per-node "${GPUS_PER_NODE}" \
  /opt/Megatron-Bridge/scripts/training/run_recipe.py \
  --model qwen3_30b_a3b --mode pretrain \
  "${OVERRIDES[@]}"
