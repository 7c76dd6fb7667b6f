#!/usr/bin/env bash
# Fills ROOT/.gl/cudaref (ROOT: the checkout the device tool sends, default
# /work/main) with mm.cu, run.sh and torch_mm.py, plus mm-cuda118, a
# fallback binary, when an nvcc is on PATH here, and prints the device
# tool's `run` command. Delete that folder after the call.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-/work/main}
gl=$root/.gl/cudaref
rm -rf "$gl"
mkdir -p "$gl"
cp "$here/mm.cu" "$here/run.sh" "$here/torch_mm.py" "$gl/"
if command -v nvcc > /dev/null; then
	# Debian's CUDA 11.8 wants an older g++; 12 works for this file.
	nvcc -ccbin "${CXX:-g++}" -allow-unsupported-compiler -O3 -std=c++17 -arch=sm_90 \
		-o "$gl/mm-cuda118" "$here/mm.cu"
fi
cat <<CMD
run carry=[".gl/cudaref"] timeout_s=150 command:
bash .gl/cudaref/run.sh \$OUT
CMD
