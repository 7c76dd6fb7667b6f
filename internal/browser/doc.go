// Package browser runs kc's Go code in a real browser from go test: it
// builds a package (or its test binary) for GOOS=js GOARCH=wasm, serves it
// with Go's wasm_exec.js and a small harness page, and drives headless
// Chromium through github.com/chromedp/chromedp (no hand-written DevTools
// client). Chromium runs WebGPU on this CPU-only machine through
// SwiftShader with the flags in Flags; docs/browser.md has the account.
//
// A test starts one browser (Start) and loads every page it needs in it;
// a missing browser fails the test in CI and skips it elsewhere, like
// every missing tool (internal/kctest.Missing). The package is host-side
// only (it is empty under GOOS=js).
package browser
