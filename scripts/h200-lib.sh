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
