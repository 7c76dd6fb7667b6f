// Package kernels is kc's library of tensor operations: device-resident
// f32 tensors and the ops a transformer needs, every one a .kc kernel
// compiled by kc's own emitters (or a coopmat product).
//
// A Context binds the library to one backend.Device. Tensors live on the
// device: Context.Tensor uploads host data, Context.Empty allocates, and
// every op records its dispatches into the device's current scope and
// returns a new Tensor without waiting for anything. Reading back
// (Tensor.ToHost, or Context.ToHost for several tensors in one readback)
// is the only synchronisation, so a whole model run inside one
// backend.Scope costs one submit:
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
// Kernels are the .kc files of this package, embedded in the binary and
// compiled at first use on each device (through Device.LoadIR and its
// pipeline cache), then kept by the Context. Ops take no context.Context:
// they only record, and a first-use compile does not block on the device.
//
// The ops: MatMul and MatMulBT (through coopmat); Add, Sub, Mul, Div;
// Scale (by a one-element tensor); AddBias; ReLU, SiLU, GELU (tanh form),
// Sigmoid, Sqrt; Transpose; Gather; Reshape and Dup; Softmax, LayerNorm,
// RMSNorm over the last dimension; RoPE (rotate-half) with a position
// offset; Attention (single head, composed), CausalAttention (grouped-query,
// flash-style online softmax) and DecodeAttention (queries against a KV
// cache, the keys split into chunks merged by a second kernel); Rows and
// SetRows, views of and writes into row ranges, for KV caches.
package kernels
