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

kernel crossw(y read_write []u32) workgroup(8) {
	if local_index == 0 {
		y[0] = workgroup_id.x
	}
}

kernel crossr(y read_write []u32, z read_write []u32) workgroup(8) {
	let i = global_id.x
	z[i] = y[(i + 8) % 16]
	y[i] = i
}

kernel stor(y read_write []u32, z read_write []u32) workgroup(8) {
	let i = global_id.x
	y[i] = i
	workgroupBarrier()
	z[i] = y[i ^ 1]
}

kernel storok(y read_write []u32, z read_write []u32) workgroup(8) {
	let i = global_id.x
	y[i] = i
	storageBarrier()
	z[i] = y[i ^ 1] + y[16] * 0
}

kernel crosswar(y read_write []u32, z read_write []u32) workgroup(8) {
	let i = global_id.x
	if workgroup_id.x == 1 {
		y[i] = i
	} else {
		z[i] = y[i + 8]
	}
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
		{"crossw", "test.kc:29:4: kernel crossw, invocation global_id (8, 0, 0): data race on buffer y (byte 0): this invocation writes it after workgroup (0, 0, 0) wrote it (workgroups cannot synchronise)"},
		{"crossr", "test.kc:35:10: kernel crossr, invocation global_id (8, 0, 0): data race on buffer y (byte 0): this invocation reads it after workgroup (0, 0, 0) wrote it (workgroups cannot synchronise)"},
		{"crosswar", "test.kc:56:4: kernel crosswar, invocation global_id (8, 0, 0): data race on buffer y (byte 32): this invocation writes it after workgroup (0, 0, 0) read it (workgroups cannot synchronise)"},
		{"stor", "test.kc:43:10: kernel stor, invocation global_id (0, 0, 0): data race on buffer y (byte 4): this invocation reads it after local invocation 1 wrote it with no storageBarrier() between"},
		{"storage", "test.kc:24:20: kernel storage, invocation global_id (0, 0, 0): data race on shared s (byte 28): this invocation reads it after local invocation 7 wrote it with no workgroupBarrier() between"},
	} {
		bufs := func() map[string][]byte {
			b := map[string][]byte{"y": Poison(64)}
			if c.kernel != "crossw" && c.kernel != "raw" && c.kernel != "war" && c.kernel != "waw" && c.kernel != "storage" {
				b["z"] = Poison(64)
			}
			return b
		}
		err := Run(m, c.kernel, [3]int{2, 1, 1}, &Args{Buffers: bufs()}, Options{Races: true})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\ngot  %v\nwant %s", c.kernel, err, c.want)
		}
		// without the detector the lockstep result comes back
		if err := Run(m, c.kernel, [3]int{2, 1, 1}, &Args{Buffers: bufs()}, Options{}); err != nil {
			t.Errorf("%s without Races: %v", c.kernel, err)
		}
	}
	// y[16] is read by every workgroup and written by none: no race
	mustRun(t, m, "storok", [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"y": Poison(68), "z": Poison(64)}}, Options{Races: true})
	y := Poison(64)
	mustRun(t, m, "fine", [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"y": y}}, Options{Races: true})
	for i, v := range u32s(t, y) {
		if want := uint32(7-i%8+1) + 5; v != want {
			t.Errorf("y[%d] = %d, want %d", i, v, want)
		}
	}
}
