#!/bin/sh
# bench/hlsl.sh: kc's direct SPIR-V emitter against glslang on kc's HLSL,
# whole processes, over every test kernel; prints medians and ratios.
# Usage: bench/hlsl.sh [-n RUNS]   (from anywhere in the repository)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kc" ./cmd/kc
go build -o "$tmp/hlslbench" ./bench/hlslbench
echo "kc $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(glslangValidator --version | head -1), $(spirv-val --version | head -1)"
echo "$(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)"
"$tmp/hlslbench" -kc "$tmp/kc" -kernels testdata/kernels "$@"
