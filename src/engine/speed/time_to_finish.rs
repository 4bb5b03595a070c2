//! Renting: what a card or combo costs for the user's term, and what a fine-tune costs to
//! finish (tokens × FLOPs per token ÷ sustained compute × hourly price).

use serde::Serialize;

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::workload::scenario::{Method, Scenario};

/// FLOPs per training token: a forward pass is 2 per parameter, the backward pass 4 when
/// weight gradients are computed (full fine-tune) and 2 when only activation gradients are
/// (LoRA/QLoRA, frozen base); checkpointing recomputes the forward (+2). MoE: active
/// parameters only.
pub fn flops_per_token(model: &Model, method: Method, checkpointing: bool) -> f64 {
    let n = model.params().active as f64;
    let passes = match method {
        Method::Full => 6.0,
        Method::Lora | Method::Qlora => 4.0,
        Method::Inference => 2.0,
    };
    let recompute = if checkpointing && method.is_training() {
        2.0
    } else {
        0.0
    };
    (passes + recompute) * n
}

/// Time to finish a fine-tune.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Training {
    pub hours: f64,
    /// Of which QLoRA's dequantization (memory-bound, not in the FLOPs).
    pub dequant_hours: f64,
    /// Compute alone.
    pub compute_hours: f64,
    /// Gradient / parameter traffic between the cards; it overlaps the compute, so the
    /// slower of the two sets the pace.
    pub comm_hours: f64,
    pub flops_per_token: f64,
    pub tokens: f64,
}

/// Hours for `count` cards of `gpu` to get through the scenario's training tokens.
///
/// compute: tokens × epochs × FLOPs/token ÷ (cards × dense BF16 peak × utilization), data
/// parallel with ideal scaling. QLoRA also expands its 4-bit weights to 16-bit in every
/// pass (forward, backward, and the recompute with checkpointing): per step and card
/// 2.5 B × parameters per pass through the card's memory.
pub fn training_time(model: &Model, sc: &Scenario, gpu: &Gpu, count: u32) -> Option<Training> {
    let tokens = sc.rent.train_tokens? as f64 * f64::from(sc.rent.epochs);
    if !sc.method.is_training() {
        return None;
    }
    let peak = gpu.bf16_tflops? * 1e12;
    let n = f64::from(count.max(1));
    let per_token = flops_per_token(model, sc.method, sc.checkpointing);
    let compute_s = tokens * per_token / (n * peak * sc.rent.utilization);
    let comm_s = if count > 1 {
        let steps_per_card = tokens / (sc.context * sc.batch) as f64 / n;
        steps_per_card * comm_bytes_per_step(model, sc, n) / link_bytes_per_s(gpu, count, sc.network_gbps)
    } else {
        0.0
    };
    let dequant_s = if sc.method == Method::Qlora && sc.weights != WeightPrecision::Bf16 {
        let steps_per_card = tokens / (sc.context * sc.batch) as f64 / n;
        let passes = if sc.checkpointing { 3.0 } else { 2.0 };
        steps_per_card * passes * 2.5 * model.params().total as f64 / gpu.bandwidth_bytes_per_s()
    } else {
        0.0
    };
    Some(Training {
        hours: (compute_s.max(comm_s) + dequant_s) / 3600.0,
        dequant_hours: dequant_s / 3600.0,
        compute_hours: compute_s / 3600.0,
        comm_hours: comm_s / 3600.0,
        flops_per_token: per_token,
        tokens,
    })
}

/// Bytes each card sends per optimizer step (ring collectives move (n−1)/n of the data):
/// ZeRO-3 gathers the 16-bit parameters for the forward and again for the backward pass and
/// reduce-scatters the gradients (3 × P × 2 B); lower stages all-reduce the gradients of what
/// trains (2 × P × 2 B). LoRA's frozen base is gathered under ZeRO-3 too; its adapters' gradients
/// are small.
pub fn comm_bytes_per_step(model: &Model, sc: &Scenario, n: f64) -> f64 {
    let ring = (n - 1.0) / n;
    let p = model.params().total as f64;
    let frozen_bytes = p * sc.weights.bits() / 8.0;
    let trainable = match sc.method {
        Method::Full => p,
        _ => crate::engine::memory::calibrated::adapter_params(&model.arch, sc.lora_rank, sc.lora_targets)
            as f64,
    };
    let grads = 2.0 * trainable * 2.0;
    let gather = if sc.zero == 3 {
        if sc.method == Method::Full {
            2.0 * p * 2.0
        } else {
            2.0 * frozen_bytes
        }
    } else {
        0.0
    };
    let reduce = if sc.zero == 3 { trainable * 2.0 } else { grads };
    ring * (gather + reduce)
}

/// Bytes per second each card can send: the node's fabric within 8 cards, the network
/// (per card, Gb/s → B/s) beyond.
pub fn link_bytes_per_s(gpu: &Gpu, count: u32, network_gbps: f64) -> f64 {
    let fabric = gpu.link_speed_gbs() * 1e9;
    if count > 8 {
        fabric.min(network_gbps * 1e9 / 8.0)
    } else {
        fabric
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flops_per_token_by_method() {
        let c = crate::catalog::Catalog::embedded().unwrap();
        let m = c.model("seed-7b").unwrap();
        assert_eq!(flops_per_token(m, Method::Full, false), 6.0 * 7e9);
        assert_eq!(flops_per_token(m, Method::Full, true), 8.0 * 7e9);
        assert_eq!(flops_per_token(m, Method::Lora, true), 6.0 * 7e9);
        assert_eq!(flops_per_token(m, Method::Qlora, false), 4.0 * 7e9);
        // MoE: the active parameters.
        let moe = c.model("mixtral-8x7b").unwrap();
        assert_eq!(flops_per_token(moe, Method::Full, false), 6.0 * 12_879_925_248.0);
    }

    #[test]
    fn zero3_traffic_and_the_network_beyond_one_node() {
        let c = crate::catalog::Catalog::embedded().unwrap();
        let m = c.model("seed-70b").unwrap();
        let sc = Scenario {
            cards: 64,
            ..Scenario::seed_training(Method::Full).calibrated()
        };
        // 3 × 70e9 × 2 B × 63/64 per step and card.
        assert!((comm_bytes_per_step(m, &sc, 64.0) - 3.0 * 70e9 * 2.0 * 63.0 / 64.0).abs() < 1.0);
        let h100 = &c.gpus[c.gpu_index("h100-sxm").unwrap()];
        assert_eq!(link_bytes_per_s(h100, 8, 400.0), 900e9, "NVLink inside the node");
        assert_eq!(link_bytes_per_s(h100, 64, 400.0), 50e9, "400 Gb/s between nodes");
        // With a billion tokens the 64-card run waits on the network, not on compute.
        let mut sc = sc;
        sc.rent.train_tokens = Some(1_000_000_000);
        let t = training_time(m, &sc, h100, 64).unwrap();
        assert!(t.comm_hours > t.compute_hours);
        assert_eq!(t.hours, t.comm_hours);
    }
}
