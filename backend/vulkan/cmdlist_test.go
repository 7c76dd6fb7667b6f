//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// TestCmdRecLayout: Go's cmdRec and C's kc_cmd have one size.
func TestCmdRecLayout(t *testing.T) {
	if g, c := unsafe.Sizeof(cmdRec{}), cmdRecSize(); g != c {
		t.Fatalf("cmdRec is %d bytes, kc_cmd %d", g, c)
	}
}

// TestCmdArena: arena memory is zeroed and 8-aligned, earlier allocations
// stay where they are and keep their contents while the arena grows past
// its chunk size (single allocations larger than a chunk included), and a
// flush lets the next batch reuse the chunks.
func TestCmdArena(t *testing.T) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	l := newCmdList(4, 64)
	defer l.destroy()
	type block struct {
		p []byte
		v byte
	}
	for round := 0; round < 3; round++ {
		var blocks []block
		for i := 0; i < 200; i++ {
			n := 1 + r.IntN(300) // up to ~5 chunks
			p := l.alloc(uintptr(n))
			if uintptr(p)%8 != 0 {
				t.Fatalf("round %d: allocation %d at %p is not 8-aligned", round, i, p)
			}
			b := unsafe.Slice((*byte)(p), n)
			for j, c := range b {
				if c != 0 {
					t.Fatalf("round %d: allocation %d byte %d = %#x, want 0", round, i, j, c)
				}
			}
			v := byte(r.UintN(255) + 1)
			for j := range b {
				b[j] = v
			}
			blocks = append(blocks, block{b, v})
		}
		for i, b := range blocks {
			for j, c := range b.p {
				if c != b.v {
					t.Fatalf("round %d: allocation %d byte %d = %#x, want %#x (overwritten)", round, i, j, c, b.v)
				}
			}
		}
		if round == 0 && len(l.chunks) < 2 {
			t.Fatalf("%d chunks: the arena did not grow", len(l.chunks))
		}
		var total uintptr
		for _, s := range l.sizes {
			total += s
		}
		l.flush()
		// The flush merged the chunks into one big enough for the batch.
		if len(l.chunks) != 1 || l.sizes[0] != total {
			t.Fatalf("round %d: after the flush %d chunks of %v bytes, want one of %d", round, len(l.chunks), l.sizes, total)
		}
	}
	// A batch that fits allocates nothing.
	c := l.chunks[0]
	for i := 0; i < 100; i++ {
		l.alloc(64)
	}
	if len(l.chunks) != 1 || l.chunks[0] != c {
		t.Fatalf("a batch that fits in the arena grew it to %d chunks", len(l.chunks))
	}
}

// axpyuGLSL is y = y + k*x on u32 words (exact, wrapping).
const axpyuGLSL = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint k; uint n; } p;
layout(set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(set = 0, binding = 2) buffer Y { uint y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) y[i] = y[i] + p.k * x[i];
}
`

// mixedOp is one step of TestBatchedRecording's sequence.
type mixedOp struct {
	kind   int // 0 addk on a slice of buffer a, 1 axpyu x=a y=b, 2 copy a -> b
	a, b   int
	off, n int // words: the slice (kind 0) or the copy's source range (kind 2)
	dst    int // words: the copy's destination offset
	k      uint32
}

// TestBatchedRecording runs one long random sequence of dispatches (a
// dependent chain, independent slices, two-buffer kernels binding many
// distinct descriptor sets) and copies, eagerly in one scope and as a
// recorded graph, with the command list as shipped, with a tiny one (3
// records, 64-byte arena chunks: a flush every few commands and arena
// growth for every descriptor write and barrier array), tiny with buffer
// memory barriers, and direct (KC_VULKAN_BATCH=off); each result is
// compared with the CPU.
func TestBatchedRecording(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 2))
	const nbuf, blk = 4, 64 // slices start at multiples of 64 words (256 bytes)
	words := blk * (2 + r.IntN(6))
	init := make([][]uint32, nbuf)
	for i := range init {
		init[i] = make([]uint32, words)
		for j := range init[i] {
			init[i][j] = r.Uint32()
		}
	}
	ops := make([]mixedOp, 300+r.IntN(200))
	for i := range ops {
		o := mixedOp{kind: r.IntN(3), a: r.IntN(nbuf), k: r.Uint32()}
		o.b = (o.a + 1 + r.IntN(nbuf-1)) % nbuf
		switch o.kind {
		case 0:
			o.off = blk * r.IntN(words/blk)
			o.n = blk * (1 + r.IntN((words-o.off)/blk))
		case 2:
			o.n = 1 + r.IntN(words)
			o.off = r.IntN(words - o.n + 1)
			o.dst = r.IntN(words - o.n + 1)
		}
		ops[i] = o
	}
	want := make([][]uint32, nbuf)
	for i := range want {
		want[i] = append([]uint32(nil), init[i]...)
	}
	for _, o := range ops {
		switch o.kind {
		case 0:
			addkRef(want[o.a][o.off:o.off+o.n], o.k)
		case 1:
			for j := range want[o.b] {
				want[o.b][j] += o.k * want[o.a][j]
			}
		case 2:
			copy(want[o.b][o.dst:o.dst+o.n], want[o.a][o.off:o.off+o.n])
		}
	}
	for _, c := range []struct {
		name           string
		tiny, direct   bool
		bufferBarriers bool
	}{{"shipped", false, false, false}, {"tiny", true, false, false}, {"tiny-buffer-barriers", true, false, true}, {"direct", false, true, false}} {
		t.Run(c.name, func(t *testing.T) {
			impl := openImpl(t)
			if c.tiny {
				impl.cmds.destroy()
				impl.cmds = newCmdList(3, 64)
			}
			impl.cmds.direct = c.direct
			impl.bufferBarrierMode = c.bufferBarriers
			d := backend.Wrap(impl)
			// the scope's commands cross early submits (3, 6, 12, ...
			// dispatches), each ordered after the ones before
			d.SetScopeFlush(3)
			addk := loadAddk(t, d)
			axpy, err := d.Load(context.Background(), artifact(glsl(t, axpyuGLSL), "axpyu", 64, []string{"k", "n"}, "x:ro", "y:rw"))
			if err != nil {
				t.Fatal(err)
			}
			for _, graph := range []bool{false, true} {
				bufs := make([]*backend.Buffer, nbuf)
				for i := range bufs {
					if bufs[i], err = d.Upload(u32bytes(init[i])); err != nil {
						t.Fatal(err)
					}
					defer bufs[i].Release()
				}
				recorded := make([]backend.Op, len(ops))
				for i, o := range ops {
					var op backend.Op
					switch o.kind {
					case 0:
						op = &backend.DispatchOp{Pipeline: addk, Args: backend.Args{Params: []uint32{o.k, uint32(o.n)}, Buffers: []backend.View{bufs[o.a].Slice(int64(4*o.off), int64(4*o.n))}},
							Groups: backend.Groups(uint32((o.n + 63) / 64))}
					case 1:
						op = &backend.DispatchOp{Pipeline: axpy, Args: backend.Args{Params: []uint32{o.k, uint32(words)}, Buffers: []backend.View{bufs[o.a].View(), bufs[o.b].View()}},
							Groups: backend.Groups(uint32((words + 63) / 64))}
					case 2:
						op = &backend.CopyOp{Src: bufs[o.a].Slice(int64(4*o.off), int64(4*o.n)), Dst: bufs[o.b].Slice(int64(4*o.dst), int64(4*o.n))}
					}
					recorded[i] = op
				}
				flushes := impl.cmds.flushes
				if graph {
					g, err := d.Record(recorded...)
					if err != nil {
						t.Fatal(err)
					}
					err = g.Replay(context.Background())
					g.Release()
					if err != nil {
						t.Fatal(err)
					}
				} else if err := d.Do(func() error { return runOps(d, recorded) }); err != nil {
					t.Fatal(err)
				}
				flushes = impl.cmds.flushes - flushes
				// a scope's early submits (backend.SetScopeFlush) each
				// flush the list too
				early := 0
				if !graph {
					early = backend.ScopeSubmits(len(ops), d.ScopeFlush())
				}
				switch {
				case c.tiny && flushes < len(ops)/3:
					t.Errorf("graph=%v: %d flushes for %d commands in 3-record batches", graph, flushes, len(ops))
				case !c.tiny && !c.direct && flushes > 3+2*len(ops)/cmdListCap+early: // a record per command and per barrier
					t.Errorf("graph=%v: %d flushes for %d commands in %d-record batches", graph, flushes, len(ops), cmdListCap)
				case c.direct && flushes < len(ops):
					t.Errorf("graph=%v: direct mode flushed %d times for %d commands", graph, flushes, len(ops))
				}
				for i, b := range bufs {
					got, err := d.Read(context.Background(), b.View())
					if err != nil {
						t.Fatal(err)
					}
					checkU32(t, fmt.Sprintf("seed %d, graph=%v, buffer %d", seed, graph, i), got, want[i])
				}
			}
		})
	}
}

// runOps records ops into the open scope.
func runOps(d *backend.Device, ops []backend.Op) error {
	for _, op := range ops {
		var err error
		switch o := op.(type) {
		case *backend.DispatchOp:
			err = d.Dispatch(o.Pipeline, o.Args, o.Groups)
		case *backend.CopyOp:
			err = d.Copy(o.Dst, o.Src)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestBatchCgoCalls: recording 1,000 dispatches as a graph or into a scope
// crosses into C a few times in all with batching, and at least once per
// dispatch without it.
func TestBatchCgoCalls(t *testing.T) {
	for _, direct := range []bool{false, true} {
		impl := openImpl(t)
		impl.cmds.direct = direct
		d := backend.Wrap(impl)
		p := loadAdd1(t, d)
		for _, independent := range []bool{false, true} {
			ops, buf := add1Ops(t, d, p, 1000, 256, independent)
			if g, err := d.Record(ops...); err == nil { // warm: pools and set batches allocated
				g.Release()
			}
			c0 := runtime.NumCgoCall()
			g, err := d.Record(ops...)
			calls := runtime.NumCgoCall() - c0
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Replay(context.Background()); err != nil {
				t.Fatal(err)
			}
			g.Release()
			checkAdd1(t, d, buf, map[bool]float32{false: 1000, true: 1}[independent])
			t.Logf("direct=%v independent=%v: %d cgo calls for 1,000 dispatches", direct, independent, calls)
			if !direct && calls > 100 {
				t.Errorf("independent=%v: %d cgo calls to record 1,000 dispatches with batching; want at most 100", independent, calls)
			}
			if direct && calls < 1000 {
				t.Errorf("independent=%v: %d cgo calls to record 1,000 dispatches without batching; want at least 1,000", independent, calls)
			}
			buf.Release()
		}
		// 1,000 dependent dispatches into a scope (the scope's End not
		// counted), with no early submits (their calls are submits, not
		// recording: TestScopeFlushChunks in package backend counts them).
		d.SetScopeFlush(0)
		ops, buf := add1Ops(t, d, p, 1000, 256, false)
		var calls int64
		err := d.Do(func() error {
			c0 := runtime.NumCgoCall()
			err := runOps(d, ops)
			calls = runtime.NumCgoCall() - c0
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAdd1(t, d, buf, 1000)
		t.Logf("direct=%v scope: %d cgo calls for 1,000 dispatches", direct, calls)
		if !direct && calls > 100 || direct && calls < 1000 {
			t.Errorf("direct=%v: %d cgo calls to record 1,000 dispatches into a scope", direct, calls)
		}
	}
}
