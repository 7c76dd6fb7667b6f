#!/usr/bin/env bash
# Builds the kernel library's test binary (kernels.test, linux/amd64) into
# ROOT/.gl/DIR with the Vulkan loader .debs and PyTorch's baseline script,
# and prints the device tool's `run` command for one flash16 call (about
# 35-60 s of command time on 2026-12-01): PyTorch's causal attention (SDPA,
# f16, B 4, T 4096, 32/8 and 32/32 heads of 128) first, then
# TestFlash16Layouts (every configuration of the sweep against float64
# through CausalAttention, sizes that cross the tiles) and the sweep
# (BenchmarkAttention16 -sweep: each configuration checked on 48 sampled
# rows at the full size, then timed; the whole list twice, interleaved).
# Every step has its own timeout.
#
# Usage: scripts/h200-flash16.sh [ROOT [DIR]]   (ROOT: default this
# checkout; give the checkout the device tool sends, e.g. /work/main. DIR:
# default flash.) Only .gl/DIR is carried.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-flash}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
sed "s|@DIR@|$dir|g" <<'CMD'
run carry=[".gl/@DIR@"] timeout_s=150 command:
for f in .gl/@DIR@/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; timeout 25 python3 .gl/@DIR@/torch_baselines.py attention > $OUT/torch.txt 2>&1; cd kernels; T=../.gl/@DIR@/kernels.test; timeout 45 $T -test.run 'TestFlash16Layouts' -test.count 1 -test.v > $OUT/tests.txt 2>&1; timeout 70 $T -test.run '^$' -test.bench 'Attention16' -test.benchtime 5x -sweep > $OUT/attn.txt 2>&1; grep RESULT $OUT/torch.txt; grep -E '^(--- |ok|FAIL|PASS)|flash16.*(run|error)' $OUT/tests.txt | tail -8; grep -hE 'TFLOP|FAIL|rror|SKIP|attention f16' $OUT/attn.txt | awk '{print $1, $(NF-1)}' | sed 's/BenchmarkAttention16.//'
CMD
