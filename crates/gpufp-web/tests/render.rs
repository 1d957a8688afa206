//! What the page receives is the front door's answer, field for field: checked natively here;
//! web/tests checks the page in a browser against the command line.

use gpufp::front::{eval_text, Options};
use gpufp_web::{check_text, command_line, complete_text, evaluate_text};

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_evaluation_is_the_explanation() {
    let ops = strings(&["{1.5, 2048}", "{-2, 1}", "{0.25, nan}"]);
    let e = evaluate_text(" fma.rn.f16x2 ", &ops, "", "", &[]);
    assert!(e.ok, "{:?}", e.error);
    let want = eval_text("fma.rn.f16x2", &ops, &Options::default()).unwrap();
    assert_eq!(e.text, want.to_string());
    assert_eq!(e.result, want.result_text);
    // 1.5 * -2 + 0.25 = -2.75 (0xc180); 2048 * 1 + NaN is the canonical NaN.
    assert_eq!(e.result, "0x7fffc180");
    assert_eq!(e.lanes[0].bits, "0xc180");
    assert_eq!(e.lanes[0].value, "-2.75");
    assert_eq!(e.operands[0].bits, "0x68003e00");
    assert_eq!(e.operands[0].lanes[1].value, "2048");
    let l = e.layout.as_ref().unwrap();
    assert_eq!((l.lanes, l.bits, l.exponent, l.fraction), (2, 16, 5, 10));
    assert_eq!(e.rules.len(), want.rules.len());
    assert_eq!(e.guarantees.len(), 2);
    assert_eq!(
        command_line(" fma.rn.f16x2 ", &ops, "", "", &[]),
        "gpufp eval fma.rn.f16x2 '{1.5, 2048}' '{-2, 1}' '{0.25, nan}'"
    );
}

#[test]
fn alternatives_and_policies_pass_through() {
    let ops = strings(&["0x3F7FFFFE", "0x00800001"]);
    let e = evaluate_text("mul.rn.ftz.f32", &ops, "sm_80", "", &[]);
    assert_eq!(e.result, "0x00800000");
    assert!(e
        .alternatives
        .iter()
        .any(|a| a.policy == "ftz_tininess" && a.result == "0x00000000"));
    let pol = strings(&["ftz_tininess=BeforeRounding"]);
    let e = evaluate_text("mul.rn.ftz.f32", &ops, "sm_80", "", &pol);
    assert_eq!(e.result, "0x00000000");
    assert_eq!(
        command_line("mul.rn.ftz.f32", &ops, "sm_80", "", &pol),
        "gpufp eval --target sm_80 --policy ftz_tininess=BeforeRounding mul.rn.ftz.f32 0x3F7FFFFE 0x00800001"
    );
    let e = evaluate_text("mul.rn.ftz.f32", &ops, "", "", &strings(&["nope"]));
    let p = e.error.unwrap();
    assert_eq!(
        (p.kind, p.message.as_str()),
        ("policy", "policy `nope`: expected NAME=VALUE")
    );
    let names: Vec<&str> = gpufp::report::policies().iter().map(|p| p.name).collect();
    assert!(names.contains(&"oob_nan") && !names.contains(&"mufu_core"));
}

#[test]
fn problems_say_where() {
    let e = evaluate_text("add.foo.f32", &strings(&["1", "2"]), "", "", &[]);
    let p = e.error.unwrap();
    assert_eq!((p.kind, p.column), ("instr", Some(3)));
    assert_eq!(
        p.message,
        "`add.foo.f32`, column 4: unknown modifier `.foo`"
    );
    let e = evaluate_text("add.rn.f32", &strings(&["1", "zz"]), "", "", &[]);
    let p = e.error.unwrap();
    assert_eq!((p.kind, p.operand), ("operand", Some(1)));
    let e = evaluate_text("add.rn.f32", &strings(&["1", "2"]), "sm_99", "", &[]);
    assert_eq!(e.error.unwrap().kind, "options");
    let c = check_text("min.NaN.f32", "sm_75", "", 0);
    assert!(!c.ok);
    assert!(c.error.unwrap().message.contains("requires .target sm_80"));
}

#[test]
fn checks_completions_and_examples() {
    let c = check_text("min.f32", "", "", 0);
    assert!(c.ok && c.three && c.inputs == 2 && !c.predicate);
    assert!(!check_text("min.f16", "", "", 0).three);
    assert!(!check_text("fma.rn.f32", "", "", 0).three);
    let c = check_text("testp.finite.f64", "", "", 0);
    assert!(c.ok && c.predicate && c.inputs == 1);
    let c = check_text("div.f32", "", "1.3", 0);
    assert_eq!(c.effective.as_deref(), Some("div.approx.ftz.f32"));
    let c = complete_text("fma.r", "", "");
    assert_eq!(c.start, 4);
    let words: Vec<&str> = c.candidates.iter().map(|c| c.word.as_str()).collect();
    assert_eq!(words, ["rn", "rz", "rm", "rp", "relu"]);
}
