//! An unknown family's experts under every spelling real configs use (counts, experts per
//! token, widths, shared experts, dense first layers, an MoE every k-th layer); a key about
//! experts it does not understand is named and widens the bound. Part of `super::generic`.

use serde_json::{Map, Value};

use super::fields::Fields;
use super::open::{Open, Reading};
use crate::catalog::FileError;
use crate::engine::model::{Architecture, Moe};

/// Where an expert count is written.
pub(super) const EXPERT_KEYS: [&str; 6] = [
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "moe_num_experts",
    "n_experts",
    "num_routed_experts",
];
/// Where the experts each token runs are written.
const ACTIVE_KEYS: [&str; 6] = [
    "num_experts_per_tok",
    "experts_per_token",
    "moe_k",
    "moe_top_k",
    "top_k",
    "num_selected_experts",
];
const EXPERT_WIDTH_KEYS: [&str; 4] = [
    "moe_intermediate_size",
    "expert_intermediate_size",
    "moe_ffn_hidden_size",
    "expert_ffn_hidden_size",
];
const SHARED_COUNT_KEYS: [&str; 4] = [
    "n_shared_experts",
    "num_shared_experts",
    "moe_num_shared_experts",
    "shared_experts",
];
const SHARED_WIDTH_KEYS: [&str; 2] = [
    "shared_expert_intermediate_size",
    "moe_shared_expert_intermediate_size",
];
const FIRST_DENSE_KEYS: [&str; 4] = [
    "first_k_dense_replace",
    "moe_layer_start_index",
    "num_dense_layers",
    "first_dense_layers",
];
const EVERY_KEYS: [&str; 5] = [
    "moe_layer_freq",
    "decoder_sparse_step",
    "moe_layer_interval",
    "interleave_moe_layer_step",
    "expert_layer_period",
];
/// Keys about experts that change no parameter (routing arithmetic, training losses).
const EXPERT_KEYS_WITHOUT_PARAMETERS: [&str; 21] = [
    "moe_norm_min",
    "moe_gate_act",
    "moe_gate",
    "moe_jitter_eps",
    "moe_loss_weight",
    "moe_normalize_expert_weights",
    "uniform_expert_assignment",
    "norm_topk_prob",
    "routed_scaling_factor",
    "router_aux_loss_coef",
    "output_router_logits",
    "topk_method",
    "n_group",
    "topk_group",
    "scoring_func",
    "aux_loss_alpha",
    "seq_aux",
    "moe_use_aux_free",
    "use_expert_bias",
    "router_jitter_noise",
    "moe_capacity",
];

/// A key that speaks of experts or their routing.
fn mentions_experts(key: &str) -> bool {
    key.contains("expert") || key.starts_with("moe") || key.contains("_moe") || key.contains("router")
}

/// A list under a key whose number bears on the count.
fn counted_list(key: &str, v: &Value) -> bool {
    v.is_array() && !EXPERT_KEYS_WITHOUT_PARAMETERS.contains(&key)
}

/// Every key this reading understands, for telling the rest apart.
fn understood(key: &str) -> bool {
    EXPERT_KEYS.contains(&key)
        || ACTIVE_KEYS.contains(&key)
        || EXPERT_WIDTH_KEYS.contains(&key)
        || SHARED_COUNT_KEYS.contains(&key)
        || SHARED_WIDTH_KEYS.contains(&key)
        || FIRST_DENSE_KEYS.contains(&key)
        || EVERY_KEYS.contains(&key)
        || EXPERT_KEYS_WITHOUT_PARAMETERS.contains(&key)
}

/// Experts under every spelling; a key about experts that is not understood widens the
/// bound with the reading that takes it for an expert count.
pub(super) fn experts(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    // ERNIE's last MoE layer: nothing to read when it is the last layer (or unset).
    let last_layer = |k: &str, v: &Value| {
        k == "moe_layer_end_index" && (v.is_null() || v.as_u64().is_some_and(|e| e + 1 >= arch.layers))
    };
    // A list where a number is read (ERNIE-VL's experts per modality) is not understood: its
    // sum is one reading of the experts.
    let number = |v: &Value| match v {
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Value::as_u64)
                .fold(0u64, u64::saturating_add),
        ),
        v => v.as_u64(),
    };
    let unknown: Vec<(String, Option<u64>)> = f
        .map
        .iter()
        .filter(|(k, v)| mentions_experts(k) && (!understood(k) || counted_list(k, v)) && !last_layer(k, v))
        .map(|(k, v)| (crate::text::clean_prefix(k, 64), number(v)))
        .collect();
    open.unknown_keys.extend(unknown.iter().map(|(k, _)| k.clone()));
    let without_lists: Map<String, Value> = f
        .map
        .iter()
        .filter(|(k, v)| !(mentions_experts(k) && counted_list(k, v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let read = Fields {
        file: f.file,
        source: f.source,
        map: &without_lists,
    };
    arch.moe = read_moe(&read, arch)?;
    if let Some(moe) = &arch.moe {
        // Whether the router has a bias (or a score correction) is not always written.
        let biased = moe.router_bias;
        open.axis(
            "a router bias",
            vec![
                Box::new(move |a| set_router_bias(a, biased)),
                Box::new(move |a| set_router_bias(a, !biased)),
            ],
        );
        if moe.shared_intermediate.is_some() {
            open.axis(
                "a gate on the shared expert",
                vec![
                    Box::new(|a| set_shared_gate(a, true)),
                    Box::new(|a| set_shared_gate(a, false)),
                ],
            );
        }
    }
    // The count grows with the number read for experts: the least and the most of them bound
    // every other reading.
    let numbers = unknown.iter().filter_map(|(_, v)| *v).filter(|v| *v > 1);
    let mut counts: Vec<u64> = numbers.clone().min().into_iter().chain(numbers.max()).collect();
    counts.dedup();
    if !counts.is_empty() {
        let width = f.u64_opt(&EXPERT_WIDTH_KEYS)?;
        let shared = f.u64_opt(&SHARED_COUNT_KEYS)?.unwrap_or(0);
        let mut readings: Vec<Reading> = vec![Box::new(|_| {})];
        for n in counts {
            readings.push(Box::new(move |a| widen_experts(a, n, width, shared)));
        }
        open.axis("keys about experts it could not read", readings);
    }
    Ok(())
}

fn set_router_bias(a: &mut Architecture, on: bool) {
    if let Some(m) = a.moe.as_mut() {
        m.router_bias = on;
    }
}

fn set_shared_gate(a: &mut Architecture, on: bool) {
    if let Some(m) = a.moe.as_mut() {
        m.shared_expert_gate = on;
    }
}

/// The reading that takes an unread number for experts: as many routed experts (of the
/// written expert width, with the shared experts written) in every layer (a dense reading becomes an MoE), or as many shared
/// experts where routed ones are already read.
fn widen_experts(a: &mut Architecture, n: u64, width: Option<u64>, shared: u64) {
    match a.moe.as_mut() {
        Some(m) => m.shared = m.shared.max(n.min(1 << 10)),
        None => {
            a.moe = Some(Moe {
                experts: n.min(1 << 16),
                active: 1,
                shared: shared.min(1 << 10),
                // An expert's own width where the config writes one.
                expert_intermediate: width.unwrap_or(a.intermediate),
                shared_intermediate: None,
                shared_expert_gate: false,
                first_dense_layers: 0,
                router_bias: false,
                every: 1,
            })
        }
    }
}

fn read_moe(f: &Fields, arch: &Architecture) -> Result<Option<Moe>, FileError> {
    let Some(experts) = f.u64_opt(&EXPERT_KEYS)?.filter(|e| *e > 1) else {
        return Ok(None);
    };
    let active = f.u64(&ACTIVE_KEYS)?;
    if active > experts {
        let key = f.written(&ACTIVE_KEYS);
        return Err(f.error_at(
            key,
            format!("'{key}' ({active}) is larger than the number of experts ({experts})"),
        ));
    }
    let expert_intermediate = f.u64_opt(&EXPERT_WIDTH_KEYS)?.unwrap_or(arch.intermediate);
    let shared_count = f.u64_opt(&SHARED_COUNT_KEYS)?;
    let shared_width = f.u64_opt(&SHARED_WIDTH_KEYS)?.filter(|w| *w > 0);
    let (shared, shared_intermediate, gate) = match (shared_count, shared_width) {
        (Some(n), w) => (n, w, false),
        // Qwen's spelling: one shared expert of its own width, behind a gate.
        (None, Some(w)) => (1, Some(w), true),
        (None, None) => (0, None, false),
    };
    Ok(Some(Moe {
        experts,
        active,
        shared,
        expert_intermediate,
        shared_intermediate,
        shared_expert_gate: gate,
        first_dense_layers: f.u64_opt(&FIRST_DENSE_KEYS)?.unwrap_or(0).min(arch.layers),
        router_bias: f.str("topk_method") == Some("noaux_tc")
            || f.bool("use_expert_bias") == Some(true)
            || f.bool("moe_use_aux_free") == Some(true),
        every: f.u64_opt(&EVERY_KEYS)?.unwrap_or(1).max(1),
    }))
}
