#!/bin/bash
# Qwen3-30B-A3B pretraining in the form of Pai-Megatron-Patch's examples/qwen3/run_mcore_qwen3.sh
# (see .source.txt): every setting is a positional argument, the model size selects the
# architecture in a `case`, the environment (dsw: one machine, dlc: a cluster) in an if-block,
# switches become option strings, and $((...)) derives the step count.
set -u
CURRENT_DIR="$( cd "$( dirname "$0" )" && pwd )"

ENV=$1
MODEL_SIZE=$2
BATCH_SIZE=$3
GLOBAL_BATCH_SIZE=$4
LR=$5
SEQ_LEN=$6
PR=$7
TP=$8
PP=$9
CP=${10}
EP=${11}
SP=${12}
TRAIN_TOKENS=${13:-10000000000}

if [ $ENV = dsw ]; then
    MASTER_ADDR=localhost
    MASTER_PORT=$(shuf -n 1 -i 10000-65535)
    NNODES=1
    NODE_RANK=0
    GPUS_PER_NODE=8
elif [ $ENV = dlc ]; then
    NNODES=${WORLD_SIZE}
    NODE_RANK=${RANK}
    GPUS_PER_NODE=${KUBERNETES_CONTAINER_RESOURCE_GPU}
fi

DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES --node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT"

case $MODEL_SIZE in
  A3B)
    NUM_LAYERS=48
    HIDDEN_SIZE=2048
    NUM_ATTENTION_HEADS=32
    INTERMEDIATE_SIZE=6144
    MOE_INTERMEDIATE_SIZE=768
    NUM_KEY_VALUE_HEADS=4
    NUM_EXPERTS=128
    ROUTER_TOPK=8
    ;;
  A22B)
    NUM_LAYERS=94
    HIDDEN_SIZE=4096
    NUM_ATTENTION_HEADS=64
    INTERMEDIATE_SIZE=12288
    MOE_INTERMEDIATE_SIZE=1536
    NUM_KEY_VALUE_HEADS=4
    NUM_EXPERTS=128
    ROUTER_TOPK=8
    ;;
  *)
    echo "unknown model size $MODEL_SIZE" >&2
    exit 1
    ;;
esac

moe_options=" \
    --moe-grouped-gemm \
    --moe-token-dispatcher-type alltoall \
    --moe-router-topk ${ROUTER_TOPK} \
    --num-experts ${NUM_EXPERTS} \
    --moe-ffn-hidden-size ${MOE_INTERMEDIATE_SIZE} \
    --expert-model-parallel-size ${EP} \
    --expert-tensor-parallel-size 1"

if [ $PR = bf16 ]; then
    pr_options=" --bf16"
elif [ $PR = fp8 ]; then
    pr_options=" --bf16 --fp8-format hybrid --fp8-amax-compute-algo max --fp8-amax-history-len 1024"
fi

if [ $SP = true ] && [ $TP -gt 1 ]; then
    sp_option=" --sequence-parallel"
else
    sp_option=""
fi

TRAIN_ITERS=$(( ${TRAIN_TOKENS} / ${GLOBAL_BATCH_SIZE} / ${SEQ_LEN} ))

megatron_options=" \
    --lr ${LR} \
    --micro-batch-size ${BATCH_SIZE} \
    --global-batch-size ${GLOBAL_BATCH_SIZE} \
    --num-layers ${NUM_LAYERS} \
    --hidden-size ${HIDDEN_SIZE} \
    --num-attention-heads ${NUM_ATTENTION_HEADS} \
    --ffn-hidden-size ${INTERMEDIATE_SIZE} \
    --seq-length ${SEQ_LEN} \
    --max-position-embeddings 40960 \
    --train-iters ${TRAIN_ITERS} \
    --tensor-model-parallel-size ${TP} \
    --pipeline-model-parallel-size ${PP} \
    --context-parallel-size ${CP} \
    --group-query-attention \
    --num-query-groups ${NUM_KEY_VALUE_HEADS} \
    --swiglu \
    --normalization RMSNorm \
    --use-distributed-optimizer \
    --untie-embeddings-and-output-weights"

run_cmd="torchrun $DISTRIBUTED_ARGS ${CURRENT_DIR}/pretrain_qwen.py
 ${megatron_options} ${pr_options} ${sp_option} ${moe_options}"

echo ${run_cmd}
eval ${run_cmd}
