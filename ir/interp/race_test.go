package interp

import (
	"testing"
)

const raceSrc = `
kernel raw(y read_write []u32) workgroup(8) {
	shared s [8]u32
	s[local_index] = local_index
	y[local_index] = s[7 - local_index]
}

kernel war(y read_write []u32) workgroup(8) {
	shared s [8]u32
	y[local_index] = s[(local_index + 1) % 8]
	s[local_index] = local_index
}

kernel waw(y read_write []u32) workgroup(8) {
	shared s u32
	s = local_index
	workgroupBarrier()
	y[local_index] = s
}

kernel storage(y read_write []u32) workgroup(8) {
	shared s [8]u32
	s[local_index] = local_index
	storageBarrier()
	y[local_index] = s[7 - local_index]
}

kernel fine(y read_write []u32) workgroup(8) {
	shared s [8]u32
	shared t u32
	s[local_index] = local_index
	s[local_index] += 1
	if local_index == 3 {
		t = 5
	}
	workgroupBarrier()
	y[global_id.x] = s[7 - local_index] + t
	workgroupBarrier()
	s[local_index] = 0
}
`

func TestRaces(t *testing.T) {
	m := compile(t, raceSrc)
	for _, c := range []struct{ kernel, want string }{
		{"raw", "test.kc:4:20: kernel raw, invocation global_id (0, 0, 0): data race on shared s (byte 28): this invocation reads it after local invocation 7 wrote it with no workgroupBarrier() between"},
		{"war", "test.kc:10:3: kernel war, invocation global_id (0, 0, 0): data race on shared s (byte 0): this invocation writes it after local invocation 7 read it with no workgroupBarrier() between"},
		{"waw", "test.kc:15:2: kernel waw, invocation global_id (1, 0, 0): data race on shared s (byte 0): this invocation writes it after local invocation 0 wrote it with no workgroupBarrier() between"},
		{"storage", "test.kc:24:20: kernel storage, invocation global_id (0, 0, 0): data race on shared s (byte 28): this invocation reads it after local invocation 7 wrote it with no workgroupBarrier() between"},
	} {
		err := Run(m, c.kernel, [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"y": Poison(64)}}, Options{Races: true})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\ngot  %v\nwant %s", c.kernel, err, c.want)
		}
		// without the detector the lockstep result comes back
		if err := Run(m, c.kernel, [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"y": Poison(64)}}, Options{}); err != nil {
			t.Errorf("%s without Races: %v", c.kernel, err)
		}
	}
	y := Poison(64)
	mustRun(t, m, "fine", [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"y": y}}, Options{Races: true})
	for i, v := range u32s(t, y) {
		if want := uint32(7-i%8+1) + 5; v != want {
			t.Errorf("y[%d] = %d, want %d", i, v, want)
		}
	}
}
