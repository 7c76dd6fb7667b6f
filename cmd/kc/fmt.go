package main

import (
	"bytes"
	"os"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

func init() {
	register("fmt", "print .kc files in canonical form (-w rewrites them)", runFmt)
}

func runFmt(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "fmt", "[-w] FILE.kc...")
	write := fs.Bool("w", false, "write the result back to each file instead of stdout")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	for _, path := range fs.Args() {
		if err := fmtFile(env, path, *write); err != nil {
			printErr(env, err)
			status = exitInput
		}
	}
	return status
}

func fmtFile(env *cliEnv, path string, write bool) error {
	src, err := readSource(env, path)
	if err != nil {
		return err
	}
	m, err := parse.File(path, src)
	if err != nil {
		return err
	}
	out := ir.Print(m)
	if !write || path == "-" {
		_, err := env.stdout.Write(out)
		return err
	}
	if bytes.Equal(src, out) {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}
