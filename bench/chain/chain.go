// Package chain measures dispatch overhead on a backend.Device: the host
// cost of recording a dispatch inside a scope, and the wall time of a chain
// of tiny dependent dispatches recorded in one scope and submitted once
// (the kc counterpart of PyTorch launching x.add_(1) eagerly in a loop).
// It is shared by the Vulkan driver's benchmarks and bench/vkbench; it lives
// in bench/ because it imports the front end and the emitters, which no
// driver package may.
package chain

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Source is the tiny kernel: x[i] += 1 for i < n.
const Source = `// add1: x[i] = x[i] + 1 for i < n. grid: ceil(n/64) x 1 x 1
kernel add1(n u32, x read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		x[i] = x[i] + 1.0
	}
}
`

// Load compiles add1 for the device's preferred target (backend.LoadIR:
// SPIR-V through emit/spirv, WGSL through emit/wgsl) and loads it.
func Load(ctx context.Context, d *backend.Device) (*backend.Pipeline, error) {
	m, err := parse.File("add1.kc", []byte(Source))
	if err != nil {
		return nil, err
	}
	if err := ir.Check(m); err != nil {
		return nil, err
	}
	return d.LoadIR(ctx, m, "add1")
}

// Bench is a loaded add1 pipeline with its buffer.
type Bench struct {
	D     *backend.Device
	P     *backend.Pipeline
	Buf   *backend.Buffer
	N     int // elements
	total int // dispatches run on Buf so far
}

// New loads add1 and allocates a zeroed buffer of n f32.
func New(ctx context.Context, d *backend.Device, n int) (*Bench, error) {
	p, err := Load(ctx, d)
	if err != nil {
		return nil, err
	}
	b, err := d.AllocZeroed(int64((4*n + 15) &^ 15))
	if err != nil {
		return nil, err
	}
	return &Bench{D: d, P: p, Buf: b, N: n}, nil
}

func (b *Bench) dispatch() error {
	b.total++
	return b.D.Dispatch(b.P, backend.Args{Params: []uint32{uint32(b.N)}, Buffers: []backend.View{b.Buf.Slice(0, int64(4*b.N))}},
		backend.Groups(uint32((b.N+63)/64)))
}

// Record records count dispatches inside one scope and returns the host
// time of the Dispatch calls and the scope's End (its submit): a driver may
// hand commands to its command buffer in batches, the last at the submit
// (the Vulkan driver does), so recording is done only then. The wait is
// not timed.
func (b *Bench) Record(ctx context.Context, count int) (time.Duration, error) {
	s := b.D.Begin()
	t0 := time.Now()
	for i := 0; i < count; i++ {
		if err := b.dispatch(); err != nil {
			s.End()
			return 0, err
		}
	}
	if err := s.End(); err != nil {
		return 0, err
	}
	el := time.Since(t0)
	return el, b.D.Wait(ctx)
}

// Chain records count dependent dispatches in one scope, submits once and
// waits for the device: the wall time of all of it.
func (b *Bench) Chain(ctx context.Context, count int) (time.Duration, error) {
	t0 := time.Now()
	s := b.D.Begin()
	for i := 0; i < count; i++ {
		if err := b.dispatch(); err != nil {
			s.End()
			return 0, err
		}
	}
	if err := s.End(); err != nil {
		return 0, err
	}
	if err := b.D.Wait(ctx); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// Verify reads the buffer back: every element must equal the number of
// dispatches run (each added 1 in order).
func (b *Bench) Verify(ctx context.Context) error {
	got, err := b.D.Read(ctx, b.Buf.Slice(0, int64(4*b.N)))
	if err != nil {
		return err
	}
	for i := 0; i < b.N; i++ {
		v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
		if v != float32(b.total) {
			return fmt.Errorf("chain: x[%d] = %g after %d dependent dispatches, want %d", i, v, b.total, b.total)
		}
	}
	return nil
}

// Median returns the median of ds.
func Median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
