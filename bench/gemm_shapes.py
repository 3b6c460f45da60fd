#!/usr/bin/env python3
"""Measures GEMM and grouped-GEMM throughput by shape on one GPU, for the planner's shape terms.

Run on the GPU to measure (PyTorch with CUDA): `python3 bench/gemm_shapes.py OUT.json`. Each row is
one shape and precision: rows (M: tokens, or tokens per expert), output width N, reduction K, the
mean time of 20 timed calls after 5 warm-ups (CUDA events), and TFLOP/s at 2*M*N*K FLOPs per GEMM.
Inputs are random normal; FP8 is e4m3 through torch._scaled_mm with per-tensor scales.
"""
import json
import sys
import time

import torch


def timed(fn, warm=5, reps=20):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps / 1e3


def dense(m, n, k, precision):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    if precision == "bf16":
        return timed(lambda: a @ b.t())
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return timed(lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))


def grouped(experts, rows, n, k):
    a = torch.randn(experts * rows, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(experts, k, n, device="cuda", dtype=torch.bfloat16)
    offs = torch.arange(rows, experts * rows + 1, rows, device="cuda", dtype=torch.int32)
    return timed(lambda: torch._grouped_mm(a, b, offs=offs))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "gemm_shapes.json"
    rows_list = [128, 192, 256, 300, 384, 512, 640, 1024, 2048, 4096, 8192, 16384]
    shapes = [(2880, 5760), (2880, 2880), (3072, 6144), (3072, 3072), (4096, 4096), (7168, 2048),
              (2048, 7168), (4096, 1536), (1536, 4096)]  # (K, N)
    result = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cuda": torch.version.cuda, "date": time.strftime("%Y-%m-%d", time.gmtime()),
              "dense": [], "grouped": []}
    for precision in ("bf16", "fp8"):
        for k, n in shapes:
            for m in rows_list:
                try:
                    s = dense(m, n, k, precision)
                    result["dense"].append({"precision": precision, "m": m, "n": n, "k": k, "seconds": s,
                                            "tflops": 2 * m * n * k / s / 1e12})
                except Exception as e:  # noqa: BLE001 - recorded, not hidden
                    result["dense"].append({"precision": precision, "m": m, "n": n, "k": k, "error": str(e)[:200]})
    for k, n in [(2880, 5760), (3072, 6144), (2880, 2880), (3072, 3072), (7168, 4096), (2048, 7168)]:
        for rows in [64, 128, 200, 256, 300, 512, 1024, 2048, 4096]:
            experts = 32
            try:
                s = grouped(experts, rows, n, k)
                result["grouped"].append({"precision": "bf16", "experts": experts, "rows": rows, "n": n, "k": k,
                                          "seconds": s, "tflops": 2 * experts * rows * n * k / s / 1e12})
            except Exception as e:  # noqa: BLE001
                result["grouped"].append({"precision": "bf16", "experts": experts, "rows": rows, "n": n, "k": k,
                                          "error": str(e)[:200]})
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    for row in result["dense"][:3] + result["grouped"][:3]:
        print(row)
    print("rows:", len(result["dense"]), len(result["grouped"]),
          "errors:", sum("error" in r for r in result["dense"] + result["grouped"]))


if __name__ == "__main__":
    main()
