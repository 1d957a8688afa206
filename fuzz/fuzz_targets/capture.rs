#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpufp_fuzz::capture(data));
