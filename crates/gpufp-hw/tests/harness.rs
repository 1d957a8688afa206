//! The harness's host side without a GPU, on the emulator backend (the model standing in for the
//! device): its digests and chunk digests are `gpufp::vectors::sweep`'s, a wrong result is
//! reported as exactly that chunk and case, and the campaign writes and resumes its report.

use gpufp::ptx::{parse_instr, Context, Instr, Target};
use gpufp::vectors::{sweep, Plan, Space};
use gpufp::Policies;
use gpufp_hw::backend::Emulator;
use gpufp_hw::campaign::{self, Group, Settings};
use gpufp_hw::compare::{chunk_digests_text, compare, Cases, Model, Options};
use std::process::Command;

fn ctx() -> Context {
    Context {
        target: Some(Target::new(90)),
        policies: Policies::default(),
        core: Default::default(),
    }
}

fn emulator(fault: Option<(u64, u64)>) -> Emulator {
    Emulator {
        target: Target::new(90),
        ctx: ctx(),
        fault,
    }
}

fn instr(text: &str, inputs: u8) -> Instr {
    let mut i = parse_instr(text).unwrap();
    i.inputs = inputs;
    i
}

fn opts() -> Options {
    Options {
        batch: 1 << 17,
        threads: 2,
        keep: 10,
        model: true,
    }
}

/// Sweeps crossing chunk and batch boundaries, each operand kind.
fn plans() -> Vec<(Instr, Space)> {
    let r = |count, seed| Space::Random { count, seed };
    vec![
        (instr("neg.f16", 1), Space::Exhaustive),
        (instr("abs.ftz.f16x2", 1), Space::Exhaustive),
        // The correctly rounded 16-bit cores are slow (under 10^5 cases/s): a few cases.
        (instr("ex2.approx.f16", 1), r(3000, 1)),
        (instr("tanh.approx.bf16x2", 1), r(2000, 2)),
        (instr("rcp.approx.f32", 1), r(70_000, 8)),
        (instr("sin.approx.ftz.f32", 1), r(20_000, 6)),
        (instr("add.rn.f32", 2), r(300_001, 5)),
        (instr("fma.rn.ftz.sat.f16x2", 3), r(140_000, 9)),
        (instr("min.NaN.f32", 3), r(70_000, 2)),
        (instr("fma.rm.f64", 3), r(66_000, 0)),
        (instr("testp.subnormal.f64", 1), r(65_537, 1)),
        (instr("mul.rz.f32x2", 2), r(1000, 3)),
    ]
}

#[test]
fn digests_are_the_librarys() {
    for (i, space) in plans() {
        let plan = Plan::new(&i, space).unwrap();
        let lib = sweep(&plan, &ctx(), 2).unwrap();
        let o = compare(
            &mut emulator(None),
            &i,
            Cases::Sweep(&plan),
            &ctx(),
            &opts(),
        )
        .unwrap();
        assert_eq!(o.model, Model::Compared, "{i}");
        assert_eq!(o.device_chunks, lib.chunks, "{i}");
        assert_eq!(o.device_digest, lib.digest, "{i}");
        assert_eq!(o.model_digest, Some(lib.digest), "{i}");
        assert_eq!((o.mismatches, o.bad_chunks.len()), (0, 0), "{i}");
    }
}

#[test]
fn a_wrong_result_is_found_at_its_case() {
    let i = instr("add.rn.f32", 2);
    let plan = Plan::new(
        &i,
        Space::Random {
            count: 200_000,
            seed: 4,
        },
    )
    .unwrap();
    let case = 131_075; // chunk 2, in the second batch
    let mut dev = emulator(Some((case, 1)));
    let o = compare(&mut dev, &i, Cases::Sweep(&plan), &ctx(), &opts()).unwrap();
    assert_eq!(o.bad_chunks, vec![2]);
    assert_eq!(o.mismatches, 1);
    let m = &o.kept[0];
    assert_eq!(m.case, case);
    assert_eq!(m.operands, plan.operands(case)[..2].to_vec());
    assert_eq!(m.device ^ m.model, 1);
    assert!(
        !m.within_spec,
        "a last-bit error in add.rn.f32 violates the spec"
    );
    assert!(m.verdict.contains("VIOLATION"), "{}", m.verdict);
}

#[test]
fn a_policy_alternative_is_named() {
    // mul.rn.ftz.f32 0x3F7FFFFF * 0x00800000: exact 2^-126 - 2^-150. The model (unbounded
    // exponent rounding) flushes to +0; IEEE-rounded tininess gives 0x00800000.
    let i = instr("mul.rn.ftz.f32", 2);
    let list = [[0x3F7F_FFFF, 0x0080_0000, 0]];
    let mut dev = emulator(Some((0, 0x0080_0000)));
    let o = compare(&mut dev, &i, Cases::List("probe", &list), &ctx(), &opts()).unwrap();
    assert_eq!(o.mismatches, 1);
    assert_eq!(o.kept[0].device, 0x0080_0000);
    assert_eq!(
        o.kept[0].policies,
        vec!["ftz_tininess=IeeeRounded".to_string()]
    );
}

#[test]
fn an_unfinished_model_leaves_the_device_digest() {
    // Without a model value the harness still digests the device's results.
    let i = instr("add.rn.f16", 2);
    let plan = Plan::new(
        &i,
        Space::Random {
            count: 1000,
            seed: 0,
        },
    )
    .unwrap();
    let o = compare(
        &mut emulator(None),
        &i,
        Cases::Sweep(&plan),
        &ctx(),
        &Options {
            model: false,
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(o.model, Model::Off);
    assert_eq!(o.device_digest, sweep(&plan, &ctx(), 1).unwrap().digest);
}

#[test]
fn cli_sweep_matches_the_documented_check_value_and_chunk_format() {
    // docs/vectors.md: `gpufp sweep testp.finite.f32 --random 1000 --seed 1` prints this digest.
    let exe = env!("CARGO_BIN_EXE_gpufp-hw");
    let out = Command::new(exe)
        .args([
            "sweep",
            "--emulate",
            "testp.finite.f32",
            "--random",
            "1000",
            "--seed",
            "1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("digest: 0x176ae8b6fa30ddf1\n"), "{text}");
    // The chunk file is `gpufp sweep --chunk-digests`'s: `c 0x%016x` per chunk.
    let file = std::env::temp_dir().join(format!("gpufp-hw-chunks-{}", std::process::id()));
    let out = Command::new(exe)
        .args(["sweep", "--emulate", "--chunk-digests"])
        .arg(&file)
        .args(["neg.f16", "--exhaustive"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let i = instr("neg.f16", 1);
    let lib = sweep(&Plan::new(&i, Space::Exhaustive).unwrap(), &ctx(), 1).unwrap();
    let want: String = lib
        .chunks
        .iter()
        .enumerate()
        .map(|(c, d)| format!("{c} 0x{d:016x}\n"))
        .collect();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
    assert_eq!(chunk_digests_text(0, &lib.chunks), want);
    std::fs::remove_file(&file).ok();
}

#[test]
fn no_driver_is_an_error_not_a_panic() {
    // This machine has no CUDA driver (CI never does); where one is present, skip.
    if std::path::Path::new("/dev/nvidiactl").exists() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_gpufp-hw"))
        .args(["sweep", "add.rn.f16", "--random", "10"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: ") && err.contains("CUDA"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn campaign_plan_covers_the_groups() {
    let jobs = campaign::plan(&Settings::default()).unwrap();
    let names = |g: Group| -> Vec<String> {
        jobs.iter()
            .filter(|j| j.group == g)
            .map(|j| j.instr.to_string())
            .collect()
    };
    let mut mufu = names(Group::Mufu16);
    mufu.sort();
    assert_eq!(
        mufu,
        [
            "ex2.approx.f16",
            "ex2.approx.ftz.bf16",
            "tanh.approx.bf16",
            "tanh.approx.f16"
        ]
    );
    for want in [
        "rcp.approx.ftz.f32",
        "sin.approx.f32",
        "tanh.approx.f32",
        "sqrt.approx.f32",
    ] {
        assert!(names(Group::Approx32).contains(&want.to_string()), "{want}");
    }
    for want in [
        "add.rn.ftz.sat.f16x2",
        "min.NaN.xorsign.abs.bf16",
        "neg.f16",
    ] {
        assert!(
            names(Group::Exhaustive16).contains(&want.to_string()),
            "{want}"
        );
    }
    assert!(names(Group::Random16).contains(&"fma.rn.oob.relu.f16".to_string()));
    assert!(names(Group::Random64).contains(&"fma.rn.f64".to_string()));
    assert!(names(Group::Exhaustive32).contains(&"testp.notanumber.f32".to_string()));
    for j in &jobs {
        assert!(j.count() > 0 && j.count() <= 1 << 32, "{}", j.key());
    }
    // `add.f32` is `add.rn.f32` (default rounding): only the latter is run.
    assert!(!jobs.iter().any(|j| j.instr.to_string() == "add.f32"));
}

#[test]
fn campaign_writes_and_resumes_its_report() {
    let dir = std::env::temp_dir().join(format!("gpufp-hw-campaign-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let settings = Settings {
        groups: vec![Group::Probes, Group::Random32],
        only: vec!["mul.rn.ftz.f32".into(), "add.rz.f32x2".into()],
        random: 70_000,
        seed: 3,
        capture_stride: 64,
    };
    let jobs = campaign::plan(&settings).unwrap();
    // Substrings: mul.rn.ftz.f32x2 is in too; one probe job and two jobs per random32 variant.
    assert_eq!(
        jobs.len(),
        7,
        "{:?}",
        jobs.iter().map(|j| j.key()).collect::<Vec<_>>()
    );
    let run = campaign::Run {
        dir: dir.clone(),
        budget_s: None,
        opts: opts(),
        ctx: ctx(),
    };
    let mut log = Vec::new();
    let (ran, left) =
        campaign::run(&mut emulator(Some((0, 1 << 40))), &jobs, &run, &mut log).unwrap();
    assert_eq!((ran, left), (7, false));
    let summary = std::fs::read_to_string(dir.join("summary.tsv")).unwrap();
    let statuses: Vec<&str> = summary
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(5).unwrap())
        .collect();
    // Every job's case 0 comes back wrong (probes and gen lists too); f32x2 needs sm_100.
    let (m, n) = ("MISMATCH", "not-on-device");
    assert_eq!(statuses, [m, n, n, m, m, n, n], "{summary}");
    let probe = std::fs::read_to_string(dir.join("probes/mul.rn.ftz.f32-2in-probes.txt")).unwrap();
    assert!(probe.contains("DIFFERENT"), "{probe}");
    let mm =
        std::fs::read_to_string(dir.join("mismatches/mul.rn.ftz.f32-2in-random-s3.txt")).unwrap();
    let line = mm.lines().find(|l| !l.starts_with('#')).unwrap();
    let plan = Plan::new(
        &instr("mul.rn.ftz.f32", 2),
        Space::Random {
            count: 70_000,
            seed: 3,
        },
    )
    .unwrap();
    let [a, b, _] = plan.operands(0);
    assert!(
        line.starts_with(&format!("mul.rn.ftz.f32 0x{a:08x} 0x{b:08x} 0x")),
        "{mm}"
    );
    assert!(std::fs::read_to_string(dir.join("report.md"))
        .unwrap()
        .contains("## random32"));
    // A second run finds every job done.
    let (ran, _) = campaign::run(&mut emulator(None), &jobs, &run, &mut log).unwrap();
    assert_eq!(ran, 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// `gpufp sweep`'s own binary, where this build has made it (`cargo test --workspace` does).
fn gpufp_binary() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_BIN_EXE_gpufp-hw")).parent()?;
    let p = dir.join(format!("gpufp{}", std::env::consts::EXE_SUFFIX));
    p.is_file().then_some(p)
}

#[test]
fn chunk_files_equal_gpufp_sweeps() {
    let Some(gpufp) = gpufp_binary() else {
        eprintln!("skipped: the gpufp binary is not built (cargo test --workspace builds it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("gpufp-hw-vs-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [&[&str]; 3] = [
        &["neg.ftz.f16", "--exhaustive"],
        &["add.rn.f32", "--random", "300001", "--seed", "5"],
        &[
            "min.NaN.f32",
            "--operands",
            "3",
            "--random",
            "70000",
            "--seed",
            "2",
        ],
    ];
    for args in cases {
        let (a, b) = (dir.join("gpufp.txt"), dir.join("hw.txt"));
        let ours = Command::new(&gpufp)
            .arg("sweep")
            .args(args)
            .arg("--chunk-digests")
            .arg(&a)
            .output()
            .unwrap();
        let hw = Command::new(env!("CARGO_BIN_EXE_gpufp-hw"))
            .args(["sweep", "--emulate"])
            .args(args)
            .arg("--chunk-digests")
            .arg(&b)
            .output()
            .unwrap();
        assert!(ours.status.success() && hw.status.success(), "{args:?}");
        let digest = |o: &std::process::Output| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.starts_with("digest: "))
                .map(str::to_string)
        };
        assert_eq!(digest(&ours), digest(&hw), "{args:?}");
        assert!(digest(&ours).is_some(), "{args:?}");
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{args:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn probes_name_the_reading_the_device_follows() {
    // A "device" that follows other readings than the model's defaults: IEEE-rounded FTZ
    // tininess and canonical f64 NaNs. The probe rows must name exactly those readings.
    let mut device = emulator(None);
    device.ctx.policies.ftz_tininess = gpufp::Tininess::IeeeRounded;
    device.ctx.policies.f64_nan = gpufp::policy::F64Nan::Canonical;
    let dir = std::env::temp_dir().join(format!("gpufp-hw-probes-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let settings = Settings {
        groups: vec![Group::Probes],
        only: vec![
            "mul.rn.ftz.f32".into(),
            "add.rn.f64".into(),
            "fma.rn.relu.f16".into(),
        ],
        ..Settings::default()
    };
    let jobs = campaign::plan(&settings).unwrap();
    let run = campaign::Run {
        dir: dir.clone(),
        budget_s: None,
        opts: opts(),
        ctx: ctx(),
    };
    campaign::run(&mut device, &jobs, &run, &mut Vec::new()).unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.tsv")).unwrap();
    let note = |instr: &str| -> String {
        let row = summary
            .lines()
            .find(|l| l.split('\t').nth(1) == Some(instr))
            .unwrap();
        row.split('\t').nth(14).unwrap().to_string()
    };
    assert_eq!(
        note("mul.rn.ftz.f32"),
        "probes: 2 of 4 differ, all as under ftz_tininess=IeeeRounded"
    );
    // Every f64 probe pair holds a NaN with a payload, which the canonical NaN drops.
    assert_eq!(
        note("add.rn.f64"),
        "probes: 7 of 7 differ, all as under f64_nan=Canonical"
    );
    assert_eq!(
        note("fma.rn.relu.f16"),
        "probes: all 4 as the model's defaults"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A range of a space too large for one run (`fma.rn.f16`'s 2^48), starting and ending inside
/// chunks: the device's digest and chunk digests are the library's for the same range, chunks
/// and cases numbered in the whole space; a wrong result is reported at its case and chunk.
#[test]
fn a_range_of_a_large_space_is_numbered_in_the_space() {
    let i = instr("fma.rn.f16", 3);
    let start = (0x3C00_3C00u128 << 16) + 1000;
    let plan = Plan::range(&i, Space::Exhaustive, start, start + 3 * 65_536).unwrap();
    let lib = sweep(&plan, &ctx(), 2).unwrap();
    let o = compare(
        &mut emulator(None),
        &i,
        Cases::Sweep(&plan),
        &ctx(),
        &opts(),
    )
    .unwrap();
    assert_eq!(o.device_digest, lib.digest);
    assert_eq!(o.device_chunks, lib.chunks);
    assert_eq!((o.first_chunk, o.device_chunks.len()), (0x3C00_3C00, 4));
    assert!(chunk_digests_text(o.first_chunk, &o.device_chunks).starts_with("1006648320 0x"));
    let case = plan.start + 2 * 65_536 + 5;
    let o = compare(
        &mut emulator(Some((case, 1))),
        &i,
        Cases::Sweep(&plan),
        &ctx(),
        &opts(),
    )
    .unwrap();
    assert_eq!(o.bad_chunks, vec![case >> 16]);
    assert_eq!(o.mismatches, 1);
    assert_eq!(o.kept[0].case, case);
    // The command line takes the same range, and a shard.
    let exe = env!("CARGO_BIN_EXE_gpufp-hw");
    let range = format!("{start}..{}", start + 3 * 65_536);
    let out = Command::new(exe)
        .args([
            "sweep",
            "--emulate",
            "fma.rn.f16",
            "--exhaustive",
            "--range",
            &range,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("digest: 0x{:016x}\n", lib.digest)),
        "{text}"
    );
    assert!(
        text.contains(&format!("range: {range} of 281474976710656\n")),
        "{text}"
    );
    let out = Command::new(exe)
        .args([
            "sweep",
            "--emulate",
            "neg.bf16",
            "--exhaustive",
            "--shard",
            "1/3",
        ])
        .output()
        .unwrap();
    let shard = Plan::shard(&instr("neg.bf16", 1), Space::Exhaustive, 1, 3).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let want = sweep(&shard, &ctx(), 1).unwrap().digest;
    assert!(text.contains(&format!("digest: 0x{want:016x}\n")), "{text}");
    assert!(text.contains("shard: 1/3 (from --shard)\n"), "{text}");
}
