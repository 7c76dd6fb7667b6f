package ir

import (
	"fmt"
	"runtime/debug"
)

// The checker, by concern:
//
//	check.go          entry point, module and kernel walk, error list
//	check_scope.go    scopes, declarations, names
//	check_const.go    module constants (on demand, cycle detection)
//	check_types.go    written types, array lengths, parameters, limits
//	check_stmt.go     statements; check_assign.go assignments
//	check_expr.go     identifiers, indexing, swizzles, len
//	check_binary.go   operators; check_call.go intrinsics
//	check_conv.go     conversions, constructors, bitcasts
//	check_untyped.go  untyped constants; consteval.go constant folding
//	features.go       enable directives, Kernel.Features, RequireFeatures
//	uniformity.go     barriers in uniform control flow
//	specialize.go     -D overrides
//
// Rules chosen where ir/doc.go leaves room:
//   - Untyped constants behave as in Go, except that once an untyped
//     expression gets its type, every node in it takes that type and every
//     intermediate value must fit it: `(1 << 40) >> 20` is an error as an
//     i32, because emitters evaluate the tree in that type.
//   - Typed constant arithmetic that overflows, and integer division or
//     remainder by a constant zero, are errors (as in Go and in WGSL's
//     const-expressions); so are constant shift amounts of 32 or more.
//   - Conversions follow WGSL: any scalar to any scalar, bool included.
//   - Array lengths are 1..65535 (Tint's limit); workgroup sizes and
//     shared memory follow the language's limits (1024 invocations,
//     256 KiB);
//     a device's own limits are checked where the backend loads the
//     kernel, and WebGPU's defaults are warnings of `kc check`.
//   - Identifiers: the kernel body shares the scope of the parameters and
//     shared variables (redeclaring one there is an error, as in Go).

// Check type-checks m in place, filling the annotations documented in the
// package comment, and returns every error found as an ErrorList sorted by
// position (nil when m is valid). It never panics on any input.
//
// Check is idempotent: it clears the annotations it owns before filling
// them, so checking a module twice gives the same result. m.Checked is set
// only when no error was found.
func Check(m *Module) (err error) {
	if m == nil {
		return ErrorList{Errorf(Pos{}, "nil module")}
	}
	m.Checked = false
	c := newChecker(m)
	defer func() {
		// A panic here is a bug in the checker; report it as an error
		// rather than crashing the caller (the fuzz test looks for it).
		if r := recover(); r != nil {
			err = ErrorList{Errorf(m.Position(), "internal error: checker panic: %v\n%s", r, debug.Stack())}
		}
	}()
	c.module()
	if len(c.errs) > 0 {
		return c.errs.dedupSorted()
	}
	m.Checked = true
	return nil
}

// checker holds the state of one Check call.
type checker struct {
	m       *Module
	errs    ErrorList
	enabled Features

	top    *scope          // module scope: the constants
	consts map[*Const]int8 // constState: 0 unvisited, 1 in progress, 2 done
	vals   map[Expr]Value  // values of constant expressions with a concrete type
	konst  map[Expr]bool   // constant expressions (typed or untyped)
	badObj map[Object]bool // parameters and shared variables declared with errors

	untypedAs map[Expr]Scalar // the type given to each untyped node (to catch shared nodes)

	at Pos // position of the node being checked, for errors about nodes without one

	structOK   map[*Struct]bool    // declared structs without errors
	badFunc    map[*Func]bool      // functions with errors in their signature or body
	calls      map[Node][]callEdge // calls out of each function and kernel body
	fieldOf    map[*Swizzle]*Field // x.name on a struct, parsed as a swizzle
	recursive  bool                // a recursion was reported
	ownDiverge map[Node]bool       // barriers and cooperative operations of functions that diverge inside the function itself

	// per kernel or function body
	k           *Kernel
	fn          *Func
	scope       *scope
	loopDepth   int
	switchDepth int
	featErr     Features // features already reported missing in this kernel
}

const (
	constUnvisited int8 = iota
	constInProgress
	constDone
)

func newChecker(m *Module) *checker {
	return &checker{
		m:      m,
		consts: map[*Const]int8{},
		// Sized for a typical kernel: growing these maps (rehashing
		// interface keys) was a tenth of Check's time.
		vals:   make(map[Expr]Value, 64),
		konst:  make(map[Expr]bool, 64),
		badObj: map[Object]bool{},

		badFunc: map[*Func]bool{},
		calls:   map[Node][]callEdge{},
		fieldOf: map[*Swizzle]*Field{},

		untypedAs: make(map[Expr]Scalar, 64),
	}
}

// errorf records an error at pos.
func (c *checker) errorf(pos Pos, format string, args ...any) {
	c.errs = append(c.errs, Errorf(pos, format, args...))
}

// dedupSorted sorts l by position and drops exact duplicates (at a known
// position: errors about nodes without one may repeat legitimately).
func (l ErrorList) dedupSorted() ErrorList {
	l.Sort()
	out := l[:0]
	for i, e := range l {
		if i > 0 && *e == *l[i-1] && e.Pos.IsValid() {
			continue
		}
		out = append(out, e)
	}
	return out
}

// module checks the whole module: enables, constants, then each kernel.
func (c *checker) module() {
	c.enables()
	c.declareConsts()
	c.declareFuncs()
	c.declareStructs()
	c.structFields()
	for _, k := range c.m.Consts {
		if k != nil {
			c.constDecl(k)
		}
	}
	c.funcSigs()
	for _, f := range c.m.Funcs {
		if f != nil {
			c.funcBody(f)
		}
	}
	c.recursion()
	if !c.recursive {
		// First the barriers that diverge inside their own function
		// (reported there once), then everything else.
		for _, collect := range []bool{true, false} {
			for _, f := range c.m.Funcs {
				if f != nil && !c.badFunc[f] {
					c.funcUniformity(f, collect)
				}
			}
		}
	}
	c.kernels()
}

func (c *checker) enables() {
	for _, e := range c.m.Enables {
		if e == nil {
			c.errorf(c.m.Position(), "nil enable directive")
			continue
		}
		switch e.Feature {
		case FeatureF16, FeatureSubgroups, FeatureCoopMat, FeatureDot4Packed, FeatureBF16, FeatureInt8, FeatureCoopMat2:
			c.enabled |= e.Feature
		default:
			c.errorf(e.Pos, "unknown feature in enable directive (Feature(%d))", uint8(e.Feature))
		}
	}
}

// kernels checks every kernel and the module-wide kernel rules.
func (c *checker) kernels() {
	if len(c.m.Kernels) == 0 {
		c.errorf(Pos{File: c.m.File, Line: 1, Col: 1}, "no kernel in file")
		return
	}
	seen := map[string]*Kernel{}
	for _, k := range c.m.Kernels {
		if k == nil {
			c.errorf(c.m.Position(), "nil kernel")
			continue
		}
		if prev, ok := seen[k.Name]; ok && k.Name != "" {
			c.errorf(k.Pos, "kernel %s redeclared%s", k.Name, prevDecl(prev.Pos))
		}
		seen[k.Name] = k
		c.kernel(k)
	}
}

// prevDecl is the " (previous declaration at POS)" suffix of a redeclaration
// error, empty when the previous declaration has no position.
func prevDecl(p Pos) string {
	if p == (Pos{}) {
		return ""
	}
	return fmt.Sprintf(" (previous declaration at %s)", p)
}

// kernel checks one kernel: signature, workgroup size, shared memory, body,
// then (when the body is well typed) the uniformity of its barriers.
func (c *checker) kernel(k *Kernel) {
	k.Size = [3]int{}
	k.Features = 0
	k.FeatPos = nil
	k.Coops = nil
	c.k, c.featErr, c.loopDepth, c.switchDepth = k, 0, 0, 0
	defer func() { c.k = nil }()
	nerr := len(c.errs)
	c.checkName(k.Pos, k.Name, "kernel")
	c.scope = newScope(c.top)
	c.params(k)
	c.workgroupSize(k)
	c.sharedVars(k)
	if k.Body == nil {
		c.errorf(k.Pos, "kernel %s has no body", k.Name)
	} else {
		c.stmts(k.Body.Stmts, k.Body.Pos) // the body shares the parameters' scope, as in Go
		c.rewriteFields(k.Body)
	}
	c.scope = nil
	c.inheritFeatures(k)
	if len(c.errs) == nerr && !c.recursive && !c.calleeErrors(k) {
		c.uniformity(k)
	}
}
