package kctest

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Compare reports; Fatalf ends
// the goroutine as testing.T's does.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// compareInto runs Compare against a recorder in its own goroutine.
func compareInto(t *testing.T, got []float32, want []float64, tl Tol) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Compare(r, "x", got, want, tl)
	}()
	<-done
	return r
}

func TestCompare(t *testing.T) {
	want := []float64{1, -2, 100}
	if r := compareInto(t, []float32{1.05, -2, 100.9}, want, Tol{Abs: 0.1, Rel: 0.01}); len(r.errs) != 0 {
		t.Errorf("within tolerance: %v", r.errs)
	}
	r := compareInto(t, []float32{1, -2.5, 100}, want, Tol{Abs: 0.1, Rel: 0.01})
	if len(r.errs) != 2 || !strings.HasPrefix(r.errs[0], "x[1] = -2.5, want -2") || r.errs[1] != "x: 1 of 3 values out of tolerance" {
		t.Errorf("out of tolerance: %q", r.errs)
	}
	nan := float32(math.NaN())
	if r := compareInto(t, []float32{nan, -2, 100}, want, Tol{Abs: math.Inf(1)}); len(r.errs) != 2 {
		t.Errorf("NaN within an infinite bound passed: %q", r.errs)
	}
	if r := compareInto(t, []float32{1, -2}, want, Tol{}); !r.fatal || r.errs[0] != "x: 2 values, want 3" {
		t.Errorf("length mismatch: fatal %v, %q", r.fatal, r.errs)
	}
}

func TestRandn(t *testing.T) {
	rng := NewRand(t)
	xs := Randn(rng, 1000, -3, 5)
	if len(xs) != 1000 {
		t.Fatalf("%d values", len(xs))
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		if !(x >= -3 && x <= 5) { // 5 itself only by rounding to float32
			t.Fatalf("value %g outside [-3, 5]", x)
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo > -2 || hi < 4 {
		t.Errorf("1000 draws span only [%g, %g] of [-3, 5)", lo, hi)
	}
}

// TestSample: all of the list where asked, else n distinct items in the
// list's order, and different draws over runs of the generator.
func TestSample(t *testing.T) {
	t.Setenv("KC_TEST_ALL", "")
	xs := make([]int, 50)
	for i := range xs {
		xs[i] = i
	}
	if got := Sample(t, NewRand(t), xs, 5, true); len(got) != 50 {
		t.Fatalf("all: %d items", len(got))
	}
	if got := Sample(t, NewRand(t), xs, 80, false); len(got) != 50 {
		t.Fatalf("n past the list: %d items", len(got))
	}
	rng := NewRand(t)
	seen := map[int]bool{}
	for run := 0; run < 20; run++ {
		got := Sample(t, rng, xs, 5, false)
		if len(got) != 5 {
			t.Fatalf("%d items, want 5", len(got))
		}
		for i, x := range got {
			if i > 0 && x <= got[i-1] {
				t.Fatalf("%v: not distinct items in order", got)
			}
			seen[x] = true
		}
	}
	if len(seen) <= 5 {
		t.Errorf("20 draws of 5 covered %d items: not drawn afresh", len(seen))
	}
}
