//! What a plan holds in memory: named segments with their bytes and formulas, as the bar,
//! the tables and explain show them. Only types here; the conventions fill them.

use serde::{Serialize, Serializer};

/// The named parts of the stacked memory bar, in drawing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    Weights,
    KvCache,
    Activations,
    Gradients,
    Optimizer,
    Adapter,
    Overhead,
}

impl SegmentKind {
    pub const ALL: [SegmentKind; 7] = [
        Self::Weights,
        Self::KvCache,
        Self::Activations,
        Self::Gradients,
        Self::Optimizer,
        Self::Adapter,
        Self::Overhead,
    ];

    /// JSON / CLI name.
    pub fn id(self) -> &'static str {
        match self {
            Self::Weights => "weights",
            Self::KvCache => "kv_cache",
            Self::Activations => "activations",
            Self::Gradients => "gradients",
            Self::Optimizer => "optimizer",
            Self::Adapter => "adapter",
            Self::Overhead => "overhead",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Weights => "weights",
            Self::KvCache => "KV cache",
            Self::Activations => "activations",
            Self::Gradients => "gradients",
            Self::Optimizer => "optimizer",
            Self::Adapter => "adapter",
            Self::Overhead => "overhead",
        }
    }
}

/// One part of the requirement, with how it was computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    #[serde(rename = "name", serialize_with = "segment_id")]
    pub kind: SegmentKind,
    #[serde(serialize_with = "whole_bytes")]
    pub bytes: f64,
    /// The formula with this scenario's numbers substituted.
    pub formula: String,
    /// Named sub-terms (e.g. the overhead's CUDA context and fragmentation), summing to `bytes`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

/// A named sub-term of a segment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    pub name: &'static str,
    #[serde(serialize_with = "whole_bytes")]
    pub bytes: f64,
}

impl Segment {
    pub fn new(kind: SegmentKind, bytes: f64, formula: String) -> Segment {
        Segment {
            kind,
            bytes,
            formula,
            parts: Vec::new(),
        }
    }

    /// A segment made of named parts; its bytes are their sum.
    pub fn from_parts(kind: SegmentKind, parts: Vec<Part>, formula: String) -> Segment {
        let bytes = parts.iter().map(|p| p.bytes).sum();
        Segment {
            kind,
            bytes,
            formula,
            parts,
        }
    }

    pub fn part(&self, name: &str) -> f64 {
        self.parts
            .iter()
            .filter(|p| p.name == name)
            .map(|p| p.bytes)
            .sum()
    }
}

fn segment_id<S: Serializer>(kind: &SegmentKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.id())
}

/// Byte counts go out as integers: a fraction of a byte is no information.
pub fn whole_bytes<S: Serializer>(bytes: &f64, s: S) -> Result<S::Ok, S::Error> {
    unsigned_bytes(*bytes).serialize(s)
}

/// The same for an amount that may be negative.
pub fn signed_whole_bytes<S: Serializer>(bytes: &f64, s: S) -> Result<S::Ok, S::Error> {
    signed_bytes(*bytes).serialize(s)
}

/// 2^64 and 2^63, exactly.
const TWO_64: f64 = 18_446_744_073_709_551_616.0;
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// A byte count for JSON: a whole number, and the true one even past 2^64. A plan at the
/// knobs' edges (16M tokens × a batch of 1M) needs more than 2^64 bytes; a u64 would print
/// 18446744073709551615 beside the text's real figure. Up to 2^64 it is an integer; beyond,
/// a floating-point number (2.7507310990900904e19), which every JSON reader holds (a
/// 128-bit integer would not fit `serde_json::Value`, nor a JavaScript number exactly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnsignedBytes(f64);

/// The same for an amount that may be negative (free memory short of a plan).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedBytes(f64);

/// Whole bytes of a non-negative amount (negative or NaN: 0; infinite: the largest float,
/// never null).
pub fn unsigned_bytes(bytes: f64) -> UnsignedBytes {
    let r = bytes.round();
    UnsignedBytes(if r.is_nan() { 0.0 } else { r.clamp(0.0, f64::MAX) })
}

/// Whole bytes of an amount that may be negative.
pub fn signed_bytes(bytes: f64) -> SignedBytes {
    let r = bytes.round();
    SignedBytes(if r.is_nan() {
        0.0
    } else {
        r.clamp(f64::MIN, f64::MAX)
    })
}

impl UnsignedBytes {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl SignedBytes {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Serialize for UnsignedBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 < TWO_64 {
            // Whole and in range: the cast is exact.
            s.serialize_u64(self.0 as u64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl Serialize for SignedBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if (-TWO_63..TWO_63).contains(&self.0) {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// The memory a scenario needs, as named segments (only those that apply).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Breakdown {
    pub segments: Vec<Segment>,
    /// Bytes read from memory per generated token (decode); `None` for training.
    #[serde(skip)]
    pub decode_bytes_per_token: Option<f64>,
    #[serde(skip)]
    pub decode_formula: Option<String>,
    /// Of `decode_bytes_per_token`, the KV cache of one sequence at the current context.
    #[serde(skip)]
    pub decode_kv_bytes_per_sequence: f64,
    /// Host (CPU) memory the plan needs: offloaded optimizer states and parameters.
    #[serde(skip)]
    pub host_bytes: f64,
    /// What this convention assumed or could not model, for the explain view.
    #[serde(skip)]
    pub notes: Vec<String>,
}

impl Breakdown {
    pub fn total(&self) -> f64 {
        self.segments.iter().map(|s| s.bytes).sum()
    }

    pub fn get(&self, kind: SegmentKind) -> f64 {
        // `+ 0.0`: an empty float sum is −0.0, which would print as "-0.00".
        self.segments
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.bytes)
            .sum::<f64>()
            + 0.0
    }

    pub fn segment(&self, kind: SegmentKind) -> Option<&Segment> {
        self.segments.iter().find(|s| s.kind == kind)
    }
}

/// An equal share of `whole` on each of `count` cards (the quick rules add the cards'
/// memory up).
pub fn equal_share(whole: &Breakdown, count: u32) -> Breakdown {
    let n = f64::from(count);
    let mut share = whole.clone();
    for s in &mut share.segments {
        s.bytes /= n;
        s.formula = crate::engine::basics::units::words!(
            "({}) ÷ {count} cards = {}",
            s.formula,
            crate::engine::basics::units::format_gb(s.bytes)
        );
        for p in &mut s.parts {
            p.bytes /= n;
        }
    }
    share.notes.push(crate::engine::basics::units::words!(
        "quick rules: each of the {count} cards holds an equal share"
    ));
    share
}
