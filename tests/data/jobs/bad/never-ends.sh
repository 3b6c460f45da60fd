#!/bin/bash
# Waits for a server that never answers.
while true; do
  :
done
torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 2
