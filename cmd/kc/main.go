// Command kc compiles .kc kernels to WGSL, HLSL and SPIR-V, checks and
// formats them, reflects their bindings, and runs them on a GPU.
//
// Usage:
//
//	kc <command> [flags] [arguments]
//
// Run `kc help` for the list of commands and `kc <command> -h` for one.
// Exit status: 0 success, 1 errors in the input, 2 usage.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit statuses, as DESIGN.md's CLI contract fixes them.
const (
	exitOK    = 0
	exitInput = 1 // errors in the input (or a failed run)
	exitUsage = 2
)

// command is one subcommand. run gets the arguments after the command name
// and returns the exit status.
type command struct {
	summary string
	run     func(env *cliEnv, args []string) int
}

// cliEnv is the process environment a command sees; tests substitute it.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

var commands = map[string]command{}

// register adds a subcommand; each command's file calls it from init.
func register(name, summary string, run func(env *cliEnv, args []string) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(runCLI(env, os.Args[1:]))
}

func runCLI(env *cliEnv, args []string) int {
	if len(args) == 0 {
		usage(env.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(env, []string{"-h"})
			}
		}
		usage(env.stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.stderr, "kc: unknown command %q\n", name)
		usage(env.stderr)
		return exitUsage
	}
	return c.run(env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kc compiles .kc compute kernels to WGSL, HLSL and SPIR-V and runs them.")
	fmt.Fprintln(w, "\nUsage:\n\n\tkc <command> [flags] [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "\t%-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'kc <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 errors in the input, 2 usage.")
}
