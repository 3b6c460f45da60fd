#!/usr/bin/env python3
"""The rollout model's fidelity on published serving measurements (data/inference/serving.yaml),
from `ladle rollout --calibrate --json`.

Usage: python3 bench/rollout_fidelity.py [path/to/ladle]

Prints each row (model, GPU, engine, layout, concurrency, lengths), its measured output tokens/s
per engine, the prediction with every row in the fit, the prediction with the row's source left
out of the fit, that prediction's error and its 80% interval; then the median |error| per source
and overall, the interval's coverage and the fitted constants with their leave-one-source-out
ranges.
"""
import json
import statistics
import subprocess
import sys

ladle = sys.argv[1] if len(sys.argv) > 1 else "./build/ladle"
fit = json.loads(subprocess.run([ladle, "rollout", "--calibrate", "--json"], check=True, capture_output=True,
                                text=True).stdout)
rows = fit["rows"]


def pct(x):
    return f"{100 * x:+.1f}%"


header = f"{'row':38} {'model':15} {'gpu':8} {'layout':12} {'conc':>5} {'in/out':>10} {'measured':>9} " \
         f"{'fitted':>9} {'held out':>9} {'error':>7}  80% interval"
print(header)
print("-" * len(header))
errors = {}
covered = 0
for r in rows:
    e = r["layout"]
    layout = f"tp{e['tp']}" + (f" dp{e['dp_attention']}" if e["dp_attention"] > 1 else "") + \
             (f" ep{e['ep']}" if e["ep"] > 1 else "") + f" w{e['weight_bits']}kv{e['kv_bits']}"
    err = r["held_out"] / r["measured_tokens_per_s_per_engine"] - 1
    errors.setdefault(r["from"], []).append(err)
    inside = r["held_out_lo"] <= r["measured_tokens_per_s_per_engine"] <= r["held_out_hi"]
    covered += inside
    print(f"{r['id']:38} {r['model']:15} {r['gpu']:8} {layout:12} {r['concurrency']:>5} "
          f"{str(r['input']) + '/' + str(r['output']):>10} {r['measured_tokens_per_s_per_engine']:9.1f} "
          f"{r['fitted']:9.1f} {r['held_out']:9.1f} {pct(err):>7}  {r['held_out_lo']:.1f}-{r['held_out_hi']:.1f}"
          f"{'' if inside else '  (outside)'}")
print()
print(f"{len(rows)} rows from {len(fit['sources'])} sources")
for source, errs in errors.items():
    print(f"  {source}: {len(errs)} rows, median |error| held out {100 * statistics.median(abs(x) for x in errs):.1f}%")
print(f"median |error|: {100 * fit['median_abs_error_fitted']:.1f}% with every row in the fit, "
      f"{100 * fit['median_abs_error_held_out']:.1f}% leave-one-source-out")
print(f"80% interval (held-out residual percentiles) covers {covered} of {len(rows)} rows")
print(f"constants: hbm_fraction {fit['hbm_fraction']:.4g} (leave-one-source-out {fit['hbm_fraction_range'][0]:.4g} "
      f"to {fit['hbm_fraction_range'][1]:.4g}), step_overhead {1e3 * fit['step_overhead_s']:.3g} ms "
      f"({1e3 * fit['step_overhead_s_range'][0]:.3g} to {1e3 * fit['step_overhead_s_range'][1]:.3g}), "
      f"layer_overhead {1e6 * fit['layer_overhead_s']:.3g} us ({1e6 * fit['layer_overhead_s_range'][0]:.3g} to "
      f"{1e6 * fit['layer_overhead_s_range'][1]:.3g})")
