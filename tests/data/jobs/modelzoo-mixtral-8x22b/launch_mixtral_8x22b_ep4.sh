#!/bin/bash
# The same benchmark with EP 4 on 4 nodes and a global batch of 128: what `ladle diff` must tell
# apart from launch_mixtral_8x22b.sh.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL=Mixtral-8x22B TP=2 PP=4 EP=4 VPP=2 NNODES=4 GBS=128 PR=bf16 \
  bash "${HERE}/sbatch_benchmarking.sh" --recompute-granularity selective --recompute-modules moe_act layernorm
