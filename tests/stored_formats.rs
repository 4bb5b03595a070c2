//! A checkpoint's own formats (issue 21, item 4): a GGUF file or a GPTQ safetensors folder
//! says what it stores; where the headers name the format, nothing tells the user to choose
//! it ("plan with the matching --weights" printed even when --weights was given).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

mod common;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("stored-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `plan --model <model> --gpu h100-sxm --json` with `extra`: the JSON and stderr.
fn plan(model: &Path, extra: &[&str]) -> (Value, String) {
    let out = common::vramfit()
        .args([
            "plan",
            "--model",
            model.to_str().unwrap(),
            "--gpu",
            "h100-sxm",
            "--json",
        ])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// A one-layer Llama in Q8_0 (F32 norms), hidden 64, vocab 256: 73,920 parameters. Returns
/// the tensors' bytes.
fn write_gguf(path: &Path) -> u64 {
    let mut b = b"GGUF".to_vec();
    let string = |b: &mut Vec<u8>, s: &str| {
        b.extend((s.len() as u64).to_le_bytes());
        b.extend(s.as_bytes());
    };
    let tensors: Vec<(&str, Vec<u64>, u32)> = vec![
        ("token_embd.weight", vec![64, 256], 8),
        ("blk.0.attn_q.weight", vec![64, 64], 8),
        ("blk.0.attn_k.weight", vec![64, 64], 8),
        ("blk.0.attn_v.weight", vec![64, 64], 8),
        ("blk.0.attn_output.weight", vec![64, 64], 8),
        ("blk.0.ffn_gate.weight", vec![64, 128], 8),
        ("blk.0.ffn_up.weight", vec![64, 128], 8),
        ("blk.0.ffn_down.weight", vec![128, 64], 8),
        ("blk.0.attn_norm.weight", vec![64], 0),
        ("blk.0.ffn_norm.weight", vec![64], 0),
        ("output_norm.weight", vec![64], 0),
        ("output.weight", vec![64, 256], 8),
    ];
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend(6u64.to_le_bytes());
    string(&mut b, "general.architecture");
    b.extend(8u32.to_le_bytes());
    string(&mut b, "llama");
    for (k, v) in [
        ("llama.embedding_length", 64u32),
        ("llama.attention.head_count", 4),
        ("llama.block_count", 1),
        ("llama.feed_forward_length", 128),
        ("llama.vocab_size", 256),
    ] {
        string(&mut b, k);
        b.extend(4u32.to_le_bytes());
        b.extend(v.to_le_bytes());
    }
    let mut bytes = 0;
    for (name, dims, t) in &tensors {
        string(&mut b, name);
        b.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            b.extend(d.to_le_bytes());
        }
        b.extend(t.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        let n: u64 = dims.iter().product();
        bytes += if *t == 8 { n / 32 * 34 } else { n * 4 };
    }
    b.resize(b.len() + bytes as usize, 0);
    std::fs::write(path, b).unwrap();
    bytes
}

#[test]
fn a_gguf_states_its_stored_format_without_telling_the_user_to_choose_it() {
    let d = dir("gguf");
    let path = d.join("tiny-Q8_0.gguf");
    write_gguf(&path);
    let (own, err) = plan(&path, &[]);
    assert_eq!(own["model"]["params"], 73_920);
    // (A count under a million shows as 0M: format_params rounds to millions.)
    assert!(
        err.contains("(0M parameters, exact from its tensor infos); planned as stored unless --weights names another format"),
        "{err}"
    );
    let (_, err) = plan(&path, &["--weights", "bf16"]);
    assert!(!err.contains("plan with the matching --weights"), "{err}");
}

/// A safetensors file of the given (name, dtype, shape, bytes per element) tensors, tiled.
fn write_safetensors(path: &Path, tensors: &[(&str, &str, Vec<u64>, u64)]) -> u64 {
    let mut header = serde_json::Map::new();
    let mut at = 0u64;
    for (name, dtype, shape, width) in tensors {
        let n = shape.iter().product::<u64>() * width;
        header.insert(
            name.to_string(),
            json!({"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}),
        );
        at += n;
    }
    let text = Value::Object(header).to_string();
    let mut b = (text.len() as u64).to_le_bytes().to_vec();
    b.extend(text.as_bytes());
    b.resize(b.len() + at as usize, 0);
    std::fs::write(path, b).unwrap();
    at
}

#[test]
fn a_gptq_folder_plans_in_int4_at_its_files_bytes() {
    let d = dir("gptq");
    std::fs::write(
        d.join("config.json"),
        json!({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
               "num_attention_heads": 4, "vocab_size": 32, "max_position_embeddings": 4096,
               "tie_word_embeddings": false,
               "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}})
        .to_string(),
    )
    .unwrap();
    let mut tensors: Vec<(String, &str, Vec<u64>, u64)> = vec![
        ("model.embed_tokens.weight".into(), "F16", vec![32, 64], 2),
        ("lm_head.weight".into(), "F16", vec![32, 64], 2),
        ("model.norm.weight".into(), "F16", vec![64], 2),
        ("model.layers.0.input_layernorm.weight".into(), "F16", vec![64], 2),
        (
            "model.layers.0.post_attention_layernorm.weight".into(),
            "F16",
            vec![64],
            2,
        ),
    ];
    for (name, inp, out) in [
        ("self_attn.q_proj", 64u64, 64u64),
        ("self_attn.k_proj", 64, 64),
        ("self_attn.v_proj", 64, 64),
        ("self_attn.o_proj", 64, 64),
        ("mlp.gate_proj", 64, 128),
        ("mlp.up_proj", 64, 128),
        ("mlp.down_proj", 128, 64),
    ] {
        let p = format!("model.layers.0.{name}");
        tensors.push((format!("{p}.qweight"), "I32", vec![inp / 8, out], 4));
        tensors.push((format!("{p}.scales"), "F16", vec![1, out], 2));
    }
    let list: Vec<(&str, &str, Vec<u64>, u64)> = tensors
        .iter()
        .map(|(n, d, s, w)| (n.as_str(), *d, s.clone(), *w))
        .collect();
    let bytes = write_safetensors(&d.join("model.safetensors"), &list);
    let (own, err) = plan(&d, &[]);
    assert_eq!(own["model"]["params"], 45_248);
    // The headers name the format (INT4, its bytes exactly): nothing left to choose.
    let c = vramfit::catalog::safetensors::read_safetensors_dir(&d)
        .unwrap()
        .unwrap();
    assert_eq!(c.bytes, bytes);
    assert_eq!(c.native_format(), Some(vramfit::engine::WeightPrecision::Int4));
    assert!(!err.contains("choose the matching weight precision"), "{err}");
    // The config alone (no headers): the format is not known, so it is asked for.
    std::fs::remove_file(d.join("model.safetensors")).unwrap();
    let (_, err) = plan(&d, &[]);
    assert!(
        err.contains("checkpoint ships gptq-quantized weights: choose the matching weight precision"),
        "{err}"
    );
}
