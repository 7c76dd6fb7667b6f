package ir

// Constructs is a set of the language constructs of issue 12 that an
// emitter may not lower yet. Emitters call FindConstruct with the set they
// do not support and return its *UnsupportedError, so that a module using
// one fails cleanly (positioned, naming the construct and the target)
// instead of reaching code that does not know the node.
type Constructs uint16

const (
	ConstructFunctions Constructs = 1 << iota // helper functions (FnCall, CallStmt)
	ConstructStructs                          // struct types, Field, StructLit
	ConstructSwitch                           // Switch
	ConstructArrayLits                        // ArrayLit, constant arrays
	ConstructPrecise                          // precise kernels and functions
	AllConstructs      = ConstructFunctions | ConstructStructs | ConstructSwitch | ConstructArrayLits | ConstructPrecise
)

var constructNames = map[Constructs]string{
	ConstructFunctions: "helper functions",
	ConstructStructs:   "structs",
	ConstructSwitch:    "switch",
	ConstructArrayLits: "array literals and constant arrays",
	ConstructPrecise:   "precise",
}

// FindConstruct returns an *UnsupportedError for the first construct in
// missing that kernel k (or a function it calls) uses, or nil.
func FindConstruct(k *Kernel, target string, missing Constructs) error {
	if k == nil || missing == 0 {
		return nil
	}
	var found *UnsupportedError
	report := func(c Constructs, p Pos) {
		if found == nil && missing&c != 0 {
			found = &UnsupportedError{Pos: p, Target: target, Feature: constructNames[c]}
		}
	}
	if k.Precise {
		report(ConstructPrecise, k.Pos)
	}
	for _, p := range k.Params {
		if p != nil && usesStruct(p.Type) {
			report(ConstructStructs, p.Pos)
		}
	}
	for _, s := range k.Shared {
		if s != nil && usesStruct(s.Type) {
			report(ConstructStructs, s.Pos)
		}
	}
	seen := map[*Func]bool{}
	var scan func(n Node)
	scan = func(n Node) {
		Inspect(n, func(n Node) bool {
			if found != nil {
				return false
			}
			switch n := n.(type) {
			case *FnCall:
				report(ConstructFunctions, n.Pos)
				if f := n.Fn; f != nil && !seen[f] {
					seen[f] = true
					if f.Precise {
						report(ConstructPrecise, f.Pos)
					}
					scan(f.Body)
				}
			case *Switch:
				report(ConstructSwitch, n.Pos)
			case *ArrayLit:
				report(ConstructArrayLits, n.Pos)
			case *StructLit:
				report(ConstructStructs, n.Pos)
			case *Field:
				if _, isResult := n.X.Type().(CompareExchangeResult); !isResult {
					report(ConstructStructs, n.Pos)
				}
			case *Decl:
				if usesStruct(n.Ty) {
					report(ConstructStructs, n.Pos)
				}
			case *Ident:
				if c, ok := n.Obj.(*Const); ok && c.Elems != nil {
					report(ConstructArrayLits, n.Pos)
				}
			}
			return true
		})
	}
	scan(k.Body)
	if found == nil {
		return nil
	}
	return found
}

// usesStruct reports whether t is or contains a struct type.
func usesStruct(t Type) bool {
	switch t := t.(type) {
	case *Struct:
		return true
	case *Array:
		return t != nil && usesStruct(t.Elem)
	}
	return false
}
