//! What a runtime holds as "weights" once a model is loaded, beyond parameters × bytes: each
//! rule on a hand-computed case (docs/notes/runtime-rules.md quotes the code).

mod common;
use common::{segment, vramfit};
use vramfit::engine::workload::version;

use vramfit::catalog::Catalog;
use vramfit::engine::memory::breakdown;
use vramfit::engine::{Scenario, SegmentKind, WeightPrecision};

const MIB: f64 = 1_048_576.0;

fn model(id: &str) -> vramfit::engine::Model {
    Catalog::embedded().unwrap().model(id).unwrap().clone()
}

fn scenario(runtime: &str, weights: WeightPrecision, cards: u32) -> Scenario {
    let mut sc = Scenario::seed_inference(weights).calibrated();
    sc.cards = cards;
    if !runtime.is_empty() {
        let (framework, version) = version::parse_runtime(runtime).unwrap();
        sc.release = version;
        framework.apply(&mut sc);
    }
    sc
}

fn weights(id: &str, runtime: &str, w: WeightPrecision, cards: u32) -> f64 {
    breakdown(&model(id), &scenario(runtime, w, cards)).get(SegmentKind::Weights)
}

/// vLLM builds its cos/sin table at load, on every card, in the model's dtype: rows × rotary
/// columns × 2 B. Gemma 3 4B: a global table over 131,072 × 8 positions (linear scaling) and a
/// local one over 131,072, 256 columns: 512 + 64 MiB. Qwen2.5-VL's M-RoPE: 4 × 128,000 rows
/// of 128: 131,072,000 B. Llama 3.1 8B: 131,072 × 128 × 2 B = 32 MiB on each of two cards.
#[test]
fn vllm_holds_its_rotary_table_beside_the_weights() {
    let bf16 = WeightPrecision::Bf16;
    let gemma =
        weights("gemma-3-4b-vision", "vllm@0.10", bf16, 1) - weights("gemma-3-4b-vision", "", bf16, 1);
    assert_eq!(gemma, 576.0 * MIB);
    let qwen_vl = weights("qwen2.5-vl-7b", "vllm@0.8.2", bf16, 1) - weights("qwen2.5-vl-7b", "", bf16, 1);
    assert_eq!(qwen_vl, 131_072_000.0);
    // Tensor parallel splits the weights, not the table.
    let llama = weights("llama-3.1-8b", "vllm@0.11", bf16, 2) - weights("llama-3.1-8b", "", bf16, 2);
    assert!((llama - 32.0 * MIB).abs() < 1.0, "{llama}");
    // Other runtimes compute rotations on the fly: nothing added.
    assert_eq!(
        weights("llama-3.1-8b", "ollama", bf16, 1),
        weights("llama-3.1-8b", "", bf16, 1)
    );
    let out = vramfit()
        .args(["plan", "-m", "gemma-3-4b-vision", "--framework", "vllm", "--json"])
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let formula = segment(&plan, "weights")["formula"].as_str().unwrap().to_string();
    assert!(
        formula.contains(
            "vLLM's rotary table 1,179,648 positions (131,072 × 8 scaled + 131,072 local) × 256 × 2 B"
        ),
        "{formula}"
    );
}

/// Meta's Llama 3.1 405B FP8 quantizes the MLPs of blocks 1 to 124 only: attention in all 126
/// blocks (570,425,344 each), the MLPs of the first and last (2 × 2,617,245,696), embedding and
/// lm_head (2 × 128,256 × 16,384) and 253 norms of 16,384 stay BF16.
#[test]
fn the_405b_fp8_checkpoint_keeps_its_edge_blocks_16_bit() {
    let a = model("llama-3.1-405b").arch;
    let attention = 16_384 * 16_384 * 2 + 2 * 16_384 * 1_024;
    assert_eq!(a.attention_params(), attention);
    let mlp = 3 * 16_384 * 53_248;
    let kept = 126 * attention + 2 * mlp + 2 * 128_256 * 16_384 + 253 * 16_384;
    assert_eq!(kept, 81_314_922_496);
    assert_eq!(a.unquantized_params_in(Some(WeightPrecision::Fp8)), kept);
    // Another format quantizes all of them.
    assert_eq!(
        a.unquantized_params_in(Some(WeightPrecision::Int8)),
        a.unquantized_params()
    );
}

/// Ollama's mistral3 GGUF: the text at Q8_0 (8.5 bits), the Pixtral encoder and projector
/// (438,958,080 parameters) left F16 ("don't quantize vision stuff"): 24.14 GiB over the three
/// buffers its log printed as 11.5 GiB + 11.9 GiB + 680.0 MiB.
#[test]
fn ollama_keeps_the_image_encoder_16_bit() {
    let m = model("mistral-small-3.2");
    assert_eq!(m.params().total, 23_572_403_200);
    assert_eq!(m.vision.unwrap().params, 438_958_080);
    let planned = weights("mistral-small-3.2", "ollama", WeightPrecision::Q8_0, 1);
    let hand = 23_572_403_200.0 * 8.5 / 8.0 + 438_958_080.0 * 2.0;
    assert!((planned - hand).abs() < 1.0, "{planned} vs {hand}");
    let logged = 11.5 * 1024.0 * MIB + 11.9 * 1024.0 * MIB + 680.0 * MIB;
    assert!((planned / logged - 1.0).abs() < 0.01);
}

/// A config.json says how its rotary table is laid out as the catalog does: Gemma 3 4B's
/// text_config (linear factor 8 and a local base), Qwen2.5-VL's M-RoPE, a partial rotary
/// width (Phi-4-mini's 0.75 of 128).
#[test]
fn an_imported_config_lays_out_its_rotary_table_as_the_catalog_does() {
    use vramfit::catalog::hf;
    let gemma = r#"{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
 "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34,
 "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 262208,
 "max_position_embeddings": 131072, "sliding_window": 1024, "rope_local_base_freq": 10000.0,
 "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}}"#;
    let m = hf::from_str("config.json", gemma, "gemma-3-4b").unwrap();
    assert_eq!(m.rope, model("gemma-3-4b").rope);
    assert_eq!(vramfit::engine::model::rope::vllm_table_bytes(&m), 576.0 * MIB);
    let qwen_vl = r#"{"model_type": "qwen2_5_vl", "hidden_size": 3584, "intermediate_size": 18944,
 "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
 "vocab_size": 152064, "max_position_embeddings": 128000,
 "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}"#;
    let m = hf::from_str("config.json", qwen_vl, "qwen2.5-vl").unwrap();
    assert_eq!(m.rope, model("qwen2.5-vl-7b").rope);
    let partial = r#"{"model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
 "num_hidden_layers": 32, "num_attention_heads": 24, "num_key_value_heads": 8, "head_dim": 128,
 "vocab_size": 200064, "max_position_embeddings": 131072, "partial_rotary_factor": 0.75}"#;
    let m = hf::from_str("config.json", partial, "phi-4-mini").unwrap();
    assert_eq!(m.rope.rotary_dim, Some(96));
}

/// Ollama keeps 457 MiB aside on each card before placing layers (`ml/device.go`
/// `MinimumMemory`); the plan's overhead and the layer placement read the same figure, so a
/// split never counts a card's room one way and its total another.
#[test]
fn ollama_keeps_its_minimum_on_each_card_in_the_plan_and_the_split() {
    use vramfit::engine::placement::layers::LayerCosts;
    let m = model("llama-3.1-8b");
    let sc = scenario("ollama", WeightPrecision::Q4KM, 2);
    let b = breakdown(&m, &sc);
    let reserve = b.segment(SegmentKind::Overhead).unwrap().part("cuda_context");
    assert_eq!(reserve, 457.0 * MIB);
    assert_eq!(LayerCosts::of(&m, &sc).card_overhead, reserve);
    // Other runtimes keep the CUDA context's 0.5 GB.
    let generic = scenario("", WeightPrecision::Q4KM, 2);
    assert_eq!(LayerCosts::of(&m, &generic).card_overhead, 0.5e9);
}
