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
//
// After tokens/s it prints a decode step's mean host time (recording,
// then waiting for the logits) and the device's counters a step;
// -profile then decodes the same tokens again with GPU timestamps on
// every dispatch and prints each kernel's GPU time a step, so that a
// step's wall time can be set against the GPU's share of it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"text/tabwriter"
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
	profile := fs.Bool("profile", false, "then decode the same tokens again with GPU timestamps on every dispatch and print each kernel's GPU time a step")
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
	// warm-up: the prefill and one decode step compile every kernel the
	// timed run uses (as torch_decoder.py warms up), so that no pipeline
	// is built inside the timing
	if _, _, err := m.generate(ctx, prompt, 2); err != nil {
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
	printSteps(w, m.decode)
	if *profile {
		return printProfile(ctx, w, m, prompt, *tokens)
	}
	return nil
}

// printSteps prints a decode step's mean host time and device work.
func printSteps(w io.Writer, d decodeSteps) {
	if d.n == 0 {
		return
	}
	n := time.Duration(d.n)
	per := func(v uint64) float64 { return float64(v) / float64(d.n) }
	fmt.Fprintf(w, "a decode step (mean of %d): recording %v, then waiting for the logits %v; %.1f dispatches, %.1f copies, %.1f submits, %.1f uploads, %.1f readbacks, %.2f pipelines built\n",
		d.n, (d.time.record / n).Round(time.Microsecond), (d.time.wait / n).Round(time.Microsecond),
		per(d.stats.Dispatches), per(d.stats.Copies), per(d.stats.Submits), per(d.stats.Uploads), per(d.stats.Readbacks), per(d.stats.Compiles))
}

// printProfile decodes the tokens again with every dispatch timed and
// prints each kernel's GPU time a decode step, the longest first. The
// timed run's own speed means nothing (a scope with timed dispatches waits
// for the device at each submit), so it is not printed.
func printProfile(ctx context.Context, w io.Writer, m *model, prompt []int, tokens int) error {
	c := m.c
	if err := c.SetTimed(true); err != nil {
		return fmt.Errorf("-profile: %w", err)
	}
	_, _, err := m.generate(ctx, prompt, tokens)
	c.SetTimed(false)
	if err != nil {
		return err
	}
	ks := kernels.ByKernel(c.TakeTimings())
	if m.decode.n == 0 || len(ks) == 0 {
		fmt.Fprintln(w, "profile: no decode step timed (-tokens 2 or more)")
		return nil
	}
	n := float64(m.decode.n)
	var total time.Duration
	for _, k := range ks {
		total += k.Total
	}
	fmt.Fprintf(w, "GPU time of a decode step by kernel (mean of %d steps; copies not timed):\n", m.decode.n)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "µs\tshare\tdispatches\t  kernel")
	for _, k := range ks {
		fmt.Fprintf(tw, "%.1f\t%.0f%%\t%.1f\t  %s\n", k.Total.Seconds()*1e6/n, 100*k.Total.Seconds()/total.Seconds(), float64(k.Dispatches)/n, k.Kernel)
	}
	fmt.Fprintf(tw, "%.1f\t\t\t  total\n", total.Seconds()*1e6/n)
	return tw.Flush()
}
