//! vLLM V1's hybrid KV-cache allocator on every path: plan's JSON and table, fit and
//! explain say the same pool (the rule itself is checked on hand-computed cases in
//! `engine::memory::vllm_pool`).

mod common;
use common::{segment, vramfit, vramfit_in};
use vramfit::engine::workload::version;

use vramfit::catalog::Catalog;
use vramfit::engine::{Scenario, WeightPrecision};

fn run(args: &[&str], json: bool) -> String {
    let mut c = vramfit();
    c.args(args);
    if json {
        c.arg("--json");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

// 256 sequences given: vLLM's own 1,024 on an H100 leave gpt-oss-120b no KV room (the
// vllm011-gpt-oss-120b-h100-kv case), and these tests are about the pool.
const GPT_OSS_ON_H100: [&str; 16] = [
    "plan",
    "--model",
    "gpt-oss-120b",
    "--weights",
    "mxfp4",
    "--gpu",
    "h100-sxm",
    "--framework",
    "vllm@0.11",
    "--context",
    "16000",
    "--max-batched-tokens",
    "8192",
    "--max-num-seqs",
    "256",
    "--no-combos",
];

/// The JSON's sequences are the pool's (blocks ÷ blocks per sequence), the judge's largest
/// batch and the table's seqs@ctx; its tokens are the log's blocks ÷ 2 groups × 16 (0.11).
#[test]
fn plan_json_and_table_say_the_pools_sequences() {
    let p: serde_json::Value = serde_json::from_str(&run(&GPT_OSS_ON_H100, true)).unwrap();
    let o = &p["options"][0];
    let g = &o["kv_groups"];
    assert_eq!(g["pool"]["group_size"], 18);
    assert_eq!(g["pool"]["full_groups"], 1);
    assert_eq!(g["pool"]["sliding_groups"], 1);
    // 16,000 tokens: 1,000 blocks in the full group, ⌈127 ÷ 16⌉ + 1 = 9 in the sliding one.
    assert_eq!(g["blocks_per_sequence"], 1_009);
    let blocks = g["num_blocks"].as_u64().unwrap();
    let seqs = blocks / 1_009;
    assert_eq!(g["sequences"].as_u64(), Some(seqs));
    assert_eq!(o["max_concurrent_sequences"].as_u64(), Some(seqs));
    assert_eq!(o["max_batch"].as_u64(), Some(seqs));
    assert_eq!(o["kv_capacity_tokens"].as_u64(), Some(blocks / 2 * 16));
    // The KV segment is one sequence's blocks: 1,009 × 18 slots × 32,768 B.
    let kv = segment(&p, "kv_cache");
    assert_eq!(kv["bytes"].as_f64(), Some(1_009.0 * 18.0 * 32_768.0));
    let table = run(&GPT_OSS_ON_H100, false);
    let row = table.lines().find(|l| l.contains("NVIDIA H100 SXM")).unwrap();
    assert!(row.trim_end().ends_with(&format!(" {seqs}")), "{table}");
    assert!(
        table.contains("vLLM's hybrid allocator: 2 groups of 18 layers share one pool of 16-token blocks; a sequence holds 1,009 blocks (1 full × 1,000 + 1 sliding × 9 (window 128))"),
        "{table}"
    );
}

/// Explain names the rule with the same numbers as the option it explains, and the Chinese
/// formula reads in Chinese.
#[test]
fn explain_names_the_hybrid_allocator() {
    let c = Catalog::embedded().unwrap();
    let m = c.model("gpt-oss-120b").unwrap();
    let mut sc = Scenario::seed_inference(WeightPrecision::Mxfp4).calibrated();
    let (framework, version) = version::parse_runtime("vllm@0.11").unwrap();
    sc.release = version;
    framework.apply(&mut sc);
    sc.context = 16_000;
    sc.max_batched_tokens = 8192;
    let plan = vramfit::engine::plan(m, &c.gpus, &sc, false);
    let g = c.gpu_index("h100-sxm").unwrap();
    let o = plan.options.iter().find(|o| o.gpu == g && o.count == 1).unwrap();
    let pool = o.serving.unwrap().kv_groups.unwrap();
    vramfit::lang::Lang::En.make_current();
    let lines = vramfit::present::explain::explain_option(m, &c.gpus[g], o, &plan, &sc);
    let expected = format!(
        "vLLM's hybrid allocator: 2 groups of 18 layers share one pool of {} blocks of 16 tokens; a sequence of 16,000 tokens holds 1,009 blocks (1 full × 1,000 + 1 sliding × 9 for the window of 128), so {} fit; vLLM logs \"GPU KV cache size: {} tokens\"",
        vramfit::engine::basics::units::group_thousands(pool.num_blocks as i64),
        pool.sequences,
        vramfit::engine::basics::units::group_thousands(pool.logged_tokens as i64),
    );
    assert!(
        lines.iter().any(|l| l.starts_with(&expected)),
        "{expected}\n{lines:#?}"
    );
    assert_eq!(Some(pool.sequences), o.limits.max_batch);
    let zh = vramfit_in("zh_CN.UTF-8").args(GPT_OSS_ON_H100).output().unwrap();
    let zh = String::from_utf8(zh.stdout).unwrap();
    assert!(
        zh.contains("vLLM 的混合分配器：2 组、每组 18 层共用一个块池，每块 16 个 token；一个序列占 1,009 块 (1 个全注意力组 × 1,000 + 1 个滑动窗口组 × 9（窗口 128）)"),
        "{zh}"
    );
}

/// Before 0.10 vLLM holds gpt-oss's sliding layers in full: 36 layers × 16,000 tokens.
#[test]
fn before_the_allocator_sliding_layers_hold_the_context() {
    let mut args = GPT_OSS_ON_H100;
    args[8] = "vllm@0.9";
    let p: serde_json::Value = serde_json::from_str(&run(&args, true)).unwrap();
    let kv = segment(&p, "kv_cache");
    // 36 × 16,000 × 2 × 8 × 64 × 2 B.
    assert_eq!(kv["bytes"].as_f64(), Some(36.0 * 16_000.0 * 2048.0));
    assert!(p["options"][0].get("kv_groups").is_none());
}
