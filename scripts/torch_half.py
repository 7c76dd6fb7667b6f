#!/usr/bin/env python3
"""PyTorch baselines for kernels' 16-bit ops on the H200 (scripts/h200-half.sh),
measured as kernels' BenchmarkHalf measures them: copy of 256 MiB f32; decode
products x·Wᵀ (F.linear) and x·W with 8 f16/bf16 weight matrices 4096x4096
rotated (256 MiB, beyond L2) and one repeated ("hot"), GB/s over the weight
bytes ("matmul_hot" is torch_baselines.py's matmul_skinny: one matrix, a @ b);
f16 matmul 4096³; f16 add, silu and rms_norm on 256 MiB.
Prints RESULT lines like ../shared/baselines/torch_baselines.py.
"""
import torch
import torch.nn.functional as F

from torch_common import DIM, copy, decode, dev, per_op, res


def main(parts):
    copy(10)
    for dt in (torch.float16, torch.bfloat16) if "decode" in parts else ():
        ws = decode(dt, (1, 4, 16), hot=True)
        if dt == torch.float16:
            t = per_op(lambda i: ws[1] @ ws[0], 5)
            res("matmul", dtype="float16", n=DIM, TFLOPs=2 * DIM**3 / t / 1e12)
        del ws
    n = 64 << 20
    h = torch.randn(2 * n, device=dev, dtype=torch.float16)
    h2 = torch.randn(2 * n, device=dev, dtype=torch.float16)
    t = per_op(lambda i: h + h2, 10)
    res("f16_add", GBps=12 * n / t / 1e9)
    t = per_op(lambda i: F.silu(h), 10)
    res("f16_silu", GBps=8 * n / t / 1e9)
    for cols in (4096, 32768):
        x = h.view(-1, cols)
        w = torch.randn(cols, device=dev, dtype=torch.float16)
        t = per_op(lambda i: F.rms_norm(x, (cols,), w, 1e-5), 10)
        res("f16_rmsnorm", cols=cols, GBps=8 * n / t / 1e9)


if __name__ == "__main__":
    import sys
    main(sys.argv[1:] or ["decode"])  # "nodecode": copy and the f16 elementwise/rmsnorm only
