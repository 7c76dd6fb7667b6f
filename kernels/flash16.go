package kernels

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// flash16 is flash attention over f16 on cooperative matrices (tensor cores):
// softmax(scale·q·kᵀ)·v with grouped-query heads, causal or not, as
// attention.kc computes it in f32. q, k, v and o are f16 in the layouts of
// attention.kc (q and o [tq, hq·DH], k and v [s, hkv·DH]; query i at
// position i + s - tq; causal = 1 limits it to keys up to its position).
//
// A workgroup of NSG subgroups of SUB invocations takes BQ = 16·NSG
// consecutive queries of one head; subgroup sg owns queries sg·16 .. +15,
// their query rows held as DH/16 matrices (use a) for the whole kernel and
// their output as DH/16 f32 accumulators. Per block of BK keys:
//
//   - S = q·kᵀ (each subgroup 16 x BK, f32) on the cooperative matrices,
//     stored to shared memory; the key (and later value) matrices are
//     loaded straight from k and v where the block lies inside them, else
//     16x16 at a time through a per-subgroup tile of shared memory with
//     zeros past s (the queries and the output likewise, where the query
//     tile passes tq), so that shared memory holds only S, P and factors;
//   - the online softmax in f32, two invocations per query row (each half
//     the block's columns; the halves meet by a subgroup shuffle): the row's
//     running max m and sum l, P = e^(scale·S - m) as f16 into shared
//     memory, the rescale factor e^(m_old - m) of the row's accumulators
//     into a shared [BQ x 16] matrix whose rows repeat it;
//   - O = O ⊙ C + P·v, where C is that factor matrix loaded as an
//     accumulator: the element-wise product scales each row of O.
//
// Finally O ⊙ (1/l) is rounded to f16 and stored (through shared memory
// for the queries that exist, on the edge). Masked scores (keys past s, or past the
// query's position when causal; queries past tq) get p = 0 and no part in
// the max. The host specialises DH (a multiple of 16), NSG, SUB (the
// device's subgroup size; 2·16 = 32 rows of softmax per subgroup needs SUB
// = 32) and BK (a multiple of 16).
//
// That is the direct layout (flash16Text); three others stage the tiles
// in shared memory: as f16 elements (flash16StagedText), as packed
// 16-byte words with loads a block ahead (flash16PackedText), and the
// packed staging with P written over the scores and its own options
// (flash16LeanText, the default: see flash16Config and
// Context.flash16Config).
//
// Cooperative matrices cannot be array elements, so the DH/16 query and
// output matrices are separately named locals: the kernel's text is
// generated per head dimension from the layout's template. The pieces the
// layouts share are named templates (flash16Common).
var (
	flash16Tmpl       = flash16Layout("flash16", flash16Text)
	flash16StagedTmpl = flash16Layout("flash16staged", flash16StagedText)
	flash16PackedTmpl = flash16Layout("flash16packed", flash16PackedText)
	flash16LeanTmpl   = flash16Layout("flash16lean", flash16LeanText)
)

// flash16Layout parses a layout's text along with flash16Common.
func flash16Layout(name, text string) *template.Template {
	var t *template.Template
	funcs := template.FuncMap{"kvtile": kvtile, "restage": restage, "factor": factor,
		"nest": func(name string, data any) (string, error) { return nest(t, name, data) }}
	common := template.Must(template.New("flash16common").Funcs(funcs).Parse(flash16Common))
	t = template.Must(common.New(name).Parse(text))
	return t
}

// nest executes the named template of t's set one tab deeper: the same
// piece of kernel text inside a further block (a branch of an if).
func nest(t *template.Template, name string, data any) (string, error) {
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Join(lines, "\n"), nil
}

// flash16Tile names an edge tile of the direct layout: the buffer, the
// base index of the block tile and the matrix.
type flash16Tile struct {
	Buf, Base string
	D         int
}

// kvtile is the templates' constructor of a flash16Tile.
func kvtile(buf, base string, d int) flash16Tile { return flash16Tile{buf, base, d} }

// flash16Restage names a staging step of the packed layout: the register
// array, the offset in kv, how far ahead the load is, the buffer and the
// word.
type flash16Restage struct {
	Reg, Off, Ahead, Buf string
	P                    int
}

// restage is the templates' constructor of a flash16Restage.
func restage(reg, off, ahead, buf string, p int) flash16Restage {
	return flash16Restage{reg, off, ahead, buf, p}
}

// flash16Factor names a store of the lean layout's factors: the value
// (each row's rescale factor or 1/l) and whether a row has one f32.
type flash16Factor struct {
	V      string
	Bcast0 bool
}

// factor is the templates' constructor of a flash16Factor.
func factor(v string, bcast0 bool) flash16Factor { return flash16Factor{v, bcast0} }

// flash16Common holds the pieces of kernel text the layouts share: the
// header, the parameters and block constants, the shared scores, P and
// factors, the keys a workgroup needs, the softmax row of an invocation
// (last: the keys that row sees), the online softmax between barriers
// (corr: its running sums and rescale factors), the rescale of the
// accumulators and the final 1/l factors. kvtile and restage are the direct
// and packed layouts' own repeated pieces, written twice each with
// different buffers. The packed and lean layouts share more: kvconsts (the
// rows of kv), kvquery (the ids, the keys the workgroup needs and the query
// tile, through kv in passes where it has more rows than kv), prefetch (the
// first block's keys staged, the next block's keys and the first values in
// registers), scores (a block's score tiles from kv into ss) and store (the
// output, through ss on the edge); where they differ there, by the lean
// layout's ss of 16-byte words, the piece says so with .Lean. Each piece
// starts with its own indentation (scores, a range, with a newline: called
// as {{- template}}) and ends without a newline; nest writes a piece one
// tab deeper, inside a further block.
const flash16Common = `{{define "head"}}// flash16: generated by package kernels (flash16.go) for DH = {{.DH}},
// {{.NSG}} subgroups of {{.SUB}}, blocks of {{.BK}} keys{{end}}
{{define "params"}}enable f16
enable subgroups
enable cooperative_matrix

const DH = {{.DH}}
const NSG = {{.NSG}}
const SUB = {{.SUB}}
const BK = {{.BK}}{{end}}
{{define "blocks"}}const LS = BK + 4
const LP = BK + 8
const HB = BK / 2
const LOW f32 = -3.4028235e+38{{end}}
{{define "scratch"}}	shared ss [BQ * LS]f32
	shared ps [BQ * LP]f16
	shared cs [BQ * 16]f32{{end}}
{{define "kend"}}	// keys the workgroup needs: up to its last query's position (uniform)
	var kend = s
	if causal != 0 {
		kend = min(s, min(q0 + BQ, tq) + s - tq)
	}{{end}}
{{define "row"}}	// this invocation's softmax row and half of the block's columns
	let r = t / 2
	let half = t % 2
{{template "last" .}}{{end}}
{{define "last"}}	let qi = q0 + r
	var last = s
	if causal != 0 {
		last = qi + s - tq + 1
	}
	if qi >= tq {
		last = 0
	}{{end}}
{{define "softmax"}}		workgroupBarrier()
		var mx f32 = LOW
		for c := half * HB; c < half * HB + HB; c++ {
			if j0 + c < last {
				mx = max(mx, ss[r * LS + c] * scale)
			}
		}
		mx = max(mx, subgroupShuffleXor(mx, 1))
		let mn = max(m, mx)
		let corr = exp(m - mn)
		var sum f32
		for c := half * HB; c < half * HB + HB; c++ {
			var p f32
			if j0 + c < last {
				p = exp(ss[r * LS + c] * scale - mn)
			}
			ps[r * LP + c] = f16(p)
			sum += p
		}
{{template "corr" .}}
		workgroupBarrier(){{end}}
{{define "corr"}}		sum += subgroupShuffleXor(sum, 1)
		l = l * corr + sum
		m = mn
		for c := half * 8; c < half * 8 + 8; c++ {
			cs[r * 16 + c] = corr
		}{{end}}
{{define "rescale"}}		let cm = coopLoad<coopmat<f32, 16, 16, acc>>(cs, sg * 16 * 16, 16, row_major)
{{- range .Ds}}
		of{{.}} = of{{.}} * cm
{{- end}}{{end}}
{{define "finish"}}	workgroupBarrier()
	var inv f32
	if l > 0.0 {
		inv = 1.0 / l
	}
	for c := half * 8; c < half * 8 + 8; c++ {
		cs[r * 16 + c] = inv
	}
	workgroupBarrier()
	let cm = coopLoad<coopmat<f32, 16, 16, acc>>(cs, sg * 16 * 16, 16, row_major){{end}}
{{define "kvtile"}}				for e := lane; e < 256; e += SUB {
					var x f16
					if j0 + jt * 16 + e / 16 < s {
						x = {{.Buf}}[{{.Base}} + e / 16 * krow + {{.D}} * 16 + e % 16]
					}
					es[eb + e] = x
				}
				workgroupBarrier(){{end}}
{{define "restage"}}		if {{.P}} * WG + t < BK * D8 {
			kv[{{.Off}}(({{.P}} * WG + t) / D8) * LV + ({{.P}} * WG + t) % D8] = {{.Reg}}{{.P}}
			{{.Reg}}{{.P}} = vec4<u32>(u32(0))
			if j0 + {{.Ahead}} + ({{.P}} * WG + t) / D8 < kend {
				{{.Reg}}{{.P}} = {{.Buf}}[((j0 + {{.Ahead}} + ({{.P}} * WG + t) / D8) * hkv + kh) * D8 + ({{.P}} * WG + t) % D8]
			}
		}{{end}}
{{define "kvconsts"}}// rows of kv: a block of keys and one of values (the queries first, in
// passes of KR rows where there are more)
const KR = {{.KR}}
const BQ = NSG * 16
const WG = NSG * SUB
const D8 = DH / 8
// a row of kv: DH halves and 8 of padding (16 bytes), against bank conflicts
const LV = D8 + 1{{end}}
{{define "kvquery"}}	let t = local_index
	let sg = t / SUB
	let h = workgroup_id.y
	let kh = h / (hq / hkv)
	// the last query tiles (the most keys, when causal) first
	let q0 = (num_workgroups.x - 1 - workgroup_id.x) * BQ
{{template "kend" .}}
{{- if eq .QP 1}}
	for e := t; e < BQ * D8; e += WG {
		let r = e / D8
		var w vec4<u32>
		if q0 + r < tq {
			w = q[((q0 + r) * hq + h) * D8 + e % D8]
		}
		kv[r * LV + e % D8] = w
	}
	workgroupBarrier()
{{- range .Ds}}
	let qf{{.}} = coopLoad<coopmat<f16, 16, 16, a>>(kv, sg * 16 * LV + {{.}} * 2, LV, row_major)
	var of{{.}} coopmat<f32, 16, 16, acc>
{{- end}}
{{- else}}
	// the query tile has more rows than kv: KR rows a pass, each subgroup
	// adding its rows from the pass that holds them (cooperative loads must
	// be uniform, so every subgroup loads in every pass, scaled by 0 or 1)
{{- range .Ds}}
	var qf{{.}} coopmat<f16, 16, 16, a>
	var of{{.}} coopmat<f32, 16, 16, acc>
{{- end}}
	for p := u32(0); p < BQ; p += KR {
		for e := t; e < KR * D8; e += WG {
			let r = p + e / D8
			var w vec4<u32>
			if r < BQ && q0 + r < tq {
				w = q[((q0 + r) * hq + h) * D8 + e % D8]
			}
			kv[(e / D8) * LV + e % D8] = w
		}
		workgroupBarrier()
		let mine = sg * 16 >= p && sg * 16 < p + KR
		var at u32
		var sel f16
		if mine {
			at = sg * 16 - p
			sel = 1.0
		}
{{- range .Ds}}
		qf{{.}} = qf{{.}} + coopLoad<coopmat<f16, 16, 16, a>>(kv, at * LV + {{.}} * 2, LV, row_major) * sel
{{- end}}
		workgroupBarrier()
	}
{{- end}}{{end}}
{{define "prefetch"}}	// kr: keys of the block after the one staged; vr: values of the next
{{- range .Ps}}
	var kr{{.}} vec4<u32>
	var vr{{.}} vec4<u32>
{{- end}}
{{- range .Ps}}
	if {{.}} * WG + t < BK * D8 && (({{.}} * WG + t) / D8) < kend {
		let g = ((({{.}} * WG + t) / D8) * hkv + kh) * D8 + ({{.}} * WG + t) % D8
		kr{{.}} = k[g]
		vr{{.}} = v[g]
	}
{{- end}}
	workgroupBarrier()
{{- range .Ps}}
	if {{.}} * WG + t < BK * D8 {
		kv[(({{.}} * WG + t) / D8) * LV + ({{.}} * WG + t) % D8] = kr{{.}}
		kr{{.}} = vec4<u32>(u32(0))
	}
	if {{.}} * WG + t < BK * D8 && BK + ({{.}} * WG + t) / D8 < kend {
		kr{{.}} = k[(((BK + ({{.}} * WG + t) / D8)) * hkv + kh) * D8 + ({{.}} * WG + t) % D8]
	}
{{- end}}{{end}}
{{define "scores"}}
{{- range $jt := .Js}}
	{
		var sc coopmat<f32, 16, 16, acc>
{{- range $.Ds}}
		sc = coopMulAdd(qf{{.}}, coopLoad<coopmat<f16, 16, 16, b>>(kv, {{$jt}} * 16 * LV + {{.}} * 2, LV, col_major), sc)
{{- end}}
		coopStore(sc, ss, sg * 16 * {{if $.Lean}}LS4 + {{$jt}} * 4, LS4{{else}}LS + {{$jt}} * 16, LS{{end}}, row_major)
	}
{{- end}}{{end}}
{{define "store"}}	// a whole tile straight to o; the last one 16 columns at a time
	// through ss, for the queries that exist
	if q0 + BQ <= tq {
{{- range .Ds}}
		coopStore(coopmat<f16, 16, 16, acc>(of{{.}} * cm), o, ((q0 + sg * 16) * hq + h) * DH + {{.}} * 16, hq * DH, row_major)
{{- end}}
	} else {
{{- range .Ds}}
{{- if $.Lean}}
		coopStore(of{{.}} * cm, ss, sg * 16 * LS4, LS4, row_major)
{{- else}}
		coopStore(of{{.}} * cm, ss, sg * 16 * LS, LS, row_major)
{{- end}}
		workgroupBarrier()
		for e := t; e < BQ * 16; e += WG {
			if q0 + e / 16 < tq {
{{- if $.Lean}}
				o[((q0 + e / 16) * hq + h) * DH + {{.}} * 16 + e % 16] = f16(bitcast<f32>(ss[e / 16 * LS4 + e % 16 / 4][e % 4]))
{{- else}}
				o[((q0 + e / 16) * hq + h) * DH + {{.}} * 16 + e % 16] = f16(ss[e / 16 * LS + e % 16])
{{- end}}
			}
		}
		workgroupBarrier()
{{- end}}
	}{{end}}
`

// flash16Text is the direct layout: kvtile is its edge tile of keys or
// values (block tile jt, matrix D) through es.
const flash16Text = `{{template "head" .}}.
{{template "params" .}}
const BQ = NSG * 16
const WG = NSG * SUB
{{template "blocks" .}}

kernel flash16(tq u32, s u32, hq u32, hkv u32, causal u32, scale f32, q read []f16, k read []f16, v read []f16, o read_write []f16) workgroup(WG) {
{{template "scratch" .}}
	// es: each subgroup's 16x16 tile of what lies partly outside q, k, v
	// or o, zeros outside
	shared es [NSG * 256]f16
	let t = local_index
	let sg = t / SUB
	let lane = t % SUB
	let eb = sg * 256
	let h = workgroup_id.y
	let kh = h / (hq / hkv)
	// the last query tiles (the most keys, when causal) first
	let q0 = (num_workgroups.x - 1 - workgroup_id.x) * BQ
	let qrow = hq * DH
	let krow = hkv * DH
	let qs0 = q0 + sg * 16
{{template "kend" .}}
	let full = q0 + BQ <= tq
{{- range .Ds}}
	var qf{{.}} coopmat<f16, 16, 16, a>
	var of{{.}} coopmat<f32, 16, 16, acc>
{{- end}}
	if full {
{{- range .Ds}}
		qf{{.}} = coopLoad<coopmat<f16, 16, 16, a>>(q, qs0 * qrow + h * DH + {{.}} * 16, qrow, row_major)
{{- end}}
	} else {
{{- range .Ds}}
		for e := lane; e < 256; e += SUB {
			var x f16
			if qs0 + e / 16 < tq {
				x = q[(qs0 + e / 16) * qrow + h * DH + {{.}} * 16 + e % 16]
			}
			es[eb + e] = x
		}
		workgroupBarrier()
		qf{{.}} = coopLoad<coopmat<f16, 16, 16, a>>(es, eb, 16, row_major)
		workgroupBarrier()
{{- end}}
	}
{{template "row" .}}
	var m f32 = LOW
	var l f32
	for j0 := u32(0); j0 < kend; j0 += BK {
		// S = q·kᵀ: keys straight from k for a whole block, else through es
		let inside = j0 + BK <= s
		if inside {
			// unrolled, so that every key matrix of the block can be in
			// flight at once
{{- range $jt := .Js}}
			{
				var sc coopmat<f32, 16, 16, acc>
				let kb = (j0 + {{$jt}} * 16) * krow + kh * DH
{{- range $.Ds}}
				sc = coopMulAdd(qf{{.}}, coopLoad<coopmat<f16, 16, 16, b>>(k, kb + {{.}} * 16, krow, col_major), sc)
{{- end}}
				coopStore(sc, ss, sg * 16 * LS + {{$jt}} * 16, LS, row_major)
			}
{{- end}}
		}
		if !inside {
			for jt := u32(0); jt < BK / 16; jt++ {
				var sc coopmat<f32, 16, 16, acc>
				let kb = (j0 + jt * 16) * krow + kh * DH
{{- range .Ds}}
{{template "kvtile" (kvtile "k" "kb" .)}}
				sc = coopMulAdd(qf{{.}}, coopLoad<coopmat<f16, 16, 16, b>>(es, eb, 16, col_major), sc)
				workgroupBarrier()
{{- end}}
				coopStore(sc, ss, sg * 16 * LS + jt * 16, LS, row_major)
			}
		}
{{template "softmax" .}}
		// O = O ⊙ C + P·v
{{template "rescale" .}}
		if inside {
{{- range $jt := .Js}}
			{
				let pa = coopLoad<coopmat<f16, 16, 16, a>>(ps, sg * 16 * LP + {{$jt}} * 16, LP, row_major)
				let vb = (j0 + {{$jt}} * 16) * krow + kh * DH
{{- range $.Ds}}
				of{{.}} = coopMulAdd(pa, coopLoad<coopmat<f16, 16, 16, b>>(v, vb + {{.}} * 16, krow, row_major), of{{.}})
{{- end}}
			}
{{- end}}
		}
		if !inside {
			for jt := u32(0); jt < BK / 16; jt++ {
				let pa = coopLoad<coopmat<f16, 16, 16, a>>(ps, sg * 16 * LP + jt * 16, LP, row_major)
				let vb = (j0 + jt * 16) * krow + kh * DH
{{- range .Ds}}
{{template "kvtile" (kvtile "v" "vb" .)}}
				of{{.}} = coopMulAdd(pa, coopLoad<coopmat<f16, 16, 16, b>>(es, eb, 16, row_major), of{{.}})
				workgroupBarrier()
{{- end}}
			}
		}
	}
{{template "finish" .}}
	if full {
{{- range .Ds}}
		coopStore(coopmat<f16, 16, 16, acc>(of{{.}} * cm), o, qs0 * qrow + h * DH + {{.}} * 16, qrow, row_major)
{{- end}}
	} else {
{{- range .Ds}}
		coopStore(coopmat<f16, 16, 16, acc>(of{{.}} * cm), es, eb, 16, row_major)
		workgroupBarrier()
		for e := lane; e < 256; e += SUB {
			if qs0 + e / 16 < tq {
				o[(qs0 + e / 16) * qrow + h * DH + {{.}} * 16 + e % 16] = es[eb + e]
			}
		}
		workgroupBarrier()
{{- end}}
	}
}
`

// flash16StagedText is the first layout, measured on the H200 (docs/PERF.md):
// each block's keys and values, the query tile and the output tile go
// through shared memory (ks, vs) by 16-byte loads, whole or not.
const flash16StagedText = `{{template "head" .}}.
{{template "params" .}}
// rows of ks: the queries, then a block of keys
const KR = {{.KR}}
const BQ = NSG * 16
const WG = NSG * SUB
const D8 = DH / 8
const DT = DH / 16
const LD = DH + 8
{{template "blocks" .}}

// put8 writes the eight halves of w to a[o ..].
fn put8(a shared [KR * LD]f16, o u32, w vec4<u32>) {
	for j := u32(0); j < 4; j++ {
		let h = bitcast<vec2<f16>>(w[j])
		a[o + j * 2] = h.x
		a[o + j * 2 + 1] = h.y
	}
}

// putv8 is put8 for the value stage.
fn putv8(a shared [BK * LD]f16, o u32, w vec4<u32>) {
	for j := u32(0); j < 4; j++ {
		let h = bitcast<vec2<f16>>(w[j])
		a[o + j * 2] = h.x
		a[o + j * 2 + 1] = h.y
	}
}

kernel flash16(tq u32, s u32, hq u32, hkv u32, causal u32, scale f32, q read []vec4<u32>, k read []vec4<u32>, v read []vec4<u32>, o read_write []f16) workgroup(WG) {
	// ks holds the queries first, then each block's keys, finally the output
	shared ks [KR * LD]f16
	shared vs [BK * LD]f16
{{template "scratch" .}}
	let t = local_index
	let sg = t / SUB
	let h = workgroup_id.y
	let kh = h / (hq / hkv)
	let q0 = workgroup_id.x * BQ
{{template "kend" .}}
	for e := t; e < BQ * D8; e += WG {
		let r = e / D8
		let c = e % D8
		var w vec4<u32>
		if q0 + r < tq {
			w = q[((q0 + r) * hq + h) * D8 + c]
		}
		put8(ks, r * LD + c * 8, w)
	}
	workgroupBarrier()
{{- range .Ds}}
	let qf{{.}} = coopLoad<coopmat<f16, 16, 16, a>>(ks, sg * 16 * LD + {{.}} * 16, LD, row_major)
	var of{{.}} coopmat<f32, 16, 16, acc>
{{- end}}
{{template "row" .}}
	var m f32 = LOW
	var l f32
	for j0 := u32(0); j0 < kend; j0 += BK {
		workgroupBarrier()
		for e := t; e < BK * D8; e += WG {
			let j = e / D8
			let c = e % D8
			var kw vec4<u32>
			var vw vec4<u32>
			if j0 + j < s {
				let g = ((j0 + j) * hkv + kh) * D8 + c
				kw = k[g]
				vw = v[g]
			}
			put8(ks, j * LD + c * 8, kw)
			putv8(vs, j * LD + c * 8, vw)
		}
		workgroupBarrier()
		for jt := u32(0); jt < BK / 16; jt++ {
			var sc coopmat<f32, 16, 16, acc>
{{- range .Ds}}
			sc = coopMulAdd(qf{{.}}, coopLoad<coopmat<f16, 16, 16, b>>(ks, jt * 16 * LD + {{.}} * 16, LD, col_major), sc)
{{- end}}
			coopStore(sc, ss, sg * 16 * LS + jt * 16, LS, row_major)
		}
{{template "softmax" .}}
{{template "rescale" .}}
		for jt := u32(0); jt < BK / 16; jt++ {
			let pa = coopLoad<coopmat<f16, 16, 16, a>>(ps, sg * 16 * LP + jt * 16, LP, row_major)
{{- range .Ds}}
			of{{.}} = coopMulAdd(pa, coopLoad<coopmat<f16, 16, 16, b>>(vs, jt * 16 * LD + {{.}} * 16, LD, row_major), of{{.}})
{{- end}}
		}
	}
{{template "finish" .}}
{{- range .Ds}}
	coopStore(coopmat<f16, 16, 16, acc>(of{{.}} * cm), ks, sg * 16 * LD + {{.}} * 16, LD, row_major)
{{- end}}
	workgroupBarrier()
	for e := t; e < BQ * DH; e += WG {
		let rr = e / DH
		let c = e % DH
		if q0 + rr < tq {
			o[((q0 + rr) * hq + h) * DH + c] = ks[rr * LD + c]
		}
	}
}
`

// flash16PackedText stages through vec4<u32> shared arrays (packed f16
// pairs): every 16-byte global load is one 16-byte shared store, and
// coopLoad reads the matrices from the words. Keys and values are fetched
// into registers a block ahead (keys two) so their loads are in flight
// while the tensor cores work on the block before, and each block takes
// three barriers: T (keys i staged, values free), E (scores in ss, keys
// free: keys i+1 go in while the softmax runs), G (P and the factors in
// shared memory, values i staged).
// restage (in flash16Common) is its staging of the invocation's word P of
// a block from register Reg into kv (at Off) and the load of that word
// Ahead keys on from Buf.
const flash16PackedText = `{{template "head" .}}, packed staging.
{{template "params" .}}
{{template "kvconsts" .}}
const VS = BK * LV
{{template "blocks" .}}

kernel flash16(tq u32, s u32, hq u32, hkv u32, causal u32, scale f32, q read []vec4<u32>, k read []vec4<u32>, v read []vec4<u32>, o read_write []f16) workgroup(WG) {
	shared kv [KR * LV]vec4<u32>
{{template "scratch" .}}
{{template "kvquery" .}}
{{template "row" .}}
{{template "prefetch" .}}
	let sl2 = scale * 1.4426950408889634
	var m f32 = LOW
	var l f32
	for j0 := u32(0); j0 < kend; j0 += BK {
		// T: keys j0 staged; the last block's values, P and factors read
		workgroupBarrier()
{{- range .Ps}}
{{template "restage" (restage "vr" "VS + " "BK" "v" .)}}
{{- end}}
{{- nest "scores" .}}
		// E: scores visible; the keys' stage is free for the next block
		workgroupBarrier()
{{- range .Ps}}
{{template "restage" (restage "kr" "" "2 * BK" "k" .)}}
{{- end}}
		// scores in log2 units (m too), the row's half read once into
		// registers
		var sv [HB]f32
		var mx f32 = LOW
		for c := u32(0); c < HB; c++ {
			sv[c] = LOW
			if j0 + half * HB + c < last {
				sv[c] = ss[r * LS + half * HB + c] * sl2
			}
			mx = max(mx, sv[c])
		}
		mx = max(mx, subgroupShuffleXor(mx, 1))
		let mn = max(m, mx)
		let corr = exp2(m - mn)
		var sum f32
		for c := u32(0); c < HB; c++ {
			var p f32
			if j0 + half * HB + c < last {
				p = exp2(sv[c] - mn)
			}
			ps[r * LP + half * HB + c] = f16(p)
			sum += p
		}
{{template "corr" .}}
		// G: P, the factors and the values visible
		workgroupBarrier()
{{template "rescale" .}}
{{- range $jt := .Js}}
		{
			let pa = coopLoad<coopmat<f16, 16, 16, a>>(ps, sg * 16 * LP + {{$jt}} * 16, LP, row_major)
{{- range $.Ds}}
			of{{.}} = coopMulAdd(pa, coopLoad<coopmat<f16, 16, 16, b>>(kv, VS + {{$jt}} * 16 * LV + {{.}} * 2, LV, row_major), of{{.}})
{{- end}}
		}
{{- end}}
	}
{{template "finish" .}}
{{template "store" .}}
}
`

// flash16Config is one specialisation of flash16. Direct selects the
// layout that loads whole tiles straight from global memory (flash16Text),
// Packed the one that stages every tile as packed words with loads a
// block ahead (flash16PackedText), neither the one that stages every tile
// in shared memory as f16 (flash16StagedText). Lean (with Packed) keeps
// the packed staging and writes P over the scores (flash16LeanText);
// Bcast0, Unmask, Near, Single and Pipe are options of Lean (see
// flash16LeanText).
type flash16Config struct {
	DH, NSG, SUB, BK                         int
	Direct, Packed                           bool
	Lean, Bcast0, Unmask, Near, Single, Pipe bool
}

// shared is the kernel's shared memory in bytes: ss, ps, cs, and es
// (Direct), kv (Packed) or ks and vs.
func (f flash16Config) shared() int {
	bq := 16 * f.NSG
	if f.Lean {
		cs := 16 * 5 * bq
		if f.Bcast0 {
			cs = 4 * bq
		}
		stage, halves := 2*f.BK, 1
		if f.Single {
			stage = f.BK
		}
		if f.Pipe {
			stage, halves = 3*f.BK, 2
		}
		return 16*stage*(f.DH/8+1) + halves*4*bq*(f.BK+4) + cs
	}
	n := 4*bq*(f.BK+4) + 2*bq*(f.BK+8) + 4*bq*16
	if f.Direct {
		return n + 2*bq*16
	}
	if f.Packed {
		return n + 16*2*f.BK*(f.DH/8+1)
	}
	ld := f.DH + 8
	return n + 2*max(bq, f.BK)*ld + 2*f.BK*ld
}

// module parses the kernel's text.
func (f flash16Config) module() (*ir.Module, error) {
	src, err := f.source()
	if err != nil {
		return nil, err
	}
	return parse.Load("flash16.kc", []byte(src), nil)
}

// source returns the kernel's text.
func (f flash16Config) source() (string, error) {
	if f.DH%16 != 0 || f.BK%16 != 0 || f.SUB != 32 || f.NSG < 1 || f.Direct && f.Packed ||
		f.Lean && (!f.Packed || f.BK%32 != 0) || (f.Bcast0 || f.Unmask || f.Near) && !f.Lean || f.Single && !f.Near ||
		f.Pipe && (!f.Near || !f.Bcast0 || f.Single || 16*f.NSG > 3*f.BK) {
		return "", fmt.Errorf("kernels: flash16: unsupported configuration %+v", f)
	}
	ds := make([]int, f.DH/16)
	for i := range ds {
		ds[i] = i
	}
	js := make([]int, f.BK/16)
	for i := range js {
		js[i] = i
	}
	// ps: the packed layout's 16-byte words of a block per invocation
	ps := make([]int, (f.BK*f.DH/8+f.NSG*f.SUB-1)/(f.NSG*f.SUB))
	for i := range ps {
		ps[i] = i
	}
	tm, kr := flash16StagedTmpl, max(16*f.NSG, f.BK)
	switch {
	case f.Direct:
		tm = flash16Tmpl
	case f.Lean && f.Single:
		tm, kr = flash16LeanTmpl, f.BK
	case f.Lean && f.Pipe:
		tm, kr = flash16LeanTmpl, 3*f.BK
	case f.Lean:
		tm, kr = flash16LeanTmpl, 2*f.BK
	case f.Packed:
		tm, kr = flash16PackedTmpl, 2*f.BK
	}
	// the lean layout's P tiles: block tile jt lies in half jt·16/(BK/2)
	// of its row, at this 16-byte word of the row
	type ptile struct{ Jt, Off int }
	var pts []ptile
	for _, jt := range js {
		hb := f.BK / 2
		h := jt * 16 / hb
		pts = append(pts, ptile{jt, h*hb/4 + (jt*16-h*hb)/8})
	}
	var b strings.Builder
	err := tm.Execute(&b, struct {
		flash16Config
		Ds, Js, Ps []int
		KR, QP     int
		PTiles     []ptile
	}{f, ds, js, ps, kr, (16*f.NSG + kr - 1) / kr, pts})
	return b.String(), err
}
