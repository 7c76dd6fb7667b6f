package wgpu

import (
	"context"
	"errors"
	"syscall/js"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Blocking in the browser. Every call of package backend that waits (Read,
// ReadMany, Wait, Load, Open) blocks the calling goroutine on a JavaScript
// promise with await below: the goroutine parks on a channel, Go's wasm
// runtime returns control to the page's event loop, the promise settles
// there and its callback wakes the goroutine. Nothing spins, so the page
// stays responsive. The one place this cannot work is a goroutine that is
// itself running a JavaScript callback (a js.FuncOf handler: a click or a
// requestAnimationFrame callback): the event loop cannot run until it
// returns, so Go reports a deadlock. Such handlers start a goroutine for
// the GPU work (syscall/js documents the same rule).

// await blocks until the promise p settles or ctx is done. A rejection
// becomes an error carrying the JavaScript error's name and message; a
// value that is not a promise is returned as it is.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	if p.Type() != js.TypeObject || p.Get("then").Type() != js.TypeFunction {
		return p, nil
	}
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	release := func() {
		ok.Release()
		fail.Release()
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		ch <- result{v: arg0(args)}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		ch <- result{err: jsError(arg0(args))}
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsError turns a thrown or rejected JavaScript value into an error.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		name := v.Get("name").String()
		if name == "" || name == "Error" {
			return errors.New(v.Get("message").String())
		}
		return errors.New(name + ": " + v.Get("message").String())
	}
	return errors.New(v.String())
}

// jsOf returns the JavaScript object inside a binding object. The binding's
// JS side wraps every GPU object as a struct whose only field is its
// js.Value and offers no accessor; the driver needs the object itself for
// what that side lacks (error scopes, compilation messages, mapping with
// errors, writes without a global `wasm` variable). init checks the layout.
func jsOf[T any](p *T) js.Value { return *(*js.Value)(unsafe.Pointer(p)) }

func init() {
	v := unsafe.Sizeof(js.Value{})
	if unsafe.Sizeof(wgpu.Device{}) != v || unsafe.Sizeof(wgpu.Buffer{}) != v ||
		unsafe.Sizeof(wgpu.ShaderModule{}) != v || unsafe.Sizeof(wgpu.CommandEncoder{}) != v ||
		unsafe.Sizeof(wgpu.ComputePipeline{}) != v || unsafe.Sizeof(wgpu.BindGroup{}) != v {
		panic("backend/wgpu: the binding's JS object layout changed; update jsOf in promise_js.go")
	}
}
