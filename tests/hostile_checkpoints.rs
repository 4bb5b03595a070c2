//! Hostile checkpoints and caches (issue 22): every file here is built by the test. Each
//! case exits 2 with a message naming the file and the byte offset or key, prints nothing on
//! stdout, writes nothing, and never hangs (each run has a time limit).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

mod common;

/// A fresh folder: inputs under `in/`, the working directory `work/` (must stay empty).
struct Case {
    dir: PathBuf,
}

impl Case {
    fn new(name: &str) -> Case {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("work")).unwrap();
        std::fs::create_dir_all(dir.join("in")).unwrap();
        Case { dir }
    }

    /// Write `bytes` at `in/<name>`; its path.
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.dir.join("in").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn input(&self, name: &str) -> PathBuf {
        self.dir.join("in").join(name)
    }

    /// `plan --model <model>` (with `env`): exit 2, nothing on stdout, nothing written, no
    /// panic, one line on stderr; that line.
    fn fails(&self, model: &Path, env: &[(&str, &Path)]) -> String {
        let mut cmd = common::vramfit();
        cmd.current_dir(self.dir.join("work"))
            .env("VRAMFIT_CONFIG", self.dir.join("config"))
            .env("VRAMFIT_DATA", self.dir.join("data"))
            .env("HF_HUB_CACHE", self.dir.join("no-cache"))
            .timeout(Duration::from_secs(30))
            .args(["plan", "--model", model.to_str().unwrap(), "--json"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{model:?}: {err}");
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err:?}");
        assert!(std::fs::read_dir(self.dir.join("work")).unwrap().next().is_none());
        assert!(!self.dir.join("data").exists() && !self.dir.join("config").exists());
        err
    }
}

/// GGUF v3 bytes, built field by field.
struct Gguf(Vec<u8>);

impl Gguf {
    fn new(tensors: u64, kvs: u64) -> Gguf {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(tensors.to_le_bytes());
        b.extend(kvs.to_le_bytes());
        Gguf(b)
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn string(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64);
        self.0.extend(s.as_bytes());
        self
    }
    fn kv_u32(&mut self, k: &str, v: u32) -> &mut Self {
        self.string(k).u32(4).u32(v)
    }
    fn kv_str(&mut self, k: &str, v: &str) -> &mut Self {
        self.string(k).u32(8).string(v)
    }
    fn tensor(&mut self, name: &str, dims: &[u64], ggml_type: u32) -> &mut Self {
        self.string(name).u32(dims.len() as u32);
        for d in dims {
            self.u64(*d);
        }
        self.u32(ggml_type).u64(0)
    }
    /// Llama 3 70B's shape keys (six of them).
    fn llama70b(&mut self) -> &mut Self {
        self.kv_str("general.architecture", "llama")
            .kv_u32("llama.embedding_length", 8192)
            .kv_u32("llama.attention.head_count", 64)
            .kv_u32("llama.block_count", 80)
            .kv_u32("llama.feed_forward_length", 28672)
            .kv_u32("llama.vocab_size", 128256)
    }
}

#[test]
fn gguf_lengths_near_2_64_are_refused_at_their_byte() {
    let c = Case::new("strlen");
    // A key length of 2^64 − 10: `at + n` wrapped and the reader asked for 16 EB.
    let mut g = Gguf::new(0, 1);
    g.u64(u64::MAX - 9);
    g.0.extend(b"abc");
    let path = c.file("strlen.gguf", &g.0);
    let err = c.fails(&path, &[]);
    assert!(
        err.contains(
            "strlen.gguf: byte 32: the file ends inside the header (18446744073709551606 more bytes)"
        ),
        "{err}"
    );
    // A string value's length, and a tensor name's.
    let mut g = Gguf::new(0, 1);
    g.string("general.name").u32(8).u64(u64::MAX);
    let err = c.fails(&c.file("value.gguf", &g.0), &[]);
    assert!(
        err.contains("value.gguf: byte 56: the file ends inside the header"),
        "{err}"
    );
    let mut g = Gguf::new(1, 6);
    g.llama70b().u64(1 << 40);
    let err = c.fails(&c.file("tensor.gguf", &g.0), &[]);
    assert!(
        err.contains("tensor.gguf: byte ") && err.contains("(1099511627776 more bytes)"),
        "{err}"
    );
}

#[test]
fn gguf_arrays_nested_deep_are_refused_without_recursing() {
    let c = Case::new("nest");
    // 44,000 levels of arrays of arrays overflowed the stack.
    let mut g = Gguf::new(0, 1);
    g.string("k").u32(9);
    for _ in 0..44_000 {
        g.u32(9).u64(1);
    }
    g.u32(0).u64(0);
    let err = c.fails(&c.file("nest.gguf", &g.0), &[]);
    // Key "k" ends at byte 33; the value's type at 33, the outer array at 37; each level 12 bytes.
    assert!(
        err.contains("nest.gguf: byte 85: arrays nested more than 4 deep"),
        "{err}"
    );
}

#[test]
fn a_split_name_with_no_such_part_is_refused() {
    let c = Case::new("parts");
    for (name, part, of) in [
        ("m-00001-of-00000.gguf", 1, 0),
        ("m-00000-of-00002.gguf", 0, 2),
        ("m-00003-of-00002.gguf", 3, 2),
    ] {
        let err = c.fails(&c.file(name, b""), &[]);
        assert!(
            err.contains(&format!(
                "{name}: the split name says part {part} of {of}: no such part"
            )),
            "{err}"
        );
    }
}

#[test]
fn a_gguf_shape_without_its_tensors_is_refused() {
    let c = Case::new("notensors");
    let mut g = Gguf::new(0, 6);
    g.llama70b();
    let err = c.fails(&c.file("empty70b.gguf", &g.0), &[]);
    assert!(
        err.contains("empty70b.gguf: byte 8: the header lists no tensors: there are no weights to plan from"),
        "{err}"
    );
    // One small tensor for a 70B shape: far fewer parameters than the shape.
    let mut g = Gguf::new(1, 6);
    g.llama70b().tensor("token_embd.weight", &[8192, 1000], 0);
    let mut bytes = g.0.clone();
    bytes.resize(bytes.len() + 8192 * 1000 * 4, 0);
    let err = c.fails(&c.file("one.gguf", &bytes), &[]);
    assert!(
        err.contains("one.gguf: the tensors hold 8,192,000 parameters")
            && err.contains("but the shape has 78,898,274,304: more than 4 times fewer"),
        "{err}"
    );
}

#[test]
fn gguf_sums_that_would_wrap_are_refused() {
    let c = Case::new("wrap");
    // 2^62 F32 elements are 2^64 bytes: the sum wrapped to 0 bytes and "fit".
    let mut g = Gguf::new(1, 6);
    g.llama70b().tensor("blk.0.w", &[1 << 62], 0);
    let err = c.fails(&c.file("wrap.gguf", &g.0), &[]);
    assert!(
        err.contains(
            "wrap.gguf: byte 255: tensor blk.0.w: 4611686018427387904 F32 elements overflow a byte count"
        ),
        "{err}"
    );
    // Each tensor under 10^15 parameters, their sum over it.
    let mut g = Gguf::new(3, 6);
    g.llama70b();
    for i in 0..3 {
        g.tensor(&format!("blk.{i}.w"), &[400_000_000_000_000], 24);
    }
    let err = c.fails(&c.file("sum.gguf", &g.0), &[]);
    assert!(
        err.contains("sum.gguf: byte 333: tensor blk.2.w: the tensors add up to more than 10^15 parameters"),
        "{err}"
    );
}

#[test]
fn large_tokenizer_arrays_are_passed_over_not_parsed() {
    let c = Case::new("bigarrays");
    // 2,000,000 tokens (about 30 MB of strings) and their 8 MB of types: what took seconds
    // per file, element by element.
    let n = 2_000_000u64;
    let mut g = Gguf::new(0, 2);
    g.string("tokenizer.ggml.tokens").u32(9).u32(8).u64(n);
    for i in 0..n {
        g.string(&format!("token-{i:08}"));
    }
    g.string("tokenizer.ggml.token_type").u32(9).u32(5).u64(n);
    g.0.resize(g.0.len() + 4 * n as usize, 1);
    let path = c.file("tokens.gguf", &g.0);
    let started = Instant::now();
    for _ in 0..5 {
        let read = vramfit::catalog::gguf::read_gguf(&path).unwrap();
        assert_eq!(read.int("tokenizer.ggml.tokens"), Some(n));
        assert_eq!(read.int("tokenizer.ggml.token_type"), Some(n));
    }
    let took = started.elapsed();
    // Element by element this took seconds per file; passed over, a fraction of a second
    // even unoptimized (the bound leaves room for a loaded machine).
    assert!(took < Duration::from_secs(10), "five headers took {took:?}");
    // A fixed-size array that claims more than the file holds: refused, not skipped past.
    let mut g = Gguf::new(0, 1);
    g.string("a").u32(9).u32(12).u64(1 << 40);
    let err = vramfit::catalog::gguf::read_gguf(&c.file("short.gguf", &g.0)).unwrap_err();
    assert!(
        err.to_string()
            .contains("short.gguf: byte 49: the file ends inside the header (8796093022208 more bytes)"),
        "{err}"
    );
}

/// A safetensors file: the 8-byte length, the header, then `data` zero bytes.
fn safetensors(header: &serde_json::Value, data: u64) -> Vec<u8> {
    let text = header.to_string();
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text.as_bytes());
    out.resize(out.len() + data as usize, 0);
    out
}

fn llama8b_config() -> Vec<u8> {
    json!({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
           "max_position_embeddings": 131072, "tie_word_embeddings": false})
    .to_string()
    .into_bytes()
}

#[test]
fn every_shard_an_index_names_must_be_there() {
    let c = Case::new("partial");
    c.file("m/config.json", &llama8b_config());
    let shard = |n: u32| format!("model-0000{n}-of-00004.safetensors");
    let header = json!({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [1000, 64], "data_offsets": [0, 128000]}});
    c.file(&format!("m/{}", shard(1)), &safetensors(&header, 128_000));
    let index = json!({"metadata": {"total_size": 16060522496u64}, "weight_map": {
        "model.embed_tokens.weight": shard(1), "model.layers.0.mlp.up_proj.weight": shard(2),
        "model.layers.31.mlp.up_proj.weight": shard(3), "lm_head.weight": shard(4)}});
    c.file("m/model.safetensors.index.json", index.to_string().as_bytes());
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains("m/model.safetensors.index.json: 'weight_map' names 4 shards and 3 of them are not in the folder (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors): the checkpoint is incomplete"),
        "{err}"
    );
    // None of the shards (the JSON files alone were downloaded): the config is planned.
    std::fs::remove_file(c.input(&format!("m/{}", shard(1)))).unwrap();
    let out = common::vramfit()
        .args(["plan", "--model", c.input("m").to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["model"]["params"], 8_030_261_248u64);
    // A shard name that leaves the folder.
    let index = json!({"weight_map": {"x": "../outside.safetensors"}});
    c.file("m/model.safetensors.index.json", index.to_string().as_bytes());
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains(
            "'weight_map' key x: ../outside.safetensors is not a .safetensors file name in this folder"
        ),
        "{err}"
    );
}

#[test]
fn a_checkpoint_far_from_the_configs_shape_is_refused() {
    let c = Case::new("tiny");
    c.file("m/config.json", &llama8b_config());
    let header = json!({"x": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}});
    c.file("m/model.safetensors", &safetensors(&header, 2));
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains("tiny/in/m: the tensors hold 1 parameters (2 bytes in 1 files) but the shape has 8,030,261,248: more than 4 times fewer, so the checkpoint is incomplete or not this model (against ")
            && err.contains("m/config.json)"),
        "{err}"
    );
}

/// A `--hub` header stub: the file's length, then the 8-byte header length and the header.
fn stub(file_len: u64, header: &serde_json::Value) -> Vec<u8> {
    let mut out = file_len.to_le_bytes().to_vec();
    out.extend(safetensors(header, 0));
    out
}

#[test]
fn safetensors_sums_that_would_wrap_are_refused() {
    let c = Case::new("stubwrap");
    c.file("m/config.json", &llama8b_config());
    // Two 2^63-byte tensors and a 2-byte one in a "2^64 − 1 byte" file: the sum wrapped.
    let big = 1u64 << 63;
    let header = json!({"a": {"dtype": "U8", "shape": [big], "data_offsets": [0, big]},
                        "b": {"dtype": "U8", "shape": [big], "data_offsets": [0, big]},
                        "c": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}});
    let path = c.file("m/model.safetensors-header", &stub(u64::MAX, &header));
    let err = c.fails(&c.input("m"), &[]);
    let n = header.to_string().len() as u64;
    assert!(
        err.contains(&format!(
            "model.safetensors-header: byte {}: tensor a: the tensors add up to more than 10^15 parameters",
            8 + n
        )),
        "{err}"
    );
    std::fs::remove_file(path).unwrap();
    // GPTQ: a qweight's count is its I32 elements × 8, which overflows u64 here.
    let e = (1u64 << 61) + 1;
    let header = json!({"l.qweight": {"dtype": "I32", "shape": [e], "data_offsets": [0, e * 4]}});
    let n = header.to_string().len() as u64;
    c.file("m/model.safetensors-header", &stub(8 + n + e * 4, &header));
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains("model.safetensors-header: byte 8: tensor l.qweight: 2305843009213693953 packed elements overflow a parameter count"),
        "{err}"
    );
}

#[test]
fn tensors_must_tile_the_data_without_overlap() {
    let c = Case::new("overlap");
    c.file("m/config.json", &llama8b_config());
    // A thousand tensors sharing one 32 MB range counted as 16.8B parameters.
    let size = 4096u64 * 4096 * 2;
    let mut header = serde_json::Map::new();
    for i in 0..1000 {
        header.insert(
            format!("t{i:03}"),
            json!({"dtype": "BF16", "shape": [4096, 4096], "data_offsets": [0, size]}),
        );
    }
    let header = serde_json::Value::Object(header);
    let n = header.to_string().len() as u64;
    let mut f = std::fs::File::create(c.input("m/model.safetensors")).unwrap();
    f.write_all(&safetensors(&header, 0)).unwrap();
    f.set_len(8 + n + size).unwrap();
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains(&format!(
            "model.safetensors: byte {}: tensor t001: data_offsets [0, 33554432] overlap tensor t000 (which ends at 33554432)",
            8 + n
        )),
        "{err}"
    );
    // A gap, and data past the last tensor, are refused as the safetensors library does.
    let header = json!({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]},
                        "b": {"dtype": "BF16", "shape": [2], "data_offsets": [6, 10]}});
    std::fs::write(c.input("m/model.safetensors"), safetensors(&header, 10)).unwrap();
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains("tensor b: data_offsets [6, 10] leave a gap after 4"),
        "{err}"
    );
}

#[test]
fn file_names_are_escaped_and_cannot_forge_lines() {
    let c = Case::new("newline");
    c.file("m/config.json", &llama8b_config());
    let header = json!({"x": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 1]}});
    c.file(
        "m/a\nerror: this line is forged.safetensors",
        &safetensors(&header, 1),
    );
    // `fails` asserts one line on stderr.
    let err = c.fails(&c.input("m"), &[]);
    assert!(
        err.contains("m/a\\u{a}error: this line is forged.safetensors: byte "),
        "{err:?}"
    );
}

/// A Hugging Face cache holding `org/m` with a snapshot `abc`; `refs/main` left to the case.
fn cache(c: &Case) -> PathBuf {
    let hub = c.input("hub");
    let repo = hub.join("models--org--m");
    std::fs::create_dir_all(repo.join("snapshots/abc")).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("snapshots/abc/config.json"), llama8b_config()).unwrap();
    hub
}

#[test]
fn refs_main_must_be_a_small_regular_file_naming_a_snapshot() {
    let c = Case::new("refs");
    let hub = cache(&c);
    let refs = hub.join("models--org--m/refs/main");
    let model = Path::new("org/m");
    // A link to /dev/zero read until memory ran out; a FIFO blocked forever.
    std::os::unix::fs::symlink("/dev/zero", &refs).unwrap();
    let err = c.fails(model, &[("HF_HUB_CACHE", &hub)]);
    assert!(
        err.contains(
            "models--org--m/refs/main: not a regular file (a folder, device or pipe cannot be read as one)"
        ),
        "{err}"
    );
    std::fs::remove_file(&refs).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&refs).status();
    if made.is_ok_and(|s| s.success()) {
        let err = c.fails(model, &[("HF_HUB_CACHE", &hub)]);
        assert!(err.contains("refs/main: not a regular file"), "{err}");
        std::fs::remove_file(&refs).unwrap();
    }
    std::fs::write(&refs, vec![b'a'; 4096]).unwrap();
    let err = c.fails(model, &[("HF_HUB_CACHE", &hub)]);
    assert!(err.contains("refs/main: 4096 bytes is too large"), "{err}");
    // A revision is one name inside snapshots/: never a way out of the cache.
    let outside = c.input("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("config.json"), llama8b_config()).unwrap();
    for revision in ["../../../outside", "/etc", "..", "abc/../../x"] {
        std::fs::write(&refs, revision).unwrap();
        let err = c.fails(model, &[("HF_HUB_CACHE", &hub)]);
        assert!(
            err.contains(&format!(
                "refs/main: names {revision}, not a revision: a revision is one folder name inside snapshots/"
            )),
            "{err}"
        );
    }
    // The good case still plans.
    std::fs::write(&refs, "abc\n").unwrap();
    let out = common::vramfit()
        .env("HF_HUB_CACHE", &hub)
        .args(["plan", "--model", "org/m", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["model"]["params"], 8_030_261_248u64);
}
