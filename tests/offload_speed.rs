//! Speed under placement (issue 28): an offloaded run's ceiling is its placement's, the
//! VRAM part ÷ the card's bandwidth plus the RAM part ÷ the host's, checked by hand on one
//! run of the public set; and a plan option that spills shows an expected decode from the
//! offload classes.

mod common;

use serde_json::Value;
use vramfit::accuracy::speed;
use vramfit::catalog::Catalog;

/// `iklcpp-4090-deepseek-v3-0324-iq4k-r4`: DeepSeek-V3-0324 in q4_k_m (a GGUF format: every
/// tensor at its 4.84 bits) on an RTX 4090 (1008 GB/s, PCIe Gen 4), every routed expert in
/// RAM (`-ot exps=CPU`), the RAM read at the 598 GB/s the source measured.
#[test]
fn an_offloaded_runs_ceiling_is_its_placements_by_hand() {
    let catalog = Catalog::embedded().unwrap();
    let m = catalog.model("deepseek-v3-0324").unwrap();
    let a = &m.arch;
    let moe = a.moe.as_ref().unwrap();
    let bytes_per_param = 4.84 / 8.0;
    let expert = a.mlp_params(moe.expert_intermediate) as f64;
    let moe_layers = a.moe_layers() as f64;
    assert_eq!((moe_layers, moe.experts, moe.active), (58.0, 256, 8));
    // RAM: the 8 routed experts a token picks in each of the 58 MoE layers.
    let ram = moe_layers * moe.active as f64 * expert * bytes_per_param;
    // The card: everything but the routed experts and the token embedding (kept in RAM,
    // one row of it looked up a token): attention, shared experts, the 3 dense layers, the
    // output layer.
    let embedding = (a.vocab * a.hidden) as f64;
    let held_in_ram = moe_layers * moe.experts as f64 * expert;
    let vram = (m.params().total as f64 - embedding - held_in_ram) * bytes_per_param;
    // PCIe: the hidden state (f32) to the CPU and back at each of those layers, at 32 GB/s.
    let pcie = 2.0 * moe_layers * a.hidden as f64 * 4.0;
    let seconds = vram / 1008e9 + ram / 598e9 + pcie / 32e9;
    let by_hand = 1.0 / seconds;

    let e = speed::evaluate(&catalog).unwrap();
    let row = e
        .decode
        .iter()
        .find(|r| r.id == "iklcpp-4090-deepseek-v3-0324-iq4k-r4")
        .unwrap();
    assert!(row.shape.offload);
    assert_eq!(row.class.as_ref().unwrap().0, "offload · ggml");
    // The KV cache the card reads at 128 tokens (MLA's latent, a few MB) is left out above.
    assert!(
        (row.ceiling / by_hand - 1.0).abs() < 0.005,
        "ceiling {:.2} vs by hand {by_hand:.2}",
        row.ceiling
    );
    // RAM sets the pace: its part is most of the step, and the GPU's own ceiling (every
    // weight read at 1008 GB/s) would be far above.
    assert!(ram / 598e9 > 0.6 * seconds);
    assert!(row.ceiling < 40.0 && row.measured / row.ceiling > 0.4);
}

fn plan_json(args: &[&str]) -> Value {
    let out = common::vramfit()
        .args(["plan", "--json", "--no-detect"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Qwen3-30B-A3B on a 12 GB RTX 3060 under llama.cpp spills experts into 64 GB of RAM at
/// 80 GB/s: the option's ceiling is the placement's, and its expected decode that ceiling's
/// time ÷ `offload · ggml`'s median efficiency (0.5755, 14 runs) plus its 13 ms a token.
#[test]
fn a_plan_that_spills_shows_an_expected_decode() {
    let v = plan_json(&[
        "-m",
        "qwen3-30b-a3b",
        "--gpu",
        "rtx-3060-12gb",
        "--framework",
        "llama.cpp",
        "--ram",
        "64",
        "--ram-bandwidth",
        "80",
    ]);
    let o = &v["options"][0];
    assert_eq!(o["placement_strategy"], "experts");
    let ceiling = o["decode_tokens_per_s"].as_f64().unwrap();
    let placed = o["placement_speed"]["tokens_per_s"].as_f64().unwrap();
    assert!((ceiling - placed).abs() < 0.01, "{ceiling} vs {placed}");
    assert_eq!(o["placement_speed"]["bound"], "host RAM");
    assert_eq!(o["speed_class"]["name"], "offload · ggml");
    assert_eq!(o["speed_class"]["runs"], 14);
    let expected = o["expected_decode_tokens_per_s"].as_f64().unwrap();
    assert!(
        (expected - 1.0 / (1.0 / (0.5755 * ceiling) + 0.013)).abs() < 0.02,
        "{expected} vs {ceiling}"
    );
    let band = o["expected_decode_band"].as_array().unwrap();
    assert!(band[0].as_f64().unwrap() <= expected && expected <= band[1].as_f64().unwrap());
    // Offloaded prefill has no class: no expected prefill.
    assert!(o["expected_ttft_s"].is_null());
}

/// vLLM's weights streamed from RAM (`--cpu-offload-gb`) go at PCIe's pace, a regime no run
/// measured: the ceiling alone, no figure borrowed from the runtimes that compute in RAM.
#[test]
fn streamed_weights_borrow_no_offload_class() {
    let v = plan_json(&[
        "-m",
        "qwen3-30b-a3b",
        "--gpu",
        "rtx-3060-12gb",
        "--framework",
        "vllm",
        "--ram",
        "64",
        "--ram-bandwidth",
        "80",
    ]);
    let o = &v["options"][0];
    assert_eq!(o["placement_strategy"], "streamed");
    assert!(!o["decode_tokens_per_s"].is_null());
    assert!(o["expected_decode_tokens_per_s"].is_null(), "{o}");
    assert!(o["speed_class"].is_null());
}
