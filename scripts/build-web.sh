#!/usr/bin/env bash
# Builds the playground (docs/web.md) into target/web: the gpufp-web crate compiled to
# wasm32-unknown-unknown, bound with wasm-bindgen-cli at the version Cargo.lock pins for the
# wasm-bindgen crate (installed from crates.io when missing), and the static page from web/.
# Serve the result with any static file server: python3 -m http.server -d target/web 8000
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p}' Cargo.lock)
rustup target add wasm32-unknown-unknown >/dev/null 2>&1
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    cargo install -q wasm-bindgen-cli --version "$version"
fi
cargo build -q --locked --profile web -p gpufp-web --target wasm32-unknown-unknown
rm -rf target/web
wasm-bindgen --target web --no-typescript --out-dir target/web/pkg \
    target/wasm32-unknown-unknown/web/gpufp_web.wasm
cp web/index.html web/app.js web/style.css target/web/
echo "target/web/pkg/gpufp_web_bg.wasm: $(wc -c <target/web/pkg/gpufp_web_bg.wasm) bytes," \
    "$(gzip -9 -c target/web/pkg/gpufp_web_bg.wasm | wc -c) gzipped"
