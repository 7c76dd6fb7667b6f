#!/usr/bin/env bash
# Measures the wgpu driver's CPU cost per recorded dispatch and per submit
# (docs/PERF.md, "Backend (wgpu)").
#
#   scripts/h200-backend.sh build   here: builds bin/h200/backend-wgpu.test
#   scripts/h200-backend.sh run     on the device machine: lists the adapters,
#                                   runs the benchmarks, prints a table
#
# The lead runs it on the H200 with the device tool:
#   scripts/h200-backend.sh build
#   run(command="bash scripts/h200-backend.sh run", carry=["bin/h200/backend-wgpu.test"])
# KC_DEVICE selects the adapter (default: the best wgpu Vulkan adapter, the
# discrete GPU when there is one). BENCHTIME overrides -test.benchtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/h200/backend-wgpu.test

case "${1:-}" in
build)
	mkdir -p bin/h200
	go test -c -o "$bin" ./backend/wgpu
	ls -l "$bin"
	;;
run)
	[ -x "$bin" ] || { echo "no $bin: run '$0 build' first and carry it" >&2; exit 2; }
	XDG_RUNTIME_DIR=$(mktemp -d)
	chmod 700 "$XDG_RUNTIME_DIR"
	export XDG_RUNTIME_DIR
	trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
	"$bin" -test.run 'TestListAdapters' -test.v 2>&1 | grep -v '^=== RUN' || true
	"$bin" -test.run 'TestContract' -test.v 2>&1 | grep -E '^(--- |ok|FAIL|PASS)|saxpy' || true
	out=$("$bin" -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-20000x}" -test.count 3 2>&1)
	echo "$out" | grep -E '^(goos|goarch|cpu|Benchmark)' || echo "$out"
	echo
	echo "| benchmark | runs | ns/op | metric |"
	echo "|---|---|---|---|"
	echo "$out" | awk '/^Benchmark/ { m=""; for (i = 5; i < NF; i += 2) m = m $i " " $(i+1) "; "; printf "| %s | %s | %s | %s |\n", $1, $2, $3, m }'
	;;
*)
	echo "usage: $0 build|run" >&2
	exit 2
	;;
esac
