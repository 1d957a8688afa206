//! Every file of `fuzz/corpus/<pipeline>/` through its pipeline, on the stable toolchain: the
//! fuzzers' findings stay fixed.

use gpufp_fuzz::PIPELINES;
use std::path::Path;

#[test]
fn corpus_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let mut total = 0;
    for (name, run) in PIPELINES {
        let dir = root.join(name);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut n = 0;
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{name}: {} fails", path.display());
            n += 1;
        }
        assert!(n > 0, "{name}: empty corpus");
        println!("{name}: {n} inputs");
        total += n;
    }
    println!("{total} inputs in all");
}
