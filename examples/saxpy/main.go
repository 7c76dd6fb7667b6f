// Command saxpy is a small program that uses kc through go generate: the
// kernel in saxpy.kc is compiled ahead of time into kernels_kc.go, which
// embeds WGSL, SPIR-V and HLSL and a typed launcher, Saxpy.
//
//	go generate && go run .
package main

//go:generate go run github.com/kcgo/kc/cmd/kc gen -pkg main -o kernels_kc.go saxpy.kc

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
)

func main() {
	n := flag.Int("n", 100000, "vector length")
	device := flag.String("device", "", "adapter selector (default: $KC_DEVICE, then kc's policy)")
	flag.Parse()
	if err := run(*n, *device); err != nil {
		fmt.Fprintln(os.Stderr, "saxpy:", err)
		os.Exit(1)
	}
}

func run(n int, device string) error {
	ctx := context.Background()
	dev, err := backend.Open(ctx, device)
	if err != nil {
		return err
	}
	defer dev.Close()

	const a = 2.5
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = rand.Float32(), rand.Float32()
	}
	xb, err := dev.Upload(f32bytes(x))
	if err != nil {
		return err
	}
	yb, err := dev.Upload(f32bytes(y))
	if err != nil {
		return err
	}
	groups := backend.Groups(uint32((n + 63) / 64))
	if err := Saxpy(ctx, dev, groups, a, uint32(n), xb.View(), yb.View()); err != nil {
		return err
	}
	out, err := dev.Read(ctx, yb.View())
	if err != nil {
		return err
	}
	worst := 0.0
	for i := range n {
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		want := float64(a)*float64(x[i]) + float64(y[i])
		worst = max(worst, math.Abs(float64(got)-want))
	}
	fmt.Printf("saxpy n=%d on %s (%s): max abs error %.3g\n", n, dev.Info().Name, dev.Info().Driver, worst)
	if worst > 1e-5 {
		return fmt.Errorf("max abs error %g exceeds 1e-5", worst)
	}
	fmt.Println("ok")
	return nil
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}
