#!/usr/bin/env bash
# Builds the kernel library's test binary (kernels.test, linux/amd64) into
# ROOT/.gl/DIR with the Vulkan loader .debs and PyTorch's baseline script,
# and prints the device tool's `run` command for one short attention call
# (one to two minutes of device time): PyTorch's copy, decode and causal
# attention baselines first, then the attention tests on the device
# (flash16's configurations on the cooperative matrices, decodesg.kc on
# 32-lane subgroups), the decode sweep (BenchmarkOps' copy and decode
# entries, -sweep) and the flash16 sweep (BenchmarkAttention16 -sweep).
# Every step has its own timeout; they add up to less than the call's.
# On 2026-12-01 the two test steps needed more than 12 and 14 s (the
# driver compiles each flash16 configuration slowly; TestDecodeVariants
# runs some 70 configurations), hence 25 and 30 now (call limit 135); the rest of that call
# took about 35 s.
#
# Usage: scripts/h200-attention.sh [ROOT [DIR]]   (ROOT: default this
# checkout; give the checkout the device tool sends, e.g. /work/main. DIR:
# default attn.) Only .gl/DIR is carried.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-attn}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
sed "s|@DIR@|$dir|g" <<'CMD'
run carry=[".gl/@DIR@"] timeout_s=135 command:
for f in .gl/@DIR@/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; timeout 20 python3 .gl/@DIR@/torch_baselines.py copy decode attention > $OUT/torch.txt 2>&1; cd kernels; T=../.gl/@DIR@/kernels.test; timeout 25 $T -test.run 'TestFlash16Layouts|TestHalfAttention' -test.count 1 -test.v > $OUT/tests.txt 2>&1; timeout 30 $T -test.run 'TestDecodeVariants|TestDecodeAttention' -test.count 1 -test.v >> $OUT/tests.txt 2>&1; timeout 22 $T -test.run '^$' -test.bench 'Ops/(copy|decode)' -test.benchtime 20x -sweep > $OUT/decode.txt 2>&1; timeout 27 $T -test.run '^$' -test.bench 'Attention16' -test.benchtime 5x -sweep > $OUT/attn.txt 2>&1; grep RESULT $OUT/torch.txt; grep -E '^(--- |ok|FAIL|PASS)' $OUT/tests.txt | grep -v '^--- PASS' | tail -8; grep -hE 'GB/s|TFLOP|FAIL|rror|SKIP' $OUT/decode.txt $OUT/attn.txt | awk '{print $1, $(NF-1)}' | sed 's/Benchmark//'
CMD
