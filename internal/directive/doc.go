// Package directive reads the //kc: directives of a .kc file: the one
// parser of them (internal/kctest, both drivers' corpus tests and `kc run`
// read them through it; internal/runspec turns a //kc:run into a concrete
// run). A kernel's //kc:run lines say how it runs: scalar params, buffer
// lengths and contents, the grid, and the tolerance each output is
// compared with against the reference interpreter. docs/language.md, "Run
// directives", is the user's account of the syntax.
//
//	//kc:targets wgsl spirv       targets this file is emitted for (default: all)
//	//kc:define BLOCK=128         compile-time constants (kc run's default -D)
//	//kc:skip-naga REASON         naga in the wgpu driver cannot take this kernel
//	//kc:run [kernel=NAME] FIELD...
//
// A //kc:run FIELD is KEY=VALUE without spaces:
//
//	grid=X[,Y[,Z]]     workgroup counts (expressions)
//	NAME=EXPR          scalar parameter NAME
//	NAME=LO..HI        scalar parameter drawn at random (integers: inclusive)
//	len(BUF)=EXPR      buffer length in elements
//	fill(BUF)=MODE     random (default for read), poison (default for
//	                   read_write), zero, edge, wide, or LO..HI
//	tol(BUF)=TOL       exact (default), or ulp:N and/or abs:X joined by ","
//	f32bits(BUF)=S,T/P elements i with i%P in {S, T, ...} of an integer
//	                   buffer hold f32 bits: compared as f32 under tol(BUF)
//
// Expressions have numbers, + - * / % and parentheses, ceil, floor, min,
// max, len(BUF), scalar params and the module's constants. A file with
// several kernels names each in its //kc:run lines; lines naming one
// kernel are merged, and a key given twice is an error.
//
// The package imports ir only (ir/interp's own tests read the corpus
// through internal/kctest, which imports it).
package directive
