#!/bin/bash
# Stops when its checkout is missing.
if [ ! -d /nonexistent/Megatron-LM ]; then
  echo "no checkout" >&2
  exit 3
fi
torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 2
