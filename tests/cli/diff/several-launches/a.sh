#!/bin/bash
# Two runs in one file: a short smoke run, then the real one.
torchrun --nproc-per-node 8 pretrain_gpt.py --train-iters 10 --lr 1e-4 --tensor-model-parallel-size 2
torchrun --nproc-per-node 8 pretrain_gpt.py --train-iters 1000 --lr 1e-4 --tensor-model-parallel-size 2
