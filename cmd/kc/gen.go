package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/kcgo/kc/gen"
)

func init() {
	register("gen", "write Go code embedding compiled kernels with typed launchers (for go generate)", runGen)
}

func runGen(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "gen", "-pkg NAME [-o FILE] [-check] [-D NAME=VALUE]... FILE.kc...")
	pkg := fs.String("pkg", "", "Go package name of the generated file (default: $GOPACKAGE under go generate)")
	out := fs.String("o", "", "output file (default or - : standard output)")
	check := fs.Bool("check", false, "write nothing; exit 1 when FILE (-o) is missing or stale")
	defs := defineFlags{}
	fs.Var(defs, "D", "define a compile-time constant NAME=VALUE in every file declaring it (repeatable)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *pkg == "" {
		*pkg = env.getenv("GOPACKAGE")
	}
	if fs.NArg() == 0 || *pkg == "" || (*check && (*out == "" || *out == "-")) {
		fs.Usage()
		return exitUsage
	}
	var inputs []gen.Input
	for _, path := range fs.Args() {
		src, err := readSource(env, path)
		if err != nil {
			printErr(env, err)
			return exitInput
		}
		inputs = append(inputs, gen.Input{Path: path, Src: src})
	}
	code, err := gen.Generate(inputs, gen.Options{Package: *pkg, Defines: defs})
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	if *out == "" || *out == "-" {
		env.stdout.Write(code)
		return exitOK
	}
	old, err := os.ReadFile(*out)
	same := err == nil && bytes.Equal(old, code)
	if *check {
		if !same {
			fmt.Fprintf(env.stderr, "kc gen: %s is stale; run go generate\n", *out)
			return exitInput
		}
		return exitOK
	}
	if same {
		return exitOK // leave the file and its modification time alone
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		printErr(env, err)
		return exitInput
	}
	return exitOK
}
