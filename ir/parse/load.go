package parse

import "github.com/kcgo/kc/ir"

// Load runs the whole front end on one .kc source, as `kc compile` does:
// File, then ir.Specialize with defs (skipped when defs is empty), then
// ir.Check. The module it returns is checked and ready for the emitters;
// errors are positioned diagnostics.
func Load(filename string, src []byte, defs map[string]string) (*ir.Module, error) {
	m, err := File(filename, src)
	if err != nil {
		return nil, err
	}
	if len(defs) > 0 {
		if err := ir.Specialize(m, defs); err != nil {
			return nil, err
		}
	}
	if err := ir.Check(m); err != nil {
		return nil, err
	}
	return m, nil
}
