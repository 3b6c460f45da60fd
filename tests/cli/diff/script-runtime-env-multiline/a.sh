#!/bin/bash
# A runtime env built as a multi-line JSON string (slime's run scripts): its env vars are compared.
NVLS=${NVLS:-1}
RUNTIME_ENV_JSON="{
  \"env_vars\": {
    \"CUDA_DEVICE_MAX_CONNECTIONS\": \"1\",
    \"NCCL_NVLS_ENABLE\": \"${NVLS}\"
  }
}"
ray job submit --address="http://127.0.0.1:8265" --runtime-env-json="${RUNTIME_ENV_JSON}" \
  -- python3 train.py --tensor-model-parallel-size 2 --lr 1e-6
