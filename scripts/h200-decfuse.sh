#!/usr/bin/env bash
# Builds one device call that takes apart decode attention's wall time
# (issue 14: f32 and f16 caches of 32k keys, 32/8 heads of 128) and
# layernorm's over rows of 32k: PyTorch's copy and SDPA decode first, then
# the decode tests on the device (TESTS), then kernels.test's BenchmarkGap
# (host recording per op, submit-to-wait time, wall time, each kernel's
# GPU time; results released or kept; early submits inside the scope) and
# BenchmarkOps' defaults with -gpu (BENCH, GAP and N replace the patterns
# and -test.benchtime). Each step has its own timeout.
#
# Usage: scripts/h200-decfuse.sh [ROOT [DIR]]   (ROOT: the checkout the
# device tool sends, e.g. /work/main; DIR under ROOT/.gl, default
# decfuse). `OUT=/tmp/x bash ROOT/.gl/DIR/steps.sh` runs the same steps
# here (lavapipe; PyTorch skipped without CUDA) before the call.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-decfuse}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
cat >"$gl/steps.sh" <<'STEPS'
set -u
gl=$(cd "$(dirname "$0")" && pwd)
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 250 >"$OUT/smi.csv" 2>&1 &
	smi=$!
fi
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	timeout 30 python3 "$gl/torch_baselines.py" copy decode >"$OUT/torch.txt" 2>&1
fi
cd kernels
T=$gl/kernels.test
timeout "${TT:-30}" "$T" -test.run "${TESTS:-TestDecodeAttention$}" -test.count 1 -test.v >"$OUT/tests.txt" 2>&1
echo "tests: rc $?"
KC_DEVICE=vulkan timeout "${GT:-50}" "$T" -test.run '^$' -test.bench "${GAP:-Gap}" -test.benchtime "${N:-30x}" -gpu >"$OUT/gap.txt" 2>&1
echo "gap: rc $?"
KC_DEVICE=vulkan timeout "${OT:-30}" "$T" -test.run '^$' -test.bench "${BENCH:-Ops/^(copy|layernorm|decodeattention|decodeattention16)$/^(256MiB|d32768|s32768)$}" -test.benchtime "${N:-30x}" -gpu >"$OUT/ops.txt" 2>&1
echo "ops: rc $?"
[ -n "${smi:-}" ] && kill "$smi"
grep -E '^(--- FAIL|FAIL|ok|PASS)' "$OUT/tests.txt" | tail -5
grep RESULT "$OUT/torch.txt" 2>/dev/null
awk -F', ' '{print $2}' "$OUT/smi.csv" 2>/dev/null | sort | uniq -c | sort -rn | head -3
grep -hE '^Benchmark|rror|FAIL' "$OUT/gap.txt" "$OUT/ops.txt" | sed 's/^Benchmark//; s/-[0-9]* / /; s/ ns\/op//'
STEPS
sed "s|@DIR@|$dir|g" <<'CMD'
run carry=[".gl/@DIR@"] timeout_s=150 command:
for f in .gl/@DIR@/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; bash .gl/@DIR@/steps.sh
CMD
