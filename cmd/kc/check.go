package main

import (
	"fmt"

	"github.com/kcgo/kc/ir"
)

func init() {
	register("check", "report errors in .kc files as file:line:col: message", runCheck)
}

func runCheck(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "check", "[-D NAME=VALUE]... FILE.kc...")
	defs := defineFlags{}
	fs.Var(defs, "D", "define a compile-time constant (repeatable)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	for _, path := range fs.Args() {
		m, err := loadModule(env, path, defs)
		if err != nil {
			printErr(env, err)
			status = exitInput
			continue
		}
		// Valid .kc that WebGPU's default limits refuse: a warning, not
		// an error (Vulkan and D3D devices take it).
		for _, w := range ir.WebGPULimitWarnings(m) {
			fmt.Fprintln(env.stderr, w)
		}
	}
	return status
}
