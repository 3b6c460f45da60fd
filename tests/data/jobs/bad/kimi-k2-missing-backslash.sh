#!/bin/bash
# A launch split by a missing '\' (slime's run-kimi-k2-Instruct.sh had one): bash runs train.py
# without the arguments below line 6 and then tries to run '--tensor-model-parallel-size' as a
# command of its own.
python3 train.py \
   --actor-num-nodes 32
   --tensor-model-parallel-size 8 \
   --expert-model-parallel-size 32
