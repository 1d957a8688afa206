#!/usr/bin/env bash
# Measures `gpufp batch` throughput on simple f32 cases (one core): N random `add.rz.f32` lines
# (default 4,000,000); the median of 5 runs. Usage: scripts/batch-throughput.sh [N] [INSTR]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
instr=${2:-add.rz.f32}
cargo build -q --release -p gpufp-cli
input=$(mktemp)
trap 'rm -f "$input"' EXIT
awk -v n="$n" -v instr="$instr" 'BEGIN { srand(1); for (i = 0; i < n; i++) printf "%s 0x%08x 0x%08x\n", instr, int(rand() * 4294967296), int(rand() * 4294967296) }' >"$input"
times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  ./target/release/gpufp batch "$input" >/dev/null
  end=$(date +%s.%N)
  times+=("$(echo "$end - $start" | bc -l)")
done
median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)
echo "$n lines of $instr, median of 5: ${median}s, $(echo "$n / $median / 1000000" | bc -l | cut -c1-5) M lines/s"
