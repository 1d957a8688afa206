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

/// The best level this CPU supports.
pub fn detected() -> Level {
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
            // SAFETY: `detected` checked every feature `v4` enables.
            Level::V4 => return unsafe { v4(job) },
            // SAFETY: `detected` checked every feature `v3` enables.
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
