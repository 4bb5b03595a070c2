//! The decode ceiling of a placement: a token passes the devices in turn, so one step
//! takes the sum over devices of (bytes it reads ÷ its bandwidth), plus what the placement
//! sends over PCIe. The weights are read once per step for the whole batch, the KV once
//! per sequence. An upper bound, like every ceiling here.

use serde::Serialize;

/// One term of a step's time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepPart {
    /// "RTX 4090", "host RAM", "PCIe".
    pub device: String,
    #[serde(serialize_with = "crate::engine::memory::breakdown::whole_bytes")]
    pub bytes: f64,
    /// Bytes per second it moves them at.
    pub bytes_per_s: f64,
    pub seconds: f64,
}

/// The decode ceiling under a placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacedSpeed {
    /// Tokens/s of one sequence.
    pub tokens_per_s: f64,
    /// Tokens/s of the whole batch.
    pub aggregate_tokens_per_s: f64,
    pub seconds_per_step: f64,
    pub parts: Vec<StepPart>,
    /// The part that takes longest: what bounds the speed.
    pub bound: String,
    /// Time to first token for the prompt under this placement: each device computes its
    /// layers, and what RAM holds crosses PCIe to a GPU for every prefill pass; `None` when
    /// a card's compute is unknown.
    pub prefill_seconds: Option<f64>,
}

/// The ceiling from the parts of one step, for `batch` sequences; `None` when a part's
/// speed is unknown (host RAM bandwidth not given) or nothing is read.
pub fn from_parts(parts: Vec<StepPart>, batch: u64) -> Option<PlacedSpeed> {
    // A part with bytes to read at an unknown (zero or NaN) rate: no speed.
    if parts
        .iter()
        .any(|p| p.bytes > 0.0 && p.bytes_per_s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
    {
        return None;
    }
    let parts: Vec<StepPart> = parts.into_iter().filter(|p| p.bytes > 0.0).collect();
    let seconds: f64 = parts.iter().map(|p| p.seconds).sum();
    if seconds.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let bound = parts
        .iter()
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .map(|p| p.device.clone())
        .unwrap_or_default();
    Some(PlacedSpeed {
        tokens_per_s: 1.0 / seconds,
        aggregate_tokens_per_s: batch.max(1) as f64 / seconds,
        seconds_per_step: seconds,
        parts,
        bound,
        prefill_seconds: None,
    })
}

/// A part reading `bytes` at `bytes_per_s` (unknown speed: NaN seconds, caught above).
pub fn part(device: impl Into<String>, bytes: f64, bytes_per_s: Option<f64>) -> StepPart {
    let rate = bytes_per_s.unwrap_or(0.0);
    StepPart {
        device: device.into(),
        bytes,
        bytes_per_s: rate,
        seconds: if rate > 0.0 { bytes / rate } else { f64::NAN },
    }
}

/// Prefill of `prompt` tokens under a placement: 2 FLOPs per active parameter per token on
/// the device that computes each share of the layers (`shares`: fraction of the layers and
/// that device's FLOP/s), plus `streamed_bytes` copied over PCIe once per prefill pass of
/// `pass_tokens` (llama.cpp runs a large batch of a CPU layer on the GPU, copying its
/// weights, `GGML_OP_OFFLOAD_MIN_BATCH`; vLLM copies its offloaded weights every forward).
pub fn prefill_seconds(
    active_params: f64,
    prompt: u64,
    shares: &[(f64, Option<f64>)],
    streamed_bytes: f64,
    pass_tokens: u64,
    pcie_bytes_per_s: f64,
) -> Option<f64> {
    let mut t = 0.0;
    for (fraction, flops) in shares {
        if *fraction > 0.0 {
            t += fraction * 2.0 * active_params * prompt as f64 / (*flops)?;
        }
    }
    let passes = prompt.div_ceil(pass_tokens.max(1)) as f64;
    if streamed_bytes > 0.0 && pcie_bytes_per_s > 0.0 {
        t += passes * streamed_bytes / pcie_bytes_per_s;
    }
    Some(t)
}
