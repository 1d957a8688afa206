//! The committed header is what cbindgen makes of the crate now: CI fails when they differ.
//! `GPUFP_BLESS=1 cargo test -p gpufp-c --test header` writes a fresh one.

#[test]
fn committed_header_is_cbindgens_output() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).unwrap();
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    let fresh = String::from_utf8(out).unwrap();
    let path = format!("{dir}/include/gpufp.h");
    if std::env::var_os("GPUFP_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/gpufp.h differs from cbindgen's output; run GPUFP_BLESS=1 cargo test -p gpufp-c --test header"
    );
}
