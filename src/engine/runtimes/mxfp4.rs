//! How vLLM lays out an MXFP4 checkpoint's experts on a card (gpt-oss): the fused-MoE kernel
//! it picks by compute capability and release decides what the experts hold beyond the
//! file's bytes (`vllm/model_executor/layers/quantization/mxfp4.py`, `create_weights` and
//! `process_weights_after_loading`; docs/notes/runtime-rules.md).
//!
//! - **Marlin** (Ampere and Ada, consumer Blackwell, and Hopper in 0.10.1–0.10.x): the
//!   experts are padded for the kernel, the hidden size to a multiple of 256 and the
//!   intermediate to 128 (gpt-oss: 2,880 → 3,072 × 2,944). A 0.10.1 H100 load of gpt-oss-120b
//!   took 65.97 GiB; this rule gives 65.84.
//! - **Triton** (Hopper from 0.11, the `triton_kernels` path): the intermediate is padded to
//!   64 (gpt-oss's 2,880 already is), the weights and scales are swizzled into new tensors,
//!   but the checkpoint's scale tensors stay registered beside their swizzled copy, and the
//!   biases are widened to fp32. gpt-oss-120b on an H100 under 0.11 and 0.14.1: "Model
//!   loading took 64.38 GiB"; this rule gives 64.12.
//! - **FlashInfer** (B200/GB200, compute capability 10.x): both sizes padded to 256.
//! - Before 0.10.1 (the gpt-oss preview image) and off NVIDIA: as stored.

use crate::engine::basics::units::{format_gb, group_thousands, words};
use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::workload::choices::Mxfp4Moe;
use crate::engine::workload::version::Version;

/// Bytes of one MXFP4 weight: 4 bits and one 8-bit scale per 32 values.
const MXFP4_BYTES_PER_VALUE: f64 = 4.25 / 8.0;
/// One E8M0 scale per block of 32 values.
const MXFP4_SCALE_BYTES_PER_VALUE: f64 = 1.0 / 32.0;

/// The NVIDIA compute-capability family of a catalog card, from its architecture.
fn sm_major(gpu: &Gpu) -> Option<u32> {
    if !gpu.vendor.eq_ignore_ascii_case("nvidia") {
        return None;
    }
    let arch = gpu.architecture.to_ascii_lowercase();
    Some(if arch.contains("hopper") {
        9
    } else if arch.contains("blackwell") {
        // B200/GB200/B300 are sm_100; the GB20x consumer and workstation chips and the
        // GB10 are sm_12x.
        if ["(b200", "(gb200", "(b300", "(gb300"]
            .iter()
            .any(|c| arch.contains(c))
        {
            10
        } else {
            12
        }
    } else {
        8
    })
}

/// The kernel vLLM `version` picks for MXFP4 experts on `gpu` (`get_mxfp4_backend`).
pub fn vllm_kernel(version: Version, gpu: &Gpu) -> Mxfp4Moe {
    if version < Version::Release(0, 10, 1) {
        return Mxfp4Moe::AsStored;
    }
    match sm_major(gpu) {
        None => Mxfp4Moe::AsStored,
        Some(9) if version >= Version::Release(0, 11, 0) => Mxfp4Moe::Triton,
        Some(10) => Mxfp4Moe::FlashInfer,
        Some(_) => Mxfp4Moe::Marlin,
    }
}

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// The bytes the kernel holds beyond the checkpoint's experts (all cards together), and
/// the words that explain them; zero where it keeps them as stored or the model has no
/// experts.
pub fn layout_bytes(model: &Model, kernel: Mxfp4Moe) -> (f64, String) {
    let a = &model.arch;
    let Some(moe) = a.moe.as_ref() else {
        return (0.0, String::new());
    };
    let (h, i) = (a.hidden, moe.expert_intermediate);
    let (hp, ip, pad) = match kernel {
        Mxfp4Moe::AsStored => return (0.0, String::new()),
        Mxfp4Moe::Marlin => (
            round_up(h, 256),
            round_up(i, 128),
            "Marlin pads hidden to 256, intermediate to 128",
        ),
        Mxfp4Moe::Triton => (
            h,
            round_up(i, 64),
            "Triton keeps the checkpoint's scales beside their swizzled copy and widens the biases to fp32",
        ),
        Mxfp4Moe::FlashInfer => (
            round_up(h, 256),
            round_up(i, 256),
            "FlashInfer pads hidden and intermediate to 256",
        ),
    };
    let experts = a.moe_layers() * moe.experts;
    // Per expert: gate-up (2·I × H) and down (H × I) weights, and their biases (2·I + H).
    let padded = 3.0 * ((hp * ip) as f64 - (h * i) as f64) * MXFP4_BYTES_PER_VALUE
        + 2.0 * ((2 * ip + hp) as f64 - (2 * i + h) as f64);
    let triton = if kernel == Mxfp4Moe::Triton {
        3.0 * (hp * ip) as f64 * MXFP4_SCALE_BYTES_PER_VALUE + 2.0 * (2 * ip + hp) as f64
    } else {
        0.0
    };
    let bytes = experts as f64 * (padded + triton);
    let words = if crate::engine::basics::units::wants_words() && bytes > 0.0 {
        words!(
            " + vLLM's MXFP4 experts on this card ({pad}): {} experts, {}",
            group_thousands(experts as i64),
            format_gb(bytes)
        )
    } else {
        String::new()
    };
    (bytes, words)
}
