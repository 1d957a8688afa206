#!/usr/bin/env bash
# `gpufp bench` on every PTX variant of the operations in issue 8's performance goals: f32
# add/sub/mul/fma in every rounding mode with and without .ftz/.sat, f64 add/sub/mul/fma/div/rcp/
# sqrt in every rounding mode, f16/bf16 add/sub/mul/fma (.rn; .ftz/.sat/.relu/.oob where PTX has
# them). The table ends with the lowest figure of each type. Needs cmake for SoftFloat.
# Usage: scripts/bench-goals.sh [gpufp bench options]
set -euo pipefail
cd "$(dirname "$0")/.."
v=()
for op in add sub mul fma; do
  for r in rn rz rm rp; do
    for x in "" .ftz .sat .ftz.sat; do v+=("$op.$r$x.f32"); done
  done
done
for op in add sub mul fma div rcp sqrt; do
  for r in rn rz rm rp; do v+=("$op.$r.f64"); done
done
for op in add sub mul fma; do
  for x in "" .ftz .sat .ftz.sat; do v+=("$op.rn$x.f16"); done
  v+=("$op.rn.bf16")
done
v+=(fma.rn.relu.f16 fma.rn.relu.bf16 fma.rn.oob.f16 fma.rn.oob.relu.bf16)
cargo run -q --release -p gpufp-cli --features baselines -- bench "$@" "${v[@]}"
