#!/usr/bin/env python3
"""Writes the synthetic logs in tests/data/runlog/synthetic/ and prints the figures a reader and a
scorer must find in them, computed here in plain Python (independently of ladle).

Each log follows the public format cited in src/ladle/runlog/*_reader.cpp and carries the noise
real logs have (Ray actor prefixes, ANSI colours, torchrun prefixes, rollout/eval/timer/validation
lines that look like steps, hard-wrapped records, repeated-line notices). The three seed series
are built so that `ladle score` reproduces the published figures of the seed recipes: step times
are chosen to give their tokens/s per GPU and step-time CV (sample standard deviation), and the
first and last timestamps to give their GPU-hours.

Run from this folder: python3 make_fixtures.py
"""
import math
import os
import statistics

OUT = "synthetic"
RAY = "\x1b[36m(MegatronTrainRayActor pid=2291, ip=10.0.3.17)\x1b[0m "
ROLLOUT = "\x1b[33m(RolloutManager pid=1874, ip=10.0.3.17)\x1b[0m "


def hms(t0, seconds):
    """'YYYY-MM-DD HH:MM:SS' for t0 ('YYYY-MM-DD', 'HH:MM:SS') plus whole seconds."""
    day, clock = t0
    h, m, s = (int(x) for x in clock.split(":"))
    total = h * 3600 + m * 60 + s + int(round(seconds))
    return f"{day} {total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def window_times(mean, cv, pattern):
    """Values mean + a*pattern with sample sd / mean == cv exactly (before rounding)."""
    assert abs(sum(pattern)) < 1e-12
    sd_unit = statistics.stdev(pattern)
    a = cv * mean / sd_unit
    return [mean + a * p for p in pattern]


def slime_log(name, day, n_steps, window_first, gpus, target_tps, target_cv, span_s, losses, warmup, miles):
    tokens_per_step = 128 * 8192
    n_window = n_steps - window_first
    total = n_window * tokens_per_step / (gpus * target_tps)
    patterns = {
        10: [0.9, -1.1, 0.3, 1.4, -0.6, -1.2, 0.8, 0.2, -0.9, 0.2],
        15: [0.4, -1.3, 0.9, 1.1, -0.2, -0.8, 0.6, 0.3, -1.0, 0.5, -0.4, 1.2, -0.7, 0.1, -0.7],
    }
    times = warmup + window_times(total / n_window, target_cv, patterns[n_window])
    times = [round(t, 6) for t in times]
    steps_total = sum(times)
    startup = round((span_s - steps_total) * 0.8)
    lines = [f"# synthetic {'miles' if miles else 'slime'} log built by tests/data/runlog/make_fixtures.py "
             f"(format: see src/ladle/runlog/slime_reader.cpp)"]
    lines.append(f"[{hms(day, 0)}] train_async.py:18 - starting: {n_steps} rollouts on {gpus} GPUs")
    lines.append(ROLLOUT + f"[{hms(day, 40)}] rollout.py:212 - loading pretokenized rows")
    lines.append(RAY + f"[{hms(day, startup - 30)}] model.py:95 - set number of micro-batches to 1")
    t = startup
    for i, (dt, loss) in enumerate(zip(times, losses)):
        lines.append(ROLLOUT + f"[{hms(day, t)}] rollout.py:301 - rollout {i}: "
                     f"{{'rollout/response_len/mean': 8192.0, 'rollout/step': {i}}}")
        t += dt
        lr = 1e-5 if i >= 2 else 1e-5 * (i + 1) / 2
        grad = round(16.0 / (1 + i) + 0.3, 4)
        step = {"train/loss": loss, "train/grad_norm": grad, "train/lr-pg_0": lr,
                "train/global_batch_size": 128, "train/step": i}
        copies = 2 if miles else 1
        for _ in range(copies):
            lines.append(RAY + f"[{hms(day, t)}] model.py:642 - step {i}: {step}")
        perf = (f"{{'perf/train_wait_time': 0.0, 'perf/train_time': {dt!r}, 'perf/step_time': {dt!r}, "
                f"'perf/actor_train_tflops': np.float64({round(123.0 + i, 1)}), 'perf/wait_time_ratio': 0.0}}")
        for _ in range(copies):
            lines.append(RAY + f"[{hms(day, t)}] train_metric_utils.py:68 - perf {i}: {perf}")
        if i == 6:
            lines.append(RAY + f"[{hms(day, t)}] model.py:700 - eval {i}: {{'eval/loss': {loss}}}")
            lines.append(RAY + f"[{hms(day, t)}] model.py:701 - saved checkpoint [repeated 7x across cluster]")
    lines.append(f"[{hms(day, span_s)}] train_async.py:95 - finished")
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    window = times[window_first:]
    tps = n_window * tokens_per_step / sum(window) / gpus
    cv = statistics.stdev(window) / statistics.mean(window) * 100
    print(f"{name}: tokens/s/GPU {tps:.6f} -> {tps:.2f}; CV {cv:.6f}% -> {cv:.2f}; window tokens "
          f"{n_window * tokens_per_step}; summed window time {sum(window):.6f} s; span {span_s} s; "
          f"GPU-hours {gpus * span_s / 3600:.6f}")
    return times


def pearson(x, y):
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def tune(ref, cand, index, target, digits, lo, hi):
    """Adjusts cand[index] within [lo, hi] by bisection until pearson(ref, cand) rounds to target."""
    f = lambda v: pearson(ref, cand[:index] + [v] + cand[index + 1:]) - target
    assert f(lo) * f(hi) < 0
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(lo) < 0) == (f(mid) < 0):
            lo = mid
        else:
            hi = mid
    cand[index] = round((lo + hi) / 2, 6)
    assert round(pearson(ref, cand), digits) == target, pearson(ref, cand)
    return cand


def tolerance(golden):
    return 0.10 if golden > 2.0 else 0.05 if golden > 0.5 else 0.02


def converge_summary(name, ref, cand):
    corr = pearson(ref, cand)
    final = abs(cand[-1] - ref[-1]) / ref[-1]
    fails = [i for i, (r, c) in enumerate(zip(ref, cand)) if abs(c - r) / abs(r) > tolerance(r)]
    res = [c - r for r, c in zip(ref, cand)]
    mean = statistics.fmean(res)
    sd = statistics.pstdev(res)
    outliers = [i for i, e in enumerate(res) if abs(e - mean) > 3.0 * sd]
    print(f"{name}: correlation {corr:.8f}; final loss difference {final:.8f}; pointwise failures "
          f"{len(fails)} at {fails}; 3-sigma outliers {len(outliers)} at {outliers}")


def main():
    os.makedirs(OUT, exist_ok=True)
    # GLM-5.2 744B-A40B: the TP8 measured run is the candidate, a 20-step reference-recipe run the
    # reference; correlation 0.999465 and final difference 0.002 as published.
    ref52 = [round(1.212 - 0.0138 * i + 0.0009 * math.sin(i), 6) for i in range(20)]
    cand52 = [round(r * (1 + 0.0004 * math.cos(1.7 * i)), 6) for i, r in enumerate(ref52)]
    cand52[-1] = round(ref52[-1] * 1.002, 6)
    cand52 = tune(ref52, cand52, 9, 0.999465, 6, ref52[9] * 0.985, ref52[9] * 0.995)
    # GLM-4.7-Flash: 1.1580 vs 1.1465 at step 0 as in the recipe's notes; step 3 is tuned (to
    # about 1.08, not the 1.34 of the notes) so that the series gives the published correlation.
    ref47 = [1.1465, 1.0810, 1.0102, 0.9700, 0.9350, 0.9122, 0.8943, 0.8801, 0.8690, 0.8588,
             0.8502, 0.8431, 0.8367, 0.8310, 0.8262, 0.8221, 0.8185, 0.8151, 0.8122, 0.8096]
    cand47 = [1.1580, 1.1102, 1.0571, 1.3400, 0.9721, 0.9401, 0.9040, 0.8893, 0.8768, 0.8651,
              0.8556, 0.8472, 0.8399, 0.8335, 0.8294, 0.8250, 0.8211, 0.8175, 0.8146, 0.0]
    cand47[-1] = round(ref47[-1] * 1.0032, 6)
    cand47 = tune(ref47, cand47, 3, 0.9779, 4, 1.05, 1.10)
    tp4_losses = [round(1.212 - 0.0141 * i + 0.0011 * math.cos(i), 6) for i in range(14)]

    slime_log("slime_glm52_tp4_seed.log", ("2026-10-11", "10:00:00"), 14, 4, 128, 161.79, 0.0469, 1263,
              tp4_losses, [88.1, 61.4, 54.9, 52.7], False)
    slime_log("slime_glm52_tp8_seed.log", ("2026-10-13", "08:10:00"), 20, 5, 128, 131.12, 0.0517, 1817,
              cand52, [96.3, 70.2, 66.8, 63.9, 62.5], False)
    slime_log("slime_glm52_tp4_ref20.log", ("2026-10-13", "07:20:00"), 20, 5, 128, 158.70, 0.0450, 1380,
              ref52, [88.1, 61.4, 54.9, 52.7, 51.9], False)
    slime_log("miles_glm47flash_seed.log", ("2026-10-15", "14:00:00"), 20, 5, 8, 6178.46, 0.0095, 603,
              cand47, [41.2, 25.3, 22.4, 21.9, 21.5], True)
    slime_log("miles_glm47flash_ref.log", ("2026-10-14", "21:30:00"), 20, 5, 8, 3142.9, 0.0120, 1120,
              ref47, [70.4, 45.1, 43.0, 42.2, 41.9], True)
    converge_summary("glm52 tp8 vs 20-step reference", ref52, cand52)
    converge_summary("glm47flash tuned vs reference", ref47, cand47)


if __name__ == "__main__":
    main()
