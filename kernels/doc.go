// Package kernels is kc's library of tensor operations: device-resident
// tensors and the ops a transformer needs, every one a .kc kernel
// compiled by kc's own emitters (or a coopmat product).
//
// A Context binds the library to one backend.Device. Tensors live on the
// device: Context.Tensor uploads host data, Context.Empty allocates, and
// every op records its dispatches into the device's current scope and
// returns a new Tensor without waiting for anything. Reading back
// (Tensor.ToHost, or Context.ToHost for several tensors in one readback)
// is the only synchronisation, so a whole model run inside one
// backend.Scope costs a few submits and no wait (the device's early
// submits, backend.Device.SetScopeFlush, start the GPU while the host
// records the rest; SetScopeFlush(0) makes it one submit):
//
//	c := kernels.New(dev)
//	x, _ := c.Tensor(xs, 4, 64)
//	w, _ := c.Tensor(ws, 64)
//	s := dev.Begin()
//	h, err := c.RMSNorm(x, w, 1e-5)
//	...
//	y, err := c.SiLU(h)
//	s.End()
//	out, err := y.ToHost(ctx)
//
// Shapes are checked on the host before anything is recorded: a mismatch
// is a *ShapeError naming the op and the shapes, never a panic or a
// garbage result. Tensors are row-major and contiguous; Reshape is a view
// sharing storage, Dup a copy. Release gives a tensor's storage back to the
// device's pool (the storage of all its views).
//
// Element types (DType): F32, F16 and BF16. Context.Tensor and Empty make
// f32 tensors, TensorOf and EmptyOf any type (host values rounded to
// nearest even), TensorBits f16/bf16 from raw 16-bit patterns; ToHost
// always returns float32 (widened exactly), Bits an f16/bf16 tensor's raw
// 16-bit patterns; Cast converts on the device.
// 16-bit tensors are packed two elements to a 32-bit word and their
// kernels compute in f32, so they run on every device. The ops taking
// f16 and bf16: Add, Sub, Mul, Div, ReLU, Sigmoid, SiLU, RMSNorm,
// LayerNorm (all operands of one type), MatMul and MatMulBT (both of one
// type, or f32 activations times 16-bit weights), CausalAttention and
// DecodeAttention (q, k and v of one type, the result too: f16 with more
// than 8 queries on cooperative matrices where the device has f16 ones,
// flash16; up to 8 queries reading the 16-bit cache as it is: through
// decodelr.kc (half a vector a lane) where the device has subgroups and a
// lane holds at most 4 vectors of the queries, else on cooperative
// matrices where the device has them (decodetc.go, P rounded to the
// cache's type), else through decode4h.kc, the merge rounding to the
// cache's type; otherwise the f32
// kernels between casts), Cast, Dup, Reshape, Rows and SetRows; every
// other op takes f32 only. Mixed or unsupported types are *ShapeErrors
// naming the op and each operand's type and shape.
//
// Profiling: SetTimed(true) brackets every dispatch with GPU timestamps
// (on devices that have them); after the readback, TakeTimings returns
// them and ByKernel sums them per kernel. A timed scope waits for the
// device at each submit, so time the wall clock with it off.
//
// Kernels are the .kc files of this package, embedded in the binary and
// compiled at first use on each device (through Device.LoadIR and its
// pipeline cache), then kept by the Context. Ops take no context.Context:
// they only record, and a first-use compile does not block on the device.
//
// The ops: MatMul and MatMulBT (through coopmat; products of at most 16
// rows with 16-bit weights, a decode step, through kernels that stream
// the weights once: gemv.kc, gemvsg.kc, gemvtsg.kc, gemvt.kc or
// coopmat's skinny tensor-core kernel; MatMulBT of at most 16 rows over
// f32 weights through gemv.kc's gemv4f); Add, Sub, Mul, Div;
// Scale (by a one-element tensor); AddBias; ReLU, SiLU, GELU (tanh form),
// Sigmoid, Sqrt; Transpose; Gather; Reshape and Dup; Softmax, LayerNorm,
// RMSNorm over the last dimension; RoPE (rotate-half) with a position
// offset; Attention (single head, composed), CausalAttention (grouped-query,
// flash-style online softmax) and DecodeAttention (queries against a KV
// cache, the keys split into spans merged by a second kernel); Rows and
// SetRows, views of and writes into row ranges, for KV caches.
package kernels
