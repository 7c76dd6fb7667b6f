// Command spirvbench compiles one .kc file to a SPIR-V binary the way
// `kc compile -target spirv` does (parse, check, emit) and nothing else.
// bench/spirv.sh times it as a whole process against glslangValidator.
//
//	spirvbench [-o out.spv] [-version 1.3|1.6] FILE.kc
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

func main() {
	out := flag.String("o", "", "output file (default: discard)")
	version := flag.String("version", "1.3", "SPIR-V version: 1.3 or 1.6")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: spirvbench [-o out.spv] [-version 1.3|1.6] FILE.kc")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *version); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(path, out, version string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	m, err := parse.File(path, src)
	if err != nil {
		return err
	}
	if err := ir.Check(m); err != nil {
		return err
	}
	opts := spirv.Options{}
	if version == "1.6" {
		opts.Version = spirv.V1_6
	}
	mod, err := spirv.Emit(m, opts)
	if err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	return os.WriteFile(out, mod.Bytes(), 0o644)
}
