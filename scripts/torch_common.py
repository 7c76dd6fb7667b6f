"""What scripts/torch_decode.py and scripts/torch_half.py measure alike (the
h200-*.sh builders copy this file beside them): per_op times a call as
../shared/baselines/torch_baselines.py does, res prints its RESULT lines,
copy and decode are the two scripts' copy and decode-product baselines.
"""
import statistics
import torch
import torch.nn.functional as F

dev = "cuda"
DIM, MATS = 4096, 8  # decode weights: 8 matrices 4096x4096 (256 MiB of 16-bit, beyond L2)


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


def copy(reps):
    """Copy of 256 MiB f32 (the bandwidth baseline), timed over reps calls."""
    n = 64 << 20
    a = torch.randn(n, device=dev)
    b = torch.empty_like(a)
    t = per_op(lambda i: b.copy_(a), reps)
    res("copy", GBps=8 * n / t / 1e9)


def decode(dt, rows, hot=False):
    """x·Wᵀ (F.linear) and x·W for each row count of rows, the weights of
    type dt rotating through MATS matrices (with hot, also one repeated),
    100 calls each; GB/s over the weight bytes. Returns the weights."""
    name = str(dt).split(".")[1]
    ws = [torch.randn(DIM, DIM, device=dev, dtype=dt) * 0.01 for _ in range(MATS)]
    wbytes = 2 * DIM * DIM
    # what streaming one weight matrix costs PyTorch at all, the ceiling
    # for a product that reads it once: a sum over its 32 MiB, and a copy
    # of it (GB/s of bytes read and written), the matrices rotating
    out = torch.empty_like(ws[0])
    for form, fn, nbytes in (("sum", lambda i: ws[i % MATS].sum(dtype=torch.float32), wbytes),
                             ("copy", lambda i: out.copy_(ws[i % MATS]), 2 * wbytes)):
        t = per_op(fn, 100)
        res("stream", dtype=name, form=form, MiB=wbytes >> 20, GBps=nbytes / t / 1e9, us=t * 1e6)
    for m in rows:
        x = torch.randn(m, DIM, device=dev, dtype=dt)
        forms = [("linear", lambda i: F.linear(x, ws[i % MATS])), ("matmul", lambda i: x @ ws[i % MATS])]
        if hot:
            forms += [("linear_hot", lambda i: F.linear(x, ws[0])), ("matmul_hot", lambda i: x @ ws[0])]
        for form, fn in forms:
            t = per_op(fn, 100)
            res("decode", dtype=name, form=form, m=m, k=DIM, n=DIM, GBps=wbytes / t / 1e9, us=t * 1e6)
    return ws
