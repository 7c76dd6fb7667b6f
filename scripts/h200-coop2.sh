#!/usr/bin/env bash
# Builds what the H200 workgroup-scope (VK_NV_cooperative_matrix2)
# measurement runs — coopmat's test binary and kc, for linux/amd64 — into
# ROOT/.gl/coop2wg and prints the device tool's `run` command: kc devices
# (the coopmat2 limits and flexible dimensions), coopmat's TestCoop2Peak
# (register-only multiply-add loops at subgroup and workgroup scope) and
# TestCoop2Device (the coop2 plans against float64, then timed beside the
# subgroup kernel at 8192³ and on skinny shapes), and PyTorch's matmul
# baseline, in one call. Delete ROOT/.gl/coop2wg after the call.
#
# Usage: scripts/h200-coop2.sh [ROOT]   (ROOT: the checkout the device tool
# sends, e.g. /work/main; its .gl/ must hold the loader .debs, DEVICE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
gl=$root/.gl/coop2wg
h200_gl "$root" "$gl"
h200_coopmat "$gl" kc
h200_torch "$gl"
cat <<CMD
run carry=[".gl/coop2wg"] timeout_s=300 command:
for f in .gl/coop2wg/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/coop2wg; ./kc devices > \$OUT/devices.log 2>&1; timeout 60 ./coopmat.test -test.run 'TestCoop2Peak' -test.v > \$OUT/peak.log 2>&1; echo "peak rc=\$?" >> \$OUT/peak.log; timeout 150 ./coopmat.test -test.run 'TestCoop2Device' -test.v > \$OUT/dev.log 2>&1; echo "dev rc=\$?" >> \$OUT/dev.log; timeout 60 python3 torch_baselines.py matmul > \$OUT/torch.log 2>&1; grep -A12 'cooperative matrix 2' \$OUT/devices.log; grep -hE 'RESULT|FAIL|rc=|panic|rror' \$OUT/peak.log \$OUT/dev.log | cut -c1-220; grep -E 'float16|bfloat16' \$OUT/torch.log
CMD
