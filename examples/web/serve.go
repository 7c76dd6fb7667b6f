//go:build !js

// Command web is kc in a web page: a kernel (mandelbrot.kc) draws the
// Mandelbrot set on the browser's WebGPU, through package backend and the
// browser side of kc's wgpu driver, compiled to WebAssembly. This half
// (every GOOS but js) builds the page's Go program for GOOS=js GOARCH=wasm
// and serves it:
//
//	go run ./examples/web            # then open http://localhost:8080
//
// The page's half is app_js.go. docs/browser.md lists the browsers and
// flags that offer WebGPU.
package main

//go:generate go run github.com/kcgo/kc/cmd/kc gen -pkg main -o kernels_kc.go mandelbrot.kc

import (
	_ "embed"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed index.html
var indexHTML []byte

func main() {
	addr := flag.String("addr", "localhost:8080", "address to serve on")
	wasm := flag.String("wasm", "", "serve this prebuilt main.wasm instead of building it")
	flag.Parse()
	if err := serve(*addr, *wasm); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

func serve(addr, wasm string) error {
	if wasm == "" {
		dir, err := os.MkdirTemp("", "kc-web")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		src, err := goOutput("list", "-f", "{{.Dir}}", "github.com/kcgo/kc/examples/web")
		if err != nil {
			return err
		}
		wasm = filepath.Join(dir, "main.wasm")
		if err := buildWasm(src, wasm); err != nil {
			return err
		}
	}
	h, err := handler(wasm)
	if err != nil {
		return err
	}
	log.Printf("serving http://%s/ (a browser with WebGPU: see docs/browser.md)", addr)
	return http.ListenAndServe(addr, h)
}

// buildWasm compiles the page's program (this package under GOOS=js).
func buildWasm(dir, out string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build: %v\n%s", err, msg)
	}
	return nil
}

// handler serves the page, Go's wasm_exec.js and the program.
func handler(wasm string) (http.Handler, error) {
	root, err := goOutput("env", "GOROOT")
	if err != nil {
		return nil, err
	}
	var wasmExec []byte
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if wasmExec, err = os.ReadFile(filepath.Join(root, rel)); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("wasm_exec.js not found under %s", root)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(indexHTML)
	})
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(wasmExec)
	})
	mux.HandleFunc("/main.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		http.ServeFile(w, r, wasm)
	})
	return mux, nil
}

func goOutput(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
