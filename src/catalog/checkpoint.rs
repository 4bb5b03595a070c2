//! Exact counts from a checkpoint's headers, never its tensors: what the two readers
//! ([`super::gguf`] for a GGUF file's metadata and tensor infos, [`super::safetensors`] for
//! the 8-byte length and JSON header of each `.safetensors` file) share. The parameters and
//! bytes per storage type, the bounds on a header, the check against a shape, and a
//! malformed header reported with the file and the byte offset.

use std::collections::BTreeMap;
use std::path::Path;

use super::FileError;

/// A GGUF header larger than this is refused (its tokenizer arrays run to a few MB).
pub const MAX_HEADER_BYTES: u64 = 64 << 20;
/// A safetensors header larger than this is refused: real ones list a shard's tensors in
/// kilobytes (a few hundred KB for the largest MoE shards).
pub const MAX_SAFETENSORS_HEADER_BYTES: u64 = 8 << 20;

/// The most parameters a checkpoint may hold: the engine's bound on a shape
/// ([`crate::engine::model::MAX_PARAMS`]), 10^15.
pub const MAX_CHECKPOINT_PARAMS: u64 = 1_000_000_000_000_000;

/// What the headers say: parameters and bytes, per storage type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checkpoint {
    pub params: u64,
    pub bytes: u64,
    /// Storage type → (parameters, bytes), e.g. "BF16", "Q4_K", "I32 (GPTQ 4-bit)".
    pub by_type: BTreeMap<String, (u64, u64)>,
    /// The files read.
    pub files: usize,
}

impl Checkpoint {
    /// Add one tensor (or one file's totals). Checked: a header may claim any size, and a
    /// sum that wrapped would plan a wrong model as a small one. More than
    /// [`MAX_CHECKPOINT_PARAMS`] parameters is no real checkpoint.
    pub(super) fn add(&mut self, kind: &str, params: u64, bytes: u64) -> Result<(), String> {
        let (Some(total_params), Some(total_bytes)) =
            (self.params.checked_add(params), self.bytes.checked_add(bytes))
        else {
            return Err(format!(
                "the tensors add up to more than {} bytes or parameters",
                u64::MAX
            ));
        };
        if total_params > MAX_CHECKPOINT_PARAMS {
            return Err(
                "the tensors add up to more than 10^15 parameters, over what a model can have".into(),
            );
        }
        let e = self.by_type.entry(kind.to_string()).or_default();
        // Each part is at most its total, so these cannot wrap.
        e.0 += params;
        e.1 += bytes;
        self.params = total_params;
        self.bytes = total_bytes;
        Ok(())
    }

    /// The format planning should use to match the file: the storage type holding the
    /// most bytes, where the planner has one for it.
    pub fn native_format(&self) -> Option<crate::engine::WeightPrecision> {
        use crate::engine::WeightPrecision as W;
        let (kind, _) = self.by_type.iter().max_by_key(|(_, (_, b))| *b)?;
        Some(match kind.as_str() {
            "BF16" => W::Bf16,
            "F16" => W::Fp16,
            "F32" => W::Fp32,
            "F8_E4M3" => W::Fp8,
            "I32 (GPTQ/AWQ 4-bit)" => W::Int4,
            "U8 (MXFP4)" | "MXFP4" => W::Mxfp4,
            "Q8_0" => W::Q8_0,
            "Q6_K" => W::Q6K,
            "Q5_K" => W::Q5KM,
            "Q4_K" => W::Q4KM,
            "Q4_0" => W::Q4_0,
            "Q3_K" => W::Q3KM,
            "Q2_K" => W::Q2K,
            _ => return None,
        })
    }

    /// The weights as the engine takes them: format, bytes, summary.
    pub fn weights(&self) -> Option<crate::engine::model::CheckpointWeights> {
        Some(crate::engine::model::CheckpointWeights {
            format: self.native_format()?,
            bytes: self.bytes as f64,
            summary: self.summary(),
        })
    }

    /// "4.92 GB: Q4_K 4.21 GB, Q6_K 0.63 GB, F32 0.08 GB".
    pub fn summary(&self) -> String {
        let mut parts: Vec<(&String, &(u64, u64))> = self.by_type.iter().collect();
        parts.sort_by_key(|p| std::cmp::Reverse(p.1.1));
        let list: Vec<String> = parts
            .iter()
            .map(|(k, (_, b))| format!("{k} {:.2} GB", *b as f64 / 1e9))
            .collect();
        format!("{:.2} GB: {}", self.bytes as f64 / 1e9, list.join(", "))
    }
}

/// How far apart a checkpoint's count and its shape's may be before the checkpoint is
/// refused. Packed formats the reader cannot unpack (bitsandbytes' 4-bit U8 tensors count
/// half their parameters) and extra towers (vision encoders beside a text config) stay well
/// inside it; a missing shard, an empty file or another model's weights do not.
pub const SHAPE_FACTOR: u64 = 4;

/// Whether the tensors' count agrees with the shape's within [`SHAPE_FACTOR`]; why not, in
/// words that say which is larger and by how much.
pub fn check_against_shape(c: &Checkpoint, shape_params: u64) -> Result<(), String> {
    let (file, shape) = (c.params, shape_params);
    let too_few = file.saturating_mul(SHAPE_FACTOR) < shape;
    let too_many = shape.saturating_mul(SHAPE_FACTOR) < file;
    if !too_few && !too_many {
        return Ok(());
    }
    // Both are at most 10^15 (the checkpoint's bound and the shape's): they fit an i64.
    let exact = |n: u64| crate::engine::basics::units::group_thousands(n.min(i64::MAX as u64) as i64);
    Err(format!(
        "the tensors hold {} parameters ({} bytes in {} files) but the shape has {}: more than {SHAPE_FACTOR} times {}, so the checkpoint is incomplete or not this model",
        exact(file),
        exact(c.bytes),
        c.files,
        exact(shape),
        if too_few { "fewer" } else { "more" }
    ))
}

pub(super) fn fail(path: &Path, offset: u64, message: impl Into<String>) -> FileError {
    FileError::new(
        path.display().to_string(),
        format!("byte {offset}: {}", message.into()),
    )
}
