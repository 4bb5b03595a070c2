//! The bandwidth-bound decode ceiling.

/// tokens/s ≤ memory bandwidth ÷ bytes read per token. An upper bound, never a benchmark:
/// real kernels, batching and scheduling land below it.
pub fn decode_ceiling_tokens_per_s(bandwidth_bytes_per_s: f64, bytes_per_token: f64) -> f64 {
    if bytes_per_token <= 0.0 {
        return 0.0;
    }
    bandwidth_bytes_per_s / bytes_per_token
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling_is_bandwidth_over_bytes() {
        // Seed 003 section 07: 7B in BF16 is 14 GB; an A40 moves 696 GB/s → 49.7 tokens/s.
        let t = decode_ceiling_tokens_per_s(696e9, 14e9);
        assert!((t - 49.714).abs() < 1e-3, "{t}");
        assert_eq!(decode_ceiling_tokens_per_s(1e12, 0.0), 0.0);
    }
}
