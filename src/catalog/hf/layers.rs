//! An unknown family's layer pattern: which layers attend over the whole context, which
//! slide, and which keep a fixed state instead (a short convolution, a linear attention, a
//! Mamba), from `layer_types`, `full_attn_idxs`, `full_attention_interval` or a local/global
//! period; and the readings of a non-attention layer's mixer. Part of `super::generic`.

use serde_json::Value;

use super::fields::Fields;
use super::open::{Open, Reading};
use crate::catalog::FileError;
use crate::engine::model::{Architecture, SlidingWindow, Ssm};

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
            // A period longer than the network: no layer of it is global.
            .map(|n| {
                if n > layers {
                    vec![false]
                } else {
                    (1..=n).map(|i| i == n).collect()
                }
            }),
        _ => None,
    };
    let period = match period {
        Some(p) => Some(p),
        None => f
            .u64_opt(&["global_attn_every_n_layers", "global_attention_every"])?
            .filter(|n| *n > 0)
            // ModernBERT's rule: layer i is global when i % n == 0 (only the first, for a
            // period longer than the network).
            .map(|n| (0..n.min(layers.max(1))).map(|i| i == 0).collect()),
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

/// A key that lays out the layers in a way `pattern` does not read.
fn unread_layout(key: &str) -> bool {
    let layout = key.contains("pattern") || key.contains("block_type") || key.contains("attn_layer");
    layout && key != "sliding_window_pattern" || key == "layer_types"
}

/// Which layers attend, slide or keep a fixed state: only attention layers hold KV per token.
pub(super) fn layers(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    let Some(kinds) = pattern(f, arch.layers)? else {
        // A layout under keys this reading does not know (Nemotron-H's
        // `hybrid_override_pattern`, Zamba's `layers_block_type`, …): named, since every layer
        // is then given attention and a KV cache, which it may not have.
        open.unknown_keys.extend(
            f.map
                .keys()
                .filter(|k| unread_layout(k))
                .map(|k| crate::text::clean_prefix(k, 64)),
        );
        return Ok(());
    };
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
            // The engine slides every layer but each `global_every`-th (over all layers, the
            // state-keeping ones too): the period that slides no more layers than the
            // pattern does, so the KV is never less (exact for a periodic pattern).
            global_every: match arch.layers - sliding {
                0 => 0,
                unslid => (arch.layers / unslid).max(1),
            },
        }),
        _ => None,
    };
    if others.is_empty() {
        return Ok(());
    }
    let count = others.len() as u64;
    let mixers = mixer_readings(f, arch, others[0])?;
    let first = mixers[0];
    arch.ssm = Some(with_layers(first, count));
    if mixers.len() > 1 {
        open.axis(
            "the non-attention layers' mixer",
            mixers
                .into_iter()
                .map(|m| -> Reading { Box::new(move |a| a.ssm = Some(with_layers(m, count))) })
                .collect(),
        );
    }
    Ok(())
}

/// A count from 128-bit arithmetic (widths straight from the file), saturated: the shape
/// check then refuses it by its size.
fn narrow(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
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
        mlp_only_layers: 0,
        kept_16bit: 0,
        ssm_state_bytes: 0,
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
        let (h, l) = (u128::from(h), u128::from(l.min(1 << 24)));
        let params = 3 * h * h + h * l + h * h + if bias { 3 * h + h + h } else { 0 };
        keyed.push(("conv", stated(narrow(params), narrow(h * l))));
    }
    // Qwen3-Next's gated delta net: q, k, v and the output gate z projected together, β and
    // the decay a per value head, a convolution over q, k and v, a gated norm, out_proj.
    if let (Some(kh), Some(kd), Some(vh), Some(vd)) = (
        f.u64_opt(&["linear_num_key_heads"])?,
        f.u64_opt(&["linear_key_head_dim"])?,
        f.u64_opt(&["linear_num_value_heads"])?,
        f.u64_opt(&["linear_value_head_dim"])?,
    ) {
        // Widths past 2^24 are refused by the shape check; clamped, no product overflows.
        let w = |x: u64| u128::from(x.min(1 << 24));
        let kernel = w(f.u64_opt(&["linear_conv_kernel_dim"])?.unwrap_or(4));
        let (h, kh, kd, vh, vd) = (w(h), w(kh), w(kd), w(vh), w(vd));
        let (key, value) = (kh * kd, vh * vd);
        let conv = 2 * key + value;
        let params = h * (2 * key + 2 * value) + h * 2 * vh + conv * kernel + 2 * vh + vd + value * h;
        let state = conv * kernel.saturating_sub(1) + vh * kd * vd;
        keyed.push(("linear", stated(narrow(params), narrow(state))));
    }
    // A Mamba 2 mixer, counted by the engine's own formula.
    if let Some(state) = f.u64_opt(&["mamba_d_state", "ssm_state_size", "mamba_state_size"])? {
        let heads = f.u64_opt(&["mamba_n_heads", "mamba_num_heads"])?;
        let head_dim = f.u64_opt(&["mamba_d_head", "mamba_head_dim"])?;
        let inner = match (heads, head_dim) {
            (Some(n), Some(d)) => n.saturating_mul(d),
            _ => h.saturating_mul(f.u64_opt(&["mamba_expand", "expand"])?.unwrap_or(2)),
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
                mlp_only_layers: 0,
                kept_16bit: 0,
                ssm_state_bytes: 0,
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
