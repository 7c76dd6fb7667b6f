package parse_test

import (
	"fmt"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestPositions checks the line:col of nodes of each kind.
func TestPositions(t *testing.T) {
	m, err := parse.File("p.kc", []byte(posSrc))
	if err != nil {
		t.Fatal(err)
	}
	k := m.Kernels[0]
	body := k.Body.Stmts
	decl := body[0].(*ir.Decl)
	ifs := body[1].(*ir.If)
	cond := ifs.Cond.(*ir.Binary)
	asg := ifs.Then.Stmts[0].(*ir.Assign)
	conv := asg.RHS.(*ir.Binary).X.(*ir.Convert)
	elif := ifs.Else.(*ir.If)
	inc := elif.Then.Stmts[0].(*ir.Assign)
	loop := body[2].(*ir.For)
	let := body[3].(*ir.Decl)
	sw := let.Init.(*ir.Swizzle)
	es := body[4].(*ir.ExprStmt)
	neg := es.Call.Args[1].(*ir.Bitcast).X.(*ir.Unary)
	cases := []struct {
		name string
		node ir.Node
		want string
	}{
		{"enable", m.Enables[0], "1:1"},
		{"const", m.Consts[0], "4:1"},
		{"const value (folded -4)", m.Consts[0].Value, "4:11"},
		{"kernel", k, "7:1"},
		{"param a", k.Params[0], "7:10"},
		{"param b", k.Params[1], "7:17"},
		{"workgroup C * 2 (operator)", k.Workgroup[0], "7:49"},
		{"workgroup C", k.Workgroup[0].(*ir.Binary).X, "7:47"},
		{"body block", k.Body, "7:54"},
		{"shared", k.Shared[0], "8:2"},
		{"var", decl, "9:2"},
		{"a * -1.5 (operator)", decl.Init, "9:12"},
		{"-1.5 literal", decl.Init.(*ir.Binary).Y, "9:14"},
		{"if", ifs, "10:2"},
		{"&&", cond, "10:13"},
		{"x > 0.0", cond.X, "10:7"},
		{"b[1] index", cond.Y.(*ir.Binary).X, "10:17"},
		{"then block", ifs.Then, "10:26"},
		{"assign", asg, "11:3"},
		{"i32(x)", conv, "11:10"},
		{"len(b)", asg.RHS.(*ir.Binary).Y, "11:19"},
		{"else if", elif, "12:9"},
		{"global_id", elif.Cond.(*ir.Binary).X.(*ir.Swizzle).X, "12:12"},
		{"swizzle .x", elif.Cond.(*ir.Binary).X, "12:21"},
		{"b[0]++", inc, "13:3"},
		{"++ literal", inc.RHS, "13:7"},
		{"for", loop, "15:2"},
		{"for init", loop.Init, "15:6"},
		{"for post", loop.Post, "15:21"},
		{"barrier", loop.Body.Stmts[0], "16:3"},
		{"let", let, "18:2"},
		{"construct", sw.X, "18:10"},
		{"swizzle .yx", sw, "18:27"},
		{"expr stmt", es, "19:2"},
		{"atomicAdd call", es.Call, "19:2"},
		{"s[0]", es.Call.Args[0], "19:13"},
		{"bitcast", es.Call.Args[1], "19:18"},
		{"-(3)", neg, "19:31"},
		{"3 in -(3)", neg.X, "19:33"},
	}
	for _, c := range cases {
		p := c.node.Position()
		if got := fmt.Sprintf("%d:%d", p.Line, p.Col); got != c.want || p.File != "p.kc" {
			t.Errorf("%s at %s:%s, want p.kc:%s", c.name, p.File, got, c.want)
		}
	}
	if got := m.Consts[0].Doc; len(got) != 1 || got[0] != " doc" {
		t.Errorf("const doc %q, want [\" doc\"]", got)
	}
}

const posSrc = `enable f16

// doc
const C = -4

// the kernel
kernel k(a f32, b read_write []i32) workgroup(C * 2) {
	shared s [4]u32
	var x = a * -1.5
	if x > 0.0 && b[1] != 0 {
		b[0] = i32(x) + len(b)
	} else if global_id.x == 0 {
		b[0]++
	}
	for i := 0; i < 4; i++ {
		workgroupBarrier()
	}
	let v = vec2<f32>(x, 1.0).yx
	atomicAdd(s[0], bitcast<u32>(-(3)))
}
`

// TestComments: where // comments end up.
func TestComments(t *testing.T) {
	src := `// above enable
enable f16

// about C
const C = 1 // after C

kernel k(a f32, // in the parameters
	b read_write []f32) workgroup(1) { // first in body
	// before the if
	if a > 0.0 && // in the condition
		a < 1.0 {
		// in then
		b[0] = a // trailing
	} else {
		/* kept */
		// in else
	}
	// last in body
} // after the kernel
`
	m, err := parse.File("c.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	// Kept where they were: trailing comments on their line (after a
	// const, a parameter, a statement, a block's "{"), /* */ comments
	// among statements, comments after the last declaration (on lines of
	// their own: the file's trailer, where run directives live). Dropped:
	// comments inside an expression.
	want := `// above enable

enable f16

// about C
const C = 1 // after C

kernel k(
	a f32, // in the parameters
	b read_write []f32,
) workgroup(1) { // first in body
	// before the if
	if a > 0.0 && a < 1.0 {
		// in then
		b[0] = a // trailing
	} else {
		/* kept */
		// in else
	}
	// last in body
}
// after the kernel
`
	if got := string(ir.Print(m)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	c := m.Kernels[0].Body.Stmts[0].(*ir.Comment)
	if c.Pos.Line != 8 || c.Pos.Col != 37 || c.Text != " first in body" || !c.Trailing {
		t.Errorf("first comment %+v", c)
	}
}
