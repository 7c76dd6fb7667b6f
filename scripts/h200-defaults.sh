#!/usr/bin/env bash
# Builds one device call that measures every default of the kernel
# library that issue 14 sets a speed target for, each beside PyTorch in
# the same call: first the default paths' correctness on the device
# (decode attention f32/f16/bf16 and the causal kernels' tests, every
# default decode-product route against float64, timed products), then
# PyTorch (`torch_baselines.py copy decode norms`, `torch_decode.py f16`),
# then kc: BenchmarkDecode's default routes (x·Wᵀ and x·W, 1/4/8/16 rows,
# x f32 and f16, 4096x4096 f16 weights, chained; x·Wᵀ over f32 weights
# through coopmat and gemv4f; the example decoder's products, f16 and f32
# weights) and BenchmarkOps' copy, elementwise, norms and decode
# attention (f32 and f16 caches), both with -gpu for the GPU-timestamp
# figure beside the wall time; last the example decoder's tokens/s in kc
# (with and without early submits) and PyTorch eager on the same weights
# (DEC: the types, default "f16 f32"), then each decoder again with
# -profile (each kernel's GPU time a decode step). The SM clock is
# sampled every 250 ms. Each step has its own timeout.
#
# Usage: scripts/h200-defaults.sh [ROOT [DIR]]   (ROOT: the checkout the
# device tool sends, e.g. /work/main; DIR under ROOT/.gl, default
# defaults). `OUT=/tmp/x bash ROOT/.gl/DIR/steps.sh` runs the same steps
# here (lavapipe; PyTorch skipped without CUDA) before the call.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-defaults}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_kernels "$gl"
h200_torch "$gl"
cp scripts/torch_decode.py scripts/torch_common.py examples/decoder/torch_decoder.py "$gl/"
GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/decoder" ./examples/decoder
h200_steps_head "$gl"
cat >>"$gl/steps.sh" <<'STEPS'
cd kernels
T=$gl/kernels.test
# the short checks first, so that a slow one below cannot leave them unrun
timeout 20 "$T" -test.run 'TestDecodeAttention$|TestTimedProduct|TestCausalAttention|TestGEMVF32' -test.count 1 -test.v >"$OUT/tests.txt" 2>&1
echo "tests: rc $?"
KC_DECODE_ROUTES='/default$' timeout "${TT:-40}" "$T" -test.run 'TestHalfAttention|TestDecodeRoutes' -test.count 1 -test.v >>"$OUT/tests.txt" 2>&1
echo "route tests: rc $?"
# PyTorch with CUDA: asked once (importing torch takes seconds of the call)
torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && torch=1
if [ $torch = 1 ]; then
	timeout 30 python3 "$gl/torch_baselines.py" copy decode norms >"$OUT/torch.txt" 2>&1
	timeout 15 python3 "$gl/torch_decode.py" f16 >>"$OUT/torch.txt" 2>&1
fi
KC_DEVICE=vulkan timeout "${DT:-30}" "$T" -test.run '^$' -test.bench 'Decode/^(bt|b)$/^m(1|4|8|16)$/^x(f32|f16)$/^default_(gemv|gemvt|skinny|coop)$' -test.benchtime 10x -gpu >"$OUT/decode.txt" 2>&1
echo "decode: rc $?"
# x·Wᵀ over f32 weights: coopmat's product (the default) against gemv4f
# (not yet a default: this is the figure that decides)
KC_DEVICE=vulkan timeout "${FT:-25}" "$T" -test.run '^$' -test.bench 'Decode/^btf32$' -test.benchtime 10x -gpu >>"$OUT/decode.txt" 2>&1
echo "decode f32 weights: rc $?"
# the example decoder's products (2048-wide, MLP 5632, head 32000), f16
# against f32 weights: the f16 decoder ran slower than the f32 one
KC_DEVICE=vulkan timeout "${ST:-25}" "$T" -test.run '^$' -test.bench 'Decode/^dec$' -test.benchtime 10x -gpu >>"$OUT/decode.txt" 2>&1
echo "decoder shapes: rc $?"
KC_DEVICE=vulkan timeout "${OT:-30}" "$T" -test.run '^$' -test.bench 'Ops/^(copy|copycmd|add|addbias|silu|softmax|layernorm|rmsnorm|decodeattention|decodeattention16)$/^(256MiB|d4096|d32768|s32768)$' -test.benchtime 30x -gpu >"$OUT/ops.txt" 2>&1
echo "ops: rc $?"
# the example decoder, kc and PyTorch eager on the same weights (as
# scripts/h200-half.sh runs it)
cd ..
M="-vocab 32000 -dim 2048 -layers 8 -heads 16 -kv-heads 4 -head-dim 128 -ffn 5632 -context 512 -tokens 64"
for d in ${DEC:-f16 f32}; do
	KC_DEVICE=vulkan timeout 30 "$gl/decoder" -dtype $d $M >"$OUT/dec_kc_$d.txt" 2>&1
	# and with one submit a scope (no early submits)
	KC_SCOPE_FLUSH=0 KC_DEVICE=vulkan timeout 30 "$gl/decoder" -dtype $d $M >"$OUT/dec_kc1_$d.txt" 2>&1
	if [ $torch = 1 ]; then
		timeout 25 python3 "$gl/torch_decoder.py" -dtype $d $M >"$OUT/dec_torch_$d.txt" 2>&1
	fi
	# where a decode step's time goes: each kernel's GPU time a step
	KC_DEVICE=vulkan timeout 30 "$gl/decoder" -dtype $d $M -tokens 16 -profile >"$OUT/prof_$d.txt" 2>&1
done
[ -n "${smi:-}" ] && kill "$smi"
grep -E '^(--- FAIL|FAIL|ok|PASS)' "$OUT/tests.txt" | tail -5
grep -E 'out of bounds|Error' "$OUT/tests.txt" | head -5
grep RESULT "$OUT/torch.txt" 2>/dev/null
awk -F', ' '{print $2}' "$OUT/smi.csv" 2>/dev/null | sort | uniq -c | sort -rn | head -3
for f in "$OUT"/dec_*.txt; do echo "$(basename "$f"): $(grep -hE 'tokens/s|^a decode step' "$f")"; done 2>/dev/null
for f in "$OUT"/prof_*.txt; do echo "$(basename "$f"):"; grep -A12 '^GPU time' "$f"; done 2>/dev/null
grep -hE '^Benchmark' "$OUT/decode.txt" "$OUT/ops.txt" | sed 's/^Benchmark//; s/-[0-9]* / /' | awk '{g=""; w=""; for(i=1;i<NF;i++){if($(i+1)=="GB/s")w=$i; if($(i+1)=="gpuGB/s")g=$i}; print $1, w, g}'
STEPS
h200_steps_call "$dir" 190
