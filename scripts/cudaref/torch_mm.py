#!/usr/bin/env python3
"""PyTorch's f16 matmul at N^3 (default 8192), timed like mm.cu's kernels:
3 warm-ups, about a second of load, then the median of 10 CUDA-event samples.
Prints one line: RESULT kernel=torch.matmul n=N TFLOPs=... ms=...
"""
import statistics, sys, time
import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = (torch.rand(n, n, device="cuda") * 2 - 1).half()
b = (torch.rand(n, n, device="cuda") * 2 - 1).half()
f = lambda: torch.matmul(a, b)
for _ in range(3):
    f()
torch.cuda.synchronize()
t0 = time.time()
while time.time() - t0 < 1.0:
    for _ in range(10):
        f()
    torch.cuda.synchronize()
ts = []
for _ in range(10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); f(); e.record(); torch.cuda.synchronize()
    ts.append(s.elapsed_time(e))
ms = statistics.median(ts)
print(f"RESULT kernel=torch.matmul n={n} TFLOPs={2 * n**3 / (ms * 1e-3) / 1e12:.1f} ms={ms:.3f} torch={torch.__version__}", flush=True)
