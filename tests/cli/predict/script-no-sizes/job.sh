#!/bin/bash
# Launches training with no parallel size and no workload: nothing for ladle to read.
torchrun --nproc-per-node 8 pretrain_gpt.py --lr 1e-4 --train-iters 100
