package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// defineFlags collects repeated -D NAME=VALUE flags.
type defineFlags map[string]string

func (d defineFlags) String() string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k+"="+d[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (d defineFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	d[name] = value
	return nil
}

// newFlagSet makes a flag set whose -h output and errors go to stderr and
// that reports usage errors instead of exiting.
func newFlagSet(env *cliEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("kc "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: kc %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns the exit status to use and false when
// the command should stop (help requested: 0; bad flags: 2).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitUsage, false
	}
	return exitOK, true
}

// readSource reads a .kc file; "-" reads standard input.
func readSource(env *cliEnv, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(env.stdin)
	}
	return os.ReadFile(path)
}

// loadModule parses, specialises and checks one file. The error is ready
// to print: positioned diagnostics one per line.
func loadModule(env *cliEnv, path string, defs map[string]string) (*ir.Module, error) {
	src, err := readSource(env, path)
	if err != nil {
		return nil, err
	}
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	m, err := parse.Load(name, src, defs)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// printErr writes err to stderr, one diagnostic per line, prefixed with
// "kc: " only when the error carries no position of its own.
func printErr(env *cliEnv, err error) {
	if _, ok := err.(ir.ErrorList); ok {
		fmt.Fprintln(env.stderr, err)
		return
	}
	if e, ok := err.(*ir.Error); ok && e.Pos.IsValid() {
		fmt.Fprintln(env.stderr, err)
		return
	}
	fmt.Fprintln(env.stderr, "kc:", err)
}

// writeOutput writes data to path, or to stdout for "" and "-".
func writeOutput(env *cliEnv, path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := env.stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
