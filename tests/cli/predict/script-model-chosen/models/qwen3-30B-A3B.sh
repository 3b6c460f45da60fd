MODEL_ARGS=(
   --num-layers 48
   --hidden-size 2048
   --ffn-hidden-size 6144
   --num-attention-heads 32
   --num-query-groups 4
   --moe-ffn-hidden-size 768
   --num-experts 128
   --moe-router-topk 8
)
