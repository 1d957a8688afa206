#!/usr/bin/env bash
# Measures one core's sweep rate over an exhaustive space and projects the whole space's wall
# time on 1, 64 and 1024 cores (docs/vectors.md, "Sweeps in shards"). The rate is taken on
# eight ranges of 2^LOG cases spread evenly over the space (so every operand class weighs in),
# one thread, REPS times; the median of the REPS totals counts. Each SIMD level this CPU has is
# measured (GPUFP_SIMD caps it).
#   bash scripts/sweep-projection.sh                   # fma.rn.f16, 2^30 cases per range, 3 reps
#   bash scripts/sweep-projection.sh fma.rn.bf16 28 5
set -euo pipefail
cd "$(dirname "$0")/.."
instr=${1:-fma.rn.f16}
log=${2:-30}
reps=${3:-3}
cargo build -q --release -p gpufp-cli
gpufp=target/release/gpufp
size=$($gpufp sweep "$instr" --exhaustive --range 0..0 | awk '/^range:/ { print $4 }')
levels=(portable v3 v4)
echo "instr: $instr; space: $size cases; 8 ranges of 2^$log cases, one thread, median of $reps"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
seen=""
for level in "${levels[@]}"; do
    # A level above the CPU's runs at the CPU's: measured once.
    simd=$(GPUFP_SIMD=$level $gpufp sweep "$instr" --exhaustive --range 0..1 | sed -n 's/^simd: //p')
    case "$seen" in *"[$simd]"*) continue ;; esac
    seen="$seen[$simd]"
    totals=()
    for _ in $(seq "$reps"); do
        t=0
        for k in 0 1 2 3 4 5 6 7; do
            start=$(python3 -c "print($size * $k // 8)")
            end=$(python3 -c "print($size * $k // 8 + 2**$log)")
            s=$(GPUFP_SIMD=$level $gpufp sweep "$instr" --exhaustive --range "$start..$end" \
                --threads 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["elapsed_s"])')
            t=$(python3 -c "print($t + $s)")
        done
        totals+=("$t")
    done
    median=$(printf '%s\n' "${totals[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    python3 - "$simd" "$median" "$log" "$size" "${totals[*]}" <<'EOF'
import sys
simd, median, log, size, totals = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rate = 8 * 2**log / median
def span(s):
    for unit, n in (("days", 86400), ("h", 3600), ("min", 60)):
        if s >= n:
            return f"{s / n:.1f} {unit}"
    return f"{s:.0f} s"
runs = ", ".join(f"{float(x):.3f}" for x in totals.split())
print(f"{simd}: {rate / 1e6:.0f} M cases/s per core (runs: {runs} s); whole space: "
      + ", ".join(f"{span(size / rate / c)} on {c} core{'s' if c > 1 else ''}"
                  for c in (1, 64, 1024)))
EOF
done
