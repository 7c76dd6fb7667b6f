package ir

// The hidden num_workgroups field. HLSL has no system value for the number
// of workgroups of a dispatch; like DXC and Tint, kc passes it in the
// params constant buffer: a kernel that reads num_workgroups gets a uint3
// field after its scalar parameters, at the next 16-byte boundary, that the
// host fills with the dispatch's group counts. The field is part of the
// binding layout on every target (the block is the same size everywhere and
// backend writes it for every dispatch); WGSL and SPIR-V read their
// builtin and leave it undeclared.

// ReadsNumWorkgroups reports whether k reads num_workgroups, in its body
// or in a helper function it calls.
func ReadsNumWorkgroups(k *Kernel) bool {
	if k == nil || k.Body == nil {
		return false
	}
	found := false
	seen := map[*Func]bool{}
	var visit func(n Node)
	visit = func(n Node) {
		Inspect(n, func(n Node) bool {
			switch n := n.(type) {
			case *BuiltinValue:
				found = found || n.Kind == NumWorkgroups
			case *FnCall:
				if f := n.Fn; f != nil && f.Body != nil && !seen[f] {
					seen[f] = true
					visit(f.Body)
				}
			}
			return !found
		})
	}
	visit(k.Body)
	return found
}

// NumWorkgroupsOffset is the byte offset of the hidden num_workgroups field
// in k's params block, or -1 when k does not read num_workgroups.
func NumWorkgroupsOffset(k *Kernel) int {
	_, off := paramsBlock(k)
	return off
}

// ParamsSize is the byte size of k's params block: the scalar parameters
// (ParamsLayout) and the hidden num_workgroups field when k reads it.
func ParamsSize(k *Kernel) int {
	size, _ := paramsBlock(k)
	return size
}

// paramsBlock is the size of k's params block and the offset of its hidden
// num_workgroups field (-1 when there is none), from one walk of k.
func paramsBlock(k *Kernel) (size, numWorkgroups int) {
	_, size = ParamsLayout(k)
	if !ReadsNumWorkgroups(k) {
		return size, -1
	}
	return size + 16, size
}
