//! The changes advice can suggest (a format, a KV cache, a context, a batch, an optimizer,
//! offload, more cards, another card…) and how each applies to a scenario and its target:
//! each with a cost, so the advice lists the cheapest first.

use crate::engine::model::precision::{KvPrecision, WeightPrecision};
use crate::engine::workload::scenario::{Method, Offload, Optimizer, Scenario, Split};

/// The card (index into the catalog's list) and count a plan is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub gpu: usize,
    pub count: u32,
}

/// One change to the scenario (or the target).
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Weights(WeightPrecision),
    Kv(KvPrecision),
    Context(u64),
    Batch(u64),
    /// A lighter method; QLoRA brings its 4-bit base.
    Method(Method),
    Checkpointing,
    FusedCe,
    Optimizer(Optimizer),
    Zero(u8),
    Offload(Offload),
    /// More cards of the same kind (or fewer, where the count itself cannot run).
    Cards(u32),
    /// Another way to spread the model over the cards (whole layers per card runs on any
    /// count; tensor parallel needs one that divides the heads).
    Split(Split),
    /// Another card or combo, the scenario unchanged.
    Card(Target),
    /// Let the runtime spill into this much host RAM (decimal GB): layers or MoE experts in
    /// RAM (llama.cpp, Ollama), weights streamed from it (vLLM, SGLang). The placement it
    /// makes and its flags are named, for the words.
    Ram {
        gb: u64,
        strategy: crate::engine::placement::Strategy,
        runtime_flags: String,
    },
    /// Two changes together.
    Pair(Box<Change>, Box<Change>),
}

impl Change {
    /// What the user gives up, least first: knobs that cost nothing (checkpointing, fused
    /// cross-entropy, KV format), then context or batch, then precision, then method (and
    /// sharding or offload), then cards.
    pub fn cost(&self) -> u8 {
        match self {
            Change::Checkpointing | Change::FusedCe | Change::Kv(_) => 0,
            Change::Context(_) | Change::Batch(_) | Change::Split(_) => 1,
            Change::Weights(_) | Change::Optimizer(_) => 2,
            // Spilling into RAM costs speed: every token reads what RAM holds at its bandwidth.
            Change::Method(_) | Change::Zero(_) | Change::Offload(_) | Change::Ram { .. } => 3,
            Change::Cards(_) | Change::Card(_) => 4,
            Change::Pair(a, b) => a.cost().max(b.cost()),
        }
    }

    /// The scenario and target after the change.
    pub fn apply(&self, sc: &Scenario, target: Target) -> (Scenario, Target) {
        let mut sc = sc.clone();
        let mut target = target;
        match self {
            Change::Weights(w) => sc.weights = *w,
            Change::Kv(k) => sc.kv = *k,
            Change::Context(n) => sc.context = *n,
            Change::Batch(n) => sc.batch = *n,
            Change::Method(m) => {
                sc.method = *m;
                if sc.validate().is_err() {
                    sc.weights = m.default_weights();
                }
            }
            Change::Checkpointing => sc.checkpointing = true,
            Change::FusedCe => sc.fused_ce = true,
            Change::Optimizer(o) => sc.optimizer = *o,
            Change::Zero(z) => sc.zero = *z,
            Change::Offload(o) => sc.offload = *o,
            Change::Cards(n) => {
                sc.cards = *n;
                target.count = *n;
            }
            Change::Split(x) => sc.split = *x,
            Change::Ram { gb, .. } => {
                let bandwidth = sc.host.as_ref().and_then(|h| h.bandwidth_gbs);
                let platform = sc.host.as_ref().and_then(|h| h.platform);
                sc.host = Some(crate::engine::hardware::host::Host {
                    platform,
                    ..crate::engine::hardware::host::Host::new(*gb as f64, bandwidth)
                });
            }
            Change::Card(t) => {
                sc.cards = t.count;
                target = *t;
            }
            Change::Pair(a, b) => {
                let (s1, t1) = a.apply(&sc, target);
                return b.apply(&s1, t1);
            }
        }
        (sc, target)
    }
}
