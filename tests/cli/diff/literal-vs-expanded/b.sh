#!/bin/bash
python3 train.py --tensor-model-parallel-size 2 --wandb-project "$PROJECT"
