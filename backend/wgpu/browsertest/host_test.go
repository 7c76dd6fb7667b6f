//go:build !js

package browsertest

import (
	"encoding/json"
	"flag"
	"io/fs"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/internal/browser"
	"github.com/kcgo/kc/internal/kctest"
)

var browserRun = flag.String("browser.run", "", "the -test.run pattern for the tests inside the browser")

// TestBrowser runs this package's GOOS=js tests in headless Chromium.
func TestBrowser(t *testing.T) {
	b := browser.Start(t)
	wasm := browser.BuildWasm(t, ".", true)
	root := kctest.Root(t)
	args := []string{"-test.v", "-test.timeout=8m"}
	if *browserRun != "" {
		args = append(args, "-test.run="+*browserRun)
	}
	env := map[string]string{}
	if kctest.InCI() {
		env["CI"] = "true"
	}
	start := time.Now()
	out, code := b.Run(t, browser.Program{
		Wasm: wasm,
		Args: args,
		Env:  env,
		Files: map[string]http.Handler{
			"/testdata/":     http.FileServer(http.Dir(root)),
			"/testdata.json": listing(t, filepath.Join(root, "testdata")),
		},
	}, 9*time.Minute)
	t.Logf("in the browser (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if c := b.Console(); len(c) > 0 {
		t.Logf("the page's console warnings and errors:\n%s", strings.Join(c, "\n"))
	}
	if code != 0 {
		fails := regexp.MustCompile(`(?m)^\s*--- FAIL: .*$`).FindAllString(out, -1)
		t.Fatalf("the in-browser tests exited with status %d; failed:\n%s", code, strings.Join(fails, "\n"))
	}
	for _, name := range []string{"TestContract", "TestCorpus", "TestGoldenTint", "TestAdapterInfo", "TestErrors", "TestTimestamps", "TestDispatchChain", "TestResponsive"} {
		if *browserRun == "" && !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass in the browser", name)
		}
	}
}

// listing serves the names of the files under dir (slash-separated,
// relative to the repository root) as a JSON array.
func listing(t *testing.T, dir string) http.Handler {
	var names []string
	root := filepath.Dir(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(names)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}
