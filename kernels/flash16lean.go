package kernels

// flash16LeanText is the packed layout (flash16PackedText: the same
// staging of keys and values a block ahead, the same three barriers a
// block) with a leaner score round trip, for blocks of a multiple of 32
// keys:
//
//   - one shared array ss of 16-byte words holds the scores (f32) and then,
//     in place, P (f16): each invocation reads its half of a row in
//     16-byte loads and writes its P values over the first half of the
//     bytes it read (no other invocation touches them), so there is no
//     separate P array and a 16-column P tile stays whole inside one half;
//   - the invocations of a row are lanes l and l+16 of the subgroup (row
//     l%16, half l/16), so the 8 lanes of each 16-byte load phase read 8
//     different rows whose starts, LS4 = BK/4+1 words apart, fall in
//     different banks;
//   - the rescale factors of a row go to shared memory in two 16-byte
//     stores an invocation (cs rows padded to 5 words), or, with Bcast0,
//     as one f32 a row, read back as a matrix whose rows repeat it by a
//     column-major load with stride 0;
//   - with Unmask, blocks that every row of the workgroup sees whole (below
//     the diagonal) skip the per-score mask tests;
//   - with Near, keys and values are not fetched a block ahead: the values
//     of a block are loaded after its first barrier and stored after the
//     second, the keys of the next block loaded after the second and
//     stored before the third, so the two register sets are never live
//     at once (16 registers an invocation at 4 subgroups, blocks of 32,
//     against 32), and the loads' latency is hidden by the score
//     multiply-adds and the softmax instead of a whole block;
//   - with Single (and Near), one stage of kv holds a block's keys and
//     then, after the second barrier, its values; the next keys go in
//     after a fourth barrier at the end of the block. Half the stage, so
//     that 4 subgroups fit blocks of 64 keys in 48 KiB (35,072 bytes with
//     Bcast0): four barriers a block of 64 instead of six for two of 32;
//   - with Pipe (and Near, Bcast0), two stages of keys and two halves of
//     ss: while block j's softmax runs, the tensor cores already compute
//     block j+1's scores into registers (stored after block j's P·v), so
//     a block takes two barriers instead of three (A: scores j and keys
//     j+1 visible; B: P, factors and values j visible), and the keys of
//     block j+2 go into the stage of block j's.
//
// Both arrays are smaller than the packed layout's ss, ps and cs, so 8
// subgroups with blocks of 32 keys fit 48 KiB (46,080 bytes; 36,352 with
// Bcast0), as do 2 subgroups with blocks of 64. On the H200 (docs/PERF.md,
// 2026-12-01) 4 subgroups with Single, blocks of 64, Bcast0, Unmask and
// Near ran fastest; keeping the query tile in shared memory instead of
// registers, and summing each score tile in two chains, gained nothing
// and were dropped.
//
// nload and nstore are Near's halves of restage (the load into registers,
// the store into kv); maxmask and pmask are the masked loops of the
// softmax (scores with their max, then P), which every block runs without
// Unmask and the blocks on the diagonal run with it, one tab deeper;
// factors and cmload store a row's factor (corr in the loop, 1/l at the
// end) into cs and load the factor matrix back, each written once at the
// outer indentation and nested in the loop.
const flash16LeanText = `{{define "nload"}}		if {{.P}} * WG + t < BK * D8 {
			{{.Reg}}{{.P}} = vec4<u32>(u32(0))
			if j0 + {{.Ahead}} + ({{.P}} * WG + t) / D8 < kend {
				{{.Reg}}{{.P}} = {{.Buf}}[((j0 + {{.Ahead}} + ({{.P}} * WG + t) / D8) * hkv + kh) * D8 + ({{.P}} * WG + t) % D8]
			}
		}{{end}}
{{- define "nstore"}}		if {{.P}} * WG + t < BK * D8 {
			kv[{{.Off}}(({{.P}} * WG + t) / D8) * LV + ({{.P}} * WG + t) % D8] = {{.Reg}}{{.P}}
		}{{end}}
{{- define "maxmask"}}		for w := u32(0); w < H4; w++ {
			let x = bitcast<vec4<f32>>(ss[at + w])
			for e := u32(0); e < 4; e++ {
				var y f32 = LOW
				if c0 + w * 4 + e < last {
					y = x[e] * sl2
				}
				sv[w * 4 + e] = y
				mx = max(mx, y)
			}
		}{{end}}
{{- define "pmask"}}		for w := u32(0); w < H4 / 2; w++ {
			var pw vec4<u32>
			for e := u32(0); e < 4; e++ {
				let c = w * 8 + e * 2
				var p0 f32
				var p1 f32
				if c0 + c < last {
					p0 = exp2(sv[c] - mn)
				}
				if c0 + c + 1 < last {
					p1 = exp2(sv[c + 1] - mn)
				}
				sum += p0 + p1
				pw[e] = bitcast<u32>(vec2<f16>(f16(p0), f16(p1)))
			}
			ss[at + w] = pw
		}{{end}}
{{- define "factors"}}
{{- if .Bcast0}}
	if half == 0 {
		cs[r] = {{.V}}
	}
{{- else}}
	cs[r * 5 + half * 2] = bitcast<vec4<u32>>(vec4<f32>({{.V}}))
	cs[r * 5 + half * 2 + 1] = bitcast<vec4<u32>>(vec4<f32>({{.V}}))
{{- end}}{{end}}
{{- define "cmload"}}
{{- if .Bcast0}}
	let cm = coopLoad<coopmat<f32, 16, 16, acc>>(cs, sg * 16, 0, col_major)
{{- else}}
	let cm = coopLoad<coopmat<f32, 16, 16, acc>>(cs, sg * 16 * 5, 5, row_major)
{{- end}}{{end}}
{{- template "head" .}}, lean scores.
{{template "params" .}}
{{template "kvconsts" .}}
{{- if .Single}}
// the values of a block go where its keys were
const VS = 0
{{- else if .Pipe}}
// two stages of keys (blocks alternate), then the values
const VS = 2 * BK * LV
{{- else}}
const VS = BK * LV
{{- end}}
// a row of ss: BK f32 scores and 4 of padding, in 16-byte words
const LS4 = BK / 4 + 1
const HB = BK / 2
const H4 = HB / 4
const LOW f32 = -3.4028235e+38

kernel flash16(tq u32, s u32, hq u32, hkv u32, causal u32, scale f32, q read []vec4<u32>, k read []vec4<u32>, v read []vec4<u32>, o read_write []f16) workgroup(WG) {
	shared kv [KR * LV]vec4<u32>
	shared ss [{{if .Pipe}}2 * {{end}}BQ * LS4]vec4<u32>
{{- if .Bcast0}}
	shared cs [BQ]f32
{{- else}}
	shared cs [BQ * 5]vec4<u32>
{{- end}}
{{template "kvquery" .}}
	// this invocation's softmax row (lanes l and l+16 share row l%16 of
	// the subgroup's) and half of the block's columns
	let lane = t % SUB
	let r = sg * 16 + lane % 16
	let half = lane / 16
{{template "last" .}}
{{- if .Near}}
	// kr, vr: keys and values on their way from memory to kv within a block
{{- range .Ps}}
	var kr{{.}} vec4<u32>
	var vr{{.}} vec4<u32>
{{- end}}
	workgroupBarrier()
{{- range .Ps}}
	if {{.}} * WG + t < BK * D8 {
		var w vec4<u32>
		if ({{.}} * WG + t) / D8 < kend {
			w = k[((({{.}} * WG + t) / D8) * hkv + kh) * D8 + ({{.}} * WG + t) % D8]
		}
		kv[(({{.}} * WG + t) / D8) * LV + ({{.}} * WG + t) % D8] = w
	}
{{- end}}
{{- if .Pipe}}
	workgroupBarrier()
	// the first block's scores into ss's first half, the second block's
	// keys into kv's second stage
{{- template "scores" .}}
{{- range .Ps}}
	if {{.}} * WG + t < BK * D8 {
		var w vec4<u32>
		if BK + ({{.}} * WG + t) / D8 < kend {
			w = k[((BK + ({{.}} * WG + t) / D8) * hkv + kh) * D8 + ({{.}} * WG + t) % D8]
		}
		kv[BK * LV + (({{.}} * WG + t) / D8) * LV + ({{.}} * WG + t) % D8] = w
	}
{{- end}}
{{- end}}
{{- else}}
{{template "prefetch" .}}
{{- end}}
{{- if .Unmask}}
	// keys that every row of the workgroup sees: blocks below need no mask
	var lo = s
	if causal != 0 {
		lo = 0
		if q0 + s + 1 > tq {
			lo = q0 + s + 1 - tq
		}
	}
	if q0 + BQ > tq {
		lo = 0
	}
{{- end}}
	let sl2 = scale * 1.4426950408889634
	var m f32 = LOW
	var l f32
	for j0 := u32(0); j0 < kend; j0 += BK {
{{- if .Pipe}}
		// this block's scores and keys: half and stage cur; the next's: nxt
		let cur = j0 / BK % 2
		let nxt = 1 - cur
		// A: scores j0 and keys j0 + BK visible; the last block's values,
		// P and factors read
{{- else}}
		// T: keys j0 staged; the last block's values, P and factors read
{{- end}}
		workgroupBarrier()
{{- range .Ps}}
{{- if $.Near}}
{{template "nload" (restage "vr" "" "0" "v" .)}}
{{- else}}
{{template "restage" (restage "vr" "VS + " "BK" "v" .)}}
{{- end}}
{{- end}}
{{- if .Pipe}}
		// the next block's scores, into registers while this block's
		// softmax runs
{{- range $jt := .Js}}
		var sn{{$jt}} coopmat<f32, 16, 16, acc>
{{- end}}
		if j0 + BK < kend {
{{- range $jt := .Js}}
{{- range $.Ds}}
			sn{{$jt}} = coopMulAdd(qf{{.}}, coopLoad<coopmat<f16, 16, 16, b>>(kv, nxt * BK * LV + {{$jt}} * 16 * LV + {{.}} * 2, LV, col_major), sn{{$jt}})
{{- end}}
{{- end}}
		}
{{- range .Ps}}
{{template "nload" (restage "kr" "" "2 * BK" "k" .)}}
{{- end}}
{{- else}}
{{- nest "scores" .}}
{{- end}}
{{- if not .Pipe}}
		// E: scores visible; the keys' stage is free for the next block
		workgroupBarrier()
{{- end}}
{{- range .Ps}}
{{- if $.Pipe}}
{{- else if $.Near}}
{{template "nstore" (restage "vr" "VS + " "" "" .)}}
{{template "nload" (restage "kr" "" "BK" "k" .)}}
{{- else}}
{{template "restage" (restage "kr" "" "2 * BK" "k" .)}}
{{- end}}
{{- end}}
		// scores in log2 units (m too), the row's half read once into
		// registers in 16-byte loads
		let at = {{if .Pipe}}cur * BQ * LS4 + {{end}}r * LS4 + half * H4
		let c0 = j0 + half * HB
		var sv [HB]f32
		var mx f32 = LOW
{{- if .Unmask}}
		if j0 + BK <= lo {
			for w := u32(0); w < H4; w++ {
				let x = bitcast<vec4<f32>>(ss[at + w])
				for e := u32(0); e < 4; e++ {
					let y = x[e] * sl2
					sv[w * 4 + e] = y
					mx = max(mx, y)
				}
			}
		} else {
{{nest "maxmask" .}}
		}
{{- else}}
{{template "maxmask" .}}
{{- end}}
		mx = max(mx, subgroupShuffleXor(mx, 16))
		let mn = max(m, mx)
		let corr = exp2(m - mn)
		// P over the first half of the bytes just read, 8 halves a word
		var sum f32
{{- if .Unmask}}
		if j0 + BK <= lo {
			for w := u32(0); w < H4 / 2; w++ {
				var pw vec4<u32>
				for e := u32(0); e < 4; e++ {
					let p0 = exp2(sv[w * 8 + e * 2] - mn)
					let p1 = exp2(sv[w * 8 + e * 2 + 1] - mn)
					sum += p0 + p1
					pw[e] = bitcast<u32>(vec2<f16>(f16(p0), f16(p1)))
				}
				ss[at + w] = pw
			}
		} else {
{{nest "pmask" .}}
		}
{{- else}}
{{template "pmask" .}}
{{- end}}
		sum += subgroupShuffleXor(sum, 16)
		l = l * corr + sum
		m = mn
{{- nest "factors" (factor "corr" .Bcast0)}}
{{- if .Pipe}}
{{- range .Ps}}
{{template "nstore" (restage "vr" "VS + " "" "" .)}}
{{- end}}
{{- else if and .Near (not .Single)}}
{{- range .Ps}}
{{template "nstore" (restage "kr" "" "" "" .)}}
{{- end}}
{{- end}}
		// G: P, the factors and the values visible
		workgroupBarrier()
{{- nest "cmload" .}}
{{- range .Ds}}
		of{{.}} = of{{.}} * cm
{{- end}}
{{- range $pt := .PTiles}}
		{
			let pa = coopLoad<coopmat<f16, 16, 16, a>>(ss, {{if $.Pipe}}cur * BQ * LS4 + {{end}}sg * 16 * LS4 + {{$pt.Off}}, LS4, row_major)
{{- range $.Ds}}
			of{{.}} = coopMulAdd(pa, coopLoad<coopmat<f16, 16, 16, b>>(kv, VS + {{$pt.Jt}} * 16 * LV + {{.}} * 2, LV, row_major), of{{.}})
{{- end}}
		}
{{- end}}
{{- if .Pipe}}
		// the block after next's keys where this block's were, the next
		// block's scores where this block's P was (both read before A)
{{- range .Ps}}
{{template "nstore" (restage "kr" "cur * BK * LV + " "" "" .)}}
{{- end}}
		if j0 + BK < kend {
{{- range $jt := .Js}}
			coopStore(sn{{$jt}}, ss, nxt * BQ * LS4 + sg * 16 * LS4 + {{$jt}} * 4, LS4, row_major)
{{- end}}
		}
{{- end}}
{{- if .Single}}
		// H: the values read; the next block's keys take their place
		workgroupBarrier()
{{- range .Ps}}
{{template "nstore" (restage "kr" "" "" "" .)}}
{{- end}}
{{- end}}
	}
	workgroupBarrier()
	var inv f32
	if l > 0.0 {
		inv = 1.0 / l
	}
{{- template "factors" (factor "inv" .Bcast0)}}
	workgroupBarrier()
{{- template "cmload" .}}
{{template "store" .}}
}
`
