// Package backendtest is the contract every driver of package backend
// keeps, written once and run against each driver (in the spirit of
// wazero's spectest): a driver's own tests call Run with a way to open a
// device, and Corpus with the paths from IR to that device.
//
// Run covers what the backend API promises: nested scopes that submit
// once, reads that flush, batched reads, pooled and zeroed buffers,
// persistent regions, Stats and Since, the timing oracle, bind errors,
// ordering between dispatches that write and read one buffer, release
// while in flight, a canceled read, and a closed device reported as an
// error.
// Corpus runs every kernel of testdata/kernels as its //kc:run directives
// say on the device and on the reference interpreter, and compares every
// output with internal/runspec's one comparison; CorpusOf does the same
// for cases read by other means (the browser fetches them over HTTP). A
// difference that one adapter is measured to have and the target language
// allows is a Deviation, accepted on that adapter only (deviation.go).
//
// A new promise of the backend API gets a case here (a func(t, open) in
// the table of Run, in the file of its topic: contract_record.go for
// recording and ordering, contract_buffers.go for memory,
// contract_device.go for the rest), not a test in one driver.
//
// The package has no os/exec, no cgo and no build tags: the browser build
// (GOOS=js) runs it too, in headless Chromium (backend/wgpu/browsertest:
// Run and CorpusOf). Corpus reads testdata/kernels from disk through
// internal/kctest.
//
// Not covered: a real device loss. Neither driver can be made to lose its
// device through the backend API on lavapipe; Closed checks that a gone
// device answers every call with an error, and each driver wraps its loss
// in backend.ErrDeviceLost (backend/vulkan's lost, backend/wgpu's
// deviceState.check).
package backendtest
