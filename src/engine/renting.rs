//! Renting: what a card or combo costs for the user's term, and what a fine-tune costs to
//! finish (tokens × FLOPs per token ÷ sustained compute × hourly price).

use serde::Serialize;

use super::gpu::Gpu;
use super::model::Model;
use super::precision::WeightPrecision;
use super::scenario::{Method, Scenario};

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
    let dequant_s = if sc.method == Method::Qlora && sc.weights != WeightPrecision::Bf16 {
        let steps_per_card = tokens / (sc.context * sc.batch) as f64 / n;
        let passes = if sc.checkpointing { 3.0 } else { 2.0 };
        steps_per_card * passes * 2.5 * model.params().total as f64 / gpu.bandwidth_bytes_per_s()
    } else {
        0.0
    };
    Some(Training {
        hours: (compute_s + dequant_s) / 3600.0,
        dequant_hours: dequant_s / 3600.0,
        flops_per_token: per_token,
        tokens,
    })
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
}
