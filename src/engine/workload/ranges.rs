//! The valid range of every numeric knob: the one place the CLI's parsers, plan files and
//! the planner's steps take them from.

/// Limits beyond which a number is a typo rather than a plan.
pub const MAX_CONTEXT: u64 = 16 * 1024 * 1024;
pub const MAX_BATCH: u64 = 1 << 20;
pub const MAX_LORA_RANK: u64 = 65_536;
pub const MAX_CARDS: u32 = 4096;
/// What one card can hold, in bytes: the catalog's range for a card's usable memory, and
/// the range a detected card's reported total must fall in.
pub const MIN_CARD_BYTES: f64 = 1e8;
pub const MAX_CARD_BYTES: f64 = 1e14;

/// A number outside its knob's range, with the knob's flag (= plan file key).
#[derive(Debug, Clone, PartialEq)]
pub struct KnobError {
    pub flag: &'static str,
    pub message: String,
}

/// The valid range of one numeric knob: the one place the CLI, plan files and the
/// planner's steps take it from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The CLI flag without dashes, also the plan file's key.
    pub flag: &'static str,
    pub lo: f64,
    pub hi: f64,
    /// The unit or kind of number, for the message.
    pub unit: &'static str,
}

impl Range {
    pub fn check(&self, value: f64) -> Result<(), KnobError> {
        if value.is_finite() && (self.lo..=self.hi).contains(&value) {
            return Ok(());
        }
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        Err(KnobError {
            flag: self.flag,
            message: format!(
                "--{} must be between {} and {}{unit}, got {}",
                self.flag,
                crate::engine::basics::units::plain_number(self.lo),
                crate::engine::basics::units::plain_number(self.hi),
                crate::engine::basics::units::plain_number(value),
            ),
        })
    }

    /// `value` moved into the range (the planner's steps never leave it).
    pub fn clamp(&self, value: f64) -> f64 {
        if value.is_nan() {
            self.lo
        } else {
            value.clamp(self.lo, self.hi)
        }
    }
}

// Every numeric knob's range.
pub const CONTEXT: Range = Range {
    flag: "context",
    lo: 1.0,
    hi: MAX_CONTEXT as f64,
    unit: "tokens",
};
pub const BATCH: Range = Range {
    flag: "batch",
    lo: 1.0,
    hi: MAX_BATCH as f64,
    unit: "sequences",
};
pub const LORA_RANK: Range = Range {
    flag: "lora-rank",
    lo: 1.0,
    hi: MAX_LORA_RANK as f64,
    unit: "",
};
/// A safety margin as a fraction of the requirement (30–50 % is usual).
pub const MARGIN: Range = Range {
    flag: "margin",
    lo: 0.0,
    hi: 10.0,
    unit: "(a fraction)",
};
pub const ZERO: Range = Range {
    flag: "zero",
    lo: 0.0,
    hi: 3.0,
    unit: "",
};
pub const CARDS: Range = Range {
    flag: "cards",
    lo: 1.0,
    hi: MAX_CARDS as f64,
    unit: "cards",
};
/// An hour (billing is hourly at best) to ten years.
pub const HOURS: Range = Range {
    flag: "hours",
    lo: 1.0,
    hi: 87_600.0,
    unit: "hours",
};
/// Sustained share of peak compute (MFU): 1 % to 100 %.
pub const UTILIZATION: Range = Range {
    flag: "utilization",
    lo: 0.01,
    hi: 1.0,
    unit: "(a fraction)",
};
pub const EPOCHS: Range = Range {
    flag: "epochs",
    lo: 1.0,
    hi: 1000.0,
    unit: "",
};
pub const TRAIN_TOKENS: Range = Range {
    flag: "train-tokens",
    lo: 1.0,
    hi: 1e15,
    unit: "tokens",
};
pub const USD_CNY: Range = Range {
    flag: "usd-cny",
    lo: 0.1,
    hi: 100.0,
    unit: "CNY per USD",
};
/// A prefill step: one KV block (16 tokens) to a million.
pub const MAX_BATCHED_TOKENS: Range = Range {
    flag: "max-batched-tokens",
    lo: 16.0,
    hi: MAX_CONTEXT as f64,
    unit: "tokens",
};
/// llama.cpp's physical batch: 1 to 65,536 tokens.
pub const UBATCH: Range = Range {
    flag: "ubatch",
    lo: 1.0,
    hi: 65_536.0,
    unit: "tokens",
};
/// vLLM's scheduler cap on sequences per step: 1 to 65,536.
pub const MAX_NUM_SEQS: Range = Range {
    flag: "max-num-seqs",
    lo: 1.0,
    hi: 65_536.0,
    unit: "sequences",
};
/// DeepSpeed's reduce bucket: 1 to 10^11 elements.
pub const BUCKET: Range = Range {
    flag: "reduce-bucket-size",
    lo: 1.0,
    hi: 1e11,
    unit: "elements",
};
/// DeepSpeed's stage-3 prefetch bucket: 1 to 10^11 elements.
pub const PREFETCH_BUCKET: Range = Range {
    flag: "prefetch-bucket-size",
    lo: 1.0,
    hi: 1e11,
    unit: "elements",
};
pub const PROMPT: Range = Range {
    flag: "prompt",
    lo: 1.0,
    hi: MAX_CONTEXT as f64,
    unit: "tokens",
};
/// Between nodes: 1 Gb/s to 100 Tb/s.
pub const NETWORK_GBPS: Range = Range {
    flag: "network-gbps",
    lo: 1.0,
    hi: 100_000.0,
    unit: "Gb/s",
};
/// A serving engine's share of each card.
pub const GPU_UTIL: Range = Range {
    flag: "gpu-util",
    lo: 0.05,
    hi: 1.0,
    unit: "(a fraction)",
};

/// All of them, for tests and documentation.
pub const ALL: &[Range] = &[
    CONTEXT,
    BATCH,
    LORA_RANK,
    MARGIN,
    ZERO,
    CARDS,
    HOURS,
    UTILIZATION,
    EPOCHS,
    TRAIN_TOKENS,
    USD_CNY,
    PROMPT,
    NETWORK_GBPS,
    GPU_UTIL,
];
pub const RAM_GB: Range = Range {
    flag: "ram",
    lo: 0.0,
    hi: 1_000_000.0,
    unit: "GB",
};
pub const RAM_BANDWIDTH: Range = Range {
    flag: "ram-bandwidth",
    lo: 0.1,
    hi: 100_000.0,
    unit: "GB/s",
};
/// Layers of any model in the catalog's range, with llama.cpp's output layer.
pub const GPU_LAYERS: Range = Range {
    flag: "gpu-layers",
    lo: 0.0,
    hi: 10_001.0,
    unit: "layers",
};
pub const N_CPU_MOE: Range = Range {
    flag: "n-cpu-moe",
    lo: 0.0,
    hi: 10_000.0,
    unit: "layers",
};

/// Images in one request to a vision-language model.
pub const IMAGES: Range = Range {
    flag: "images",
    lo: 0.0,
    hi: 256.0,
    unit: "images",
};
/// An image's side in pixels.
pub const IMAGE_SIDE: Range = Range {
    flag: "image-size",
    lo: 14.0,
    hi: 16_384.0,
    unit: "pixels",
};

/// A serving target's concurrent users: one to a million.
pub const USERS: Range = Range {
    flag: "users",
    lo: 1.0,
    hi: 1e6,
    unit: "users",
};
/// Decode tokens/s each user must get: 0.1 to 10,000.
pub const MIN_TPS: Range = Range {
    flag: "min-tps",
    lo: 0.1,
    hi: 10_000.0,
    unit: "tokens/s",
};
/// Seconds to the first token: 10 ms to an hour.
pub const MAX_TTFT: Range = Range {
    flag: "max-ttft",
    lo: 0.01,
    hi: 3600.0,
    unit: "seconds",
};
/// Hours a fine-tune may take: 6 minutes to 10 years, as the rental term.
pub const DEADLINE: Range = Range {
    flag: "deadline",
    lo: 0.1,
    hi: 87_600.0,
    unit: "hours",
};
