module github.com/kcgo/kc

go 1.26

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/cogentcore/webgpu v0.23.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
)
