#!/usr/bin/env bash
# bench/spirv.sh: the whole compile of the tiled matmul to SPIR-V, timed as
# separate processes, side by side: kc (`kc compile -target spirv`, or
# bench/spirvbench when the CLI lacks that target) on
# testdata/kernels/matmul_tiled.kc against `glslangValidator -V` on the
# equivalent GLSL, bench/spirv_matmul_tiled.comp. Runs alternate between the
# two so that machine load hits both alike. Prints both medians and the
# ratio. N=201 bench/spirv.sh for more runs.
set -euo pipefail
N=${N:-101}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
kernel=testdata/kernels/matmul_tiled.kc
glsl=bench/spirv_matmul_tiled.comp

if go build -o "$tmp/kc" ./cmd/kc 2>/dev/null &&
	"$tmp/kc" compile -target spirv -o "$tmp/probe.spv" "$kernel" 2>/dev/null; then
	kc=("$tmp/kc" compile -target spirv -o "$tmp/kc.spv" "$kernel")
	kcname="kc compile -target spirv"
else
	go build -o "$tmp/spirvbench" ./bench/spirvbench
	kc=("$tmp/spirvbench" -o "$tmp/kc.spv" "$kernel")
	kcname="bench/spirvbench (parse+check+emit)"
fi
glslang=(glslangValidator -V --target-env vulkan1.1 -o "$tmp/glslang.spv" "$glsl")

# Both outputs must be valid modules, or the comparison means nothing.
"${kc[@]}" >/dev/null
"${glslang[@]}" >/dev/null
spirv-val --target-env vulkan1.1 "$tmp/kc.spv"
spirv-val --target-env vulkan1.1 "$tmp/glslang.spv"

: >"$tmp/kc.t"
: >"$tmp/glslang.t"
for ((i = 0; i < N; i++)); do
	s=$EPOCHREALTIME
	"${kc[@]}" >/dev/null
	e=$EPOCHREALTIME
	echo "$s $e" >>"$tmp/kc.t"
	s=$EPOCHREALTIME
	"${glslang[@]}" >/dev/null
	e=$EPOCHREALTIME
	echo "$s $e" >>"$tmp/glslang.t"
done

median() { awk '{printf "%d\n", ($2 - $1) * 1e6}' "$1" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
k=$(median "$tmp/kc.t")
g=$(median "$tmp/glslang.t")
echo "runs:                 $N each, alternating"
echo "kc median:            $k us  ($kcname)"
echo "glslangValidator:     $g us  (-V --target-env vulkan1.1)"
awk -v k="$k" -v g="$g" 'BEGIN {printf "ratio glslang/kc:     %.1fx\n", g / k}'
