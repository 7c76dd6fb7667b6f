// Command decoder runs a small Llama-style decoder on the GPU through
// package kernels: random weights from a seed, a prompt prefilled in one
// pass, then greedy token-by-token decoding against a KV cache, one scope
// and one readback per token. It prints the tokens and tokens/s.
//
//	go run ./examples/decoder -layers 4 -tokens 32
//	go run ./examples/decoder -dtype f16 -vocab 32000 -dim 2048 -layers 16 -heads 16 -kv-heads 4 -head-dim 128 -ffn 5632 -context 512
//
// -dtype f16 (or bf16) stores the projection weights in 16 bits (the
// activations, embedding and norms stay f32), so every decode step's
// products stream half the bytes through gemv.kc. torch_decoder.py in
// this directory is the same model in PyTorch eager on the same weights
// (same flags), for tokens/s side by side.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/kernels"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "decoder:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("decoder", flag.ContinueOnError)
	device := fs.String("device", "", "adapter selector (as KC_DEVICE; empty: kc's policy)")
	seed := fs.Uint("seed", 1, "weight seed")
	tokens := fs.Int("tokens", 16, "tokens to generate")
	dtype := fs.String("dtype", "f32", "projection weights: f32, f16 or bf16")
	cfg := config{vocab: 256, dim: 128, heads: 4, kvHeads: 2, headDim: 32, ffn: 256, maxSeq: 256}
	fs.IntVar(&cfg.layers, "layers", 2, "decoder blocks")
	fs.IntVar(&cfg.dim, "dim", cfg.dim, "model width (heads·head dim need not equal it)")
	fs.IntVar(&cfg.vocab, "vocab", cfg.vocab, "vocabulary size")
	fs.IntVar(&cfg.heads, "heads", cfg.heads, "query heads")
	fs.IntVar(&cfg.kvHeads, "kv-heads", cfg.kvHeads, "key/value heads (divides -heads)")
	fs.IntVar(&cfg.headDim, "head-dim", cfg.headDim, "head dimension (even)")
	fs.IntVar(&cfg.ffn, "ffn", cfg.ffn, "MLP width")
	fs.IntVar(&cfg.maxSeq, "context", cfg.maxSeq, "KV cache length")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed generation to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	wdt, ok := map[string]kernels.DType{"f32": kernels.F32, "f16": kernels.F16, "bf16": kernels.BF16}[*dtype]
	if !ok {
		return fmt.Errorf("-dtype %q: want f32, f16 or bf16", *dtype)
	}
	ctx := context.Background()
	dev, err := backend.Open(ctx, *device)
	if err != nil {
		return err
	}
	defer dev.Close()
	c := kernels.New(dev)
	defer c.Close()
	m, err := newModel(c, cfg, uint32(*seed), wdt)
	if err != nil {
		return err
	}
	prompt := []int{1, 2, 3, 4, 5, 6, 7, 8}
	fmt.Fprintf(w, "%s\nmodel: %s, %s weights\nprompt: %v\n", dev.Info().Name, cfg, wdt, prompt)
	start := time.Now()
	if _, err := m.logits(ctx, prompt, 0); err != nil { // warm-up: compiles every kernel
		return err
	}
	compile := time.Since(start)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start = time.Now()
	out, last, err := m.generate(ctx, prompt, *tokens)
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(w, "tokens: %v\n", out)
	fmt.Fprintf(w, "last logits [0:4]: %.4f\n", last[:min(4, len(last))])
	fmt.Fprintf(w, "first pass (compiles) %v; prefill + %d tokens in %v: %.1f tokens/s\n",
		compile.Round(time.Millisecond), len(out), el.Round(time.Millisecond), float64(len(out))/el.Seconds())
	return nil
}
