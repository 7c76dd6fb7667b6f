module github.com/kcgo/kc/examples/saxpy

go 1.26

require github.com/kcgo/kc v0.0.0-00010101000000-000000000000

require github.com/cogentcore/webgpu v0.23.0 // indirect

replace github.com/kcgo/kc => ../..
