#!/bin/bash
set -e
echo "smoke test only"
exit 0
torchrun --nproc-per-node 8 pretrain_gpt.py --lr 1e-5
