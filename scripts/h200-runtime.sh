#!/usr/bin/env bash
# scripts/h200-runtime.sh [GLDIR] builds the runtime measurements of issue 15
# (graphs, dispatch latency, transfers, sub-allocation) into GLDIR (default
# .gl of this checkout; the device tool sends the lead's checkout, so a
# helper working in a worktree passes /work/main/.gl) and prints the device
# `run` call. Files it writes are named rt-*; the Vulkan loader .debs are
# fetched once (DEVICE.md step 1).
#
# On the device, .gl/rt-run.sh, in one call:
#   1. the Vulkan driver's whole test binary (sub-allocation, barrier
#      placement, graphs, mapped buffers, the corpus) on the H200;
#   2. the runtime benchmarks: graph replay (dependent and independent
#      1,000-dispatch chains, one dispatch), eager chain, recording cost,
#      GPU time per dependent dispatch, alloc/free, transfers 1 MiB-1 GiB
#      (Go memory and mapped buffers), zero-copy kernel reads;
#   3. PyTorch in the same call: CUDA graph and eager chain, pinned copies
#      (torch_baselines.py chain transfer) and the caching allocator;
# logs under $OUT, a short table last.
#   scripts/h200-runtime.sh perf DIR   prints the docs/PERF.md table from
#                                      the files a run brought back
set -euo pipefail

if [ "${1:-}" = perf ]; then
	dir=${2:?usage: scripts/h200-runtime.sh perf DIR}
	grep -h -E '^(Benchmark|RESULT|torch )' "$dir"/rt-bench*.txt "$dir"/rt-torch.txt
	exit 0
fi

cd "$(dirname "$0")/.."
gl=${1:-.gl}
mkdir -p "$gl/bin"

if ! ls "$gl"/libvulkan1_*.deb >/dev/null 2>&1; then
	mkdir -p /tmp/amd64/partial
	o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
	apt-get $o update >/dev/null
	(cd "$gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
fi

export CGO_ENABLED=1
go test -c -ldflags='-s -w' -o "$gl/rt-vulkan.test" ./backend/vulkan
go test -c -ldflags='-s -w' -o "$gl/rt-wgpu.test" ./backend/wgpu
for t in glslangValidator spirv-val; do
	if p=$(command -v $t); then cp "$p" "$gl/bin/"; fi
done
cp /work/shared/baselines/torch_baselines.py "$gl/torch_baselines.py" 2>/dev/null || true

# PyTorch's caching allocator, the same pattern as BenchmarkAllocFree:
# 4,096-20,224-byte tensors, 1,000 live at a time.
cat >"$gl/rt-torch_alloc.py" <<'PY'
import time, torch
sizes = [4096 + 256 * (i % 64) for i in range(1000)]
def round_():
    live = [torch.empty(s, dtype=torch.uint8, device="cuda") for s in sizes]
    del live
for _ in range(20): round_()
torch.cuda.synchronize()
reps = 200
t0 = time.perf_counter()
for _ in range(reps): round_()
torch.cuda.synchronize()
el = time.perf_counter() - t0
print(f"RESULT name=alloc_free allocs={reps*1000} ns_per_alloc_free={el/(reps*1000)*1e9:.1f}")
PY

# PyTorch's pinned copies timed as kc's are: wall time of copy_ and a
# synchronize (torch_baselines.py times the GPU alone with CUDA events).
cat >"$gl/rt-torch_wall.py" <<'PY'
import statistics, time, torch
for mib in (1, 64, 1024):
    n = mib << 20
    h = torch.empty(n, dtype=torch.uint8, pin_memory=True); d = torch.empty(n, dtype=torch.uint8, device="cuda")
    def wall(fn):
        torch.cuda.synchronize(); t0 = time.perf_counter(); fn(); torch.cuda.synchronize(); return time.perf_counter() - t0
    for _ in range(3): wall(lambda: d.copy_(h, non_blocking=True)); wall(lambda: h.copy_(d, non_blocking=True))
    up = statistics.median(wall(lambda: d.copy_(h, non_blocking=True)) for _ in range(20))
    down = statistics.median(wall(lambda: h.copy_(d, non_blocking=True)) for _ in range(20))
    print(f"RESULT name=transfer_pinned_wall MiB={mib} upload_GBps={n/up/1e9:.4g} readback_GBps={n/down/1e9:.4g}")
PY

cat >"$gl/rt-run.sh" <<'SH'
#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PATH="$PWD/.gl/bin:$PATH" XDG_RUNTIME_DIR=$(mktemp -d)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T=.gl/rt-vulkan.test
nvidia-smi -L
$T -test.v -test.count=1 -test.timeout=4m -test.skip 'TestCoopMat/khr' >"$OUT/rt-test.txt" 2>&1
trc=$?
{
$T -test.run '^$' -test.bench 'Graph$|EagerIndependent|Chain1000' -test.benchtime 300x -test.count 2
echo "--- KC_VULKAN_BARRIER=buffer"
KC_VULKAN_BARRIER=buffer $T -test.run '^$' -test.bench 'Graph$|Chain1000' -test.benchtime 300x
$T -test.run '^$' -test.bench 'RecordDispatch' -test.benchtime 5000x
$T -test.run '^$' -test.bench 'RecordGraph' -test.benchtime 300x -test.cpuprofile "$OUT/rt-record.prof"
$T -test.run '^$' -test.bench 'DispatchGPU' -test.benchtime 5x
$T -test.run '^$' -test.bench 'AllocFree' -test.benchtime 200000x
KC_BENCH_SIZES=1M,16M,64M,256M,1G $T -test.run '^$' -test.bench 'Transfer|ZeroCopy' -test.benchtime 10x
echo "--- wgpu driver"
.gl/rt-wgpu.test -test.run '^$' -test.bench 'Graph' -test.benchtime 100x -test.count 2
} >"$OUT/rt-bench.txt" 2>&1
.gl/rt-wgpu.test -test.v -test.count=1 -test.run 'TestGraphReplay|TestFromDevice|TestNoMapped|TestSaxpy' >"$OUT/rt-wgpu-test.txt" 2>&1
echo "=== wgpu tests rc=$?: $(grep -c -- '--- PASS' "$OUT/rt-wgpu-test.txt") pass, $(grep -c -- '--- FAIL' "$OUT/rt-wgpu-test.txt") fail"
PYTHONUNBUFFERED=1 python3 .gl/torch_baselines.py chain transfer >"$OUT/rt-torch.txt" 2>&1
PYTHONUNBUFFERED=1 python3 .gl/rt-torch_alloc.py >>"$OUT/rt-torch.txt" 2>&1
PYTHONUNBUFFERED=1 python3 .gl/rt-torch_wall.py >>"$OUT/rt-torch.txt" 2>&1
echo "=== tests rc=$trc: $(grep -c -- '--- PASS' "$OUT/rt-test.txt") pass, $(grep -c -- '--- FAIL' "$OUT/rt-test.txt") fail, $(grep -c -- '--- SKIP' "$OUT/rt-test.txt") skip"
grep -E -- '--- FAIL|panic|FAIL' "$OUT/rt-test.txt" | head -20
grep -E 'mapped_test|alloc_test.go' "$OUT/rt-test.txt" | head -20
echo "=== kc"
grep -E '^(Benchmark|FAIL|---)|rror' "$OUT/rt-bench.txt"
echo "=== torch"
cat "$OUT/rt-torch.txt"
SH
chmod +x "$gl/rt-run.sh"
du -sh "$gl"
cat <<MSG

Built $gl. From the checkout that holds $gl, with the device tool:

  run(kind="nvidia-h200", carry=[".gl"], timeout_s=600, command="bash .gl/rt-run.sh")

Logs come back from \$OUT: rt-test.txt, rt-bench.txt, rt-torch.txt.
MSG
