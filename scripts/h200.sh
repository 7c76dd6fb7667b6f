#!/usr/bin/env bash
# scripts/h200.sh builds what the H200 run needs into .gl/ (git-ignored,
# carried to the device machine) and prints the exact device `run` call.
#
#   scripts/h200.sh           build .gl/ and print the run call
#
# The device command (.gl/h200-run.sh, written here) unpacks the Vulkan
# loader, points it at the NVIDIA ICD, and then, in one call:
#   1. lists every adapter of both drivers (vkbench -devices, kc devices),
#   2. runs the Vulkan driver's whole test binary with KC_REQUIRE_COOPMAT=1
#      (the corpus through emit/spirv and HLSL->glslang, subgroups, f16,
#      the NV cooperative-matrix kernel),
#   3. times the dispatch benchmarks on both drivers (vkbench) and PyTorch's
#      x.add_(1) loop (torch_chain.py) side by side,
# writes every log under $OUT and prints a short table last.
# See /work/shared/DEVICE.md and docs/PERF.md ("## Backend (Vulkan)").
#   scripts/h200.sh perf DIR  print the markdown for docs/PERF.md ("### NVIDIA
#                             H200" under "## Backend (Vulkan)") from the
#                             files the run brought back into DIR
set -euo pipefail

# The runtime measurements (issue 15) live in a script of their own.
if [ "${1:-}" = runtime ]; then
	shift
	exec "$(dirname "$0")/h200-runtime.sh" "$@"
fi

if [ "${1:-}" = perf ]; then
	dir=${2:?usage: scripts/h200.sh perf DIR}
	num() { sed -n "s/.*driver=$1 .*$2=\([0-9.]*\).*/\1/p" "$3" | head -1; }
	t=$(num torch chain_ms "$dir/torch.txt")
	echo "### NVIDIA H200, $(head -1 "$dir/devices.txt")"
	echo
	echo "Chain of 1,000 tiny dependent dispatches (x[i] += 1, 1,024 f32), one scope, one"
	echo "submit, waited for; median of 20 after 3 warm-ups; PyTorch: x.add_(1) x 1,000 eagerly,"
	echo "synchronised ($(sed -n 's/^torch \(.*\)/\1/p' "$dir/torch.txt"))."
	echo
	echo "| driver | record, µs/dispatch | chain of 1,000, ms | vs PyTorch |"
	echo "|---|---:|---:|---:|"
	for d in vulkan wgpu; do
		c=$(num $d chain_ms "$dir/bench.txt")
		r=$(num $d record_us_per_dispatch "$dir/bench.txt")
		[ -n "$c" ] || continue
		ratio=n/a
		[ -n "$t" ] && ratio=$(awk "BEGIN{printf \"%.3f\", $c/$t}")
		echo "| $d | $r | $c | $ratio |"
	done
	[ -n "$t" ] && echo "| PyTorch eager | | $t | 1 |"
	echo
	echo "Test binary (backend/vulkan, KC_REQUIRE_COOPMAT=1): $(grep -c -- '--- PASS' "$dir/vulkan-test.txt") passed,"
	echo "$(grep -c -- '--- FAIL' "$dir/vulkan-test.txt") failed, $(grep -c -- '--- SKIP' "$dir/vulkan-test.txt") skipped."
	echo
	echo "Adapters there (vkbench -devices, kc devices):"
	echo
	echo '```'
	sed 1d "$dir/devices.txt"
	echo '```'
	exit 0
fi

cd "$(dirname "$0")/.."
root=$PWD

gitdir=$(git rev-parse --git-common-dir)
mkdir -p "$gitdir/info" .gl/bin
grep -qx '/.gl/' "$gitdir/info/exclude" 2>/dev/null || echo /.gl/ >>"$gitdir/info/exclude"

# 1. The Vulkan loader as .deb files (once per checkout).
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
	mkdir -p /tmp/amd64/partial
	o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
	apt-get $o update >/dev/null
	(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
fi

# 2. Binaries (stripped to stay under the 64 MiB carry limit).
export CGO_ENABLED=1
go test -c -ldflags='-s -w' -o .gl/vulkan.test ./backend/vulkan
go build -ldflags='-s -w' -o .gl/vkbench ./backend/vulkan/vkbench
go test -c -ldflags='-s -w' -o .gl/backend-wgpu.test ./backend/wgpu
if ! go build -ldflags='-s -w' -o .gl/kc ./cmd/kc 2>/dev/null; then
	echo "h200.sh: cmd/kc does not build now; kc devices is left out (vkbench -devices lists the adapters)" >&2
	rm -f .gl/kc
fi
# Tools the HLSL path of the corpus test calls (statically linked builds).
for t in glslangValidator spirv-val; do
	if p=$(command -v $t); then cp "$p" .gl/bin/; else echo "h200.sh: $t not found; the HLSL path will be skipped there" >&2; fi
done

# 3. The PyTorch baseline: 1,000 tiny in-place kernels launched eagerly.
cat >.gl/torch_chain.py <<'PY'
import time, statistics, torch
n, chain, reps = 1024, 1000, 20
x = torch.zeros(n, device="cuda")
def run():
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(chain):
        x.add_(1)
    torch.cuda.synchronize()
    return time.perf_counter() - t0
for _ in range(3):
    run()
ts = [run() for _ in range(reps)]
assert float(x[0]) == chain * (reps + 3), float(x[0])
print(f"torch {torch.__version__} {torch.cuda.get_device_name()}")
print(f"RESULT driver=torch chain={chain} n={n} reps={reps} chain_ms={statistics.median(ts)*1e3:.4f} per_launch_us={statistics.median(ts)*1e6/chain:.3f}")
PY

# The PyTorch baseline for the f32 matmul: cuBLAS with TF32 off.
cat >.gl/torch_mm.py <<'PY'
import statistics, torch
torch.backends.cuda.matmul.allow_tf32 = False
n = 4096
a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
for _ in range(3):
    a @ b
ts = []
for _ in range(10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); torch.cuda.synchronize()
    ts.append(s.elapsed_time(e))
ms = statistics.median(ts)
print(f"RESULT torch matmul f32 (tf32 off) n={n} median_ms={ms:.4f} tflops={2*n**3/ms/1e9:.2f}")
PY

# 4. The command run on the device.
cat >.gl/h200-run.sh <<'SH'
#!/usr/bin/env bash
# Run on the device machine from the repository root (scripts/h200.sh).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PATH="$PWD/.gl/bin:$PATH" KC_REQUIRE_COOPMAT=1
export XDG_RUNTIME_DIR=$(mktemp -d)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
date -u >"$OUT/devices.txt"
nvidia-smi -L >>"$OUT/devices.txt" 2>&1
.gl/vkbench -devices >>"$OUT/devices.txt" 2>&1
if [ -x .gl/kc ]; then echo "--- kc devices" >>"$OUT/devices.txt"; .gl/kc devices >>"$OUT/devices.txt" 2>&1; fi
# The KHR cooperative-matrix case (a module rewritten from the NV one) runs
# in a process of its own, so that a driver crash there costs nothing else.
.gl/vulkan.test -test.v -test.count=1 -test.timeout=6m -test.skip 'TestCoopMat/khr' >"$OUT/vulkan-test.txt" 2>&1
trc=$?
.gl/vulkan.test -test.v -test.count=1 -test.timeout=2m -test.run 'TestCoopMat/khr' >>"$OUT/vulkan-test.txt" 2>&1
krc=$?
.gl/vkbench -reps 20 >"$OUT/bench.txt" 2>&1
python3 .gl/torch_chain.py >"$OUT/torch.txt" 2>&1
# The wgpu driver on the same GPU: corpus, scope tests and benchmarks.
.gl/backend-wgpu.test -test.v -test.count=1 -test.timeout=4m -test.run 'TestCorpus|TestContract' >"$OUT/wgpu-test.txt" 2>&1
wrc=$?
.gl/backend-wgpu.test -test.run '^$' -test.bench . -test.benchtime 5000x >"$OUT/wgpu-bench.txt" 2>&1
# f32 matmul 4096^3: kc's register-tiled kernel on the Vulkan driver vs cuBLAS.
if [ -x .gl/kc ]; then
	.gl/kc run -device vulkan -n 4096 -p M=4096 -p N=4096 -p K=4096 -len A=16777216 -len B=16777216 -len C=16777216 \
		-groups 64,64 -time 10 testdata/kernels/matmul_tiled.kc >"$OUT/matmul.txt" 2>&1
	# int_bits on the GPU and on the reference interpreter: same checksum expected.
	.gl/kc run -device vulkan -seed 5 testdata/kernels/int_bits.kc >>"$OUT/matmul.txt" 2>&1
	.gl/kc run -interp -subgroup-size 32 -seed 5 testdata/kernels/int_bits.kc >>"$OUT/matmul.txt" 2>&1
fi
python3 .gl/torch_mm.py >>"$OUT/matmul.txt" 2>&1
cat "$OUT/devices.txt"
echo "=== wgpu test rc=$wrc: $(grep -c -- '--- PASS' "$OUT/wgpu-test.txt") pass, $(grep -c -- '--- FAIL' "$OUT/wgpu-test.txt") fail, $(grep -c -- '--- SKIP' "$OUT/wgpu-test.txt") skip"
grep -E -- '--- FAIL' "$OUT/wgpu-test.txt" | head -20
grep -E '^Benchmark' "$OUT/wgpu-bench.txt"
echo "=== matmul"
cat "$OUT/matmul.txt"
glslangValidator --version 2>&1 | head -2
echo "=== vulkan.test rc=$trc (KHR coopmat case rc=$krc): $(grep -c -- '--- PASS' "$OUT/vulkan-test.txt") pass, $(grep -c -- '--- FAIL' "$OUT/vulkan-test.txt") fail, $(grep -c -- '--- SKIP' "$OUT/vulkan-test.txt") skip"
grep -E -- '--- (FAIL|SKIP)|NOT RUN' "$OUT/vulkan-test.txt" | head -40
tail -3 "$OUT/vulkan-test.txt"
echo "=== side by side (chain of 1000 tiny dependent dispatches, n=1024 f32, median of 20)"
cat "$OUT/bench.txt" "$OUT/torch.txt"
t=$(sed -n 's/.*driver=torch .*chain_ms=\([0-9.]*\).*/\1/p' "$OUT/torch.txt")
for d in vulkan wgpu; do
	c=$(sed -n "s/.*driver=$d .*chain_ms=\([0-9.]*\).*/\1/p" "$OUT/bench.txt")
	r=$(sed -n "s/.*driver=$d .*record_us_per_dispatch=\([0-9.]*\).*/\1/p" "$OUT/bench.txt")
	if [ -n "$c" ] && [ -n "$t" ]; then
		echo "$d: record ${r} us/dispatch; chain ${c} ms; torch ${t} ms; ratio $(python3 -c "print(f'{$c/$t:.3f}')")"
	fi
done
SH
chmod +x .gl/h200-run.sh

du -sh .gl
cat <<MSG

Built .gl/ ($(du -sh .gl | cut -f1)). Run on the H200 with the device tool:

  run(kind="nvidia-h200", carry=[".gl"], timeout_s=600,
      command="bash .gl/h200-run.sh")

Its files come back from \$OUT: devices.txt, vulkan-test.txt, bench.txt, torch.txt.
MSG
