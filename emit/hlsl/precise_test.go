package hlsl

import (
	"context"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// floatOps are the SPIR-V opcodes of float arithmetic that NoContraction
// governs (docs/lowering-12.md's list).
var floatOps = map[uint32]string{127: "OpFNegate", 129: "OpFAdd", 131: "OpFSub", 133: "OpFMul", 136: "OpFDiv",
	140: "OpFRem", 141: "OpFMod", 142: "OpVectorTimesScalar", 148: "OpDot"}

// arithOp is one float arithmetic instruction and whether it is
// decorated NoContraction.
type arithOp struct {
	op      string
	precise bool
}

// funcArith lists, per function of a SPIR-V module (by its OpName), the
// float arithmetic instructions, and counts GLSL.std.450 Fma and FMix
// instructions (which NoContraction cannot mark).
func funcArith(words []uint32) (ops map[string][]arithOp, fmas map[string]int) {
	names := map[uint32]string{}
	noContraction := map[uint32]bool{}
	type pending struct {
		fn string
		op string
		id uint32
	}
	var all []pending
	fmas = map[string]int{}
	cur := ""
	for i := 5; i < len(words); {
		n, op := int(words[i]>>16), words[i]&0xffff
		if n == 0 || i+n > len(words) {
			break
		}
		in := words[i+1 : i+n]
		switch {
		case op == 5: // OpName
			var b []byte
			for _, w := range in[1:] {
				for k := 0; k < 4; k++ {
					if c := byte(w >> (8 * k)); c != 0 {
						b = append(b, c)
					} else {
						k = 4
					}
				}
			}
			names[in[0]] = string(b)
		case op == 71 && in[1] == 42: // OpDecorate NoContraction
			noContraction[in[0]] = true
		case op == 54: // OpFunction
			cur = names[in[1]]
		case op == 56: // OpFunctionEnd
			cur = ""
		case op == 12 && len(in) >= 4 && (in[3] == 50 || in[3] == 46): // OpExtInst Fma or FMix (unmarkable)
			fmas[cur]++
		case floatOps[op] != "" && cur != "":
			all = append(all, pending{cur, floatOps[op], in[1]})
		}
		i += n
	}
	ops = map[string][]arithOp{}
	for _, p := range all {
		ops[p.fn] = append(ops[p.fn], arithOp{p.op, noContraction[p.id]})
	}
	return ops, fmas
}

// preciseFnSrc calls a precise function (whose float values are also
// compared and converted) from a kernel that does no float arithmetic of
// its own.
const preciseFnSrc = `precise fn fdiff(x f32, y f32, c f32) vec2<f32> {
	var r = vec2<f32>(x * x - y * y + c, 0.0)
	if x * x - y * y + c > 0.0 {
		r.y = 1.0
	}
	r.y += f32(i32((x * x - y * y + c) * 1e9))
	r.x += dot(r, vec2<f32>(x, y)) + mix(x, y, c) + mix(r, vec2<f32>(y, x), c).y
	r = r * c + r
	return r
}

kernel k(x read []f32, y read []f32, c read []f32, out read_write []vec2<f32>) workgroup(64) {
	let i = global_id.x
	out[i] = fdiff(x[i], y[i], c[i])
}
`

// TestPreciseNoContraction compiles precise code with glslang and checks
// that every float arithmetic instruction carries NoContraction and that
// none was fused into an Fma. glslang inlines HLSL functions, so each case
// is a module whose only float arithmetic is precise: issue 12's
// precise_diff (a precise kernel calling a precise function) and a plain
// kernel calling a precise function. The same modules without precise
// must show the difference (an Fma or an undecorated operation), or the
// test proves nothing.
func TestPreciseNoContraction(t *testing.T) {
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	diffSrc := string(issue12Case(t, "precise_diff").Src)
	for _, c := range []struct{ name, kernel, src string }{
		{"precise_diff.kc", "precise_diff", diffSrc},
		{"fdiff.kc", "k", preciseFnSrc},
	} {
		for _, precise := range []bool{true, false} {
			src := c.src
			if !precise {
				src = strings.ReplaceAll(src, "precise ", "")
			}
			m := loadSrc(t, c.name, src)
			a, err := Emit(m, Options{Kernel: c.kernel})
			if err != nil {
				t.Fatal(err)
			}
			spv, err := CompileSPIRV(context.Background(), a, c.kernel, CompileOptions{Compiler: Glslang})
			if err != nil {
				t.Fatal(err)
			}
			ops, fmas := funcArith(spv.Words)
			total, plain, fused := 0, 0, 0
			for fn, list := range ops {
				for _, o := range list {
					total++
					if !o.precise {
						plain++
						if precise {
							t.Errorf("%s: %s: an %s without NoContraction", c.name, fn, o.op)
						}
					}
				}
			}
			for _, n := range fmas {
				fused += n
			}
			t.Logf("%s precise=%v: %d float operations, %d without NoContraction, %d Fma", c.name, precise, total, plain, fused)
			switch {
			case precise && (total == 0 || fused > 0):
				t.Errorf("%s: %d float operations, %d fused into Fma; want some, none fused", c.name, total, fused)
			case !precise && plain == 0 && fused == 0:
				t.Errorf("%s without precise: every operation is NoContraction and none fused; the test cannot tell", c.name)
			}
		}
	}
}
