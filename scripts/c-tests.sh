#!/usr/bin/env bash
# libgpufp's C tests (docs/c.md): install the library with cargo-c into a prefix, then build the
# C test program against it, shared and static, with -std=c99 -Wall -Wextra -Werror -pedantic,
# run both (the shared one under valgrind: no error, no leak), and build and run the C++ example.
# Needs the `gpufp` command built (target/debug/gpufp) for the `gpufp gen` cases.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo cinstall --version 2>/dev/null | grep -q "0\.10\.24"; then
    cargo install cargo-c --version 0.10.24 --locked
fi
for tool in pkg-config valgrind c++; do
    if ! command -v "$tool" >/dev/null; then
        SUDO=$(command -v sudo || true)
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq pkgconf valgrind g++ >/dev/null
        break
    fi
done

prefix="$PWD/target/c-prefix"
rm -rf "$prefix"
cargo cinstall --locked --release -p gpufp-c --prefix "$prefix" --libdir lib
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cmp "$prefix/include/gpufp.h" crates/gpufp-c/include/gpufp.h

out=target/c-tests
mkdir -p "$out"
gpufp=${GPUFP_BIN:-target/debug/gpufp}
for instr in fma.rn.ftz.f32 add.rm.f64 min.NaN.xorsign.abs.bf16x2 ex2.approx.f32 \
    testp.subnormal.f64 fma.rn.relu.f16x2; do
    "$gpufp" gen "$instr" --count 400
done > "$out/cases.txt"

flags=(-std=c99 -Wall -Wextra -Werror -pedantic)
# shellcheck disable=SC2046
cc "${flags[@]}" crates/gpufp-c/tests/c/test_gpufp.c $(pkg-config --cflags --libs gpufp) -pthread \
    -o "$out/test_shared"
private=$(pkg-config --static --libs-only-l gpufp | sed 's/-lgpufp//')
# shellcheck disable=SC2046,SC2086
cc "${flags[@]}" crates/gpufp-c/tests/c/test_gpufp.c $(pkg-config --cflags gpufp) \
    "$prefix/lib/libgpufp.a" $private -pthread -o "$out/test_static"
if ldd "$out/test_static" | grep -q libgpufp; then
    echo "test_static links libgpufp dynamically" >&2
    exit 1
fi
"$out/test_static" "$out/cases.txt"
LD_LIBRARY_PATH="$prefix/lib" valgrind -q --error-exitcode=3 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    "$out/test_shared" "$out/cases.txt"

# shellcheck disable=SC2046
c++ -std=c++17 -Wall -Wextra -Werror examples/c/simulator.cpp $(pkg-config --cflags --libs gpufp) \
    -o "$out/simulator"
LD_LIBRARY_PATH="$prefix/lib" "$out/simulator"
