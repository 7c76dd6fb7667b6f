# Shared steps of the scripts/h200-*.sh builders; sourced from the
# repository root after `set -euo pipefail`.

# h200_gl ROOT GL: makes the folder GL (under ROOT/.gl, the one folder a
# call carries) and copies the Vulkan loader .debs of ROOT/.gl into it.
h200_gl() {
	if ! ls "$1"/.gl/libvulkan1_*.deb >/dev/null 2>&1; then
		echo "no loader .debs in $1/.gl: fetch them first (../shared/DEVICE.md, step 1)" >&2
		exit 1
	fi
	mkdir -p "$2"
	cp "$1"/.gl/*.deb "$2/"
}

# h200_torch GL: copies PyTorch's baseline script (the shared checkout's,
# ../shared/baselines or /work/shared/baselines) into GL.
h200_torch() {
	local base=../shared/baselines/torch_baselines.py
	[ -f "$base" ] || base=/work/shared/baselines/torch_baselines.py
	cp "$base" "$1/torch_baselines.py"
}

# h200_coopmat GL KC: builds coopmat's test binary and kc (named KC) for
# linux/amd64 into GL.
h200_coopmat() {
	GOOS=linux GOARCH=amd64 go test -ldflags=-s -c -o "$1/coopmat.test" ./coopmat
	GOOS=linux GOARCH=amd64 go build -ldflags=-s -o "$1/$2" ./cmd/kc
}

# h200_kernels GL: builds the kernel library's test binary (kernels.test)
# for linux/amd64 into GL.
h200_kernels() {
	GOOS=linux GOARCH=amd64 go test -c -ldflags=-s -o "$1/kernels.test" ./kernels
}

# h200_steps_head GL: starts GL/steps.sh (the call's steps, run from the
# repository root with OUT set) with what the steps files share: their
# folder as $gl, and the SM clock sampled every 250 ms into
# $OUT/smi.csv while they run (its process $smi, for them to kill).
# Builders append their steps with `cat >>"$gl/steps.sh"`.
h200_steps_head() {
	cat >"$1/steps.sh" <<'HEAD'
set -u
gl=$(cd "$(dirname "$0")" && pwd)
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 250 >"$OUT/smi.csv" 2>&1 &
	smi=$!
fi
HEAD
}

# h200_steps_call DIR SECONDS: prints the device call that runs
# .gl/DIR/steps.sh (the Vulkan loader unpacked, NVIDIA's ICD, a private
# runtime directory) within SECONDS.
h200_steps_call() {
	sed "s|@DIR@|$1|g; s|@S@|$2|" <<'CMD'
run carry=[".gl/@DIR@"] timeout_s=@S@ command:
for f in .gl/@DIR@/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p -m 700 /tmp/xdg; bash .gl/@DIR@/steps.sh
CMD
}
