#!/usr/bin/env bash
# Builds the kernel library's benchmark binary (kernels.test, linux/amd64)
# into ROOT/.gl/k with the Vulkan loader .debs and PyTorch's baseline script,
# and prints the device tool's `run` command that measures the library's
# memory-bound ops beside PyTorch's copy, norms and decode attention in one
# call (docs/PERF.md, "Kernel library on the H200").
#
# Usage: scripts/h200-kernels.sh [ROOT]   (default: this checkout; give the
# checkout the device tool sends, e.g. /work/main). Only .gl/k is carried.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-.}
gl=$root/.gl/k
mkdir -p "$gl"
cp "$root"/.gl/*.deb "$gl/"
GOOS=linux GOARCH=amd64 go test -c -o "$gl/kernels.test" ./kernels
base=../shared/baselines/torch_baselines.py
[ -f "$base" ] || base=/work/shared/baselines/torch_baselines.py
cp "$base" "$gl/torch_baselines.py"
cat <<'CMD'
run carry=[".gl/k"] timeout_s=420 command:
for f in .gl/k/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; export PYTHONUNBUFFERED=1; set -o pipefail; (cd kernels && ../.gl/k/kernels.test -test.run '^$' -test.bench Ops -test.benchtime 50x 2>&1) | tee $OUT/kernels.txt; python3 .gl/k/torch_baselines.py copy norms decode 2>&1 | tee $OUT/torch.txt
CMD
