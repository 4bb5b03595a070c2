//! Families the importer has no description for, read from their published config.json
//! alone (tests/fixtures/hf/SOURCES.md names each file and its published total). For each:
//! the estimate written out by hand from the config and the family's modeling code, the
//! stated range worked out by hand over the readings the config leaves open, and the
//! published total inside that range. For the layer-pattern fixtures, the KV cache from a
//! hand count over the attention layers only.

use std::path::Path;

use vramfit::catalog::hf;
use vramfit::engine::Model;

fn load(name: &str) -> Model {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hf")
        .join(name);
    hf::load(&dir).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// q, k, v and o without biases.
fn attention(h: u64, heads: u64, kv: u64, head_dim: u64) -> u64 {
    2 * h * heads * head_dim + 2 * h * kv * head_dim
}

/// The estimate, the stated range, and a published total inside the range. A published
/// total given in steps of `step` stands for the interval of one step around it; the range
/// must meet that interval (an exact total, step 1, must lie inside).
fn check(m: &Model, estimate: u64, range: (u64, u64), published: f64, step: f64) {
    assert_eq!(m.params().total, estimate, "{}", m.id);
    assert_eq!(m.params_range, Some(range), "{}", m.id);
    let (lo, hi) = range;
    let (p_lo, p_hi) = (published - step / 2.0, published + step / 2.0);
    assert!(
        lo as f64 <= p_hi && hi as f64 >= p_lo,
        "{}: published {published} (±{}) outside {lo}..{hi}",
        m.id,
        step / 2.0
    );
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("puts the true count between"))
    );
}

/// LFM2: ten short-convolution layers and six attention layers (`full_attn_idxs`), a SwiGLU
/// width the config asks to adjust (12288 → ⌊2/3⌋ 8192), tied embeddings. Only the six
/// attention layers hold KV; each convolution keeps `conv_L_cache` inputs of hidden width.
#[test]
fn lfm2_counts_its_convolutions_and_gives_kv_to_attention_layers_only() {
    let m = load("lfm2-1.2b");
    let (h, v) = (2048u64, 65536u64);
    let conv = 3 * h * h + h * 3 + h * h; // in_proj, depthwise kernel 3, out_proj
    let attn = attention(h, 32, 8, 64);
    let mlp = 3 * h * 8192;
    let estimate = v * h + h + 10 * conv + 6 * attn + 16 * (mlp + 2 * h);
    assert_eq!(estimate, 1_170_339_840);
    // Low: the convolutions read as attention-shaped mixers. High: untied, every bias, q/k
    // norms, the width as written (12288), a gate on the attention output.
    let lo = estimate - 10 * (conv - attn);
    let biases = 6 * (2048 + 2 * 512 + h) + 16 * (2 * 12288 + h);
    let hi = estimate + v * h + biases + 6 * 2 * 64 + 16 * 3 * h * 4096 + 6 * (h * h + h);
    // The model card's exact total: the estimate plus the six layers' q/k norms (2 × 64).
    let published = 1_170_340_608u64;
    assert_eq!(published, estimate + 6 * 2 * 64);
    check(&m, estimate, (lo, hi), published as f64, 1.0);
    // KV per token: 6 attention layers × 2 × 8 kv heads × 64, 16-bit (not 16 layers).
    assert_eq!(m.kv_bytes_per_token(2.0), (6 * 2 * 8 * 64 * 2) as f64);
    assert_eq!(vramfit::engine::memory::kv::state_elements(&m), 10 * h * 3);
}

/// Qwen3-Next (Qwen3-Coder-Next's config): a full-attention layer every 4th
/// (`full_attention_interval`), gated delta-rule linear attention elsewhere, 512 experts
/// with a gated shared expert. The published total is exact.
#[test]
fn qwen3_next_counts_its_linear_attention_and_experts() {
    let m = load("qwen3-coder-next");
    let (h, v) = (2048u64, 151936u64);
    let full = attention(h, 16, 2, 256);
    // in_proj_qkvz, in_proj_ba, conv over q, k, v (kernel 4), dt_bias and A_log, the gated
    // norm over a value head, out_proj.
    let (key, value) = (16 * 128u64, 32 * 128u64);
    let linear = h * (2 * key + 2 * value) + h * 64 + (2 * key + value) * 4 + 64 + 128 + value * h;
    let moe = 512 * h + 512 * 3 * h * 512 + 3 * h * 512 + h;
    let estimate = 2 * v * h + h + 12 * full + 36 * linear + 48 * (moe + 2 * h);
    assert_eq!(estimate, 79_573_721_856);
    let lo = estimate - 36 * (linear - (2 * h * 4096 + 2 * h * 512)) - 48 * h;
    let mlp_bias = 48 * (512 * (2 * 512 + h) + (2 * 512 + h));
    let hi = estimate + mlp_bias + 12 * 512 + 48 * 512 + 12 * h * 4096;
    // Published 79,674,391,296: the estimate plus the output gate and q/k norms.
    assert_eq!(79_674_391_296, estimate + 12 * h * 4096 + 12 * 2 * 256);
    check(&m, estimate, (lo, hi), 79_674_391_296.0, 1.0);
    // 12 attention layers × 2 × 2 kv heads × 256, 16-bit; a fixed state per linear layer:
    // the convolution's last 3 inputs of q, k, v and 32 heads × 128 × 128.
    assert_eq!(m.kv_bytes_per_token(2.0), (12 * 2 * 2 * 256 * 2) as f64);
    assert_eq!(
        vramfit::engine::memory::kv::state_elements(&m),
        36 * ((2 * key + value) * 3 + 32 * 128 * 128)
    );
    assert_eq!(m.params().active, estimate - 48 * 502 * 3 * h * 512);
}

/// SmolLM3: a Llama-shaped decoder under its own name (NoPE layers change no count).
#[test]
fn smollm3_is_exact() {
    let m = load("smollm3-3b");
    let (h, v) = (2048u64, 128256u64);
    let estimate = v * h + h + 36 * (attention(h, 16, 4, 128) + 3 * h * 11008 + 2 * h);
    assert_eq!(estimate, 3_075_098_624);
    check(&m, estimate, (estimate, estimate + 36 * 256), 3.08e9, 0.01e9);
}

/// AFM-4.5B: ReLU² is two matrices (up, down), not three.
#[test]
fn arcee_relu2_is_a_two_matrix_mlp() {
    let m = load("afm-4.5b");
    let (h, v) = (2560u64, 128004u64);
    let estimate = 2 * v * h + h + 36 * (attention(h, 20, 4, 128) + 2 * h * 18432 + 2 * h);
    assert_eq!(estimate, 4_619_184_640);
    assert_eq!(m.arch.mlp, vramfit::engine::model::MlpKind::Plain);
    check(&m, estimate, (estimate, estimate + 36 * 256), 4.6e9, 0.1e9);
}

/// EXAONE 4.0 32B: `sliding_window_pattern` 4, three sliding layers (window 4096) then a
/// global one; EXAONE's other spelling of the period, "LLLG", reads the same.
#[test]
fn exaone4_slides_three_layers_in_four() {
    let m = load("exaone-4.0-32b");
    let (h, v) = (5120u64, 102400u64);
    let estimate = 2 * v * h + h + 64 * (attention(h, 40, 8, 128) + 3 * h * 27392 + 2 * h);
    assert_eq!(estimate, 32_003_200_000);
    let biases = 64 * ((5120 + 2 * 1024) + h + (2 * 27392 + h));
    check(
        &m,
        estimate,
        (estimate, estimate + biases + 64 * 256),
        32.0e9,
        0.1e9,
    );
    // The card's count without embeddings: 30.95 B.
    assert_eq!((estimate - 2 * v * h) / 10_000_000, 3095);
    // KV at 32k: 16 global layers hold 32,768 tokens, 48 sliding ones 4,096.
    assert_eq!(m.arch.kv_layer_tokens(32768), 16 * 32768 + 48 * 4096);
    // 2 × 8 kv heads × 128 × 2 B a token: 2.95 GB at 32k, where every layer sliding (the
    // old reading) gave 64 × 4,096 tokens, 1.07 GB (64 % too little).
    let kv = |m: &Model| m.arch.kv_layer_tokens(32768) * 2 * 8 * 128 * 2;
    assert_eq!(kv(&m), 2_952_790_016);
    assert_eq!(100 - 64 * 4096 * 2 * 8 * 128 * 2 * 100 / kv(&m), 64);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/exaone-4.0-32b");
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap().replace(
        "\"sliding_window_pattern\": 4",
        "\"sliding_window_pattern\": \"LLLG\"",
    );
    let lettered = hf::from_str("config.json", &text, "lllg").unwrap();
    assert_eq!(kv(&lettered), kv(&m));
}

/// Seed-OSS-36B: biases on q, k and v only (`attention_bias`, `attention_out_bias: false`).
#[test]
fn seed_oss_reads_its_bias_keys() {
    let m = load("seed-oss-36b");
    let (h, v) = (5120u64, 155136u64);
    let attn = attention(h, 80, 8, 128) + 80 * 128 + 2 * 8 * 128;
    let estimate = 2 * v * h + h + 64 * (attn + 3 * h * 27648 + 2 * h);
    assert_eq!(estimate, 36_151_104_512);
    check(&m, estimate, (estimate, estimate + 64 * 256), 36.0e9, 1.0e9);
}

/// ERNIE 4.5 21B-A3B: experts under `moe_num_experts`/`moe_k`, two shared experts, the first
/// layer dense (`moe_layer_start_index`), a score-correction bias (`moe_use_aux_free`).
#[test]
fn ernie_moe_is_read_as_an_moe() {
    let m = load("ernie-4.5-21b-a3b");
    let (h, v) = (2560u64, 103424u64);
    let attn = attention(h, 20, 4, 128);
    let expert = 3 * h * 1536;
    let moe_layer = attn + 64 * h + 64 + 64 * expert + 2 * expert + 2 * h;
    let estimate = v * h + h + (attn + 3 * h * 12288 + 2 * h) + 27 * moe_layer;
    assert_eq!(estimate, 21_825_437_888);
    check(
        &m,
        estimate,
        (estimate - 27 * 64, estimate + 28 * 256),
        21.8e9,
        0.1e9,
    );
    assert_eq!(m.params().active, estimate - 27 * 58 * expert);
    // "3B activated": 3.35 B.
    assert_eq!(m.params().active / 10_000_000, 335);
}

/// dots.llm1: DeepSeek-style experts without latent attention: 128 routed, 2 shared, the
/// first layer dense.
#[test]
fn dots1_counts_routed_and_shared_experts() {
    let m = load("dots.llm1.inst");
    let (h, v) = (4096u64, 152064u64);
    let attn = attention(h, 32, 32, 128);
    let expert = 3 * h * 1408;
    let estimate =
        2 * v * h + h + (attn + 3 * h * 10944 + 2 * h) + 61 * (attn + 128 * h + 130 * expert + 2 * h);
    assert_eq!(estimate, 142_774_358_016);
    let mlp_bias = (2 * 10944 + h) + 61 * 130 * (2 * 1408 + h);
    let hi = estimate + mlp_bias + 62 * 256 + 61 * 128;
    // "142B total, 14B activated": the card truncates (142 ≤ total < 143 B).
    check(&m, estimate, (estimate, hi), 142.5e9, 1.0e9);
    assert_eq!(m.params().active / 1_000_000_000, 14);
}

/// Ling-lite (Bailing MoE): 64 experts and 2 shared ones in every layer.
#[test]
fn bailing_moe_counts_its_experts() {
    let m = load("ling-lite");
    let (h, v) = (2048u64, 126464u64);
    let expert = 3 * h * 1408;
    let estimate = 2 * v * h + h + 28 * (attention(h, 16, 4, 128) + 64 * h + 66 * expert + 2 * h);
    assert_eq!(estimate, 16_801_974_272);
    check(
        &m,
        estimate,
        (estimate, estimate + 28 * 256 + 28 * 64),
        16.8e9,
        0.1e9,
    );
    // "2.75B activated".
    assert_eq!(m.params().active / 10_000_000, 275);
}

/// Apertus 8B: xIELU is an activation the reading does not know, so both MLP shapes stay
/// open, as do the q/k norms its config does not write (its modeling code has them). The
/// published 8.05 B is the two-matrix reading with the norms (and xIELU's two learned
/// scalars a layer).
#[test]
fn apertus_unknown_activation_keeps_both_mlps_in_the_bound() {
    let m = load("apertus-8b");
    let (h, v) = (4096u64, 131072u64);
    let base = 2 * v * h + h + 32 * (attention(h, 32, 8, 128) + 2 * h);
    let (plain, gated) = (base + 32 * 2 * h * 21504, base + 32 * 3 * h * 21504);
    let truth = plain + 32 * 256 + 32 * 2;
    assert_eq!(truth, 8_053_338_176);
    check(&m, gated, (plain, gated + 32 * 256), 8.05e9, 0.01e9);
    let (lo, hi) = m.params_range.unwrap();
    assert!(lo < truth && truth < hi);
}

/// DBRX: `d_model`, `n_heads`, `n_layers`, KV heads in `attn_config`, experts in
/// `ffn_config` (`moe_num_experts`, `moe_top_k`), activation `{"name": "silu"}`.
#[test]
fn dbrx_reads_its_nested_blocks() {
    let m = load("dbrx-instruct");
    let (h, v) = (6144u64, 100352u64);
    let expert = 3 * h * 10752;
    let estimate = 2 * v * h + h + 40 * (attention(h, 48, 8, 128) + 16 * h + 16 * expert + 2 * h);
    assert_eq!(estimate, 131_596_523_520);
    let biases = 40 * ((h + 2 * 1024) + h + 16 * (2 * 10752 + h)) + 40 * 2 * h + h;
    check(
        &m,
        estimate,
        (estimate, estimate + biases + 40 * 256 + 40 * 16),
        132.0e9,
        1.0e9,
    );
    assert_eq!(m.max_context, 32768);
    // "36B active".
    assert_eq!(m.params().active / 1_000_000_000, 36);
    assert_eq!(m.kv_bytes_per_token(2.0), (40 * 2 * 8 * 128 * 2) as f64);
}

/// A key about experts that the reading does not know makes the family an unknown MoE: the
/// key is named, and the bound widens to the reading that takes its number for the experts.
/// Ling-lite's config with its expert count under a name no config uses.
#[test]
fn an_unread_expert_key_widens_the_bound_and_is_named() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/ling-lite");
    let text = std::fs::read_to_string(dir.join("config.json"))
        .unwrap()
        .replace("\"num_experts\"", "\"n_expert_total\"");
    let m = hf::from_str("config.json", &text, "renamed").unwrap();
    assert_eq!(m.unknown_keys, ["n_expert_total"]);
    assert!(m.arch.moe.is_none(), "read as dense");
    let (h, v) = (2048u64, 126464u64);
    let attn = attention(h, 16, 4, 128);
    let dense = 2 * v * h + h + 28 * (attn + 3 * h * 5632 + 2 * h);
    assert_eq!(m.params().total, dense);
    // High: 64 routed experts of the written width 1408 (and their router), the 2 shared
    // ones, and q/k norms.
    let expert = 3 * h * 1408;
    let moe = 2 * v * h + h + 28 * (attn + 64 * h + 66 * expert + 2 * h);
    let (lo, hi) = m.params_range.unwrap();
    assert_eq!((lo, hi), (dense, moe + 28 * 256));
    // The published 16.8 B lies inside; the dense reading alone is a tenth of it.
    assert!(lo < 16_801_974_272 && 16_801_974_272 < hi);
    assert_eq!(dense * 100 / 16_801_974_272, 10);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("config keys it could not read: n_expert_total"))
    );
}

/// A config that cannot be read names every key it looked for.
#[test]
fn an_unreadable_config_names_the_keys_it_looked_for() {
    let text = r#"{"model_type": "mystery", "width": 4096, "depth": 32}"#;
    let e = hf::from_str("config.json", text, "mystery").unwrap_err();
    assert!(
        e.message.contains("missing 'hidden_size'")
            && e.message.contains("(looked for hidden_size, n_embd, d_model)"),
        "{e}"
    );
}

/// `plan --json` carries an unknown family's range, bound and the keys it could not read.
#[test]
fn json_names_the_unknown_keys_beside_the_range() {
    let run = |fixture: &str| -> serde_json::Value {
        let out = assert_cmd::Command::cargo_bin("vramfit")
            .unwrap()
            .env("VRAMFIT_CONFIG", "/nonexistent")
            .env("LANG", "C")
            .args(["plan", "--json", "--model"])
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/hf")
                    .join(fixture),
            )
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let json = run("dbrx-instruct");
    let model = &json["model"];
    assert_eq!(model["params"], 131_596_523_520u64);
    assert_eq!(model["params_range"][0], 131_596_523_520u64);
    assert_eq!(model["params_range"][1], 131_615_300_224u64);
    // DBRX's `clip_qkv` bears on no count; its expert keys are all read.
    assert_eq!(model["unknown_keys"], serde_json::json!([]));
    let known = run("llama-3.1-8b");
    assert!(known["model"].get("unknown_keys").is_none());
    assert!(known["model"].get("params_range").is_none());
}

/// ERNIE-VL writes its experts as a list (one count per modality): not refused, named, and
/// the reading that pools the list widens the bound. ERNIE 4.5 21B-A3B's config with its
/// count written that way.
#[test]
fn an_expert_count_written_as_a_list_is_named_not_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/ernie-4.5-21b-a3b");
    let text = std::fs::read_to_string(dir.join("config.json"))
        .unwrap()
        .replace("\"moe_num_experts\": 64", "\"moe_num_experts\": [64, 64]");
    let m = hf::from_str("config.json", &text, "listed").unwrap();
    assert_eq!(m.unknown_keys, ["moe_num_experts"]);
    let (lo, hi) = m.params_range.unwrap();
    // Dense: 28 layers of the 12288-wide MLP. High: 128 pooled experts of 1536 with the two
    // shared ones, and q/k norms.
    let (h, v) = (2560u64, 103424u64);
    let attn = attention(h, 20, 4, 128);
    assert_eq!(lo, v * h + h + 28 * (attn + 3 * h * 12288 + 2 * h));
    let expert = 3 * h * 1536;
    assert_eq!(hi, v * h + h + 28 * (attn + 128 * h + 130 * expert + 2 * h + 256));
    assert!(lo < 21_825_437_888 && 21_825_437_888 < hi);
}

/// A layer layout under a key the reading does not know is named: Nemotron-H's
/// `hybrid_override_pattern` (M: Mamba 2, *: attention, -: MLP; the key as nvidia's
/// Nemotron-H configs write it) set into SmolLM3's config.
#[test]
fn an_unread_layer_layout_is_named() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/smollm3-3b");
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap().replace(
        "\"mlp_bias\": false,",
        "\"mlp_bias\": false, \"hybrid_override_pattern\": \"M-M-M*-\",",
    );
    let m = hf::from_str("config.json", &text, "layout").unwrap();
    assert_eq!(m.unknown_keys, ["hybrid_override_pattern"]);
    // Read as every layer attending, as before: the same count as SmolLM3's.
    assert_eq!(m.params().total, 3_075_098_624);
}
