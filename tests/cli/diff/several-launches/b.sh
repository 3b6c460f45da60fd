#!/bin/bash
# The same two runs, the second with another tensor-parallel size.
torchrun --nproc-per-node 8 pretrain_gpt.py --train-iters 10 --lr 1e-4 --tensor-model-parallel-size 2
torchrun --nproc-per-node 8 pretrain_gpt.py --train-iters 1000 --lr 1e-4 --tensor-model-parallel-size 4
