#!/bin/bash
# Written for ladle's tests in the shape of Megatron-MoE-ModelZoo's env-driven launchers
# (TP=... PP=... bash launcher.sh): every size comes from the environment with a default.
export CUDA_DEVICE_MAX_CONNECTIONS=1
export NCCL_NVLS_ENABLE=0
TP=${TP:-8}
PP=${PP:-8}
CP=${CP_SIZE:-4}
MBS=${MBS:-1}
GBS=${GBS:-1536}
NNODES=${SLURM_NNODES:-1}
DATA_PATH=$4
CHECKPOINT_PATH=$1
TRAIN_ARGS=(
    --micro-batch-size ${MBS}
    --global-batch-size ${GBS}
    --train-iters 500000
    --weight-decay 0.1
    --adam-beta1 0.9
    --adam-beta2 0.95
    --init-method-std 0.006
    --clip-grad 1.0
    --bf16
    --lr 6.0e-5
    --lr-decay-style cosine
    --min-lr 6.0e-6
    --lr-warmup-fraction .001
    --lr-decay-iters 430000
    --attention-dropout 0.1
)
PYTHONPATH=/opt/megatron torchrun --nproc_per_node 8 --nnodes ${NNODES} --master_addr ${MASTER_ADDR:-localhost} \
    --master_port 6000 pretrain_gpt.py \
    --num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 \
    "${TRAIN_ARGS[@]}" \
    --tensor-model-parallel-size ${TP} \
    --pipeline-model-parallel-size ${PP} \
    --context-parallel-size ${CP} \
    --data-path $DATA_PATH --split 949,50,1 \
    --save $CHECKPOINT_PATH --load $CHECKPOINT_PATH
