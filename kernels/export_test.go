package kernels

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/coopmat"
)

// SetMaxGroups replaces the device's limit of workgroups per grid
// dimension (0: the device's own).
func (c *Context) SetMaxGroups(n int) { c.maxGroups = n }

// SetRowsLooped makes the row ops use the looping kernels (rows.kc) at
// every row length.
func (c *Context) SetRowsLooped(on bool) { c.rowsLooped = on }

// DecodeTuning is the split-key kernels' configuration (see
// decodeTuning); D4Tuning, SGTuning, TCTuning and LRTuning are its
// kernels' shapes.
type (
	DecodeTuning = decodeTuning
	D4Tuning     = d4Tuning
	SGTuning     = sgTuning
	TCTuning     = tcTuning
	LRTuning     = lrTuning
)

// SetDecodeTuning replaces the split-key kernels' configuration (the
// zero value: the cache type's default).
func (c *Context) SetDecodeTuning(t DecodeTuning) { c.decode = t }

// DefaultDecode is the split-key kernels' default configuration over f32
// caches.
var DefaultDecode = defaultDecode

// RowTuning is the long rows' configuration (see rowTuning).
type RowTuning = rowTuning

// SetRowTuning replaces the long rows' configuration (the zero value: the
// default).
func (c *Context) SetRowTuning(t RowTuning) { c.rowTune = t }

// SetGEMV fixes gemv.kc's team size and rows per team (0: the default).
func (c *Context) SetGEMV(team, r int) { c.gemvTeam, c.gemvR = team, r }

// SetGEMVUnroll fixes gemv.kc's and gemvsg.kc's strides of k a lane
// loads before it adds (U; 0: the default).
func (c *Context) SetGEMVUnroll(u int) { c.gemvU = u }

// SetGEMVSubgroups makes gemv take gemvsg.kc where the device allows it
// (1), never (-1), or by default (0).
func (c *Context) SetGEMVSubgroups(mode int) { c.gemvSG = mode }

// SetGEMVWiden makes gemv.kc and gemvsg.kc widen f16 by integer ops
// (1) or by unpack2x16float (0, the default).
func (c *Context) SetGEMVWiden(w int) { c.gemvWid = w }

// SetFlash16 fixes flash16's subgroups per workgroup, keys per block and
// layout ("staged", "direct", "packed", or "lean" followed by option
// letters: 0 Bcast0, u Unmask, n Near, 1 Single, p Pipe; 0, 0: the
// default choice).
func (c *Context) SetFlash16(nsg, bk int, layout string) {
	opts, lean := strings.CutPrefix(layout, "lean")
	c.flash16 = flash16Config{NSG: nsg, BK: bk, Direct: layout == "direct", Packed: layout == "packed" || lean, Lean: lean,
		Bcast0: lean && strings.Contains(opts, "0"), Unmask: lean && strings.Contains(opts, "u"),
		Near: lean && strings.Contains(opts, "n"), Single: lean && strings.Contains(opts, "1"),
		Pipe: lean && strings.Contains(opts, "p")}
}

// SetNoGEMV sends every 16-bit product past gemv.kc and gemvt.kc.
func (c *Context) SetNoGEMV(on bool) { c.noGEMV = on }

// SetCopyByCommand makes Dup copy by the device's transfer command.
func (c *Context) SetCopyByCommand(on bool) { c.copyByCommand = on }

// SetGEMVT fixes gemvtsg.kc's workgroup size and 16-byte column words a
// workgroup (0: the default). SetGEMVUnroll fixes its rows a step,
// SetGEMVSubgroups whether a·b takes it or gemvt.kc.
func (c *Context) SetGEMVT(wg, ct int) { c.gemvtWG, c.gemvtCT = wg, ct }

// SetGEMVTSlices fixes gemvt.kc's and gemvtsg.kc's slices of k (0: the default).
func (c *Context) SetGEMVTSlices(n int) { c.gemvtSlices = n }

// Flash16Fits reports whether flash16 runs in the configuration SetFlash16
// fixed for head dimension dh on c's device (else attention takes
// another kernel).
func Flash16Fits(c *Context, dh int) bool {
	_, ok := c.flash16Config(F16, 4096, dh)
	return ok
}

// SkinnyLayout is a layout of coopmat's skinny tensor-core kernel (see
// skinnyLayout).
type SkinnyLayout = skinnyLayout

// SetDecodeRoute fixes how products of at most 16 rows with 16-bit
// weights run: kernel "gemv" (gemv.kc or gemvsg.kc for a·bᵀ, gemvt.kc for
// a·b; SetGEMV, SetGEMVUnroll and SetGEMVSubgroups fix its shape),
// "skinny" (coopmat's skinny tensor-core kernel in layout l; zero: its
// first) or "coop" (coopmat's choice); "" restores the default choice.
func (c *Context) SetDecodeRoute(kernel string, l SkinnyLayout) {
	c.decodeForce = decodeRoute{Kernel: kernel, Layout: l}
}

// DecodeRoute is the kernel the default choice gives a product of a and
// b's shapes and types ("gemv", "gemvt", "skinny" or "coop").
func DecodeRoute(c *Context, a, b *Tensor, transB bool) string {
	o := coopmatOptions(a, b, transB)
	return c.decodeRouteFor(a, b, o).Kernel
}

// coopmatOptions are the options of a·b (a·bᵀ with transB) as MatMul and
// MatMulBT give them to product.
func coopmatOptions(a, b *Tensor, transB bool) coopmat.Options {
	if transB {
		return coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[0], TransB: true}
	}
	return coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[1]}
}

// SplitKernel is the file of the split-key partial kernel the context's
// decode tuning picks for these shapes ("decodetc.go" for the tensor-core
// kernel, "" where none applies).
func (c *Context) SplitKernel(d DType, tq, s, heads, kvHeads, dh int) string {
	return c.splitPart(d, tq, s, heads, kvHeads, dh).name()
}

// SplitStats is what the driver reports about the split-key partial
// kernel the decode takes (splitPart's: registers, local memory, ...:
// KC_VULKAN_STATS), as NAME=VALUE pairs, or the error.
func (c *Context) SplitStats(d DType, tq, s, heads, kvHeads, dh int) string {
	pc := c.splitPart(d, tq, s, heads, kvHeads, dh)
	if !pc.ok() {
		return "no split kernel"
	}
	p, err := c.splitPipeline(pc)
	if err != nil {
		return err.Error()
	}
	st, err := p.Statistics()
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, x := range st {
		fmt.Fprintf(&b, " %s=%g", strings.ReplaceAll(x.Name, " ", "_"), x.Value)
	}
	return b.String()
}

// SetGEMVF32 makes f32 products a·bᵀ of at most 16 rows take gemv.kc's
// gemv4f (on, the default) or coopmat (off).
func (c *Context) SetGEMVF32(on bool) { c.coopF32 = !on }
