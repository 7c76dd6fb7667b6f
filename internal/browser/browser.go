//go:build !js

package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kcgo/kc/internal/kctest"
)

// Names are the executable names tried, in order, for Chromium.
var Names = []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}

// Flags are the Chromium switches kc's browser tests use beyond chromedp's
// headless defaults: WebGPU on (it is off on Linux by default), and its
// adapter from SwiftShader's Vulkan, which ships inside Debian's chromium
// package, so no GPU is needed (measured with chromium 156 on 2026-12-01).
var Flags = map[string]any{
	"headless":                  "new",
	"no-sandbox":                true,
	"enable-unsafe-webgpu":      true,
	"enable-unsafe-swiftshader": true,
	"use-webgpu-adapter":        "swiftshader",
	"enable-features":           "Vulkan",
	"window-size":               "1024,768",
}

// Browser is one headless Chromium process with one tab.
type Browser struct {
	ctx context.Context // the tab

	mu      sync.Mutex
	console []string // the tab's console warnings, errors and exceptions not yet taken
}

// Start launches headless Chromium for the rest of the test (closed by
// t.Cleanup). It reports the browser Missing when none is installed.
func Start(t testing.TB) *Browser {
	t.Helper()
	path := ""
	for _, n := range Names {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		kctest.Missing(t, "no Chromium on PATH (tried %s; scripts/test.sh installs Debian's chromium)", strings.Join(Names, ", "))
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(t.TempDir()))
	for k, v := range Flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", path, err)
	}
	b := &Browser{ctx: ctx}
	go b.listen()
	return b
}

// listen keeps the tab's console warnings, errors and uncaught exceptions
// (WebGPU's validation messages land there) until Console takes them.
func (b *Browser) listen() {
	for m, err := range chromedp.Console(b.ctx) {
		if err != nil {
			return
		}
		switch m.Type {
		case chromedp.ConsoleWarning, chromedp.ConsoleError, chromedp.ConsoleException:
			b.mu.Lock()
			b.console = append(b.console, m.String())
			b.mu.Unlock()
		}
	}
}

// Console returns the console warnings, errors and exceptions since the
// last call.
func (b *Browser) Console() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.console
	b.console = nil
	return c
}

// Context is the tab's chromedp context, for chromedp.Run.
func (b *Browser) Context() context.Context { return b.ctx }

// goTool returns the go command that is running the tests' toolchain.
func goTool(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH: %v", err)
	}
	return p
}

// track stats every file of the repository (but .git and tools) so that
// go test's result cache, which knows only the files a test opens or
// stats itself, is invalidated when anything a wasm build or a served
// file depends on changes.
func track(t testing.TB) {
	t.Helper()
	root := kctest.Root(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "tools" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BuildWasm compiles the package in dir for GOOS=js GOARCH=wasm into a
// temporary file and returns its path; test builds the package's test
// binary (go test -c) instead of the program.
func BuildWasm(t testing.TB, dir string, test bool) string {
	t.Helper()
	track(t)
	out := filepath.Join(t.TempDir(), "main.wasm")
	args := []string{"build", "-o", out, "."}
	if test {
		args = []string{"test", "-c", "-o", out, "."}
	}
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, msg)
	}
	t.Logf("built %s for js/wasm in %v", dir, time.Since(start).Round(time.Millisecond))
	return out
}

// WasmExec returns the wasm_exec.js of the Go installation that builds
// the wasm (it must match the toolchain).
func WasmExec(t testing.TB) []byte {
	t.Helper()
	root, err := exec.Command(goTool(t), "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), rel)); err == nil {
			return b
		}
	}
	t.Fatalf("wasm_exec.js not found under %s", root)
	return nil
}

//go:embed harness.html
var harness []byte

// Program is a wasm program to run in a page.
type Program struct {
	Wasm string            // path of the .wasm file
	Args []string          // os.Args[1:]
	Env  map[string]string // the program's environment
	// Files are served beside the program (at their patterns, as in
	// http.ServeMux) for it to fetch.
	Files map[string]http.Handler
}

// Run loads p in the tab, waits until it exits or timeout passes, and
// returns what it wrote to stdout and stderr and its exit status (-1 when
// it did not exit in time).
func (b *Browser) Run(t testing.TB, p Program, timeout time.Duration) (string, int) {
	t.Helper()
	mux := http.NewServeMux()
	wasmExec := WasmExec(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(harness)
	})
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(wasmExec)
	})
	mux.HandleFunc("/main.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		http.ServeFile(w, r, p.Wasm)
	})
	for pat, h := range p.Files {
		mux.Handle(pat, h)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	q := url.Values{}
	q.Set("args", jsonOf(p.Args))
	q.Set("env", jsonOf(p.Env))
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	// kcExit is 0 on success, which Poll would take for "not yet".
	exit := ""
	err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?"+q.Encode()))
	if err == nil {
		exit, err = chromedp.Run(ctx, chromedp.Poll[string](`globalThis.kcExit === undefined ? false : String(globalThis.kcExit)`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(0)))
	}
	out, e := chromedp.Run(b.ctx, chromedp.Evaluate[string](`globalThis.kcOut`))
	if e != nil && err == nil {
		err = e
	}
	if err != nil {
		return out + fmt.Sprintf("\nbrowser: %v\n", err), -1
	}
	code, err := strconv.Atoi(exit)
	if err != nil {
		return out + fmt.Sprintf("\nbrowser: exit status %q\n", exit), -1
	}
	return out, code
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // []string and map[string]string always marshal
	}
	return string(b)
}
