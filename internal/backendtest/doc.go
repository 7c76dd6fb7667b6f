// Package backendtest is the contract every driver of package backend
// keeps, written once and run against each driver (in the spirit of
// wazero's spectest): a driver's own tests call Run with a way to open a
// device, and Corpus with the paths from IR to that device.
//
// Run covers what the backend API promises: nested scopes that submit
// once, reads that flush, batched reads, pooled and zeroed buffers,
// persistent regions, Stats and Since, the timing oracle, bind errors,
// ordering between dispatches that write and read one buffer, release
// while in flight, and device loss (a closed device) reported as an error.
// Corpus runs every kernel of testdata/kernels as its //kc:run directives
// say on the device and on the reference interpreter, and compares every
// output with internal/runspec's one comparison.
//
// The package has no os/exec and no cgo: the browser build runs it too.
package backendtest
