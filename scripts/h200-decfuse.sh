#!/usr/bin/env bash
# Builds one device call that takes apart decode attention's wall time
# (issue 14: f32 and f16 caches of 32k keys, 32/8 heads of 128) and
# layernorm's over rows of 32k, and measures the scope's early submits
# (backend.SetScopeFlush): PyTorch's copy, SDPA decode and norms first;
# then on the device the decode, attention and block tests and the Vulkan
# driver's contract and batching tests (dependent chains across early
# submits); with BASE (a commit), its BenchmarkOps defaults (the figures
# before, in the same call); kernels.test's BenchmarkGap (host recording per op,
# submit-to-wait time, wall time, each kernel's GPU time; one submit,
# results kept, early submits of 1, 4 and 16) and BenchmarkOps' defaults
# with -gpu; last the example decoder (f16 weights) with early submits
# (the default) and without (KC_SCOPE_FLUSH=0), and PyTorch's eager
# decoder on the same weights. Each step has its own timeout.
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
mkdir -p "$root/.gl/$dir"
gl=$(cd "$root/.gl/$dir" && pwd)
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$gl/vulkan.test" ./backend/vulkan
GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/decoder" ./examples/decoder
cp scripts/torch_common.py examples/decoder/torch_decoder.py "$gl/"
# BASE (a commit) adds its kernels.test as base.test: 17 MB more, which
# with the other binaries passed the call's 64 MiB (the checkout
# included) on 2026-12-02, so only on request
rm -f "$gl/base.test"
if [ -n "${BASE:-}" ]; then
	tmp=$(mktemp -d)
	git archive "$BASE" | tar -x -C "$tmp"
	(cd "$tmp" && GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$gl/base.test" ./kernels)
	rm -rf "$tmp"
fi
h200_steps_head "$gl"
cat >>"$gl/steps.sh" <<'STEPS'
# prints each step's figures as it ends, so that a call cut short keeps
# what it measured
bench() { grep -hE '^Benchmark|rror|FAIL' "$1" | sed 's/^Benchmark//; s/-[0-9]* / /; s/ ns\/op//'; }
torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && torch=1
if [ $torch = 1 ]; then
	timeout 25 python3 "$gl/torch_baselines.py" copy decode norms >"$OUT/torch.txt" 2>&1
	grep RESULT "$OUT/torch.txt"
fi
cd kernels
T=$gl/kernels.test
timeout "${TT:-25}" "$T" -test.run "${TESTS:-TestDecodeAttention$|TestHalfAttention|TestCausalAttention|TestTransformerBlock}" -test.count 1 -test.v >"$OUT/tests.txt" 2>&1
echo "tests: rc $? $(grep -cE '^--- PASS' "$OUT/tests.txt") passed, $(grep -cE '^--- FAIL' "$OUT/tests.txt") failed"
(cd ../backend/vulkan && timeout 10 "$gl/vulkan.test" -test.run 'TestContract|TestBatchedRecording|TestBatchCgoCalls' -test.count 1 >"$OUT/vktests.txt" 2>&1; echo "vulkan tests: rc $? $(tail -1 "$OUT/vktests.txt")")
OPS=${BENCH:-Ops/^(copy|layernorm|decodeattention|decodeattention16)$/^(256MiB|d32768|s32768)$}
if [ -x "$gl/base.test" ]; then
	KC_DEVICE=vulkan timeout 15 "$gl/base.test" -test.run '^$' -test.bench "$OPS" -test.benchtime "${N:-30x}" -gpu >"$OUT/base.txt" 2>&1
	bench "$OUT/base.txt" | sed 's/^/base: /'
fi
KC_DEVICE=vulkan timeout "${GT:-30}" "$T" -test.run '^$' -test.bench "${GAP:-Gap}" -test.benchtime "${N:-30x}" -gpu >"$OUT/gap.txt" 2>&1
bench "$OUT/gap.txt"
KC_DEVICE=vulkan timeout 12 "$T" -test.run '^$' -test.bench "$OPS" -test.benchtime "${N:-30x}" -gpu >"$OUT/ops.txt" 2>&1
bench "$OUT/ops.txt"
cd ..
M=${DECODER:--vocab 32000 -dim 2048 -layers 8 -heads 16 -kv-heads 4 -head-dim 128 -ffn 5632 -context 512 -tokens 64}
KC_DEVICE=vulkan timeout 12 "$gl/decoder" -dtype f16 $M >"$OUT/dec_kc.txt" 2>&1
echo "decoder kc: $(grep -h tokens "$OUT/dec_kc.txt" | tail -1)"
KC_DEVICE=vulkan KC_SCOPE_FLUSH=0 timeout 12 "$gl/decoder" -dtype f16 $M >"$OUT/dec_kc_once.txt" 2>&1
echo "decoder kc, one submit a scope: $(grep -h tokens "$OUT/dec_kc_once.txt" | tail -1)"
if [ $torch = 1 ]; then
	timeout 15 python3 "$gl/torch_decoder.py" -dtype f16 $M >"$OUT/dec_torch.txt" 2>&1
	echo "decoder torch: $(grep -h tokens "$OUT/dec_torch.txt" | tail -1)"
fi
[ -n "${smi:-}" ] && kill "$smi"
awk -F', ' '{print $2}' "$OUT/smi.csv" 2>/dev/null | sort | uniq -c | sort -rn | head -3
grep -hE '^--- FAIL|^FAIL' "$OUT/tests.txt" "$OUT/vktests.txt" | head -5
STEPS
h200_steps_call "$dir" 150
