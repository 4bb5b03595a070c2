//! GGUF headers: a file's metadata and tensor infos (v2/v3, little-endian), never the
//! tensors.

pub use super::gguf_scan::gguf_files;
use super::gguf_scan::gguf_parts;
use std::collections::BTreeMap;
use std::io::{BufReader, Cursor, Read, Seek};
use std::path::Path;

use super::FileError;
use super::checkpoint::{Checkpoint, MAX_HEADER_BYTES, fail};

/// A ggml tensor type's block: (name, elements per block, bytes per block), from ggml's type
/// table (ggml.h's `enum ggml_type` and the type traits).
pub fn ggml_type(t: u32) -> Option<(&'static str, u64, u64)> {
    Some(match t {
        0 => ("F32", 1, 4),
        1 => ("F16", 1, 2),
        2 => ("Q4_0", 32, 18),
        3 => ("Q4_1", 32, 20),
        6 => ("Q5_0", 32, 22),
        7 => ("Q5_1", 32, 24),
        8 => ("Q8_0", 32, 34),
        9 => ("Q8_1", 32, 36),
        10 => ("Q2_K", 256, 84),
        11 => ("Q3_K", 256, 110),
        12 => ("Q4_K", 256, 144),
        13 => ("Q5_K", 256, 176),
        14 => ("Q6_K", 256, 210),
        15 => ("Q8_K", 256, 292),
        16 => ("IQ2_XXS", 256, 66),
        17 => ("IQ2_XS", 256, 74),
        18 => ("IQ3_XXS", 256, 98),
        19 => ("IQ1_S", 256, 50),
        20 => ("IQ4_NL", 32, 18),
        21 => ("IQ3_S", 256, 110),
        22 => ("IQ2_S", 256, 82),
        23 => ("IQ4_XS", 256, 136),
        24 => ("I8", 1, 1),
        25 => ("I16", 1, 2),
        26 => ("I32", 1, 4),
        27 => ("I64", 1, 8),
        28 => ("F64", 1, 8),
        29 => ("IQ1_M", 256, 56),
        30 => ("BF16", 1, 2),
        34 => ("TQ1_0", 256, 54),
        35 => ("TQ2_0", 256, 66),
        39 => ("MXFP4", 32, 17),
        _ => return None,
    })
}

/// A GGUF metadata value (arrays are counted, not kept, except what the shape needs).
#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    Int(i128),
    Float(f64),
    Bool(bool),
    Text(String),
    /// An array's element count.
    Array(u64),
}

/// Arrays of arrays deeper than this are refused: llama.cpp writes none, and each level
/// would otherwise cost a stack frame (a 27-byte file could nest 44,000 levels).
pub const MAX_ARRAY_DEPTH: u32 = 4;

/// A bounded little-endian reader that knows its offset. Every length read from the file is
/// checked against the header cap and the file's own length before anything is allocated
/// or skipped, with checked arithmetic: a length near 2^64 must not wrap the bound.
struct Reader<'a, R: Read + Seek> {
    r: R,
    at: u64,
    /// The file's length, or the header cap if smaller: nothing past it is read.
    end: u64,
    path: &'a Path,
}

impl<R: Read + Seek> Reader<'_, R> {
    /// Where `n` more bytes would end, if that is inside the header and the file.
    fn reach(&self, n: u64) -> Result<u64, FileError> {
        match self.at.checked_add(n) {
            Some(to) if to <= self.end => Ok(to),
            _ if self.end == MAX_HEADER_BYTES => Err(fail(
                self.path,
                self.at,
                format!(
                    "the header runs past {} MB ({n} more bytes)",
                    MAX_HEADER_BYTES >> 20
                ),
            )),
            _ => Err(fail(
                self.path,
                self.at,
                format!("the file ends inside the header ({n} more bytes)"),
            )),
        }
    }
    fn bytes(&mut self, n: u64) -> Result<Vec<u8>, FileError> {
        let to = self.reach(n)?;
        let mut b = vec![0u8; n as usize];
        self.r
            .read_exact(&mut b)
            .map_err(|_| fail(self.path, self.at, "the file ends inside the header"))?;
        self.at = to;
        Ok(b)
    }
    /// Pass over `n` bytes without reading them (the tokenizer's arrays run to tens of MB).
    fn skip(&mut self, n: u64) -> Result<(), FileError> {
        let to = self.reach(n)?;
        // `reach` keeps `n` under the 64 MB cap, so it fits an i64.
        self.r
            .seek_relative(n as i64)
            .map_err(|e| fail(self.path, self.at, e.to_string()))?;
        self.at = to;
        Ok(())
    }
    /// `N` bytes into an array: no allocation (a tokenizer has millions of lengths to read).
    fn array_of<const N: usize>(&mut self) -> Result<[u8; N], FileError> {
        let to = self.reach(N as u64)?;
        let mut b = [0u8; N];
        self.r
            .read_exact(&mut b)
            .map_err(|_| fail(self.path, self.at, "the file ends inside the header"))?;
        self.at = to;
        Ok(b)
    }
    fn u32(&mut self) -> Result<u32, FileError> {
        Ok(u32::from_le_bytes(self.array_of()?))
    }
    fn u64(&mut self) -> Result<u64, FileError> {
        Ok(u64::from_le_bytes(self.array_of()?))
    }
    fn string(&mut self) -> Result<String, FileError> {
        let n = self.u64()?;
        let b = self.bytes(n)?;
        Ok(String::from_utf8_lossy(&b).into_owned())
    }
    fn value(&mut self, t: u32) -> Result<Meta, FileError> {
        let at = self.at;
        Ok(match t {
            0 => Meta::Int(self.bytes(1)?[0].into()),
            1 => Meta::Int((self.bytes(1)?[0] as i8).into()),
            2 => Meta::Int(u16::from_le_bytes(self.bytes(2)?.try_into().unwrap_or_default()).into()),
            3 => Meta::Int(i16::from_le_bytes(self.bytes(2)?.try_into().unwrap_or_default()).into()),
            4 => Meta::Int(self.u32()?.into()),
            5 => Meta::Int((self.u32()? as i32).into()),
            6 => Meta::Float(f32::from_le_bytes(self.bytes(4)?.try_into().unwrap_or_default()).into()),
            7 => Meta::Bool(self.bytes(1)?[0] != 0),
            8 => Meta::Text(self.string()?),
            9 => Meta::Array(self.array(1)?),
            10 => Meta::Int(self.u64()?.into()),
            11 => Meta::Int((self.u64()? as i64).into()),
            12 => Meta::Float(f64::from_le_bytes(self.bytes(8)?.try_into().unwrap_or_default())),
            other => return Err(fail(self.path, at, format!("unknown metadata type {other}"))),
        })
    }
    /// An array's element count; its elements are passed over, not parsed (the planner
    /// needs only the tokenizer's length): fixed-size elements in one seek, strings by
    /// their lengths, nested arrays to [`MAX_ARRAY_DEPTH`] levels.
    fn array(&mut self, depth: u32) -> Result<u64, FileError> {
        let at = self.at;
        if depth > MAX_ARRAY_DEPTH {
            return Err(fail(
                self.path,
                at,
                format!("arrays nested more than {MAX_ARRAY_DEPTH} deep"),
            ));
        }
        let inner = self.u32()?;
        let n = self.u64()?;
        let width = match inner {
            0 | 1 | 7 => Some(1),
            2 | 3 => Some(2),
            4..=6 => Some(4),
            10..=12 => Some(8),
            8 | 9 => None,
            other => return Err(fail(self.path, at, format!("unknown array element type {other}"))),
        };
        match width {
            Some(w) => {
                let total = n
                    .checked_mul(w)
                    .ok_or_else(|| fail(self.path, at, format!("an array of {n} elements overflows")))?;
                self.skip(total)?;
            }
            // Each element reads at least 8 bytes, so the header cap ends a huge count.
            None if inner == 8 => {
                for _ in 0..n {
                    let len = self.u64()?;
                    self.skip(len)?;
                }
            }
            None => {
                for _ in 0..n {
                    self.array(depth + 1)?;
                }
            }
        }
        Ok(n)
    }
}

/// A GGUF file's metadata and tensor totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Gguf {
    pub meta: BTreeMap<String, Meta>,
    pub checkpoint: Checkpoint,
    /// A separate output (lm_head) tensor: the embeddings are not tied.
    pub has_output: bool,
}

impl Gguf {
    pub fn int(&self, key: &str) -> Option<u64> {
        match self.meta.get(key) {
            Some(Meta::Int(v)) if *v >= 0 => u64::try_from(*v).ok(),
            Some(Meta::Array(n)) => Some(*n),
            _ => None,
        }
    }
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.meta.get(key) {
            Some(Meta::Text(t)) => Some(t),
            _ => None,
        }
    }
}

/// Read a GGUF file's header: metadata and tensor infos, never the tensors.
pub fn read_gguf(path: &Path) -> Result<Gguf, FileError> {
    // Checked before opening: opening a FIFO would block, a device would never end.
    let meta =
        std::fs::metadata(path).map_err(|e| FileError::new(path.display().to_string(), e.to_string()))?;
    if !meta.is_file() {
        return Err(fail(path, 0, "not a regular file"));
    }
    let f =
        std::fs::File::open(path).map_err(|e| FileError::new(path.display().to_string(), e.to_string()))?;
    parse_gguf(path, BufReader::new(f), meta.len())
}

/// A GGUF header from memory (`path` names it in errors): what the fuzz tests drive.
pub fn read_gguf_bytes(path: &Path, bytes: &[u8]) -> Result<Gguf, FileError> {
    parse_gguf(path, Cursor::new(bytes), bytes.len() as u64)
}

fn parse_gguf<R: Read + Seek>(path: &Path, r: R, file_len: u64) -> Result<Gguf, FileError> {
    let mut r = Reader {
        r,
        at: 0,
        end: file_len.min(MAX_HEADER_BYTES),
        path,
    };
    if r.bytes(4)? != b"GGUF" {
        return Err(fail(path, 0, "not a GGUF file (no GGUF magic)"));
    }
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(fail(
            path,
            4,
            format!("GGUF version {version} (2 and 3 are read)"),
        ));
    }
    let tensors = r.u64()?;
    let kvs = r.u64()?;
    if tensors > 1 << 20 || kvs > 1 << 20 {
        return Err(fail(
            path,
            8,
            format!("{tensors} tensors and {kvs} keys is not a real model"),
        ));
    }
    let mut g = Gguf {
        meta: BTreeMap::new(),
        checkpoint: Checkpoint::default(),
        has_output: false,
    };
    for _ in 0..kvs {
        let key = r.string()?;
        let t = r.u32()?;
        let v = r.value(t)?;
        g.meta.insert(key, v);
    }
    for _ in 0..tensors {
        let at = r.at;
        let name = r.string()?;
        let dims = r.u32()?;
        if dims > 4 {
            return Err(fail(
                path,
                at,
                format!(
                    "tensor {}: {dims} dimensions",
                    crate::text::clean_prefix(&name, 60)
                ),
            ));
        }
        let mut shape = Vec::new();
        for _ in 0..dims {
            shape.push(r.u64()?);
        }
        let t = r.u32()?;
        let _offset = r.u64()?;
        let (kind, block, size) = ggml_type(t).ok_or_else(|| {
            fail(
                path,
                at,
                format!(
                    "tensor {}: unknown ggml type {t}",
                    crate::text::clean_prefix(&name, 60)
                ),
            )
        })?;
        let shown = crate::text::clean_prefix(&name, 60);
        let elements = shape
            .iter()
            .try_fold(1u64, |a, d| a.checked_mul(*d))
            .ok_or_else(|| fail(path, at, format!("tensor {shown}: shape {shape:?} overflows")))?;
        if !shape.first().copied().unwrap_or(1).is_multiple_of(block) {
            return Err(fail(
                path,
                at,
                format!(
                    "tensor {}: rows are not whole {kind} blocks",
                    crate::text::clean_prefix(&name, 60)
                ),
            ));
        }
        g.has_output |= name == "output.weight";
        let bytes = (elements / block).checked_mul(size).ok_or_else(|| {
            fail(
                path,
                at,
                format!("tensor {shown}: {elements} {kind} elements overflow a byte count"),
            )
        })?;
        g.checkpoint
            .add(kind, elements, bytes)
            .map_err(|e| fail(path, at, format!("tensor {shown}: {e}")))?;
    }
    g.checkpoint.files = 1;
    if g.checkpoint.bytes > file_len {
        return Err(fail(
            path,
            r.at,
            format!(
                "tensors of {} bytes do not fit a {}-byte file",
                g.checkpoint.bytes, file_len
            ),
        ));
    }
    Ok(g)
}

/// A model from a GGUF file (or its split parts): the shape from the `<arch>.*` keys, the
/// exact parameter count and weight bytes from the tensor infos.
pub fn gguf_model(path: &Path) -> Result<crate::engine::Model, FileError> {
    let parts = gguf_parts(path)?;
    let first = read_gguf(&parts[0])?;
    let mut total = first.checkpoint.clone();
    for p in &parts[1..] {
        let g = read_gguf(p)?;
        for (k, (params, bytes)) in g.checkpoint.by_type {
            total
                .add(&k, params, bytes)
                .map_err(|e| FileError::new(p.display().to_string(), e))?;
        }
        total.files += 1;
    }
    model_from(path, &first, total)
}

/// A model from one GGUF file's bytes (`path` names it): what the fuzz tests drive.
pub fn gguf_model_bytes(path: &Path, bytes: &[u8]) -> Result<crate::engine::Model, FileError> {
    let first = read_gguf_bytes(path, bytes)?;
    let total = first.checkpoint.clone();
    model_from(path, &first, total)
}

/// The model a GGUF header describes, with `total` the tensors of all its parts.
fn model_from(path: &Path, first: &Gguf, total: Checkpoint) -> Result<crate::engine::Model, FileError> {
    use crate::engine::model::{Architecture, MlpKind, Model, Moe, SlidingWindow};
    let shown = path.display().to_string();
    let arch = first.text("general.architecture").unwrap_or("llama").to_string();
    let key = |k: &str| first.int(&format!("{arch}.{k}"));
    let need = |k: &str| {
        key(k)
            .filter(|v| *v > 0)
            .ok_or_else(|| FileError::new(&shown, format!("GGUF lacks {arch}.{k}")))
    };
    let hidden = need("embedding_length")?;
    let heads = need("attention.head_count")?;
    let layers = need("block_count")?;
    let experts = key("expert_count").filter(|e| *e > 1);
    let intermediate = key("feed_forward_length")
        .or(key("expert_feed_forward_length"))
        .unwrap_or(4 * hidden);
    let vocab = first
        .int("tokenizer.ggml.tokens")
        .or(key("vocab_size"))
        .ok_or_else(|| FileError::new(&shown, "GGUF has no tokenizer.ggml.tokens or vocab_size"))?;
    let moe = experts.map(|e| Moe {
        experts: e,
        active: key("expert_used_count").unwrap_or(2).min(e),
        shared: key("expert_shared_count").unwrap_or(0),
        expert_intermediate: key("expert_feed_forward_length").unwrap_or(intermediate),
        shared_intermediate: None,
        shared_expert_gate: false,
        first_dense_layers: key("leading_dense_block_count").unwrap_or(0),
        router_bias: false,
        every: 1,
    });
    let arch_shape = Architecture {
        hidden,
        intermediate,
        layers,
        heads,
        kv_heads: key("attention.head_count_kv").unwrap_or(heads),
        head_dim: key("attention.key_length").unwrap_or(hidden / heads),
        vocab,
        tied_embeddings: !first.has_output,
        qkv_bias: false,
        o_bias: false,
        qk_norm: false,
        norms_per_layer: 2,
        norm_bias: false,
        qk_norm_full: false,
        q_gate: false,
        norm_free: false,
        ssm: None,
        mlp: MlpKind::Gated,
        mlp_bias: false,
        attention_sinks: false,
        sliding_window: key("attention.sliding_window").map(|w| SlidingWindow {
            window: w,
            global_every: 0,
        }),
        moe,
        mla: None,
        attention_16bit_in: None,
        edge_blocks_16bit: false,
        active_excludes_embedding: false,
        position_embeddings: 0,
        lm_head_bias: false,
    };
    arch_shape
        .validate()
        .map_err(|e| FileError::new(&shown, format!("GGUF shape: {}", e.message)))?;
    // A header without tensors (or with a few) would plan a 70B shape as nothing at all.
    if total.params == 0 {
        return Err(fail(
            path,
            8,
            "the header lists no tensors: there are no weights to plan from",
        ));
    }
    super::checkpoint::check_against_shape(&total, arch_shape.param_count().total)
        .map_err(|e| FileError::new(&shown, e))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("gguf");
    let name = first
        .text("general.name")
        .map(|n| crate::text::clean_prefix(n, 80))
        .unwrap_or_else(|| stem.to_string());
    let mut warnings = vec![format!(
        "the file holds {} of weights ({} parameters, exact from its tensor infos{}); planned as stored unless --weights names another format",
        total.summary(),
        crate::engine::basics::units::format_params(total.params),
        if total.files > 1 {
            format!(", {} parts", total.files)
        } else {
            String::new()
        }
    )];
    if experts.is_some() {
        warnings.push(
            "mixture of experts: the active count comes from the shape, the total from the file".into(),
        );
    }
    Ok(Model {
        id: crate::text::clean_prefix(stem, 80),
        name,
        family: format!("GGUF ({})", crate::text::clean_prefix(&arch, 20)),
        hf_repo: None,
        max_context: key("context_length").unwrap_or(4096).clamp(1, 1 << 30),
        arch: arch_shape,
        // Dense: the file's count is exact; MoE keeps the shape's total and active split.
        declared_params: experts.is_none().then_some(total.params),
        warnings,
        source_path: Some(path.display().to_string()),
        checkpoint: Some(total.weights()).flatten(),
        params_range: None,
        unknown_keys: Vec::new(),
        published_format: None,
        vision: None,
        rope: Default::default(),
    })
}
