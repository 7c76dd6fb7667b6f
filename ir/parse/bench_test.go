package parse_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/ir/parse"
)

func BenchmarkParseMatmul(b *testing.B) {
	path := filepath.Join("..", "..", "testdata", "kernels", "matmul_tiled.kc")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := parse.File(path, src); err != nil {
			b.Fatal(err)
		}
	}
}
