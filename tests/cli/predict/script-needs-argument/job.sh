#!/bin/bash
# Needs the tensor-parallel size as its first argument.
TP=${1:?the tensor-parallel size}
torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size "$TP" --seq-length 4096
