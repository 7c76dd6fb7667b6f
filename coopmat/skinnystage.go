package coopmat

import (
	"fmt"
	"strings"
)

// The skinny kernel's staged form (Plan.StageB): an interior workgroup
// copies its block of B into the shared array Bw with 16-byte loads, and
// each subgroup loads its B matrices from there instead of from global
// memory. For A·Bᵀ the block is TN·IN rows of B [n,k] along the chunk's
// KS values of k (rows contiguous in memory), the matrices loaded
// col_major over them: a column-major cooperative load of Bᵀ from global
// memory may be lowered to narrow loads. For A·B it is the chunk's KS rows
// of B [k,n], TN·IN columns each (TN·IN·2 contiguous bytes), the matrices
// loaded row_major.
//
// An invocation's loads of B's block and of A's chunk are all issued
// before any is stored (as stageAHoisted's), at clamped in-bounds
// addresses. Walking k in chunks (Loop), the first chunk's loads are
// issued before the loop and each interior chunk, once its words are
// stored and the barrier passed, issues the next chunk's loads into the
// same registers before it multiplies: their round trip overlaps the
// chunk's multiply-adds. An interior chunk has no k past its end, and
// A's rows past M (copies of row M-1, from the clamped loads) are not
// zeroed: they reach only the rows of C past M, which are not written.
// An edge chunk (columns past N, or k past K) stages A and B as the plain
// form does, and ignores the registers (the chunks after an edge chunk
// are edge chunks too: the test only grows false as k grows).
//
// For A·Bᵀ Bw's rows are LDW = KS/8 + 1 words long: a subgroup's stores
// write 32 consecutive words of one row (the block's rows are 16 or more
// words), 8 distinct 16-byte bank groups a phase, and a matrix load's 8
// rows of 16 bytes a phase are LDW words apart, one bank group further
// each row: conflict-free both ways (TestSkinnyStagedBanks). For A·B the
// rows are TN·IN/8 words and LDW is chosen by the same model
// (stagedLDW): at one tile of 16 columns (2 words a row) no skew, the
// stores and a matrix's 16 rows both runs of consecutive words.

// stagedSetup writes the per-invocation constants of the staged loads: the
// row (sr) and word (sw) of B's block and the row (am) and k offset (ao)
// of A's chunk of load i; with Loop the first chunk's loads.
func (s skinnyShape) stagedSetup(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	threads := s.S * s.Sub
	wd, n := s.bWords(), s.aVec()
	vecs := s.KS / n
	for i := 0; i < s.bLoads(); i++ {
		p("let sr%d = (t + %d) / %d", i, i*threads, wd)
		p("let sw%d = (t + %d) %% %d", i, i*threads, wd)
	}
	for i := 0; i < s.aLoads(); i++ {
		p("let am%d = (t + %d) / %d", i, i*threads, vecs)
		p("let ao%d = (t + %d) %% %d * %d", i, i*threads, vecs, n)
	}
	if s.Loop {
		s.stagedLoads(w, "workgroup_id.z * KS", true)
	}
}

// bRows and bWords are the rows of B's block and their 16-byte words:
// for Bᵀ TN·IN rows of KS values of k, for B KS rows of TN·IN columns.
func (s skinnyShape) bRows() int {
	if s.TransB {
		return s.TN * s.IN
	}
	return s.KS
}

func (s skinnyShape) bWords() int { return s.TN * s.IN * s.KS / 8 / s.bRows() }

// stagedLDW is the length in words of Bw's rows: for Bᵀ one word of skew
// (see above); for B the shortest, from no skew up to 7 words, whose
// stores and matrix loads take the fewest phases past one a phase of 8
// words (stagedConflicts).
func (s skinnyShape) stagedLDW() int {
	if s.TransB {
		return s.KS/8 + 1
	}
	best, cost := s.bWords(), -1
	for ldw := s.bWords(); ldw < s.bWords()+8; ldw++ {
		if c := s.stagedConflicts(ldw); cost < 0 || c < cost {
			best, cost = ldw, c
		}
	}
	return best
}

// stagedConflicts counts, for A·B's block in rows of ldw words, the extra
// phases (words of one 16-byte bank group, past the first, in a phase of
// 8 consecutive 16-byte accesses) of one subgroup's stores and of a
// matrix load: 16-byte accesses row by row over the IK rows of IN/8
// words.
func (s skinnyShape) stagedConflicts(ldw int) int {
	wd, n := s.bWords(), 0
	phase := func(word func(i int) int) {
		seen := map[int]int{}
		for i := 0; i < 8; i++ {
			seen[word(i)%8]++
		}
		for _, c := range seen {
			n += c - 1
		}
	}
	for ph := 0; ph < s.Sub/8; ph++ { // a subgroup stores consecutive words of the block
		phase(func(i int) int { e := ph*8 + i; return e/wd*ldw + e%wd })
	}
	rw := s.IN / 8
	for j := 0; j < s.TN; j++ {
		for ph := 0; ph < s.IK*rw/8; ph++ {
			phase(func(i int) int { e := ph*8 + i; return e/rw*ldw + j*rw + e%rw })
		}
	}
	return n
}

// bLoads and aLoads are an invocation's 16-byte loads of B's block and of
// A's chunk.
func (s skinnyShape) bLoads() int { return s.TN * s.IN * s.KS / 8 / (s.S * s.Sub) }
func (s skinnyShape) aLoads() int { return s.IM * s.KS / s.aVec() / (s.S * s.Sub) }

// stagedLoads issues an invocation's loads of B's block and A's chunk
// from k (an expression) into bw and av (declared with decl), every
// address clamped into the arrays.
func (s skinnyShape) stagedLoads(w *strings.Builder, k string, decl bool) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	v := ""
	if decl {
		v = "var "
	}
	for i := 0; i < s.bLoads(); i++ {
		if s.TransB {
			p("%sbw%d = B[min(col0 + sr%d, N - 1) * (K / 8) + min((%s) / 8 + sw%d, K / 8 - 1)]", v, i, i, k, i)
		} else {
			p("%sbw%d = B[min(%s + sr%d, K - 1) * (N / 8) + min(col0 / 8 + sw%d, N / 8 - 1)]", v, i, k, i, i)
		}
	}
	n := s.aVec()
	for i := 0; i < s.aLoads(); i++ {
		p("%sav%d = A[(min(am%d, M - 1) * K + min(%s + ao%d, K - %d)) / %d]", v, i, i, k, i, n, n)
	}
}

// stagedBody is body's staged form: an interior chunk stores the words
// loaded for it, passes the barrier, issues the next chunk's loads (Loop)
// and multiplies A from As by B from Bw; an edge chunk is body's.
func (s skinnyShape) stagedBody(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	ksub := s.KS / s.S
	p("\tlet ks = kbeg + sg * %d", ksub)
	p("\tif col0 + %d <= N && kbeg + %d <= K {", s.TN*s.IN, s.KS)
	if !s.Loop {
		s.stagedLoads(w, "kbeg", true)
	}
	for i := 0; i < s.bLoads(); i++ {
		p("\tBw[sr%d * %d + sw%d] = bw%d", i, s.LDW, i, i)
	}
	for i := 0; i < s.aLoads(); i++ {
		p("\t{")
		p("\t\tlet o = am%d * %d + ao%d", i, s.LDA, i)
		s.storeVec(w, "\t", fmt.Sprintf("av%d", i), "o")
		p("\t}")
	}
	p("\tworkgroupBarrier()")
	if s.Loop {
		p("\tif kbeg + %d < zend {", s.KS)
		s.stagedLoads(w, fmt.Sprintf("kbeg + %d", s.KS), false)
		p("\t}")
	}
	for st := 0; st < ksub/s.IK; st++ {
		p("\t{")
		p("\t\tlet a = %s", s.aLoad(st))
		for j := 0; j < s.TN; j++ {
			if s.TransB {
				p("\t\tlet b%d = coopLoad<coopmat<%s, %d, %d, b>>(Bw, %d + sg * %d, %d, col_major)", j, s.In, s.IK, s.IN, j*s.IN*s.LDW+st*s.IK/8, ksub/8, s.LDW)
			} else {
				p("\t\tlet b%d = coopLoad<coopmat<%s, %d, %d, b>>(Bw, %d + sg * %d, %d, row_major)", j, s.In, s.IK, s.IN, st*s.IK*s.LDW+j*s.IN/8, ksub*s.LDW, s.LDW)
			}
		}
		for j := 0; j < s.TN; j++ {
			p("\t\tc%d = coopMulAdd(a, b%d, c%d)", j, j, j)
		}
		p("\t}")
	}
	s.edgeBranch(w)
}
