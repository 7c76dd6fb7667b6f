package main

import (
	"encoding/json"

	"github.com/kcgo/kc/ir"
)

func init() {
	register("reflect", "print the binding layout of a .kc file as JSON", runReflect)
}

func runReflect(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "reflect", "[-D NAME=VALUE]... [-kernel NAME] FILE.kc")
	defs := defineFlags{}
	fs.Var(defs, "D", "define a compile-time constant NAME=VALUE (repeatable)")
	kernel := fs.String("kernel", "", "describe only this kernel")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	m, err := loadModule(env, fs.Arg(0), defs)
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	r := ir.Reflect(m)
	if *kernel != "" {
		var keep []ir.KernelReflection
		for _, k := range r.Kernels {
			if k.Name == *kernel {
				keep = append(keep, k)
			}
		}
		if keep == nil {
			env.stderr.Write([]byte("kc reflect: no kernel " + *kernel + "\n"))
			return exitInput
		}
		r.Kernels = keep
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	env.stdout.Write(append(out, '\n'))
	return exitOK
}
