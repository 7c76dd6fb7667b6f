// Package runspec makes a kernel's //kc:run directives (package
// internal/directive) into a concrete run and judges its results: the one
// random fill of kc's tests and of `kc run` (FillBuffer), the drawing of
// params, lengths and grid (Plan), and the one comparison of a device's
// output with the reference interpreter's under interp's tolerances
// (Compare, Check). It imports no backend, so it runs under GOOS=js too.
package runspec
