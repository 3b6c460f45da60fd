#!/bin/bash
# A smoke run at TP 2, then the real run at TP 4.
for tp in 2 4; do
  torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size "$tp" --seq-length 4096 \
    --global-batch-size 64
done
