#!/bin/bash
# A Megatron-Bridge LoRA fine-tuning job of GPT-OSS-120B on one 8-GPU H100 node, in the form of
# Megatron-Bridge's examples/models/gpt_oss/slurm_peft.sh (run_recipe.py with a *_peft_ recipe and
# KEY=VALUE overrides) and the --recipe/--mode lora line of its model verification card
# (examples/model_verification_cards/gpt-oss-120b/card.yaml), NVIDIA-NeMo/Megatron-Bridge at
# 067f987df03b8355b03192d88d70f1709fedf51a; written for this test.
TP=1; PP=1; EP=8
CLI_OVERRIDES="train.global_batch_size=32 train.micro_batch_size=1 dataset.seq_length=4096 \
  model.tensor_model_parallel_size=$TP model.pipeline_model_parallel_size=$PP \
  model.expert_model_parallel_size=$EP model.expert_tensor_parallel_size=1 \
  peft.dim=16 peft.alpha=32 'peft.target_modules=[linear_qkv,linear_proj]'"
CMD="uv run --no-sync python /opt/Megatron-Bridge/scripts/training/run_recipe.py"
CMD="$CMD --recipe gpt_oss_120b_peft_8gpu_h100_bf16_config --mode lora"
srun --mpi=pmix bash -c "$CMD $CLI_OVERRIDES"
