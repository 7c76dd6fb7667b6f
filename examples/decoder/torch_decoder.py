#!/usr/bin/env python3
"""The decoder of examples/decoder in PyTorch eager, on the same weights.

Takes the Go program's model flags (-vocab -dim -layers -heads -kv-heads
-head-dim -ffn -context -seed -tokens -dtype) and rebuilds its weights bit for
bit with the same counter-based generator (model.go's draw), then runs the same
greedy generation: the prompt 1..8 prefilled in one pass, then one token per
step against a KV cache, the argmax read back to the host each step. It prints
the tokens and tokens/s in the Go program's format, so both can run in one
device call and be compared.

-dtype f16/bf16: the Go program keeps f32 activations with 16-bit projection
weights; PyTorch eager cannot multiply f32 by f16, so here the whole model runs
in that type (weights and activations; norms and softmax in f32 inside
PyTorch's kernels) — the usual way to run PyTorch in half precision, and its
fastest eager form.

  python3 torch_decoder.py -dtype f16 -vocab 32000 -dim 2048 -layers 16 ...
  python3 torch_decoder.py -draw SEED T N CENTER HALF   (pure Python, no torch:
      prints the float32 bits of draw's first N values, for the Go test)
"""
import argparse, math, struct, sys, time

MASK = 0xFFFFFFFF


def mix(x):
    """model.go's 32-bit hash; every product is below 2^59, exact in int64."""
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & MASK
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & MASK
    return x ^ (x >> 16)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def draw_py(seed, t, n, center, half):
    """draw in plain Python: float32 arithmetic emulated by rounding each step."""
    base = (seed * 0x9E3779B9 + t * 0x85EBCA6B) & MASK
    step, c = f32(half / (1 << 23)), f32(center)
    out = []
    for i in range(n):
        k = (mix((base + i) & MASK) >> 8) - (1 << 23)
        out.append(f32(f32(k * step) + c))  # k·step is exact in float64, then one rounding
    return out


def draw(torch, dev, seed, t, n, center, half):
    base = (seed * 0x9E3779B9 + t * 0x85EBCA6B) & MASK
    x = (torch.arange(n, dtype=torch.int64, device=dev) + base) & MASK
    k = (mix(x) >> 8) - (1 << 23)
    step = torch.tensor(f32(half / (1 << 23)), dtype=torch.float32, device=dev)
    return k.to(torch.float32) * step + f32(center)  # two float32 ops, each rounded


def main():
    ap = argparse.ArgumentParser()
    for name, default in (("vocab", 256), ("dim", 128), ("layers", 2), ("heads", 4), ("kv-heads", 2),
                          ("head-dim", 32), ("ffn", 256), ("context", 256), ("seed", 1), ("tokens", 16)):
        ap.add_argument("-" + name, type=int, default=default)
    ap.add_argument("-dtype", default="f32", choices=("f32", "f16", "bf16"))
    ap.add_argument("-device", default="cuda")
    ap.add_argument("-draw", nargs=5, type=float)
    a = ap.parse_args()
    if a.draw:
        seed, t, n, center, half = a.draw
        for v in draw_py(int(seed), int(t), int(n), center, half):
            print("%08x" % struct.unpack("<I", struct.pack("<f", v))[0])
        return
    import torch
    import torch.nn.functional as F
    dev = a.device
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[a.dtype]
    torch.backends.cuda.matmul.allow_tf32 = False
    d, hq, hkv, dh, ffn = a.dim, a.heads, a.kv_heads, a.head_dim, a.ffn
    q, kv = hq * dh, hkv * dh
    s, sf = 1 / math.sqrt(d), 1 / math.sqrt(ffn)
    counter = [0]

    def up(center, half, *shape):  # model.go's newModel order
        n = math.prod(shape)
        w = draw(torch, dev, a.seed, counter[0], n, center, half).reshape(shape)
        counter[0] += 1
        return w.to(dt)

    emb = up(0, 1, a.vocab, d)
    head = up(0, s, a.vocab, d)
    norm = up(1, 0.2, d)
    layers = []
    for _ in range(a.layers):
        L = dict(n1=up(1, 0.2, d), n2=up(1, 0.2, d))
        L.update(wq=up(0, s, q, d), wk=up(0, s, kv, d), wv=up(0, s, kv, d), wo=up(0, s, d, q))
        L.update(wg=up(0, s, ffn, d), wu=up(0, s, ffn, d), wd=up(0, sf, d, ffn))
        L.update(kc=torch.zeros(a.context, kv, dtype=dt, device=dev), vc=torch.zeros(a.context, kv, dtype=dt, device=dev))
        layers.append(L)
    inv = 1.0 / (10000.0 ** (torch.arange(0, dh // 2, device=dev, dtype=torch.float32) * 2 / dh))
    version = tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2])
    fused = version >= (2, 5)  # F.rms_norm and SDPA with enable_gqa; older PyTorch (a CPU check) composes them

    def rms(x, w):
        if fused:
            return F.rms_norm(x, (d,), w, 1e-5)
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * w

    def attend(qs, ks, vs, mask):  # [heads, t, dh] against [kv heads, s, dh]
        if fused:
            return F.scaled_dot_product_attention(qs, ks, vs, attn_mask=mask, enable_gqa=True)
        ks, vs = ks.repeat_interleave(hq // hkv, 0), vs.repeat_interleave(hq // hkv, 0)
        sc = (qs.float() @ ks.float().transpose(1, 2)) / math.sqrt(dh)
        if mask is not None:
            sc = sc.masked_fill(~mask, float("-inf"))
        return (sc.softmax(-1) @ vs.float()).to(qs.dtype)

    def rope(x, heads, pos):  # rotate-half on [t, heads·dh] at positions pos..
        t = x.shape[0]
        ang = torch.arange(pos, pos + t, device=dev, dtype=torch.float32)[:, None] * inv[None, :]
        cs, sn = ang.cos()[:, None, :], ang.sin()[:, None, :]
        x = x.float().view(t, heads, dh)
        x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
        return torch.cat((x1 * cs - x2 * sn, x2 * cs + x1 * sn), -1).reshape(t, heads * dh).to(dt)

    def forward(tokens, pos):
        t = len(tokens)
        x = emb[torch.tensor(tokens, device=dev)]
        for L in layers:
            h = rms(x, L["n1"])
            qq = rope(F.linear(h, L["wq"]), hq, pos)
            kk = rope(F.linear(h, L["wk"]), hkv, pos)
            L["kc"][pos:pos + t] = kk
            L["vc"][pos:pos + t] = F.linear(h, L["wv"])
            ks = L["kc"][: pos + t].view(pos + t, hkv, dh).transpose(0, 1)
            vs = L["vc"][: pos + t].view(pos + t, hkv, dh).transpose(0, 1)
            qs = qq.view(t, hq, dh).transpose(0, 1)
            # query i attends keys 0..pos+i (causal over the cached prefix)
            mask = torch.ones(t, pos + t, dtype=torch.bool, device=dev).tril(pos) if t > 1 else None
            att = attend(qs, ks, vs, mask)
            x = x + F.linear(att.transpose(0, 1).reshape(t, q), L["wo"])
            h2 = rms(x, L["n2"])
            x = x + F.linear(F.silu(F.linear(h2, L["wg"])) * F.linear(h2, L["wu"]), L["wd"])
        return F.linear(rms(x, norm), head)

    prompt = list(range(1, 9))

    def generate(n):
        with torch.no_grad():
            lg = forward(prompt, 0)[-1]
            out, pos = [], len(prompt)
            for i in range(n):
                tok = int(lg.argmax().item())
                out.append(tok)
                if i == n - 1:
                    break
                lg = forward([tok], pos)[-1]
                pos += 1
            return out, lg

    name = torch.cuda.get_device_name() if dev == "cuda" else dev
    if dev == "cpu":
        torch.set_num_threads(2)
    print(f"{name} (PyTorch {torch.__version__} eager)")
    print(f"model: vocab {a.vocab}, dim {d}, {a.layers} layers, {hq}/{hkv} heads of {dh}, ffn {ffn}, context {a.context}, {a.dtype} weights and activations")
    start = time.perf_counter()
    generate(2)  # warm-up
    if dev == "cuda":
        torch.cuda.synchronize()
    warm = time.perf_counter() - start
    start = time.perf_counter()
    out, lg = generate(a.tokens)
    el = time.perf_counter() - start
    print("tokens:", out)
    print("last logits [0:4]:", [round(float(v), 4) for v in lg[:4]])
    print(f"first pass {warm * 1e3:.0f}ms; prefill + {len(out)} tokens in {el * 1e3:.0f}ms: {len(out) / el:.1f} tokens/s")


if __name__ == "__main__":
    sys.exit(main())
