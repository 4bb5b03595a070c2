//! Exact counts from checkpoint headers, on files this test builds (headers only, the tensor
//! data a sparse hole): safetensors beside a config.json, GGUF (single and split), and every
//! kind of malformed header giving the file, the byte offset and exit 2.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

mod common;
use common::vramfit;

/// A small Llama-shaped decoder: (tensor name, shape in row-major order as safetensors has it).
fn llama_tensors(
    h: u64,
    inter: u64,
    layers: u64,
    heads: u64,
    kv: u64,
    vocab: u64,
) -> Vec<(String, Vec<u64>)> {
    let hd = h / heads;
    let mut t = vec![("model.embed_tokens.weight".to_string(), vec![vocab, h])];
    for l in 0..layers {
        let p = format!("model.layers.{l}");
        t.push((format!("{p}.self_attn.q_proj.weight"), vec![heads * hd, h]));
        t.push((format!("{p}.self_attn.k_proj.weight"), vec![kv * hd, h]));
        t.push((format!("{p}.self_attn.v_proj.weight"), vec![kv * hd, h]));
        t.push((format!("{p}.self_attn.o_proj.weight"), vec![h, heads * hd]));
        t.push((format!("{p}.mlp.gate_proj.weight"), vec![inter, h]));
        t.push((format!("{p}.mlp.up_proj.weight"), vec![inter, h]));
        t.push((format!("{p}.mlp.down_proj.weight"), vec![h, inter]));
        t.push((format!("{p}.input_layernorm.weight"), vec![h]));
        t.push((format!("{p}.post_attention_layernorm.weight"), vec![h]));
    }
    t.push(("model.norm.weight".to_string(), vec![h]));
    t.push(("lm_head.weight".to_string(), vec![vocab, h]));
    t
}

/// Write a safetensors file: the header, then a sparse hole as long as the data.
fn write_safetensors(
    path: &Path,
    tensors: &[(String, &str, Vec<u64>)],
    bytes_per: &dyn Fn(&str) -> u64,
) -> u64 {
    let mut header = serde_json::Map::new();
    let mut at = 0u64;
    for (name, dtype, shape) in tensors {
        let n: u64 = shape.iter().product::<u64>() * bytes_per(dtype);
        header.insert(
            name.clone(),
            json!({"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}),
        );
        at += n;
    }
    header.insert("__metadata__".into(), json!({"format": "pt"}));
    let text = Value::Object(header).to_string();
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&(text.len() as u64).to_le_bytes()).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.set_len(8 + text.len() as u64 + at).unwrap();
    at
}

fn config(h: u64, inter: u64, layers: u64, heads: u64, kv: u64, vocab: u64) -> String {
    json!({"model_type": "llama", "hidden_size": h, "intermediate_size": inter, "num_hidden_layers": layers,
           "num_attention_heads": heads, "num_key_value_heads": kv, "vocab_size": vocab,
           "max_position_embeddings": 4096, "tie_word_embeddings": false})
    .to_string()
}

fn plan_json(model: &Path) -> Value {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            model.to_str().unwrap(),
            "--gpu",
            "h100-sxm",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn safetensors_headers_give_the_exact_count_and_bytes() {
    let d = dir("st");
    let (h, inter, layers, heads, kv, vocab) = (256, 688, 3, 8, 2, 1000);
    let shapes = llama_tensors(h, inter, layers, heads, kv, vocab);
    let expected: u64 = shapes.iter().map(|(_, s)| s.iter().product::<u64>()).sum();
    let tensors: Vec<(String, &str, Vec<u64>)> = shapes.into_iter().map(|(n, s)| (n, "BF16", s)).collect();
    let bytes = write_safetensors(&d.join("model.safetensors"), &tensors, &|_| 2);
    assert_eq!(bytes, expected * 2);
    std::fs::write(d.join("config.json"), config(h, inter, layers, heads, kv, vocab)).unwrap();
    let v = plan_json(&d);
    assert_eq!(v["model"]["params"], expected);
    let out = vramfit()
        .args(["plan", "--model", d.to_str().unwrap(), "--gpu", "h100-sxm"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the config's shape agrees"), "{err}");
    assert!(err.contains("BF16"), "{err}");
}

#[test]
fn gptq_packed_weights_count_their_real_parameters() {
    let d = dir("gptq");
    // One 4-bit linear of 256 × 512: 8 values per int32, scales and zeros per group of 128.
    let tensors = vec![
        (
            "model.layers.0.mlp.up_proj.qweight".to_string(),
            "I32",
            vec![256 / 8, 512],
        ),
        (
            "model.layers.0.mlp.up_proj.scales".to_string(),
            "F16",
            vec![256 / 128, 512],
        ),
        (
            "model.layers.0.mlp.up_proj.qzeros".to_string(),
            "I32",
            vec![256 / 128, 512 / 8],
        ),
        ("model.norm.weight".to_string(), "F16", vec![256]),
    ];
    let bytes_per = |t: &str| if t == "I32" { 4 } else { 2 };
    write_safetensors(&d.join("model.safetensors"), &tensors, &bytes_per);
    let read = vramfit::catalog::safetensors::read_safetensors_dir(&d)
        .unwrap()
        .unwrap();
    assert_eq!(
        read.params,
        256 * 512 + 256,
        "the packed weight counts 8 per int32; scales and zeros none"
    );
    assert_eq!(read.by_type["I32 (GPTQ/AWQ 4-bit)"], (256 * 512, 256 * 512 / 2));
}

#[test]
fn malformed_safetensors_headers_name_the_byte() {
    let d = dir("bad-st");
    std::fs::write(d.join("config.json"), config(256, 688, 1, 8, 2, 1000)).unwrap();
    let st = d.join("model.safetensors");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            {
                let mut b = 1_000_000u64.to_le_bytes().to_vec();
                b.extend(b"{}");
                b
            },
            "runs past the end of the file",
        ),
        (
            {
                let mut b = 10u64.to_le_bytes().to_vec();
                b.extend(b"{\"a\": {\"dt");
                b
            },
            "header is not JSON",
        ),
        (
            {
                let h = br#"{"t": {"dtype": "Q9", "shape": [2], "data_offsets": [0, 2]}}"#;
                let mut b = (h.len() as u64).to_le_bytes().to_vec();
                b.extend(h);
                b.extend([0, 0]);
                b
            },
            "unknown dtype \"Q9\"",
        ),
        (
            {
                let h = br#"{"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}}"#;
                let mut b = (h.len() as u64).to_le_bytes().to_vec();
                b.extend(h);
                b.extend([0, 0]);
                b
            },
            "past the end of the data",
        ),
        ((u64::MAX).to_le_bytes().to_vec(), "over the 8 MB limit"),
        // Just over the limit: refused before anything past the length is read.
        (
            ((8u64 << 20) + 1).to_le_bytes().to_vec(),
            "header length 8388609 is over the 8 MB limit",
        ),
        (vec![1, 2, 3], "shorter than the 8-byte header length"),
    ];
    for (bytes, message) in cases {
        std::fs::write(&st, bytes).unwrap();
        let out = vramfit()
            .args(["plan", "--model", d.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("model.safetensors: byte "), "{err}");
        assert!(err.contains(message), "{message}: {err}");
    }
}

/// GGUF writing: strings, key-values and tensor infos, little-endian.
struct Gguf(Vec<u8>);

impl Gguf {
    fn new(tensors: u64, kvs: u64) -> Gguf {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(tensors.to_le_bytes());
        b.extend(kvs.to_le_bytes());
        Gguf(b)
    }
    fn string(&mut self, s: &str) {
        self.0.extend((s.len() as u64).to_le_bytes());
        self.0.extend(s.as_bytes());
    }
    fn kv_u32(&mut self, k: &str, v: u32) {
        self.string(k);
        self.0.extend(4u32.to_le_bytes());
        self.0.extend(v.to_le_bytes());
    }
    fn kv_str(&mut self, k: &str, v: &str) {
        self.string(k);
        self.0.extend(8u32.to_le_bytes());
        self.string(v);
    }
    fn kv_tokens(&mut self, n: u64) {
        self.string("tokenizer.ggml.tokens");
        self.0.extend(9u32.to_le_bytes());
        self.0.extend(8u32.to_le_bytes());
        self.0.extend(n.to_le_bytes());
        for i in 0..n {
            self.string(&format!("t{i}"));
        }
    }
    /// GGUF dims are innermost first: [row length, rows].
    fn tensor(&mut self, name: &str, dims: &[u64], ggml_type: u32) {
        self.string(name);
        self.0.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.0.extend(d.to_le_bytes());
        }
        self.0.extend(ggml_type.to_le_bytes());
        self.0.extend(0u64.to_le_bytes());
    }
}

/// A Llama-shaped GGUF: Q4_K linears, Q6_K output, F32 norms. Returns (params, bytes).
fn write_gguf(path: &Path, layers: u64, parts: Option<(u32, u32)>) -> (u64, u64) {
    let (h, inter, heads, kv, vocab) = (256u64, 768u64, 8u64, 2u64, 512u64);
    let hd = h / heads;
    let mut tensors: Vec<(String, Vec<u64>, u32)> = vec![("token_embd.weight".into(), vec![h, vocab], 12)];
    for l in 0..layers {
        for (n, rows, cols) in [
            ("attn_q", heads * hd, h),
            ("attn_k", kv * hd, h),
            ("attn_v", kv * hd, h),
            ("attn_output", h, heads * hd),
            ("ffn_gate", inter, h),
            ("ffn_up", inter, h),
        ] {
            tensors.push((format!("blk.{l}.{n}.weight"), vec![cols, rows], 12));
        }
        tensors.push((format!("blk.{l}.ffn_down.weight"), vec![inter, h], 14));
        tensors.push((format!("blk.{l}.attn_norm.weight"), vec![h], 0));
        tensors.push((format!("blk.{l}.ffn_norm.weight"), vec![h], 0));
    }
    tensors.push(("output_norm.weight".into(), vec![h], 0));
    tensors.push(("output.weight".into(), vec![h, vocab], 14));
    let block = |t: u32| match t {
        12 => (256, 144),
        14 => (256, 210),
        _ => (1, 4),
    };
    let params: u64 = tensors.iter().map(|(_, d, _)| d.iter().product::<u64>()).sum();
    let bytes: u64 = tensors
        .iter()
        .map(|(_, d, t)| d.iter().product::<u64>() / block(*t).0 * block(*t).1)
        .sum();
    // A split file: the first part holds the metadata and the first half of the tensors.
    let (mine, kvs): (Vec<_>, u64) = match parts {
        Some((i, _)) => {
            let half = tensors.len() / 2;
            (
                if i == 1 {
                    tensors[..half].to_vec()
                } else {
                    tensors[half..].to_vec()
                },
                if i == 1 { 8 } else { 0 },
            )
        }
        None => (tensors, 8),
    };
    let mut g = Gguf::new(mine.len() as u64, kvs);
    if kvs > 0 {
        g.kv_str("general.architecture", "llama");
        g.kv_str("general.name", "Tiny Llama GGUF");
        g.kv_u32("llama.embedding_length", h as u32);
        g.kv_u32("llama.block_count", layers as u32);
        g.kv_u32("llama.attention.head_count", heads as u32);
        g.kv_u32("llama.attention.head_count_kv", kv as u32);
        g.kv_u32("llama.feed_forward_length", inter as u32);
        g.kv_tokens(vocab);
    }
    for (n, d, t) in &mine {
        g.tensor(n, d, *t);
    }
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&g.0).unwrap();
    let data: u64 = mine
        .iter()
        .map(|(_, d, t)| d.iter().product::<u64>() / block(*t).0 * block(*t).1)
        .sum();
    f.set_len(g.0.len() as u64 + data + 64).unwrap();
    (params, bytes)
}

#[test]
fn a_gguf_header_gives_the_shape_and_the_exact_count() {
    let d = dir("gguf");
    let path = d.join("tiny-Q4_K_M.gguf");
    let (params, bytes) = write_gguf(&path, 2, None);
    let v = plan_json(&path);
    assert_eq!(v["model"]["params"], params);
    assert_eq!(v["model"]["name"], "Tiny Llama GGUF");
    // The shape read from the keys counts the same parameters the tensors hold.
    let m = vramfit::catalog::gguf::gguf_model(&path).unwrap();
    assert_eq!(m.arch.param_count().total, params);
    assert_eq!(m.arch.kv_heads, 2);
    let g = vramfit::catalog::gguf::read_gguf(&path).unwrap();
    assert_eq!(g.checkpoint.bytes, bytes);
    assert!(g.checkpoint.by_type.contains_key("Q4_K") && g.checkpoint.by_type.contains_key("Q6_K"));
}

#[test]
fn a_split_gguf_is_summed() {
    let d = dir("split");
    let (params, bytes) = write_gguf(&d.join("tiny-00001-of-00002.gguf"), 4, Some((1, 2)));
    write_gguf(&d.join("tiny-00002-of-00002.gguf"), 4, Some((2, 2)));
    let m = vramfit::catalog::gguf::gguf_model(&d.join("tiny-00001-of-00002.gguf")).unwrap();
    assert_eq!(m.params().total, params);
    assert!(
        m.warnings[0].contains(&format!("{:.2} GB", bytes as f64 / 1e9)),
        "{:?}",
        m.warnings
    );
    assert!(m.warnings[0].contains("2 parts"), "{:?}", m.warnings);
}

#[test]
fn malformed_gguf_headers_name_the_byte() {
    let d = dir("bad-gguf");
    let path = d.join("bad.gguf");
    let mut unknown = Gguf::new(1, 0);
    unknown.tensor("x", &[32], 77);
    let mut truncated = Gguf::new(0, 1);
    truncated.string("llama.block_count");
    for (bytes, message) in [
        (b"GGUX\x03\x00\x00\x00".to_vec(), "no GGUF magic"),
        (unknown.0, "unknown ggml type 77"),
        (truncated.0, "the file ends inside the header"),
    ] {
        std::fs::write(&path, bytes).unwrap();
        let out = vramfit()
            .args(["plan", "--model", path.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("bad.gguf: byte "), "{err}");
        assert!(err.contains(message), "{message}: {err}");
    }
}

/// A Hugging Face cache with one model: refs/main naming a snapshot with config.json and a
/// safetensors shard (as the hub client lays it out).
fn fake_cache(name: &str) -> (PathBuf, u64) {
    let cache = dir(name);
    let repo = cache.join("models--acme--tiny-llama");
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd").unwrap();
    let (h, inter, layers, heads, kv, vocab) = (256, 688, 2, 8, 2, 1000);
    std::fs::write(
        snap.join("config.json"),
        config(h, inter, layers, heads, kv, vocab),
    )
    .unwrap();
    let shapes = llama_tensors(h, inter, layers, heads, kv, vocab);
    let params: u64 = shapes.iter().map(|(_, s)| s.iter().product::<u64>()).sum();
    let tensors: Vec<(String, &str, Vec<u64>)> = shapes.into_iter().map(|(n, s)| (n, "BF16", s)).collect();
    write_safetensors(&snap.join("model.safetensors"), &tensors, &|_| 2);
    // Something that is not a model, and a repo without a config, are skipped.
    std::fs::create_dir_all(cache.join("datasets--acme--data")).unwrap();
    std::fs::create_dir_all(cache.join("models--acme--empty").join("snapshots").join("x")).unwrap();
    (cache, params)
}

#[test]
fn org_name_plans_offline_from_the_local_cache() {
    let (cache, params) = fake_cache("hf-cache");
    let out = vramfit()
        .env("HF_HUB_CACHE", &cache)
        .args([
            "plan",
            "--model",
            "acme/tiny-llama",
            "--gpu",
            "rtx-4090",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["id"], "acme/tiny-llama");
    assert_eq!(v["model"]["params"], params);
    // Not in the cache: the usual unknown-model error, exit 2.
    vramfit()
        .env("HF_HUB_CACHE", &cache)
        .args(["plan", "--model", "acme/missing"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown model 'acme/missing'"));
}

#[test]
fn the_planner_lists_the_cache_under_on_this_machine() {
    let (cache, params) = fake_cache("hf-list");
    let repos = vramfit::catalog::hfcache::cached_models(&cache, 50);
    assert_eq!(repos, ["acme/tiny-llama"]);
    let models: Vec<_> = repos
        .iter()
        .filter_map(|r| vramfit::catalog::hfcache::load_cached(&cache, r)?.ok())
        .collect();
    let mut app = vramfit::tui::states::fresh_app("default");
    let selected = app.current_model().id.clone();
    app.add_local_models(models);
    assert_eq!(app.current_model().id, selected, "the selection stays");
    assert_eq!(app.models[0].id, "acme/tiny-llama");
    assert_eq!(app.models[0].family, "On this machine");
    assert_eq!(app.models[0].params().total, params);
}

#[test]
fn planned_in_its_own_format_the_weights_are_the_files_bytes() {
    let d = dir("own-format");
    let path = d.join("tiny-Q4_K_M.gguf");
    let (_, bytes) = write_gguf(&path, 2, None);
    // Mostly Q4_K: --weights q4_k_m takes the file's bytes; another format estimates.
    let json = |weights: &str| -> Value {
        let out = vramfit()
            .args([
                "plan",
                "--model",
                path.to_str().unwrap(),
                "--weights",
                weights,
                "--gpu",
                "rtx-4090",
                "--json",
            ])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let own = json("q4_k_m");
    let w = common::segment(&own, "weights");
    assert_eq!(w["bytes"], bytes);
    assert!(
        w["formula"]
            .as_str()
            .unwrap()
            .starts_with("from the checkpoint's headers"),
        "{w}"
    );
    let other = json("q8_0");
    let w = common::segment(&other, "weights");
    assert_ne!(w["bytes"], bytes);
}

/// `--models-dir`: GGUF files found there (two levels deep, a split file once) are listed
/// first in the planner, marked ⌂, with their exact counts.
#[test]
fn the_planner_lists_gguf_files_under_models_dir() {
    use clap::Parser;
    let root = dir("models-dir");
    std::fs::create_dir_all(root.join("llama")).unwrap();
    let (params, _) = write_gguf(&root.join("llama/tiny-Q4_K_M.gguf"), 2, None);
    write_gguf(&root.join("big-00001-of-00002.gguf"), 2, Some((1, 2)));
    write_gguf(&root.join("big-00002-of-00002.gguf"), 2, Some((2, 2)));
    std::fs::write(root.join("notes.txt"), "not a model").unwrap();
    let found = vramfit::catalog::gguf::gguf_files(&root, 50);
    assert_eq!(
        found,
        [
            root.join("big-00001-of-00002.gguf"),
            root.join("llama/tiny-Q4_K_M.gguf")
        ],
        "the first part of a split file only"
    );
    let cli = vramfit::cli::Cli::try_parse_from(["vramfit", "--models-dir", root.to_str().unwrap()]).unwrap();
    let mut app = vramfit::cli::open_planner(&cli).unwrap();
    // Nothing is read before the first frame: the folder is listed afterwards.
    assert!(app.models.iter().all(|m| m.id != "tiny-Q4_K_M"));
    assert_eq!(app.local_sources.as_deref(), Some(&[root.clone()][..]));
    app.load_local_models_now();
    let tiny = app
        .models
        .iter()
        .position(|m| m.id == "tiny-Q4_K_M")
        .expect("the GGUF is listed");
    assert_eq!(app.models[tiny].family, "On this machine");
    assert_eq!(app.models[tiny].params().total, params);
    assert!(tiny < 3, "listed first, before the catalog");
    // The list opens on the selected model; Home in the models pane goes to the top.
    app.focus = vramfit::tui::action::Pane::Models;
    app.update(vramfit::tui::action::Action::Home);
    let screen = vramfit::tui::states::render(&mut app, 120, 40);
    let text: String = (0..40)
        .map(|y| (0..120).map(|x| screen[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    assert!(text.contains("⌂ tiny-Q4_K_M"), "{text}");
    // The title counts what this machine holds (a real Hugging Face cache may add more).
    assert!(
        regex::Regex::new(r"Models ⌂ \d+ here").unwrap().is_match(&text),
        "{text}"
    );
}

/// A checkpoint's stored format is the default weights: `plan` with no `--weights` plans the
/// file's bytes (Q4_K_M here, not BF16), the planner does the same for a models-dir entry,
/// and a format the user picks is re-estimated from the count and says so.
#[test]
fn a_checkpoint_is_planned_in_its_stored_format_unless_told_otherwise() {
    let d = dir("stored-default");
    let path = d.join("tiny-Q4_K_M.gguf");
    let (_, bytes) = write_gguf(&path, 2, None);
    let plain = plan_json(&path);
    assert_eq!(plain["scenario"]["weights"], "q4_k_m", "{}", plain["scenario"]);
    assert_eq!(common::segment(&plain, "weights")["bytes"], bytes);
    let out = vramfit()
        .args([
            "plan",
            "--model",
            path.to_str().unwrap(),
            "--weights",
            "q8_0",
            "--gpu",
            "h100-sxm",
            "--json",
        ])
        .output()
        .unwrap();
    let other: Value = serde_json::from_slice(&out.stdout).unwrap();
    let formula = common::segment(&other, "weights")["formula"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        formula.ends_with("(re-estimated from the parameter count; the checkpoint stores Q4_K_M)"),
        "{formula}"
    );
    // The planner: the same model from --models-dir starts at its stored format, and the
    // user's choice wins once made.
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let model = vramfit::catalog::gguf::gguf_model(&path).unwrap();
    let theme = vramfit::tui::theme::Theme::embedded("default").unwrap();
    let app = vramfit::tui::app::App::new(catalog, theme, Some(model), None);
    assert_eq!(app.scenario.weights, vramfit::engine::WeightPrecision::Q4KM);
    assert_eq!(
        app.plan.breakdown.get(vramfit::engine::SegmentKind::Weights),
        bytes as f64
    );
}
