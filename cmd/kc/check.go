package main

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
		if _, err := loadModule(env, path, defs); err != nil {
			printErr(env, err)
			status = exitInput
		}
	}
	return status
}
