//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// addkRef applies y = y*3 + k for each k in order (the addk kernel).
func addkRef(y []uint32, ks ...uint32) {
	for i := range y {
		for _, k := range ks {
			y[i] = y[i]*3 + k
		}
	}
}

func checkU32(t *testing.T, what string, got []byte, want []uint32) {
	t.Helper()
	g := bytesU32(got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d words, want %d", what, len(g), len(want))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s: word %d = %#x, want %#x", what, i, g[i], want[i])
		}
	}
}

// loadAddk loads the addk kernel on d.
func loadAddk(t *testing.T, d *backend.Device) *backend.Pipeline {
	t.Helper()
	p, err := d.Load(context.Background(), artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// uploadRandom uploads n words drawn from next and returns them with the
// buffer.
func uploadRandom(t *testing.T, d *backend.Device, n int, next func() uint32) ([]uint32, *backend.Buffer) {
	t.Helper()
	y := make([]uint32, n)
	for i := range y {
		y[i] = next()
	}
	yb, err := d.Upload(u32bytes(y))
	if err != nil {
		t.Fatal(err)
	}
	return y, yb
}

// addkSetup loads addk and uploads n random words for it to work on.
func addkSetup(t *testing.T, d *backend.Device, n int, next func() uint32) (*backend.Pipeline, []uint32, *backend.Buffer) {
	t.Helper()
	p := loadAddk(t, d)
	y, yb := uploadRandom(t, d, n, next)
	return p, y, yb
}

// TestGraphReplay records a dependent chain once and replays it with new
// params (some dispatches changed each time) and a rebound buffer,
// checking every replay against the CPU and that a replay is one submit.
func TestGraphReplay(t *testing.T) { graphReplayCheck(t, openTest(t)) }

// TestDriverModes runs the graph-replay checks and an eager dependent chain
// under each recording and submission mode the environment selects:
// synchronization2 barriers, the shared command pool, the universal queue
// family, and the defaults (which take a compute-only queue family where
// the device has one).
func TestDriverModes(t *testing.T) {
	for _, m := range []struct{ env, val string }{
		{envBarrier, "sync2"}, {envPools, "shared"}, {envQueue, "universal"}, {envQueue, ""},
	} {
		t.Run(m.env+"="+m.val, func(t *testing.T) {
			t.Setenv(m.env, m.val)
			impl := openImpl(t)
			d := backend.Wrap(impl)
			switch m.env {
			case envBarrier:
				if ph := impl.l.phys; ph.hasV13 && ph.v13.f[v13Synchronization2] != 0 && impl.cmdFns.barrier2 == 0 {
					t.Error("synchronization2 is enabled but the barriers do not use it")
				}
			case envPools:
				if !impl.sharedPool {
					t.Error("frames do not share the command pool")
				}
			case envQueue:
				in, err := theDriver.instance()
				if err != nil {
					t.Fatal(err)
				}
				want := in.phys[impl.info.DriverIndex].family
				if q, ok := onFamily(in, in.phys[impl.info.DriverIndex], queueCompute, queueGraphics); ok && m.val == "" {
					want = q.family
				}
				if impl.l.phys.family != want {
					t.Errorf("queue family %d, want %d", impl.l.phys.family, want)
				}
			}
			graphReplayCheck(t, d)
			chainCheck(t, d)
		})
	}
}

// chainCheck runs a dependent chain of addk dispatches eagerly in one scope
// and compares the result with the CPU.
func chainCheck(t *testing.T, d *backend.Device) {
	ctx := context.Background()
	n := 1 + rand.IntN(3000)
	p, y, yb := addkSetup(t, d, n, rand.Uint32)
	ks := make([]uint32, 64)
	err := d.Do(func() error {
		for j := range ks {
			ks[j] = rand.Uint32()
			if err := d.Dispatch(p, backend.Args{Params: []uint32{ks[j], uint32(n)}, Buffers: []backend.View{yb.View()}}, backend.Groups(uint32((n+63)/64))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	addkRef(y, ks...)
	checkU32(t, "eager chain", got, y)
}

func graphReplayCheck(t *testing.T, d *backend.Device) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	n := 100 + r.IntN(900)
	p, y, yb := addkSetup(t, d, n, r.Uint32)
	const steps = 50
	ks := make([]uint32, steps)
	ops := make([]backend.Op, steps)
	for j := range ops {
		ks[j] = r.Uint32()
		ops[j] = &backend.DispatchOp{Pipeline: p, Args: backend.Args{Params: []uint32{ks[j], uint32(n)}, Buffers: []backend.View{yb.View()}}, Groups: backend.Groups(uint32((n + 63) / 64))}
	}
	g, err := d.Record(ops...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	// Changing the ops after Record must not change the graph.
	ops[0].(*backend.DispatchOp).Args.Params[0] ^= 1
	for rep := 0; rep < 4; rep++ {
		if rep > 0 {
			for c := 0; c < 5; c++ {
				j := r.IntN(steps)
				ks[j] = r.Uint32()
				if err := g.SetParams(j, ks[j], uint32(n)); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := d.Stats()
		if err := g.Replay(ctx); err != nil {
			t.Fatal(err)
		}
		if st := d.Stats().Since(before); st.Submits != 1 || st.Replays != 1 || st.Dispatches != steps {
			t.Errorf("replay %d: %v, want one submit of %d dispatches", rep, st, steps)
		}
		got, err := d.Read(ctx, yb.View())
		if err != nil {
			t.Fatal(err)
		}
		addkRef(y, ks...)
		checkU32(t, "replay", got, y)
	}
	// Rebind the middle dispatch to another buffer: it alone runs there.
	z, zb := uploadRandom(t, d, n, r.Uint32)
	if err := g.SetBuffers(steps/2, zb.View()); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadMany(ctx, yb.View(), zb.View())
	if err != nil {
		t.Fatal(err)
	}
	addkRef(y, ks[:steps/2]...)
	addkRef(y, ks[steps/2+1:]...)
	addkRef(z, ks[steps/2])
	checkU32(t, "y after rebinding", got[0], y)
	checkU32(t, "z after rebinding", got[1], z)
}

// TestGraphOrdering replays a graph inside a scope between two dispatches
// and twice back to back without a wait: program order must hold.
func TestGraphOrdering(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	n := 64 + r.IntN(500)
	p, y, yb := addkSetup(t, d, n, r.Uint32)
	args := func(k uint32) backend.Args {
		return backend.Args{Params: []uint32{k, uint32(n)}, Buffers: []backend.View{yb.View()}}
	}
	grid := backend.Groups(uint32((n + 63) / 64))
	k1, k2, k3 := r.Uint32(), r.Uint32(), r.Uint32()
	g, err := d.Record(&backend.DispatchOp{Pipeline: p, Args: args(k2), Groups: grid})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	s := d.Begin()
	d.Dispatch(p, args(k1), grid)
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	d.Dispatch(p, args(k3), grid)
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // back to back: each waits for the last
		if err := g.Replay(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A host write after a replay lands after it.
	w := make([]uint32, n)
	for i := range w {
		w[i] = r.Uint32()
	}
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	if err := yb.Write(0, u32bytes(w)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	addkRef(w, k2)
	checkU32(t, "after write and replay", got, w)
	_ = y
}

// TestGraphErrors: bad records, bad updates and replays that bind a
// released buffer are errors, and the device keeps working.
func TestGraphErrors(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p := loadAddk(t, d)
	const n = 256
	yb, _ := d.AllocZeroed(4 * n)
	small, _ := d.AllocZeroed(4*n + 2)
	other, _ := d.AllocZeroed(4 * n)
	op := &backend.DispatchOp{Pipeline: p, Args: backend.Args{Params: []uint32{1, n}, Buffers: []backend.View{yb.View()}}, Groups: backend.Groups(n / 64)}
	cp := &backend.CopyOp{Dst: other.View(), Src: yb.View()}
	var be *backend.BindError
	if _, err := d.Record(&backend.DispatchOp{Pipeline: p, Args: backend.Args{Params: []uint32{1}, Buffers: op.Args.Buffers}, Groups: op.Groups}); !errors.As(err, &be) {
		t.Errorf("record with a missing param: %v, want a BindError", err)
	}
	g, err := d.Record(op, cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetParams(0, 1); !errors.As(err, &be) {
		t.Errorf("SetParams with one param: %v", err)
	}
	if err := g.SetParams(1, 1, 2); err == nil {
		t.Error("SetParams on a copy op succeeded")
	}
	if err := g.SetParams(2, 1, 2); err == nil {
		t.Error("SetParams on op 2 of 2 succeeded")
	}
	if err := g.SetBuffers(0, small.View()); !errors.As(err, &be) {
		t.Errorf("SetBuffers with a size not a multiple of the stride: %v", err)
	}
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	other.Release()
	if err := g.Replay(ctx); !errors.As(err, &be) {
		t.Errorf("replay with a released copy destination: %v, want a BindError", err)
	}
	g.Release()
	if err := g.Replay(ctx); err == nil {
		t.Error("replay of a released graph succeeded")
	}
	// The device still works.
	g2, err := d.Record(op)
	if err != nil {
		t.Fatal(err)
	}
	if err := g2.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	yb.Release()
	if err := g2.Replay(ctx); !errors.As(err, &be) {
		t.Errorf("replay with a released buffer: %v, want a BindError", err)
	}
	z, _ := d.AllocZeroed(4 * n)
	if err := g2.SetBuffers(0, z.View()); err != nil {
		t.Fatal(err)
	}
	if err := g2.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, z.View())
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, n)
	addkRef(want, 1)
	checkU32(t, "rebound after a release", got, want)
	g2.Release()
	g2.Release()
}

// TestRepeatedParams records runs of dispatches with identical params
// (which share one params block and one descriptor-set bind) mixed with
// changes of params and of buffer, in one scope, and checks the result.
func TestRepeatedParams(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 19))
	p := loadAddk(t, d)
	const n = 300
	ys := make([][]uint32, 2)
	bufs := make([]*backend.Buffer, 2)
	for i := range ys {
		ys[i] = make([]uint32, n)
		for j := range ys[i] {
			ys[i][j] = r.Uint32()
		}
		bufs[i], _ = d.Upload(u32bytes(ys[i]))
	}
	s := d.Begin()
	for step := 0; step < 200; step++ {
		k := uint32(r.IntN(3)) // few distinct values: long runs of equal params
		b := 0
		if r.IntN(4) == 0 {
			b = 1
		}
		if err := d.Dispatch(p, backend.Args{Params: []uint32{k, n}, Buffers: []backend.View{bufs[b].View()}}, backend.Groups((n+63)/64)); err != nil {
			t.Fatal(err)
		}
		addkRef(ys[b], k)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadMany(ctx, bufs[0].View(), bufs[1].View())
	if err != nil {
		t.Fatal(err)
	}
	checkU32(t, "buffer 0", got[0], ys[0])
	checkU32(t, "buffer 1", got[1], ys[1])
}

// TestGraphCopiesAndMapped replays a graph of a dispatch, a copy of its
// output into a mapped host buffer and an independent dispatch on another
// buffer; after each replay and Wait the host reads the mapped bytes.
func TestGraphCopiesAndMapped(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 23))
	p := loadAddk(t, d)
	const n = 512
	y, z := make([]uint32, n), make([]uint32, n)
	for i := range y {
		y[i], z[i] = r.Uint32(), r.Uint32()
	}
	yb, _ := d.Upload(u32bytes(y))
	zb, _ := d.Upload(u32bytes(z))
	host, err := d.AllocMapped(4*n, backend.MapHost)
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := r.Uint32(), r.Uint32()
	args := func(k uint32, b *backend.Buffer) backend.Args {
		return backend.Args{Params: []uint32{k, n}, Buffers: []backend.View{b.View()}}
	}
	g, err := d.Record(
		&backend.DispatchOp{Pipeline: p, Args: args(k1, yb), Groups: backend.Groups(n / 64)},
		&backend.CopyOp{Dst: host.View(), Src: yb.View()},
		&backend.DispatchOp{Pipeline: p, Args: args(k2, zb), Groups: backend.Groups(n / 64)},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	for rep := 0; rep < 3; rep++ {
		for i := range host.Mapped() {
			host.Mapped()[i] = 0xee // poison
		}
		if rep == 2 {
			k1 = r.Uint32()
			if err := g.SetParams(0, k1, n); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Replay(ctx); err != nil {
			t.Fatal(err)
		}
		if err := d.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		addkRef(y, k1)
		addkRef(z, k2)
		checkU32(t, "mapped copy of y", host.Mapped(), y)
	}
	got, err := d.Read(ctx, zb.View())
	if err != nil {
		t.Fatal(err)
	}
	checkU32(t, "z", got, z)
}

// TestGraphSharedParams records a chain whose dispatches all have equal
// params (they share one params block, the set bound once) and changes
// them: the same new params for every dispatch are written in place; new
// params for one dispatch make the next replay record the graph again.
// Every replay's result is compared with the CPU.
func TestGraphSharedParams(t *testing.T) {
	impl := openImpl(t)
	d := backend.Wrap(impl)
	ctx := context.Background()
	n := 1 + rand.IntN(2000)
	p, y, yb := addkSetup(t, d, n, rand.Uint32)
	const steps = 30
	ks := make([]uint32, steps)
	k0 := rand.Uint32()
	ops := make([]backend.Op, steps)
	for j := range ops {
		ks[j] = k0
		ops[j] = &backend.DispatchOp{Pipeline: p, Args: backend.Args{Params: []uint32{k0, uint32(n)}, Buffers: []backend.View{yb.View()}}, Groups: backend.Groups(uint32((n + 63) / 64))}
	}
	g, err := d.Record(ops...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	replay := func(what string, wantRecords int) {
		t.Helper()
		before := impl.stats.graphs
		if err := g.Replay(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := d.Read(ctx, yb.View())
		if err != nil {
			t.Fatal(err)
		}
		addkRef(y, ks...)
		checkU32(t, what, got, y)
		if n := impl.stats.graphs - before; n != wantRecords {
			t.Errorf("%s: graph recorded %d times, want %d", what, n, wantRecords)
		}
	}
	replay("shared params", 0)
	k1 := rand.Uint32()
	for j := range ks {
		ks[j] = k1
		if err := g.SetParams(j, k1, uint32(n)); err != nil {
			t.Fatal(err)
		}
	}
	replay("every dispatch's params changed alike", 0)
	ks[7] = rand.Uint32()
	if err := g.SetParams(7, ks[7], uint32(n)); err != nil {
		t.Fatal(err)
	}
	replay("one dispatch's params changed", 1)
	ks[3] = rand.Uint32()
	if err := g.SetParams(3, ks[3], uint32(n)); err != nil {
		t.Fatal(err)
	}
	ks[7] = rand.Uint32()
	if err := g.SetParams(7, ks[7], uint32(n)); err != nil {
		t.Fatal(err)
	}
	replay("two more changed", 1)
	replay("unchanged", 0)
}

// TestGraphSets checks the graph's set table: every key put is found with
// its set, keys that differ in one field from a stored one are not, and a
// reset table is empty and reusable.
func TestGraphSets(t *testing.T) {
	var tab graphSets
	ps := []*pipeline{{}, {}}
	key := func(i int) setKey {
		var k setKey
		k.uniform = uintptr(i % 3)
		k.n = 1 + i%4
		for j := 0; j < k.n; j++ {
			k.r[j].buf, k.r[j].off, k.r[j].size = uintptr(100+i), int64(16*j), int64(64+i)
		}
		return k
	}
	for round := 0; round < 2; round++ {
		tab.reset()
		for i := 0; i < 500; i++ {
			k := key(i)
			tab.put(ps[i%2], &k, uintptr(1000+i))
		}
		for i := 0; i < 500; i++ {
			k := key(i)
			if s, ok := tab.get(ps[i%2], &k); !ok || s != uintptr(1000+i) {
				t.Fatalf("round %d key %d: got %d, %v", round, i, s, ok)
			}
			if _, ok := tab.get(ps[(i+1)%2], &k); ok {
				t.Fatalf("key %d found for the other pipeline", i)
			}
			k.r[0].off++
			if _, ok := tab.get(ps[i%2], &k); ok {
				t.Fatalf("key %d with another offset found", i)
			}
		}
	}
	tab.reset()
	k := key(1)
	if _, ok := tab.get(ps[1], &k); ok {
		t.Fatal("a reset table finds a key")
	}
}
