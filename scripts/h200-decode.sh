#!/usr/bin/env bash
# Builds the decode-product measurement (issue 14: 1 to 16 rows times
# 4096x4096 f16 weights; kernels.test's TestDecodeRoutes and
# BenchmarkDecode) for linux/amd64 into ROOT/.gl/decmm with the Vulkan
# loader .debs and PyTorch's baseline (scripts/torch_decode.py), and prints
# the device tool's `run` command that, in one call: checks every route
# (gemv.kc, gemvsg.kc, gemvt.kc, every layout of coopmat's skinny
# tensor-core kernel, coopmat's tiled kernels, the default) against
# float64 on the H200, f16 weights (KC_DECODE_TYPES) at 1, 4, 8, 16 rows and
# ragged sizes; then PyTorch's copy, F.linear and x @ W; then kc's GB/s over
# the weights for every route (docs/PERF.md, "Decode products").
#
# Usage: scripts/h200-decode.sh [ROOT [validate|unroll|prefetch|staged|stagedab [DIR]]]
# (ROOT: the checkout the device tool sends, e.g. /work/main; DIR, or
# GL=DIR, the folder under ROOT/.gl, decmm unless given). With "validate"
# the call checks the default routes and the skinny kernel's packed
# layouts at 16 rows (f16; 4096x4096 and two ragged sizes), then times
# them beside PyTorch's f16 baselines. With "unroll" it checks the default
# routes and gemv.kc's and gemvsg.kc's unrolled shapes (labels ending _u1
# ... _u8: U strides of k a step) at 1, 4 and 8 x 4096x4096 and four
# ragged sizes, then PyTorch's f16 baselines, then times x·Wᵀ at 1, 4 and
# 8 rows through those routes and the default in two passes. With
# "prefetch" it does the same for the skinny kernel's prefetch layouts
# (_pf) beside its plain 4x4x512 and 8x1x512 without split-k and the
# defaults, at 8 and 16 rows, both forms. With "staged" it checks the
# skinny kernel's staged layouts 4x1x512, 8x1x512 and 4x1x256 (_sb, x·Wᵀ
# only) and the default routes at 1, 3, 4, 8 and 16 rows (4096x4096,
# 3x1000x1001 and 16x1000x1001), then PyTorch's f16 baselines, then times
# x·Wᵀ at 1, 4, 8 and 16 rows through them, the prefetch form's 8x1x512
# whole pf4 and the defaults in two passes. With "stagedab" it checks the
# skinny kernel's staged layouts for x·W (4x1x512, 8x1x512, 4x1x256,
# 8x1x256, _sb; x·Wᵀ's of those names too) and the default routes at 4, 8
# and 16 rows (4096x4096, and 16x1000x1032: k and n ragged, rows 16-byte
# aligned), then PyTorch's f16 baselines, then times x·W at 4, 8 and 16
# rows through them and the default (8x1x512 whole pf4) in two passes,
# the whole call within 45 s. Only .gl/DIR is carried; delete it after
# the call.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
name=${GL:-${3:-decmm}}
gl=$root/.gl/$name
h200_gl "$root" "$gl"
h200_kernels "$gl"
cp scripts/torch_decode.py scripts/torch_common.py "$gl/"
env="KC_DECODE_TYPES=f16"
bench="timeout 55 \$G/kernels.test -test.run '^\$' -test.bench 'Decode' -test.benchtime 20x > \$OUT/kc.txt 2>&1"
torch="timeout 20 python3 \$G/torch_decode.py"
tt=45
# the table printed last: each benchmark's GB/s (with unroll, of both passes)
sum="grep -E '^Benchmark' \$OUT/kc.txt | awk '{print \$1, \$5}' | sed 's/BenchmarkDecode.//; s/-16 / /'"
if [ "${2:-}" = validate ]; then
	# The default routes, and the skinny kernel's packed layouts at 16
	# rows beside the unpacked default layout: checked, then timed.
	env="KC_DECODE_TYPES=f16 KC_DECODE_SHAPES=big KC_DECODE_ROUTES='/default\$|^m16/.*_pk\$|^m16/skinny_4x4x512\$'"
	bench="timeout 6 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/.*/.*/.*/^default_(gemv|gemvt|skinny|coop)\$' -test.benchtime 10x > \$OUT/kc.txt 2>&1; timeout 5 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/.*/m16/.*/(_pk\$|^skinny_4x4x512\$)' -test.benchtime 10x >> \$OUT/kc.txt 2>&1"
	torch="timeout 8 python3 \$G/torch_decode.py f16"
	tt=15
fi
if [ "${2:-}" = unroll ]; then
	env="KC_DECODE_TYPES=f16 KC_DECODE_SHAPES=tails KC_DECODE_ROUTES='^m[1-8]/(default|.*_u[0-9]+)\$'"
	pass="timeout 35 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/^bt\$/^m(1|4|8)\$/.*/^(default_gemv|.*_u[0-9]+)\$' -test.benchtime 10x"
	torch="timeout 12 python3 \$G/torch_decode.py f16"
	tt=50
fi
if [ "${2:-}" = prefetch ]; then
	env="KC_DECODE_TYPES=f16 KC_DECODE_SHAPES=big KC_DECODE_ROUTES='^m(8|16)/(skinny_.*_pf[0-9]+|skinny_4x4x512|skinny_8x1x512_whole)\$'"
	bench="timeout 70 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/.*/m(8|16)/.*/^(skinny_.*_pf[0-9]+|skinny_4x4x512|skinny_8x1x512_whole|default_(gemv|gemvt|skinny|coop))\$' -test.benchtime 10x > \$OUT/kc.txt 2>&1"
	torch="timeout 15 python3 \$G/torch_decode.py f16"
	tt=45
fi
if [ "${2:-}" = staged ]; then
	sb="skinny_(4x1x512|8x1x512|4x1x256)_whole_sb"
	env="KC_DECODE_TYPES=f16 KC_DECODE_SHAPES=big KC_DECODE_ROUTES='^m(1|3|4|8|16)/($sb|default)\$'"
	pass="timeout 25 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/^bt\$/^m(1|4|8|16)\$/.*/^($sb|skinny_8x1x512_whole_pf4|default_(gemv|skinny))\$' -test.benchtime 10x"
	torch="timeout 12 python3 \$G/torch_decode.py f16"
	tt=25
fi
if [ "${2:-}" = stagedab ]; then
	sb="skinny_(4x1x512|8x1x512|4x1x256|8x1x256)_whole_sb"
	env="KC_DECODE_TYPES=f16 KC_DECODE_SHAPES=aligned KC_DECODE_ROUTES='^m(4|8|16)/($sb|default)\$'"
	pass="timeout 8 \$G/kernels.test -test.run '^\$' -test.bench 'Decode/^b\$/^m(4|8|16)\$/.*/^($sb|skinny_8x1x512_whole_pf4|default_(skinny|gemvt|coop))\$' -test.benchtime 10x"
	torch="timeout 10 python3 \$G/torch_decode.py f16"
	tt=14
fi
# the modes that set pass time it twice, and the table gives both passes
if [ -n "${pass:-}" ]; then
	bench="$pass > \$OUT/kc.txt 2>&1; $pass > \$OUT/kc2.txt 2>&1"
	sum="awk 'FNR==NR&&/^Bench/{a[\$1]=\$5;next} /^Bench/{print \$1,a[\$1],\$5}' \$OUT/kc.txt \$OUT/kc2.txt | sed 's/BenchmarkDecode.//; s/-16 / /'"
fi
cat <<CMD
run carry=[".gl/$name"] command:
for f in .gl/$name/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; G=\$PWD/.gl/$name; cd kernels; $env timeout $tt \$G/kernels.test -test.run 'TestDecodeRoutes' -test.v > \$OUT/tests.txt 2>&1; echo "tests rc=\$?" >> \$OUT/tests.txt; $torch > \$OUT/torch.txt 2>&1; $bench; echo "bench rc=\$?" >> \$OUT/kc.txt; grep -E '^(--- FAIL|FAIL|ok|PASS)|rc=' \$OUT/tests.txt | head; grep -E 'out of bounds|Error' \$OUT/tests.txt | head -5; grep RESULT \$OUT/torch.txt; $sum; grep rc= \$OUT/kc.txt
CMD
