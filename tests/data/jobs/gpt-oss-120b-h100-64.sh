# gpt-oss-120b on 64 H100 (8 nodes), BF16, TP1 PP4 EP8 (no sequence parallel), selective recompute of
# the layer norms and the expert activation, alltoall dispatcher, 4,096-token rows, GBS 1280.
# Source: NVIDIA-NeMo/Megatron-Bridge at 067f987d (2026-08-22):
#   src/megatron/bridge/perf_recipes/gpt_oss/h100/gpt_oss.py (gpt_oss_120b_pretrain_64gpu_h100_bf16_config:
#   TP 1, PP 4, EP 8, SP off, MBS 1, GBS 1280, recompute_modules layernorm moe_act, router fusion, forced
#   load balancing, BF16), on src/megatron/bridge/recipes/gpt_oss/h100/gpt_oss.py (the same name: seq_length
#   4096, CP 1, ETP 1, alltoall dispatcher, permute fusion, grouped GEMM, cross-entropy fusion, distributed
#   optimizer with grad and param overlap, no CUDA graphs, per-token loss, cp_comm_type a2a) and
#   src/megatron/bridge/perf_recipes/_common.py (_benchmark_common: gradients reduced in BF16, TE
#   cross-entropy fusion, RoPE fusion, 50 iterations). Written as the Megatron-LM arguments of those fields;
#   the architecture arguments are those of openai/gpt-oss-120b's config.json in Megatron-LM's spelling.
torchrun --nnodes 8 --nproc-per-node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 4 \
  --expert-model-parallel-size 8 \
  --context-parallel-size 1 \
  --expert-tensor-parallel-size 1 \
  --cp-comm-type a2a \
  --use-distributed-optimizer \
  --overlap-grad-reduce \
  --overlap-param-gather \
  --grad-reduce-in-bf16 \
  --use-mcore-models \
  --transformer-impl transformer_engine \
  --micro-batch-size 1 \
  --global-batch-size 1280 \
  --train-iters 50 \
  --manual-gc \
  --manual-gc-interval 100 \
  --calculate-per-token-loss \
  --recompute-granularity selective \
  --recompute-modules layernorm moe_act \
  --cross-entropy-loss-fusion \
  --cross-entropy-fusion-impl te \
  --num-layers 36 \
  --hidden-size 2880 \
  --ffn-hidden-size 2880 \
  --num-attention-heads 64 \
  --group-query-attention \
  --num-query-groups 8 \
  --kv-channels 64 \
  --seq-length 4096 \
  --max-position-embeddings 131072 \
  --normalization RMSNorm \
  --norm-epsilon 1e-05 \
  --untie-embeddings-and-output-weights \
  --position-embedding-type rope \
  --rotary-percent 1.0 \
  --rotary-base 150000 \
  --window-size 128,0 \
  --window-attn-skip-freq 2 \
  --softmax-type learnable \
  --quick-geglu \
  --glu-linear-offset 1.0 \
  --activation-func-clamp-value 7.0 \
  --num-experts 128 \
  --moe-ffn-hidden-size 2880 \
  --moe-router-topk 4 \
  --moe-router-score-function softmax \
  --moe-router-load-balancing-type none \
  --moe-aux-loss-coeff 0.0 \
  --moe-router-force-load-balancing \
  --moe-router-fusion \
  --moe-token-dispatcher-type alltoall \
  --moe-permute-fusion \
  --moe-grouped-gemm \
  --tokenizer-type NullTokenizer \
  --vocab-size 201088 \
  --mock-data \
  --bf16
