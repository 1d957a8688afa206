//! Runs a computation compiled for the best x86-64 feature level the CPU has, detected at run
//! time: gpufp's fast paths are safe, portable Rust that the compiler vectorizes well for AVX2 or
//! AVX-512, but a portable binary targets SSE2.
//!
//! `unsafe` is kept as small as it can be (the workspace's other `unsafe` is in gpufp-simd's
//! explicit AVX-512 kernels): calling a
//! function compiled with `#[target_feature]` is undefined behaviour on a CPU without those
//! features, so each call is guarded by `is_x86_feature_detected!` for every feature that the
//! function enables, and the functions do nothing but run the job.

/// A computation to compile once per feature level.
pub trait Job {
    type Output;
    /// The computation. Implementations must be `#[inline(always)]`, and so must everything
    /// they call that should benefit, so that the body is compiled for the caller's features.
    /// `HW_FMA` says whether an fma instruction is available (`f64::mul_add` compiles to it).
    fn run<const HW_FMA: bool>(self) -> Self::Output;
}

/// The feature levels a job is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The build's own target features (SSE2 for a default x86-64 build).
    Portable,
    /// x86-64-v3: AVX2, FMA, BMI1/2, LZCNT.
    V3,
    /// x86-64-v4: v3 and AVX-512 F/BW/CD/DQ/VL.
    V4,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::V3 => "x86-64-v3 (AVX2, FMA)",
            Level::V4 => "x86-64-v4 (AVX-512)",
        }
    }
}

/// The environment variable that caps the level: `portable`, `v3` or `v4`.
pub const ENV: &str = "GPUFP_SIMD";

impl core::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        match s.to_ascii_lowercase().as_str() {
            "portable" => Ok(Level::Portable),
            "v3" | "x86-64-v3" => Ok(Level::V3),
            "v4" | "x86-64-v4" => Ok(Level::V4),
            _ => Err(format!(
                "`{s}` is not a SIMD level; {ENV} takes portable, v3 or v4"
            )),
        }
    }
}

/// The cap `$GPUFP_SIMD` sets, read once: `Ok(None)` where it is unset or empty, an error where
/// it names no level (then no cap applies; front-ends report it with [`cap`]).
pub fn cap() -> Result<Option<Level>, String> {
    static CAP: std::sync::OnceLock<Result<Option<Level>, String>> = std::sync::OnceLock::new();
    CAP.get_or_init(|| match std::env::var(ENV) {
        Ok(v) if !v.is_empty() => v.parse().map(Some),
        _ => Ok(None),
    })
    .clone()
}

/// The level gpufp runs at: the best this CPU supports ([`hardware`]), capped by `$GPUFP_SIMD`
/// so that every level can be measured and tested on one machine.
pub fn detected() -> Level {
    let hw = hardware();
    match cap() {
        Ok(Some(cap)) => hw.min(cap),
        _ => hw,
    }
}

/// The best level this CPU supports.
pub fn hardware() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        let v3 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("popcnt");
        let v4 = v3
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl");
        if v4 {
            return Level::V4;
        }
        if v3 {
            return Level::V3;
        }
    }
    Level::Portable
}

/// Runs `job` compiled for the best detected level.
#[inline]
pub fn run<J: Job>(job: J) -> J::Output {
    run_at(detected(), job)
}

/// Runs `job` compiled for `level`, or for the best detected level if `level` is above it.
#[inline]
pub fn run_at<J: Job>(level: Level, job: J) -> J::Output {
    #[cfg(target_arch = "x86_64")]
    {
        match level.min(detected()) {
            // SAFETY: `detected` is at most `hardware`, which checked every feature `v4` enables.
            Level::V4 => return unsafe { v4(job) },
            // SAFETY: as above, for `v3`.
            Level::V3 => return unsafe { v3(job) },
            Level::Portable => {}
        }
    }
    let _ = level;
    job.run::<{ cfg!(target_feature = "fma") }>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn v3<J: Job>(job: J) -> J::Output {
    job.run::<true>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
)]
unsafe fn v4<J: Job>(job: J) -> J::Output {
    job.run::<true>()
}
