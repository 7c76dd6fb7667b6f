#!/usr/bin/env bash
# Builds what the H200 matmul measurement runs (kc and coopmat's test
# binary, for linux/amd64) into a .gl/ directory and prints the device
# tool's `run` command that runs them beside PyTorch's baseline in one call
# (see docs/PERF.md and ../shared/DEVICE.md for the loader .debs in .gl/).
#
# Usage: scripts/h200-matmul.sh [ROOT [coop]]   (ROOT defaults to this
# checkout; give the checkout the device tool sends, e.g. /work/main).
# Everything goes into ROOT/.gl/coop (ROOT/.gl/coop2 for coop), with the
# loader .debs copied from ROOT/.gl, which alone is carried, so other work
# parked in .gl does not count against the 64 MiB. Delete that folder
# (about 27 MB) after the call: a later call that carries all of .gl would
# carry it too.
#
# With "coop" it measures the tensor-core kernels instead: coopmat's
# TestCoopDevice (both SPIR-V flavours against float64 on 17x33x65,
# 1000^3 and 4096x4096x1024; every candidate plan timed at 8192^3 f16 and
# bf16) beside PyTorch's matmul in the same call.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-.}
if [ "${2:-}" = coop ]; then
	gl=$root/.gl/coop2
	mkdir -p "$gl"
	cp "$root"/.gl/*.deb "$gl/"
	GOOS=linux GOARCH=amd64 go test -ldflags=-s -c -o "$gl/coopmat.test" ./coopmat
	base=../shared/baselines/torch_baselines.py
	[ -f "$base" ] || base=/work/shared/baselines/torch_baselines.py
	cp "$base" "$gl/torch_baselines.py"
	cat <<CMD
run carry=[".gl/coop2"] timeout_s=360 command:
for f in .gl/coop2/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/coop2; timeout 200 ./coopmat.test -test.run 'TestCoopDevice' -test.v > \$OUT/coop.log 2>&1; echo "test rc=\$?" >> \$OUT/coop.log; timeout 100 python3 torch_baselines.py matmul > \$OUT/torch.log 2>&1; grep -E 'RESULT|FAIL|ok|rc=|panic|Error' \$OUT/coop.log | cut -c1-200; grep -E 'float16|bfloat16' \$OUT/torch.log
CMD
	exit 0
fi
gl=$root/.gl/coop
mkdir -p "$gl"
cp "$root"/.gl/*.deb "$gl/"
GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/kc-coop" ./cmd/kc
GOOS=linux GOARCH=amd64 go test -ldflags=-s -c -o "$gl/coopmat.test" ./coopmat
base=../shared/baselines/torch_baselines.py
[ -f "$base" ] || base=/work/shared/baselines/torch_baselines.py
cp "$base" "$gl/torch_baselines.py"
sizes=8192x8192x8192,4096x4096x4096,2048x2048x2048,1024x1024x1024,512x512x512,1x4096x4096,16x4096x4096,128x4096x4096
cat <<CMD
run carry=[".gl/coop"] timeout_s=300 command:
for f in .gl/coop/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/coop; (timeout 60 ./coopmat.test -test.run 'TestF32' -test.v > \$OUT/test.log 2>&1; echo "test rc=\$?" >> \$OUT/test.log); timeout 120 ./kc-coop bench matmul -device vulkan -sizes $sizes > \$OUT/bench-vulkan.log 2>&1; timeout 45 ./kc-coop bench matmul -device wgpu -sizes 8192x8192x8192,4096x4096x4096 > \$OUT/bench-wgpu.log 2>&1; timeout 90 python3 torch_baselines.py matmul > \$OUT/torch.log 2>&1; tail -3 \$OUT/test.log; grep -v '^  \[' \$OUT/bench-vulkan.log \$OUT/bench-wgpu.log; grep float32 \$OUT/torch.log
CMD
