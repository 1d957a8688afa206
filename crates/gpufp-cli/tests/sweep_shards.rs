//! `gpufp sweep` in shards, each a separate process (given by `--shard`, a Slurm array task's or
//! a Kubernetes Indexed Job's environment), merged by `gpufp sweep-merge` into the digest one run
//! over the whole space prints; merging refuses missing, duplicated and mismatched shards;
//! interrupted shards resume from their result file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gpufp(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpufp"));
    c.current_dir(dir).args(args);
    // The test may itself run inside a job array.
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_STEP",
        "JOB_COMPLETION_INDEX",
        "JOB_COMPLETIONS",
    ] {
        c.env_remove(v);
    }
    c.envs(env.iter().map(|(k, v)| (k, v)));
    c.output().expect("run gpufp")
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1));
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn field<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no `{name}:` in\n{out}"))
}

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The files a folder holds that start with `prefix`, sorted.
fn files(dir: &Path, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".json"))
        .collect();
    v.sort();
    v
}

fn merge(dir: &Path, names: &[String]) -> Output {
    let mut args = vec!["sweep-merge"];
    args.extend(names.iter().map(String::as_str));
    gpufp(dir, &args, &[])
}

const SPACE: [&str; 6] = ["sweep", "add.rn.bf16", "--random", "300000", "--seed", "5"];

#[test]
fn shards_in_processes_merge_to_the_single_run() {
    let dir = folder("shards");
    let single = ok(&gpufp(&dir, &SPACE, &[]));
    let digest = field(&single, "digest");

    // --shard K/N, 4 processes, default file names.
    for k in 0..4 {
        let shard = format!("{k}/4");
        let mut args = SPACE.to_vec();
        args.extend(["--shard", &shard]);
        let out = ok(&gpufp(&dir, &args, &[]));
        assert_eq!(field(&out, "shard"), format!("{k}/4 (from --shard)"));
        assert_eq!(
            field(&out, "result file"),
            format!("gpufp-sweep-add.rn.bf16-{k}-of-4.json")
        );
    }
    let four = files(&dir, "gpufp-sweep-add.rn.bf16-");
    assert_eq!(four.len(), 4);
    let merged = ok(&merge(&dir, &four));
    assert_eq!(field(&merged, "digest"), digest);
    assert_eq!(field(&merged, "count"), "300000");
    assert_eq!(field(&merged, "shards"), "4");

    // A Slurm array `--array=1-5`: tasks 1..=5, results named by the test.
    for id in 1..=5 {
        let out_file = format!("slurm-{id}.json");
        let mut args = SPACE.to_vec();
        args.extend(["--out", &out_file]);
        let env = [
            ("SLURM_ARRAY_TASK_ID", id.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "5".into()),
            ("SLURM_ARRAY_TASK_MIN", "1".into()),
        ];
        let out = ok(&gpufp(&dir, &args, &env));
        assert!(field(&out, "shard")
            .starts_with(&format!("{}/5 (from SLURM_ARRAY_TASK_ID={id}", id - 1)));
    }
    let slurm = files(&dir, "slurm-");
    assert_eq!(field(&ok(&merge(&dir, &slurm)), "digest"), digest);

    // A Kubernetes Indexed Job of 3 completions.
    for k in 0..3 {
        let env = [
            ("JOB_COMPLETION_INDEX", k.to_string()),
            ("JOB_COMPLETIONS", "3".into()),
        ];
        let out = ok(&gpufp(&dir, &SPACE, &env));
        assert!(field(&out, "shard").contains("JOB_COMPLETION_INDEX"));
    }
    let k8s = files(&dir, "gpufp-sweep-add.rn.bf16-")
        .into_iter()
        .filter(|n| n.ends_with("-of-3.json"))
        .collect::<Vec<_>>();
    assert_eq!(k8s.len(), 3);
    assert_eq!(field(&ok(&merge(&dir, &k8s)), "digest"), digest);
    let e = refused(&gpufp(
        &dir,
        &SPACE,
        &[("JOB_COMPLETION_INDEX", "0".into())],
    ));
    assert!(e.contains("JOB_COMPLETIONS is not"), "{e}");

    // An exhaustive space: `abs.f16`'s 2^16 inputs in 3 ranges given by hand.
    let whole = ok(&gpufp(&dir, &["sweep", "abs.f16", "--exhaustive"], &[]));
    for (k, r) in ["0..1000", "1000..0xF000", "0xF000.."].iter().enumerate() {
        let out_file = format!("abs-{k}.json");
        ok(&gpufp(
            &dir,
            &[
                "sweep",
                "abs.f16",
                "--exhaustive",
                "--range",
                r,
                "--out",
                &out_file,
            ],
            &[],
        ));
    }
    let abs = files(&dir, "abs-");
    assert_eq!(
        field(&ok(&merge(&dir, &abs)), "digest"),
        field(&whole, "digest")
    );

    // Refusals: a missing shard, one given twice, one of another sweep, shards of two splits.
    let e = refused(&merge(&dir, &four[..3]));
    assert!(
        e.contains("cases 225000..300000 are in no shard (a shard is missing after"),
        "{e}"
    );
    let e = refused(&merge(
        &dir,
        &[four.clone(), vec![four[1].clone()]].concat(),
    ));
    assert!(
        e.contains("are in both") && e.contains("a shard is given twice"),
        "{e}"
    );
    let mut args = SPACE.to_vec();
    args.extend(["--shard", "2/4", "--out", "other-policy.json"]);
    args.extend(["--policy", "ftz_tininess=IeeeRounded"]);
    ok(&gpufp(&dir, &args, &[]));
    let mixed = [&four[..2], &["other-policy.json".to_string()], &four[3..]].concat();
    let e = refused(&merge(&dir, &mixed));
    assert!(
        e.contains("does not belong with") && e.contains("IeeeRounded"),
        "{e}"
    );
    let e = refused(&merge(&dir, &[&four[..2], &k8s[2..]].concat()));
    assert!(
        e.contains("are in no shard") || e.contains("are in both"),
        "{e}"
    );
    let e = refused(&merge(&dir, &["nothing.json".to_string()]));
    assert!(e.contains("reading nothing.json"), "{e}");
    std::fs::write(dir.join("garbage.json"), "{\"format\": 1}").unwrap();
    let e = refused(&merge(&dir, &["garbage.json".to_string()]));
    assert!(
        e.contains("garbage.json: not a gpufp sweep result file"),
        "{e}"
    );
}

/// A shard whose result file says it stopped after chunk 2 continues from there (cutting the
/// chunk digest file back to those chunks), prints the whole digest, and is not run again once
/// complete; a result file of another sweep is refused.
#[test]
fn a_shard_resumes_from_its_result_file() {
    let dir = folder("resume");
    let args = |out: &str| -> Vec<String> {
        let mut a: Vec<String> = SPACE.iter().map(|s| s.to_string()).collect();
        a.extend(["--out", out, "--chunk-digests", "chunks.txt"].map(String::from));
        a
    };
    let first = args("shard.json");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let full = ok(&gpufp(&dir, &first, &[]));
    let chunks = std::fs::read_to_string(dir.join("chunks.txt")).unwrap();
    assert_eq!(chunks.lines().count(), 5);
    // Make it look interrupted after chunk 2, with a chunk line written after the last save.
    let record = std::fs::read_to_string(dir.join("shard.json")).unwrap();
    let sums: Vec<u64> = chunks
        .lines()
        .map(|l| u64::from_str_radix(l.split_once(" 0x").unwrap().1, 16).unwrap())
        .collect();
    let two = sums[0].wrapping_add(sums[1]);
    let partial = record
        .replace("\"chunks_done\": 5", "\"chunks_done\": 2")
        .replace("\"complete\": true", "\"complete\": false")
        .replace(field(&full, "digest"), &format!("0x{two:016x}"));
    assert_ne!(partial, record);
    std::fs::write(dir.join("shard.json"), partial).unwrap();
    let cut: String = chunks.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("chunks.txt"), cut).unwrap();
    let resumed = ok(&gpufp(&dir, &first, &[]));
    assert_eq!(
        field(&resumed, "note"),
        "resumed after chunk 2 of 5 from shard.json"
    );
    assert_eq!(field(&resumed, "digest"), field(&full, "digest"));
    assert_eq!(
        std::fs::read_to_string(dir.join("chunks.txt")).unwrap(),
        chunks
    );
    let again = ok(&gpufp(&dir, &first, &[]));
    assert_eq!(field(&again, "note"), "already complete; not run again");
    assert_eq!(field(&again, "digest"), field(&full, "digest"));
    // The same file for another sweep.
    let e = refused(&gpufp(
        &dir,
        &[
            "sweep",
            "add.rn.bf16",
            "--random",
            "300001",
            "--out",
            "shard.json",
        ],
        &[],
    ));
    assert!(
        e.contains("shard.json is not this sweep's result file") && e.contains("300001"),
        "{e}"
    );
}

/// A shard killed while it runs leaves a partial result file; run again, it finishes with the
/// digest of an uninterrupted run.
#[test]
fn an_interrupted_shard_finishes_where_it_stopped() {
    let dir = folder("interrupted");
    let space = [
        "sweep",
        "div.rn.f32",
        "--random",
        "0x4000000",
        "--seed",
        "9",
    ];
    let mut args = space.to_vec();
    args.extend(["--threads", "1", "--save-every", "1", "--out", "run.json"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpufp"))
        .current_dir(&dir)
        .args(&args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let file = dir.join("run.json");
    let saved =
        |text: &str| text.contains("\"complete\": false") && !text.contains("\"chunks_done\": 0,");
    let start = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if saved(&text) {
            break;
        }
        assert!(
            start.elapsed().as_secs() < 60 && child.try_wait().unwrap().is_none(),
            "no partial result file was saved: {text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let resumed = ok(&gpufp(&dir, &args, &[]));
    assert!(
        field(&resumed, "note").starts_with("resumed after chunk "),
        "{resumed}"
    );
    let whole = ok(&gpufp(&dir, &space, &[]));
    assert_eq!(field(&resumed, "digest"), field(&whole, "digest"));
}
