#!/bin/bash
# Written for ladle's tests in the shape of what miles' command_utils.execute_train runs (radixark/miles).
export PYTHONUNBUFFERED=1 && ray start --head --node-ip-address 127.0.0.1 --num-gpus 8 --disable-usage-stats
MODEL_ARGS_LINE="$(python3 miles/utils/external_utils/model_args_utils.py glm4.7-flash)"
read -ra MODEL_ARGS <<< "$MODEL_ARGS_LINE"
export no_proxy=127.0.0.1 && export PYTHONUNBUFFERED=1 && ray job submit --address="http://127.0.0.1:8265" --runtime-env-json='{"env_vars": {"PYTHONUNBUFFERED": "1", "CUDA_DEVICE_MAX_CONNECTIONS": "1", "NCCL_NVLS_ENABLE": "0", "NVTE_FUSED_ATTN": "0", "no_proxy": "127.0.0.1,127.0.0.1", "MASTER_ADDR": "127.0.0.1", "PYTHONPATH": "/root/Megatron-LM"}}' -- python3 train.py "${MODEL_ARGS[@]}" --actor-num-nodes 1 --actor-num-gpus-per-node 8 --tensor-model-parallel-size 1 --expert-model-parallel-size 8 --lr 1e-5
