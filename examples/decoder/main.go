// Command decoder runs a small Llama-style decoder on the GPU through
// package kernels: random weights from a seed, a prompt prefilled in one
// pass, then greedy token-by-token decoding against a KV cache, one submit
// and one readback per token. It prints the tokens and tokens/s.
//
//	go run ./examples/decoder -layers 4 -tokens 32
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
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
	seed := fs.Int64("seed", 1, "weight seed")
	tokens := fs.Int("tokens", 16, "tokens to generate")
	cfg := config{vocab: 256, dim: 128, heads: 4, kvHeads: 2, headDim: 32, ffn: 256, maxSeq: 256}
	fs.IntVar(&cfg.layers, "layers", 2, "decoder blocks")
	fs.IntVar(&cfg.dim, "dim", cfg.dim, "model width (heads·head dim need not equal it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	dev, err := backend.Open(ctx, *device)
	if err != nil {
		return err
	}
	defer dev.Close()
	c := kernels.New(dev)
	defer c.Close()
	m, err := newModel(c, cfg, *seed)
	if err != nil {
		return err
	}
	prompt := []int{1, 2, 3, 4, 5, 6, 7, 8}
	fmt.Fprintf(w, "%s\nmodel: %s\nprompt: %v\n", dev.Info().Name, cfg, prompt)
	start := time.Now()
	if _, err := m.logits(ctx, prompt, 0); err != nil { // warm-up: compiles every kernel
		return err
	}
	compile := time.Since(start)
	start = time.Now()
	out, _, err := m.generate(ctx, prompt, *tokens)
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(w, "tokens: %v\n", out)
	fmt.Fprintf(w, "first pass (compiles) %v; prefill + %d tokens in %v: %.1f tokens/s\n",
		compile.Round(time.Millisecond), len(out), el.Round(time.Millisecond), float64(len(out))/el.Seconds())
	return nil
}
