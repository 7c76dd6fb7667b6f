#!/usr/bin/env bash
# Builds the decode-product measurement (issue 14: 1 to 16 rows times
# 4096x4096 f16 weights; kernels.test's TestDecodeRoutes and
# BenchmarkDecode) for linux/amd64 into ROOT/.gl/decmm with the Vulkan
# loader .debs and PyTorch's baseline (scripts/torch_decode.py), and prints
# the device tool's `run` command that, in one call: checks every route
# (gemv.kc, gemvsg.kc, gemvt.kc, every layout of coopmat's skinny
# tensor-core kernel, coopmat's tiled kernels, the default) against
# float64 on the H200, f16 weights (KC_DECODE_TYPES) at 1, 4, 8, 16 rows and
# ragged sizes; then PyTorch's copy, F.linear and x @ W; then kc's GB/s over
# the weights for every route (docs/PERF.md, "Decode products").
#
# Usage: scripts/h200-decode.sh [ROOT [validate]]   (ROOT: the checkout the
# device tool sends, e.g. /work/main). With "validate" the call checks only
# the default routes, f16 and bf16, and times the default routes (-bench
# 'Decode/.*/default'). Only .gl/decmm is carried; delete it after the call.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
gl=$root/.gl/decmm
h200_gl "$root" "$gl"
GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$gl/kernels.test" ./kernels
cp scripts/torch_decode.py "$gl/"
env="KC_DECODE_TYPES=f16"
bench="Decode"
if [ "${2:-}" = validate ]; then
	env="KC_DECODE_ROUTES=default"
	bench='Decode/.*/(default|copy)'
fi
cat <<CMD
run carry=[".gl/decmm"] timeout_s=140 command:
for f in .gl/decmm/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; G=\$PWD/.gl/decmm; cd kernels; $env timeout 50 \$G/kernels.test -test.run 'TestDecodeRoutes' -test.v > \$OUT/tests.txt 2>&1; echo "tests rc=\$?" >> \$OUT/tests.txt; timeout 25 python3 \$G/torch_decode.py > \$OUT/torch.txt 2>&1; timeout 50 \$G/kernels.test -test.run '^\$' -test.bench '$bench' -test.benchtime 20x > \$OUT/kc.txt 2>&1; echo "bench rc=\$?" >> \$OUT/kc.txt; grep -E '^(--- FAIL|FAIL|ok|PASS)|rc=' \$OUT/tests.txt | head; grep -E 'out of bounds|Error' \$OUT/tests.txt | head -5; grep RESULT \$OUT/torch.txt; grep -E '^Benchmark' \$OUT/kc.txt | awk '{print \$1, \$5}' | sed 's/BenchmarkDecode.//; s/-16 / /'; grep rc= \$OUT/kc.txt
CMD
