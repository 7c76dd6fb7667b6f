#!/usr/bin/env python3
"""PyTorch baselines for kernels' decode products on the H200 (scripts/h200-decode.sh),
measured as kernels' BenchmarkDecode measures them: copy of 256 MiB f32 (the
bandwidth baseline); x·Wᵀ (F.linear, what a model calls) and x·W with 1, 4, 8
and 16 rows of x, 8 weight matrices 4096x4096 rotated (256 MiB, beyond L2),
GB/s over the weight bytes; f16 throughout (and bf16 at 1 and 16 rows, unless
the argument "f16" is given). Each
figure: the median over 5 rounds of (CUDA-event time of 100 calls) / 100.
Prints RESULT lines like ../shared/baselines/torch_baselines.py.
"""
import torch
import torch.nn.functional as F

from torch_timing import per_op, res

dev = "cuda"


def main(types):
    n = 64 << 20
    a = torch.randn(n, device=dev)
    b = torch.empty_like(a)
    t = per_op(lambda i: b.copy_(a), 20)
    res("copy", GBps=8 * n / t / 1e9)
    del a, b
    dim, mats = 4096, 8
    for dt in types:
        name = str(dt).split(".")[1]
        ws = [torch.randn(dim, dim, device=dev, dtype=dt) * 0.01 for _ in range(mats)]
        wbytes = 2 * dim * dim
        for m in (1, 4, 8, 16) if dt == torch.float16 else (1, 16):
            x = torch.randn(m, dim, device=dev, dtype=dt)
            for form, fn in (("linear", lambda i: F.linear(x, ws[i % mats])), ("matmul", lambda i: x @ ws[i % mats])):
                t = per_op(fn, 100)
                res("decode", dtype=name, form=form, m=m, k=dim, n=dim, GBps=wbytes / t / 1e9, us=t * 1e6)
        del ws


if __name__ == "__main__":
    import sys
    main((torch.float16,) if sys.argv[1:] == ["f16"] else (torch.float16, torch.bfloat16))
