//! Training state on one card: weights (sharded or offloaded), gradients, optimizer states,
//! adapters, under the scenario's ZeRO stage, offload and precision.

use super::{dequant_buffer, overhead, shard, training_activations, weight_bytes, weights_formula};
use crate::engine::basics::choice::Choice;
use crate::engine::basics::units::words;
use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::memory::breakdown::{Breakdown, Segment, SegmentKind};
use crate::engine::model::precision::WeightPrecision;
use crate::engine::model::{Architecture, MlpKind, Model};
use crate::engine::workload::scenario::{
    LoraTargets, Method, Offload, Optimizer, Scenario, TrainingPrecision,
};

/// Trainable parameters of the LoRA adapters: r × (d_in + d_out) per targeted linear.
pub fn adapter_params(a: &Architecture, rank: u64, targets: LoraTargets) -> u64 {
    let h = a.hidden;
    let attention = (h + a.q_width()) + 2 * (h + a.kv_width()) + (a.q_width() + h);
    let mlp_one = |i: u64| match a.mlp {
        MlpKind::Gated => 3 * (h + i),
        MlpKind::Plain => 2 * (h + i),
    };
    let mlp = match &a.moe {
        None => a.layers * mlp_one(a.intermediate),
        Some(m) => {
            let dense = a.dense_layers() * mlp_one(a.intermediate);
            let per_moe_layer = (m.experts + m.shared) * mlp_one(m.expert_intermediate);
            dense + a.moe_layers() * per_moe_layer
        }
    };
    let per_model = a.layers * attention + if targets == LoraTargets::All { mlp } else { 0 };
    rank * per_model
}

/// Optimizer state bytes per trainable parameter (without a master copy).
pub fn optimizer_state_bytes(optimizer: Optimizer, precision: TrainingPrecision, a: &Architecture) -> f64 {
    let state = match precision {
        TrainingPrecision::Mixed => 4.0,
        TrainingPrecision::Bf16 => 2.0,
    };
    match optimizer {
        Optimizer::AdamW => 2.0 * state,
        // Two 8-bit moments with block-wise scales (under 0.1 B).
        Optimizer::AdamW8bit | Optimizer::PagedAdamW8bit => 2.0,
        // Factored second moment: a row and a column vector per matrix ≈ 2/h of the weights.
        Optimizer::Adafactor => state * 2.0 / a.hidden as f64,
        Optimizer::Sgd | Optimizer::Lion => state,
    }
}

/// How the training state is spread: cards, ZeRO stage (0 on one card), offload, precision.
struct Layout {
    cards: u32,
    zero: u8,
    offload_optimizer: bool,
    offload_params: bool,
    mixed: bool,
}

impl Layout {
    fn of(sc: &Scenario) -> Layout {
        let cards = sc.cards.max(1);
        let zero = if cards > 1 { sc.zero } else { 0 };
        Layout {
            cards,
            zero,
            offload_optimizer: sc.offload != Offload::None,
            offload_params: sc.offload == Offload::All && zero == 3,
            mixed: sc.training_precision == TrainingPrecision::Mixed,
        }
    }

    /// " ÷ n cards (ZeRO-z)" when the stage shards this state, else nothing.
    fn sharded_note(&self, from_stage: u8) -> String {
        if self.zero >= from_stage {
            words!(" ÷ {} cards (ZeRO-{})", self.cards, self.zero)
        } else {
            String::new()
        }
    }
}

/// The frozen or trainable weights on one card, their whole size, and what goes to the host.
fn weights(model: &Model, sc: &Scenario, l: &Layout) -> (Segment, f64, f64) {
    let (q, u) = weight_bytes(model, sc.weights);
    let total = q + u;
    let on_card = if l.offload_params {
        0.0
    } else {
        shard(total, l.zero == 3, l.cards)
    };
    let where_ = if l.offload_params {
        " → on the host (ZeRO-3 parameter offload)".to_string()
    } else {
        l.sharded_note(3)
    };
    let segment = Segment::new(
        SegmentKind::Weights,
        on_card,
        words!("{}{where_}", weights_formula(model, sc, q, u, 1.0)),
    );
    (segment, total, if l.offload_params { total } else { 0.0 })
}

/// Gradients match the trainable weights: the model's format for a full fine-tune, fp32
/// adapters under mixed precision, bf16 adapters otherwise.
fn gradients(a: &Architecture, sc: &Scenario, l: &Layout, trainable: f64) -> Segment {
    let grad_bytes = match sc.method {
        Method::Full => sc.weights.bits() / 8.0,
        _ if l.mixed => 4.0,
        _ => 2.0,
    };
    if sc.optimizer_in_backward {
        // Only the gradient being applied exists: at most the largest tensor.
        let largest = if sc.method == Method::Full {
            (a.vocab * a.hidden).max(a.largest_linear()) as f64
        } else {
            trainable / a.layers.max(1) as f64
        };
        return Segment::new(
            SegmentKind::Gradients,
            largest * grad_bytes,
            words!(
                "optimizer in backward: one gradient at a time, the largest tensor {} × {grad_bytes} B",
                group_thousands(largest as i64)
            ),
        );
    }
    Segment::new(
        SegmentKind::Gradients,
        shard(trainable * grad_bytes, l.zero >= 2, l.cards),
        words!(
            "{} trainable params × {grad_bytes} B{}",
            group_thousands(trainable as i64),
            l.sharded_note(2)
        ),
    )
}

/// Optimizer states and, in mixed precision with 16-bit trainable weights, the fp32 master;
/// with what goes to the host and a note when the states page.
fn optimizer(a: &Architecture, sc: &Scenario, l: &Layout, trainable: f64) -> (Segment, f64, Option<String>) {
    let state = optimizer_state_bytes(sc.optimizer, sc.training_precision, a);
    let master = if l.mixed && sc.method == Method::Full && sc.weights != WeightPrecision::Fp32 {
        4.0
    } else {
        0.0
    };
    let total = trainable * (state + master);
    let paged = sc.optimizer == Optimizer::PagedAdamW8bit;
    let on_card = if l.offload_optimizer || paged {
        0.0
    } else {
        shard(total, l.zero >= 1, l.cards)
    };
    let host = if l.offload_optimizer || paged { total } else { 0.0 };
    let note = paged.then(|| {
        words!(
            "paged 8-bit states ({}) live in CUDA unified memory and page to host RAM when the card is full",
            format_gb(total)
        )
    });
    let where_ = if l.offload_optimizer {
        " → on the host (offload)".to_string()
    } else if paged {
        " → paged to unified memory".to_string()
    } else {
        l.sharded_note(1)
    };
    let segment = Segment::new(
        SegmentKind::Optimizer,
        on_card,
        words!(
            "{} trainable params × ({} states {:.2} B{}) = {}{where_}",
            group_thousands(trainable as i64),
            sc.optimizer.label(),
            state,
            if master > 0.0 { " + fp32 master 4 B" } else { "" },
            format_gb(total),
        ),
    );
    (segment, host, note)
}

/// LoRA/QLoRA adapter weights on one card.
fn adapter(sc: &Scenario, l: &Layout, trainable: f64) -> Segment {
    let bytes = if l.mixed { 4.0 } else { 2.0 };
    Segment::new(
        SegmentKind::Adapter,
        shard(trainable * bytes, l.zero == 3, l.cards),
        words!(
            "rank {} on {} linears: r × (d_in + d_out) summed = {} params × {bytes} B",
            sc.lora_rank,
            sc.lora_targets.label(),
            group_thousands(trainable as i64),
        ),
    )
}

/// A training step's memory on one card.
pub fn breakdown(model: &Model, sc: &Scenario) -> Breakdown {
    let a = &model.arch;
    let l = Layout::of(sc);
    let trainable = match sc.method {
        Method::Full => model.params().total as f64,
        _ => adapter_params(a, sc.lora_rank, sc.lora_targets) as f64,
    };
    let (weights, weights_total, weights_host) = weights(model, sc, &l);
    let gradients = gradients(a, sc, &l, trainable);
    let (optimizer, optimizer_host, paged_note) = optimizer(a, sc, &l, trainable);
    let activations = training_activations(model, sc);
    let dynamic = activations.bytes + gradients.bytes;
    let mut segments = vec![weights, activations, gradients, optimizer];
    if sc.method != Method::Full {
        segments.push(adapter(sc, &l, trainable));
    }
    // ZeRO-3 gathers two layers (the current and the prefetched next) in full on every card.
    let gathered = if l.zero == 3 {
        2.0 * weights_total / a.layers.max(1) as f64
    } else {
        0.0
    };
    let dequant = if sc.method == Method::Qlora {
        dequant_buffer(a, sc.weights)
    } else {
        0.0
    };
    let buckets = super::deepspeed_buckets(model, sc, trainable);
    segments.push(overhead(
        super::CUDA_CONTEXT_BYTES,
        dynamic,
        dequant,
        gathered,
        buckets,
    ));
    let mut notes: Vec<String> = paged_note.into_iter().collect();
    if l.mixed && sc.method != Method::Full {
        notes.push("adapters train in fp32 under mixed precision (PEFT's default upcast)".into());
    }
    Breakdown {
        segments,
        decode_bytes_per_token: None,
        decode_formula: None,
        decode_kv_bytes_per_sequence: 0.0,
        host_bytes: weights_host + optimizer_host + super::activations::offloaded_activations(model, sc),
        notes,
    }
}
