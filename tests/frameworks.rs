//! Framework presets, one hand-computed case each: the values a preset sets, the memory the
//! framework adds, and that a flag the user gives wins over the preset.

mod common;

use vramfit::catalog::Catalog;
use vramfit::engine::memory::{SegmentKind, breakdown};
use vramfit::engine::workload::scenario::{LoraTargets, Optimizer, TrainingPrecision};
use vramfit::engine::{Framework, KvPrecision, Method, Model, Scenario, WeightPrecision};

fn model(id: &str) -> Model {
    Catalog::embedded().unwrap().model(id).unwrap().clone()
}

fn serving(weights: WeightPrecision, framework: Framework) -> Scenario {
    let mut sc = Scenario::seed_inference(weights).calibrated();
    framework.apply(&mut sc);
    sc
}

fn training(method: Method, framework: Framework) -> Scenario {
    let mut sc = Scenario::seed_training(method).calibrated();
    framework.apply(&mut sc);
    sc
}

fn part(sc: &Scenario, m: &Model, kind: SegmentKind, name: &str) -> f64 {
    breakdown(m, sc).segment(kind).map_or(0.0, |s| s.part(name))
}

/// Llama 2 7B under llama.cpp's defaults (n_ctx 4096, n_ubatch 512, no flash attention):
/// one layer's f32 scores 512 × 4096 × 32 heads × 4 B = 268,435,456, their f32 mask
/// 512 × 4096 × 4 B = 8,388,608 and four f32 rows of 4096 per token 33,554,432: 296 MiB, the
/// compute buffer llama.cpp b3600 reports for this model.
#[test]
fn llama_cpp_sizes_its_compute_buffer_from_n_ubatch_and_the_cache() {
    let m = model("llama-2-7b");
    let sc = serving(WeightPrecision::Q4KM, Framework::LlamaCpp);
    assert_eq!((sc.context, sc.batch, sc.ubatch), (4096, 1, 512));
    assert_eq!(sc.kv, KvPrecision::Fp16);
    assert!(!sc.flash_attention);
    assert_eq!(sc.gpu_util, 1.0);
    let buffer = part(&sc, &m, SegmentKind::Activations, "compute_buffer");
    assert_eq!(buffer, 310_378_496.0);
    assert_eq!(buffer, 296.0 * 1_048_576.0);
    // No caching allocator: no slack on top.
    assert_eq!(
        part(&sc, &m, SegmentKind::Overhead, "allocator_fragmentation"),
        0.0
    );
    // Back to generic: the serving defaults return (tensor parallel, 0.9 of the card, flash).
    let mut back = sc.clone();
    Framework::Generic.apply(&mut back);
    assert_eq!(back.split, vramfit::engine::workload::scenario::Split::Tensor);
    assert_eq!(back.gpu_util, 0.9);
    assert!(back.flash_attention);
    // n_ubatch 1024 doubles the scores and the rows.
    let doubled = Scenario {
        ubatch: 1024,
        ..sc.clone()
    };
    assert_eq!(
        part(&doubled, &m, SegmentKind::Activations, "compute_buffer"),
        1024.0 * 4096.0 * 32.0 * 4.0 + 1024.0 * 4096.0 * 4.0 + 4.0 * 4096.0 * 4.0 * 1024.0
    );
}

/// Ollama's defaults (0.15.5 on, under 23 GiB of VRAM; one slot from 0.9.7): one slot of
/// 4,096 tokens. Llama 3.1 8B: KV 131,072 B per token × 4,096 = 0.5 GiB; the scores over 4,096
/// cells (268,435,456) + mask (8,388,608) + rows (33,554,432) = 310,378,496 beat the logits
/// 512 × (128,256 + 4,096) × 4 = 271,056,896.
#[test]
fn ollama_is_llama_cpp_with_one_slot_of_its_default_context() {
    let m = model("llama-3.1-8b");
    let sc = serving(WeightPrecision::Q4KM, Framework::Ollama);
    assert_eq!((sc.context, sc.batch), (4096, 1));
    let b = breakdown(&m, &sc);
    assert_eq!(b.get(SegmentKind::KvCache), 536_870_912.0);
    assert_eq!(b.get(SegmentKind::Activations), 310_378_496.0);
    // At 512 cells the output logits set the peak: 258.5 MiB, as llama.cpp reports.
    let short = Scenario {
        context: 512,
        batch: 1,
        ..sc
    };
    assert_eq!(
        breakdown(&m, &short).get(SegmentKind::Activations),
        258.5 * 1_048_576.0
    );
}

/// vLLM's profiling run for Llama 3.1 8B at the newest release (V1), with `vllm serve`'s
/// defaults below 70 GiB (2,048 tokens, 256 sequences): the forward's 2,048 tokens × 122,880 B
/// (2·(2h + 2q + 2kv + 3I)) = 251,658,240 is less than the sampler's step that follows it,
/// min(2,048, 256) rows × 128,256 × 38.34 B = 1,258,837,770 beside the forward's hidden
/// states, 2,048 × 4,096 × 2 B = 16,777,216, so the peak is those two; 0.34 leaves
/// gpu_memory_utilization unset (1.0, the extensible cache). V0 (vllm@0.6) with chunked
/// prefill off prefilled the whole 8,192-token context (1,006,632,960) and sampled in the same
/// step, in three fp32 copies: 394,002,432.
#[test]
fn vllm_keeps_its_profiling_peak_free() {
    let m = model("llama-3.1-8b");
    let sc = serving(WeightPrecision::Bf16, Framework::Vllm);
    assert_eq!(
        (sc.gpu_util, sc.max_batched_tokens, sc.max_num_seqs),
        (1.0, 2048, 256)
    );
    assert_eq!(
        part(&sc, &m, SegmentKind::Activations, "vllm_profile_forward"),
        16_777_216.0
    );
    assert_eq!(
        part(&sc, &m, SegmentKind::Activations, "vllm_sampler"),
        256.0 * 128_256.0 * 38.34
    );
    assert_eq!(
        part(&sc, &m, SegmentKind::Overhead, "allocator_fragmentation"),
        0.0
    );
    let v0 = Scenario {
        release: Some(vramfit::engine::workload::version::Version::Release(0, 6, 0)),
        ..sc
    };
    assert_eq!(
        part(&v0, &m, SegmentKind::Activations, "vllm_profile_forward"),
        1_006_632_960.0
    );
    assert_eq!(
        part(&v0, &m, SegmentKind::Activations, "vllm_sampler"),
        394_002_432.0
    );
}

/// SGLang's static fraction follows the tensor-parallel size (server_args.py).
#[test]
fn sglang_takes_less_of_each_card_the_more_cards_it_spans() {
    let one = serving(WeightPrecision::Bf16, Framework::Sglang);
    assert_eq!(one.gpu_util, 0.88);
    let mut four = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    four.cards = 4;
    Framework::Sglang.apply(&mut four);
    assert_eq!(four.gpu_util, 0.85);
    assert_eq!(four.max_batched_tokens, 8192);
}

/// DeepSpeed's buckets for a full fine-tune of Llama 3.2 1B (1,235,814,400 params): ZeRO-3
/// reduces through 5e8 16-bit elements (1e9 B) and prefetches 5e7 bf16 params (1e8 B);
/// ZeRO-2 keeps a reduce and an all-gather bucket (2e9 B). A LoRA's gradients are smaller
/// than the bucket: it holds only them.
#[test]
fn deepspeed_adds_its_communication_buckets() {
    let m = model("llama-3.2-1b");
    let mut sc = training(Method::Full, Framework::Deepspeed);
    sc.cards = 2;
    assert_eq!(part(&sc, &m, SegmentKind::Overhead, "deepspeed_buckets"), 1.1e9);
    // A smaller reduce bucket (the knob --reduce-bucket-size): 2e8 × 2 B + the prefetch 1e8 B.
    sc.reduce_bucket = 200_000_000;
    assert_eq!(part(&sc, &m, SegmentKind::Overhead, "deepspeed_buckets"), 5e8);
    sc.reduce_bucket = 500_000_000;
    sc.zero = 2;
    assert_eq!(part(&sc, &m, SegmentKind::Overhead, "deepspeed_buckets"), 2e9);
    let mut lora = training(Method::Lora, Framework::Deepspeed);
    lora.cards = 2;
    // Rank 16 on q, k, v, o of 16 layers: per layer q 16·(2048 + 2048), k and v 16·(2048 + 512),
    // o 16·(2048 + 2048) = 212,992.
    let trainable = 16.0 * 212_992.0;
    assert_eq!(trainable, 3_407_872.0);
    assert_eq!(
        part(&lora, &m, SegmentKind::Overhead, "deepspeed_buckets"),
        trainable * 2.0 + 5e7 * 2.0
    );
    // Not under the generic rules.
    let generic = training(Method::Full, Framework::Generic);
    assert_eq!(
        part(&generic, &m, SegmentKind::Overhead, "deepspeed_buckets"),
        0.0
    );
}

/// FSDP shards everything (FULL_SHARD) over fp32 masters: the generic ZeRO-3 plan, nothing
/// added.
#[test]
fn fsdp_is_a_full_shard_in_mixed_precision() {
    let m = model("llama-3.1-8b");
    let sc = training(Method::Full, Framework::Fsdp);
    assert_eq!((sc.zero, sc.training_precision), (3, TrainingPrecision::Mixed));
    let generic = training(Method::Full, Framework::Generic);
    assert_eq!(breakdown(&m, &sc).total(), breakdown(&m, &generic).total());
}

/// torchtune's recipes train in pure bf16: AdamW's two states are 16-bit, 4 B a parameter
/// (1,235,814,400 × 4 for Llama 3.2 1B), where mixed precision keeps 12 (two fp32 states and
/// the fp32 master). Its chunked cross-entropy leaves no logits tensor.
#[test]
fn torchtune_trains_in_pure_bf16_with_chunked_cross_entropy() {
    let m = model("llama-3.2-1b");
    let sc = training(Method::Full, Framework::Torchtune);
    assert_eq!(sc.training_precision, TrainingPrecision::Bf16);
    assert!(sc.fused_ce && sc.checkpointing && !sc.activation_offload && !sc.compile);
    let params = m.params().total as f64;
    assert_eq!(breakdown(&m, &sc).get(SegmentKind::Optimizer), params * 4.0);
    let generic = training(Method::Full, Framework::Generic);
    assert_eq!(breakdown(&m, &generic).get(SegmentKind::Optimizer), params * 12.0);
    assert_eq!(part(&sc, &m, SegmentKind::Activations, "logits"), 0.0);
}

/// torchtitan checkpoints selectively (its op policy): the layers keep
/// `selective_bytes_per_token` each.
#[test]
fn torchtitan_checkpoints_selectively() {
    let m = model("llama-3.1-8b");
    let sc = training(Method::Full, Framework::Torchtitan);
    assert!(sc.checkpointing && sc.selective_checkpointing);
    // Input h, q, v (kv width), w1 (I), w2 output h, attention output q: 2 B each, + LSE 4·a.
    let per_token = 2.0 * (4096.0 + 4096.0 + 1024.0 + 14336.0 + 4096.0 + 4096.0) + 4.0 * 32.0;
    let layer = vramfit::engine::memory::calibrated::layer_activation_bytes_per_token(&m.arch, &sc) * 2048.0;
    assert_eq!(
        part(&sc, &m, SegmentKind::Activations, "layers"),
        per_token * 2048.0 * 32.0 + layer
    );
}

/// Unsloth's notebooks: rank-16 adapters on every linear of Llama 3.1 8B (41,943,040
/// parameters, as PEFT prints), 8-bit AdamW (2 B each), checkpoints offloaded to RAM.
#[test]
fn unsloth_offloads_checkpoints_and_uses_8bit_adamw() {
    let m = model("llama-3.1-8b");
    let sc = training(Method::Qlora, Framework::Unsloth);
    assert_eq!(
        (sc.optimizer, sc.lora_targets),
        (Optimizer::AdamW8bit, LoraTargets::All)
    );
    assert!(sc.activation_offload && sc.fused_ce && sc.checkpointing);
    let b = breakdown(&m, &sc);
    assert_eq!(b.get(SegmentKind::Optimizer), 41_943_040.0 * 2.0);
    // 30 of the 32 checkpoints (2·4096·2048 B each) are in host memory.
    assert_eq!(b.host_bytes, 30.0 * 2.0 * 4096.0 * 2048.0);
}

/// The HF Trainer does not checkpoint unless told (gradient_checkpointing = False).
#[test]
fn transformers_trains_without_checkpointing_by_default() {
    let m = model("llama-3.2-1b");
    let sc = training(Method::Lora, Framework::Transformers);
    assert!(!sc.checkpointing && !sc.fused_ce);
    let per_layer =
        vramfit::engine::memory::calibrated::layer_activation_bytes_per_token(&m.arch, &sc) * 2048.0;
    assert_eq!(
        part(&sc, &m, SegmentKind::Activations, "layers"),
        per_layer * 16.0
    );
}

#[test]
fn a_flag_wins_over_the_preset_and_a_framework_that_does_not_run_the_method_is_an_error() {
    let out = common::vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--framework",
            "llama.cpp",
            "--context",
            "8192",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["scenario"];
    assert_eq!(s["framework"], "llama.cpp");
    assert_eq!(s["context"], 8192, "the flag, not the preset's 4096");
    assert_eq!(s["ubatch"], 512);
    assert_eq!(s["flash_attention"], false);
    let preset = s["framework_preset"].as_array().unwrap();
    assert!(preset.iter().any(|p| p["flag"] == "ubatch"
        && p["value"] == "512"
        && p["source"].as_str().unwrap().contains("common.h")));
    let out = common::vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--method",
            "full",
            "--framework",
            "vllm",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("vLLM serves models and does not fine-tune them"),
        "{err}"
    );
}
