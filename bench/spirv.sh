#!/usr/bin/env bash
# bench/spirv.sh: the whole compile of the tiled matmul to SPIR-V, timed as
# separate processes, side by side: kc (`kc compile -target spirv`, or
# bench/spirvbench when the CLI lacks that target) on
# testdata/kernels/matmul_tiled.kc against `glslangValidator -V` on the
# equivalent GLSL, bench/spirv_matmul_tiled.comp. Runs alternate between the
# two so that machine load hits both alike. Prints both medians and the
# ratio, for wall-clock time and for CPU time (user+system, steadier on a
# loaded machine). N=201 bench/spirv.sh for more runs. KC=path/to/kc,
# SPIRVBENCH=path/to/spirvbench and GLSLANG=path/to/glslangValidator use
# prebuilt binaries (no Go needed).
set -euo pipefail
N=${N:-101}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
kernel=testdata/kernels/matmul_tiled.kc
glsl=bench/spirv_matmul_tiled.comp

glslang_bin=${GLSLANG:-glslangValidator}
if [[ -n "${SPIRVBENCH:-}" ]]; then
	kc=("$SPIRVBENCH" -o "$tmp/kc.spv" "$kernel")
	kcname="bench/spirvbench (parse+check+emit)"
elif [[ -n "${KC:-}" ]]; then
	kc=("$KC" compile -target spirv -o "$tmp/kc.spv" "$kernel")
	kcname="kc compile -target spirv"
elif go build -o "$tmp/kc" ./cmd/kc 2>/dev/null &&
	"$tmp/kc" compile -target spirv -o "$tmp/probe.spv" "$kernel" 2>/dev/null; then
	kc=("$tmp/kc" compile -target spirv -o "$tmp/kc.spv" "$kernel")
	kcname="kc compile -target spirv"
else
	go build -o "$tmp/spirvbench" ./bench/spirvbench
	kc=("$tmp/spirvbench" -o "$tmp/kc.spv" "$kernel")
	kcname="bench/spirvbench (parse+check+emit)"
fi
glslang=("$glslang_bin" -V --target-env vulkan1.1 -o "$tmp/glslang.spv" "$glsl")

# Both outputs must be valid modules, or the comparison means nothing.
"${kc[@]}" >/dev/null
"${glslang[@]}" >/dev/null
if command -v spirv-val >/dev/null; then
	spirv-val --target-env vulkan1.1 "$tmp/kc.spv"
	spirv-val --target-env vulkan1.1 "$tmp/glslang.spv"
else
	echo "note: spirv-val not on PATH; outputs not validated"
fi

# Each run appends "real user sys" in seconds.
TIMEFORMAT='%3R %3U %3S'
: >"$tmp/kc.t"
: >"$tmp/glslang.t"
for ((i = 0; i < N; i++)); do
	{ time "${kc[@]}" >/dev/null; } 2>>"$tmp/kc.t"
	{ time "${glslang[@]}" >/dev/null; } 2>>"$tmp/glslang.t"
done

# median FILE COLUMN-EXPR: the median in microseconds.
median() { awk "{printf \"%d\\n\", ($2) * 1e6}" "$1" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
kw=$(median "$tmp/kc.t" '$1')
gw=$(median "$tmp/glslang.t" '$1')
kcpu=$(median "$tmp/kc.t" '$2 + $3')
gcpu=$(median "$tmp/glslang.t" '$2 + $3')
echo "machine:           $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs:              $N each, alternating"
echo "kc:                wall $kw us, cpu $kcpu us  ($kcname)"
echo "glslangValidator:  wall $gw us, cpu $gcpu us  (-V --target-env vulkan1.1)"
awk -v k="$kw" -v g="$gw" -v kc="$kcpu" -v gc="$gcpu" 'BEGIN {
	printf "ratio glslang/kc: wall %.1fx", g / k
	if (kc > 0) printf ", cpu %.1fx", gc / kc
	printf "\n"
}'
