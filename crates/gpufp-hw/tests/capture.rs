//! The MUFU captures on the emulator with the G80 interpolator tables as the core (read from
//! ../shared/reference/sfu-g80-tables.tsv; skipped when it is absent): the capture file parses as
//! `gpufp fit-sfu` input, its inputs are MUFU operands in the capture's range, its outputs the
//! core's; and (ignored, long) a capture at the campaign's default stride lets the fitter recover
//! a table that reproduces every output of the whole binade.

use gpufp::mufu::fit::{fit, parse_capture};
use gpufp::mufu::interp::{self, Interpolator};
use gpufp::mufu::table::Tables;
use gpufp::mufu::{CoreRef, Op};
use gpufp::ptx::{Context, Target};
use gpufp::{Policies, F32};
use gpufp_hw::backend::Emulator;
use gpufp_hw::capture::{Capture, CAPTURES};
use std::sync::Arc;

fn shared_tables() -> Option<Tables> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference/sfu-g80-tables.tsv"
    );
    let text = std::fs::read_to_string(path).ok()?;
    Some(Tables::parse(&text).expect("the shared table parses"))
}

fn emulator(tables: &Tables) -> Emulator {
    let ctx = Context {
        target: Some(Target::new(90)),
        policies: Policies::default(),
        core: CoreRef::new(Arc::new(Interpolator::new(tables.clone(), "g80"))),
    };
    Emulator {
        target: Target::new(90),
        ctx,
        fault: None,
    }
}

fn op(c: &Capture) -> Op {
    match c.core {
        "rcp" => Op::Rcp,
        "rsqrt" => Op::Rsq,
        "ex2" => Op::Ex2,
        "lg2" => Op::Lg2,
        "sin" => Op::Sin,
        _ => Op::Cos,
    }
}

#[test]
fn captures_hold_the_cores_outputs() {
    let Some(tables) = shared_tables() else {
        eprintln!("skipped: ../shared/reference/sfu-g80-tables.tsv is absent");
        return;
    };
    for c in CAPTURES {
        let text = c.run(&mut emulator(&tables), 4099).unwrap();
        let pairs = parse_capture(&text).unwrap();
        assert!(pairs.len() > 400, "{}: {} pairs", c.core, pairs.len());
        let table = tables.get(interp::function(op(&c)).unwrap()).unwrap();
        for (a, out) in pairs {
            assert!((c.from..=c.to).contains(&a), "{}: input 0x{a:08x}", c.core);
            let want = interp::eval(op(&c), table, F32(a));
            assert_eq!(out, want.0, "{} 0x{a:08x}", c.core);
        }
    }
}

#[test]
#[ignore = "captures and fits six cores; run with --release"]
fn default_stride_suffices_for_the_fitter() {
    let Some(tables) = shared_tables() else {
        eprintln!("skipped: ../shared/reference/sfu-g80-tables.tsv is absent");
        return;
    };
    for c in CAPTURES {
        let pairs = parse_capture(&c.run(&mut emulator(&tables), 64).unwrap()).unwrap();
        let f = fit(op(&c), &pairs).unwrap();
        let (fitted, reproduced) = f.table.clone().expect("a complete fit");
        assert_eq!(reproduced, pairs.len(), "{}", c.core);
        // The fitted table reproduces the original on every input of the binades.
        let table = tables.get(interp::function(op(&c)).unwrap()).unwrap();
        for x in c.from..=c.to {
            let a = F32(x);
            assert_eq!(
                interp::eval(op(&c), &fitted, a),
                interp::eval(op(&c), table, a),
                "{} 0x{x:08x}",
                c.core
            );
        }
        eprintln!("{}: fitted from {} pairs", c.core, pairs.len());
    }
}
