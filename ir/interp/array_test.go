package interp

import "testing"

// TestArrayValues copies whole arrays: a local initialised from another,
// from a shared array and from a row of a 2D shared array, and assigned.
func TestArrayValues(t *testing.T) {
	m := compile(t, `
kernel arr(y read_write []f32) workgroup(4) {
	shared s [4]f32
	shared g [2][4]f32
	var a [4]f32
	a[local_index] = f32(local_index) + 1.0
	s[local_index] = f32(local_index) * 10.0
	g[local_index % 2][local_index] = f32(local_index) * 100.0
	workgroupBarrier()
	var b = a
	let c = s
	let row = g[1]
	b[0] += 0.5
	a = b
	y[local_index * 4] = a[0] + a[local_index]
	y[local_index * 4 + 1] = b[local_index]
	y[local_index * 4 + 2] = c[3 - local_index]
	y[local_index * 4 + 3] = row[1] + row[3]
}
`)
	y := Poison(64)
	mustRun(t, m, "arr", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"y": y}}, Options{Races: true})
	got := f32s(t, y)
	for i := 0; i < 4; i++ {
		// a holds only this invocation's element (plus 0.5 in a[0])
		own := float32(i) + 1
		a0 := float32(0.5)
		if i == 0 {
			a0 = own + 0.5
		}
		ai := own
		if i == 0 {
			ai = a0
		}
		want := []float32{a0 + ai, ai, float32(3-i) * 10, 100 + 300}
		for k, w := range want {
			if got[4*i+k] != w {
				t.Errorf("invocation %d, y[%d] = %g, want %g", i, 4*i+k, got[4*i+k], w)
			}
		}
	}
}
