//! Importing Hugging Face config.json files: every known family gives the exact count of
//! the matching catalog model; unknown ones warn; broken ones fail with a location.

use std::path::Path;

use vramfit::catalog::{Catalog, hf};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hf")
        .join(name)
}

#[test]
fn known_families_import_to_the_exact_catalog_counts() {
    let catalog = Catalog::embedded().unwrap();
    let cases = [
        ("llama-3.1-8b", "llama-3.1-8b"),
        ("qwen2.5-7b", "qwen2.5-7b"),
        ("qwen3-30b-a3b", "qwen3-30b-a3b"),
        ("deepseek-v3", "deepseek-v3"),
        ("gpt-oss-20b", "gpt-oss-20b"),
        ("gemma-3-4b-it", "gemma-3-4b"),
        ("gemma-2-9b", "gemma-2-9b"),
        ("phi-3-mini", "phi-3-mini"),
        ("mixtral-8x7b", "mixtral-8x7b"),
        ("falcon-40b", "falcon-40b"),
        ("command-r-v01", "command-r-v01"),
        ("qwen3-8b", "qwen3-8b"),
        ("mistral-7b-v0.3", "mistral-7b-v0.3"),
    ];
    for (dir, id) in cases {
        let imported = hf::load(&fixture(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
        let want = catalog.model(id).unwrap();
        assert_eq!(imported.params(), want.params(), "{dir}");
        assert_eq!(
            imported.kv_bytes_per_token(2.0),
            want.kv_bytes_per_token(2.0),
            "{dir}"
        );
        assert_eq!(imported.arch.sliding_window, want.arch.sliding_window, "{dir}");
        assert_eq!(imported.id, dir, "the folder names the model");
    }
}

#[test]
fn a_file_path_works_as_well_as_its_folder() {
    let m = hf::load(&fixture("llama-3.1-8b/config.json")).unwrap();
    assert_eq!(m.id, "llama-3.1-8b");
    assert_eq!(m.params().total, 8_030_261_248);
}

#[test]
fn quantized_checkpoints_say_so() {
    let m = hf::load(&fixture("deepseek-v3")).unwrap();
    assert!(m.warnings.iter().any(|w| w.contains("fp8")), "{:?}", m.warnings);
}

#[test]
fn unknown_architecture_is_estimated_with_a_warning() {
    let m = hf::load(&fixture("unknown-arch")).unwrap();
    assert!(
        m.warnings[0].contains("unknown model_type 'fancy'"),
        "{:?}",
        m.warnings
    );
    // Read as a Llama-style decoder it is Llama 2 7B's shape.
    assert_eq!(m.params().total, 6_738_415_616);
}

#[test]
fn a_missing_field_is_named() {
    let e = hf::load(&fixture("missing-hidden")).unwrap_err();
    assert!(e.message.contains("missing 'hidden_size'"), "{e}");
    assert!(e.file.ends_with("missing-hidden/config.json"), "{e}");
}

#[test]
fn malformed_json_gives_file_line_and_column() {
    let e = hf::load(&fixture("malformed")).unwrap_err();
    assert_eq!((e.line, e.column), (Some(5), Some(3)), "{e}");
    assert!(
        e.to_string().contains("malformed/config.json:5:3: invalid JSON"),
        "{e}"
    );
}

#[test]
fn qwen2_moe_counts_shared_experts_and_their_gate() {
    // Qwen1.5-MoE-A2.7B: 60 experts of 1,408, top 4, one gated shared expert of 5,632;
    // the model card says 14.3 B in all and 2.7 B activated.
    let m = hf::load(&fixture("qwen1.5-moe-a2.7b")).unwrap();
    let p = m.params();
    assert!((p.total as f64 / 14.3e9 - 1.0).abs() < 0.01, "{}", p.total);
    assert!((p.active as f64 / 2.7e9 - 1.0).abs() < 0.01, "{}", p.active);
    assert!(m.warnings.is_empty());
}

#[test]
fn mistral_v0_1_slides_every_layer_over_4096_tokens() {
    // Mistral 7B v0.1: the same shape as v0.3 with a 32,000 vocabulary and a 4,096 window.
    let m = hf::load(&fixture("mistral-7b-v0.1")).unwrap();
    assert_eq!(m.params().total, 7_241_732_096, "models.md cross-check");
    assert_eq!(m.arch.sliding_layers(), 32);
    // Beyond the window the cache stops growing.
    assert_eq!(m.arch.kv_layer_tokens(32_768), m.arch.kv_layer_tokens(4096));
}

#[test]
fn phi_2_and_gpt_neox_20b_import_exactly() {
    // Configs as published (huggingface.co/microsoft/phi-2 and EleutherAI/gpt-neox-20b,
    // config.json). Counts derived by hand from their tensor lists:
    // Phi-2: embed V·h, per layer q/k/v/dense with biases 4h²+4h, fc1/fc2 with biases
    // 2hI+I+h, one LayerNorm 2h; final LayerNorm 2h; lm_head V·h plus its bias V.
    let (h, i, l, v) = (2560u64, 10240u64, 32u64, 51200u64);
    let phi2 = 2 * v * h + v + 2 * h + l * (4 * h * h + 4 * h + 2 * h * i + i + h + 2 * h);
    assert_eq!(phi2, 2_779_683_840, "the published safetensors total");
    let m = hf::load(&fixture("phi-2")).unwrap();
    assert_eq!(m.params().total, phi2);
    assert!(m.warnings.iter().all(|w| !w.contains("unknown model_type")));
    // GPT-NeoX-20B: the same blocks with two LayerNorms a layer and no lm_head bias.
    let (h, i, l, v) = (6144u64, 24576u64, 44u64, 50432u64);
    let neox = 2 * v * h + 2 * h + l * (4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h);
    assert_eq!(neox, 20_554_567_680, "the count the GPT-NeoX-20B paper gives");
    assert_eq!(hf::load(&fixture("gpt-neox-20b")).unwrap().params().total, neox);
}

#[test]
fn an_unknown_family_is_read_from_its_own_config() {
    // Phi-2's config under a name the importer does not know: GELU → a two-matrix MLP,
    // layer_norm_eps → LayerNorms (two a layer by default). The config says nothing of
    // biases, so none are counted: 624,640 short of the real 2,779,683,840 (0.02 %), where
    // the old Llama-style reading made 3.62 B (a third too many).
    let text = std::fs::read_to_string(fixture("phi-2").join("config.json"))
        .unwrap()
        .replace("\"phi\"", "\"phi_renamed\"");
    let m = hf::from_str("config.json", &text, "renamed").unwrap();
    let (h, i, l, v) = (2560u64, 10240u64, 32u64, 51200u64);
    let by_hand = 2 * v * h + 2 * h + l * (4 * h * h + 2 * h * i + 2 * 2 * h);
    assert_eq!(m.params().total, by_hand);
    assert_eq!(2_779_683_840 - by_hand, 624_640);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("unknown model_type 'phi_renamed'"))
    );
}

/// An unknown family states the range its count may lie in: every reading of what the config
/// does not say (MLP of two or three matrices, tied or not, with or without biases). Phi-2's
/// published total lies inside it; the Llama-style reading's 3.62 B is its upper end.
#[test]
fn an_unknown_family_states_its_error_bound() {
    let text = std::fs::read_to_string(fixture("phi-2").join("config.json"))
        .unwrap()
        .replace("\"phi\"", "\"phi_renamed\"");
    let m = hf::from_str("config.json", &text, "renamed").unwrap();
    let (lo, hi) = m.params_range.expect("a range for an unknown family");
    assert!(lo <= 2_779_683_840 && 2_779_683_840 <= hi, "{lo}..{hi}");
    // The upper end: three matrices in the MLP, untied, every bias (the most the shape holds).
    let (h, i, l, v) = (2560u64, 10240u64, 32u64, 51200u64);
    // Embedding and lm_head, the final LayerNorm, and per layer: q,k,v,o with biases, three
    // MLP matrices with biases (gate and up: i each, down: h), two LayerNorms.
    let most = 2 * v * h + 2 * h + l * (4 * h * h + 4 * h + 3 * h * i + 2 * i + h + 2 * 2 * h);
    assert_eq!(hi, most);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("puts the true count between"))
    );
    // The JSON carries the range and the bound; a known family has neither.
    let out = assert_cmd::Command::cargo_bin("vramfit")
        .unwrap()
        .env("VRAMFIT_CONFIG", "/nonexistent")
        .env("LANG", "C")
        .args(["plan", "--model"])
        .arg(fixture("unknown-arch"))
        .arg("--json")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let range = json["model"]["params_range"].as_array().expect("params_range");
    assert_eq!(range.len(), 2);
    let bound = json["model"]["params_error_bound"].as_f64().unwrap();
    assert!(bound > 0.1 && bound < 0.5, "{bound}");
    let known = hf::load(&fixture("llama-3.1-8b")).unwrap();
    assert_eq!(known.params_range, None);
}

/// A dense decoder's count, written out: embeddings (and an untied head), the final norm, and
/// per layer attention (q, k, v, o), the MLP and the norms. Each family's test below fills it
/// in from its config and its modeling code.
struct Dense {
    vocab: u64,
    hidden: u64,
    layers: u64,
    tied: bool,
    attention: u64,
    mlp: u64,
    norms: u64,
    final_norm: u64,
}

impl Dense {
    fn total(&self) -> u64 {
        let head = if self.tied { 0 } else { self.vocab * self.hidden };
        self.vocab * self.hidden
            + head
            + self.final_norm
            + self.layers * (self.attention + self.mlp + self.norms)
    }
}

/// q and o of width q, k and v of width kv, from hidden h.
fn attention(h: u64, q: u64, kv: u64) -> u64 {
    2 * h * q + 2 * h * kv
}

/// Families the importer knows from one table entry each, every count against a sum worked
/// out by hand and the published total (tests/fixtures/hf/SOURCES.md names each repo).
#[test]
fn every_named_family_imports_to_its_hand_count_and_published_total() {
    let cases: Vec<(&str, u64, u64)> = vec![
        // StarCoder2: LayerNorms (weight + bias), every projection biased, a two-matrix MLP.
        (
            "starcoder2-3b",
            Dense {
                vocab: 49152,
                hidden: 3072,
                layers: 30,
                tied: true,
                attention: attention(3072, 3072, 256) + 3072 + 2 * 256 + 3072,
                mlp: 2 * 3072 * 12288 + 12288 + 3072,
                norms: 2 * 2 * 3072,
                final_norm: 2 * 3072,
            }
            .total(),
            3_030_371_328,
        ),
        // OLMo 1: LayerNorms without weights: no norm parameters at all.
        (
            "olmo-1b-hf",
            Dense {
                vocab: 50304,
                hidden: 2048,
                layers: 16,
                tied: true,
                attention: attention(2048, 2048, 2048),
                mlp: 3 * 2048 * 8192,
                norms: 0,
                final_norm: 0,
            }
            .total(),
            1_176_764_416,
        ),
        // OLMo 2: RMSNorm over the whole q (4096) and k (4096) projections.
        (
            "olmo-2-1124-7b",
            Dense {
                vocab: 100352,
                hidden: 4096,
                layers: 32,
                tied: false,
                attention: attention(4096, 4096, 4096) + 4096 + 4096,
                mlp: 3 * 4096 * 11008,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            7_298_617_344,
        ),
        // Granite 3.1 8B: Llama's layout (its multipliers are scalars, not parameters).
        (
            "granite-3.1-8b",
            Dense {
                vocab: 49155,
                hidden: 4096,
                layers: 40,
                tied: true,
                attention: attention(4096, 4096, 1024),
                mlp: 3 * 4096 * 12800,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            8_170_848_256,
        ),
        // InternLM2.5: fused wqkv, no biases.
        (
            "internlm2_5-7b-chat",
            Dense {
                vocab: 92544,
                hidden: 4096,
                layers: 32,
                tied: false,
                attention: attention(4096, 4096, 1024),
                mlp: 3 * 4096 * 14336,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            7_737_708_544,
        ),
        // InternLM3: two KV heads of 128.
        (
            "internlm3-8b-instruct",
            Dense {
                vocab: 128512,
                hidden: 4096,
                layers: 48,
                tied: false,
                attention: attention(4096, 4096, 256),
                mlp: 3 * 4096 * 10240,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            8_804_241_408,
        ),
        // GLM-4: biased q, k, v (not o); GLM-4-0414 adds two norms a layer.
        (
            "glm-4-9b-chat-hf",
            Dense {
                vocab: 151552,
                hidden: 4096,
                layers: 40,
                tied: false,
                attention: attention(4096, 4096, 256) + 4096 + 2 * 256,
                mlp: 3 * 4096 * 13696,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            9_399_951_360,
        ),
        (
            "glm-4-9b-0414",
            Dense {
                vocab: 151552,
                hidden: 4096,
                layers: 40,
                tied: false,
                attention: attention(4096, 4096, 256) + 4096 + 2 * 256,
                mlp: 3 * 4096 * 13696,
                norms: 4 * 4096,
                final_norm: 4096,
            }
            .total(),
            9_400_279_040,
        ),
        // ChatGLM3: padded vocabulary, two query groups of kv_channels 128, biased QKV,
        // dense_h_to_4h of 2 × ffn_hidden_size (SwiGLU), an untied output layer.
        (
            "chatglm3-6b",
            Dense {
                vocab: 65024,
                hidden: 4096,
                layers: 28,
                tied: false,
                attention: attention(4096, 4096, 256) + 4096 + 2 * 256,
                mlp: 4096 * 2 * 13696 + 13696 * 4096,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            6_243_584_000,
        ),
        // StableLM 2: LayerNorms, q/k/v biases.
        (
            "stablelm-2-1_6b",
            Dense {
                vocab: 100352,
                hidden: 2048,
                layers: 24,
                tied: false,
                attention: attention(2048, 2048, 2048) + 3 * 2048,
                mlp: 3 * 2048 * 5632,
                norms: 2 * 2 * 2048,
                final_norm: 2 * 2048,
            }
            .total(),
            1_644_515_328,
        ),
        // EXAONE 3.5: Llama's layout under other key names (num_layers).
        (
            "exaone-3.5-7.8b",
            Dense {
                vocab: 102400,
                hidden: 4096,
                layers: 32,
                tied: false,
                attention: attention(4096, 4096, 1024),
                mlp: 3 * 4096 * 14336,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            7_818_448_896,
        ),
        // MiniCPM 2B: tied, 36 heads of 64.
        (
            "minicpm-2b-sft-bf16",
            Dense {
                vocab: 122753,
                hidden: 2304,
                layers: 40,
                tied: true,
                attention: attention(2304, 2304, 2304),
                mlp: 3 * 2304 * 5760,
                norms: 2 * 2304,
                final_norm: 2304,
            }
            .total(),
            2_724_880_896,
        ),
        // Baichuan 2: W_pack (fused q, k, v), NormHead the size of an lm_head.
        (
            "baichuan2-7b-base",
            Dense {
                vocab: 125696,
                hidden: 4096,
                layers: 32,
                tied: false,
                attention: attention(4096, 4096, 4096),
                mlp: 3 * 4096 * 11008,
                norms: 2 * 4096,
                final_norm: 4096,
            }
            .total(),
            7_505_973_248,
        ),
    ];
    for (dir, by_hand, published) in cases {
        let m = hf::load(&fixture(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
        assert_eq!(m.params().total, by_hand, "{dir}: against the hand count");
        assert_eq!(
            by_hand, published,
            "{dir}: the hand count against the published total"
        );
        assert!(
            m.warnings.is_empty() && m.params_range.is_none(),
            "{dir} is a known family: {:?}",
            m.warnings
        );
    }
}

/// The mixture-of-experts families: total and active counts by hand.
#[test]
fn moe_families_import_to_their_hand_counts() {
    // OLMoE: 64 experts of 1024 (8 active), a router, full-width q/k norms.
    let (h, layers, v) = (2048u64, 16u64, 50304u64);
    let fixed = attention(h, h, h) + 2 * h + 64 * h + 2 * h;
    let expert = 3 * h * 1024;
    let olmoe = hf::load(&fixture("olmoe-1b-7b-0924")).unwrap().params();
    assert_eq!(olmoe.total, 2 * v * h + h + layers * (fixed + 64 * expert));
    assert_eq!(olmoe.active, 2 * v * h + h + layers * (fixed + 8 * expert));
    assert_eq!((olmoe.total, olmoe.active), (6_919_161_856, 1_282_017_280));
    // Granite 3.1 3B-A800M: 40 experts of 512 (8 active), tied embeddings.
    let (h, layers, v) = (1536u64, 32u64, 49155u64);
    let fixed = attention(h, h, 512) + 40 * h + 2 * h;
    let expert = 3 * h * 512;
    let granite = hf::load(&fixture("granite-3.1-3b-a800m")).unwrap().params();
    assert_eq!(granite.total, v * h + h + layers * (fixed + 40 * expert));
    assert_eq!(granite.active, v * h + h + layers * (fixed + 8 * expert));
    // Phi-3.5-MoE: LayerNorms, biased attention, 16 experts of 6400 (2 active), a biased head.
    let (h, layers, v) = (4096u64, 32u64, 32064u64);
    let fixed = attention(h, h, 1024) + h + 2 * 1024 + h + 16 * h + 2 * 2 * h;
    let expert = 3 * h * 6400;
    let phimoe = hf::load(&fixture("phi-3.5-moe")).unwrap().params();
    assert_eq!(
        phimoe.total,
        2 * v * h + v + 2 * h + layers * (fixed + 16 * expert)
    );
    assert_eq!(
        phimoe.active,
        2 * v * h + v + 2 * h + layers * (fixed + 2 * expert)
    );
    assert_eq!(phimoe.total, 41_873_153_344);
    // DeepSeek-V2-Lite: MLA without a query down-projection, one dense layer, then 64 routed
    // experts of 1408 (6 active) and 2 shared.
    let (h, v) = (2048u64, 102400u64);
    let mla = h * 16 * (128 + 64) + h * (512 + 64) + 512 + 512 * 16 * (128 + 128) + 16 * 128 * h;
    let fixed = mla + 2 * h;
    let expert = 3 * h * 1408;
    let dense = fixed + 3 * h * 10944;
    let moe_layer = |active: u64| fixed + 64 * h + 2 * expert + active * expert;
    let ds = hf::load(&fixture("deepseek-v2-lite")).unwrap().params();
    assert_eq!(ds.total, 2 * v * h + h + dense + 26 * moe_layer(64));
    assert_eq!(ds.active, 2 * v * h + h + dense + 26 * moe_layer(6));
    assert_eq!(ds.total, 15_706_484_224);
}

/// Llama 4's text model (from the multimodal config's `text_config`): routed experts of
/// `intermediate_size` with one shared expert, dense layers of `intermediate_size_mlp`, q/k
/// L2 norms without weights. Scout is MoE in every layer; Maverick (128 experts) in every
/// second — the same config with `interleave_moe_layer_step` 2.
#[test]
fn llama_4_scout_and_maverick_count_their_experts_and_dense_layers() {
    let (h, v, layers) = (5120u64, 202048u64, 48u64);
    let fixed = attention(h, h, 1024) + 2 * h;
    let expert = 3 * h * 8192;
    let dense_mlp = 3 * h * 16384;
    let embeddings = 2 * v * h + h;
    let scout = hf::load(&fixture("llama-4-scout-17b-16e")).unwrap();
    let p = scout.params();
    assert_eq!(
        p.total,
        embeddings + layers * (fixed + 16 * h + expert + 16 * expert)
    );
    assert_eq!(p.active, embeddings + layers * (fixed + 16 * h + expert + expert));
    assert_eq!((p.total, p.active), (107_769_861_120, 17_172_894_720));
    // Its vision tower has no shape here yet: said, the language model planned alone.
    assert_eq!(
        scout.warnings,
        ["a 'llama4_vision_model' vision tower is not counted: the plan holds the language model alone"]
    );
    let text = std::fs::read_to_string(fixture("llama-4-scout-17b-16e").join("config.json"))
        .unwrap()
        .replace(
            "\"interleave_moe_layer_step\": 1",
            "\"interleave_moe_layer_step\": 2",
        )
        .replace("\"num_local_experts\": 16", "\"num_local_experts\": 128");
    let maverick = hf::from_str("config.json", &text, "maverick").unwrap().params();
    let moe_layer = |active: u64| fixed + 128 * h + expert + active * expert;
    assert_eq!(
        maverick.total,
        embeddings + 24 * moe_layer(128) + 24 * (fixed + dense_mlp)
    );
    assert_eq!(
        maverick.active,
        embeddings + 24 * moe_layer(1) + 24 * (fixed + dense_mlp)
    );
    assert_eq!(maverick.total, 400_711_848_960, "Maverick's 400 B");
}

/// State-space models: a Mamba has no attention and no MLP, one norm and one mixer a layer,
/// and keeps a state per sequence that does not grow with the context; Jamba mixes four
/// attention layers into 28 Mamba layers and puts experts in every second layer.
#[test]
fn mamba_and_jamba_count_their_mixers_and_keep_a_state_not_a_kv_cache() {
    use vramfit::engine::memory::kv::kv_cache_bytes;
    // Mamba-130m: d_inner 1536, d_state 16, kernel 4, dt rank 48, tied embeddings.
    let (h, di, ds, k, r) = (768u64, 1536u64, 16u64, 4u64, 48u64);
    let mixer = h * 2 * di + (di * k + di) + di * (r + 2 * ds) + (r * di + di) + di * ds + di + di * h;
    let mamba = hf::load(&fixture("mamba-130m-hf")).unwrap();
    assert_eq!(mamba.params().total, 50280 * h + h + 24 * (mixer + h));
    assert_eq!(mamba.params().total, 129_135_360, "the published 129 M");
    assert_eq!(mamba.kv_bytes_per_token(2.0), 0.0);
    let state = 24 * (di * (k - 1) + di * ds);
    let json = vramfit::present::json::ModelJson::new(
        &mamba,
        2.0,
        vramfit::engine::model::vision::DEFAULT_IMAGE_SIDE,
    );
    assert_eq!(
        json.state_bytes_per_sequence,
        Some(24 * (di * (k - 1) + di * ds) * 2)
    );
    let at = |context| kv_cache_bytes(&mamba, 2.0, context, 4);
    assert_eq!(at(1024), (state * 2 * 4) as f64);
    assert_eq!(at(1024), at(1_000_000), "the same state at any context");
    // Mamba 2: in_proj writes z, x, B, C (one group of 128) and a dt per head; the
    // convolution covers x, B and C.
    let (di, ds, heads) = (1536u64, 128u64, 24u64);
    let conv = di + 2 * ds;
    let mixer2 = h * (2 * di + 2 * ds + heads) + (conv * 4 + conv) + 3 * heads + di + di * h;
    let mamba2 = hf::load(&fixture("mamba2-130m-hf")).unwrap();
    assert_eq!(mamba2.params().total, 50288 * h + h + 24 * (mixer2 + h));
    assert_eq!(
        kv_cache_bytes(&mamba2, 2.0, 8192, 1),
        (24 * (conv * 3 + di * ds) * 2) as f64
    );
    // Jamba v0.1: attention at layers 4, 12, 20, 28; the Mamba mixers have dt, B and C norms;
    // 16 experts (2 active) in layers 1, 3, …, 31, a dense MLP elsewhere.
    let (h, di, ds, r) = (4096u64, 8192u64, 16u64, 256u64);
    let mixer =
        h * 2 * di + (di * 4 + di) + di * (r + 2 * ds) + (r * di + di) + di * ds + di + di * h + (r + 2 * ds);
    let attention = attention(h, h, 1024);
    let mlp = 3 * h * 14336;
    let common = 2 * 65536 * h + h + 4 * attention + 28 * mixer + 32 * 2 * h + 16 * mlp + 16 * 16 * h;
    let jamba = hf::load(&fixture("jamba-v0.1")).unwrap();
    let p = jamba.params();
    assert_eq!(p.total, common + 16 * 16 * mlp);
    assert_eq!(p.active, common + 16 * 2 * mlp);
    assert_eq!(
        (p.total / 100_000_000, p.active / 1_000_000_000),
        (515, 12),
        "51.6 B, 12 B active"
    );
    // The KV cache: 4 attention layers × 8 KV heads × 128 per token, plus the 28 states.
    assert_eq!(jamba.kv_bytes_per_token(2.0), (2 * 4 * 8 * 128 * 2) as f64);
    let jamba_state = 28 * (di * 3 + di * ds);
    assert_eq!(
        kv_cache_bytes(&jamba, 2.0, 8192, 1),
        ((4 * 2 * 8 * 128 * 8192 + jamba_state) * 2) as f64
    );
}

/// NVIDIA Nemotron 3 Nano 4B's config.json fields (nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16, as
/// the catalog entry quotes them): `nemotron_h` reads `hybrid_override_pattern`, one
/// character a layer, into 21 Mamba 2 mixers, 4 attention layers and 17 lone MLPs, the same
/// shape and count as the catalog's entry (3,973,556,832); a pattern that does not spell
/// every layer is refused at its key.
#[test]
fn nemotron_h_reads_its_layer_pattern() {
    let config = r#"{"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
 "hidden_size": 3136, "intermediate_size": 12544, "num_hidden_layers": 42,
 "hybrid_override_pattern": "M-M-M-MM-M-M*-M-M*-M-M-M*-M-M-MM*-MMM-M-M-",
 "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "attention_bias": false,
 "mamba_num_heads": 96, "mamba_head_dim": 80, "ssm_state_size": 128, "n_groups": 8,
 "conv_kernel": 4, "use_conv_bias": true, "use_bias": false, "mlp_bias": false,
 "mlp_hidden_act": "relu2", "vocab_size": 131072, "tie_word_embeddings": false,
 "max_position_embeddings": 262144, "rms_norm_eps": 1e-05}"#;
    let m = hf::from_str("config.json", config, "nemotron-h").unwrap();
    assert_eq!(m.params().total, 3_973_556_832);
    assert_eq!(m.arch.attention_layers(), 4);
    assert_eq!(m.kv_bytes_per_token(2.0), 16_384.0);
    let s = m.arch.ssm.unwrap();
    assert_eq!(
        (s.layers, s.mlp_only_layers, s.inner, s.heads),
        (21, 17, 7680, 96)
    );
    assert!(m.unknown_keys.is_empty(), "{:?}", m.unknown_keys);
    let catalog = Catalog::embedded().unwrap();
    let entry = catalog.model("nemotron-3-nano-4b").unwrap();
    assert_eq!(m.params(), entry.params());
    // NoPE attention: no rotary table, as the catalog says.
    assert!(m.rope.nope);
    assert_eq!(m.rope, entry.rope);
    // vLLM keeps the recurrent state in the config's mamba_ssm_cache_dtype.
    assert_eq!(s.ssm_state_bytes, 0);
    let f32 = config.replace(
        "\"rms_norm_eps\"",
        "\"mamba_ssm_cache_dtype\": \"float32\", \"rms_norm_eps\"",
    );
    let m32 = hf::from_str("config.json", &f32, "nemotron-h").unwrap();
    assert_eq!(m32.arch.ssm.unwrap().ssm_state_bytes, 4);
    let short = config.replace("MMM-M-M-\"", "MMM-M-M\"");
    let e = hf::from_str("config.json", &short, "nemotron-h").unwrap_err();
    assert!(e.to_string().contains("42 layers of M (Mamba 2)"), "{e}");
}
