package parse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// syntaxErrors pairs bad inputs with the exact diagnostics expected.
var syntaxErrors = []struct {
	name, src, want string
}{
	{"empty file", "", `e.kc:1:1: empty file (expected a kernel)`},
	{"only a comment", "   \n// only a comment\n", `e.kc:1:1: empty file (expected a kernel)`},
	{"binary garbage", "\x00\x01\x02binary", `e.kc:1:1: invalid character NUL in source`},
	{"invalid UTF-8", "kernel k() workgroup(1) {\n\tlet x = \xff\n}\n", `e.kc:2:10: invalid UTF-8 encoding`},
	{"invalid UTF-8 in a comment", "// \xc3\x28\nkernel k() workgroup(1) {\n}\n", `e.kc:1:4: invalid UTF-8 encoding`},
	{"non-ASCII name", "kernel k() workgroup(1) {\n\tlet é = 1\n}\n", `e.kc:2:6: invalid character U+00E9 'é' in source (names are ASCII)`},
	{"unterminated comment", "kernel k() workgroup(1) {\n\t/* open\n}\n", `e.kc:2:2: unterminated comment`},
	{"unterminated comment at start", "/* open\nkernel k() workgroup(1) {}\n", `e.kc:1:1: unterminated comment`},
	{"missing brace", "kernel k() workgroup(1) {\n\tlet x = 1\n", `e.kc:3:1: unexpected end of file (expected a statement or "}")`},
	{"extra brace", "kernel k() workgroup(1) {\n}\n}\n", `e.kc:3:1: unexpected "}" (expected "kernel", "const" or "enable")`},
	{"bad token", "kernel k() workgroup(1) {\n\tlet x = 1 @ 2\n}\n", `e.kc:2:12: invalid character '@' in source`},
	{"string", "kernel k() workgroup(1) {\n\ty[0] = \"s\"\n}\n", `e.kc:2:9: unexpected ": .kc has no strings or characters`},
	{"call without closing paren", "kernel k() workgroup(1) {\n\tx = foo(1\n}\n", `e.kc:3:1: unexpected "}" (expected "," or ")" in the arguments of foo)`},
	{"unclosed paren", "kernel k() workgroup(1) {\n\tlet x = (1 + 2\n}\n", `e.kc:3:1: unexpected "}" (expected ")")`},
	{"missing operand", "kernel k() workgroup(1) {\n\tlet x = 1 +\n}\n", `e.kc:3:1: unexpected "}" (expected an expression)`},
	{"missing index", "kernel k() workgroup(1) {\n\tlet x = y[\n}\n", `e.kc:3:1: unexpected "}" (expected an index expression)`},
	{"param list", "kernel k(a f32 workgroup(1) {\n}\n", `e.kc:1:16: unexpected keyword workgroup (expected ")")`},
	{"missing workgroup", "kernel k() {\n}\n", `e.kc:1:12: unexpected "{" (expected "workgroup")`},
	{"else on its own line", "kernel k() workgroup(1) {\n\tif x {\n\t}\n\telse {\n\t}\n}\n", `e.kc:4:2: unexpected keyword else (else goes on the same line as the closing "}" of the if)`},
	{"two statements on a line", "kernel k() workgroup(1) {\n\tlet x = 1 let y = 2\n}\n", `e.kc:2:12: missing newline or ";" before this statement`},
	{"unused expression", "kernel k() workgroup(1) {\n\tx + 1\n}\n", `e.kc:2:2: x + 1 is evaluated but not used`},
	{"for init", "kernel k() workgroup(1) {\n\tfor i = 0; i < 4; i++ {\n\t}\n}\n", `e.kc:2:6: the init statement of a for loop must declare its variable: for i := 0; ...`},
	{"nested shared", "kernel k() workgroup(1) {\n\tif true {\n\t\tshared s [4]f32\n\t}\n}\n", `e.kc:3:3: shared s must be declared at the top level of the kernel body`},
	{"no kernel", "const X = 3\n", `e.kc:2:1: no kernel in file`},
	{"buffer access", "kernel k(x []f32) workgroup(1) {\n}\n", `e.kc:1:12: buffer x needs an access mode: x read []T or x read_write []T`},
	{"int overflow", "kernel k() workgroup(1) {\n\tlet x = 99999999999999999999\n}\n", `e.kc:2:10: integer constant 99999999999999999999 overflows`},
	{"leading zero", "kernel k() workgroup(1) {\n\tlet x = 012\n}\n", `e.kc:2:10: invalid integer literal 012: leading zeros are not allowed`},
	{"bad selector", "kernel k() workgroup(1) {\n\tlet x = 1.5.(\n}\n", `e.kc:2:14: unexpected "(" (expected a field name or vector components such as .x or .xyz after ".")`},
	{"vector type without element", "kernel k() workgroup(1) {\n\tlet x vec4 = 1\n}\n", `e.kc:2:8: vec4 needs an element type, as in vec4<f32>`},
	{"vector constructor without element", "kernel k() workgroup(1) {\n\tlet x = vec4(1.0)\n}\n", `e.kc:2:14: unexpected "(" (expected "<" after vec4: vectors are written vec4<f32>(...))`},
	{"let without name", "kernel k() workgroup(1) {\n\tlet = 1\n}\n", `e.kc:2:2: unexpected keyword let (expected a statement or "}")`},
	{"var without type", "kernel k() workgroup(1) {\n\tvar x\n}\n", `e.kc:2:2: var x needs a type or a value`},
	{"unknown feature", "enable f64\nkernel k() workgroup(1) {\n}\n", `e.kc:1:1: unknown feature f64 in enable (want f16, subgroups, cooperative_matrix, cooperative_matrix2, packed_4x8_integer_dot_product, bf16 or int8)`},
	{"too many sizes", "kernel k() workgroup(1, 2, 3, 4) {\n}\n", `e.kc:1:31: workgroup takes one to three sizes, not 4`},
	{"kernel name", "kernel 3() workgroup(1) {\n}\n", `e.kc:1:8: unexpected number 3 (expected a name)`},
	{"go func", "func k() {\n}\n", `e.kc:1:1: unexpected name func (expected "kernel", "const" or "enable")`},
	{"builtin as a name", "kernel k() workgroup(1) {\n\tlet global_id = 2\n}\n", `e.kc:2:2: cannot use the builtin value global_id as a name`},
	{"barrier as a value", "kernel k() workgroup(1) {\n\tlet b = workgroupBarrier()\n}\n", `e.kc:2:10: workgroupBarrier() is a statement and has no value`},
	{"barrier with arguments", "kernel k() workgroup(1) {\n\tstorageBarrier(1)\n}\n", `e.kc:2:17: unexpected number 1 (expected ")": storageBarrier takes no arguments)`},
	{"unknown type", "kernel k(x read []float) workgroup(1) {\n}\n", `e.kc:1:19: unknown type float`},
	{"hex without digits", "kernel k() workgroup(0x) {\n}\n", `e.kc:1:22: hexadecimal literal 0x has no digits`},
	{"exponent without digits", "kernel k() workgroup(1e+) {\n}\n", `e.kc:1:22: exponent of 1e+ has no digits`},
	{"assignment in expression", "kernel k() workgroup(1) {\n\tlet x = 1 = 2\n}\n", `e.kc:2:12: unexpected "=" (expected a statement or "}")`},
	{"deep nesting", "kernel k() workgroup(1) {\n\tlet x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "\n}\n", `e.kc:2:209: brackets nested too deeply (more than 200 levels)`},
	{"deep blocks", "kernel k() workgroup(1) {\n" + strings.Repeat("{\n", 300) + strings.Repeat("}\n", 300) + "}\n", `e.kc:201:1: brackets nested too deeply (more than 200 levels)`},
	{"unary chain", "kernel k() workgroup(1) {\n\tlet x = " + strings.Repeat("- ", 300) + "x\n}\n", `e.kc:2:410: too many unary operators in a row (more than 200)`},
	{"missing brace before the next kernel", "kernel a() workgroup(1) {\n\tlet x = 1\n\nkernel b() workgroup(1) {\n}\n",
		`e.kc:4:1: unexpected keyword kernel (expected a statement or "}")`},
	{"one error per declaration", "kernel a() workgroup(1) {\n\tlet x = (1\n}\n\nconst C = 1 +\n\nkernel b() workgroup(1) {\n\tx = foo(1\n}\n\nkernel c() workgroup(1) {\n\tif x {\n",
		"e.kc:3:1: unexpected \"}\" (expected \")\")\n" +
			"e.kc:7:1: unexpected keyword kernel (expected an expression)\n" +
			"e.kc:9:1: unexpected \"}\" (expected \",\" or \")\" in the arguments of foo)\n" +
			"e.kc:13:1: unexpected end of file (expected a statement or \"}\")"},
	{"access on a scalar", "kernel k(a read f32) workgroup(1) {\n}\n", `e.kc:1:17: read applies to buffers: a read []f32`},
	{"slice outside parameters", "kernel k() workgroup(1) {\n\tvar a []f32\n}\n", `e.kc:2:8: []f32: only buffer parameters have a slice type; arrays need a length, as in [4]f32`},
	{"if without condition", "kernel k() workgroup(1) {\n\tif {\n\t}\n}\n", `e.kc:2:5: missing expression after if`},
	{"let without value", "kernel k() workgroup(1) {\n\tlet x =\n}\n", `e.kc:2:8: missing expression after let x =`},
	{"assignment without value", "kernel k() workgroup(1) {\n\tx +=;\n\ty := }\n", "e.kc:2:4: missing expression after +=\ne.kc:3:4: missing expression after :="},
	{"const without value", "const C =\nkernel k() workgroup(1) {\n}\n", `e.kc:1:9: missing expression after const C =`},
	{"byte-order mark after the start", "kernel k() workgroup(1) {\n\t\uFEFF\n}\n", `e.kc:2:2: invalid character U+FEFF '\ufeff' in source (names are ASCII)`},
	{"byte-order mark keeps first-line columns", "\uFEFFkernel k() workgroup(1) {\n\tlet x = 1 @ 2\n}\n", `e.kc:2:12: invalid character '@' in source`},
	{"two declarations on a line", "const A = 1 const B = 2\nkernel k() workgroup(1) {\n}\n", `e.kc:1:13: missing newline or ";" before this declaration`},
	{"brace inside a comment", "kernel k() workgroup(1) {//}", `e.kc:1:29: unexpected end of file (expected a statement or "}")`},
	{"several errors", "kernel k(x []f32) workgroup(1) {\n\tvar v\n\tif true {\n\t\tshared s [4]f32\n\t}\n}\n",
		"e.kc:1:12: buffer x needs an access mode: x read []T or x read_write []T\n" +
			"e.kc:2:2: var v needs a type or a value\n" +
			"e.kc:4:3: shared s must be declared at the top level of the kernel body"},
}

func TestSyntaxErrors(t *testing.T) {
	for _, c := range syntaxErrors {
		t.Run(c.name, func(t *testing.T) {
			m, err := parse.File("e.kc", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; parsed as:\n%s", ir.Print(m))
			}
			if m != nil {
				t.Errorf("module returned with an error")
			}
			var list ir.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T, want a non-empty ir.ErrorList", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
