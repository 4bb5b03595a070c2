//! `--hub` against a local HTTP server started here (no outside network): config.json and the
//! safetensors headers come by range requests, the token is sent, nothing past the headers is
//! read, and without `--hub` nothing is asked of the network at all.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

/// One request as the server saw it: path, Range header, Authorization header, bytes sent.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    range: Option<String>,
    auth: Option<String>,
    sent: usize,
}

/// What the test server answers for a path: a file (ranges honoured) or a redirect.
#[derive(Clone)]
enum Answer {
    File(Vec<u8>),
    Redirect(u16, String),
}

type Answers = Arc<Mutex<HashMap<String, Answer>>>;

/// Serve `files` under `/<repo>/resolve/main/`, honouring `Range: bytes=a-b`.
fn serve(files: HashMap<String, Vec<u8>>) -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let answers = files.into_iter().map(|(k, v)| (k, Answer::File(v))).collect();
    let (port, log, _) = serve_answers(answers, Duration::ZERO);
    (port, log)
}

/// Serve `answers` (which the test may change between runs), each after `delay`.
fn serve_answers(answers: HashMap<String, Answer>, delay: Duration) -> (u16, Arc<Mutex<Vec<Seen>>>, Answers) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    let answers = Arc::new(Mutex::new(answers));
    let table = answers.clone();
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
            std::thread::sleep(delay);
            let answer = table.lock().unwrap().get(&path).cloned();
            let (head, body): (String, Vec<u8>) = match answer {
                None => ("HTTP/1.1 404 Not Found\r\n".into(), b"not found".to_vec()),
                Some(Answer::Redirect(code, to)) => {
                    (format!("HTTP/1.1 {code} Moved\r\nLocation: {to}\r\n"), Vec::new())
                }
                Some(Answer::File(data)) => match range.as_deref().and_then(|r| r.strip_prefix("bytes=")) {
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
    (port, log, answers)
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

/// `plan --model acme/tiny-llama --hub --json` against `port`, with its own caches; the
/// output and the vramfit cache folder.
fn hub_plan(name: &str, port: u16, env: &[(&str, &str)]) -> (std::process::Output, std::path::PathBuf) {
    let cache = temp(name);
    let mut cmd = common::vramfit();
    cmd.env("HF_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("HF_TOKEN", "hf_secret")
        .env("HF_HUB_CACHE", temp(&format!("{name}-hf")))
        .env("VRAMFIT_CACHE", &cache)
        .timeout(Duration::from_secs(60))
        .args(["plan", "--model", "acme/tiny-llama", "--hub", "--json"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    (cmd.output().unwrap(), cache)
}

/// Exit 2, nothing on stdout, no panic, one line; that line.
fn refused(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// Nothing of the model was written to the cache.
fn nothing_cached(cache: &std::path::Path) {
    let hub = cache.join("hub");
    let left: Vec<_> = std::fs::read_dir(&hub)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

const BASE: &str = "/acme/tiny-llama/resolve/main";

#[test]
fn redirects_to_other_schemes_are_refused_before_the_client_follows_them() {
    // ureq 2 panicked following these.
    let refused_scheme = "only http(s) redirects to a host are followed";
    for (to, why) in [
        ("file:///etc/passwd", refused_scheme),
        ("data:text/plain,hi", refused_scheme),
        ("mailto:root@example.com", refused_scheme),
        ("unix:/run/docker.sock", refused_scheme),
        ("http://", "empty host"),
    ] {
        let mut answers: HashMap<String, Answer> = tiny_llama()
            .0
            .into_iter()
            .map(|(k, v)| (k, Answer::File(v)))
            .collect();
        answers.insert(format!("{BASE}/config.json"), Answer::Redirect(302, to.into()));
        let (port, _, _) = serve_answers(answers, Duration::ZERO);
        let (out, cache) = hub_plan("scheme", port, &[]);
        let err = refused(&out);
        assert!(
            err.contains(&format!("{BASE}/config.json: HTTP 302 redirects to {to}: {why}")),
            "{err}"
        );
        nothing_cached(&cache);
    }
}

#[test]
fn http_redirects_are_followed_and_the_token_stays_with_the_endpoint() {
    let (files, count, _) = tiny_llama();
    let mut answers = HashMap::new();
    for (path, data) in files {
        // The Hub answers with a relative path, and its CDN lives on another host.
        let cdn = path.replace("/resolve/main/", "/cdn/");
        let other_host = cdn.replace("/cdn/", "/other/");
        answers.insert(path.clone(), Answer::Redirect(307, cdn.clone()));
        answers.insert(
            cdn,
            Answer::Redirect(302, format!("http://localhost:PORT{other_host}")),
        );
        answers.insert(other_host, Answer::File(data));
    }
    let (port, log, table) = serve_answers(HashMap::new(), Duration::ZERO);
    *table.lock().unwrap() = answers
        .into_iter()
        .map(|(k, v)| match v {
            Answer::Redirect(c, to) => (k, Answer::Redirect(c, to.replace("PORT", &port.to_string()))),
            file => (k, file),
        })
        .collect();
    let (out, _) = hub_plan("redirects", port, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["model"]["params"], count);
    let seen = log.lock().unwrap().clone();
    for s in &seen {
        let expected = (!s.path.contains("/other/")).then_some("Bearer hf_secret");
        assert_eq!(s.auth.as_deref(), expected, "{s:?}");
    }
    // Three hops for each of config, index and two range requests per shard.
    assert_eq!(seen.len(), 3 * (2 + 2 * 2), "{seen:?}");
    // A loop of redirects ends.
    let mut answers = HashMap::new();
    answers.insert(
        format!("{BASE}/config.json"),
        Answer::Redirect(302, format!("{BASE}/config.json")),
    );
    let (port, _, _) = serve_answers(answers, Duration::ZERO);
    let err = refused(&hub_plan("loop", port, &[]).0);
    assert!(err.contains("config.json: more than 5 redirects"), "{err}");
}

#[test]
fn a_shard_the_index_names_must_be_on_the_hub() {
    let (mut files, _, _) = tiny_llama();
    files.remove(&format!("{BASE}/model-00002-of-00002.safetensors"));
    let (port, _) = serve(files);
    let (out, cache) = hub_plan("404", port, &[]);
    let err = refused(&out);
    assert!(
        err.contains(&format!(
            "{BASE}/model-00002-of-00002.safetensors: not found (404), but model.safetensors.index.json names it: the checkpoint on the Hub is incomplete"
        )),
        "{err}"
    );
    nothing_cached(&cache);
}

#[test]
fn an_index_of_too_many_shards_is_refused_before_any_shard_is_asked_for() {
    let (mut files, _, _) = tiny_llama();
    let weight_map: serde_json::Map<String, serde_json::Value> = (0..2000)
        .map(|i| {
            (
                format!("t{i}"),
                format!("model-{i:05}-of-02000.safetensors").into(),
            )
        })
        .collect();
    files.insert(
        format!("{BASE}/model.safetensors.index.json"),
        serde_json::to_vec(&serde_json::json!({"weight_map": weight_map})).unwrap(),
    );
    let (port, log) = serve(files);
    let err = refused(&hub_plan("shards", port, &[]).0);
    assert!(
        err.contains(
            "acme/tiny-llama: model.safetensors.index.json names 2000 shards; --hub reads at most 1000"
        ),
        "{err}"
    );
    assert!(log.lock().unwrap().iter().all(|s| !s.path.contains("model-")));
}

#[test]
fn a_slow_server_is_bounded_by_the_fetchs_deadline() {
    let answers = tiny_llama()
        .0
        .into_iter()
        .map(|(k, v)| (k, Answer::File(v)))
        .collect();
    // Six requests of 0.8 s each against a 2 s limit.
    let (port, _, _) = serve_answers(answers, Duration::from_millis(800));
    let started = Instant::now();
    let (out, cache) = hub_plan("slow", port, &[("VRAMFIT_HUB_TIMEOUT", "2")]);
    let err = refused(&out);
    assert!(
        err.contains("the fetch took longer than 2 s (VRAMFIT_HUB_TIMEOUT sets the limit)"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    nothing_cached(&cache);
}

#[test]
fn a_new_fetch_replaces_the_cached_one_whole() {
    let (files, count, _) = tiny_llama();
    let answers = files
        .iter()
        .map(|(k, v)| (k.clone(), Answer::File(v.clone())))
        .collect();
    let (port, _, table) = serve_answers(answers, Duration::ZERO);
    let cache = temp("replace");
    let run = || {
        common::vramfit()
            .env("HF_ENDPOINT", format!("http://127.0.0.1:{port}"))
            .env("HF_HUB_CACHE", temp("replace-hf"))
            .env("VRAMFIT_CACHE", &cache)
            .args(["plan", "--model", "acme/tiny-llama", "--hub", "--json"])
            .output()
            .unwrap()
    };
    let out = run();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = cache.join("hub/models--acme--tiny-llama");
    assert!(dir.join("model-00001-of-00002.safetensors-header").is_file());
    // The repo is re-uploaded as one file with half the layers: the old shards' stubs must
    // not be summed with the new file's.
    let config = files[&format!("{BASE}/config.json")].clone();
    let mut config: serde_json::Value = serde_json::from_slice(&config).unwrap();
    config["num_hidden_layers"] = 1.into();
    let (h, i, kv, v) = (64u64, 128u64, 32u64, 1000u64);
    let tensors: Vec<(String, Vec<u64>)> = vec![
        ("model.embed_tokens.weight".into(), vec![v, h]),
        ("model.layers.0.self_attn.q_proj.weight".into(), vec![h, h]),
        ("model.layers.0.self_attn.k_proj.weight".into(), vec![kv, h]),
        ("model.layers.0.self_attn.v_proj.weight".into(), vec![kv, h]),
        ("model.layers.0.self_attn.o_proj.weight".into(), vec![h, h]),
        ("model.layers.0.mlp.gate_proj.weight".into(), vec![i, h]),
        ("model.layers.0.mlp.up_proj.weight".into(), vec![i, h]),
        ("model.layers.0.mlp.down_proj.weight".into(), vec![h, i]),
        ("model.layers.0.input_layernorm.weight".into(), vec![h]),
        ("model.layers.0.post_attention_layernorm.weight".into(), vec![h]),
        ("model.norm.weight".into(), vec![h]),
        ("lm_head.weight".into(), vec![v, h]),
    ];
    let (single, _) = safetensors(&tensors);
    {
        let mut t = table.lock().unwrap();
        t.clear();
        t.insert(
            format!("{BASE}/config.json"),
            Answer::File(serde_json::to_vec(&config).unwrap()),
        );
        t.insert(format!("{BASE}/model.safetensors"), Answer::File(single));
    }
    let out = run();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let per_layer = h * h + 2 * kv * h + h * h + 3 * i * h + 2 * h;
    assert_eq!(json["model"]["params"], 2 * v * h + h + per_layer);
    assert_eq!(count - per_layer, 2 * v * h + h + per_layer);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["config.json", "model.safetensors-header"]);
    // No temporary folder is left beside it.
    assert_eq!(std::fs::read_dir(cache.join("hub")).unwrap().count(), 1);
}
