#!/bin/bash
set -u
# Reads its second argument under `set -u`.
PP=$2
torchrun --nproc-per-node 8 pretrain_gpt.py --pipeline-model-parallel-size "$PP"
