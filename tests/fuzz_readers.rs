//! Fuzzing the binary readers (issue 22): GGUF headers, safetensors headers, checkpoint
//! indexes and the Hugging Face cache layout, with lengths, counts and offsets at the u64
//! edges and arrays nested deep. Nothing may panic, hang or allocate what a header merely
//! claims; whatever is accepted is bounded (at most 10^15 parameters, no more bytes than the
//! file) and plans to finite numbers.
//!
//! `cargo test` runs 256 cases per target (proptest's default). A deep search:
//! `PROPTEST_CASES=100000 cargo test --release --test fuzz_readers` (proptest reads the
//! variable; see docs/guide/development.md, Fuzzing).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};
use vramfit::catalog::checkpoint::Checkpoint;
use vramfit::catalog::{gguf, hf, hfcache, safetensors};

/// The parameter bound every reader keeps.
const MAX_PARAMS: u64 = 1_000_000_000_000_000;

/// A u64 where arithmetic breaks: 0, 1, powers of two around 2^32, 2^62, 2^63, 2^64 − 1,
/// and small and arbitrary values.
fn edge() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..64,
        1 => Just(0),
        1 => Just(u64::MAX),
        1 => Just(u64::MAX - 7),
        1 => Just(1 << 63),
        1 => Just(1 << 62),
        1 => Just((1 << 61) + 1),
        1 => Just(1 << 32),
        1 => Just(u32::MAX as u64),
        1 => Just(400_000_000_000_000),
        2 => any::<u64>(),
    ]
}

/// One GGUF metadata entry, as the generator writes it.
#[derive(Debug, Clone)]
enum Entry {
    /// A scalar of `kind` (any type id, unknown ones included) with 8 payload bytes.
    Scalar(u32, u64),
    /// A string whose length field may lie.
    Text(Option<u64>, String),
    /// Arrays of arrays `depth` deep around an array of `inner` with `count` elements, whose
    /// first `written` are written.
    Array {
        depth: u32,
        inner: u32,
        count: u64,
        written: u8,
    },
}

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        (0u32..16, any::<u64>()).prop_map(|(t, v)| Entry::Scalar(t, v)),
        (proptest::option::weighted(0.2, edge()), "[a-z.]{0,12}").prop_map(|(l, s)| Entry::Text(l, s)),
        (
            prop_oneof![3 => 0u32..3, 1 => 3u32..12, 1 => 40_000u32..45_000],
            0u32..14,
            edge(),
            0u8..6
        )
            .prop_map(|(depth, inner, count, written)| Entry::Array {
                depth,
                inner,
                count,
                written
            }),
    ]
}

/// One tensor info: name length override, dims, ggml type, offset.
type Tensor = (Option<u64>, Vec<u64>, u32, u64);

fn tensor() -> impl Strategy<Value = Tensor> {
    let hostile = (
        proptest::option::weighted(0.1, edge()),
        proptest::collection::vec(prop_oneof![3 => Just(256u64), 2 => 1u64..4096, 2 => edge()], 0..6),
        prop_oneof![4 => prop::sample::select(vec![0u32, 1, 8, 12, 14, 24, 30, 39]), 1 => 0u32..64],
        edge(),
    );
    // Small F16 tensors a few of which make the tiny shape's count: files that are accepted.
    let plain = (1u64..4).prop_map(|k| (None, vec![128 * k], 1u32, 0u64));
    prop_oneof![2 => plain, 3 => hostile]
}

struct Bytes(Vec<u8>);

impl Bytes {
    fn u32(&mut self, v: u32) {
        self.0.extend(v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend(v.to_le_bytes());
    }
    fn string(&mut self, s: &str, len: Option<u64>) {
        self.u64(len.unwrap_or(s.len() as u64));
        self.0.extend(s.as_bytes());
    }
}

/// A GGUF file from the generated parts: counts that may lie, a Llama shape or not, entries,
/// tensors, then the file cut or a byte flipped.
#[allow(clippy::type_complexity)]
fn gguf() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![4 => Just(3u32), 1 => 0u32..5],
        proptest::option::weighted(0.2, edge()),
        proptest::option::weighted(0.2, edge()),
        any::<bool>(),
        proptest::collection::vec(entry(), 0..6),
        proptest::collection::vec(tensor(), 0..5),
        proptest::option::weighted(0.3, any::<prop::sample::Index>()),
        proptest::option::weighted(0.2, (any::<prop::sample::Index>(), any::<u8>())),
    )
        .prop_map(
            |(version, tensors_field, kvs_field, shape, entries, tensors, cut, flip)| {
                let mut b = Bytes(b"GGUF".to_vec());
                b.u32(version);
                let kvs = entries.len() as u64 + if shape { 6 } else { 0 };
                b.u64(tensors_field.unwrap_or(tensors.len() as u64));
                b.u64(kvs_field.unwrap_or(kvs));
                if shape {
                    b.string("general.architecture", None);
                    b.u32(8);
                    b.string("llama", None);
                    for (k, v) in [
                        // 728 parameters: a few generated tensors can match it within 4×.
                        ("llama.embedding_length", 8u32),
                        ("llama.attention.head_count", 2),
                        ("llama.block_count", 1),
                        ("llama.feed_forward_length", 8),
                        ("llama.vocab_size", 16),
                    ] {
                        b.string(k, None);
                        b.u32(4);
                        b.u32(v);
                    }
                }
                for (i, e) in entries.iter().enumerate() {
                    b.string(&format!("k{i}"), None);
                    match e {
                        Entry::Scalar(t, v) => {
                            b.u32(*t);
                            b.u64(*v);
                        }
                        Entry::Text(len, s) => {
                            b.u32(8);
                            b.string(s, *len);
                        }
                        Entry::Array {
                            depth,
                            inner,
                            count,
                            written,
                        } => {
                            b.u32(9);
                            for _ in 0..*depth {
                                b.u32(9);
                                b.u64(1);
                            }
                            b.u32(*inner);
                            b.u64(*count);
                            for j in 0..*written {
                                if *inner == 8 {
                                    b.string(&format!("t{j}"), None);
                                } else {
                                    b.u64(u64::from(j));
                                }
                            }
                        }
                    }
                }
                for (i, (len, dims, t, offset)) in tensors.iter().enumerate() {
                    b.string(&format!("blk.{i}.w"), *len);
                    b.u32(dims.len() as u32);
                    for d in dims {
                        b.u64(*d);
                    }
                    b.u32(*t);
                    b.u64(*offset);
                }
                // Room for small tensors' data, so some files are accepted.
                b.0.resize(b.0.len() + 4096, 0);
                if let Some((at, byte)) = flip {
                    let i = at.index(b.0.len());
                    b.0[i] ^= byte;
                }
                if let Some(at) = cut {
                    b.0.truncate(at.index(b.0.len() + 1));
                }
                b.0
            },
        )
}

/// What every accepted checkpoint keeps: bounded, and no more bytes than it may hold.
fn assert_bounded(c: &Checkpoint, max_bytes: u64) -> Result<(), TestCaseError> {
    prop_assert!(c.params <= MAX_PARAMS, "{} parameters", c.params);
    prop_assert!(c.bytes <= max_bytes, "{} bytes of {max_bytes}", c.bytes);
    let (p, b) = c
        .by_type
        .values()
        .fold((0u64, 0u64), |(p, b), (tp, tb)| (p + tp, b + tb));
    prop_assert_eq!((p, b), (c.params, c.bytes));
    Ok(())
}

fn assert_plans(model: &vramfit::engine::Model) -> Result<(), TestCaseError> {
    use std::sync::OnceLock;
    static CATALOG: OnceLock<vramfit::catalog::Catalog> = OnceLock::new();
    let catalog = CATALOG.get_or_init(|| vramfit::catalog::Catalog::embedded().unwrap());
    prop_assert!(model.arch.validate().is_ok());
    let params = model.params();
    prop_assert!(params.total > 0 && params.total <= MAX_PARAMS && params.active > 0);
    let sc = vramfit::engine::Scenario::seed_inference(vramfit::engine::WeightPrecision::Bf16).calibrated();
    let p = vramfit::engine::plan(model, &catalog.gpus, &sc, true);
    prop_assert!(p.total_bytes().is_finite() && p.total_bytes() > 0.0);
    Ok(())
}

/// A safetensors header: `n` tensors, tiled or with offsets from the edges, dtypes real or
/// not, shapes from the edges; and the file's length (right, or from the edges).
#[allow(clippy::type_complexity)]
fn safetensors_header() -> impl Strategy<Value = (Vec<u8>, u64)> {
    let tensor = (
        prop::sample::select(vec!["BF16", "F32", "I32", "U8", "F4", "F8_E4M3", "Q4"]),
        proptest::collection::vec(prop_oneof![3 => 1u64..64, 1 => edge()], 0..4),
        proptest::option::weighted(0.3, (edge(), edge())),
        prop::sample::select(vec!["w", "l.qweight", "l.scales", "e_blocks"]),
    );
    (
        proptest::collection::vec(tensor, 0..8),
        proptest::option::weighted(0.3, edge()),
    )
        .prop_map(|(tensors, file_len)| {
            let mut map = serde_json::Map::new();
            let mut at = 0u64;
            for (i, (dtype, shape, offsets, suffix)) in tensors.iter().enumerate() {
                let bits = match *dtype {
                    "F32" | "I32" => 32,
                    "BF16" => 16,
                    "F4" => 4,
                    _ => 8,
                };
                let elements = shape.iter().try_fold(1u64, |a, d| a.checked_mul(*d));
                let size = elements
                    .and_then(|e| e.checked_mul(bits))
                    .map_or(u64::MAX, |b| b.div_ceil(8));
                let (begin, end) = offsets.unwrap_or((at, at.saturating_add(size)));
                at = end;
                map.insert(
                    format!("t{i}.{suffix}"),
                    json!({"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}),
                );
            }
            map.insert("__metadata__".into(), json!({"format": "pt"}));
            let header = Value::Object(map).to_string().into_bytes();
            let len = file_len.unwrap_or((8 + header.len() as u64).saturating_add(at));
            (header, len)
        })
}

/// An index's `weight_map`: shard names plain and hostile.
fn weight_map() -> impl Strategy<Value = Value> {
    let name = prop_oneof![
        4 => (1u32..5).prop_map(|i| Value::from(format!("model-0000{i}-of-00004.safetensors"))),
        1 => Just(Value::from("../outside.safetensors")),
        1 => Just(Value::from("/etc/passwd.safetensors")),
        1 => Just(Value::from(".hidden.safetensors")),
        1 => Just(Value::from("a\nerror: forged.safetensors")),
        1 => Just(Value::from("model.bin")),
        1 => Just(Value::from(3)),
        1 => "\\PC{0,12}".prop_map(Value::from),
    ];
    prop_oneof![
        8 => proptest::collection::btree_map("[a-z.]{1,8}", name, 0..6)
            .prop_map(|m| json!({"weight_map": m.into_iter().collect::<serde_json::Map<_, _>>()})),
        1 => Just(json!({"weight_map": []})),
        1 => Just(json!([])),
    ]
}

/// What `refs/main` may hold, and whether the snapshots exist.
fn refs() -> impl Strategy<Value = (Option<Vec<u8>>, bool, bool)> {
    (
        proptest::option::weighted(
            0.9,
            prop_oneof![
                3 => Just(b"abc".to_vec()),
                1 => Just(b"abc\n".to_vec()),
                1 => Just(b"../../../outside".to_vec()),
                1 => Just(b"/tmp".to_vec()),
                1 => Just(b"..".to_vec()),
                1 => Just(b"abc/../../x".to_vec()),
                1 => Just(vec![b'a'; 5000]),
                1 => proptest::collection::vec(any::<u8>(), 0..64),
            ],
        ),
        any::<bool>(),
        any::<bool>(),
    )
}

fn scratch(name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "fuzz-readers-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn llama_config() -> String {
    json!({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
           "max_position_embeddings": 4096})
    .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn gguf_headers_never_panic_and_stay_bounded(bytes in gguf()) {
        let path = Path::new("fuzz.gguf");
        if let Ok(g) = gguf::read_gguf_bytes(path, &bytes) {
            assert_bounded(&g.checkpoint, bytes.len() as u64)?;
        }
        if let Ok(model) = gguf::gguf_model_bytes(path, &bytes) {
            assert_plans(&model)?;
        }
    }

    #[test]
    fn safetensors_headers_never_panic_and_tile_the_data((header, file_len) in safetensors_header()) {
        let mut c = Checkpoint::default();
        if safetensors::read_safetensors_header(Path::new("fuzz.safetensors"), &header, file_len, &mut c).is_ok() {
            // Accepted: the tensors cover the data section exactly, once.
            assert_bounded(&c, file_len)?;
            prop_assert_eq!(c.bytes, file_len - 8 - header.len() as u64);
        }
    }

    #[test]
    fn index_shard_names_stay_in_the_folder(index in weight_map()) {
        if let Ok(names) = safetensors::shard_names(&index) {
            prop_assert!(!names.is_empty());
            for n in &names {
                prop_assert!(n.ends_with(".safetensors") && !n.starts_with('.'));
                prop_assert!(!n.contains(['/', '\\']) && !n.chars().any(char::is_control), "{n:?}");
            }
        }
    }

    #[test]
    fn checkpoint_folders_count_only_whole_checkpoints(
        index in proptest::option::weighted(0.7, weight_map()),
        present in proptest::collection::vec(any::<bool>(), 4),
        stubs in proptest::collection::vec((any::<bool>(), edge()), 4),
    ) {
        let dir = scratch("folder");
        std::fs::write(dir.join("config.json"), llama_config()).unwrap();
        if let Some(index) = &index {
            std::fs::write(dir.join(safetensors::INDEX), index.to_string()).unwrap();
        }
        let header = json!({"w": {"dtype": "BF16", "shape": [1000, 64], "data_offsets": [0, 128000]}}).to_string();
        for i in 0..4 {
            let stem = format!("model-0000{}-of-00004", i + 1);
            if present[i] {
                let mut b = (header.len() as u64).to_le_bytes().to_vec();
                b.extend(header.as_bytes());
                b.resize(b.len() + 128_000, 0);
                std::fs::write(dir.join(format!("{stem}.safetensors")), b).unwrap();
            }
            let (write_stub, file_len) = stubs[i];
            if write_stub {
                let mut b = file_len.to_le_bytes().to_vec();
                b.extend((header.len() as u64).to_le_bytes());
                b.extend(header.as_bytes());
                std::fs::write(dir.join(format!("{stem}.safetensors-header")), b).unwrap();
            }
        }
        match hf::load(&dir) {
            Ok(model) => {
                assert_plans(&model)?;
                // An index was honoured: every shard it names was there, or none was (the
                // config alone is planned).
                if let Some(Ok(names)) = index.as_ref().map(safetensors::shard_names) {
                    let there = |n: &String| {
                        dir.join(n).exists() || dir.join(n.replace(".safetensors", ".safetensors-header")).exists()
                    };
                    let found = names.iter().filter(|n| there(n)).count();
                    prop_assert!(found == 0 || found == names.len(), "{found} of {names:?}");
                }
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{e}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cache_is_read_only_inside_itself((refs, snapshot, other) in refs()) {
        let cache = scratch("cache");
        let repo = cache.join("hub/models--org--m");
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        if let Some(r) = &refs {
            std::fs::write(repo.join("refs/main"), r).unwrap();
        }
        for (made, name) in [(snapshot, "abc"), (other, "def")] {
            if made {
                std::fs::create_dir_all(repo.join("snapshots").join(name)).unwrap();
                std::fs::write(repo.join("snapshots").join(name).join("config.json"), llama_config()).unwrap();
            }
        }
        // Outside the cache, a model that must never be read.
        std::fs::create_dir_all(cache.join("outside")).unwrap();
        std::fs::write(cache.join("outside/config.json"), llama_config()).unwrap();
        let hub = cache.join("hub");
        let listed = hfcache::cached_models(&hub, 10);
        match hfcache::load_cached(&hub, "org/m") {
            Some(Ok(model)) => {
                let from = model.source_path.clone().unwrap_or_default();
                prop_assert!(from.starts_with(&repo.join("snapshots").display().to_string()), "{from}");
                prop_assert!(!from.contains(".."), "{from}");
                prop_assert_eq!(listed, vec!["org/m".to_string()]);
            }
            Some(Err(e)) => prop_assert!(e.to_string().contains("refs/main")),
            None => prop_assert!(!snapshot && !other),
        }
        std::fs::remove_dir_all(&cache).unwrap();
    }
}

/// The generators reach the readers' accepting paths, not only their first checks: a fuzzer
/// whose every input is refused at byte 0 proves nothing.
#[test]
fn the_reader_fuzzers_reach_accepted_inputs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    // A fixed seed: the counts are the same on every run (a random one failed once in many
    // runs, on a draw with fewer accepted models).
    let mut runner = TestRunner::deterministic();
    let (mut headers, mut models, mut tensors) = (0, 0, 0);
    for _ in 0..1000 {
        let bytes = gguf().new_tree(&mut runner).unwrap().current();
        let path = Path::new("fuzz.gguf");
        headers += usize::from(gguf::read_gguf_bytes(path, &bytes).is_ok());
        models += usize::from(gguf::gguf_model_bytes(path, &bytes).is_ok());
        let (header, len) = safetensors_header().new_tree(&mut runner).unwrap().current();
        let mut c = Checkpoint::default();
        tensors += usize::from(
            safetensors::read_safetensors_header(Path::new("f"), &header, len, &mut c).is_ok()
                && c.files == 1,
        );
    }
    let counts = format!(
        "accepted of 1000: {headers} GGUF headers, {models} GGUF models, {tensors} safetensors headers"
    );
    assert!(headers >= 30 && models >= 3 && tensors >= 30, "{counts}");
    eprintln!("{counts}");
}
