#!/bin/bash
# Mixtral-8x22B on 8 nodes of 8 GPUs, launched the way Megatron-MoE-ModelZoo's README launches its
# benchmarks (see .source.txt): parallel sizes as environment prefixes of `bash
# sbatch_benchmarking.sh`, extra training arguments as its positional arguments.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL=Mixtral-8x22B TP=2 PP=4 EP=8 VPP=2 NNODES=8 GBS=${GBS:-256} PR=bf16 \
  bash "${HERE}/sbatch_benchmarking.sh" --recompute-granularity selective --recompute-modules moe_act layernorm
