//! An unknown family read from its own config.json, with no description: the layer pattern
//! (which layers attend, slide, or keep a fixed state instead), the experts under every
//! spelling real configs use, and every reading the config leaves open, so that the count's
//! stated range holds the truth. `super::shape` reads the dimensions; this refines them.

use serde_json::Value;

use super::fields::Fields;
use crate::catalog::FileError;
use crate::engine::model::{Architecture, MlpKind, Moe, SlidingWindow, Ssm};

/// One reading of something the config leaves open, applied to a copy of the estimate.
pub(super) type Reading = Box<dyn Fn(&mut Architecture)>;

/// What the refinement found: the alternatives to the estimate, axis by axis (the bound is
/// the count's range over every combination), and the keys it could not use.
pub(super) struct Open {
    pub(super) axes: Vec<Vec<Reading>>,
    pub(super) unknown_keys: Vec<String>,
    /// What each axis is, for the warning ("gated or plain MLP", …).
    pub(super) what: Vec<&'static str>,
}

impl Open {
    fn axis(&mut self, what: &'static str, readings: Vec<Reading>) {
        self.axes.push(readings);
        self.what.push(what);
    }
}

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
const EXPERT_KEYS_WITHOUT_PARAMETERS: [&str; 14] = [
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

/// The kind of one layer's mixer.
#[derive(Debug, Clone, PartialEq)]
enum Layer {
    Full,
    Sliding,
    /// Not attention: a convolution, a linear attention, a Mamba…, as the config names it.
    Other(String),
}

fn layer_kind(name: &str) -> Layer {
    let n = name.to_ascii_lowercase();
    if n.contains("sliding") || n == "local" || n.contains("chunked") {
        Layer::Sliding
    } else if (n.contains("attention") || n == "attn" || n == "global" || n == "full")
        && !n.contains("linear")
    {
        Layer::Full
    } else {
        Layer::Other(n)
    }
}

/// Refine `arch` (read by the generic rules) with what an unknown family's config says, and
/// list what it leaves open.
pub(super) fn refine(f: &Fields, arch: &mut Architecture) -> Result<Open, FileError> {
    let mut open = Open {
        axes: Vec::new(),
        unknown_keys: Vec::new(),
        what: Vec::new(),
    };
    // KV heads inside a nested attention block (DBRX's `attn_config.kv_n_heads`).
    if !["num_key_value_heads", "num_kv_heads", "n_kv_heads", "kv_n_heads"]
        .iter()
        .any(|k| f.map.contains_key(*k))
        && let Some(Value::Object(block)) = f.map.get("attn_config").or_else(|| f.map.get("attention_config"))
        && let Some(kv) = ["kv_n_heads", "num_key_value_heads", "n_kv_heads"]
            .iter()
            .find_map(|k| block.get(*k).and_then(Value::as_u64))
    {
        arch.kv_heads = kv.clamp(1, arch.heads);
    }
    if f.bool("attn_output_gate") == Some(true) {
        arch.q_gate = true;
    }
    mlp_readings(f, arch, &mut open);
    structure_readings(f, arch, &mut open);
    width_readings(f, arch, &mut open)?;
    layers(f, arch, &mut open)?;
    experts(f, arch, &mut open)?;
    Ok(open)
}

/// The activation names the MLP: ReLU², GELU and ReLU are two matrices unless the config
/// says gated; SiLU, SwiGLU and GeGLU three. The second value says whether that settles it:
/// a gated flag, ReLU² and the GLU names do; GELU and ReLU also come gated (Gemma's GeGLU
/// writes `gelu_pytorch_tanh`), so the other reading stays in the bound; an activation it
/// does not know leaves both open (read as gated).
pub(super) fn mlp_from_activation(f: &Fields) -> (MlpKind, bool) {
    for key in [
        "block_use_swiglu",
        "use_glu",
        "gated_mlp",
        "use_gated_mlp",
        "mlp_gated",
        "glu",
    ] {
        if let Some(gated) = f.bool(key) {
            return (if gated { MlpKind::Gated } else { MlpKind::Plain }, true);
        }
    }
    let act = [
        "hidden_act",
        "mlp_hidden_act",
        "activation_function",
        "hidden_activation",
        "activation",
        "ffn_act_fn",
    ]
    .iter()
    .find_map(|k| f.str(k))
    .unwrap_or("")
    .to_ascii_lowercase();
    match act.as_str() {
        "silu" | "swish" | "swiglu" | "geglu" | "reglu" | "swigelu" => (MlpKind::Gated, true),
        "relu2" | "squared_relu" | "relu_squared" => (MlpKind::Plain, true),
        a if a.starts_with("gelu") || a == "relu" || a == "quick_gelu" => (MlpKind::Plain, false),
        _ => (MlpKind::Gated, false),
    }
}

fn mlp_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) {
    let (kind, settled) = mlp_from_activation(f);
    arch.mlp = kind;
    if !settled {
        open.axis(
            "gated or plain MLP",
            vec![
                Box::new(|a| a.mlp = MlpKind::Gated),
                Box::new(|a| a.mlp = MlpKind::Plain),
            ],
        );
    }
}

/// Tied embeddings, biases, LayerNorm biases and q/k norms: read where written, else open.
fn structure_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) {
    let tie = ["tie_word_embeddings", "tie_embedding", "tie_embeddings"]
        .iter()
        .find_map(|k| f.bool(k));
    match tie {
        Some(t) => arch.tied_embeddings = t,
        None => open.axis(
            "tied embeddings",
            vec![
                Box::new(|a| a.tied_embeddings = true),
                Box::new(|a| a.tied_embeddings = false),
            ],
        ),
    }
    let any = |keys: &[&str]| keys.iter().find_map(|k| f.bool(k));
    let qkv = any(&[
        "attention_bias",
        "qkv_bias",
        "use_qkv_bias",
        "add_qkv_bias",
        "use_bias",
        "bias",
    ]);
    let o = any(&[
        "attention_out_bias",
        "o_bias",
        "attention_bias",
        "use_bias",
        "bias",
    ]);
    let mlp = any(&["mlp_bias", "use_mlp_bias", "use_bias", "bias"]);
    arch.qkv_bias = qkv.unwrap_or(false);
    arch.o_bias = o.unwrap_or(false);
    arch.mlp_bias = mlp.unwrap_or(false);
    if qkv.is_none() || o.is_none() || mlp.is_none() {
        open.axis(
            "biases",
            vec![
                Box::new(|_| {}),
                Box::new(move |a| {
                    a.qkv_bias |= qkv.is_none();
                    a.o_bias |= o.is_none();
                    a.mlp_bias |= mlp.is_none();
                }),
            ],
        );
    }
    let norm_written = ["rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps"]
        .iter()
        .any(|k| f.map.contains_key(*k));
    if !norm_written {
        open.axis(
            "LayerNorm biases",
            vec![
                Box::new(|a| a.norm_bias = false),
                Box::new(|a| a.norm_bias = true),
            ],
        );
    }
    let qk = any(&[
        "use_qk_norm",
        "qk_norm",
        "qk_layernorm",
        "use_qk_layernorm",
        "attn_qk_norm",
    ]);
    match qk {
        Some(q) => arch.qk_norm = q,
        None => open.axis(
            "q/k norms",
            vec![Box::new(|a| a.qk_norm = false), Box::new(|a| a.qk_norm = true)],
        ),
    }
}

/// The MLP width as written, or rounded the Llama way (⌊2/3 · width⌋ × multiplier, up to a
/// multiple) where the config asks for an automatic adjustment: both readings stay open.
fn width_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    let adjust = f
        .map
        .iter()
        .any(|(k, v)| k.contains("auto_adjust") && v.as_bool() == Some(true));
    if !adjust || arch.mlp != MlpKind::Gated {
        return Ok(());
    }
    let written = f
        .u64_opt(&["block_ff_dim", "intermediate_size", "ffn_hidden_size"])?
        .unwrap_or(arch.intermediate);
    let multiple = f
        .u64_opt(&["block_multiple_of", "multiple_of"])?
        .unwrap_or(1)
        .max(1);
    let multiplier = ["block_ffn_dim_multiplier", "ffn_dim_multiplier"]
        .iter()
        .find_map(|k| f.map.get(*k).and_then(Value::as_f64))
        .unwrap_or(1.0);
    let adjusted = ((2 * written / 3) as f64 * multiplier) as u64;
    let adjusted = adjusted.div_ceil(multiple) * multiple;
    if adjusted == 0 {
        return Ok(());
    }
    arch.intermediate = adjusted;
    open.axis(
        "the MLP width as written or adjusted",
        vec![
            Box::new(move |a| a.intermediate = adjusted),
            Box::new(move |a| a.intermediate = written),
        ],
    );
    Ok(())
}

/// Each layer's kind, from whichever of the config's pattern keys it writes.
fn pattern(f: &Fields, layers: u64) -> Result<Option<Vec<Layer>>, FileError> {
    let n = layers as usize;
    if let Some(Value::Array(types)) = f.map.get("layer_types")
        && types.len() >= n
    {
        return Ok(Some(
            types[..n]
                .iter()
                .map(|t| layer_kind(t.as_str().unwrap_or("")))
                .collect(),
        ));
    }
    if let Some(Value::Array(idxs)) = f.map.get("full_attn_idxs") {
        let full: Vec<u64> = idxs.iter().filter_map(Value::as_u64).collect();
        return Ok(Some(
            (0..layers)
                .map(|i| {
                    if full.contains(&i) {
                        Layer::Full
                    } else {
                        Layer::Other(String::new())
                    }
                })
                .collect(),
        ));
    }
    if let Some(k) = f.u64_opt(&["full_attention_interval"])?.filter(|k| *k > 0) {
        return Ok(Some(
            (0..layers)
                .map(|i| {
                    if (i + 1) % k == 0 {
                        Layer::Full
                    } else {
                        Layer::Other(String::new())
                    }
                })
                .collect(),
        ));
    }
    // Local/global periods apply only where there is a window.
    let window = f
        .u64_opt(&["sliding_window"])?
        .filter(|_| f.bool("use_sliding_window") != Some(false));
    if window.is_none() {
        return Ok(None);
    }
    let period: Option<Vec<bool>> = match f.map.get("sliding_window_pattern") {
        // "LLLG": a letter per layer of the period, G (or F) global.
        Some(Value::String(s)) if !s.is_empty() => Some(
            s.chars()
                .map(|c| matches!(c.to_ascii_uppercase(), 'G' | 'F'))
                .collect(),
        ),
        // Gemma's integer: every n-th layer global.
        Some(Value::Number(n)) => n
            .as_u64()
            .filter(|n| *n > 0)
            .map(|n| (1..=n).map(|i| i == n).collect()),
        _ => None,
    };
    let period = match period {
        Some(p) => Some(p),
        None => f
            .u64_opt(&["global_attn_every_n_layers", "global_attention_every"])?
            .filter(|n| *n > 0)
            // ModernBERT's rule: layer i is global when i % n == 0.
            .map(|n| (0..n).map(|i| i == 0).collect()),
    };
    Ok(period.map(|p| {
        (0..n)
            .map(|i| {
                if p[i % p.len()] {
                    Layer::Full
                } else {
                    Layer::Sliding
                }
            })
            .collect()
    }))
}

/// Which layers attend, slide or keep a fixed state: only attention layers hold KV per token.
fn layers(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    let Some(kinds) = pattern(f, arch.layers)? else {
        return Ok(());
    };
    let full = kinds.iter().filter(|k| **k == Layer::Full).count() as u64;
    let sliding = kinds.iter().filter(|k| **k == Layer::Sliding).count() as u64;
    let others: Vec<&str> = kinds
        .iter()
        .filter_map(|k| match k {
            Layer::Other(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    arch.sliding_window = match f.u64_opt(&["sliding_window"])? {
        Some(window) if sliding > 0 => Some(SlidingWindow {
            window,
            // The engine places one global layer every `global_every`: the period that
            // gives at least as many full layers as the pattern (never less KV).
            global_every: if full == 0 { 0 } else { (arch.layers / full).max(1) },
        }),
        _ => None,
    };
    if others.is_empty() {
        return Ok(());
    }
    let count = others.len() as u64;
    let mixers = mixer_readings(f, arch, others[0])?;
    let first = mixers[0].clone();
    arch.ssm = Some(with_layers(first, count));
    if mixers.len() > 1 {
        open.axis(
            "the non-attention layers' mixer",
            mixers
                .into_iter()
                .map(|m| -> Reading { Box::new(move |a| a.ssm = Some(with_layers(m.clone(), count))) })
                .collect(),
        );
    }
    Ok(())
}

fn with_layers(mut s: Ssm, layers: u64) -> Ssm {
    s.layers = layers;
    s
}

/// A mixer stated by its count and state (not a Mamba formula).
fn stated(params: u64, state: u64) -> Ssm {
    Ssm {
        layers: 0,
        inner: 1,
        state: 1,
        conv_kernel: 1,
        dt_rank: 0,
        heads: 0,
        groups: 0,
        mlp: true,
        proj_bias: false,
        conv_bias: false,
        inner_norms: false,
        mixer_params: Some(params),
        mixer_state: Some(state),
    }
}

/// The readings of a non-attention layer, the one its keys name first (the estimate), then
/// the others: a short gated convolution (`conv_L_cache`), a gated delta-rule linear
/// attention (`linear_*` heads), a Mamba 2 (`mamba_*`), and an attention-shaped mixer.
fn mixer_readings(f: &Fields, arch: &Architecture, name: &str) -> Result<Vec<Ssm>, FileError> {
    let h = arch.hidden;
    let mut keyed = Vec::new();
    // LFM2's short convolution: in_proj to three widths (two gates and the value), a
    // depthwise convolution over `conv_L_cache` tokens, out_proj; it keeps L tokens' inputs.
    if let Some(l) = f.u64_opt(&["conv_L_cache", "conv_kernel_size", "short_conv_kernel"])? {
        let bias = f.bool("conv_bias").unwrap_or(false);
        let params = 3 * h * h + h * l + h * h + if bias { 3 * h + h + h } else { 0 };
        keyed.push(("conv", stated(params, h * l)));
    }
    // Qwen3-Next's gated delta net: q, k, v and the output gate z projected together, β and
    // the decay a per value head, a convolution over q, k and v, a gated norm, out_proj.
    if let (Some(kh), Some(kd), Some(vh), Some(vd)) = (
        f.u64_opt(&["linear_num_key_heads"])?,
        f.u64_opt(&["linear_key_head_dim"])?,
        f.u64_opt(&["linear_num_value_heads"])?,
        f.u64_opt(&["linear_value_head_dim"])?,
    ) {
        let kernel = f.u64_opt(&["linear_conv_kernel_dim"])?.unwrap_or(4);
        let (key, value) = (kh * kd, vh * vd);
        let conv = 2 * key + value;
        let params = h * (2 * key + 2 * value) + h * 2 * vh + conv * kernel + 2 * vh + vd + value * h;
        let state = conv * kernel.saturating_sub(1) + vh * kd * vd;
        keyed.push(("linear", stated(params, state)));
    }
    // A Mamba 2 mixer, counted by the engine's own formula.
    if let Some(state) = f.u64_opt(&["mamba_d_state", "ssm_state_size", "mamba_state_size"])? {
        let heads = f.u64_opt(&["mamba_n_heads", "mamba_num_heads"])?;
        let head_dim = f.u64_opt(&["mamba_d_head", "mamba_head_dim"])?;
        let inner = match (heads, head_dim) {
            (Some(n), Some(d)) => n * d,
            _ => h * f.u64_opt(&["mamba_expand", "expand"])?.unwrap_or(2),
        };
        keyed.push((
            "mamba",
            Ssm {
                layers: 0,
                inner,
                state,
                conv_kernel: f.u64_opt(&["mamba_d_conv", "conv_kernel"])?.unwrap_or(4),
                dt_rank: 0,
                heads: heads.unwrap_or(inner / head_dim.unwrap_or(64).max(1)).max(1),
                groups: f.u64_opt(&["mamba_n_groups", "n_groups"])?.unwrap_or(1),
                mlp: true,
                proj_bias: f.bool("mamba_proj_bias").unwrap_or(false),
                conv_bias: f.bool("mamba_conv_bias").unwrap_or(true),
                inner_norms: false,
                mixer_params: None,
                mixer_state: None,
            },
        ));
    }
    // The layer's own name picks among the keyed readings; the rest stay open.
    keyed.sort_by_key(|(kind, _)| !name.contains(kind));
    let mut readings: Vec<Ssm> = keyed.into_iter().map(|(_, s)| s).collect();
    // An attention-shaped mixer (q, k, v, o of the config's heads), holding no KV: the
    // reading when nothing names the mixer, and always one of the bound's.
    let q = arch.heads * arch.head_dim;
    let attention_shaped = 2 * h * q + 2 * h * arch.kv_heads * arch.head_dim;
    readings.push(stated(attention_shaped, 0));
    Ok(readings)
}

/// Experts under every spelling; a key about experts that is not understood widens the
/// bound with the reading that takes it for an expert count.
fn experts(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    let unknown: Vec<(String, Option<u64>)> = f
        .map
        .iter()
        .filter(|(k, _)| mentions_experts(k) && !understood(k))
        .map(|(k, v)| (crate::text::clean_prefix(k, 64), v.as_u64()))
        .collect();
    open.unknown_keys.extend(unknown.iter().map(|(k, _)| k.clone()));
    arch.moe = read_moe(f, arch)?;
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
    let counts: Vec<u64> = unknown
        .iter()
        .filter_map(|(_, v)| *v)
        .filter(|v| *v > 1)
        .collect();
    if !counts.is_empty() {
        let mut readings: Vec<Reading> = vec![Box::new(|_| {})];
        for n in counts {
            readings.push(Box::new(move |a| widen_experts(a, n)));
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

/// The reading that takes an unread number for experts: as many routed experts in every
/// layer (a dense reading becomes an MoE), or as many shared experts where routed ones are
/// already read.
fn widen_experts(a: &mut Architecture, n: u64) {
    match a.moe.as_mut() {
        Some(m) => m.shared = m.shared.max(n.min(1 << 10)),
        None => {
            a.moe = Some(Moe {
                experts: n.min(1 << 16),
                active: 1,
                shared: 0,
                expert_intermediate: a.intermediate,
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
