//! llama.cpp's K-quant "mixes" are not one type: `llama_tensor_get_type`
//! (`src/llama-quant.cpp`) raises some tensors above the file type's base. For Q4_K_M:
//! Q6_K for the output matrix (the token embedding where the output is tied to it) and for
//! `attn_v` and `ffn_down` in the layers `use_more_bits` picks — the first and last eighth
//! and every third layer between —, Q4_K (4.5 bits) for every other matrix, F32 norms.
//! Llama 2 7B comes to 3.800 GiB and Llama 3 8B to 4.575 GiB, as llama.cpp's load logs print
//! them (the flat 4.84 bits gave 3.797 and 4.525).

use crate::engine::model::Architecture;

/// Bits of one Q4_K value: 144 bytes a block of 256.
const Q4_K_BITS: f64 = 4.5;
/// Bits of one Q6_K value: 210 bytes a block of 256.
const Q6_K_BITS: f64 = 6.5625;
/// K-quant blocks run along a row of 256 values; a row that does not divide falls back to
/// other types, which this rule does not follow.
const QK_K: u64 = 256;

/// Whether `use_more_bits(i, n)` gives layer `i` of `n` the higher type.
fn use_more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

/// The layers of `n` that hold Q6_K `attn_v` and `ffn_down` under Q4_K_M.
pub fn q4_k_m_raised_layers(n: u64) -> u64 {
    (0..n).filter(|&i| use_more_bits(i, n)).count() as u64
}

/// Q4_K_M's bytes for a dense transformer of `total` parameters, or `None` where the rule
/// does not hold as written here (experts, MLA, state-space layers, layers of other kinds,
/// rows that K-quant blocks do not divide): those keep the format's average bits.
pub fn q4_k_m_bytes(a: &Architecture, total: u64) -> Option<f64> {
    let plain = a.moe.is_none()
        && a.mla.is_none()
        && a.ssm.is_none()
        && a.attention_layers() == a.layers
        && a.hidden.is_multiple_of(QK_K)
        && a.intermediate.is_multiple_of(QK_K);
    if !plain {
        return None;
    }
    let raised = q4_k_m_raised_layers(a.layers);
    // attn_v (hidden × kv width) and ffn_down (intermediate × hidden) in the raised layers,
    // and the output matrix once (or the tied embedding that serves as the output).
    let q6 = raised * (a.hidden * a.kv_width() + a.intermediate * a.hidden) + a.vocab * a.hidden;
    let norms = (a.layers * a.norms_per_layer + 1) * a.norm_params();
    let q4 = total.checked_sub(q6 + norms)?;
    Some((q4 as f64 * Q4_K_BITS + q6 as f64 * Q6_K_BITS + norms as f64 * 32.0) / 8.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_more_bits_picks_the_ends_and_every_third() {
        // 32 layers: 0–3, 28–31, and 6, 9, …, 27.
        let picked: Vec<u64> = (0..32).filter(|&i| use_more_bits(i, 32)).collect();
        assert_eq!(
            picked,
            vec![0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
        );
        assert_eq!(q4_k_m_raised_layers(32), 16);
    }
}
