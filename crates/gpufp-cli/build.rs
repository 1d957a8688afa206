//! Puts the git commit the command is built from into `gpufp --version`.

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| format!("commit {}", String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|| "commit unknown".into());
    println!("cargo:rustc-env=GPUFP_COMMIT={commit}");
    // Rebuilt when HEAD moves; a path that does not exist (a source package) is not watched.
    for p in [
        "../../.git/HEAD",
        "../../.git/refs/heads",
        "../../.git/packed-refs",
    ] {
        if Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}
