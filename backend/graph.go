package backend

// Op is one step of a graph run by Device.Run: a *DispatchOp or a *CopyOp.
type Op interface {
	record(d *Device) error
}

// DispatchOp is a dispatch in a graph.
type DispatchOp struct {
	Pipeline *Pipeline
	Args     Args
	Groups   [3]uint32
}

// CopyOp is a device-to-device copy in a graph: the hand-off from a
// producer's output to a consumer's input.
type CopyOp struct {
	Dst, Src View
}

func (o *DispatchOp) record(d *Device) error { return d.Dispatch(o.Pipeline, o.Args, o.Groups) }
func (o *CopyOp) record(d *Device) error     { return d.Copy(o.Dst, o.Src) }

// Run records every op, in order, into one scope (a few submits, see
// SetScopeFlush, or none of its own where a caller's scope is open):
// commands execute in the order given, each seeing the effects of the
// ones before. It stops at the first error.
func (d *Device) Run(ops ...Op) error {
	return d.Do(func() error {
		for _, op := range ops {
			if err := op.record(d); err != nil {
				return err
			}
		}
		return nil
	})
}
