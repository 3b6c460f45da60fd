#!/bin/bash
# A Megatron-Bridge pretraining job of Qwen3-30B-A3B on two 8-GPU nodes, in the form of
# Megatron-Bridge's examples/models/*/slurm_pretrain.sh: run_recipe.py with a model recipe and
# KEY=VALUE overrides of its ConfigContainer.
SEQ_LENGTH=4096
CLI_OVERRIDES="model.seq_length=$SEQ_LENGTH dataset.seq_length=$SEQ_LENGTH train.train_iters=100 \
  train.global_batch_size=256 train.micro_batch_size=1 logger.log_interval=1"
srun --mpi=pmix torchrun --nnodes 2 --nproc-per-node 8 /opt/Megatron-Bridge/scripts/training/run_recipe.py \
  --model qwen3_30b_a3b --mode pretrain \
  mixed_precision=bf16_mixed \
  model.tensor_model_parallel_size=1 \
  model.expert_model_parallel_size=8 \
  model.moe_token_dispatcher_type=alltoall \
  model.recompute_granularity=selective \
  'model.recompute_modules=[moe_act,layernorm]' \
  ddp.use_distributed_optimizer=True \
  ddp.overlap_grad_reduce=true \
  comm_overlap.overlap_moe_expert_parallel_comm=false \
  $CLI_OVERRIDES
