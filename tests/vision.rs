//! Vision-language models: the image encoder counted exactly, kept 16-bit beside any format
//! of the language model, its tokens per image (fixed, or by the image's size), images as part
//! of a request's context, and a measured run.

mod common;

use common::vramfit;
use vramfit::catalog::Catalog;
use vramfit::engine::memory::{SegmentKind, breakdown};
use vramfit::engine::{Scenario, WeightPrecision};

fn model(id: &str) -> vramfit::engine::Model {
    Catalog::embedded().unwrap().model(id).unwrap().clone()
}

/// CLIP ViT-L/14 at 336 px, written out from transformers' modeling_clip.py: a bias-free patch
/// convolution, the class and position embeddings (577 positions), the pre-LayerNorm, 24
/// layers of q/k/v/o with biases, two LayerNorms and a biased MLP, the post-LayerNorm; then
/// LLaVA's projector 1024 → 4096 → 4096 with biases.
#[test]
fn llava_1_5_counts_its_encoder_by_hand_and_totals_the_published_count() {
    let (d, f, layers, patch, positions) = (1024u64, 4096u64, 24u64, 14u64, 577u64);
    let per_layer = 4 * (d * d + d) + 2 * 2 * d + (d * f + f) + (f * d + d);
    let tower = 3 * patch * patch * d + d + positions * d + 2 * d + layers * per_layer + 2 * d;
    assert_eq!(tower, 303_507_456);
    let projector = (1024 * 4096 + 4096) + (4096 * 4096 + 4096);
    let m = model("llava-1.5-7b");
    let v = m.vision.unwrap();
    assert_eq!(v.params, tower + projector);
    // LlavaForConditionalGeneration's published count (indexed code ci:4065502446).
    assert_eq!(m.params().total + v.params, 7_063_427_072);
    assert_eq!(v.tokens_for(336), 576);
    assert_eq!(v.tokens_for(4000), 576, "fixed, whatever the image");
}

/// The two other kinds: Gemma 3's fixed 256 tokens, Qwen2.5-VL's one token per 28 × 28 pixels
/// within 4..16,384; both totals the published ones (ci:71142266638, ci:49095663873).
#[test]
fn gemma_3_and_qwen2_5_vl_total_their_published_counts_and_tokens() {
    let g = model("gemma-3-4b-vision");
    assert_eq!(g.params().total + g.vision.unwrap().params, 4_300_079_472);
    assert_eq!(g.vision.unwrap().tokens_for(1024), 256);
    let q = model("qwen2.5-vl-7b");
    let v = q.vision.unwrap();
    assert_eq!(q.params().total + v.params, 8_292_166_656);
    // 1,024 px: 1024 / 28 = 36.6 → 37 a side → 1,369 tokens (smart_resize rounds each side).
    assert_eq!(v.tokens_for(1024), 37 * 37);
    assert_eq!(v.tokens_for(448), 16 * 16);
    assert_eq!(v.tokens_for(28), 4, "at least min_pixels' 4 tokens");
    assert_eq!(v.tokens_for(8000), 16_384, "at most max_pixels' 16,384");
}

/// The encoder's bytes join the weights in 16 bits whatever the language model's format,
/// are not read per generated token, and are frozen in a fine-tune (no gradient or optimizer
/// state for them).
#[test]
fn the_encoder_is_16_bit_resident_and_not_read_per_token() {
    let llava = model("llava-1.5-7b");
    let mut text = llava.clone();
    text.vision = None;
    let enc = 324_487_168.0 * 2.0;
    for weights in [WeightPrecision::Bf16, WeightPrecision::Q4KM, WeightPrecision::Fp8] {
        let sc = Scenario::seed_inference(weights).calibrated();
        let (with, without) = (breakdown(&llava, &sc), breakdown(&text, &sc));
        let gained = with.get(SegmentKind::Weights) - without.get(SegmentKind::Weights);
        assert!((gained - enc).abs() < 1.0, "{weights:?}: {gained}");
        assert_eq!(with.decode_bytes_per_token, without.decode_bytes_per_token);
        assert!(
            with.segment(SegmentKind::Weights)
                .unwrap()
                .formula
                .contains("+ image encoder 324,487,168 params × 2 B = 0.65 GB")
        );
    }
    let sc = Scenario::seed_training(vramfit::engine::Method::Lora).calibrated();
    let (with, without) = (breakdown(&llava, &sc), breakdown(&text, &sc));
    for frozen in [
        SegmentKind::Gradients,
        SegmentKind::Optimizer,
        SegmentKind::Adapter,
    ] {
        assert_eq!(with.get(frozen), without.get(frozen), "{frozen:?}");
    }
}

/// Images are part of a request's context: the KV cache is the context's, and each image's
/// embeddings are held until prefill (tokens × hidden × 2 B a request).
#[test]
fn images_are_context_tokens_and_their_embeddings_are_held() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let out = vramfit()
            .args([
                "plan",
                "-m",
                "llava-1.5-7b",
                "--gpu",
                "rtx-4090",
                "--context",
                "4096",
                "--json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let seg = |v: &serde_json::Value, name: &str| {
        v["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["bytes"]
            .as_f64()
            .unwrap()
    };
    let (none, two) = (json(&[]), json(&["--images", "2"]));
    assert_eq!(seg(&none, "kv_cache"), seg(&two, "kv_cache"));
    assert_eq!(
        seg(&two, "activations") - seg(&none, "activations"),
        2.0 * 576.0 * 4096.0 * 2.0
    );
    assert_eq!(two["model"]["vision_params"], 324_487_168u64);
    assert_eq!(two["model"]["tokens_per_image"], 576);
    let text = model("llama-3.1-8b");
    assert_eq!(text.vision, None);
    // Asked of a text model, or more image tokens than the context holds: said, exit 2.
    let bad = vramfit()
        .args(["plan", "-m", "llama-3.1-8b", "--images", "1"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--images needs a vision-language model"));
    let bad = vramfit()
        .args(["plan", "-m", "llava-1.5-7b", "--images", "8", "--context", "4096"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("8 images × 576 tokens = 4,608 leave no room in a context of 4,096 tokens")
    );
    // A text model's JSON says it has no encoder.
    let out = vramfit()
        .args(["plan", "-m", "llama-3.1-8b", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["vision_params"], 0);
    assert!(v["model"]["tokens_per_image"].is_null());
}

/// A published run: vLLM 0.8.2 serving Qwen2.5-VL-7B-Instruct in BF16 on an H100 SXM 80GB
/// (QwenLM/Qwen3-VL#1057): "Model loading took 15.6271 GB" (GiB: vLLM divides by 2^30),
/// the language model and the encoder. The plan's weights are the parameters' 2 bytes,
/// 1.2 % under that figure (vLLM's measured load also holds rotary caches and buffers).
#[test]
fn qwen2_5_vl_weights_match_a_measured_vllm_load() {
    let m = model("qwen2.5-vl-7b");
    let sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    let weights = breakdown(&m, &sc).get(SegmentKind::Weights);
    assert_eq!(weights, 8_292_166_656.0 * 2.0);
    let measured = 15.6271 * 1_073_741_824.0;
    let error = weights / measured - 1.0;
    assert!((-0.015..0.0).contains(&error), "{error}");
}

/// The planner's Images row, on a vision model only: turned to 2, its plan is the command
/// line's with `--images 2`.
#[test]
fn the_planners_images_row_plans_what_the_flag_plans() {
    use vramfit::tui::app::Knob;
    let mut app = vramfit::tui::states::fresh_app("default");
    app.select_model("llama-3.1-8b");
    assert!(
        !app.knobs().contains(&Knob::Images),
        "a text model has no Images row"
    );
    app.select_model("llava-1.5-7b");
    assert!(app.knobs().contains(&Knob::Images));
    app.change(Knob::Images, true);
    app.change(Knob::Images, true);
    assert_eq!(app.scenario.images, 2);
    let out = vramfit()
        .args(["plan", "-m", "llava-1.5-7b", "--images", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        cli["total_bytes"].as_f64().unwrap(),
        app.plan.total_bytes().round()
    );
}

/// A GGUF mmproj file as llama.cpp's converter writes one: `general.architecture = "clip"`,
/// the image and patch sizes, the projector type, f16 tensors. Returns its parameters.
fn write_mmproj(path: &std::path::Path, projector: &str, image: u32, patch: u32) -> u64 {
    let mut b = b"GGUF".to_vec();
    let string = |b: &mut Vec<u8>, s: &str| {
        b.extend((s.len() as u64).to_le_bytes());
        b.extend(s.as_bytes());
    };
    let d = 64u64;
    let tensors: Vec<(&str, Vec<u64>)> = vec![
        (
            "v.patch_embd.weight",
            vec![u64::from(patch), u64::from(patch), 3, d],
        ),
        ("v.position_embd.weight", vec![d, 577]),
        ("v.blk.0.attn_q.weight", vec![d, d]),
        ("v.blk.0.attn_k.weight", vec![d, d]),
        ("v.blk.0.attn_v.weight", vec![d, d]),
        ("v.blk.0.attn_out.weight", vec![d, d]),
        ("v.blk.0.ffn_up.weight", vec![d, 4 * d]),
        ("v.blk.0.ffn_down.weight", vec![4 * d, d]),
        ("mm.0.weight", vec![d, 128]),
        ("mm.2.weight", vec![128, 128]),
    ];
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend(4u64.to_le_bytes());
    string(&mut b, "general.architecture");
    b.extend(8u32.to_le_bytes());
    string(&mut b, "clip");
    string(&mut b, "clip.projector_type");
    b.extend(8u32.to_le_bytes());
    string(&mut b, projector);
    for (k, v) in [
        ("clip.vision.image_size", image),
        ("clip.vision.patch_size", patch),
    ] {
        string(&mut b, k);
        b.extend(4u32.to_le_bytes());
        b.extend(v.to_le_bytes());
    }
    let mut params = 0;
    for (name, dims) in &tensors {
        string(&mut b, name);
        b.extend((dims.len() as u32).to_le_bytes());
        for x in dims {
            b.extend(x.to_le_bytes());
        }
        b.extend(1u32.to_le_bytes()); // F16
        b.extend(0u64.to_le_bytes());
        params += dims.iter().product::<u64>();
    }
    b.resize(b.len() + params as usize * 2, 0);
    std::fs::write(path, b).unwrap();
    params
}

/// `--mmproj FILE` makes any model a vision-language one: the file's parameters (its tensor
/// headers) and its tokens per image as llama.cpp's clip loader computes them (LLaVA's
/// MLP: every patch; Gemma 3: pooled 4 × 4; Qwen2.5-VL: one per 28 × 28 pixels, 8–4,096).
#[test]
fn a_gguf_mmproj_gives_the_encoder_and_its_tokens() {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mmproj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = |file: &std::path::Path, extra: &[&str]| -> serde_json::Value {
        let out = vramfit()
            .args(["plan", "-m", "llama-3.1-8b", "--json", "--mmproj"])
            .arg(file)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    for (projector, image, patch, tokens, side) in [
        ("mlp", 336, 14, 576, 1024),
        ("gemma3", 896, 14, 256, 1024),
        ("qwen2.5vl_merger", 560, 14, 37 * 37, 1024),
        ("qwen2.5vl_merger", 560, 14, 4096, 4000),
    ] {
        let file = dir.join(format!("{projector}-{side}.gguf"));
        let params = write_mmproj(&file, projector, image, patch);
        let v = plan(
            &file,
            &[
                "--images",
                "1",
                "--image-size",
                &side.to_string(),
                "--context",
                "8192",
            ],
        );
        assert_eq!(v["model"]["vision_params"], params, "{projector}");
        let held = v["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "weights")
            .unwrap()["formula"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(held.contains("image encoder"), "{held}");
        let vision = vramfit::catalog::mmproj::mmproj_vision(&file).unwrap();
        assert_eq!(vision.tokens_for(side), tokens, "{projector} at {side} px");
        // The JSON states the tokens of the plan's own image side.
        let json_tokens = v["model"]["tokens_per_image"].as_u64().unwrap();
        assert_eq!(json_tokens, u64::from(tokens), "{projector}");
    }
    // A model GGUF is no mmproj.
    let out = vramfit()
        .args(["plan", "-m", "llama-3.1-8b", "--mmproj", "Cargo.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// config.json's `vision_config` counted from the modeling files' shapes: Gemma 3's SigLIP
/// tower and projector, Qwen2.5-VL's ViT and merger, each closing on the published total
/// with the language model; a tower of another kind is said not counted.
#[test]
fn a_configs_vision_tower_is_counted_from_its_shape() {
    let dir = |name: &str| format!("{}/tests/fixtures/hf/{name}", env!("CARGO_MANIFEST_DIR"));
    let gemma = vramfit::catalog::hf::load(std::path::Path::new(&dir("gemma-3-4b-it"))).unwrap();
    // SigLIP so400m/14 at 896 px: 3·14·14·1152 + 1152, 4,096 positions, 27 layers, the post
    // LayerNorm; the projector 1152 × 2560 and its RMSNorm.
    let (d, f, l) = (1152u64, 4304u64, 27u64);
    let layer = 4 * d * d + 2 * d * f + 9 * d + f;
    let siglip = 3 * 14 * 14 * d + d + 4096 * d + l * layer + 2 * d;
    assert_eq!(siglip, 416_866_032);
    let v = gemma.vision.unwrap();
    assert_eq!(v.params, siglip + d * 2560 + d);
    assert_eq!(gemma.params().total + v.params, 4_300_079_472);
    assert_eq!(v.tokens_for(1024), 256);
    let qwen = vramfit::catalog::hf::load(std::path::Path::new(&dir("qwen2.5-vl-7b"))).unwrap();
    // A 3-D patch convolution of 2 frames, 32 blocks of width 1,280 (gated MLP 3,420), the
    // 2 × 2 merger 5,120 → 5,120 → 3,584.
    let (d, f) = (1280u64, 3420u64);
    let block = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * (d * f + f) + (f * d + d);
    let merger = d + (5120 * 5120 + 5120) + (5120 * 3584 + 3584);
    let v = qwen.vision.unwrap();
    assert_eq!(v.params, 3 * 2 * 14 * 14 * d + 32 * block + merger);
    assert_eq!(v.params, 676_550_144);
    assert_eq!(qwen.params().total + v.params, 8_292_166_656);
    assert_eq!(v.tokens_for(1024), 37 * 37);
    // The catalog's entries are the same encoders.
    assert_eq!(model("gemma-3-4b-vision").vision, gemma.vision);
    assert_eq!(model("qwen2.5-vl-7b").vision.unwrap().params, v.params);
    // A tower the importer has no shape for: said, the language model planned alone.
    let text = std::fs::read_to_string(format!("{}/config.json", dir("qwen2.5-vl-7b")))
        .unwrap()
        .replace(
            "\"model_type\": \"qwen2_5_vl\",\n    \"num_heads\"",
            "\"model_type\": \"mystery_vit\",\n    \"num_heads\"",
        );
    let m = vramfit::catalog::hf::from_str("config.json", &text, "x").unwrap();
    assert!(m.vision.is_none());
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("a 'mystery_vit' vision tower is not counted")),
        "{:?}",
        m.warnings
    );
}

/// One images rule for every path: 8 LLaVA images (4,608 tokens) in a 4,096-token context
/// are refused by the command line and lowered to 7 by the planner (a plan file, a turn of
/// Context or a model switch all come through the same check), and the planner's 7 plan what
/// the command line's `--images 7` plans.
#[test]
fn images_that_fill_the_context_are_one_rule_for_the_cli_and_the_planner() {
    let refused = vramfit()
        .args(["plan", "-m", "llava-1.5-7b", "--images", "8", "--context", "4096"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(
        why.contains("8 images × 576 tokens = 4,608 leave no room in a context of 4,096 tokens"),
        "{why}"
    );

    let mut app = vramfit::tui::states::fresh_app("default");
    app.select_model("llava-1.5-7b");
    let mut sc = app.scenario.clone();
    sc.images = 8;
    sc.context = 4096;
    app.set_scenario(sc);
    assert_eq!(app.scenario.images, 7);
    let status = app.status.clone().unwrap_or_default();
    assert!(
        status.contains("8 images × 576 tokens leave no room in a context of 4,096 tokens: lowered to 7"),
        "{status}"
    );
    let out = vramfit()
        .args([
            "plan",
            "-m",
            "llava-1.5-7b",
            "--images",
            "7",
            "--context",
            "4096",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        cli["total_bytes"].as_f64().unwrap(),
        app.plan.total_bytes().round()
    );

    // Lowering the context under the images lowers them again.
    use vramfit::tui::app::Knob;
    while app.scenario.context > 2048 {
        app.change(Knob::Context, false);
    }
    assert!(
        u64::from(app.scenario.images) * 576 < app.scenario.context,
        "{} images in {}",
        app.scenario.images,
        app.scenario.context
    );
}

/// A dynamic-resolution model's processor bounds its tokens per image: Qwen2.5-VL's published
/// `preprocessor_config.json` (3,136–12,845,056 pixels) gives 4–16,384 tokens, a user's
/// lowered `max_pixels` of 1,003,520 (1,280 × 28 × 28) caps a 1,024-pixel image at 1,280
/// tokens instead of 37 × 37 = 1,369, and the plan's JSON and the context check use the
/// cap; a broken processor file is said and the defaults stand.
#[test]
fn the_processor_config_bounds_the_tokens_per_image() {
    let fixture = format!("{}/tests/fixtures/hf/qwen2.5-vl-7b", env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vramfit-processor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(format!("{fixture}/config.json"), dir.join("config.json")).unwrap();
    let processor = dir.join("preprocessor_config.json");
    let load = || vramfit::catalog::hf::load(&dir).unwrap();

    std::fs::write(
        &processor,
        r#"{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "merge_size": 2}"#,
    )
    .unwrap();
    let published = load();
    let v = published.vision.unwrap();
    assert_eq!((v.min_tokens, v.max_tokens), (Some(4), Some(16_384)));
    assert!(
        published.warnings.iter().any(
            |w| w == "tokens per image from preprocessor_config.json: 4–16,384 (3,136–12,845,056 pixels)"
        ),
        "{:?}",
        published.warnings
    );

    std::fs::write(
        &processor,
        r#"{"size": {"shortest_edge": 3136, "longest_edge": 1003520}}"#,
    )
    .unwrap();
    let capped = load().vision.unwrap();
    assert_eq!(capped.max_tokens, Some(1280));
    assert_eq!(capped.tokens_for(1024), 1280);
    assert_eq!(capped.tokens_for(512), 18 * 18);
    let json = |images: &str, context: &str| {
        vramfit()
            .args(["plan", "-m"])
            .arg(&dir)
            .args(["--images", images, "--context", context, "--json"])
            .output()
            .unwrap()
    };
    let out = json("2", "4096");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["tokens_per_image"], 1280);
    // 4 × 1,280 = 5,120 tokens do not leave room in 4,096.
    let refused = json("4", "4096");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("4 images × 1280 tokens = 5,120"));

    std::fs::write(&processor, "{\"min_pixels\": 3136,").unwrap();
    let broken = load();
    assert_eq!(broken.vision.unwrap().max_tokens, Some(16_384));
    assert!(
        broken
            .warnings
            .iter()
            .any(|w| w.starts_with("preprocessor_config.json is not used (not JSON")),
        "{:?}",
        broken.warnings
    );
    std::fs::write(&processor, r#"{"min_pixels": 5000, "max_pixels": 10}"#).unwrap();
    assert!(
        load()
            .warnings
            .iter()
            .any(|w| w.contains("its pixel bounds 5000–10 are not a range"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The plan's JSON gives the tokens per image at the plan's own image side.
#[test]
fn the_json_tokens_per_image_follow_the_image_size() {
    let out = vramfit()
        .args([
            "plan",
            "-m",
            "qwen2.5-vl-7b",
            "--images",
            "1",
            "--image-size",
            "448",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["tokens_per_image"], 16 * 16);
}
