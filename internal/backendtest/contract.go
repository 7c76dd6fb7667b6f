package backendtest

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Opener opens a fresh device of the driver under test, closing it when t
// ends; it fails or skips t (kctest.Missing) when it cannot.
type Opener func(t testing.TB) *backend.Device

// contractKernels are the suite's kernels: saxpy (params and a read and a
// read_write buffer) and addk, whose result depends on every dispatch in
// order (y = 3y + k), so a missing barrier or params slot shows bit for bit.
const contractKernels = `
kernel saxpy(a f32, n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = a * x[i] + y[i]
	}
}

kernel addk(k u32, n u32, y read_write []u32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = y[i] * 3 + k
	}
}
`

var ctx = context.Background()

// Run runs the backend contract against the driver that open opens. Each
// case opens its own device.
func Run(t *testing.T, open Opener) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"Saxpy", testSaxpy},
		{"ScopesSubmitOnce", testScopes},
		{"ReadFlushes", testReadFlushes},
		{"ReadManyBatches", testReadMany},
		{"PoolReuseHazard", testPool},
		{"AllocZeroed", testZeroed},
		{"WritesAndCopies", testCopies},
		{"Persistent", testPersistent},
		{"StatsSince", testStats},
		{"GraphWithCopies", testGraph},
		{"Timing", testTiming},
		{"BindErrors", testBindErrors},
		{"WriteOrdering", testWriteOrdering},
		{"DependentChain", testChain},
		{"UploadsInsideScope", testUploadsInScope},
		{"ReleaseInFlight", testReleaseInFlight},
		{"Concurrent", testConcurrent},
		{"CanceledRead", testCanceled},
		{"Closed", testClosed},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// fixture is a device with the suite's kernels loaded.
type fixture struct {
	d     *backend.Device
	m     *ir.Module
	saxpy *backend.Pipeline
	addk  *backend.Pipeline
	r     *rand.Rand
}

func setup(t *testing.T, open Opener) *fixture {
	t.Helper()
	d := open(t)
	m, err := parse.Load("contract.kc", []byte(contractKernels), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{d: d, m: m}
	if f.saxpy, err = d.LoadIR(ctx, m, "saxpy"); err != nil {
		t.Fatal(err)
	}
	if f.addk, err = d.LoadIR(ctx, m, "addk"); err != nil {
		t.Fatal(err)
	}
	seed := rand.Uint64()
	t.Logf("seed %d, device %s (%s)", seed, d.Info().Name, d.Info().Driver)
	f.r = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return f
}

func (f *fixture) randF32(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = f.r.Float32()*2 - 1
	}
	return xs
}

// smallInts are floats whose sums and small multiples below are exact.
func (f *fixture) smallInts(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(f.r.IntN(200) - 100)
	}
	return xs
}

func (f *fixture) upload(t *testing.T, data []byte) *backend.Buffer {
	t.Helper()
	b, err := f.d.Upload(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func saxpyArgs(a float32, n int, x, y backend.View) backend.Args {
	return backend.Args{Params: []uint32{math.Float32bits(a), uint32(n)}, Buffers: []backend.View{x, y}}
}

func addkArgs(k uint32, n int, y backend.View) backend.Args {
	return backend.Args{Params: []uint32{k, uint32(n)}, Buffers: []backend.View{y}}
}

func groupsFor(n int) [3]uint32 { return backend.Groups(uint32((n + 63) / 64)) }

// equalF32 requires got to hold want exactly: the suite's float cases
// compute on small integers, where every target's result is exact (Saxpy,
// on random floats, checks its own bound).
func equalF32(t *testing.T, what string, got []byte, want []float32) {
	t.Helper()
	g := backend.BytesF32(got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g[i], want[i])
		}
	}
}

func equalU32(t *testing.T, what string, got []byte, want []uint32) {
	t.Helper()
	g := bytesU32(got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s[%d] = %#x, want %#x (all: %v)", what, i, g[i], want[i], g)
		}
	}
}

func u32Bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesU32(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}
