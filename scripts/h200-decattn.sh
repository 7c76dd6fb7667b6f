#!/usr/bin/env bash
# Builds the kernel library's test binary (kernels.test, linux/amd64) into
# ROOT/.gl/DIR with the Vulkan loader .debs, PyTorch's baseline script and
# the call's steps (steps.sh, written from the heredoc below), and prints
# the device tool's `run` command for one call measuring decode attention
# (f32 and f16 caches of 32k keys, 32/8 heads of 128) and layernorm over
# rows of 32k: PyTorch's copy, SDPA decode and norms first; then the
# decode and long-row tests on the device (every configuration the sweep
# times is checked against float64 first: TestDecodeSweep, and the
# subgroup-reduction layernorms of TestLongRowVariants); then, on the
# Vulkan driver (KC_DEVICE=vulkan),
# BenchmarkOps -sweep (copy, norms, decode defaults, then every
# configuration twice in interleaved passes, wall time of 30 ops in one
# submit and GPU-timestamp time of each). Each step has its own timeout,
# 105 s in all.
#
# Usage: [BASE=checkout] scripts/h200-decattn.sh [ROOT [DIR]]   (ROOT: default this
# checkout; give the checkout the device tool sends, e.g. /work/main. DIR:
# default decattn.) Only .gl/DIR is carried. `bash ROOT/.gl/DIR/steps.sh`
# with OUT set runs the same steps here (lavapipe; PyTorch skipped
# without CUDA) to check them before the call; TESTS, BENCH and N replace
# the test pattern, the benchmark pattern and -test.benchtime, TORCH the
# PyTorch baselines (default: copy decode norms); SWEEPFLAGS adds flags to
# the sweep (-rows: decodelr.kc's configurations and the decode defaults
# only; with KC_DECODE_SWEEP=row TestDecodeSweep checks just those;
# KC_DECODE_SWEEP=tc: the 16-bit default and decodeTCSweep, over f16 and
# bf16 caches, and TestDecodeSweep checks its decodelr.kc ones); TT,
# BT and PT are the steps' timeouts in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-decattn}
mkdir -p "$root/.gl/$dir"
gl=$(cd "$root/.gl/$dir" && pwd) # absolute: the BASE build below runs elsewhere
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
# BASE (a checkout) adds its kernels.test as base.test: its decode
# defaults are timed before and after the sweep, for the figures before
# this branch in the same call
if [ -n "${BASE:-}" ]; then
	(cd "$BASE" && GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$gl/base.test" ./kernels)
fi
cat >"$gl/steps.sh" <<'STEPS'
# one decode/layernorm call; run from the repository root with OUT set
set -u
gl=$(cd "$(dirname "$0")" && pwd)
# the SM and memory clocks while it runs (read only)
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active --format=csv -lms 250 >"$OUT/smi.csv" 2>&1 &
	smi=$!
fi
base() {
	[ -x "$gl/base.test" ] && KC_DEVICE=vulkan timeout 8 "$gl/base.test" -test.run '^$' -test.bench 'Ops/(copy|decode)' -test.benchtime "${N:-30x}" >>"$OUT/base.txt" 2>&1
}
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	timeout "${PT:-25}" python3 "$gl/torch_baselines.py" ${TORCH:-copy decode norms} >"$OUT/torch.txt" 2>&1
fi
cd kernels
T=$gl/kernels.test
timeout "${TT:-35}" "$T" -test.run "${TESTS:-TestDecodeAttention|TestDecodeSweep|TestLongRowVariants/.*SG:1}" -test.count 1 -test.v >"$OUT/tests.txt" 2>&1
echo "tests: rc $?"
base
KC_DEVICE=vulkan timeout "${BT:-45}" "$T" -test.run '^$' -test.bench "${BENCH:-Ops/(copy|softmax|layernorm|rmsnorm|decode)}" -test.benchtime "${N:-30x}" -sweep ${SWEEPFLAGS:-} >"$OUT/bench.txt" 2>&1
echo "bench: rc $?"
base
[ -n "${smi:-}" ] && kill "$smi"
grep RESULT "$OUT/torch.txt" 2>/dev/null
grep -E '^(--- FAIL|FAIL|ok|PASS)' "$OUT/tests.txt" | tail -5
awk -F', ' 'NR > 1 {print $3}' "$OUT/smi.csv" 2>/dev/null | sort | uniq -c | sort -rn | head -4
{ grep -hE 'GB/s|FAIL|rror' "$OUT/base.txt" 2>/dev/null | sed 's/^/base:/'; grep -hE 'GB/s|FAIL|rror' "$OUT/bench.txt"; } | sed 's/BenchmarkOps\///' | awk '{g=""; for(i=1;i<NF;i++) if($(i+1)=="gpuGB/s") g=$i; for(i=1;i<NF;i++) if($(i+1)=="GB/s") w=$i; print $1, w, g}'
STEPS
h200_steps_call "$dir" 110
