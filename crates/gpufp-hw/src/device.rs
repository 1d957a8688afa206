//! The NVIDIA GPU backend: the CUDA driver API, loaded at run time through `cudarc`'s dynamic
//! loading, so that this crate builds and its tests run where CUDA is absent. Without a driver,
//! [`Gpu::open`] returns an error that says so; it never panics. This is the crate's only unsafe
//! code: launching a kernel is unsafe because the driver cannot check its arguments.
#![allow(unsafe_code)]

use crate::backend::{ptx_version, Backend, Batch, HwError};
use crate::kernel::{kernel, result_bytes, Source, ENTRY};
use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use gpufp::ptx::{Instr, Target};
use gpufp::vectors::Space;
use std::collections::HashMap;
use std::sync::Arc;

/// Threads per block.
const BLOCK: u32 = 256;

/// One GPU, with the kernels loaded so far.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    target: Target,
    kernels: HashMap<(Instr, Source), CudaFunction>,
}

fn driver(what: &str) -> impl Fn(cudarc::driver::DriverError) -> HwError + '_ {
    move |e| HwError(format!("CUDA driver: {what}: {e}"))
}

impl Gpu {
    /// Opens GPU `ordinal` through the CUDA driver (`libcuda`), found at run time.
    pub fn open(ordinal: usize) -> Result<Gpu, HwError> {
        // SAFETY: only tries to load the shared library; calls nothing in it.
        if !unsafe { sys::is_culib_present() } {
            return Err(HwError(
                "no CUDA driver: libcuda.so could not be loaded (is this a machine with an \
                 NVIDIA GPU and its driver? LD_LIBRARY_PATH may need the driver's directory)"
                    .into(),
            ));
        }
        let count = CudaContext::device_count().map_err(driver("counting devices"))?;
        if ordinal as i64 >= i64::from(count) {
            return Err(HwError(format!(
                "no GPU {ordinal}: the driver sees {count} device(s)"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("creating a context"))?;
        let name = ctx.name().map_err(driver("reading the device name"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("reading the compute capability"))?;
        let target = Target::new((major * 10 + minor) as u32);
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name,
            target,
            kernels: HashMap::new(),
        })
    }

    /// The kernel for `instr` with operands from `source`, generated and loaded on first use.
    fn function(&mut self, instr: &Instr, source: Source) -> Result<CudaFunction, HwError> {
        if let Some(f) = self.kernels.get(&(*instr, source)) {
            return Ok(f.clone());
        }
        let version = ptx_version(instr, self.target)?;
        let text = kernel(instr, source, self.target, version);
        let module = self.ctx.load_module(Ptx::from_src(text)).map_err(|e| {
            HwError(format!(
                "CUDA driver: loading the kernel for `{instr}`: {e}"
            ))
        })?;
        let f = module
            .load_function(ENTRY)
            .map_err(driver("finding the kernel's entry point"))?;
        self.kernels.insert((*instr, source), f.clone());
        Ok(f)
    }
}

impl Backend for Gpu {
    fn describe(&self) -> String {
        format!("{} ({})", self.name, self.target)
    }

    fn target(&self) -> Target {
        self.target
    }

    fn run(&mut self, instr: &Instr, batch: &Batch) -> Result<Vec<u64>, HwError> {
        let n = batch.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let (source, base, seed, cases) = match batch {
            Batch::Sweep { plan, base, .. } => match plan.space {
                Space::Exhaustive => (Source::Exhaustive, *base, 0, None),
                Space::Random { seed, .. } => (Source::Random, *base, seed, None),
            },
            Batch::Cases(c) => {
                let k = usize::from(instr.inputs);
                let flat: Vec<u64> = c.iter().flat_map(|ops| ops[..k].to_vec()).collect();
                (Source::Cases, 0, 0, Some(flat))
            }
        };
        let f = self.function(instr, source)?;
        let size = result_bytes(instr);
        let grid = u32::try_from(n.div_ceil(u64::from(BLOCK)))
            .map_err(|_| HwError(format!("{n} cases are too many for one launch")))?;
        let mut out = self
            .stream
            .alloc_zeros::<u8>(n as usize * size)
            .map_err(driver("allocating results"))?;
        // The kernel does not read `inp` unless its operands are explicit cases; one word stands in.
        let inp = self
            .stream
            .clone_htod(cases.as_deref().unwrap_or(&[0u64]))
            .map_err(driver("copying cases"))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(&mut out).arg(&inp).arg(&base).arg(&n).arg(&seed);
        // SAFETY: the kernel's parameters are (out, inp, base, n, seed) as pushed; it writes
        // `size` bytes for each of its `n` cases into `out`, which holds `n * size` bytes, and
        // reads `inputs` words per case from `inp` only for explicit cases, which it holds.
        unsafe { launch.launch(cfg) }.map_err(driver("launching the kernel"))?;
        let bytes = self
            .stream
            .clone_dtoh(&out)
            .map_err(driver("copying results"))?;
        // The copy into pageable memory has completed on return; this also reports any error
        // the kernel met.
        self.stream
            .synchronize()
            .map_err(driver("running the kernel"))?;
        Ok(bytes
            .chunks_exact(size)
            .map(|c| c.iter().rev().fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
            .collect())
    }
}
