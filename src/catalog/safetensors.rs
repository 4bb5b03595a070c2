//! Safetensors headers: the 8-byte length and JSON header of each `.safetensors` file (or a
//! header stub fetched by `--hub`), never the tensors.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::FileError;
use super::checkpoint::{Checkpoint, MAX_SAFETENSORS_HEADER_BYTES, fail};

/// An index larger than this is refused (DeepSeek-V3's, one of the longest, is under 10 MB).
pub const MAX_INDEX_BYTES: u64 = 32 << 20;

/// The index that names a sharded checkpoint's files.
pub const INDEX: &str = "model.safetensors.index.json";

/// Bits per element of a safetensors dtype (whole numbers: F4 is 4).
fn safetensors_bits(dtype: &str) -> Option<u64> {
    Some(match dtype {
        "F64" | "I64" | "U64" => 64,
        "F32" | "I32" | "U32" => 32,
        "F16" | "BF16" | "I16" | "U16" => 16,
        "F8_E4M3" | "F8_E5M2" | "F8_E8M0" | "I8" | "U8" | "BOOL" => 8,
        "F4" => 4,
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
    let data_start = 8 + n;
    let data_len = file_len - data_start;
    // (begin, end, name) of every tensor: they must tile the data section.
    let mut spans: Vec<(u64, u64, &str)> = Vec::with_capacity(tensors.len());
    for (name, t) in tensors.iter().filter(|(k, _)| *k != "__metadata__") {
        let shown = crate::text::clean_prefix(name, 60);
        let dtype = t.get("dtype").and_then(|d| d.as_str()).unwrap_or("");
        let bits = safetensors_bits(dtype)
            .ok_or_else(|| fail(path, 8, format!("tensor {shown}: unknown dtype {dtype:?}")))?;
        let list = |key: &str| -> Option<Vec<u64>> {
            t.get(key)?
                .as_array()?
                .iter()
                .map(|d| d.as_u64())
                .collect::<Option<Vec<u64>>>()
        };
        let (Some(shape), Some([begin, end])) = (
            list("shape"),
            list("data_offsets").and_then(|o| <[u64; 2]>::try_from(o).ok()),
        ) else {
            return Err(fail(
                path,
                8,
                format!("tensor {shown}: shape or data_offsets missing"),
            ));
        };
        if begin > end || end > data_len {
            return Err(fail(
                path,
                data_start + end.min(data_len),
                format!(
                    "tensor {shown}: data_offsets [{begin}, {end}] past the end of the data ({data_len} bytes)"
                ),
            ));
        }
        let elements = shape
            .iter()
            .try_fold(1u64, |a, d| a.checked_mul(*d))
            .ok_or_else(|| fail(path, 8, format!("tensor {shown}: shape {shape:?} overflows")))?;
        // Exact in integers (128 bits: no overflow): ceil(elements × bits / 8) bytes.
        let bytes = end - begin;
        let needed = (u128::from(elements) * u128::from(bits)).div_ceil(8);
        if needed != u128::from(bytes) {
            return Err(fail(
                path,
                data_start + begin,
                format!("tensor {shown}: {elements} × {dtype} is not {bytes} bytes"),
            ));
        }
        // Packed 4-bit weights count their real parameters; quantization metadata counts none.
        let (kind, params) = if is_quant_metadata(name) {
            (format!("{dtype} (quantization scales)"), Some(0))
        } else if name.ends_with(".qweight") && dtype == "I32" {
            ("I32 (GPTQ/AWQ 4-bit)".to_string(), elements.checked_mul(8))
        } else if name.ends_with("_blocks") && dtype == "U8" {
            ("U8 (MXFP4)".to_string(), elements.checked_mul(2))
        } else {
            (dtype.to_string(), Some(elements))
        };
        let params = params.ok_or_else(|| {
            fail(
                path,
                8,
                format!("tensor {shown}: {elements} packed elements overflow a parameter count"),
            )
        })?;
        into.add(&kind, params, bytes)
            .map_err(|e| fail(path, data_start + begin, format!("tensor {shown}: {e}")))?;
        spans.push((begin, end, name));
    }
    check_tiling(path, data_start, data_len, &mut spans)?;
    into.files += 1;
    Ok(())
}

/// The tensors cover the data section exactly, as the safetensors library requires: sorted
/// by offset, each starts where the last ended, the last ends at the end of the file. A
/// thousand tensors sharing one range would otherwise count a thousand times.
fn check_tiling(
    path: &Path,
    data_start: u64,
    data_len: u64,
    spans: &mut [(u64, u64, &str)],
) -> Result<(), FileError> {
    spans.sort_unstable();
    let mut expected = 0u64;
    let mut previous = "";
    for &(begin, end, name) in spans.iter() {
        let shown = crate::text::clean_prefix(name, 60);
        if begin < expected {
            return Err(fail(
                path,
                data_start + begin,
                format!(
                    "tensor {shown}: data_offsets [{begin}, {end}] overlap tensor {} (which ends at {expected})",
                    crate::text::clean_prefix(previous, 60)
                ),
            ));
        }
        if begin > expected {
            return Err(fail(
                path,
                data_start + expected,
                format!("tensor {shown}: data_offsets [{begin}, {end}] leave a gap after {expected}"),
            ));
        }
        expected = end;
        previous = name;
    }
    if expected != data_len {
        return Err(fail(
            path,
            data_start + expected,
            format!("the tensors end at {expected}, but the data section holds {data_len} bytes"),
        ));
    }
    Ok(())
}

/// A checkpoint folder's safetensors headers; `None` when the folder has none. With an
/// index (`model.safetensors.index.json`) exactly the shards it names are read, and every
/// one of them must be there (as the file or as a `--hub` header stub) unless none is: a
/// partial download would otherwise plan as a small model. Without one, every `.safetensors` file (or its
/// stub, when the file is absent) is read.
pub fn read_safetensors_dir(dir: &Path) -> Result<Option<Checkpoint>, FileError> {
    let index = dir.join(INDEX);
    let files = if std::fs::symlink_metadata(&index).is_ok() {
        indexed_shards(&index)?
    } else {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(None);
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
            .collect();
        let stubs: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == HEADER_STUB))
                    .filter(|p| !files.contains(&p.with_extension("safetensors")))
                    .collect()
            })
            .unwrap_or_default();
        files.extend(stubs);
        files
    };
    if files.is_empty() {
        return Ok(None);
    }
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

/// The shard files an index names, each present as itself or as its header stub.
fn indexed_shards(index: &Path) -> Result<Vec<PathBuf>, FileError> {
    let shown = index.display().to_string();
    let bytes = crate::files::read_bytes(index, MAX_INDEX_BYTES).map_err(|e| FileError::new(&shown, e))?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| FileError::new(&shown, format!("line {}: not JSON: {e}", e.line())))?;
    let names = shard_names(&json).map_err(|e| FileError::new(&shown, e))?;
    let dir = index.parent().unwrap_or(Path::new("."));
    let mut files = Vec::with_capacity(names.len());
    let mut missing = Vec::new();
    for name in &names {
        let file = dir.join(name);
        let stub = dir.join(format!("{}.{HEADER_STUB}", name.trim_end_matches(".safetensors")));
        if std::fs::symlink_metadata(&file).is_ok() {
            files.push(file);
        } else if std::fs::symlink_metadata(&stub).is_ok() {
            files.push(stub);
        } else {
            missing.push(crate::text::clean_prefix(name, 80));
        }
    }
    // An index with none of its shards (a download of the JSON files alone) is no
    // checkpoint: the config's shape is planned, as for a folder without weights. Some but
    // not all is a partial download, refused.
    if missing.len() == names.len() {
        return Ok(Vec::new());
    }
    if !missing.is_empty() {
        return Err(FileError::new(
            &shown,
            format!(
                "'weight_map' names {} shards and {} of them are not in the folder ({}{}): the checkpoint is incomplete",
                names.len(),
                missing.len(),
                missing[..missing.len().min(3)].join(", "),
                if missing.len() > 3 { ", …" } else { "" }
            ),
        ));
    }
    Ok(files)
}

/// The shard names of an index's `weight_map`, sorted, once each; each a plain
/// `.safetensors` file name (no folder, no hidden file).
pub fn shard_names(index: &serde_json::Value) -> Result<Vec<String>, String> {
    let map = index
        .get("weight_map")
        .and_then(|m| m.as_object())
        .ok_or("no 'weight_map' object")?;
    let mut names = Vec::new();
    for (tensor, v) in map {
        let Some(name) = v.as_str() else {
            return Err(format!(
                "'weight_map' key {}: the shard is not a string",
                crate::text::clean_prefix(tensor, 60)
            ));
        };
        if !name.ends_with(".safetensors")
            || name.contains(['/', '\\'])
            || name.starts_with('.')
            || name.chars().any(crate::text::is_control)
        {
            return Err(format!(
                "'weight_map' key {}: {} is not a .safetensors file name in this folder",
                crate::text::clean_prefix(tensor, 60),
                crate::text::clean_prefix(name, 80)
            ));
        }
        names.push(name.to_string());
    }
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err("'weight_map' names no shards".into());
    }
    Ok(names)
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
    read_safetensors_header(path, &bytes[16..], file_len, into)
}
