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

from torch_common import copy, decode


def main(types):
    copy(20)
    for dt in types:
        decode(dt, (1, 4, 8, 16) if dt == torch.float16 else (1, 16))


if __name__ == "__main__":
    import sys
    main((torch.float16,) if sys.argv[1:] == ["f16"] else (torch.float16, torch.bfloat16))
