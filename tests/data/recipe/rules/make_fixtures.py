#!/usr/bin/env python3
"""Writes one fixture per recipe rule: the GLM-5.2 TP4 PP4 seed with one thing broken.

Run from this folder after changing the seed or the rules; the test (tests/recipe/rules_test.cpp)
checks that each fixture trips its rule and no other.
"""
import pathlib

base = pathlib.Path("../seeds/glm-5.2-744b-a40b-h200-attune-tp4-pp4.yaml").read_text()

# rule id, fixture name, [(text, replacement), ...]
cases = [
    ("R1", "dp_does_not_multiply_to_gpu_count", [("  dp: 8\n", "  dp: 16\n")]),
    ("R2", "count_not_whole_nodes", [("  per_node: 8\n", "  per_node: 6\n"),
                                     ("  instance: AWS p5en.48xlarge\n", "  instance: on-premises cluster\n")]),
    ("R3", "run_node_count_disagrees", [("--actor-num-nodes 16", "--actor-num-nodes 15")]),
    ("R4", "expert_layout_does_not_fold", [("  ep: 32\n", "  ep: 48\n"),
                                           ("--expert-model-parallel-size 32", "--expert-model-parallel-size 48")]),
    ("R5", "layer_split_does_not_sum", [("    first: 18\n", "    first: 17\n"),
                                        ("--decoder-first-pipeline-num-layers 18", "--decoder-first-pipeline-num-layers 17")]),
    ("R6", "window_tokens_wrong", [("  window_tokens: 10485760\n", "  window_tokens: 10485761\n")]),
    ("R7", "window_past_last_step", [("  - 13\n", "  - 14\n"),
                                     ("  window_tokens: 10485760\n", "  window_tokens: 11534336\n")]),
    ("R8", "run_step_count_disagrees", [("--num-rollout 14", "--num-rollout 15")]),
    ("R9", "mfu_wrong", [("  mfu: 0.0396\n", "  mfu: 0.0401\n")]),
    ("R10", "active_params_not_n", [("    count: 40297758720\n", "    count: 40297758721\n")]),
    ("R11", "cost_wrong", [("  usd_per_million_tokens: 13.58\n", "  usd_per_million_tokens: 13.5\n")]),
    ("R12", "launch_tp_disagrees", [("--tensor-model-parallel-size 4", "--tensor-model-parallel-size 2")]),
    ("R13", "env_differs_from_exports", [("  CUDA_DEVICE_MAX_CONNECTIONS: '1'\n", "  CUDA_DEVICE_MAX_CONNECTIONS: '2'\n")]),
    ("R14", "max_tokens_below_a_row", [("  max_tokens_per_gpu: 8192\n", "  max_tokens_per_gpu: 4096\n"),
                                       ("--max-tokens-per-gpu 8192", "--max-tokens-per-gpu 4096")]),
    ("R15", "dataset_too_small", [("      rows: 12800\n", "      rows: 1000\n")]),
    ("R16", "gpu_hours_below_window", [("  gpu_hours: 44.9\n", "  gpu_hours: 10.0\n")]),
    ("R17", "verified_without_passing_check", [("correctness:\n  result: pass\n", "correctness:\n  result: fail\n")]),
    ("R18", "memory_not_the_gpus", [("  memory_gb: 141\n", "  memory_gb: 80\n")]),
]

for rule, name, edits in cases:
    text = base
    for old, new in edits:
        assert text.count(old) == 1, (rule, old)
        text = text.replace(old, new)
    lines = text.split("\n")
    lines[0] = f"# {rule} fixture: the GLM-5.2 TP4 PP4 seed with one thing broken ({name.replace('_', ' ')})"
    pathlib.Path(f"{rule}-{name}.yaml").write_text("\n".join(lines))
