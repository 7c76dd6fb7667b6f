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

from torch_timing import per_op, res

dev = "cuda"


def main(parts):
    n = 64 << 20
    a = torch.randn(n, device=dev)
    b = torch.empty_like(a)
    t = per_op(lambda i: b.copy_(a), 10)
    res("copy", GBps=8 * n / t / 1e9)
    del a, b
    dim, mats = 4096, 8
    for dt in (torch.float16, torch.bfloat16) if "decode" in parts else ():
        name = str(dt).split(".")[1]
        ws = [torch.randn(dim, dim, device=dev, dtype=dt) * 0.01 for _ in range(mats)]
        wbytes = 2 * dim * dim
        for m in (1, 4, 16):
            x = torch.randn(m, dim, device=dev, dtype=dt)
            for form, fn in (("linear", lambda i: F.linear(x, ws[i % mats])), ("matmul", lambda i: x @ ws[i % mats]),
                             ("linear_hot", lambda i: F.linear(x, ws[0])), ("matmul_hot", lambda i: x @ ws[0])):
                t = per_op(fn, 100)
                res("decode", dtype=name, form=form, m=m, k=dim, n=dim, GBps=wbytes / t / 1e9, us=t * 1e6)
        if dt == torch.float16:
            t = per_op(lambda i: ws[1] @ ws[0], 5)
            res("matmul", dtype=name, n=dim, TFLOPs=2 * dim**3 / t / 1e12)
        del ws
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
