//! Numeric formats of weights and of the KV cache, with their real storage cost.

use serde::Serialize;

use crate::engine::basics::choice::Choice;

/// Storage format of the model weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightPrecision {
    Fp32,
    Bf16,
    Fp16,
    Fp8,
    /// LLM.int8 (bitsandbytes): int8 with a per-row scale.
    Int8,
    /// GPTQ / AWQ: 4-bit, group 128, 16-bit scale and 4-bit zero point per group.
    Int4,
    /// bitsandbytes NF4, block 64 with an fp32 absmax per block.
    Nf4,
    /// NF4 with double quantization: absmax in 8 bits per block of 64, fp32 per 256 blocks.
    Nf4Dq,
    /// bitsandbytes FP4, block 64 with an fp32 absmax (the 2023 `load_in_4bit` default).
    Fp4,
    /// OCP MXFP4: 4-bit E2M1 with an 8-bit shared exponent per 32 (gpt-oss's native format).
    Mxfp4,
    Q8_0,
    Q6K,
    Q5KM,
    Q4KM,
    Q4_0,
    Q3KM,
    Q2K,
}

impl WeightPrecision {
    /// Bytes per parameter as seed 003 states them: FP32 4, BF16/FP16 2, FP8 1, INT4/NF4 0.5;
    /// other formats by their nominal width (8-bit 1, 6-bit 0.75, …), the same rule.
    pub fn seed_bytes_per_param(self) -> f64 {
        match self {
            Self::Fp32 => 4.0,
            Self::Bf16 | Self::Fp16 => 2.0,
            Self::Fp8 | Self::Int8 | Self::Q8_0 => 1.0,
            Self::Q6K => 0.75,
            Self::Q5KM => 0.625,
            Self::Int4 | Self::Nf4 | Self::Nf4Dq | Self::Fp4 | Self::Mxfp4 | Self::Q4KM | Self::Q4_0 => 0.5,
            Self::Q3KM => 0.375,
            Self::Q2K => 0.25,
        }
    }

    /// Real bits per quantized weight, scales and zero points included.
    ///
    /// GGUF figures are whole-file averages of llama.cpp's LLaMA-7B table (`quantize --help`:
    /// Q2_K 2.63 GiB … Q8_0 6.70 GiB for 6.74 B parameters), so they cover the embedding and
    /// output tensors too; the other formats apply to the linear layers only.
    pub fn bits(self) -> f64 {
        match self {
            Self::Fp32 => 32.0,
            Self::Bf16 | Self::Fp16 => 16.0,
            // Block or per-row scales add under 0.01 bit per weight.
            Self::Fp8 | Self::Int8 => 8.0,
            Self::Int4 => 4.0 + 16.0 / 128.0 + 4.0 / 128.0,
            Self::Nf4 | Self::Fp4 => 4.0 + 32.0 / 64.0,
            Self::Nf4Dq => 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0),
            Self::Mxfp4 => 4.0 + 8.0 / 32.0,
            Self::Q8_0 => 8.5,
            Self::Q6K => 6.5625,
            Self::Q5KM => 5.67,
            Self::Q4KM => 4.84,
            Self::Q4_0 => 4.5,
            Self::Q3KM => 3.90,
            Self::Q2K => 3.35,
        }
    }

    /// GGUF files quantize every tensor, embeddings included.
    pub fn is_gguf(self) -> bool {
        matches!(
            self,
            Self::Q8_0 | Self::Q6K | Self::Q5KM | Self::Q4KM | Self::Q4_0 | Self::Q3KM | Self::Q2K
        )
    }

    /// Below 16 bits: quantized, so embeddings and lm_head stay 16-bit where real tools
    /// leave them (bitsandbytes, GPTQ/AWQ, FP8 checkpoints).
    pub fn is_quantized(self) -> bool {
        self.bits() < 16.0
    }

    /// FP8 weights need FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3); integer and NF4
    /// weight-only formats dequantize on any card.
    pub fn needs_fp8_hardware(self) -> bool {
        self == Self::Fp8
    }

    /// Formats a trainer can hold trainable weights in (full fine-tune, LoRA base).
    pub fn is_float16_or_wider(self) -> bool {
        matches!(self, Self::Fp32 | Self::Bf16 | Self::Fp16)
    }

    /// 4-bit formats a QLoRA base can be quantized to.
    pub fn is_4bit_base(self) -> bool {
        matches!(self, Self::Int4 | Self::Nf4 | Self::Nf4Dq | Self::Fp4)
    }
}

impl Choice for WeightPrecision {
    const ALL: &'static [Self] = &[
        Self::Fp32,
        Self::Bf16,
        Self::Fp16,
        Self::Fp8,
        Self::Int8,
        Self::Int4,
        Self::Nf4,
        Self::Nf4Dq,
        Self::Fp4,
        Self::Mxfp4,
        Self::Q8_0,
        Self::Q6K,
        Self::Q5KM,
        Self::Q4KM,
        Self::Q4_0,
        Self::Q3KM,
        Self::Q2K,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32",
            Self::Bf16 => "BF16",
            Self::Fp16 => "FP16",
            Self::Fp8 => "FP8",
            Self::Int8 => "INT8",
            Self::Int4 => "INT4 g128",
            Self::Nf4 => "NF4",
            Self::Nf4Dq => "NF4+DQ",
            Self::Fp4 => "FP4",
            Self::Mxfp4 => "MXFP4",
            Self::Q8_0 => "Q8_0",
            Self::Q6K => "Q6_K",
            Self::Q5KM => "Q5_K_M",
            Self::Q4KM => "Q4_K_M",
            Self::Q4_0 => "Q4_0",
            Self::Q3KM => "Q3_K_M",
            Self::Q2K => "Q2_K",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Bf16 => "bf16",
            Self::Fp16 => "fp16",
            Self::Fp8 => "fp8",
            Self::Int8 => "int8",
            Self::Int4 => "int4",
            Self::Nf4 => "nf4",
            Self::Nf4Dq => "nf4-dq",
            Self::Fp4 => "fp4",
            Self::Mxfp4 => "mxfp4",
            Self::Q8_0 => "q8_0",
            Self::Q6K => "q6_k",
            Self::Q5KM => "q5_k_m",
            Self::Q4KM => "q4_k_m",
            Self::Q4_0 => "q4_0",
            Self::Q3KM => "q3_k_m",
            Self::Q2K => "q2_k",
        }
    }
}

/// Storage format of the KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KvPrecision {
    Fp16,
    Bf16,
    Fp8,
    /// llama.cpp q8_0 cache: 8 bits + an fp16 scale per 32.
    Q8_0,
    /// llama.cpp q4_0 cache: 4 bits + an fp16 scale per 32.
    Q4_0,
}

impl KvPrecision {
    pub fn bytes_per_element(self) -> f64 {
        match self {
            Self::Fp16 | Self::Bf16 => 2.0,
            Self::Fp8 => 1.0,
            Self::Q8_0 => 8.5 / 8.0,
            Self::Q4_0 => 4.5 / 8.0,
        }
    }

    /// llama.cpp's block formats (`q8_0`, `q4_0`): only llama.cpp and Ollama have them, and
    /// llama.cpp quantizes the V cache this way only with flash attention.
    pub fn is_block_quantized(self) -> bool {
        matches!(self, Self::Q8_0 | Self::Q4_0)
    }

    /// llama.cpp's name for the cache type (`-ctk`/`-ctv`, `OLLAMA_KV_CACHE_TYPE`); `None` for
    /// FP8, which it has no cache type for.
    pub fn llama_cpp_type(self) -> Option<&'static str> {
        match self {
            Self::Fp16 => Some("f16"),
            Self::Bf16 => Some("bf16"),
            Self::Fp8 => None,
            Self::Q8_0 => Some("q8_0"),
            Self::Q4_0 => Some("q4_0"),
        }
    }

    /// The cache a llama.cpp type name is (the inverse of [`KvPrecision::llama_cpp_type`]).
    pub fn from_llama_cpp_type(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.llama_cpp_type() == Some(name))
    }
}

impl Choice for KvPrecision {
    const ALL: &'static [Self] = &[Self::Fp16, Self::Bf16, Self::Fp8, Self::Q8_0, Self::Q4_0];

    fn label(self) -> &'static str {
        match self {
            Self::Fp16 => "FP16",
            Self::Bf16 => "BF16",
            Self::Fp8 => "FP8",
            Self::Q8_0 => "q8_0",
            Self::Q4_0 => "q4_0",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Self::Fp16 => "fp16",
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
            Self::Q8_0 => "q8_0",
            Self::Q4_0 => "q4_0",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_bits_per_weight() {
        // NF4 with double quantization: 4 + 8/64 + 32/(64·256) = 4.127 bits (QLoRA paper).
        assert!((WeightPrecision::Nf4Dq.bits() - 4.127).abs() < 0.001);
        assert_eq!(WeightPrecision::Nf4.bits(), 4.5);
        assert_eq!(WeightPrecision::Int4.bits(), 4.15625);
        assert_eq!(WeightPrecision::Mxfp4.bits(), 4.25);
        assert_eq!(WeightPrecision::Q8_0.bits(), 8.5);
        assert_eq!(KvPrecision::Q4_0.bytes_per_element(), 0.5625);
    }
}
