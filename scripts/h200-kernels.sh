#!/usr/bin/env bash
# Builds the kernel library's test and benchmark binary (kernels.test,
# linux/amd64) into ROOT/.gl/DIR with the Vulkan loader .debs and PyTorch's
# baseline script, and prints the device tool's `run` command that, in one
# call: runs the attention and row tests on the device (flash16 on the
# cooperative matrices, decodesg.kc on 32-lane subgroups), measures the
# memory-bound ops (BenchmarkOps -sweep: every decode configuration and
# the long-row neighbours) and causal GQA f16 attention
# (BenchmarkAttention16 -sweep), then PyTorch's copy, norms, decode and
# attention baselines (docs/PERF.md, "Kernel library on the H200").
#
# Usage: scripts/h200-kernels.sh [ROOT [DIR]]   (ROOT: default this
# checkout; give the checkout the device tool sends, e.g. /work/main. DIR:
# default k.) Only .gl/DIR is carried.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-k}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
sed "s|@DIR@|$dir|g" <<'CMD'
run carry=[".gl/@DIR@"] timeout_s=300 command:
for f in .gl/@DIR@/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd kernels; T=../.gl/@DIR@/kernels.test; $T -test.run 'TestHalfAttention|TestDecodeVariants|TestDecodeAttention|TestCausal|TestLongRowVariants|TestNorms|TestSoftmax' -test.count 1 > $OUT/tests.txt 2>&1; tail -3 $OUT/tests.txt; $T -test.run '^$' -test.bench 'Ops' -test.benchtime 50x -sweep > $OUT/kernels.txt 2>&1; $T -test.run '^$' -test.bench 'Attention16' -test.benchtime 10x -sweep >> $OUT/kernels.txt 2>&1; cd ..; python3 .gl/@DIR@/torch_baselines.py copy norms decode attention > $OUT/torch.txt 2>&1; grep RESULT $OUT/torch.txt; grep -E "GB/s|TFLOP|FAIL|rror" $OUT/kernels.txt | awk '{print $1, $(NF-1)}' | sed 's/Benchmark//'
CMD
