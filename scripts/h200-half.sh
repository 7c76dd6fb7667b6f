#!/usr/bin/env bash
# Builds the 16-bit measurements of the kernel library (BenchmarkHalf in
# kernels.test, the example decoder) for linux/amd64 into ROOT/.gl/kf16 with
# the Vulkan loader .debs, PyTorch's baselines (scripts/torch_half.py) and the
# PyTorch decoder (examples/decoder/torch_decoder.py), and prints the device
# tool's `run` command that measures, in one call: the 16-bit tests on the
# H200 (cooperative-matrix paths included), decode products, f16 matmul,
# f16 elementwise and rmsnorm beside PyTorch, and the decoder's tokens/s in
# kc and PyTorch eager on the same weights (docs/PERF.md, "16-bit ops").
#
# Usage: scripts/h200-half.sh [ROOT]   (default: this checkout; give the
# checkout the device tool sends, e.g. /work/main). Only .gl/kf16 is carried.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
gl=$root/.gl/kf16
h200_gl "$root" "$gl"
h200_kernels "$gl"
GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/decoder" ./examples/decoder
cp scripts/torch_half.py scripts/torch_common.py examples/decoder/torch_decoder.py "$gl/"
cat <<'CMD'
run carry=[".gl/kf16"] timeout_s=240 command:
for f in .gl/kf16/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; G=$PWD/.gl/kf16; M="-vocab 32000 -dim 2048 -layers 8 -heads 16 -kv-heads 4 -head-dim 128 -ffn 5632 -context 512 -tokens 64"; S(){ cat $OUT/tests.txt | tail -10; grep RESULT $OUT/torch.txt; grep -E '^Benchmark' $OUT/kc.txt | awk '{s=$1; for(i=5;i<=NF;i+=2) s=s" "$i$(i+1); print s}'; grep -hE 'tokens|model' $OUT/dec_*.txt; }; cd kernels; timeout 40 $G/kernels.test -test.run 'TestCast|TestHalf|TestGEMV|TestDType' -test.v > $OUT/tests_full.txt 2>&1; grep -E '^(--- |ok|FAIL|PASS)' $OUT/tests_full.txt > $OUT/tests.txt; timeout 40 python3 $G/torch_half.py > $OUT/torch.txt 2>&1; timeout 60 $G/kernels.test -test.run '^$' -test.bench Half -test.benchtime 20x > $OUT/kc.txt 2>&1; cd ..; for d in f16 f32; do timeout 30 $G/decoder -dtype $d $M > $OUT/dec_kc_$d.txt 2>&1; timeout 25 python3 $G/torch_decoder.py -dtype $d $M > $OUT/dec_torch_$d.txt 2>&1; done; S
CMD
