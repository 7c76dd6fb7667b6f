#!/usr/bin/env bash
# Builds what the H200 matmul measurement runs (kc and coopmat's test
# binary, for linux/amd64) into a .gl/ directory and prints the device
# tool's `run` command that runs them beside PyTorch's baseline in one call
# (see docs/PERF.md and ../shared/DEVICE.md for the loader .debs in .gl/).
#
# Usage: scripts/h200-matmul.sh [ROOT [coop [DIR]]]   (ROOT defaults to
# this checkout; give the checkout the device tool sends, e.g. /work/main).
# Everything goes into ROOT/.gl/coop (ROOT/.gl/DIR for coop, DIR defaulting
# to coop2), with the loader .debs copied from ROOT/.gl, and only that
# folder is carried, so other work parked in .gl does not count against the
# 64 MiB. Delete that folder (about 30 MB) after the call: a later call that
# carries all of .gl would carry it too.
#
# With "coop" it measures the f16/bf16 kernels instead: coopmat's
# TestCoopDevice (default plans of both SPIR-V flavours against float64 on
# 17x33x65, 1000^3, 4096x4096x1024 and 1x4096x4096; every candidate plan of
# 1000^3 and three skinny products; every candidate timed at 8192^3 f16 and
# bf16, twice), kc bench matmul tuning f16 and bf16 at 512-4096 and
# 4096x4096x{1,16,128}, then PyTorch's copy and matmul in the same call.
# The inner timeouts add up to less than the call's. KC_COOP_FOCUS=REGEXP
# before ./coopmat.test narrows a follow-up to the plans it matches.
#
# With "skinny" it measures the decode-shaped products only (issue 14/13):
# TestCoopDevice focused on the skinny plans (gemv and the skinny
# tensor-core kernel: every candidate of 16x4096x4096 and 5x100x260
# checked against float64; then skinnySweep's GB/s over the weights of
# 16 and 1 rows of 4096x4096, B and Bᵀ, beside each problem's untuned
# default), kc bench tuning 1 and 16 rows, B and Bᵀ (-transb), f16 and
# bf16, then PyTorch's copy and matmul (its 16x4096x4096 skinny line) in
# the same call.
#
# With "stats" it gathers what the driver compiled (issue 13, docs/PERF.md
# "what the compiler made of it"): PyTorch's matmul first, then
# TestCoopDevice with KC_VULKAN_STATS=ir on the plans KC_COOP_FOCUS names
# (FOCUS below; checked against float64 on 1000^3 and 8192^3, their
# statistics printed and internal representations written to $OUT/reps,
# timed at 8192^3 f16 and bf16 twice), kc bench -tune=false of the default
# f16 plan alone into a fresh pipeline cache ($OUT/pc1), and
# scripts/nv-sass.py over the pipeline caches and NVIDIA's shader disk
# cache: cubins, cuobjdump -sass, instruction counts. FOCUS=REGEXP picks
# other plans; SASS=0 leaves out the kc bench and nv-sass.py steps (on
# 2026-12-01 the driver's caches held no readable cubin: docs/PERF.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/h200-lib.sh
root=${1:-.}
# Every mode builds kc (under the name its command calls), coopmat.test and
# PyTorch's baseline into its own folder.
case ${2:-} in
skinny) dir=skinny kc=kc ;;
stats) dir=${3:-coopspeed} kc=kc ;;
coop) dir=${3:-coop2} kc=kc ;;
*) dir=coop kc=kc-coop ;;
esac
gl=$root/.gl/$dir
h200_gl "$root" "$gl"
h200_coopmat "$gl" "$kc"
h200_torch "$gl"
if [ "${2:-}" = skinny ]; then
	sizes=1x4096x4096,16x4096x4096
	cat <<CMD
run carry=[".gl/skinny"] timeout_s=300 command:
for f in .gl/skinny/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/skinny; KC_COOP_FOCUS='gemv|skinny' timeout 90 ./coopmat.test -test.run 'TestCoopDevice' -test.v > \$OUT/coop.log 2>&1; echo "test rc=\$?" >> \$OUT/coop.log; for d in f16 bf16; do for tb in false true; do timeout 20 ./kc bench matmul -device vulkan -dtype \$d -transb=\$tb -sizes $sizes > \$OUT/bench-\$d-\$tb.log 2> \$OUT/tune-\$d-\$tb.log; echo "bench rc=\$?" >> \$OUT/bench-\$d-\$tb.log; done; done; timeout 60 python3 torch_baselines.py copy matmul > \$OUT/torch.log 2>&1; grep -E 'FAIL|rc=|panic' \$OUT/*.log | cut -c1-160; grep 'RESULT skinny' \$OUT/coop.log | sed 's/RESULT skinny //'; cat \$OUT/bench-*.log; grep -E 'copy|skinny' \$OUT/torch.log
CMD
	exit 0
fi
if [ "${2:-}" = stats ]; then
	cp scripts/nv-sass.py "$gl/"
	focus=${FOCUS:-'^coopmat 128x128x(32|64)/4x[48]\+1( mma 16x8x(16|8))?( packed interior( direct)? swizzle 8)?( split-k [0-9]+)?$'}
	sass='KC_VULKAN_CACHE=$OUT/pc1 timeout 20 ./kc bench matmul -device vulkan -dtype f16 -tune=false -sizes 8192x8192x8192 > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/bench.log; timeout 25 python3 nv-sass.py $OUT/sass $OUT/pc1 $OUT/pc $OUT/gl > $OUT/sass.log 2>&1; echo "sass rc=$?" >> $OUT/sass.log; '
	[ "${SASS:-1}" = 0 ] && sass=
	cat <<CMD
run carry=[".gl/$dir"] timeout_s=200 command:
for f in .gl/$dir/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1 __GL_SHADER_DISK_CACHE_PATH=\$OUT/gl __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1; mkdir -p -m 700 /tmp/xdg; mkdir -p \$OUT/reps \$OUT/gl; cd .gl/$dir; timeout 50 python3 torch_baselines.py matmul > \$OUT/torch.log 2>&1; KC_VULKAN_STATS=ir KC_STATS_DIR=\$OUT/reps KC_VULKAN_CACHE=\$OUT/pc KC_COOP_FOCUS='$focus' timeout 100 ./coopmat.test -test.run 'TestCoopDevice\$' -test.v > \$OUT/coop.log 2>&1; echo "test rc=\$?" >> \$OUT/coop.log; ${sass}grep -E 'FAIL|rc=|panic' \$OUT/*.log | cut -c1-200; grep -h 'RESULT stats' \$OUT/coop.log | cut -c1-400 | head -20; grep -h 'RESULT reps' \$OUT/coop.log | head -8; cut -c1-400 \$OUT/sass.log | head -12; grep 'RESULT time' \$OUT/coop.log | sed 's/RESULT time //'; grep -E 'relerr' \$OUT/coop.log | awk '{print \$NF}' | sort -g | tail -1; grep -v '^  \[' \$OUT/bench.log; grep -E 'float16|bfloat16' \$OUT/torch.log
CMD
	exit 0
fi
if [ "${2:-}" = coop ]; then
	sizes=4096x4096x4096,2048x2048x2048,1024x1024x1024,512x512x512,1x4096x4096,16x4096x4096,128x4096x4096
	cat <<CMD
run carry=[".gl/$dir"] timeout_s=300 command:
for f in .gl/$dir/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/$dir; timeout 150 ./coopmat.test -test.run 'TestCoopDevice' -test.v > \$OUT/coop.log 2>&1; echo "test rc=\$?" >> \$OUT/coop.log; for d in f16 bf16; do timeout 40 ./kc bench matmul -device vulkan -dtype \$d -sizes $sizes > \$OUT/bench-\$d.log 2> \$OUT/tune-\$d.log; echo "bench rc=\$?" >> \$OUT/bench-\$d.log; done; timeout 60 python3 torch_baselines.py copy matmul > \$OUT/torch.log 2>&1; grep -E 'FAIL|rc=|panic' \$OUT/*.log | cut -c1-160; grep 'RESULT time' \$OUT/coop.log | sed 's/RESULT time //' | sort -t= -k6 -g | tail -12; cat \$OUT/bench-*.log; grep -E 'copy|float16|bfloat16' \$OUT/torch.log
CMD
	exit 0
fi
sizes=8192x8192x8192,4096x4096x4096,2048x2048x2048,1024x1024x1024,512x512x512,1x4096x4096,16x4096x4096,128x4096x4096
cat <<CMD
run carry=[".gl/coop"] timeout_s=300 command:
for f in .gl/coop/*.deb; do dpkg -x \$f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json KC_TUNE_CACHE=\$OUT/cache XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; cd .gl/coop; (timeout 60 ./coopmat.test -test.run 'TestF32' -test.v > \$OUT/test.log 2>&1; echo "test rc=\$?" >> \$OUT/test.log); timeout 120 ./kc-coop bench matmul -device vulkan -sizes $sizes > \$OUT/bench-vulkan.log 2>&1; timeout 45 ./kc-coop bench matmul -device wgpu -sizes 8192x8192x8192,4096x4096x4096 > \$OUT/bench-wgpu.log 2>&1; timeout 90 python3 torch_baselines.py matmul > \$OUT/torch.log 2>&1; tail -3 \$OUT/test.log; grep -v '^  \[' \$OUT/bench-vulkan.log \$OUT/bench-wgpu.log; grep float32 \$OUT/torch.log
CMD
