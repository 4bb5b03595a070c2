//! Safetensors headers: the 8-byte length and JSON header of each `.safetensors` file (or a
//! header stub fetched by `--hub`), never the tensors.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::FileError;
use super::checkpoint::{Checkpoint, MAX_SAFETENSORS_HEADER_BYTES, fail};

/// Bytes per element of a safetensors dtype.
fn safetensors_bytes(dtype: &str) -> Option<f64> {
    Some(match dtype {
        "F64" | "I64" | "U64" => 8.0,
        "F32" | "I32" | "U32" => 4.0,
        "F16" | "BF16" | "I16" | "U16" => 2.0,
        "F8_E4M3" | "F8_E5M2" | "F8_E8M0" | "I8" | "U8" | "BOOL" => 1.0,
        "F4" => 0.5,
        _ => return None,
    })
}

/// Tensors that are quantization metadata, not parameters (GPTQ/AWQ scales and zeros,
/// FP8 and MXFP4 scales, bitsandbytes state).
fn is_quant_metadata(name: &str) -> bool {
    [
        ".scales",
        ".qzeros",
        ".g_idx",
        "_scale",
        ".weight_scale_inv",
        "_scales",
        ".absmax",
        ".quant_map",
        ".quant_state",
        ".nested_absmax",
        ".nested_quant_map",
        ".input_scale",
    ]
    .iter()
    .any(|s| name.ends_with(s) || name.contains(&format!("{s}.")))
}

/// One `.safetensors` file's header into `into`.
fn read_safetensors_file(path: &Path, into: &mut Checkpoint) -> Result<(), FileError> {
    let meta =
        std::fs::metadata(path).map_err(|e| FileError::new(path.display().to_string(), e.to_string()))?;
    if !meta.is_file() {
        return Err(fail(path, 0, "not a regular file"));
    }
    let mut f =
        std::fs::File::open(path).map_err(|e| FileError::new(path.display().to_string(), e.to_string()))?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len)
        .map_err(|_| fail(path, 0, "shorter than the 8-byte header length"))?;
    let n = u64::from_le_bytes(len);
    if n > MAX_SAFETENSORS_HEADER_BYTES {
        return Err(fail(
            path,
            0,
            format!(
                "header length {n} is over the {} MB limit",
                MAX_SAFETENSORS_HEADER_BYTES >> 20
            ),
        ));
    }
    if 8 + n > meta.len() {
        return Err(fail(
            path,
            0,
            format!("header length {n} runs past the end of the file"),
        ));
    }
    let mut header = vec![0u8; n as usize];
    f.read_exact(&mut header)
        .map_err(|_| fail(path, 8, "truncated header"))?;
    read_safetensors_header(path, &header, meta.len(), into)
}

/// A `.safetensors` header (the JSON after the 8-byte length) of a file `file_len` bytes
/// long into `into`: every tensor's dtype, shape and offsets checked against the file.
pub fn read_safetensors_header(
    path: &Path,
    header: &[u8],
    file_len: u64,
    into: &mut Checkpoint,
) -> Result<(), FileError> {
    let n = header.len() as u64;
    if 8 + n > file_len {
        return Err(fail(
            path,
            0,
            format!("header length {n} runs past the end of the file"),
        ));
    }
    let json: serde_json::Value = serde_json::from_slice(header)
        .map_err(|e| fail(path, 8 + e.column() as u64, format!("header is not JSON: {e}")))?;
    let serde_json::Value::Object(tensors) = json else {
        return Err(fail(path, 8, "header is not a JSON object"));
    };
    let data_len = file_len - 8 - n;
    for (name, t) in tensors.iter().filter(|(k, _)| *k != "__metadata__") {
        let dtype = t.get("dtype").and_then(|d| d.as_str()).unwrap_or("");
        let width = safetensors_bytes(dtype).ok_or_else(|| {
            fail(
                path,
                8,
                format!(
                    "tensor {}: unknown dtype {dtype:?}",
                    crate::text::clean_prefix(name, 60)
                ),
            )
        })?;
        let shape: Option<Vec<u64>> = t
            .get("shape")
            .and_then(|s| s.as_array())
            .map(|a| a.iter().map(|d| d.as_u64()).collect::<Option<Vec<u64>>>())
            .unwrap_or(None);
        let offsets: Option<Vec<u64>> = t
            .get("data_offsets")
            .and_then(|s| s.as_array())
            .map(|a| a.iter().map(|d| d.as_u64()).collect::<Option<Vec<u64>>>())
            .unwrap_or(None);
        let (Some(shape), Some([begin, end])) = (
            shape,
            offsets.as_deref().and_then(|o| <[u64; 2]>::try_from(o).ok()),
        ) else {
            return Err(fail(
                path,
                8,
                format!(
                    "tensor {}: shape or data_offsets missing",
                    crate::text::clean_prefix(name, 60)
                ),
            ));
        };
        if begin > end || end > data_len {
            return Err(fail(
                path,
                8 + n + end.min(data_len),
                format!(
                    "tensor {}: data_offsets [{begin}, {end}] past the end of the data ({data_len} bytes)",
                    crate::text::clean_prefix(name, 60)
                ),
            ));
        }
        let elements = shape
            .iter()
            .try_fold(1u64, |a, d| a.checked_mul(*d))
            .ok_or_else(|| fail(path, 8, "shape overflows"))?;
        let bytes = end - begin;
        if (elements as f64 * width - bytes as f64).abs() > 1.0 {
            return Err(fail(
                path,
                8,
                format!(
                    "tensor {}: {elements} × {dtype} is not {bytes} bytes",
                    crate::text::clean_prefix(name, 60)
                ),
            ));
        }
        // Packed 4-bit weights count their real parameters; quantization metadata counts none.
        let (kind, params) = if is_quant_metadata(name) {
            (format!("{dtype} (quantization scales)"), 0)
        } else if name.ends_with(".qweight") && dtype == "I32" {
            ("I32 (GPTQ/AWQ 4-bit)".to_string(), elements * 8)
        } else if name.ends_with("_blocks") && dtype == "U8" {
            ("U8 (MXFP4)".to_string(), elements * 2)
        } else {
            (dtype.to_string(), elements)
        };
        into.add(&kind, params, bytes);
    }
    into.files += 1;
    Ok(())
}

/// Every `.safetensors` file of a folder (the shards listed by `model.safetensors.index.json`
/// when there is one); `None` when the folder has none.
pub fn read_safetensors_dir(dir: &Path) -> Result<Option<Checkpoint>, FileError> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|x| x == "safetensors" || x == HEADER_STUB)
            })
            .collect(),
        Err(_) => return Ok(None),
    };
    if files.is_empty() {
        return Ok(None);
    }
    files.sort();
    let mut c = Checkpoint::default();
    for f in &files {
        if f.extension().is_some_and(|x| x == HEADER_STUB) {
            read_header_stub(f, &mut c)?;
        } else {
            read_safetensors_file(f, &mut c)?;
        }
    }
    Ok(Some(c))
}

/// The extension of a checkpoint header fetched from the Hub (`--hub`): the file's length
/// (8 bytes, little-endian), then the file's first bytes up to the end of its header — a few
/// KB standing for a file of many GB.
pub const HEADER_STUB: &str = "safetensors-header";

/// A stub's content for a file `file_len` bytes long whose first bytes are `prefix` (the
/// 8-byte length and the header).
pub fn header_stub(file_len: u64, prefix: &[u8]) -> Vec<u8> {
    let mut out = file_len.to_le_bytes().to_vec();
    out.extend_from_slice(prefix);
    out
}

fn read_header_stub(path: &Path, into: &mut Checkpoint) -> Result<(), FileError> {
    let bytes = crate::files::read_bytes(path, 8 + 8 + MAX_SAFETENSORS_HEADER_BYTES)
        .map_err(|e| FileError::new(path.display().to_string(), e))?;
    let (Some(len), Some(n)) = (bytes.get(0..8), bytes.get(8..16)) else {
        return Err(fail(path, 0, "shorter than a header stub"));
    };
    let file_len = u64::from_le_bytes(len.try_into().unwrap_or_default());
    let n = u64::from_le_bytes(n.try_into().unwrap_or_default());
    if n > MAX_SAFETENSORS_HEADER_BYTES || bytes.len() as u64 != 16 + n {
        return Err(fail(path, 8, "header stub does not hold its header"));
    }
    read_safetensors_header(path, &bytes[16..], file_len, into)?;
    into.files += 1;
    Ok(())
}
