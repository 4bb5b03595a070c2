//! The model catalog: entries that share a shape through `like`, and `vramfit models`
//! grouped by family and filtered by family, text and size.

use predicates::prelude::*;
use serde_json::Value;
use vramfit::catalog::Catalog;

mod common;
use common::{vramfit, vramfit_in};

/// A small shape counted by hand: hidden 64, 4 heads of 16, 2 KV heads, MLP 256, 2 layers,
/// vocabulary 1,000, untied.
const BASE: &str = r#"
[[model]]
id = "base"
name = "Base"
family = "Test"
hf_repo = "org/base"
max_context = 4096
hidden = 64
intermediate = 256
layers = 2
heads = 4
kv_heads = 2
vocab = 1000
"#;

/// Per layer: q and o 64×64 each, k and v 64×32 each (12,288), the MLP 3×64×256 (49,152) and
/// two norms of 64: 61,568; two layers 123,136; embedding and lm_head 2×1,000×64 (128,000);
/// the final norm 64.
const BASE_TOTAL: u64 = 2 * (4096 + 2 * 2048 + 4096 + 3 * 64 * 256 + 2 * 64) + 2 * 1000 * 64 + 64;

fn catalog(source: &str) -> Result<Catalog, vramfit::catalog::FileError> {
    let mut c = Catalog::default();
    c.merge_str("test.toml", source)?;
    Ok(c)
}

#[test]
fn the_hand_count_is_the_engines() {
    assert_eq!(BASE_TOTAL, 251_200);
    let c = catalog(BASE).unwrap();
    assert_eq!(c.model("base").unwrap().params().total, 251_200);
}

#[test]
fn like_takes_the_whole_architecture_and_its_own_identity() {
    let c = catalog(&format!(
        "{BASE}\n[[model]]\nid = \"tune\"\nname = \"A fine-tune\"\nlike = \"base\"\nhf_repo = \"org/tune\"\n"
    ))
    .unwrap();
    let (base, tune) = (c.model("base").unwrap(), c.model("tune").unwrap());
    assert_eq!(tune.arch, base.arch);
    assert_eq!(tune.params().total, 251_200);
    assert_eq!(tune.name, "A fine-tune");
    assert_eq!(tune.hf_repo.as_deref(), Some("org/tune"));
    // What the entry does not say comes from the model it is like: family and context.
    assert_eq!(tune.family, "Test");
    assert_eq!(tune.max_context, 4096);
}

#[test]
fn like_with_overrides_changes_only_those_fields() {
    let c = catalog(&format!(
        "{BASE}\n[[model]]\nid = \"bigger-vocab\"\nname = \"B\"\nlike = \"base\"\nvocab = 1500\nmax_context = 8192\n\
         \n[[model]]\nid = \"tied\"\nname = \"T\"\nlike = \"base\"\ntied_embeddings = true\n\
         \n[[model]]\nid = \"wider\"\nname = \"W\"\nlike = \"base\"\nhidden = 128\n"
    ))
    .unwrap();
    // 500 more rows in the embedding and in lm_head: 2 × 500 × 64 = 64,000 more.
    let bigger = c.model("bigger-vocab").unwrap();
    assert_eq!(bigger.params().total, 251_200 + 64_000);
    assert_eq!(bigger.max_context, 8192);
    assert_eq!(bigger.arch.kv_heads, 2);
    // One copy of the 1,000 × 64 embedding fewer.
    assert_eq!(c.model("tied").unwrap().params().total, 251_200 - 64_000);
    // A new width without head_dim: 128 / 4 heads = 32, as a shape of its own would get.
    let wider = c.model("wider").unwrap();
    assert_eq!(wider.arch.head_dim, 32);
    // q and o 128×128, k and v 128×64, MLP 3×128×256, norms 2×128; embeddings 2×1,000×128.
    let per_layer = 2 * 128 * 128 + 2 * 128 * 64 + 3 * 128 * 256 + 2 * 128;
    assert_eq!(wider.params().total, 2 * per_layer + 2 * 1000 * 128 + 128);
}

#[test]
fn like_reaches_a_model_of_an_earlier_file() {
    let mut c = Catalog::embedded().unwrap();
    c.merge_str(
        "mine.toml",
        "[[model]]\nid = \"my-r1-distill\"\nname = \"Mine\"\nlike = \"llama-3.1-8b\"\n",
    )
    .unwrap();
    assert_eq!(c.model("my-r1-distill").unwrap().params().total, 8_030_261_248);
}

#[test]
fn an_unknown_like_is_an_error_at_its_line() {
    let source = format!("{BASE}\n[[model]]\nid = \"tune\"\nname = \"T\"\nlike = \"bsae\"\n");
    let e = catalog(&source).unwrap_err();
    let like_line = source.lines().position(|l| l.starts_with("like")).unwrap() + 1;
    assert_eq!(e.line, Some(like_line), "{e}");
    assert!(
        e.message
            .contains("model 'tune': 'like' names no earlier model: 'bsae' (did you mean 'base'?)"),
        "{e}"
    );
}

#[test]
fn like_cannot_name_a_later_model() {
    let source = format!("[[model]]\nid = \"tune\"\nname = \"T\"\nlike = \"base\"\n{BASE}");
    let e = catalog(&source).unwrap_err();
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.message.contains("'like' names no earlier model: 'base'"), "{e}");
}

#[test]
fn without_like_every_dimension_is_required() {
    let source = BASE.replace("hidden = 64\n", "");
    let e = catalog(&source).unwrap_err();
    assert!(
        e.message.contains(
            "model 'base': 'hidden' is missing (give it, or 'like' = the id of a model of the same shape)"
        ),
        "{e}"
    );
    // Pointed at the entry's id, the line that names the model at fault.
    assert_eq!(e.line, Some(3), "{e}");
}

/// The embedded catalog's re-releases are their base's shape exactly (or differ only where
/// their entry says).
#[test]
fn embedded_re_releases_share_their_shapes() {
    let c = Catalog::embedded().unwrap();
    let arch = |id: &str| &c.model(id).unwrap_or_else(|| panic!("no {id}")).arch;
    for (model, like) in [
        ("deepseek-r1", "deepseek-v3"),
        ("deepseek-v3.1", "deepseek-v3"),
        ("deepseek-r1-distill-llama-70b", "llama-3.3-70b"),
        ("deepseek-r1-distill-qwen-32b", "qwen2.5-32b"),
        ("qwen2.5-coder-32b", "qwen2.5-32b"),
        ("qwq-32b", "qwen2.5-32b"),
        ("qwen3-coder-30b-a3b", "qwen3-30b-a3b"),
        ("hermes-3-llama-3.1-8b", "llama-3.1-8b"),
        ("dolphin-2.9.1-yi-1.5-34b", "yi-34b"),
    ] {
        assert_eq!(arch(model), arch(like), "{model} like {like}");
    }
    // The 1.5B distillation unties Qwen2.5-1.5B's embedding: 151,936 × 1,536 more.
    let (d, q) = (arch("deepseek-r1-distill-qwen-1.5b"), arch("qwen2.5-1.5b"));
    assert!(!d.tied_embeddings && q.tied_embeddings);
    assert_eq!(d.param_count().total - q.param_count().total, 151_936 * 1536);
}

fn listed(args: &[&str]) -> Vec<Value> {
    let out = vramfit().arg("models").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn ids(list: &[Value]) -> Vec<&str> {
    list.iter().map(|m| m["id"].as_str().unwrap()).collect()
}

#[test]
fn models_keep_each_family_together() {
    let all = listed(&[]);
    assert!(all.len() >= 140, "{}", all.len());
    let mut seen: Vec<&str> = Vec::new();
    for m in &all {
        let family = m["family"].as_str().unwrap();
        if seen.last() != Some(&family) {
            assert!(!seen.contains(&family), "{family} appears in two places");
            seen.push(family);
        }
    }
    // The table heads each family once, in the catalog's order.
    let text = String::from_utf8(vramfit().arg("models").output().unwrap().stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for family in ["Qwen2.5 Coder", "DeepSeek", "OLMo"] {
        assert_eq!(lines.iter().filter(|l| **l == family).count(), 1, "{family}");
    }
    let at = |l: &str| lines.iter().position(|x| *x == l).unwrap();
    assert!(at("Llama 2") < at("Llama 3") && at("Llama 3") < at("Qwen2.5 Coder"));
    // The whole id of the longest one fits its column.
    assert!(text.contains("deepseek-r1-distill-llama-70b DeepSeek-R1-Distill-Llama 70B"));
}

#[test]
fn family_filter_takes_a_family_or_the_start_of_its_name() {
    let coder = listed(&["--family", "qwen2.5-coder"]);
    assert_eq!(
        ids(&coder),
        [
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-3b",
            "qwen2.5-coder-7b",
            "qwen2.5-coder-14b",
            "qwen2.5-coder-32b"
        ]
    );
    let qwen25 = listed(&["--family", "Qwen2.5"]);
    let families: std::collections::BTreeSet<&str> =
        qwen25.iter().map(|m| m["family"].as_str().unwrap()).collect();
    assert_eq!(
        families.into_iter().collect::<Vec<_>>(),
        ["Qwen2.5", "Qwen2.5 Coder", "Qwen2.5-VL"]
    );
    assert!(!ids(&qwen25).contains(&"qwen3-8b"));
}

#[test]
fn search_reads_spaces_and_dashes_alike() {
    let distills = listed(&["--search", "R1 Distill"]);
    assert_eq!(distills.len(), 6, "{:?}", ids(&distills));
    assert!(ids(&distills).iter().all(|id| id.contains("r1-distill")));
    // The name counts too: "Chat" is in these names only, not in their ids.
    let chat = listed(&["--search", "chat"]);
    for id in ["glm-4-9b", "tinyllama-1.1b"] {
        assert!(ids(&chat).contains(&id), "{id}");
    }
}

#[test]
fn sizes_filter_on_the_total_in_billions() {
    let mid = listed(&["--min-params", "100", "--max-params", "250"]);
    let mid_ids = ids(&mid);
    // 235.09 B, 116.83 B, 140.62 B and 140.63 B; not 671 B, not 70.55 B.
    for id in [
        "qwen3-235b-a22b",
        "gpt-oss-120b",
        "mixtral-8x22b",
        "mixtral-8x22b-instruct",
    ] {
        assert!(mid_ids.contains(&id), "{id} in {mid_ids:?}");
    }
    for id in ["deepseek-v3", "llama-3.1-70b", "qwen3-coder-480b-a35b"] {
        assert!(!mid_ids.contains(&id), "{id}");
    }
    for m in &mid {
        let p = m["params"].as_u64().unwrap();
        assert!((100_000_000_000..=250_000_000_000).contains(&p), "{m}");
    }
    // A fraction of a billion: the 135 M and the 270 M, nothing bigger.
    assert_eq!(
        ids(&listed(&["--max-params", "0.3"])),
        ["smollm2-135m", "gemma-3-270m"]
    );
    // Filters combine.
    assert_eq!(
        ids(&listed(&["--family", "smollm", "--min-params", "1"])),
        ["smollm2-1.7b", "smollm3-3b"]
    );
}

#[test]
fn an_empty_answer_says_so_and_exits_2() {
    vramfit()
        .args(["models", "--family", "nope"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "no model in the catalog matches; `vramfit models` lists them all",
        ));
    vramfit()
        .args(["models", "--min-params", "10", "--max-params", "5", "--json"])
        .assert()
        .code(2)
        .stdout("");
    vramfit_in("zh_CN.UTF-8")
        .args(["models", "--search", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("目录里没有匹配的模型"));
}

#[test]
fn a_size_that_is_not_one_is_refused() {
    vramfit()
        .args(["models", "--max-params", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'lots' is not a number"));
    vramfit()
        .args(["models", "--min-params=-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--min-params must be between 0 and 1000000 billion parameters, got -1",
        ));
    vramfit_in("zh_CN.UTF-8")
        .args(["models", "--min-params=-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("十亿个参数"));
}

/// The models this machine holds head the listing under their own heading: an `org/name` in
/// the local Hugging Face cache (read offline, as `plan` reads it).
#[test]
fn the_listing_starts_with_this_machines_models() {
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("models-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let config = format!(
        "{}/tests/fixtures/hf/olmo-2-1124-7b/config.json",
        env!("CARGO_MANIFEST_DIR")
    );
    common::cache_model(&cache, "acme/olmo-copy", std::path::Path::new(&config));
    let out = assert_cmd::Command::cargo_bin("vramfit")
        .unwrap()
        .env("HF_HUB_CACHE", &cache)
        .env("VRAMFIT_CONFIG", &cache)
        .env("LANG", "C")
        .arg("models")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let here = text
        .find("On this machine")
        .expect("a heading for this machine's models");
    let model = text.find("acme/olmo-copy").expect("the cached model");
    let catalog = text.find("Qwen3 ").expect("the catalog follows");
    assert!(here < model && model < catalog, "{text}");
}
