//! gpufp-hw: the hardware harness. It runs gpufp's test vectors on an NVIDIA GPU and compares the
//! device's bits with the model's, case by case (docs/hardware.md).
//!
//! - [`kernel`] generates a PTX kernel per instruction that computes the cases of a `gpufp sweep`
//!   on the device (the same counter-based operands) or reads explicit cases;
//! - [`device`] loads it through the CUDA driver API, found at run time, and runs it;
//!   [`backend::Emulator`] stands in for the GPU where there is none;
//! - [`compare`] digests the results per chunk exactly as `gpufp sweep` does and lists the
//!   mismatching cases with the manual's verdicts;
//! - [`campaign`] runs every group of variants ([`variants`], [`probes`]) into a report, with
//!   the MUFU captures the table fitter needs ([`capture`]).
//!
//! Unsafe code is confined to [`device`].
#![deny(unsafe_code)]

pub mod backend;
pub mod campaign;
pub mod capture;
pub mod compare;
pub mod device;
pub mod kernel;
pub mod probes;
pub mod variants;
