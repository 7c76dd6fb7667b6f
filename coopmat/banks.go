package coopmat

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Shared-memory bank conflicts of the staging stores. An invocation holds
// 8 consecutive elements (one 16-byte load) and writes them to shared
// memory with 2-byte stores, the language having no wider store of f16 or
// bf16 into an array of them. If every invocation wrote its elements in the
// same order, one store instruction of a subgroup would address 32 places
// 16 bytes apart: four of them on each 4-byte bank (32 banks), a 4-way
// conflict, so the staging would cost four times its bytes in shared
// bandwidth — more than the multiply-adds take on the H200 (docs/PERF.md).
// Instead invocation e writes its words in the order rot(e), rot(e)+1, ...
// (mod 4): store instruction j writes word (j + rot(e)) mod 4. The rotation
// is chosen per staging geometry from a few formulas by counting, for every
// subgroup and store instruction, the distinct 4-byte words per bank (the
// cost of the instruction in shared-memory wavefronts).

// rotation is one formula for rot(e): coefficients of the slice's row
// (e / vecs), its vector column (e % vecs), the 128-byte line of shared
// memory its elements start in, and some halvings.
type rotation struct {
	k [len(rotTerms)]int
}

// rotTerms are the terms a rotation sums (each times 0 to 3), as .kc text
// and as functions of (row, col).
var rotTerms = [...]struct {
	text string
	f    func(row, col, o int) int
}{
	{"col", func(_, c, _ int) int { return c }},
	{"row", func(r, _, _ int) int { return r }},
	{"(o >> 6)", func(_, _, o int) int { return o >> 6 }}, // 128-byte lines
	{"(col >> 2)", func(_, c, _ int) int { return c >> 2 }},
	{"(col >> 3)", func(_, c, _ int) int { return c >> 3 }},
	{"(row >> 1)", func(r, _, _ int) int { return r >> 1 }},
}

// at is the rotation of the invocation whose 8 elements start at element
// o, row row and vector column col of the slice.
func (r rotation) at(row, col, o int) int {
	v := 0
	for i, t := range rotTerms {
		v += r.k[i] * t.f(row, col, o)
	}
	return v & 3
}

// text is the rotation as .kc text over the lets row and col ("" for none).
func (r rotation) text() string {
	var parts []string
	for i, t := range rotTerms {
		switch r.k[i] {
		case 0:
		case 1:
			parts = append(parts, t.text)
		default:
			parts = append(parts, fmt.Sprintf("%s * %d", t.text, r.k[i]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, " + ") + ") & 3"
}

// rotations lists the candidate formulas, those with fewer terms first.
func rotations() []rotation {
	var out []rotation
	n := len(rotTerms)
	total := 1
	for i := 0; i < n; i++ {
		total *= 4
	}
	for code := 0; code < total; code++ {
		var r rotation
		c := code
		for i := 0; i < n; i++ {
			r.k[i] = c % 4
			c /= 4
		}
		out = append(out, r)
	}
	terms := func(r rotation) int {
		t := 0
		for _, k := range r.k {
			if k != 0 {
				t++
			}
		}
		return t
	}
	sort.SliceStable(out, func(i, j int) bool { return terms(out[i]) < terms(out[j]) })
	return out
}

// stageCost is the shared-memory wavefronts of one slice's staging stores
// for load l with rotation r, over every subgroup of threads invocations
// (sub each): per 2-byte store instruction, the largest number of distinct
// 4-byte words any bank receives.
func stageCost(l stageLoad, threads, sub int, r rotation) int {
	vecs := l.Cols / l.Vec
	total := 0
	var seen [32][]int
	for i := 0; i < l.per(threads); i++ {
		for w0 := 0; w0 < threads; w0 += sub {
			for j := 0; j < 8; j++ { // word j/2, half j%2
				for b := range seen {
					seen[b] = seen[b][:0]
				}
				worst := 0
				for lane := 0; lane < sub; lane++ {
					e := w0 + lane + i*threads
					row, col := e/vecs, e%vecs
					o := row*l.LD + col*8
					half := o + 2*((j/2+r.at(row, col, o))&3) + j%2
					word := half / 2
					b := word % 32
					if !slices.Contains(seen[b], word) {
						seen[b] = append(seen[b], word)
						worst = max(worst, len(seen[b]))
					}
				}
				total += worst
			}
		}
	}
	return total
}

// rotMemo caches bestRotation by geometry.
var rotMemo sync.Map

// bestRotation picks the cheapest rotation for l: the first (fewest terms)
// that reaches one wavefront per store instruction, else the cheapest
// found; no rotation when none helps.
func bestRotation(l stageLoad, threads, sub int) (rotation, int) {
	type key struct{ rows, cols, vec, ld, threads, sub int }
	k := key{l.Rows, l.Cols, l.Vec, l.LD, threads, sub}
	if v, ok := rotMemo.Load(k); ok {
		rc := v.([2]any)
		return rc[0].(rotation), rc[1].(int)
	}
	ideal := l.per(threads) * (threads / sub) * 8
	rs := rotations()
	best, cost := rs[0], stageCost(l, threads, sub, rs[0])
	for _, r := range rs[1:] {
		if cost == ideal {
			break
		}
		if c := stageCost(l, threads, sub, r); c < cost {
			best, cost = r, c
		}
	}
	rotMemo.Store(k, [2]any{best, cost})
	return best, cost
}

// Packed staging (Plan.Packed) stores each 16-byte load whole. A subgroup's
// 16-byte stores are served in phases of 8 invocations (128 bytes, all 32
// banks); a phase is conflict-free when its 8 vec4s fall in 8 distinct
// 16-byte bank groups (vec4 index mod 8). With 8 or more vec4s per row the
// 8 invocations of a phase write consecutive vec4s of one row: free. With
// fewer (slices of 32 along k: 4 vec4s a row, 5 with the skew) a phase
// covers several rows, and consecutive ones collide (rows 0 and 1 of a
// 5-vec4 stride put vec4s 0 and 8 on one group). So invocations are given
// rows in another order: phase ph of a 32-invocation chunk takes rows
// (ph % s) + (ph / s)·s·rpp + s·h for its h-th row (rpp rows a phase), a
// permutation of the chunk's rows; s = 4 makes the phases of 4-vec4 rows
// write rows r and r+4, s = 2 those of 2-vec4 rows rows r, r+2, r+4, r+6.
// Global loads keep whole 64- or 32-byte row pieces per invocation group.

// spreadOK reports whether row step s permutes the rows of l's slice.
func spreadOK(l stageLoad, s int) bool {
	vecs := l.Cols / l.Vec
	if s == 1 {
		return true
	}
	if vecs >= 8 || 8%vecs != 0 {
		return false
	}
	rpp := 8 / vecs
	return 4%s == 0 && (l.Rows*vecs)%32 == 0 && s*rpp <= 32/vecs
}

// spreadRow is the slice row and vector column of vector e of l's slice
// with row step s.
func spreadRow(l stageLoad, s, e int) (row, col int) {
	vecs := l.Cols / l.Vec
	if s == 1 {
		return e / vecs, e % vecs
	}
	rpp := 8 / vecs
	q, ph := e%32, e%32/8
	return e/32*(32/vecs) + ph%s + ph/s*s*rpp + s*(q%8/vecs), e % vecs
}

// spreadText is spreadRow as .kc text over e.
func spreadText(l stageLoad, s int) (row, col string) {
	vecs := l.Cols / l.Vec
	if s == 1 {
		return fmt.Sprintf("e / %d", vecs), fmt.Sprintf("e %% %d", vecs)
	}
	rpp := 8 / vecs
	ph := fmt.Sprintf("e %% 32 / 8 %% %d + e %% 32 / 8 / %d * %d", s, s, s*rpp)
	if s == 4 { // every phase in the first block
		ph = "e % 32 / 8"
	}
	return fmt.Sprintf("e / 32 * %d + %s + %d * (e %% 8 / %d)", 32/vecs, ph, s, vecs), fmt.Sprintf("e %% %d", vecs)
}

// packedCost is the wavefronts of one slice's 16-byte staging stores for
// load l with row step s: per store instruction, subgroup and phase of 8
// invocations, the most distinct vec4s in one 16-byte bank group.
func packedCost(l stageLoad, threads, sub, s int) int {
	ld := l.LD / 8
	total := 0
	for i := 0; i < l.per(threads); i++ {
		for w0 := 0; w0 < threads; w0 += sub {
			for p0 := 0; p0 < sub; p0 += 8 {
				var seen [8][]int
				worst := 0
				for lane := p0; lane < min(p0+8, sub); lane++ {
					row, col := spreadRow(l, s, i*threads+w0+lane)
					v := row*ld + col
					g := v % 8
					if !slices.Contains(seen[g], v) {
						seen[g] = append(seen[g], v)
						worst = max(worst, len(seen[g]))
					}
				}
				total += worst
			}
		}
	}
	return total
}

// bestSpread picks the row step of l's packed staging: the cheapest of 1, 2
// and 4 (the smaller on ties), with its cost.
func bestSpread(l stageLoad, threads, sub int) (int, int) {
	best, cost := 1, packedCost(l, threads, sub, 1)
	for _, s := range []int{2, 4} {
		if !spreadOK(l, s) {
			continue
		}
		if c := packedCost(l, threads, sub, s); c < cost {
			best, cost = s, c
		}
	}
	return best, cost
}
