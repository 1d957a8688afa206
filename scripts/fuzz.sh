#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets, the pipelines of crates/gpufp-fuzz) for SECONDS
# each, one after another, with libFuzzer through cargo-fuzz on the nightly toolchain (both
# installed when missing). New inputs join fuzz/corpus/<target>; a crash is written to
# fuzz/artifacts/<target>/ and stops the run. Afterwards `cargo test -p gpufp-fuzz` replays the
# corpus on stable; minimise a grown corpus with `cargo +nightly fuzz cmin <target>` before
# committing it.
#   bash scripts/fuzz.sh 1800              # every target, 30 minutes each
#   bash scripts/fuzz.sh 300 instr operand # some targets
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cd fuzz && cargo +nightly fuzz list)
fi
for t in "${targets[@]}"; do
    echo "== $t: ${seconds} s"
    cargo +nightly fuzz run "$t" -- -max_total_time="$seconds" -print_final_stats=1 2>&1 |
        grep -E '^(stat::|Done |==[0-9]+== ERROR|SUMMARY|artifact_prefix|Test unit written)' || true
    if compgen -G "fuzz/artifacts/$t/*" >/dev/null; then
        echo "$t: crash inputs in fuzz/artifacts/$t/" >&2
        exit 1
    fi
done
