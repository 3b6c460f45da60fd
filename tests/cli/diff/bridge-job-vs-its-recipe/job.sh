#!/bin/bash
# The job of recipe.yaml (written by `ladle plan qwen3-30b-a3b --gpu h200 --gpus 16 --top 1 --engine bridge
# --emit recipe.yaml`) as a user would write it by hand: run_recipe.py's options for some overrides, other
# spellings of the same values (True, quoted strings, spaced lists, ++), another order.
set -euo pipefail
export CUDA_DEVICE_MAX_CONNECTIONS=1
NNODES=2
cd "$BRIDGE_DIR"
torchrun --nnodes "$NNODES" --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$MASTER_ADDR:${MASTER_PORT:-29500}" \
  --rdzv-id "${SLURM_JOB_ID:-ladle}" scripts/training/run_recipe.py \
  --model qwen3_30b_a3b --mode pretrain \
  -tp 1 -pp 2 --seq_length 8192 --global_batch_size 128 -mb 1 --max_steps 20 \
  model.context_parallel_size=1 model.expert_model_parallel_size=1 model.expert_tensor_parallel_size=1 \
  model.num_layers_in_first_pipeline_stage=25 model.num_layers_in_last_pipeline_stage=23 \
  "model.recompute_granularity='selective'" 'model.recompute_modules=[ moe_act, layernorm ]' \
  mixed_precision.bf16=True ++mixed_precision.grad_reduce_in_fp32=False \
  optimizer.use_precision_aware_optimizer=True ddp.use_distributed_optimizer=True \
  model.moe_token_dispatcher_type=alltoall \
  "dataset.blend=[[\"$DATA_PATH\"],null]" "dataset.split='99,1,0'" \
  tokenizer.tokenizer_type=HuggingFaceTokenizer "tokenizer.tokenizer_model=$TOKENIZER" \
  optimizer.lr=6.0e-5 optimizer.min_lr=6.0e-6 scheduler.lr_decay_style=cosine scheduler.lr_warmup_fraction=.001 \
  optimizer.weight_decay=0.1 optimizer.adam_beta1=0.9 optimizer.adam_beta2=0.95 optimizer.clip_grad=1.0 \
  model.init_method_std=0.006 model.attention_dropout=0.0 model.hidden_dropout=0.0 \
  "checkpoint.load=$CHECKPOINT" "checkpoint.save=$OUTPUT_DIR/checkpoints" checkpoint.save_interval=1000 \
  logger.log_interval=1 train.eval_interval=1000 train.eval_iters=0 2>&1 | tee "$OUTPUT_DIR/train.log"
