"""Plans a model across GPU counts with `import ladle` and plots the predicted best tokens/s per GPU
(with its 80% interval) and $ per 1M tokens against the GPU count, with the catalog's measured
recipe as a point. Writes docs/python_plan_sweep.png; docs/python.md shows this script's output.

Run from the repository root after building (the module is build/python/ladle*.so):
    PYTHONPATH=build/python python3 python/examples/plan_sweep.py
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, no display
import matplotlib.pyplot as plt

import ladle

MODEL, GPU = "glm-4.7-flash", "h200"
COUNTS = [8, 16, 32, 64, 128]
OUT = Path(__file__).resolve().parents[2] / "docs" / "python_plan_sweep.png"

# 1. One plan per GPU count: the best layout of each, as `ladle plan ... --json` gives it.
rows = []
for gpus in COUNTS:
    plan = ladle.plan(MODEL, gpu=GPU, gpus=gpus, top=1)
    best = plan["top"][0]
    rows.append((gpus, best))
    low, high = best["tokens_per_s_per_gpu_interval"]
    print(f"{gpus:4d} x {GPU}: {best['label']:<22} {best['tokens_per_s_per_gpu']:9,.0f} tok/s/GPU "
          f"({low:,.0f}-{high:,.0f})  ${best['usd_per_million_tokens']:.2f}/1M  "
          f"{best['memory_gib']:.1f} of {best['capacity_gib']:.1f} GiB")

# 2. The catalog's measured recipe of the same model and GPU, read as a dict.
recipe = ladle.read_recipe("attune-tp1-pp1-ep8")
measured = (recipe["gpu"]["count"], recipe["result"]["tokens_per_s_per_gpu"],
            recipe["result"]["usd_per_million_tokens"])
print(f"measured: {recipe['gpu']['count']} x {recipe['gpu']['type']}, {recipe['status']}: "
      f"{measured[1]:,.0f} tok/s/GPU, ${measured[2]:.2f}/1M")

# 3. A bad call raises ladle.Error with the binary's one-line message.
try:
    ladle.plan(MODEL, gpu="h201", gpus=8)
except ladle.Error as e:
    print(f"ladle.Error: {e}")

# 4. The figure.
gpus = [n for n, _ in rows]
tps = [b["tokens_per_s_per_gpu"] for _, b in rows]
low = [b["tokens_per_s_per_gpu"] - b["tokens_per_s_per_gpu_interval"][0] for _, b in rows]
high = [b["tokens_per_s_per_gpu_interval"][1] - b["tokens_per_s_per_gpu"] for _, b in rows]
cost = [b["usd_per_million_tokens"] for _, b in rows]

fig, left = plt.subplots(figsize=(7.5, 4.2), dpi=120)
left.errorbar(gpus, tps, yerr=[low, high], marker="o", capsize=4, color="tab:blue",
              label="predicted best (80% interval)")
left.scatter([measured[0]], [measured[1]], marker="*", s=160, color="tab:red", zorder=3,
             label=f"measured recipe ({recipe['status']})")
left.set_xscale("log", base=2)
left.set_xticks(gpus, [str(n) for n in gpus])
left.set_xlabel(f"GPUs ({GPU})")
left.set_ylabel("tokens/s per GPU")
left.set_ylim(bottom=0)
right = left.twinx()
right.plot(gpus, cost, marker="s", linestyle="--", color="tab:green", label="$ per 1M tokens (predicted)")
right.set_ylabel("$ per 1M tokens")
right.set_ylim(bottom=0)
handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
left.legend(handles, [h.get_label() for h in handles], loc="lower left", fontsize=9)
left.set_title(f"{MODEL}: ladle.plan across GPU counts")
fig.tight_layout()
fig.savefig(OUT)
print(f"wrote {OUT.relative_to(OUT.parents[1])}")
