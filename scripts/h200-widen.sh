#!/usr/bin/env bash
# Builds one device call settling what widening f16 costs (docs/PERF.md,
# "Widening f16 on the H200"): bench/convbench (each way of turning
# 16-byte words into numbers, streaming 256 MiB, with every widening of
# all 65,536 halves checked on the device first) and the kernel library's
# test binary, gzipped, into ROOT/.gl/DIR with the Vulkan loader .debs,
# PyTorch's baseline script and the call's steps (steps.sh, below), and
# prints the device tool's `run` command. Steps, each with its timeout
# (110 s in all): PyTorch's copy; convbench; the device checks of the
# integer-widening configurations (TestDecodeSweep with
# KC_DECODE_SWEEP=widen, TestDecodeRoutes' _w1 routes at 4096x4096 and two
# ragged sizes); BenchmarkOps -sweep -widen (the 16-bit decode defaults
# of decodesg.kc and decode4h.kc with each widening, two interleaved
# passes); BenchmarkDecode at 1, 4 and 8 rows (the gemv routes with each
# widening, two passes by -test.count 2).
#
# Usage: scripts/h200-widen.sh [ROOT [DIR]]   (ROOT: default this checkout;
# give the checkout the device tool sends, e.g. /work/main. DIR: default
# widen.) `bash ROOT/.gl/DIR/steps.sh` with OUT set runs the same steps
# here (lavapipe, smaller; PyTorch skipped without CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
dir=${2:-widen}
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_torch "$gl"
GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$gl/kernels.test" ./kernels
GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$gl/convbench" ./bench/convbench
gzip -f "$gl/kernels.test" "$gl/convbench"
cat >"$gl/steps.sh" <<'STEPS'
# one widening call; run from the repository root with OUT set
set -u
gl=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)
gunzip -c "$gl/kernels.test.gz" >"$bin/kernels.test" && gunzip -c "$gl/convbench.gz" >"$bin/convbench" && chmod +x "$bin"/*
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	timeout 20 python3 "$gl/torch_baselines.py" copy >"$OUT/torch.txt" 2>&1
fi
KC_DEVICE=vulkan timeout "${CT:-20}" "$bin/convbench" ${CONV:-} >"$OUT/conv.txt" 2>&1
echo "convbench: rc $?"
cd kernels
KC_DECODE_SWEEP=widen KC_DECODE_ROUTES=_w1 KC_DECODE_SHAPES=big KC_DECODE_TYPES=f16 timeout "${TT:-15}" "$bin/kernels.test" -test.run 'TestDecodeSweep|TestDecodeRoutes' -test.count 1 -test.v >"$OUT/tests.txt" 2>&1
echo "tests: rc $?"
KC_DEVICE=vulkan timeout "${BT:-28}" "$bin/kernels.test" -test.run '^$' -test.bench 'Ops/(copy|decodeattention16)' -test.benchtime "${N:-30x}" -sweep -widen >"$OUT/ops.txt" 2>&1
echo "ops: rc $?"
KC_DEVICE=vulkan timeout "${DT:-22}" "$bin/kernels.test" -test.run '^$' -test.bench 'Decode/^bt$/^m[148]$/./(^default|_w1$|^gemv$|^gemv_t64_r1$|^gemvsg_t128_r4$|^gemvsg$)' -test.benchtime "${DN:-10x}" -test.count 2 >"$OUT/decode.txt" 2>&1
echo "decode: rc $?"
grep RESULT "$OUT/torch.txt" 2>/dev/null
grep -E 'RESULT|FAIL|device' "$OUT/conv.txt"
grep -E '^(--- FAIL|FAIL|ok|PASS)|--- PASS' "$OUT/tests.txt" | tail -5
grep -hE 'GB/s|FAIL|rror' "$OUT/ops.txt" | sed 's/BenchmarkOps\///' | awk '{g=""; for(i=1;i<NF;i++) if($(i+1)=="gpuGB/s") g=$i; for(i=1;i<NF;i++) if($(i+1)=="GB/s") w=$i; print $1, w, g}'
grep -hE 'GB/s|FAIL|rror' "$OUT/decode.txt" | sed 's/BenchmarkDecode\///' | awk '{for(i=1;i<NF;i++) if($(i+1)=="GB/s") w=$i; print $1, w}'
STEPS
h200_steps_call "$dir" 118
