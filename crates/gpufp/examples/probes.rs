//! Runs the flush-to-zero probes of policy `ftz_tininess` and a few roundings through the core,
//! printing operands and results as bits: `cargo run -q -p gpufp --example probes`.

use gpufp::{ieee, Round, Rounding, Tininess, F16, F32};

fn main() {
    println!("mul.ftz.f32 probes (policy ftz_tininess) under each tininess reading:");
    for (a, b) in [(0x3F7F_FFFE, 0x0080_0001), (0x3F7F_FFFF, 0x0080_0000)] {
        for t in [
            Tininess::IeeeRounded,
            Tininess::BeforeRounding,
            Tininess::UnboundedRounded,
        ] {
            let d = ieee::mul(F32(a), F32(b), Rounding::ftz(Round::Rn, t));
            println!(
                "  mul.rn.ftz.f32 0x{a:08x} 0x{b:08x} = 0x{:08x}  ({t:?})",
                d.0
            );
        }
    }
    println!("1/3 in f32 and f16 in every rounding mode:");
    for r in Round::ALL {
        let d32 = ieee::div(F32(0x3F80_0000), F32(0x4040_0000), Rounding::ieee(r));
        let d16 = ieee::div(F16(0x3C00), F16(0x4200), Rounding::ieee(r));
        println!(
            "  div.{}: f32 0x{:08x}  f16 0x{:04x}",
            r.ptx_name(),
            d32.0,
            d16.0
        );
    }
    let fma = ieee::fma(
        F32(0x3F80_0001),
        F32(0x3F80_0001),
        F32(0xBF80_0002),
        Rounding::ieee(Round::Rn),
    );
    println!(
        "fma.rn.f32 (1+2^-23)^2 - (1+2^-22) = 0x{:08x} (2^-46, exact: one rounding)",
        fma.0
    );
}
