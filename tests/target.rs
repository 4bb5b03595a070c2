//! Rent to a target: the cheapest set-up that serves N users at a speed and a time to first
//! token, or finishes a fine-tune by a deadline (`engine::target`). Each case is computed
//! here by hand from the catalog's figures and the plan's own memory limits, in closed form
//! (the engine bisects), and checked against `plan --json`.

mod common;
use common::vramfit;

use vramfit::catalog::Catalog;
use vramfit::engine::expected::{self, table};

fn plan_json(args: &[&str]) -> serde_json::Value {
    let out = vramfit().arg("plan").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn option<'a>(plan: &'a serde_json::Value, gpu: &str, count: u64) -> &'a serde_json::Value {
    plan["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["gpu"] == gpu && o["count"] == count)
        .unwrap_or_else(|| panic!("no option {count}× {gpu}"))
}

/// A card's catalog figures: bandwidth in bytes/s and BF16 FLOP/s.
fn card(id: &str) -> (f64, f64) {
    let c = Catalog::embedded().unwrap();
    let g = &c.gpus[c.gpu_index(id).unwrap()];
    (g.bandwidth_gbs * 1e9, g.bf16_tflops.unwrap() * 1e12)
}

/// The share of the ceiling a class of measured runs gives at this batch (1: none, the
/// ceiling: the JSON then says `optimistic`).
fn share(keys: &[&str]) -> f64 {
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    expected::pick(table::DECODE, &keys).map_or(1.0, |c| c.median)
}

const LLAMA_8B_ACTIVE: f64 = 7_504_924_672.0;
const LLAMA_8B_KV_PER_TOKEN: f64 = 131_072.0;

/// 40 users × 8,192 tokens on Llama 3.1 8B at ≥ 20 tokens/s each, on two cards: the A40's
/// speed binds (each user slows as more share its bandwidth), the A100 40GB's memory does.
#[test]
fn forty_users_on_llama_8b_two_cards() {
    let users = 40.0_f64;
    let min_tps = 20.0;
    let kv_seq = LLAMA_8B_KV_PER_TOKEN * 8192.0;
    for (gpu, keys, binding) in [
        (
            "a40",
            ["serving · gddr · batch", "serving · batch"],
            "per-user-tps",
        ),
        (
            "a100-40gb-pcie",
            ["serving · hbm · batch", "serving · batch"],
            "memory",
        ),
    ] {
        let plan = plan_json(&[
            "-m",
            "llama-3.1-8b",
            "--context",
            "8192",
            "--users",
            "40",
            "--min-tps",
            "20",
            "--gpu",
            gpu,
        ]);
        let o = option(&plan, gpu, 1);
        let (bw, flops) = card(gpu);
        let weights = plan["decode_bytes_per_token"].as_f64().unwrap() - kv_seq;
        let held = o["max_batch"].as_f64().unwrap();
        let s = share(&keys);
        // Bandwidth-bound: s × bw ÷ (W + u·K) ≥ X  ⇔  u ≤ (s·bw/X − W) ÷ K.
        let by_speed = ((s * bw / min_tps - weights) / kv_seq).floor();
        let compute = 2.0 * LLAMA_8B_ACTIVE * by_speed / flops;
        assert!(
            compute < (weights + by_speed * kv_seq) / bw,
            "{gpu}: compute does not bind"
        );
        let per = held.min(by_speed).min(users);
        let replicas = (users / per).ceil();
        let t = &o["target_limits"];
        assert_eq!(o["replicas"].as_f64().unwrap(), replicas, "{gpu}");
        assert_eq!(
            t["users_per_replica"].as_f64().unwrap(),
            (users / replicas).ceil(),
            "{gpu}"
        );
        assert_eq!(t["binding"], binding, "{gpu}: held {held}, by speed {by_speed}");
        assert_eq!(o["meets_target"], true);
        let spread = (users / replicas).ceil();
        let tps = s * bw / (weights + spread * kv_seq);
        assert!(
            (t["per_user_tps"]["value"].as_f64().unwrap() - tps).abs() < 0.01,
            "{gpu}: {tps}"
        );
        assert_eq!(t["memory"]["value"].as_f64().unwrap(), held);
        // The month is the replicas' months.
        assert_eq!(
            t["price_usd_month"].as_f64().unwrap(),
            (o["price_usd_month"].as_f64().unwrap() * replicas * 100.0).round() / 100.0
        );
    }
}
