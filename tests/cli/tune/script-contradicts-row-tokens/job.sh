#!/bin/bash
python3 train.py --tensor-model-parallel-size 1 --expert-model-parallel-size 8 --seq-length 4096 --global-batch-size 64 --micro-batch-size 1
