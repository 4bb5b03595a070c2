//! `--hub` against a local HTTP server started here (no outside network): config.json and the
//! safetensors headers come by range requests, the token is sent, nothing past the headers is
//! read, and without `--hub` nothing is asked of the network at all.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

mod common;

/// One request as the server saw it: path, Range header, Authorization header, bytes sent.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    range: Option<String>,
    auth: Option<String>,
    sent: usize,
}

/// Serve `files` under `/<repo>/resolve/main/`, honouring `Range: bytes=a-b`.
fn serve(files: HashMap<String, Vec<u8>>) -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
            let (mut range, mut auth) = (None, None);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("range:") {
                    range = Some(line[6..].trim().to_string());
                } else if lower.starts_with("authorization:") {
                    auth = Some(line[14..].trim().to_string());
                }
            }
            let (head, body): (String, Vec<u8>) = match files.get(&path) {
                None => ("HTTP/1.1 404 Not Found\r\n".into(), b"not found".to_vec()),
                Some(data) => match range.as_deref().and_then(|r| r.strip_prefix("bytes=")) {
                    Some(r) => {
                        let (a, b) = r.split_once('-').unwrap();
                        let a: usize = a.parse().unwrap();
                        let b: usize = b.parse::<usize>().unwrap().min(data.len() - 1);
                        (
                            format!(
                                "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {a}-{b}/{}\r\n",
                                data.len()
                            ),
                            data[a..=b].to_vec(),
                        )
                    }
                    None => ("HTTP/1.1 200 OK\r\n".into(), data.clone()),
                },
            };
            let _ = write!(
                stream,
                "{head}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
            seen.lock().unwrap().push(Seen {
                path,
                range,
                auth,
                sent: body.len(),
            });
        }
    });
    (port, log)
}

/// A safetensors file of BF16 tensors (zeros), with its header's length.
fn safetensors(tensors: &[(String, Vec<u64>)]) -> (Vec<u8>, usize) {
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, shape) in tensors {
        let bytes = shape.iter().product::<u64>() * 2;
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + bytes]}),
        );
        offset += bytes;
    }
    let header = serde_json::to_vec(&header).unwrap();
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&header);
    out.resize(out.len() + offset as usize, 0);
    (out, header.len())
}

/// A two-layer Llama, hidden 64, in two shards; its count by hand.
fn tiny_llama() -> (HashMap<String, Vec<u8>>, u64, Vec<usize>) {
    let (h, i, kv, v) = (64u64, 128u64, 32u64, 1000u64);
    let config = serde_json::json!({
        "model_type": "llama", "hidden_size": h, "intermediate_size": i,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "vocab_size": v, "max_position_embeddings": 4096, "tie_word_embeddings": false,
        "rms_norm_eps": 1e-5, "hidden_act": "silu"
    });
    let layer = |l: u32| -> Vec<(String, Vec<u64>)> {
        let p = |s: &str| format!("model.layers.{l}.{s}");
        vec![
            (p("self_attn.q_proj.weight"), vec![h, h]),
            (p("self_attn.k_proj.weight"), vec![kv, h]),
            (p("self_attn.v_proj.weight"), vec![kv, h]),
            (p("self_attn.o_proj.weight"), vec![h, h]),
            (p("mlp.gate_proj.weight"), vec![i, h]),
            (p("mlp.up_proj.weight"), vec![i, h]),
            (p("mlp.down_proj.weight"), vec![h, i]),
            (p("input_layernorm.weight"), vec![h]),
            (p("post_attention_layernorm.weight"), vec![h]),
        ]
    };
    let mut first: Vec<(String, Vec<u64>)> = vec![("model.embed_tokens.weight".into(), vec![v, h])];
    first.extend(layer(0));
    let mut second = layer(1);
    second.push(("model.norm.weight".into(), vec![h]));
    second.push(("lm_head.weight".into(), vec![v, h]));
    let (a, a_header) = safetensors(&first);
    let (b, b_header) = safetensors(&second);
    let shard = |n| format!("model-0000{n}-of-00002.safetensors");
    let mut weight_map = serde_json::Map::new();
    for (name, _) in &first {
        weight_map.insert(name.clone(), shard(1).into());
    }
    for (name, _) in &second {
        weight_map.insert(name.clone(), shard(2).into());
    }
    let index = serde_json::json!({"metadata": {}, "weight_map": weight_map});
    let base = "/acme/tiny-llama/resolve/main";
    let mut files = HashMap::new();
    files.insert(
        format!("{base}/config.json"),
        serde_json::to_vec(&config).unwrap(),
    );
    files.insert(
        format!("{base}/model.safetensors.index.json"),
        serde_json::to_vec(&index).unwrap(),
    );
    files.insert(format!("{base}/{}", shard(1)), a);
    files.insert(format!("{base}/{}", shard(2)), b);
    // Embedding and lm_head, the final norm, and two layers of q, k, v, o, three MLP
    // matrices and two norms.
    let per_layer = h * h + 2 * kv * h + h * h + 3 * i * h + 2 * h;
    let count = 2 * v * h + h + 2 * per_layer;
    (files, count, vec![a_header, b_header])
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vramfit-hub-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn hub_fetches_config_and_headers_by_range_requests() {
    let (files, count, header_lens) = tiny_llama();
    assert_eq!(count, 202_048);
    let (port, log) = serve(files);
    let cache = temp("cache");
    let hf_cache = temp("hf");
    let run = |extra: &[&str], endpoint: &str| {
        common::vramfit()
            .env("HF_ENDPOINT", endpoint)
            .env("HF_TOKEN", "hf_secret")
            .env("HF_HUB_CACHE", &hf_cache)
            .env("VRAMFIT_CACHE", &cache)
            .args(["plan", "--model", "acme/tiny-llama", "--json"])
            .args(extra)
            .output()
            .unwrap()
    };
    let endpoint = format!("http://127.0.0.1:{port}");
    // Without --hub: not in the local cache, so unknown, and the server hears nothing.
    let out = run(&[], &endpoint);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown model 'acme/tiny-llama'"));
    assert!(log.lock().unwrap().is_empty(), "no request without --hub");
    // With --hub: exact from the headers.
    let out = run(&["--hub"], &endpoint);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["model"]["params"], count);
    assert_eq!(json["model"]["id"], "acme/tiny-llama");
    let warnings = json["model"]["warnings"].to_string();
    assert!(warnings.contains("the config's shape agrees"), "{warnings}");
    let seen = log.lock().unwrap().clone();
    assert!(
        seen.iter().all(|s| s.auth.as_deref() == Some("Bearer hf_secret")),
        "{seen:?}"
    );
    for (n, header) in header_lens.iter().enumerate() {
        let shard = format!("model-0000{}-of-00002.safetensors", n + 1);
        let reads: Vec<&Seen> = seen.iter().filter(|s| s.path.ends_with(&shard)).collect();
        assert_eq!(reads.len(), 2, "{reads:?}");
        assert!(
            reads.iter().all(|s| s.range.is_some()),
            "only range requests: {reads:?}"
        );
        let sent: usize = reads.iter().map(|s| s.sent).sum();
        assert_eq!(sent, 8 + header, "the length and the header, never the weights");
    }
    // Kept in the cache: a second run needs no server.
    let cached = cache.join("hub/models--acme--tiny-llama");
    assert!(cached.join("config.json").is_file());
    // No network: one clear message, exit 2.
    let out = run(&["--hub", "--model", "acme/other"], "http://127.0.0.1:9");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot reach http://127.0.0.1:9") && err.lines().count() == 1,
        "{err}"
    );
}
