package browsertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"syscall/js"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/parse"
)

var ctx = context.Background()

// fetch reads a file the host serves (net/http uses the page's fetch).
func fetch(t testing.TB, name string) []byte {
	t.Helper()
	resp, err := http.Get(js.Global().Get("location").Get("origin").String() + "/" + name)
	if err != nil {
		t.Fatalf("fetch %s: %v", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("fetch %s: %v %s", name, err, resp.Status)
	}
	return body
}

var (
	listOnce sync.Once
	listed   []string
)

// files lists the served files in dir with extension ext, in name order.
func files(t testing.TB, dir, ext string) []string {
	t.Helper()
	listOnce.Do(func() {
		if err := json.Unmarshal(fetch(t, "testdata.json"), &listed); err != nil {
			t.Fatalf("testdata.json: %v", err)
		}
	})
	var out []string
	for _, f := range listed {
		if path.Dir(f) == dir && strings.HasSuffix(f, ext) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s files in %s", ext, dir)
	}
	return out
}

// cases reads the test-kernel corpus (testdata/kernels/*.kc).
func cases(t testing.TB) []kctest.Case {
	var out []kctest.Case
	for _, f := range files(t, "testdata/kernels", ".kc") {
		out = append(out, kctest.NewCase(t, f, fetch(t, f)))
	}
	return out
}

var (
	devOnce sync.Once
	dev     *backend.Device
	devErr  error
)

// loadSrc parses src and loads its kernel name on d.
func loadSrc(t testing.TB, d *backend.Device, name, src string) *backend.Pipeline {
	t.Helper()
	m, err := parse.Load(name+".kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.LoadIR(ctx, m, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// device opens the browser's WebGPU device once for every test; a browser
// without WebGPU is a missing tool (a failure in CI).
func device(t testing.TB) *backend.Device {
	t.Helper()
	devOnce.Do(func() { dev, devErr = backend.Open(ctx, "") })
	if devErr != nil {
		kctest.Missing(t, "no WebGPU device in this browser: %v", devErr)
	}
	return dev
}
