//! The catalog of valid instructions, completion of instruction text, the manual's examples, and
//! how values divide into lanes and fields.

use gpufp::examples::EXAMPLES;
use gpufp::front::{self, Options, Prepared};
use gpufp::ptx::instr::{Modifier, MODIFIERS};
use gpufp::ptx::{self, catalog, Instr, Opcode, PtxVersion, Target, TestpOp, Type};
use gpufp::round::Round;

/// Every instruction the validator accepts, by brute force over every type, every subset of
/// every modifier and both input counts: the oracle the catalog is checked against.
fn brute_force(target: Option<Target>, ptx: Option<PtxVersion>) -> Vec<Instr> {
    let flags: Vec<Modifier> = MODIFIERS
        .iter()
        .map(|(_, m)| *m)
        .filter(|m| !matches!(m, Modifier::Rnd(_)))
        .collect();
    let opcodes = Opcode::ALL.into_iter().flat_map(|o| match o {
        Opcode::Testp(_) => TestpOp::ALL.map(Opcode::Testp).to_vec(),
        o => vec![o],
    });
    let mut out = Vec::new();
    for opcode in opcodes {
        for ty in Type::ALL {
            for rnd in [
                None,
                Some(Round::Rn),
                Some(Round::Rz),
                Some(Round::Rm),
                Some(Round::Rp),
            ] {
                for set in 0..1u32 << flags.len() {
                    for inputs in 1..=3 {
                        let mut i = Instr::new(opcode, ty);
                        i.mods.rnd = rnd;
                        i.inputs = inputs;
                        for (k, m) in flags.iter().enumerate() {
                            if set >> k & 1 == 1 {
                                i.mods.insert(*m);
                            }
                        }
                        if ptx::validate(&i, target, ptx).is_ok() {
                            out.push(i);
                        }
                    }
                }
            }
        }
    }
    out
}

fn same_set(mut a: Vec<Instr>, mut b: Vec<Instr>) {
    let key = |i: &Instr| (i.to_string(), i.inputs);
    a.sort_by_key(key);
    b.sort_by_key(key);
    let before = a.len();
    a.dedup();
    assert_eq!(a.len(), before, "the catalog lists an instruction twice");
    assert_eq!(a, b);
}

#[test]
fn catalog_is_every_valid_instruction() {
    for (target, ptx) in [
        (None, None),
        (Some("sm_75"), Some("7.0")),
        (Some("sm_13"), Some("1.2")),
        (Some("sm_100a"), None),
    ] {
        let target = target.map(|t| t.parse().unwrap());
        let ptx = ptx.map(|p| p.parse().unwrap());
        let c = catalog(target, ptx);
        assert!(c.len() > 50, "{target:?} {ptx:?}: {} instructions", c.len());
        same_set(c, brute_force(target, ptx));
    }
}

fn words(text: &str) -> Vec<String> {
    let c = front::complete(text, &Options::default());
    assert_eq!(c.start, text.rfind('.').map_or(0, |k| k + 1), "{text}");
    c.candidates.into_iter().map(|c| c.word).collect()
}

/// Every prefix of every valid instruction's spelling, at a word boundary and one letter into
/// the next word, is offered that word; a candidate is marked complete exactly when its text
/// parses and validates.
#[test]
fn completion_offers_every_valid_spelling() {
    let opts = Options::default();
    for i in catalog(None, None) {
        let text = i.to_string();
        let mut cut = 0;
        for word in text.split('.') {
            for partial in [0, 1] {
                let typed = &text[..cut + partial];
                let c = front::complete(typed, &opts);
                let hit = c.candidates.iter().find(|c| c.word == word);
                let hit = hit.unwrap_or_else(|| panic!("`{typed}` does not offer `{word}`"));
                assert_eq!(hit.text, text[..cut + word.len()]);
            }
            cut += word.len() + 1;
        }
    }
    for typed in [
        "fma.",
        "div.",
        "min.",
        "testp.",
        "ex2.approx.",
        "mad.",
        "rcp.rn.",
    ] {
        for c in front::complete(typed, &opts).candidates {
            let valid = ptx::parse_instr(&c.text)
                .ok()
                .is_some_and(|i| ptx::validate(&i, None, None).is_ok());
            assert_eq!(c.complete, valid, "{}", c.text);
        }
    }
}

#[test]
fn completion_offers_only_what_can_become_valid() {
    assert_eq!(words(""), Opcode::ALL.map(|o| o.name()));
    assert_eq!(words("m"), ["mul", "mad", "min", "max"]);
    let fma = words("fma.");
    for w in [
        "rn", "rz", "ftz", "sat", "relu", "oob", "f32", "f16x2", "bf16x2", "f32x2",
    ] {
        assert!(fma.contains(&w.to_string()), "fma. lacks {w}: {fma:?}");
    }
    for w in ["approx", "full", "NaN", "abs", "finite"] {
        assert!(!fma.contains(&w.to_string()), "fma. offers {w}");
    }
    assert!(words("div.").contains(&"full".to_string()));
    assert!(!words("div.rn.").contains(&"full".to_string()));
    assert_eq!(
        words("testp."),
        [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
            "f32",
            "f64"
        ]
    );
    // `.relu` exists on half-precision fma only.
    assert_eq!(words("fma.rn.relu.f"), ["ftz", "f16", "f16x2"]);
    // `.xorsign` needs `.abs`, which may still come after the type.
    assert_eq!(
        words("min.xorsign."),
        ["ftz", "NaN", "abs", "f32", "f16", "f16x2", "bf16", "bf16x2"]
    );
    let c = front::complete("min.xorsign.", &Options::default());
    assert!(c.candidates.iter().all(|c| !c.complete));
    for dead in [
        "foo.",
        "fma.foo.",
        "fma.rn.rn.",
        "fma rn",
        "fma.rn.f32.f64.",
    ] {
        assert_eq!(words(dead), Vec::<String>::new(), "{dead}");
    }
    // For a target: sm_75 has neither min.NaN (sm_80) nor bf16 fma (sm_80).
    let sm75 = Options::parse(Some("sm_75"), None, None, []).unwrap();
    let c = front::complete("min.", &sm75);
    assert!(!c
        .candidates
        .iter()
        .any(|c| c.word == "NaN" || c.word == "xorsign"));
    let c = front::complete("fma.rn.", &sm75);
    assert!(!c.candidates.iter().any(|c| c.word.starts_with("bf16")));
    assert!(c.candidates.iter().any(|c| c.word == "f16" && c.complete));
}

#[test]
fn targets_are_listed_in_order_and_parse_back() {
    let all = Target::all();
    assert_eq!(all[0].to_string(), "sm_10");
    let names: Vec<String> = all.iter().map(Target::to_string).collect();
    for t in ["sm_13", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_121f"] {
        assert!(names.contains(&t.to_string()), "{t}");
    }
    assert!(!names.contains(&"sm_80a".to_string()));
    for t in &all {
        assert_eq!(t.to_string().parse::<Target>().unwrap(), *t);
    }
}

#[test]
fn layouts_and_lanes() {
    let layout = |t: &str| {
        let l = Prepared::new(t, &Options::default()).unwrap().layout();
        (l.lanes, l.bits, l.exponent, l.fraction)
    };
    assert_eq!(layout("add.rn.f32"), (1, 32, 8, 23));
    assert_eq!(layout("add.rn.f64"), (1, 64, 11, 52));
    assert_eq!(layout("add.rn.f16"), (1, 16, 5, 10));
    assert_eq!(layout("add.rn.bf16x2"), (2, 16, 8, 7));
    assert_eq!(layout("add.rn.f32x2"), (2, 32, 8, 23));
    let p = Prepared::new("add.rn.f16x2", &Options::default()).unwrap();
    let lanes = p.lanes(0x3c00_c000);
    assert_eq!((lanes[0].bits, lanes[1].bits), (0xc000, 0x3c00));
    assert_eq!(
        (lanes[0].value.as_str(), lanes[1].value.as_str()),
        ("-2", "1")
    );
}

/// Every example prepares for its target and evaluates; a few results checked by hand.
#[test]
fn the_manuals_examples_run() {
    assert!(EXAMPLES.len() >= 60);
    for e in EXAMPLES {
        let opts = Options::parse(e.target, None, Some(e.operands.len()), []).unwrap();
        let p = Prepared::new(e.instr, &opts).unwrap_or_else(|err| panic!("{}: {err}", e.instr));
        let ops = p.parse_operands(e.operands).unwrap();
        p.explain(&ops).unwrap();
        assert!(e.instr.starts_with(|c: char| c.is_ascii_lowercase()));
        assert!(e.section.starts_with("9.7.3.") || e.section.starts_with("9.7.4."));
    }
    let result = |instr: &str| {
        let e = EXAMPLES.iter().find(|e| e.instr == instr).unwrap();
        front::eval_text(
            e.instr,
            e.operands,
            &Options::parse(e.target, None, None, []).unwrap(),
        )
        .unwrap()
        .result
    };
    // 2048 + 1 is halfway between the f16 neighbours 2048 and 2050: to even, 2048.
    assert_eq!(result("add.rn.f16"), 0x6800);
    // 2 * 0x40490FDB doubles the value: the exponent goes up by one.
    assert_eq!(result("mul.ftz.f32"), 0x40C9_0FDB);
    // (1 + 2^-52)^2 - 1 = 2^-51 + 2^-104, rounded once: 2^-51 (1 + 2^-53) is 2^-51 in f64.
    assert_eq!(result("fma.rn.f64"), 0x3CC0_0000_0000_0000);
    // -2 and 3: the smaller magnitude 2, negative because the signs differ.
    assert_eq!(result("min.xorsign.abs.f32"), 0xC000_0000);
    // relu: 1 * -2 + 1 = -1 clamps to +0.
    assert_eq!(result("fma.rn.relu.f16"), 0x0000);
}
