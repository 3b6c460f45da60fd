#!/usr/bin/env python3
"""Measures the host-device and device memory bandwidths and the sustained BF16 GEMM rate and clock.

Run on the GPU to measure: `python3 bench/gpu_sustained.py OUT.json [SECONDS]`. Bandwidths are the
mean of 10 copies of 1 GiB after 2 warm-ups (pinned and pageable host memory; device-to-device
counted as bytes read plus written). The sustained part runs 8192x8192x8192 BF16 GEMMs back to back
for SECONDS (default 45) and samples the SM clock and power with nvidia-smi every 0.5 s.
"""
import json
import subprocess
import sys
import time

import torch

GIB = 1 << 30


def bandwidth(copy, nbytes, reps=10):
    for _ in range(2):
        copy()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        copy()
    torch.cuda.synchronize()
    return nbytes * reps / (time.perf_counter() - t0) / 1e9


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "gpu_sustained.json"
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 45.0
    r = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
         "date": time.strftime("%Y-%m-%d", time.gmtime())}
    dev = torch.empty(GIB, dtype=torch.uint8, device="cuda")
    dev2 = torch.empty(GIB, dtype=torch.uint8, device="cuda")
    pinned = torch.empty(GIB, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(GIB, dtype=torch.uint8)
    r["h2d_pinned_GBps"] = bandwidth(lambda: dev.copy_(pinned, non_blocking=True), GIB)
    r["d2h_pinned_GBps"] = bandwidth(lambda: pinned.copy_(dev, non_blocking=True), GIB)
    r["h2d_pageable_GBps"] = bandwidth(lambda: dev.copy_(pageable), GIB, reps=4)
    r["d2h_pageable_GBps"] = bandwidth(lambda: pageable.copy_(dev), GIB, reps=4)
    r["d2d_GBps_read_plus_write"] = 2 * bandwidth(lambda: dev2.copy_(dev), GIB, reps=20)
    del dev, dev2, pinned, pageable
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                            "--format=csv,noheader,nounits", "-lms", "500"], stdout=subprocess.PIPE, text=True)
    windows = []
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        for _ in range(50):
            a @ b
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        windows.append(50 * 2 * 8192 ** 3 / dt / 1e12)
    smi.terminate()
    samples = [line.split(",") for line in smi.communicate()[0].strip().splitlines()]
    r["gemm_tflops_windows"] = [round(x, 1) for x in windows]
    r["smi_samples"] = [[float(x) for x in s] for s in samples if len(s) == 3]
    with open(out, "w") as f:
        json.dump(r, f, indent=1)
    print({k: v for k, v in r.items() if not isinstance(v, list)})
    print("gemm first/last windows", windows[:3], windows[-3:], "samples", len(r["smi_samples"]))


if __name__ == "__main__":
    main()
