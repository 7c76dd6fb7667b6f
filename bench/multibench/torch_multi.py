#!/usr/bin/env python3
"""PyTorch's side of bench/multibench: the same batched matmul and decoder block, data-parallel
over GPUs cuda:0..N-1 from one process (weights replicated, the batch split in contiguous parts,
as kernels/multi splits it), on 1, 2, ... N GPUs.

Usage (on the device machine):
  python3 torch_multi.py [--gpus N] [--what matmul,block] [--batch 8 --m 2048 --k 4096 --n 4096]
                         [--seqs 16 --seq 1024 --dim 2048 --heads 16 --kvheads 4 --headdim 128 --ffn 5632]

f32 with TF32 off, like kc's f32 kernels. Modes as multibench's: "resident" times the work on
inputs already on the GPUs (launch on every GPU, then synchronise all); "host" times host memory
to host memory (each GPU's part uploaded, computed and copied back into one CPU result, one
thread per GPU). Prints one line per figure:
  RESULT name=matmul impl=torch mode=resident devices=2 ms=... TFLOPs=... speedup=...
"""
import argparse, concurrent.futures, math, statistics, time
import torch
import torch.nn.functional as F


def split(n, parts):
    """Equal weights, largest remainder, ties to the lower index: kernels/multi's Split."""
    base, extra = divmod(n, parts)
    counts = [base + (1 if i < extra else 0) for i in range(parts)]
    out, lo = [], 0
    for c in counts:
        out.append((lo, lo + c))
        lo += c
    return out


def sync(devs):
    for d in devs:
        torch.cuda.synchronize(d)


def median(fn, devs, reps, warm):
    for _ in range(warm):
        fn()
        sync(devs)
    ts = []
    for _ in range(reps):
        sync(devs)
        t0 = time.perf_counter()
        fn()
        sync(devs)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def result(name, mode, nd, t, flops, base, extra=""):
    print(f"RESULT name={name} impl=torch mode={mode} devices={nd} ms={t * 1e3:.3f} "
          f"TFLOPs={flops / t / 1e12:.4g}{extra} speedup={base / t:.3f}", flush=True)


def compare(what, got, one):
    d = (got - one).abs().max().item()
    print(f"{what}: max |diff| from one GPU's result {d:.3g}", flush=True)


def bench_matmul(a, args, gpus, pool):
    b, m, k, n = args.batch, args.m, args.k, args.n
    w = (torch.rand(k, n) * 2 - 1) / math.sqrt(k)
    flops = 2.0 * b * m * k * n
    print(f"matmul: batch {b} of [{m} {k}]·[{k} {n}] f32, {flops / 1e9:.1f} GFLOP per call", flush=True)
    base, one = None, None
    for nd in range(1, len(gpus) + 1):
        devs = gpus[:nd]
        parts = split(b, nd)
        ws = [w.to(d) for d in devs]
        xs = [a[lo:hi].to(d) for d, (lo, hi) in zip(devs, parts)]
        ys = [torch.empty(hi - lo, m, n, device=d) for d, (lo, hi) in zip(devs, parts)]

        def resident():
            for x, wd, y in zip(xs, ws, ys):
                torch.matmul(x, wd, out=y)

        out = torch.empty(b, m, n)

        def part(i):
            lo, hi = parts[i]
            if hi > lo:
                out[lo:hi].copy_(torch.matmul(a[lo:hi].to(devs[i]), ws[i]))

        def host():
            list(pool.map(part, range(nd)))

        tr = median(resident, devs, args.reps, args.warm)
        th = median(host, devs, args.reps, args.warm)
        if nd == 1:
            base, one = (tr, th), out.clone()
            r = torch.randint(0, m, (8,))
            want = a[0, r].double() @ w.double()
            print(f"matmul: 8 sampled rows, max |diff| from float64 {(out[0, r].double() - want).abs().max().item():.3g}")
        else:
            compare(f"matmul on {nd} GPUs", out, one)
        result("matmul", "resident", nd, tr, flops, base[0])
        result("matmul", "host", nd, th, flops, base[1])
        del ws, xs, ys


def block_weights(c):
    d, q, kv, ff = c.dim, c.heads * c.headdim, c.kvheads * c.headdim, c.ffn
    u = lambda *shape, s: (torch.rand(*shape) * 2 - 1) * s
    s, sf = 1 / math.sqrt(d), 1 / math.sqrt(ff)
    return dict(n1=u(d, s=1), n2=u(d, s=1), wq=u(q, d, s=s), wk=u(kv, d, s=s), wv=u(kv, d, s=s),
                wo=u(d, q, s=s), wg=u(ff, d, s=s), wu=u(ff, d, s=s), wd=u(d, ff, s=sf))


def block(x, W, c, cos, sin):
    """kernels/multi's block: RMSNorm, q/k/v, RoPE (rotate-half, positions 0..t-1), causal GQA
    attention, output projection, residual, RMSNorm, SiLU-gated MLP, residual."""
    b, t, d = x.shape
    hq, hkv, dh = c.heads, c.kvheads, c.headdim
    half = dh // 2

    def rope(y):
        y1, y2 = y[..., :half], y[..., half:]
        return torch.cat((y1 * cos - y2 * sin, y2 * cos + y1 * sin), dim=-1)

    h = F.rms_norm(x, (d,), W["n1"], 1e-5)
    q = rope((h @ W["wq"].T).view(b, t, hq, dh)).transpose(1, 2)
    k = rope((h @ W["wk"].T).view(b, t, hkv, dh)).transpose(1, 2)
    v = (h @ W["wv"].T).view(b, t, hkv, dh).transpose(1, 2)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hkv)
    x2 = x + a.transpose(1, 2).reshape(b, t, hq * dh) @ W["wo"].T
    h2 = F.rms_norm(x2, (d,), W["n2"], 1e-5)
    return x2 + (F.silu(h2 @ W["wg"].T) * (h2 @ W["wu"].T)) @ W["wd"].T


def block_flops(c, t):
    d, q, kv = c.dim, c.heads * c.headdim, c.kvheads * c.headdim
    return 2.0 * t * d * (2 * q + 2 * kv) + 2.0 * t * 3 * d * c.ffn + 2.0 * 2 * t * t / 2 * q


def bench_block(args, gpus, pool):
    c = args
    W = block_weights(c)
    x = torch.rand(c.seqs, c.seq, c.dim) * 2 - 1
    flops = c.seqs * block_flops(c, c.seq)
    print(f"block: {c.seqs} sequences of {c.seq} tokens, dim {c.dim}, {c.heads}/{c.kvheads} heads of "
          f"{c.headdim}, ffn {c.ffn}, f32, {flops / 1e9:.1f} GFLOP per call", flush=True)
    pos = torch.arange(c.seq, dtype=torch.float64)[:, None]
    inv = 10000.0 ** (-2 * torch.arange(c.headdim // 2, dtype=torch.float64) / c.headdim)
    ang = (pos * inv)[:, None, :]  # [t, 1, dh/2]: broadcast over heads
    base, one = None, None
    for nd in range(1, len(gpus) + 1):
        devs = gpus[:nd]
        parts = split(c.seqs, nd)
        Ws = [{k: v.to(d) for k, v in W.items()} for d in devs]
        trig = [(ang.cos().float().to(d), ang.sin().float().to(d)) for d in devs]
        xs = [x[lo:hi].to(d) for d, (lo, hi) in zip(devs, parts)]

        def resident():
            for i in range(nd):
                if xs[i].shape[0] > 0:
                    block(xs[i], Ws[i], c, *trig[i])

        out = torch.empty_like(x)

        def part(i):
            lo, hi = parts[i]
            if hi > lo:
                out[lo:hi].copy_(block(x[lo:hi].to(devs[i]), Ws[i], c, *trig[i]))

        def host():
            list(pool.map(part, range(nd)))

        with torch.no_grad():
            tr = median(resident, devs, c.reps, c.warm)
            th = median(host, devs, c.reps, c.warm)
        if nd == 1:
            base, one = (tr, th), out.clone()
        else:
            compare(f"block on {nd} GPUs", out, one)
        tok = c.seqs * c.seq
        result("block", "resident", nd, tr, flops, base[0], f" tokens_per_s={tok / tr:.4g}")
        result("block", "host", nd, th, flops, base[1], f" tokens_per_s={tok / th:.4g}")
        del Ws, xs, trig


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    p.add_argument("--what", default="matmul,block")
    for name, v in (("batch", 8), ("m", 2048), ("k", 4096), ("n", 4096), ("seqs", 16), ("seq", 1024),
                    ("dim", 2048), ("heads", 16), ("kvheads", 4), ("headdim", 128), ("ffn", 5632),
                    ("reps", 10), ("warm", 2)):
        p.add_argument("--" + name, type=int, default=v)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    gpus = [torch.device("cuda", i) for i in range(args.gpus)]
    for g in gpus:
        print(f"device {g.index}: {torch.cuda.get_device_name(g)}", flush=True)
    torch.manual_seed(int(time.time()))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(gpus))) as pool:
        for what in args.what.split(","):
            if what == "matmul":
                a = torch.rand(args.batch, args.m, args.k) * 2 - 1
                with torch.no_grad():
                    bench_matmul(a, args, gpus, pool)
            elif what == "block":
                bench_block(args, gpus, pool)
            else:
                raise SystemExit(f"unknown work {what!r}")


if __name__ == "__main__":
    main()
