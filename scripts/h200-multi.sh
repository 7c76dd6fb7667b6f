#!/usr/bin/env bash
# Builds kernels/multi's scaling measurement (bench/multibench, linux/amd64)
# and its PyTorch counterpart into ROOT/.gl/multi with the Vulkan loader
# .debs, and prints the device tool's `run` call for the nvidia-h200-x2 kind
# (two H200s of one host): in one call, kc's batched matmul and decoder
# block on 1 and 2 GPUs (issue 17's bar: 2 GPUs >= 1.8x one GPU), then
# PyTorch's same work data-parallel over cuda:0 and cuda:1, then a table.
#
# Usage: scripts/h200-multi.sh [ROOT]   (default: this checkout; give the
# checkout the device tool sends, e.g. /work/main). Only .gl/multi (about
# 14 MB) is carried; delete it after the call. Sizes are multibench's and
# torch_multi.py's defaults: matmul 8 x [2048 4096]·[4096 4096] f32 (550
# GFLOP per call); block 16 sequences of 1024 tokens, dim 2048, 16/4 heads
# of 128, ffn 5632 (about 1.6 TFLOP per call). The kind is not always lent:
# ask `status` first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
gl=$root/.gl/multi
h200_gl "$root" "$gl"
CGO_ENABLED=1 GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/multibench" ./bench/multibench
cp bench/multibench/torch_multi.py "$gl/"
cat <<'CMD'
run kind="nvidia-h200-x2" carry=[".gl/multi"] timeout_s=420 command:
for f in .gl/multi/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; nvidia-smi topo -m > $OUT/topo.txt 2>&1; timeout 200 .gl/multi/multibench -reps 10 > $OUT/kc.txt 2>&1; echo "kc rc=$?" >> $OUT/kc.txt; timeout 150 python3 .gl/multi/torch_multi.py --reps 10 > $OUT/torch.txt 2>&1; echo "torch rc=$?" >> $OUT/torch.txt; grep -E '^(device|matmul|block)|rc=|rror' $OUT/kc.txt $OUT/torch.txt | cut -c1-160; grep -h RESULT $OUT/kc.txt $OUT/torch.txt | sed 's/RESULT name=//'
CMD
