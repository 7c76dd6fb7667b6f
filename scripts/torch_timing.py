"""Timing and output shared by scripts/torch_decode.py and scripts/torch_half.py
(the h200-*.sh builders copy it beside them): per_op times a call as
../shared/baselines/torch_baselines.py does, res prints its RESULT lines.
"""
import statistics
import torch


def per_op(fn, reps, warm=3, rounds=5):
    """Median over rounds of (CUDA-event time of reps calls) / reps."""
    for i in range(warm):
        fn(i)
    ts = []
    for _ in range(rounds):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for i in range(reps):
            fn(i)
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 1e3 / reps)
    return statistics.median(ts)


def res(name, **kv):
    print("RESULT name=" + name + " " + " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kv.items()), flush=True)
