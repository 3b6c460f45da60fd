# Llama-3.1-70B on 64 H100 (8 nodes), BF16, TP4 PP4 VPP5 CP2 with sequence parallel and TP
# communication overlap, 8,192-token rows, GBS 512, MBS 1.
# Source: NVIDIA-NeMo/Megatron-Bridge at 3594df94: src/megatron/bridge/recipes/llama/llama31_70b.py
#   (model_config and pretrain_config defaults: tensor_parallelism 4, pipeline_parallelism 4,
#   virtual_pipeline_parallelism 5, context_parallelism 2, sequence_parallelism True, global_batch_size
#   512, micro_batch_size 1, sequence_length 8192; ddp grad_reduce_in_fp32, overlap_grad_reduce,
#   overlap_param_gather, use_distributed_optimizer; comm_overlap tp_comm_overlap True), written as the
#   Megatron-LM arguments those config fields stand for. The GPU count (DP 2) is ours.
torchrun --nnodes 8 --nproc-per-node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 4 --pipeline-model-parallel-size 4 \
  --num-virtual-stages-per-pipeline-rank 5 --context-parallel-size 2 --sequence-parallel \
  --use-distributed-optimizer --accumulate-allreduce-grads-in-fp32 \
  --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap \
  --seq-length 8192 --micro-batch-size 1 --global-batch-size 512 \
  --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 \
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \
  --untie-embeddings-and-output-weights --disable-bias-linear --position-embedding-type rope \
  --bf16 --manual-gc --manual-gc-interval 100 \
  --lr 3e-4 --min-lr 3e-5 --lr-warmup-iters 2000 --train-iters 1168251 --eval-interval 2000 --eval-iters 32 \
  --seed 1234 --num-workers 8 --log-interval 10 --save-interval 2000 --ckpt-format torch_dist
