#!/usr/bin/env bash
# Runs kc's whole test suite. Installs what the tests need when it is missing
# (Debian packages: the Vulkan loader, lavapipe, SPIRV-Tools, glslang, Node,
# Chromium for the browser tests, PyTorch for examples/decoder's check against
# the same model in PyTorch; npm: Dawn's `webgpu` binding that carries Tint),
# then runs `go test ./...`.
# Extra arguments go to `go test` (for example -run, -v or -update).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v spirv-val >/dev/null 2>&1 || need+=(spirv-tools)
command -v glslangValidator >/dev/null 2>&1 || need+=(glslang-tools)
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || need+=(mesa-vulkan-drivers)
/sbin/ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 ' || need+=(libvulkan1)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# The browser tests (internal/browser) take the first of these on PATH.
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
	command -v google-chrome-stable >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 || need+=(chromium)
# examples/decoder's TestMatchesPyTorch (PATH's python3, else Debian's).
python3 -c 'import torch' >/dev/null 2>&1 || /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || need+=(python3-torch)
if ((${#need[@]})); then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "scripts/test.sh: installing ${need[*]}" >&2
	$sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi

if [ -f tools/tint/package.json ] && [ ! -d tools/tint/node_modules ]; then
	echo "scripts/test.sh: installing tools/tint (npm)" >&2
	(cd tools/tint && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

# Mesa wants a private runtime directory; without one it prints warnings.
XDG_RUNTIME_DIR=$(mktemp -d)
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR
trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT

go test "$@" ./...
