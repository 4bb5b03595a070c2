//! Numeric formats of weights and of the KV cache.

use serde::Serialize;

use super::choice::Choice;

/// Storage format of the model weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightPrecision {
    Fp32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Int4,
    Nf4,
}

impl WeightPrecision {
    /// Bytes per parameter as seed 003 states them: FP32 4, BF16/FP16 2, FP8 1, INT4/NF4 0.5.
    /// INT8 is not in the seed; one byte is the same rule applied to an 8-bit format.
    pub fn seed_bytes_per_param(self) -> f64 {
        match self {
            Self::Fp32 => 4.0,
            Self::Bf16 | Self::Fp16 => 2.0,
            Self::Fp8 | Self::Int8 => 1.0,
            Self::Int4 | Self::Nf4 => 0.5,
        }
    }

    /// Bits per stored parameter (seed convention).
    pub fn bits(self) -> f64 {
        self.seed_bytes_per_param() * 8.0
    }

    /// FP8 weights need FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3); integer and NF4
    /// weight-only formats dequantize on any card.
    pub fn needs_fp8_hardware(self) -> bool {
        self == Self::Fp8
    }

    /// Formats a trainer can hold master weights in (full fine-tune, LoRA base).
    pub fn is_float16_or_wider(self) -> bool {
        matches!(self, Self::Fp32 | Self::Bf16 | Self::Fp16)
    }

    /// 4-bit formats a QLoRA base can be quantized to.
    pub fn is_4bit(self) -> bool {
        matches!(self, Self::Int4 | Self::Nf4)
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
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32",
            Self::Bf16 => "BF16",
            Self::Fp16 => "FP16",
            Self::Fp8 => "FP8",
            Self::Int8 => "INT8",
            Self::Int4 => "INT4",
            Self::Nf4 => "NF4",
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
}

impl KvPrecision {
    pub fn bytes_per_element(self) -> f64 {
        match self {
            Self::Fp16 | Self::Bf16 => 2.0,
            Self::Fp8 => 1.0,
        }
    }
}

impl Choice for KvPrecision {
    const ALL: &'static [Self] = &[Self::Fp16, Self::Bf16, Self::Fp8];

    fn label(self) -> &'static str {
        match self {
            Self::Fp16 => "FP16",
            Self::Bf16 => "BF16",
            Self::Fp8 => "FP8",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Self::Fp16 => "fp16",
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
        }
    }
}
