#!/usr/bin/env python3
"""Writes the synthetic slime RL logs in tests/data/runlog/synthetic/ and prints the figures a
reader and `ladle score` must find in them, computed here in plain Python (independently of ladle).

No public slime or miles log of a whole RL run (rollout manager and trainer lines of several
rollouts) was found, so these are written by hand in slime's published format, labelled as such in
their first line. The format (THUDM/slime, commit 624b824a898ab0ec1fcb4d373004c7f3852bf515):
- slime/observability/logging_utils.py: "[%(asctime)s] %(filename)s:%(lineno)d - %(message)s",
  datefmt "%Y-%m-%d %H:%M:%S", behind Ray's "(Actor pid=N, ip=A)" prefix.
- slime/observability/rollout_metrics.py log_rollout_data: the rollout manager's
  "perf {rollout_id}: {...}" with rollout/response_len/* and perf/rollout_time,
  perf/tokens_per_gpu_per_sec, perf/longest_sample_tokens_per_sec.
- slime/observability/train_metric_utils.py log_rollout_data / gather_log_data: the trainer's
  "rollout {rollout_id}: {...}" with the per-sample means rollout/response_lengths,
  rollout/total_lengths, ...; log_perf_data: the trainer's "perf {rollout_id}: {...}" with one
  perf/<timer>_time per timer, perf/step_time = train_wait + train, perf/wait_time_ratio.
- slime/backends/megatron_utils/model.py train: "step {rollout_id * steps_per_rollout + step_id}:
  {...}" with train/global_batch_size.
- slime/observability/timer.py: "Timer NAME start" / "Timer NAME end (elapsed: X.Xs)" noise lines.
- train.py: update_weights after a rollout's training, so its time (and the offload after training)
  is in the next rollout's perf line.

Run from this folder: python3 make_rl_fixtures.py
"""
import os
import statistics

OUT = "synthetic"
TRAINER = "(MegatronTrainRayActor pid=2291, ip=10.0.3.17) "
MANAGER = "(RolloutManager pid=1874, ip=10.0.3.17) "


def stamp(seconds):
    s = int(round(seconds))
    return f"2026-11-02 {8 + s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def rl_log(name, rollouts, prompts, samples_per_prompt, steps_per_rollout, gpus, rollout_s, response_mean,
           prompt_mean, sample_override=None):
    """A colocated synchronous GRPO run; returns the expected figures over the default window."""
    samples = prompts * samples_per_prompt
    gbs = samples // steps_per_rollout
    lines = [f"# synthetic slime RL log written by tests/data/runlog/make_rl_fixtures.py in slime's published format "
             f"(not a real run; see that script for the format's source)"]
    t = 0.0
    lines.append(f"[{stamp(t)}] train.py:12 - starting: {rollouts} rollouts on {gpus} GPUs (colocated)")
    rows = []
    prev_sleep = 0.0
    for r in range(rollouts):
        update = 0.0 if r == 0 else 2.1 + 0.1 * (r % 3)
        wake = 2.4 + 0.05 * (r % 2)
        prep = 0.05
        gen = rollout_s[r]
        resp = response_mean[r]
        total = prompt_mean + resp
        ref = 14.0 + 0.5 * (r % 2)
        logp = 14.5 + 0.25 * (r % 3)
        train = 44.0 + 1.5 * (r % 4)
        adv = 0.3
        sleep = 5.0 + 0.2 * (r % 2)
        # The trainer's wait spans the last offload, the weight update, generation, onload, preparation.
        wait = prev_sleep + update + gen + wake + prep + (20.0 if r == 0 else 0.0)
        train_block = ref + logp + adv + train
        step_time = wait + train_block
        t += wait
        n = samples if sample_override is None or r != sample_override[0] else sample_override[1]
        lines.append(f"{MANAGER}[{stamp(t - wake - prep)}] rollout_metrics.py:268 - perf {r}: "
                     f"{{'rollout/response_len/mean': {resp}, 'rollout/response_len/max': {4096}, "
                     f"'rollout/truncated_ratio': 0.03125, 'perf/rollout_time': {gen}, "
                     f"'perf/tokens_per_gpu_per_sec': {samples * resp / gen / gpus}, "
                     f"'perf/longest_sample_tokens_per_sec': {4096 / gen}}}")
        lines.append(f"{TRAINER}[{stamp(t)}] timer.py:36 - Timer train_wait end (elapsed: {wait:.1f}s)")
        lines.append(f"{TRAINER}[{stamp(t)}] actor.py:382 - rollout {r}: {{'rollout/response_lengths': {resp}, "
                     f"'rollout/rewards': 0.0, 'rollout/truncated': 0.03125, 'rollout/raw_reward': "
                     f"{0.30 + 0.02 * r}, 'rollout/total_lengths': {total}, 'rollout/log_probs': -0.27, "
                     f"'rollout/ref_log_probs': -0.27, 'rollout/advantages': 0.0}}")
        for k in range(steps_per_rollout):
            step = r * steps_per_rollout + k
            lines.append(f"{TRAINER}[{stamp(t + ref + logp + train * (k + 1) / steps_per_rollout)}] model.py:918 - "
                         f"step {step}: {{'train/loss': {0.0021 - 0.0001 * step:.4f}, 'train/pg_loss': 0.0018, "
                         f"'train/entropy_loss': 0.41, 'train/pg_clipfrac': 0.002, 'train/ppo_kl': 0.0, "
                         f"'train/grad_norm': {0.62 + 0.01 * k}, 'train/lr-pg_0': 1e-06, "
                         f"'train/global_batch_size': {n // steps_per_rollout}, 'train/step': {step}}}")
        t += train_block
        lines.append(f"{TRAINER}[{stamp(t)}] train_metric_utils.py:401 - perf {r}: {{'perf/sleep_time': {prev_sleep}, "
                     f"'perf/update_weights_time': {update}, 'perf/wake_up_time': {wake}, "
                     f"'perf/data_preprocess_time': {prep}, 'perf/train_wait_time': {wait}, "
                     f"'perf/ref_log_probs_time': {ref}, 'perf/log_probs_time': {logp}, "
                     f"'perf/actor_train_time': {train}, 'perf/train_time': {train_block}, "
                     f"'perf/log_probs_tflops': 24.6, 'perf/actor_train_tflops': 27.0, "
                     f"'perf/step_time': {step_time}, 'perf/wait_time_ratio': {wait / step_time}}}")
        t += sleep
        prev_sleep = sleep
        rows.append(dict(step=step_time, gen=gen, logp=ref + logp, train=train, update=update, samples=n,
                         tokens=n * total))
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    skip = (rollouts + 3) // 4
    window = rows[skip:]
    time = sum(w["step"] for w in window)
    steps = [w["step"] for w in window]
    split = {k: sum(w[k] for w in window) / time for k in ("gen", "logp", "train", "update")}
    split["other"] = 1 - sum(split.values())
    print(f"{name}: window {skip}:{rollouts - 1}")
    print(f"  samples/s {sum(w['samples'] for w in window) / time!r}")
    print(f"  trained tokens/s per GPU {sum(w['tokens'] for w in window) / time / gpus!r}")
    print(f"  step time mean {statistics.mean(steps)!r} cv% {100 * statistics.stdev(steps) / statistics.mean(steps)!r}")
    print(f"  split {split!r}")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    gen = [180.5, 171.25, 168.0, 175.5, 162.75, 170.0, 166.5, 173.25]
    resp = [2773.5, 2701.25, 2655.0, 2690.75, 2610.5, 2644.0, 2598.25, 2633.5]
    rl_log("slime_rl_grpo_colocated.log", 8, 32, 8, 2, 8, gen, resp, 412.0)
    rl_log("slime_rl_grpo_wrong_samples.log", 8, 32, 8, 2, 8, gen, resp, 412.0, sample_override=(5, 240))
