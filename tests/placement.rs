//! The machine you have: placements over GPUs and the host's RAM, checked against hand
//! computations of llama.cpp's, Ollama's and vLLM's own rules, and held equal across the
//! views that show them (JSON, text, the judge's limits).

mod common;

use common::vramfit;
use vramfit::catalog::Catalog;
use vramfit::engine::hardware::host::Host;
use vramfit::engine::placement::layers::SPILL_MARGIN_BYTES;
use vramfit::engine::placement::{DeviceKind, Strategy};
use vramfit::engine::{Framework, Gpu, Scenario, WeightPrecision, plan};

fn catalog() -> &'static Catalog {
    use std::sync::OnceLock;
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::embedded().unwrap())
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = vramfit().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text(args: &[&str]) -> String {
    let out = vramfit().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn gpu(id: &str) -> Gpu {
    let c = catalog();
    c.gpus[c.gpu_index(id).unwrap()].clone()
}

fn close(a: f64, b: f64, within: f64) -> bool {
    (a - b).abs() <= within
}

/// llama.cpp on one card and the host: `framework` preset settled, a host of `ram_gb`.
fn llama_cpp(weights: WeightPrecision, context: u64, ram_gb: f64, bandwidth: Option<f64>) -> Scenario {
    let mut sc = Scenario::seed_inference(weights).calibrated();
    sc.framework = Framework::LlamaCpp;
    vramfit::engine::runtimes::settle::settle(&mut sc, &Default::default());
    sc.weights = weights;
    // A context given as a user gives one: `--fit` and Ollama's tiers leave it.
    sc.context = context;
    sc.card_context_default = false;
    sc.host = Some(Host::new(ram_gb, bandwidth));
    sc
}

// Llama 3.3 70B (80 layers, hidden 8192, vocab 128,256, 8 KV heads × 128) in Q4_K_M
// (llama.cpp's mix, averaged over the weights as the placement spreads them) on one RTX 4090
// with 64 GB of RAM at 89.6 GB/s, context 4,096.
const PARAMS_70B: f64 = 70_553_706_496.0;
const EMBEDDING_70B: f64 = 128_256.0 * 8192.0;
/// Q4_K_M's bytes a parameter for Llama 3.3 70B: Q6_K (6.5625 bits) for the output and for
/// attn_v (8192 × 1024) and ffn_down (28,672 × 8192) in 40 of the 80 layers, F32 for the 161
/// norms, Q4_K (4.5 bits) for the rest.
fn bytes_per_param() -> f64 {
    let q6 = 40.0 * (8192.0 * 1024.0 + 28_672.0 * 8192.0) + EMBEDDING_70B;
    let norms = 161.0 * 8192.0;
    let q4 = PARAMS_70B - q6 - norms;
    (q4 * 4.5 + q6 * 6.5625 + norms * 32.0) / 8.0 / PARAMS_70B
}

#[test]
fn a_70b_q4_k_m_on_one_24_gb_card_and_64_gb_of_ram_by_hand() {
    let model = vramfit::cli::resolve_model(catalog(), "llama-3.3-70b", false).unwrap();
    let sc = llama_cpp(WeightPrecision::Q4KM, 4096, 64.0, Some(89.6));
    let card = gpu("rtx-4090");
    let p = plan(&model, std::slice::from_ref(&card), &sc, false);
    let o = &p.options[0];
    let placed = o.placement.as_ref().expect("a placement");
    assert!(o.verdict.is_fit(), "the runtime would run it with layers in RAM");
    assert_eq!(placed.strategy, Strategy::Layers);

    // One repeating layer: (all params − input embedding − lm_head − final norm) ÷ 80.
    let layer = (PARAMS_70B - 2.0 * EMBEDDING_70B - 8192.0) / 80.0 * bytes_per_param();
    let kv_layer = 2.0 * 8.0 * 128.0 * 4096.0 * 2.0; // K and V, fp16, one sequence
    // llama.cpp's compute buffer without flash attention, n_ubatch 512 over 4,096 cells:
    // f32 scores 512 × 4096 × 64 heads, f32 mask, four f32 rows of 8192.
    let attention = 512.0 * 4096.0 * 64.0 * 4.0 + 512.0 * 4096.0 * 4.0 + 4.0 * 8192.0 * 4.0 * 512.0;
    let logits = 512.0 * (128_256.0 + 8192.0) * 4.0;
    let room = card.memory_visible_bytes.unwrap() - SPILL_MARGIN_BYTES;
    // The most layers (no output layer: it would need the logits beside) under the room.
    let n = ((room - attention - 0.5e9) / (layer + kv_layer)).floor();
    assert_eq!(n, 43.0);
    assert_eq!(placed.gpu_layers, 43, "-ngl counts the GPU's layers");
    assert_eq!(
        placed.total_layers, 81,
        "80 layers and the output layer, as llama.cpp counts"
    );
    let g = &placed.devices[0];
    assert_eq!((g.kind, g.layers), (DeviceKind::Gpu, 43));
    assert!(
        close(g.parts.weights, 43.0 * layer, 1e3),
        "{} vs {}",
        g.parts.weights,
        43.0 * layer
    );
    assert!(
        close(g.parts.kv_cache, 43.0 * kv_layer, 1.0),
        "the KV of a layer lives with it"
    );
    assert!(
        close(g.parts.activations, attention, 1.0),
        "one compute buffer per device"
    );
    assert!(close(g.parts.overhead, 0.5e9, 1.0));

    // The host: 37 layers, the output layer (lm_head and norm) and the token embedding,
    // their KV, and its own compute buffer (it computes the logits: the larger peak).
    let h = placed.host().unwrap();
    assert_eq!(h.layers, 38);
    let host_weights =
        37.0 * layer + (EMBEDDING_70B + 8192.0) * bytes_per_param() + EMBEDDING_70B * bytes_per_param();
    assert!(
        close(h.parts.weights, host_weights, 1e3),
        "{} vs {host_weights}",
        h.parts.weights
    );
    assert!(close(h.parts.kv_cache, 37.0 * kv_layer, 1.0));
    assert!(close(h.parts.activations, attention.max(logits), 1.0));
    assert!(close(h.capacity_bytes, 64e9, 1.0));

    // Decode: each device's reads ÷ its bandwidth, in turn.
    let s = placed.speed.as_ref().unwrap();
    let gpu_s = (43.0 * layer + 43.0 * kv_layer) / 1008e9;
    let host_s = (37.0 * layer + (EMBEDDING_70B + 8192.0) * bytes_per_param() + 37.0 * kv_layer) / 89.6e9;
    let pcie_s = 8192.0 * 4.0 / 32e9;
    assert!(close(s.seconds_per_step, gpu_s + host_s + pcie_s, 1e-6), "{s:?}");
    assert_eq!(s.bound, "host RAM");
    assert!(close(
        o.decode_tokens_per_s.unwrap(),
        1.0 / (gpu_s + host_s + pcie_s),
        1e-3
    ));
    assert_eq!(placed.runtime_flags, "-ngl 43 -c 4096");
    // Prefill of the 1,024-token prompt: the card computes every layer (its own, and the
    // RAM's as llama.cpp offloads large batches), copying the RAM's weights over PCIe for
    // each of the two n_ubatch passes.
    let flops = card.bf16_tflops.unwrap() * 1e12;
    let active = model.params().active as f64;
    let crossing = h.parts.weights - EMBEDDING_70B * bytes_per_param();
    let prefill = 2.0 * active * 1024.0 / flops + 2.0 * crossing / 32e9;
    assert!(
        close(s.prefill_seconds.unwrap(), prefill, 1e-9),
        "{:?} vs {prefill}",
        s.prefill_seconds
    );
    assert_eq!(
        o.roofline.unwrap().prefill_seconds,
        s.prefill_seconds,
        "the option's TTFT is the placement's"
    );
}

#[test]
fn the_text_and_the_json_say_the_same_placement() {
    let args = [
        "plan",
        "-m",
        "llama-3.3-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--ram",
        "64",
        "--ram-bandwidth",
        "ddr5-5600-dual",
    ];
    let j = json(&args);
    let o = &j["options"][0];
    assert_eq!(o["runtime_flags"], "-ngl 43 -c 4096");
    assert_eq!(o["placement_strategy"], "layers");
    assert_eq!(j["scenario"]["ram_gb"], 64.0);
    assert_eq!(j["scenario"]["ram_bandwidth_gbs"], 89.6);
    assert_eq!(j["scenario"]["ram_platform"], "ddr5-5600-dual");
    assert_eq!(j["scenario"]["gpus"][0]["id"], "rtx-4090");
    let devices = o["placement"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    for key in [
        "device",
        "kind",
        "count",
        "layers",
        "experts_on_host",
        "bytes",
        "capacity_bytes",
        "free_bytes",
    ] {
        assert!(devices[0].get(key).is_some(), "placement entries carry {key}");
    }
    let t = text(&args);
    assert!(t.contains("run with: -ngl 43 -c 4096"), "{t}");
    assert!(t.contains("43 of 81 layers"), "{t}");
    assert!(
        t.contains("GeForce RTX 4090 + RAM"),
        "the table says the plan spills: {t}"
    );
    let tps = o["decode_tokens_per_s"].as_f64().unwrap();
    assert!(t.contains(&format!("decode ≤ {tps:.1} tokens/s")), "{t}");
}

#[test]
fn the_longest_context_with_a_host_is_where_the_placement_stops_fitting() {
    let model = vramfit::cli::resolve_model(catalog(), "llama-3.3-70b", false).unwrap();
    let sc = llama_cpp(WeightPrecision::Q4KM, 4096, 64.0, Some(89.6));
    let card = gpu("rtx-4090");
    let p = plan(&model, std::slice::from_ref(&card), &sc, false);
    let max = p.options[0].limits.max_context.expect("a longest context");
    assert!(max > 4096, "the host holds more context than the card alone");
    for (context, fits) in [(max, true), (max + 16, false)] {
        let at = Scenario {
            context,
            ..sc.clone()
        };
        let q = plan(&model, std::slice::from_ref(&card), &at, false);
        if max < model.max_context {
            assert_eq!(q.options[0].verdict.is_fit(), fits, "context {context}");
        }
    }
}

#[test]
fn moe_experts_go_to_the_cpu_first_the_fewest_layers_that_let_the_card_hold_the_rest() {
    let model = vramfit::cli::resolve_model(catalog(), "qwen3-30b-a3b", false).unwrap();
    let sc = llama_cpp(WeightPrecision::Q4KM, 32_768, 32.0, Some(89.6));
    let card = gpu("rtx-4060-ti-16gb");
    let p = plan(&model, std::slice::from_ref(&card), &sc, false);
    let placed = p.options[0].placement.as_ref().unwrap();
    assert_eq!(placed.strategy, Strategy::Experts);
    assert_eq!(placed.gpu_layers, 49, "every layer's attention stays on the GPU");
    let k = placed.cpu_moe_layers;
    assert!(
        placed.runtime_flags.contains(&format!("--n-cpu-moe {k}")),
        "{}",
        placed.runtime_flags
    );
    // 128 experts of 3 × 2048 × 768 per layer, at Q4_K_M's bits.
    let total = model.params().total as f64;
    let per_param =
        vramfit::engine::memory::calibrated::model_weight_bytes(&model, WeightPrecision::Q4KM) / total;
    let experts = 128.0 * 3.0 * 2048.0 * 768.0 * per_param;
    let h = placed.host().unwrap();
    assert_eq!(h.experts_on_host, k);
    assert!(close(
        h.parts.weights,
        k as f64 * experts + 151_936.0 * 2048.0 * per_param,
        1e3
    ));
    // One layer fewer and the card would not hold the rest.
    let mut fewer = sc.clone();
    fewer.pin.cpu_moe = Some(k - 1);
    let q = plan(&model, std::slice::from_ref(&card), &fewer, false);
    let g = &q.options[0].placement.as_ref().unwrap().devices[0];
    assert!(
        g.bytes > g.capacity_bytes - SPILL_MARGIN_BYTES,
        "{} layers' experts are not enough",
        k - 1
    );
    // Decode reads only the active experts (8 of 128) of the layers in RAM.
    let s = placed.speed.as_ref().unwrap();
    let host_part = s.parts.iter().find(|x| x.device == "host RAM").unwrap();
    assert!(close(host_part.bytes, k as f64 * experts * 8.0 / 128.0, 1e3));
}

#[test]
fn every_expert_on_the_cpu_is_ot_exps_cpu() {
    let model = vramfit::cli::resolve_model(catalog(), "gpt-oss-120b", false).unwrap();
    let mut sc = llama_cpp(WeightPrecision::Mxfp4, 8192, 96.0, Some(89.6));
    sc.pin.cpu_moe = Some(36);
    let card = gpu("rtx-4090");
    let p = plan(&model, std::slice::from_ref(&card), &sc, false);
    let o = &p.options[0];
    let placed = o.placement.as_ref().unwrap();
    assert_eq!(placed.runtime_flags, "-ngl 37 -ot exps=CPU -c 8192");
    assert!(o.verdict.is_fit(), "{:?}", placed.devices);
    assert!(
        placed.devices[0].bytes < 8e9,
        "attention and the router only: {}",
        placed.devices[0].bytes
    );
}

#[test]
fn a_4090_and_a_3090_split_by_layer_in_proportion_to_their_memory() {
    let out = json(&[
        "plan",
        "-m",
        "llama-3.3-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090,rtx-3090",
        // A context given: -c unset, --fit would fill the pair to 1 GiB free.
        "--context",
        "4096",
    ]);
    let o = &out["options"][0];
    assert_eq!(out["options"].as_array().unwrap().len(), 1, "a rig is one option");
    let devices = o["placement"].as_array().unwrap();
    // llama.cpp's split: layer il goes to the first card whose cumulative share of free
    // memory exceeds il ÷ 81; the 4090 offers 25.254 GB, the 3090 25.437 GB.
    let share = 25_254_407_700.0 / (25_254_407_700.0 + 25_436_943_811.0);
    let first = (0..81).filter(|il| (*il as f64) / 81.0 < share).count() as u64;
    assert_eq!(devices[0]["layers"], first);
    assert_eq!(devices[1]["layers"], 81 - first);
    assert_eq!(o["runtime_flags"], "-ngl 81 -sm layer -ts 25,25 -c 4096");
    assert_eq!(out["scenario"]["gpus"][1]["id"], "rtx-3090");
    assert_eq!(o["verdict"], "fits");
    // The same rig in the other spelling.
    let again = json(&[
        "plan",
        "-m",
        "llama-3.3-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090 + 1x rtx-3090",
        "--context",
        "4096",
    ]);
    assert_eq!(again["options"][0]["placement"], o["placement"]);
}

#[test]
fn vllm_streams_whole_gib_of_weights_from_ram() {
    let model = vramfit::cli::resolve_model(catalog(), "llama-3.1-8b", false).unwrap();
    let mut sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    sc.framework = Framework::Vllm;
    vramfit::engine::runtimes::settle::settle(&mut sc, &Default::default());
    sc.context = 4096;
    let card = gpu("rtx-3060-12gb");
    let alone = plan(&model, std::slice::from_ref(&card), &sc, false);
    assert!(
        !alone.options[0].verdict.is_fit(),
        "16 GB of weights on a 12 GB card"
    );
    sc.host = Some(Host::new(32.0, None));
    let p = plan(&model, std::slice::from_ref(&card), &sc, false);
    let o = &p.options[0];
    let placed = o.placement.as_ref().unwrap();
    assert_eq!(placed.strategy, Strategy::Streamed);
    let need = p.breakdown.total();
    let usable = card.memory_visible_bytes.unwrap() * sc.gpu_util;
    let gib = ((need - usable) / 1_073_741_824.0).ceil();
    assert_eq!(placed.streamed_bytes_per_card, gib * 1_073_741_824.0);
    assert!(
        placed.runtime_flags.ends_with(&format!("--cpu-offload-gb {gib}")),
        "{}",
        placed.runtime_flags
    );
    assert!(o.verdict.is_fit());
    assert!(close(placed.host().unwrap().bytes, gib * 1_073_741_824.0, 1.0));
    // Each step copies the streamed weights over PCIe 4.0 x16 (32 GB/s).
    let pcie = placed
        .speed
        .as_ref()
        .unwrap()
        .parts
        .iter()
        .find(|x| x.device == "PCIe")
        .unwrap();
    assert!(close(pcie.seconds, gib * 1_073_741_824.0 / 32e9, 1e-9));
}

/// An APU with unified memory (a Strix Halo-like machine): 128 GB, of which the BIOS
/// carve-out gives the GPU 96 GB.
fn unified_apu() -> Gpu {
    Gpu {
        id: "test-apu".into(),
        name: "Test APU".into(),
        memory_gb: 128.0,
        memory_visible_bytes: Some(96e9),
        memory_type: "LPDDR5X unified".into(),
        bandwidth_gbs: 256.0,
        link: vramfit::engine::hardware::gpu::LinkKind::None,
        ..gpu("m4-max-128gb")
    }
}

#[test]
fn a_unified_memory_machine_never_counts_the_same_bytes_twice() {
    let model = vramfit::cli::resolve_model(catalog(), "mixtral-8x22b", false).unwrap();
    let mut sc = llama_cpp(WeightPrecision::Q5KM, 4096, 0.0, None);
    sc.host = None; // the machine is its own host
    let apu = unified_apu();
    let p = plan(&model, std::slice::from_ref(&apu), &sc, false);
    let placed = p.options[0].placement.as_ref().unwrap();
    let g = &placed.devices[0];
    let h = placed.host().expect("the unified pool is the host");
    assert!(
        g.bytes <= 96e9 - SPILL_MARGIN_BYTES + 1.0,
        "the GPU's share bounds the GPU"
    );
    assert!(
        close(h.capacity_bytes, 128e9 - g.bytes, 1.0),
        "the host gets what the GPU left"
    );
    assert!(close(g.bytes + h.capacity_bytes, 128e9, 1.0));
    assert!(placed.offloads(), "{:?}", placed.strategy);
    // The host's reads go at the same memory's bandwidth, and nothing crosses PCIe.
    let s = placed.speed.as_ref().unwrap();
    assert!(s.parts.iter().all(|x| x.device != "PCIe"));
    assert!(s.parts.iter().all(|x| close(x.bytes_per_s, 256e9, 1.0)));
}

#[test]
fn a_mac_with_the_default_wired_limit_spills_and_a_raised_one_does_not() {
    let model = vramfit::cli::resolve_model(catalog(), "mixtral-8x22b", false).unwrap();
    let mac = gpu("m4-max-128gb");
    let mut sc = llama_cpp(WeightPrecision::Q6K, 4096, 128.0, None);
    let default = plan(&model, std::slice::from_ref(&mac), &sc, false);
    let placed = default.options[0].placement.as_ref().unwrap();
    assert!(placed.offloads(), "{:?}", placed.devices);
    assert!(placed.devices[0].capacity_bytes <= mac.memory_visible_bytes.unwrap());
    sc.host.as_mut().unwrap().gpu_limit_bytes = Some(124e9);
    let raised = plan(&model, std::slice::from_ref(&mac), &sc, false);
    let placed = raised.options[0].placement.as_ref().unwrap();
    assert_eq!(placed.strategy, Strategy::AllOnGpu);
    assert!(close(placed.devices[0].capacity_bytes, 124e9, 1.0));
    // The same through the CLI's flag.
    let j = json(&[
        "plan",
        "-m",
        "mixtral-8x22b",
        "--weights",
        "q6_k",
        "--framework",
        "llama.cpp",
        "--gpu",
        "m4-max-128gb",
        "--ram",
        "128",
        "--wired-limit",
        "124",
    ]);
    assert_eq!(j["options"][0]["placement_strategy"], "all-on-gpu");
}

#[test]
fn nonsense_host_flags_are_told_not_panicked() {
    for (args, says) in [
        (vec!["--ram", "-3"], "--ram must be between"),
        (
            vec!["--ram", "64", "--ram-bandwidth", "ddr9"],
            "neither GB/s nor a platform",
        ),
        (vec!["--ram-bandwidth", "50"], "needs --ram"),
        (vec!["--gpu", "rtx-4090,,rtx-3090"], "an empty card"),
        (vec!["--gpu", "0x rtx-4090"], "not a card count"),
        (vec!["--gpu", "rtx-4090,rtx-9999"], "unknown gpu"),
    ] {
        let out = vramfit()
            .args(["plan", "-m", "llama-3.1-8b"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn meminfo_gives_the_available_memory() {
    let text = "MemTotal:       65536000 kB\nMemFree:         1000000 kB\nMemAvailable:   48000000 kB\n";
    assert_eq!(vramfit::detect::parse_meminfo(text), Some(48_000_000.0 * 1024.0));
    assert_eq!(vramfit::detect::parse_meminfo("MemAvailable: lots kB"), None);
    assert_eq!(vramfit::detect::parse_meminfo(""), None);
}

/// Published runs with partial offload (tests/data/offload-runs.toml, each with its quote
/// and link), held against the placement of the same set-up.
fn offload_runs() -> toml::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/offload-runs.toml"
    ))
    .unwrap();
    toml::from_str(&text).unwrap()
}

#[test]
fn every_published_offload_run_has_its_source_and_quote() {
    let runs = offload_runs();
    let runs = runs["run"].as_array().unwrap();
    assert!(runs.len() >= 8, "{} runs", runs.len());
    for r in runs {
        let id = r["id"].as_str().unwrap();
        assert!(r["source_url"].as_str().unwrap().starts_with("https://"), "{id}");
        assert!(
            r["quote"].as_str().unwrap().trim().len() > 40,
            "{id} quotes its log"
        );
    }
}

fn run<'a>(runs: &'a toml::Value, id: &str) -> &'a toml::Value {
    runs["run"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"].as_str() == Some(id))
        .unwrap()
}

#[test]
fn qwen3_30b_a3b_at_30_of_49_layers_matches_llama_cpps_buffers_within_5_percent() {
    let runs = offload_runs();
    let r = run(&runs, "llamacpp-qwen3-30b-a3b-30of49-b5466");
    let mib = |device: &str| r["model_buffer_mib"][device].as_float().unwrap() * 1_048_576.0;
    let model = vramfit::cli::resolve_model(catalog(), "qwen3-30b-a3b", false).unwrap();
    // The printed buffers add up to 17,691 MiB: the Q4_K_M file.
    let mut sc = llama_cpp(WeightPrecision::Q4KM, 4096, 64.0, None);
    sc.pin.gpu_layers = Some(r["ngl"].as_integer().unwrap() as u64);
    let p = plan(&model, &[gpu("rtx-4090")], &sc, false);
    let placed = p.options[0].placement.as_ref().unwrap();
    assert_eq!(placed.runtime_flags, "-ngl 30 -c 4096");
    let on_gpu = placed.devices[0].parts.weights;
    let on_host = placed.host().unwrap().parts.weights;
    for (ours, theirs, device) in [
        (on_gpu, mib("CUDA0"), "CUDA0"),
        (on_host, mib("CPU_Mapped"), "CPU_Mapped"),
    ] {
        let off = ours / theirs - 1.0;
        assert!(
            off.abs() < 0.05,
            "{device}: {ours} vs {theirs} ({:+.1} %)",
            off * 100.0
        );
    }
}

#[test]
fn gpt_oss_120b_with_every_expert_on_the_cpu_decodes_under_its_ceiling() {
    let runs = offload_runs();
    let r = run(&runs, "llamacpp-gpt-oss-120b-n-cpu-moe-36-8gbvram");
    let measured = r["decode_tps"].as_float().unwrap();
    let model = vramfit::cli::resolve_model(catalog(), "gpt-oss-120b", false).unwrap();
    // An i9-14900K: DDR5-5600, two channels (ark.intel.com).
    let platform = vramfit::engine::hardware::host::platform("ddr5-5600-dual").unwrap();
    let mut sc = llama_cpp(WeightPrecision::Mxfp4, 131_072, 128.0, None);
    sc.host = Some(Host::new(128.0, None).on_platform(platform));
    sc.flash_attention = true;
    sc.pin.cpu_moe = Some(r["n_cpu_moe"].as_integer().unwrap() as u64);
    let p = plan(&model, &[gpu("rtx-4090")], &sc, false);
    let o = &p.options[0];
    let ceiling = o.decode_tokens_per_s.unwrap();
    assert!(
        measured <= ceiling,
        "measured {measured} t/s above the ceiling {ceiling}"
    );
    assert!(
        measured >= 0.3 * ceiling,
        "a ceiling this far above a real run says little: {ceiling}"
    );
    assert_eq!(
        o.placement.as_ref().unwrap().speed.as_ref().unwrap().bound,
        "host RAM"
    );
}

#[test]
fn zero_offload_is_checked_against_the_hosts_ram_one_host_per_node() {
    let run = |ram: &str| {
        json(&[
            "plan",
            "-m",
            "llama-3.1-70b",
            "--method",
            "full",
            "--offload",
            "optimizer",
            "--gpu",
            "h100-sxm",
            "--ram",
            ram,
        ])
    };
    let host_of = |j: &serde_json::Value, count: u64| {
        let o = j["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["count"] == count)
            .unwrap()
            .clone();
        let h = o["placement"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["kind"] == "host")
            .unwrap()
            .clone();
        (o, h)
    };
    let small = run("256");
    let (four, host) = host_of(&small, 4);
    // AdamW's two fp32 states and the fp32 master copy of 70.55 B parameters: 12 B each.
    let state = 70_553_706_496.0 * 12.0;
    assert!(close(host["bytes"].as_f64().unwrap(), state, 1e3), "{host}");
    assert_eq!(four["verdict"], "no");
    assert!(four["reason"].as_str().unwrap().contains("host's RAM"), "{four}");
    // 32 cards are four nodes, each host holding a quarter.
    let (thirty_two, host) = host_of(&small, 32);
    assert!(close(host["bytes"].as_f64().unwrap(), state / 4.0, 1e3));
    assert_eq!(thirty_two["verdict"], "fits");
    let big = run("2048");
    assert_ne!(host_of(&big, 4).0["verdict"], "no");
}

#[test]
fn fit_offers_the_ram_that_lets_it_spill_and_plan_agrees() {
    let base = [
        "-m",
        "llama-3.3-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
    ];
    let out = vramfit().arg("fit").args(base).arg("--json").output().unwrap();
    assert!(out.status.success());
    let advice: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ram = advice["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["flags"][0] == "--ram")
        .expect("a RAM suggestion")
        .clone();
    assert_eq!(ram["change"], "layers in 22 GB of RAM (-ngl 43 -c 4096)");
    // Applied, the flags give the plan the suggestion judged.
    let gb = ram["flags"][1].as_str().unwrap();
    let mut args = vec!["plan"];
    args.extend(base);
    args.extend(["--ram", gb]);
    let plan = json(&args);
    let single = |plan: &serde_json::Value| {
        plan["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["count"] == 1)
            .unwrap()
            .clone()
    };
    let o = &single(&plan);
    assert_eq!(o["verdict"], ram["verdict"]);
    assert_eq!(o["free_bytes_per_card"], ram["free_bytes_per_card"]);
    assert_eq!(o["runtime_flags"], "-ngl 43 -c 4096");
    // With one GB less the host cannot hold its share.
    let less = (gb.parse::<u64>().unwrap() - 1).to_string();
    let mut args = vec!["plan"];
    args.extend(base);
    args.extend(["--ram", less.as_str()]);
    assert_eq!(single(&json(&args))["verdict"], "no");
}

#[test]
fn ollama_places_whole_layers_never_experts_and_says_num_gpu() {
    let model = vramfit::cli::resolve_model(catalog(), "qwen3-30b-a3b", false).unwrap();
    let mut sc = llama_cpp(WeightPrecision::Q4KM, 32_768, 32.0, Some(89.6));
    sc.framework = Framework::Ollama;
    let p = plan(&model, &[gpu("rtx-4060-ti-16gb")], &sc, false);
    let placed = p.options[0].placement.as_ref().unwrap();
    assert_eq!(
        placed.strategy,
        Strategy::Layers,
        "Ollama cannot keep experts apart"
    );
    assert_eq!(placed.cpu_moe_layers, 0);
    // Ollama's own environment, which `ollama serve` reads; the layers are its own choice.
    assert!(
        placed
            .runtime_flags
            .starts_with("OLLAMA_CONTEXT_LENGTH=32768 OLLAMA_NUM_PARALLEL=1"),
        "{}",
        placed.runtime_flags
    );
}

#[test]
fn ollama_70b_at_27_of_81_layers_on_a_16_gb_card_decodes_under_its_ceiling() {
    let runs = offload_runs();
    let r = run(&runs, "ollama-llama33-70b-q4km-rx7600xt-27of81");
    let measured = r["decode_tps"].as_float().unwrap();
    // The RX 7600 XT is not in the catalog yet: 16 GB of GDDR6 at 288 GB/s (AMD's page).
    let card = Gpu {
        id: "rx-7600-xt".into(),
        name: "Radeon RX 7600 XT".into(),
        memory_gb: 16.0,
        memory_visible_bytes: Some(16e9),
        bandwidth_gbs: 288.0,
        ..gpu("rx-7900-xtx")
    };
    let model = vramfit::cli::resolve_model(catalog(), "llama-3.3-70b", false).unwrap();
    // A Ryzen 5 5600X with DDR4-3200, two channels (the poster's).
    let ddr4 = vramfit::engine::hardware::host::platform("ddr4-3200-dual").unwrap();
    let mut sc = llama_cpp(WeightPrecision::Q4KM, 2048, 64.0, None);
    sc.framework = Framework::Ollama;
    sc.host = Some(Host::new(64.0, None).on_platform(ddr4));
    sc.pin.gpu_layers = Some(r["ngl"].as_integer().unwrap() as u64);
    let p = plan(&model, &[card], &sc, false);
    let o = &p.options[0];
    assert_eq!(o.placement.as_ref().unwrap().gpu_layers, 27);
    let ceiling = o.decode_tokens_per_s.unwrap();
    assert!(
        measured <= ceiling && measured >= 0.5 * ceiling,
        "{measured} t/s against a ceiling of {ceiling}"
    );
}

/// The placement counts layers per card arithmetically; here is llama.cpp's own walk
/// (`get_layer_buft_list`: each layer to the first card whose cumulative split exceeds
/// (il − i_gpu_start) ÷ ngl), layer by layer, as the oracle.
#[test]
fn the_counted_assignment_is_llama_cpps_layer_walk() {
    use vramfit::engine::placement::layers::{LayerCosts, assign};
    let model = vramfit::cli::resolve_model(catalog(), "qwen3-30b-a3b", false).unwrap();
    let mut costs = LayerCosts::of(&model, &llama_cpp(WeightPrecision::Q4KM, 4096, 64.0, None));
    for (n_layer, first, every) in [(48, 0, 1), (61, 3, 1), (48, 0, 2), (7, 1, 3)] {
        costs.layers = n_layer;
        costs.moe_first = first;
        costs.moe_every = every;
        for split in [
            vec![1.0],
            vec![24.0, 24.0],
            vec![24.0, 12.0, 8.0],
            vec![5.0, 1.0, 1.0, 9.0],
        ] {
            let sum: f64 = split.iter().sum();
            for ngl in 0..=n_layer + 1 {
                for cpu_moe in [0, 1, n_layer / 2, n_layer] {
                    let s = assign(&costs, &split, ngl, cpu_moe, true);
                    // The walk.
                    let start = n_layer.saturating_sub(ngl);
                    let mut layers = vec![0u64; split.len()];
                    let mut experts = vec![0u64; split.len()];
                    let mut host_layers = 0;
                    for il in 0..=n_layer {
                        let moe = il < n_layer && il >= first && (il - first + 1) % every == 0;
                        let on_gpu = il >= start && il - start < ngl;
                        if on_gpu {
                            let x = (il - start) as f64 / ngl as f64;
                            let mut acc = 0.0;
                            let card = split
                                .iter()
                                .position(|w| {
                                    acc += w / sum;
                                    acc > x
                                })
                                .unwrap_or(split.len() - 1);
                            layers[card] += 1;
                            experts[card] += u64::from(moe && il >= cpu_moe);
                        } else {
                            host_layers += 1;
                        }
                    }
                    let counted: Vec<u64> = s.cards.iter().map(|c| c.layers).collect();
                    assert_eq!(counted, layers, "{n_layer} layers, split {split:?}, ngl {ngl}");
                    assert_eq!(s.host.layers, host_layers);
                    for (c, e) in s.cards.iter().zip(&experts) {
                        let repeating = c.layers - u64::from(c.holds_output);
                        let expected = repeating as f64 * costs.layer_weights
                            + *e as f64 * costs.layer_experts
                            + if c.holds_output { costs.output } else { 0.0 };
                        assert!(
                            close(c.bytes.weights, expected, 1.0),
                            "ngl {ngl} cpu_moe {cpu_moe}"
                        );
                    }
                }
            }
        }
    }
}

/// A rig is one option of mixed cards on every path: the JSON names it in `--gpu`'s rig
/// syntax and by its cards (it named it `rtx-4090` × 2, and its cheapest read as two 4090s
/// at the rig's price), and that id plans the same rig again.
#[test]
fn a_rig_is_named_as_a_rig_in_the_json() {
    let args = [
        "plan",
        "-m",
        "llama-3.3-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--context",
        "4096",
        "--json",
    ];
    let plan = json(&[&args[..], &["--gpu", "rtx-4090,2x rtx-3090"]].concat());
    let o = &plan["options"][0];
    assert_eq!(o["gpu"], "rtx-4090 + 2x rtx-3090");
    assert_eq!(o["name"], "GeForce RTX 4090 + 2× GeForce RTX 3090");
    assert_eq!(o["count"], 3);
    assert_eq!(plan["cheapest"]["gpu"], o["gpu"]);
    let again = json(&[&args[..], &["--gpu", o["gpu"].as_str().unwrap()]].concat());
    assert_eq!(
        again["options"][0]["free_bytes_per_card"],
        o["free_bytes_per_card"]
    );
    assert_eq!(again["options"][0]["verdict"], o["verdict"]);
}
