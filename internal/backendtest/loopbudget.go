package backendtest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

// loopSrc counts n iterations in one invocation (docs/lavapipe.md's
// reproduction): llvmpipe stores 65535 for any n above 65534.
const loopSrc = `//kc:run n=%d len(o)=1 grid=1
kernel count(n u32, o read_write []u32) workgroup(1) {
	var x u32
	for i := u32(0); i < n; i++ {
		x++
	}
	o[0] = x
}
`

// LoopBudget checks that the corpus runner turns a device's silent loop
// budget into a named error: on path p, a kernel looping 70,000 times
// (70,001 iterations as llvmpipe counts them) fails with the
// *LoopBudgetError's message where d's MaxLoopIterations is below that,
// and passes elsewhere; one looping 1,000 times passes on every device.
func LoopBudget(t *testing.T, d *backend.Device, p Path) {
	info := d.Info()
	for _, n := range []int{1000, 70000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := kctest.NewCase(t, "loops.kc", []byte(fmt.Sprintf(loopSrc, n)))
			m := c.Module(t)
			k := m.Kernels[0]
			run := c.Run(t, m, k)
			r := record(t, func(tb testing.TB) {
				corpusKernel(tb, d, c, m, k, p, run, rand.New(rand.NewPCG(rand.Uint64(), 0)))
			})
			max := info.Limits.MaxLoopIterations
			if max == 0 || n+1 <= max {
				if r.failed || r.skipped {
					t.Fatalf("%d iterations on %s (budget %d): the runner said %q, want a pass", n+1, info.Name, max, r.msgs)
				}
				return
			}
			want := (&LoopBudgetError{Kernel: "count", Device: info.Name, Needs: int64(n + 1), Budget: max}).Error()
			if !r.failed || len(r.msgs) != 1 || !strings.HasPrefix(r.msgs[0], want) {
				t.Fatalf("%d iterations on %s (budget %d): the runner said %q (failed %v), want %q", n+1, info.Name, max, r.msgs, r.failed, want)
			}
			t.Logf("named: %s", r.msgs[0])
		})
	}
}

// recorder is a testing.TB that records failures and skips of the test
// function it runs instead of passing them to the test it wraps.
type recorder struct {
	testing.TB
	failed, skipped bool
	msgs            []string
}

// record runs f with a recorder around t in a goroutine of its own (so
// that Fatal and Skip end f alone) and returns what f reported.
func record(t testing.TB, f func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fail()                     { r.failed = true }
func (r *recorder) Failed() bool              { return r.failed }
func (r *recorder) Skipped() bool             { return r.skipped }
func (r *recorder) Error(a ...any)            { r.Fail(); r.msgs = append(r.msgs, fmt.Sprint(a...)) }
func (r *recorder) Errorf(f string, a ...any) { r.Error(fmt.Sprintf(f, a...)) }
func (r *recorder) FailNow()                  { r.Fail(); runtime.Goexit() }
func (r *recorder) Fatal(a ...any)            { r.Error(a...); runtime.Goexit() }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); runtime.Goexit() }
func (r *recorder) SkipNow()                  { r.skipped = true; runtime.Goexit() }
func (r *recorder) Skip(a ...any)             { r.msgs = append(r.msgs, fmt.Sprint(a...)); r.SkipNow() }
func (r *recorder) Skipf(f string, a ...any)  { r.Skip(fmt.Sprintf(f, a...)) }
