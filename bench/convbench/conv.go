package main

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

//go:embed conv.kc
var source []byte

// widenModes names widen_all's MODE values.
var widenModes = []string{"unpack", "magic", "exact", "cvt"}

// Load parses conv.kc specialised with defs.
func Load(defs map[string]string) (*ir.Module, error) {
	return parse.Load("conv.kc", source, defs)
}

// RefWiden returns the f32 bits of the binary16 value h, derived from the
// format's definition (not from a conversion routine): exact for every
// half, NaN payloads kept in the top of f32's mantissa.
func RefWiden(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	e := int(h>>10) & 31
	m := int(h & 1023)
	switch {
	case e == 31:
		return sign | 0x7f800000 | uint32(m)<<13
	case e == 0:
		return sign | math.Float32bits(float32(math.Ldexp(float64(m), -24)))
	}
	return sign | math.Float32bits(float32(math.Ldexp(float64(1024+m), e-25)))
}

// AllWords returns widen_all's input: 65,536 u32 words, word i holding
// half i in its low bits and half 65535-i in its high bits.
func AllWords() []byte {
	b := make([]byte, 4<<16)
	for i := 0; i < 1<<16; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(i)|uint32(65535-i)<<16)
	}
	return b
}

// WidenResult counts widen_all's results that differ from RefWiden.
type WidenResult struct {
	Bad        int    // results that are not the exact value (NaN for NaN counts as exact)
	Subnormal  int    // of Bad, those of subnormal halves
	NaNPayload int    // NaN results whose payload or sign differs (not in Bad)
	First      string // the first bad half, described
}

func (r WidenResult) String() string {
	s := fmt.Sprintf("wrong %d of 131072 (subnormal %d), NaN payload or sign differs %d", r.Bad, r.Subnormal, r.NaNPayload)
	if r.First != "" {
		s += "; first: " + r.First
	}
	return s
}

// CheckWiden compares widen_all's output o (as bytes) with RefWiden.
func CheckWiden(o []byte) WidenResult {
	var r WidenResult
	for w := 0; w < 1<<16; w++ {
		k, c := w/4, w%4
		for hi := 0; hi < 2; hi++ {
			h := uint16(w)
			if hi == 1 {
				h = uint16(65535 - w)
			}
			got := binary.LittleEndian.Uint32(o[4*((2*k+hi)*4+c):])
			want := RefWiden(h)
			if got == want {
				continue
			}
			gf, wf := math.Float32frombits(got), math.Float32frombits(want)
			if wf != wf && gf != gf {
				r.NaNPayload++
				continue
			}
			r.Bad++
			if h&0x7c00 == 0 {
				r.Subnormal++
			}
			if r.First == "" {
				r.First = fmt.Sprintf("half %#04x: got %#08x (%g), want %#08x (%g)", h, got, gf, want, wf)
			}
		}
	}
	return r
}

// WidenDevice runs widen_all with MODE mode on d over AllWords.
func WidenDevice(ctx context.Context, d *backend.Device, mode int) (WidenResult, error) {
	m, err := Load(map[string]string{"MODE": strconv.Itoa(mode)})
	if err != nil {
		return WidenResult{}, err
	}
	p, err := d.LoadIR(ctx, m, "widen_all")
	if err != nil {
		return WidenResult{}, err
	}
	x, err := d.Upload(AllWords())
	if err != nil {
		return WidenResult{}, err
	}
	defer x.Release()
	o, err := d.Upload(poison(8 << 16))
	if err != nil {
		return WidenResult{}, err
	}
	defer o.Release()
	if err := d.Dispatch(p, backend.Args{Buffers: []backend.View{x.View(), o.View()}}, backend.Groups(1<<14/256)); err != nil {
		return WidenResult{}, err
	}
	b, err := d.Read(ctx, o.View())
	if err != nil {
		return WidenResult{}, err
	}
	return CheckWiden(b), nil
}

// poison returns n bytes of 0xCD (a NaN as f32, an unlikely integer).
func poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xCD
	}
	return b
}

// Variant is one stream kernel and how its words are read.
type Variant struct {
	Kernel string
	Kind   string // "f32", "u32", "f16" or "bf16"
}

// Variants are conv.kc's stream kernels, in timing order.
var Variants = []Variant{
	{"s_f32", "f32"}, {"s_u32", "u32"}, {"s_unpack", "f16"}, {"s_magic", "f16"}, {"s_exact", "f16"},
	{"s_cvt", "f16"}, {"s_h4", "f16"}, {"s_h1", "f16"}, {"s_bf16", "bf16"},
}

// StreamData returns n random 16-byte words whose halves are normal f16
// values of magnitude below 4 (exponent 1-16), random signs and mantissas:
// finite however a word is read (four f32 of exponent at most 143, eight
// f16, eight bf16 of exponent at most 143).
func StreamData(n int, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	b := make([]byte, 16*n)
	for i := 0; i < len(b); i += 8 {
		r := rng.Uint64()
		for j := 0; j < 4; j++ {
			h := uint16(r>>(16*j)) & 0x83ff
			h |= uint16(((r>>(16*j+10))&15)+1) << 10
			binary.LittleEndian.PutUint16(b[i+2*j:], h)
		}
	}
	return b
}

// Refs are the sums a stream kernel's outputs must add up to: per kind,
// the float64 sum of every value and of their magnitudes, and for u32 the
// four component sums modulo 2^32.
type Refs struct {
	Sum, Abs map[string]float64
	U32      [4]uint32
}

// References sums data every way a stream kernel reads it.
func References(data []byte) Refs {
	r := Refs{Sum: map[string]float64{}, Abs: map[string]float64{}}
	var half [1 << 16]float64
	for h := range half {
		half[h] = float64(math.Float32frombits(RefWiden(uint16(h))))
	}
	var s16, a16, sbf, abf, s32, a32 float64
	for i := 0; i < len(data); i += 4 {
		w := binary.LittleEndian.Uint32(data[i:])
		r.U32[i/4%4] += w
		f := float64(math.Float32frombits(w))
		s32 += f
		a32 += math.Abs(f)
		for _, h := range [2]uint16{uint16(w), uint16(w >> 16)} {
			s16 += half[h]
			a16 += math.Abs(half[h])
			bf := float64(math.Float32frombits(uint32(h) << 16))
			sbf += bf
			abf += math.Abs(bf)
		}
	}
	r.Sum["f32"], r.Abs["f32"] = s32, a32
	r.Sum["f16"], r.Abs["f16"] = s16, a16
	r.Sum["bf16"], r.Abs["bf16"] = sbf, abf
	return r
}

// CheckSums compares a stream kernel's outputs (vec4 per invocation, as
// bytes) with the references: the float kinds within 1e-5 of the sum of
// magnitudes (f32 accumulation over an invocation's words; an invocation
// that skipped or misread words is off by far more), u32 exactly.
func CheckSums(v Variant, out []byte, r Refs) error {
	if v.Kind == "u32" {
		var s [4]uint32
		for i := 0; i < len(out); i += 4 {
			s[i/4%4] += binary.LittleEndian.Uint32(out[i:])
		}
		if s != r.U32 {
			return fmt.Errorf("%s: component sums %x, want %x", v.Kernel, s, r.U32)
		}
		return nil
	}
	var s float64
	for i := 0; i < len(out); i += 4 {
		s += float64(math.Float32frombits(binary.LittleEndian.Uint32(out[i:])))
	}
	want, tol := r.Sum[v.Kind], 1e-5*r.Abs[v.Kind]
	if diff := math.Abs(s - want); !(diff <= tol) {
		return fmt.Errorf("%s: sum %g, want %g (|error| %.3g > %.3g)", v.Kernel, s, want, diff, tol)
	}
	return nil
}

// Stream holds the uploaded data, the output and the compiled kernels.
type Stream struct {
	d      *backend.Device
	x, out *backend.Buffer
	n      int
	groups int
	pipes  map[string]*backend.Pipeline
}

// NewStream uploads data (16-byte words) and compiles every variant for
// groups workgroups.
func NewStream(ctx context.Context, d *backend.Device, data []byte, groups int) (*Stream, error) {
	m, err := Load(nil)
	if err != nil {
		return nil, err
	}
	s := &Stream{d: d, n: len(data) / 16, groups: groups, pipes: map[string]*backend.Pipeline{}}
	for _, v := range Variants {
		p, err := d.LoadIR(ctx, m, v.Kernel)
		if err != nil {
			return nil, err
		}
		s.pipes[v.Kernel] = p
	}
	if s.x, err = d.Upload(data); err != nil {
		return nil, err
	}
	if s.out, err = d.Alloc(int64(16 * 256 * groups)); err != nil {
		s.x.Release()
		return nil, err
	}
	return s, nil
}

// Release frees the buffers.
func (s *Stream) Release() {
	s.x.Release()
	s.out.Release()
}

func (s *Stream) args() backend.Args {
	return backend.Args{Params: []uint32{uint32(s.n)}, Buffers: []backend.View{s.x.View(), s.out.View()}}
}

// Run poisons the output, runs v once and returns the output's bytes.
func (s *Stream) Run(ctx context.Context, v Variant) ([]byte, error) {
	if err := s.out.Write(0, poison(int(s.out.Size()))); err != nil {
		return nil, err
	}
	if err := s.d.Dispatch(s.pipes[v.Kernel], s.args(), backend.Groups(uint32(s.groups))); err != nil {
		return nil, err
	}
	return s.d.Read(ctx, s.out.View())
}

// Check runs v once and compares its sums with r.
func (s *Stream) Check(ctx context.Context, v Variant, r Refs) error {
	out, err := s.Run(ctx, v)
	if err != nil {
		return err
	}
	return CheckSums(v, out, r)
}

// Time returns v's median GPU-timestamped duration over reps dispatches
// (host-timed where the device has no timestamps) and the wall time of
// wall dispatches recorded in one scope, submitted once and waited for.
func (s *Stream) Time(ctx context.Context, v Variant, reps, wall int) (time.Duration, time.Duration, error) {
	p, g := s.pipes[v.Kernel], backend.Groups(uint32(s.groups))
	ds, err := s.d.Time(ctx, p, s.args(), g, 3, reps)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	sc := s.d.Begin()
	for i := 0; i < wall; i++ {
		if err := s.d.Dispatch(p, s.args(), g); err != nil {
			sc.End()
			return 0, 0, err
		}
	}
	if err := sc.End(); err != nil {
		return 0, 0, err
	}
	if err := s.d.Wait(ctx); err != nil {
		return 0, 0, err
	}
	return median(ds), time.Since(t0), nil
}
