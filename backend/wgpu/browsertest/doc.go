// Package browsertest runs kc's wgpu driver in headless Chromium. Its
// tests come in two halves. The host half (host_test.go, every GOOS but
// js) builds this package's test binary for GOOS=js GOARCH=wasm once,
// starts one headless Chromium (internal/browser) and runs the binary in
// a page with WebGPU; it passes when every in-browser test passes. The
// browser half (*_js_test.go) is ordinary Go tests that run inside that
// page, through package backend and the browser side of backend/wgpu:
//
//   - TestContract runs the driver contract suite (internal/backendtest
//     Run), the one the native drivers run, each case on a fresh device;
//   - TestCorpus runs every test kernel the browser's WebGPU can run and
//     compares each read_write buffer with the reference interpreter;
//   - TestGoldenTint has the browser's own WGSL compiler (Tint in
//     Chromium) validate every golden WGSL file, on a device with the
//     optional features the adapter offers and on one with none, so that
//     kc's feature marks (f16, subgroups) must agree with what the browser
//     enforces;
//   - TestAdapterInfo checks the driver's AdapterInfo against the
//     adapter's own features and limits;
//   - TestErrors checks that compile and validation failures come back as
//     error values and leave the device usable;
//   - TestTimestamps times a kernel with GPU timestamps (Time and
//     DispatchTimed) where the adapter offers timestamp-query;
//   - TestDispatchChain runs 1,000 dependent dispatches in one scope and
//     logs the cost per dispatch;
//   - TestResponsive checks that the page's timers keep firing while a
//     Read blocks its goroutine.
//
// Every call into package backend here blocks on JavaScript promises from
// a test goroutine, as a page's goroutines do (backend/wgpu promise_js.go).
//
// The in-browser tests read the repository's testdata over HTTP (the host
// serves it), not from a file system.
package browsertest
