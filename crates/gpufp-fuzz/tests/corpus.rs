//! Every file of `fuzz/corpus/<pipeline>/` (what the fuzzers kept, minimised) and of
//! `fuzz/regressions/<pipeline>/` (inputs that once failed, kept whatever minimisation drops)
//! through its pipeline, on the stable toolchain: the fuzzers' findings stay fixed.

use gpufp_fuzz::PIPELINES;
use std::path::Path;

#[test]
fn corpus_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut total = 0;
    for (name, run) in PIPELINES {
        let dir = root.join("corpus").join(name);
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        if let Ok(found) = std::fs::read_dir(root.join("regressions").join(name)) {
            paths.extend(found.map(|e| e.unwrap().path()));
        }
        let mut n = 0;
        for path in paths {
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
