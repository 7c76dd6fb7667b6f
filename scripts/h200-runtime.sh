#!/usr/bin/env bash
# scripts/h200-runtime.sh [GLDIR] builds the runtime measurements of issue 15
# (graphs, dispatch latency, transfers, sub-allocation) into GLDIR (default
# .gl of this checkout; the device tool sends the lead's checkout, so a
# helper working in a worktree passes /work/main/.gl) and prints the device
# `run` call. Files it writes are named rt-*; the Vulkan loader .debs are
# fetched once (DEVICE.md step 1).
#
# On the device, GLDIR/rt-run.sh, in one call (about a minute):
#   1. the Vulkan driver's runtime tests (graphs, barriers, driver modes,
#      kept copies, transfers, mapped buffers, sub-allocation, contract);
#   2. BenchmarkLink and BenchmarkSubmit (raw Vulkan: one dependent link
#      under each barrier/binding/workgroup form on the universal and a
#      compute-only queue family; submit and copy costs per queue family);
#   3. kc's graph replay, eager chain and recording cost under each driver
#      mode (KC_VULKAN_BATCH=off, KC_VULKAN_BARRIER=sync2,
#      KC_VULKAN_QUEUE=universal, KC_VULKAN_POOLS=shared), a CPU profile
#      of Record alone (BenchmarkRecordGraph); transfers 1 MiB-
#      1 GiB (eager and recorded copies, kept copies off); the wgpu graph;
#   4. PyTorch in the same call (right after the tests): CUDA graph and eager chain, pinned copies
#      (torch_baselines.py chain transfer, rt-torch_wall.py);
# logs under $OUT, a short table last. (Before 2026-12-01 ~17:00 UTC it
# also ran the whole test binary, alloc/free and zero-copy benchmarks;
# alloc_test.go and BenchmarkZeroCopyRead still do, run by hand.)
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
# Runs from the checkout root on the device; G is this script's folder.
set -u
G=$(dirname "$0")
for f in "$G"/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json PYTHONUNBUFFERED=1
export PATH="$PWD/$G/bin:$PATH" XDG_RUNTIME_DIR=$(mktemp -d)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T=$G/rt-vulkan.test
nvidia-smi -L
# The driver's runtime tests (graphs, barriers, driver modes, kept copies,
# transfers, mapped buffers, sub-allocation, the backend contract).
timeout 40 $T -test.v -test.count=1 -test.run 'Graph|DriverModes|KeptCopies|Independent|BufferBarrier|Hazard|Repeated|Transfer|Mapped|TenThousand|Contract|Multi|Shared|Batch|Cmd' >"$OUT/rt-test.txt" 2>&1
trc=$?
python3 $G/torch_baselines.py chain transfer >"$OUT/rt-torch.txt" 2>&1
python3 $G/rt-torch_wall.py >>"$OUT/rt-torch.txt" 2>&1
{
# One link of a dependent chain under each recording form, raw Vulkan,
# on the universal and a compute-only queue family; submit costs.
$T -test.run '^$' -test.bench 'Link|Submit' -test.benchtime 20x
# kc's driver: graph replay, eager chain, recording, under each mode
# (KC_VULKAN_BATCH=off: one cgo call per recorded command, as before
# batching). The CPU profile covers RecordGraph alone: the replay and
# chain benchmarks poll fences (vkGetFenceStatus through kc_call2), and the
# profile of 2026-12-01 17:29, taken over all three, was mostly that polling
# and vkCreateDevice (docs/PERF.md, "Batched command recording").
for m in default KC_VULKAN_BATCH=off KC_VULKAN_BARRIER=sync2 KC_VULKAN_QUEUE=universal KC_VULKAN_POOLS=shared; do
	echo "--- mode $m"
	prof=; [ $m = default ] && prof=-test.cpuprofile=$OUT/rt-record.prof
	env $( [ $m = default ] || echo $m ) $T -test.run '^$' -test.bench '^BenchmarkGraph$|Chain1000' -test.benchtime 200x
	env $( [ $m = default ] || echo $m ) $T -test.run '^$' -test.bench 'RecordGraph' -test.benchtime 200x $prof
	env $( [ $m = default ] || echo $m ) $T -test.run '^$' -test.bench 'RecordDispatch' -test.benchtime 5000x
done
echo "--- transfers"
KC_BENCH_SIZES=1M,64M,1G $T -test.run '^$' -test.bench 'Transfer/(from|to)-host' -test.benchtime 20x
for m in KC_VULKAN_COPYCACHE=off "KC_VULKAN_COPYCACHE=off KC_VULKAN_POOLS=shared" KC_VULKAN_QUEUE=universal; do
	echo "--- transfers, $m"
	env $m KC_BENCH_SIZES=1M $T -test.run '^$' -test.bench 'Transfer/(from|to)-host-1M' -test.benchtime 50x
done
echo "--- wgpu driver"
$G/rt-wgpu.test -test.run '^$' -test.bench 'Graph' -test.benchtime 50x
} >"$OUT/rt-bench.txt" 2>&1
echo "=== tests rc=$trc: $(grep -c -- '--- PASS' "$OUT/rt-test.txt") pass, $(grep -c -- '--- FAIL' "$OUT/rt-test.txt") fail, $(grep -c -- '--- SKIP' "$OUT/rt-test.txt") skip"
grep -E -- '--- FAIL|panic' "$OUT/rt-test.txt" | head -20
echo "=== kc"
grep -E '^(Benchmark|FAIL|---)|rror' "$OUT/rt-bench.txt" | sed -E 's/ +/ /g; s/-16 / /'
echo "=== torch"
cat "$OUT/rt-torch.txt"
SH
chmod +x "$gl/rt-run.sh"
du -sh "$gl"
cat <<MSG

Built $gl. From the checkout that holds $gl, with the device tool (GLDIR
relative to that checkout, e.g. .gl/rt):

  run(kind="nvidia-h200", carry=["GLDIR"], timeout_s=300, command="bash GLDIR/rt-run.sh")

Logs come back from \$OUT: rt-test.txt, rt-bench.txt, rt-torch.txt.
MSG
