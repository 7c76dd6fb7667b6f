package goldenkc_test

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/golden/goldenkc"
)

func ExampleCompile() {
	src := []byte(`kernel double(n u32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] *= 2.0
	}
}
`)
	code, err := goldenkc.Compile("double.kc", src, nil, goldenkc.WGSL)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(code), "\n") {
		if strings.HasPrefix(line, "@compute") {
			fmt.Println(line)
		}
	}
	_, err = goldenkc.Compile("bad.kc", []byte("kernel k() workgroup(64) {\n\tlet x = y\n}\n"), nil, goldenkc.WGSL)
	fmt.Println(err)
	// Output:
	// @compute @workgroup_size(64, 1, 1)
	// bad.kc:2:10: undefined: y
}
