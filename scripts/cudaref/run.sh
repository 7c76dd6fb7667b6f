#!/usr/bin/env bash
# Runs on the H200 (device machine), from the folder prep.sh filled: builds
# mm.cu with the device's nvcc (falling back to mm-cuda118, built offline,
# if that fails), times PyTorch's f16 matmul at 8192^3 meanwhile, then
# checks and times every mm.cu kernel at 8192^3 and profiles four of them
# (one launch each at 4096^3) with ncu. Logs go to $OUT (or $1); a table is
# printed last. Every step has its own timeout; together they stay under
# LIMIT seconds (default 140).
set -u
out=${1:-${OUT:-/tmp/cudaref}}
limit=${LIMIT:-140}
mkdir -p "$out"
cd "$(dirname "$0")"
left() { echo $((limit - SECONDS)); }
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }

for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/*; do
	[ -d "$d" ] && PATH=$PATH:$d
done
export PATH
{ command -v nvcc ncu cuobjdump; } > "$out/tools.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/smi.txt" 2>&1
nvcc --version > "$out/nvcc.log" 2>&1
(timeout 60 nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o mm mm.cu >> "$out/nvcc.log" 2>&1
	echo "nvcc rc=$?" >> "$out/nvcc.log") &
timeout 45 python3 torch_mm.py 8192 > "$out/torch.log" 2>&1; echo "torch rc=$?" >> "$out/torch.log"
wait
bin=./mm
if [ ! -x ./mm ]; then
	bin=./mm-cuda118
	echo "nvcc failed: using mm-cuda118 (CUDA 11.8, built offline)" | tee -a "$out/nvcc.log"
fi
echo "binary: $bin" > "$out/mm.log"
cuobjdump -sass "$bin" > "$out/mm.sass" 2>&1
cuobjdump -res-usage "$bin" > "$out/res-usage.txt" 2>&1
timeout "$(cap 60)" "$bin" -n 8192 >> "$out/mm.log" 2>&1; echo "mm rc=$?" >> "$out/mm.log"

k3=vk-ldsm,vk-lds,async3,vk-ldsm-amap
m=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_lsu.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
if [ "$(left)" -gt 15 ]; then
	timeout "$(cap 40)" ncu --launch-count 4 -k regex:mm_kernel --metrics "$m" "$bin" -n 4096 -once -only $k3 > "$out/ncu.log" 2>&1
	echo "ncu rc=$?" >> "$out/ncu.log"
fi
if [ "$(left)" -gt 20 ]; then
	timeout "$(cap 40)" ncu --launch-count 4 -k regex:mm_kernel --section SpeedOfLight --section WarpStateStats --section Occupancy --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum "$bin" -n 4096 -once -only $k3 > "$out/ncu2.log" 2>&1
	echo "ncu2 rc=$?" >> "$out/ncu2.log"
fi

# Summary: instruction counts, logs' status lines, results and ratios.
awk '/Function :/{f=$3} /@!PT/{next} {for(i=1;i<=NF;i++) if($i ~ /^(HMMA|LDSM|LDS|STS|LDG|LDGSTS|BAR)(\.|$)/){split($i,a,"."); c[f" "a[1]]++}} END{for(k in c) print "sass", k, c[k]}' "$out/mm.sass" | sort > "$out/sass-counts.txt"
grep mm_kernel "$out/sass-counts.txt" | sed 's/_Z9mm_kernelIL//; s/EEvPK6__halfS2_PS0_iii//'
grep -E 'registers|spill|error' "$out/nvcc.log" | grep -v '^ptxas info    : Compiling' | head -30
grep -hE 'rc=' "$out"/*.log
grep -hE 'hmma|pipe_lsu|bank_conflicts|warps_active|gpu__time|mm_kernel|==ERR|wavefronts' "$out/ncu.log" "$out/ncu2.log" 2>/dev/null | cut -c1-150 | head -40
torch=$(sed -n 's/.*kernel=torch.matmul.*TFLOPs=\([0-9.]*\).*/\1/p' "$out/torch.log")
grep -h RESULT "$out/torch.log" "$out/mm.log" | sed 's/RESULT //' |
	awk -v t="${torch:-0}" '{print} match($0,/TFLOPs=[0-9.]+/){v=substr($0,RSTART+7,RLENGTH-7); if (t>0) printf "   ratio to torch: %.3f\n", v/t}'
echo "elapsed ${SECONDS}s"
