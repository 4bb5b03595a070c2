//! Serving: how many tokens and sequences the KV budget holds, and how fast decoding can
//! possibly go (a roofline: the lower of the bandwidth and compute ceilings, plus the link
//! cost of a split). Ceilings are upper bounds, never benchmarks.

use serde::Serialize;

use crate::engine::hardware::gpu::{Gpu, LinkKind};
use crate::engine::workload::scenario::Split;

/// The KV budget of one option, in tokens and sequences.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Capacity {
    /// Tokens whose KV fits in what the card(s) have left after weights, activations and
    /// overhead, rounded down to whole blocks.
    pub kv_capacity_tokens: u64,
    /// Sequences of the chosen context that fit at once: the judge's largest batch at that
    /// context (under vLLM and SGLang, what the KV pool admits, whatever the batch asked).
    pub max_concurrent_sequences: u64,
    /// Longest context at the chosen batch that the judge fits (up to the model's trained
    /// length).
    pub max_context: u64,
    /// Largest batch at the chosen context that the judge fits.
    pub max_batch: u64,
    /// vLLM's hybrid allocator, for a model with layers of several kinds: its groups and
    /// blocks, and what its log reports (`kv_capacity_tokens` is then the logged figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_groups: Option<crate::engine::memory::vllm_pool::PoolCapacity>,
}

/// Which ceiling binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    Bandwidth,
    Compute,
}

impl Bound {
    pub fn id(self) -> &'static str {
        match self {
            Bound::Bandwidth => "bandwidth",
            Bound::Compute => "compute",
        }
    }
}

/// What one decode step reads and computes, for the whole model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeWork {
    /// Weight bytes read per step (active weights; once for the whole batch).
    pub weights_bytes: f64,
    /// KV bytes read per sequence per step at the current context.
    pub kv_bytes_per_sequence: f64,
    /// Parameters that multiply each token (2 FLOPs each).
    pub active_params: f64,
    pub hidden: f64,
    pub layers: f64,
}

/// The decode roofline of one option.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Roofline {
    /// Tokens/s of one sequence (one token per step).
    pub per_stream: f64,
    /// Tokens/s of the whole batch.
    pub aggregate: f64,
    pub bound: Bound,
    /// Seconds the split's link adds to each step.
    pub link_seconds_per_step: f64,
    /// Time to first token for the prompt (compute-bound prefill), if the card's compute is known.
    pub prefill_seconds: Option<f64>,
}

/// Peak FLOP/s a card offers for these weights: FP8 tensor cores for FP8 weights, else BF16.
pub fn peak_flops(gpu: &Gpu, fp8_weights: bool) -> Option<f64> {
    let tflops = if fp8_weights && gpu.fp8 {
        gpu.fp8_tflops.or(gpu.bf16_tflops)
    } else {
        gpu.bf16_tflops
    };
    tflops.map(|t| t * 1e12)
}

/// Bytes one tensor-parallel step moves over the link: two all-reduces per layer of the
/// batch's hidden states in 16-bit, each ring all-reduce sending 2·(n−1)/n of the message.
pub fn tensor_parallel_link_bytes(work: &DecodeWork, batch: f64, n: f64) -> f64 {
    work.layers * 2.0 * (2.0 * (n - 1.0) / n) * batch * work.hidden * 2.0
}

/// Bytes a layer split moves per step: the hidden states hop from card to card once.
pub fn layer_split_link_bytes(work: &DecodeWork, batch: f64, n: f64) -> f64 {
    (n - 1.0) * batch * work.hidden * 2.0
}

/// The seconds of one decode step, by what bounds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSeconds {
    /// Reading the weights once and each sequence's KV.
    pub memory: f64,
    /// 2 FLOPs per active parameter per token computed (0 when the card's compute is unknown).
    pub compute: f64,
    /// What the split's link adds.
    pub link: f64,
    /// The FLOP/s the step computes at (0 when the card's compute is unknown).
    pub flops_per_s: f64,
}

impl StepSeconds {
    /// The step: the slower of memory and compute, then the link.
    pub fn total(&self) -> f64 {
        self.memory.max(self.compute) + self.link
    }
}

/// One step of `count` cards of `gpu` that reads the KV of `sequences` sequences and
/// computes `tokens` tokens (a decode step: both the batch; a chunked-prefill step: the
/// chunk plus the running sequences' one token each).
///
/// Tensor parallel reads and computes on all cards at once; a layer split has them work in
/// turn, so one card's bandwidth and compute set the pace (seed 003 section 07).
pub fn step_seconds(
    gpu: &Gpu,
    count: u32,
    split: Split,
    work: &DecodeWork,
    sequences: f64,
    tokens: f64,
    fp8: bool,
) -> StepSeconds {
    let n = f64::from(count.max(1));
    let parallel = if count > 1 && split == Split::Tensor {
        n
    } else {
        1.0
    };
    let bandwidth = gpu.bandwidth_bytes_per_s() * parallel;
    let flops = peak_flops(gpu, fp8).map(|f| f * parallel);
    let read = work.weights_bytes + sequences * work.kv_bytes_per_sequence;
    let link_bytes = match (count > 1, split) {
        (false, _) => 0.0,
        (true, Split::Tensor) => tensor_parallel_link_bytes(work, tokens, n),
        (true, Split::Layer) => layer_split_link_bytes(work, tokens, n),
    };
    StepSeconds {
        memory: read / bandwidth,
        compute: flops.map_or(0.0, |f| 2.0 * work.active_params * tokens / f),
        link: link_bytes / (gpu.link_speed_for(count) * 1e9),
        flops_per_s: flops.unwrap_or(0.0),
    }
}

/// The roofline for `count` cards of `gpu` at `batch` sequences.
///
/// step time = max(bytes read ÷ bandwidth, 2 · active params · batch ÷ FLOP/s) + link time
/// ([`step_seconds`]).
pub fn roofline(
    gpu: &Gpu,
    count: u32,
    split: Split,
    work: &DecodeWork,
    batch: u64,
    prompt: u64,
    fp8: bool,
) -> Roofline {
    let n = f64::from(count.max(1));
    let b = batch.max(1) as f64;
    let step = step_seconds(gpu, count, split, work, b, b, fp8);
    let parallel = if count > 1 && split == Split::Tensor {
        n
    } else {
        1.0
    };
    let flops = peak_flops(gpu, fp8).map(|f| f * parallel);
    let total = step.total();
    Roofline {
        per_stream: 1.0 / total,
        aggregate: b / total,
        bound: if step.compute > step.memory {
            Bound::Compute
        } else {
            Bound::Bandwidth
        },
        link_seconds_per_step: step.link,
        prefill_seconds: flops.map(|f| 2.0 * work.active_params * prompt as f64 * b / f),
    }
}

/// The link a combo uses (formatted only when shown).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Link {
    pub kind: LinkKind,
    /// Card-to-card GB/s of the fabric or PCIe.
    pub gbs: f64,
    pub pcie_gen: Option<u8>,
    pub cards: u32,
    /// Between nodes of 8, for combos beyond one node.
    pub network_gbps: Option<f64>,
    /// Cards joined by bridges in groups of this many, PCIe between the groups.
    pub bridged_groups_of: Option<u32>,
}

pub fn link_of(gpu: &Gpu, count: u32, network_gbps: Option<f64>) -> Link {
    let kind = gpu.link_kind_for(count);
    Link {
        kind,
        bridged_groups_of: (kind != gpu.link).then(|| gpu.bridge_reach()),
        gbs: gpu.link_speed_for(count),
        pcie_gen: gpu.pcie_gen,
        cards: count,
        network_gbps,
    }
}

impl std::fmt::Display for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cards <= 1 {
            return f.write_str("none (one card)");
        }
        match self.kind {
            LinkKind::Pcie | LinkKind::None => write!(
                f,
                "PCIe Gen{} peer-to-peer {:.0} GB/s",
                self.pcie_gen.unwrap_or(4),
                self.gbs
            )?,
            LinkKind::Bridge => write!(f, "bridge {:.0} GB/s ({} cards)", self.gbs, self.cards)?,
            other => write!(f, "{} {:.0} GB/s", other.label(), self.gbs)?,
        }
        if let Some(group) = self.bridged_groups_of {
            write!(f, " between bridged groups of {group}")?;
        }
        match self.network_gbps {
            Some(net) if self.cards > 8 => {
                write!(
                    f,
                    " within nodes of 8; {net:.0} Gb/s network between {} nodes",
                    self.cards.div_ceil(8)
                )
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work() -> DecodeWork {
        // Llama-class 70B in FP8: 70 GB of weights, 0.33 MB of KV per token at 8k = 2.68 GB.
        DecodeWork {
            weights_bytes: 70e9,
            kv_bytes_per_sequence: 2.684e9,
            active_params: 70e9,
            hidden: 8192.0,
            layers: 80.0,
        }
    }

    #[test]
    fn kv_pool_in_blocks_of_16() {
        // 10 GB of budget at 327,680 B/token = 30,517 tokens → 30,512 in whole blocks.
        assert_eq!(
            crate::engine::memory::kv::kv_pool_tokens(10e9, 327_680.0, 16),
            30_512
        );
        assert_eq!(
            crate::engine::memory::kv::kv_pool_tokens(10e9, 327_680.0, 1),
            30_517
        );
        assert_eq!(crate::engine::memory::kv::kv_pool_tokens(-1.0, 327_680.0, 16), 0);
    }

    #[test]
    fn batch_moves_the_roofline_from_bandwidth_to_compute() {
        let h100 = crate::catalog::Catalog::embedded().unwrap();
        let g = &h100.gpus[h100.gpu_index("h100-sxm").unwrap()];
        let w = DecodeWork {
            kv_bytes_per_sequence: 0.0,
            ..work()
        };
        let one = roofline(g, 1, Split::Tensor, &w, 1, 1024, true);
        assert_eq!(one.bound, Bound::Bandwidth);
        // 3,350 GB/s ÷ 70 GB = 47.9 tokens/s.
        assert!((one.per_stream - 3350e9 / 70e9).abs() < 1e-6);
        // Compute: 1,979 TFLOPS ÷ (2 × 70e9) = 14,136 tokens/s in all; bandwidth: B × 47.9.
        // The crossover is near batch 295.
        let big = roofline(g, 1, Split::Tensor, &w, 512, 1024, true);
        assert_eq!(big.bound, Bound::Compute);
        assert!((big.aggregate - 1979e12 / 140e9).abs() < 1e-6);
        let under = roofline(g, 1, Split::Tensor, &w, 256, 1024, true);
        assert_eq!(under.bound, Bound::Bandwidth);
        // Prefill of 1,024 tokens: 2 × 70e9 × 1024 ÷ 1,979e12 = 72 ms.
        assert!((one.prefill_seconds.unwrap() - 2.0 * 70e9 * 1024.0 / 1979e12).abs() < 1e-9);
    }

    #[test]
    fn tensor_parallel_divides_the_read_and_pays_the_link() {
        let c = crate::catalog::Catalog::embedded().unwrap();
        let l40s = &c.gpus[c.gpu_index("l40s").unwrap()];
        let w = work();
        let single = roofline(l40s, 1, Split::Tensor, &w, 1, 1024, true);
        let tp = roofline(l40s, 2, Split::Tensor, &w, 1, 1024, true);
        let layer = roofline(l40s, 2, Split::Layer, &w, 1, 1024, true);
        // Two all-reduces per layer: 80 × 2 × (2 × 1/2) × 8192 × 2 B = 2.6 MB over 32 GB/s.
        assert!((tp.link_seconds_per_step - 80.0 * 2.0 * 8192.0 * 2.0 / 32e9).abs() < 1e-12);
        assert!(
            tp.per_stream > single.per_stream * 1.9,
            "two cards read in parallel"
        );
        // A layer split reads at one card's pace.
        assert!((layer.per_stream - single.per_stream).abs() / single.per_stream < 0.01);
    }
}
