package ir_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestCheckMalformedTrees damages parsed corpus kernels through reflection
// (nil pointers and interfaces, out-of-range enums, odd lengths and names,
// as a Go API user could build them) and requires Check to answer with
// errors, never a panic (the checker turns a panic into an "internal
// error", which this test rejects). Each run uses a fresh seed, printed
// on failure.
func TestCheckMalformedTrees(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	cases := kctest.Cases(t)
	for round := 0; round < 400; round++ {
		c := cases[rng.IntN(len(cases))]
		m, err := parse.File(c.Path, c.Src)
		if err != nil {
			t.Fatalf("parse %s: %v", c.Name, err)
		}
		var slots []reflect.Value
		collect(reflect.ValueOf(m), &slots)
		n := 1 + rng.IntN(3)
		for i := 0; i < n; i++ {
			damage(slots[rng.IntN(len(slots))], rng)
		}
		err = ir.Check(m)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("seed %d, round %d, kernel %s: %v", seed, round, c.Name, err)
		}
		// A second run must agree (idempotence, also on broken input).
		if err2 := ir.Check(m); errText(err) != errText(err2) {
			t.Fatalf("seed %d, round %d, kernel %s: second Check differs:\n%v\n---\n%v", seed, round, c.Name, err, err2)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// collect gathers every settable field and slice element reachable from v.
func collect(v reflect.Value, out *[]reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.CanSet() {
				*out = append(*out, f)
				collect(f, out)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			*out = append(*out, v.Index(i))
			collect(v.Index(i), out)
		}
	}
}

// damage sets v to a value a careless builder could produce.
func damage(v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		v.Set(reflect.Zero(v.Type()))
	case reflect.Uint8:
		v.SetUint(uint64(rng.IntN(256)))
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{0, -1, 5, 1 << 40, -1 << 62}[rng.IntN(5)])
	case reflect.String:
		v.SetString([]string{"", "x", "1bad", "f32", "global_id"}[rng.IntN(5)])
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Float64:
		v.SetFloat([]float64{0, -1, 1e300, 0.5}[rng.IntN(4)])
	}
}
