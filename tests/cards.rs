//! Every card people plan on: each entry's figures sourced and plausible for its class, and
//! `vramfit gpus` finding them by text, vendor and class.

mod common;

use common::vramfit;
use vramfit::catalog::Catalog;
use vramfit::engine::gpu::GpuClass;

/// Memory bandwidth a card of each class really has, GB/s: a figure outside is a typo.
fn bandwidth_range(class: GpuClass) -> (f64, f64) {
    match class {
        GpuClass::Consumer => (100.0, 2_000.0),
        GpuClass::Workstation => (200.0, 2_000.0),
        GpuClass::Datacenter => (250.0, 10_000.0),
        GpuClass::Integrated => (50.0, 600.0),
        GpuClass::Apple => (60.0, 1_000.0),
        GpuClass::Slice => (10.0, 10_000.0),
    }
}

#[test]
fn every_card_has_a_source_and_figures_plausible_for_its_class() {
    let catalog = Catalog::embedded().unwrap();
    for g in &catalog.gpus {
        let class = g.class();
        assert!(
            g.memory_source.as_deref().is_some_and(|s| s.len() > 10),
            "{}: no source for its memory",
            g.id
        );
        let (lo, hi) = bandwidth_range(class);
        assert!(
            (lo..=hi).contains(&g.bandwidth_gbs),
            "{} ({}): {} GB/s is outside {lo}–{hi}",
            g.id,
            class.id(),
            g.bandwidth_gbs
        );
        assert!(
            (1.0..=300.0).contains(&g.memory_gb) || class == GpuClass::Apple,
            "{}",
            g.id
        );
        if let Some(t) = g.bf16_tflops {
            assert!((1.0..=5_000.0).contains(&t), "{}: {t} TFLOPS", g.id);
        }
        // FP8 throughput only where the card runs FP8, and at least its BF16 rate.
        if let (Some(f8), Some(b)) = (g.fp8_tflops, g.bf16_tflops) {
            assert!(g.fp8 && f8 >= b * 0.99, "{}: FP8 {f8} vs BF16 {b}", g.id);
        }
        assert_eq!(
            g.unified_memory(),
            matches!(class, GpuClass::Apple | GpuClass::Integrated),
            "{}",
            g.id
        );
    }
}

fn json(args: &[&str]) -> Vec<serde_json::Value> {
    let out = vramfit().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap()
}

#[test]
fn gpus_finds_cards_by_text_vendor_and_class() {
    let ids = |list: &[serde_json::Value]| -> Vec<String> {
        list.iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    let found = ids(&json(&["gpus", "--search", "4070"]));
    assert!(found.contains(&"rtx-4070-ti-super".to_string()), "{found:?}");
    assert!(found.iter().all(|id| id.contains("4070")), "{found:?}");
    // Spaces and dashes alike: "4070 ti super" finds the SUPER.
    assert_eq!(
        ids(&json(&["gpus", "--search", "4070 ti super"])),
        ["rtx-4070-ti-super"]
    );
    let apple = json(&["gpus", "--class", "apple"]);
    assert!(!apple.is_empty());
    for g in &apple {
        assert_eq!(g["class"], "apple");
        assert_eq!(g["unified_memory"], true);
        assert_eq!(g["vendor"], "Apple");
    }
    let amd = json(&["gpus", "--vendor", "amd"]);
    assert!(amd.iter().all(|g| g["vendor"] == "AMD") && !amd.is_empty());
    let h100 = &json(&["gpus", "--search", "h100-sxm"])[0];
    assert_eq!(h100["class"], "datacenter");
    assert_eq!(
        h100["native_formats"],
        serde_json::json!(["fp16", "bf16", "int8", "fp8"])
    );
    assert!(h100["sources"]["memory"].as_str().unwrap().len() > 10);
    assert!(!h100["sources"]["figures"].as_str().unwrap().is_empty());
    let t4 = &json(&["gpus", "--search", "t4"])[0];
    assert_eq!(
        t4["native_formats"],
        serde_json::json!(["fp16", "int8"]),
        "Turing has no BF16"
    );
    assert_eq!(json(&["gpus", "--class", "slice"])[0]["class"], "slice");
    // Nothing matches: said, exit 2.
    let out = vramfit()
        .args(["gpus", "--search", "no-such-card"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no card in the catalog matches"));
}

#[test]
fn a_plan_for_one_class_of_cards_and_the_planners_row_agree() {
    let out = vramfit()
        .args(["plan", "-m", "llama-3.1-8b", "--class", "consumer", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let catalog = Catalog::embedded().unwrap();
    let options = plan["options"].as_array().unwrap();
    assert!(!options.is_empty());
    for o in options {
        let g = &catalog.gpus[catalog.gpu_index(o["gpu"].as_str().unwrap()).unwrap()];
        assert_eq!(g.class(), GpuClass::Consumer, "{}", g.id);
    }
    // The planner's "Cards of" row, turned to consumer, plans the same options.
    let mut app = vramfit::tui::states::fresh_app("default");
    app.select_model("llama-3.1-8b");
    let mut sc = app.scenario.clone();
    sc.card_class = Some(GpuClass::Consumer);
    app.set_scenario(sc.clone());
    let cli = vramfit::engine::plan(app.current_model(), &catalog.gpus, &sc, true);
    let ids = |p: &[vramfit::engine::FitOption]| {
        let mut v: Vec<(usize, u32)> = p.iter().map(|o| (o.gpu, o.count)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(ids(&app.plan.options), ids(&cli.options));
    assert!(
        app.plan
            .options
            .iter()
            .all(|o| app.catalog.gpus[o.gpu].class() == GpuClass::Consumer)
    );
}

/// An AMD APU's usable memory is the one rule's: its carve-out plus the GTT Linux lends by
/// default, at the RAM and carve-out the entry names (binary sizes, as the firmware sets them).
#[test]
fn every_amd_apu_is_planned_at_its_carve_out_plus_gtt() {
    const GIB: f64 = 1_073_741_824.0;
    let catalog = Catalog::embedded().unwrap();
    let apus: Vec<_> = catalog
        .gpus
        .iter()
        .filter(|g| g.class() == GpuClass::Integrated && g.vendor == "AMD")
        .collect();
    assert!(apus.len() >= 5, "{}", apus.len());
    for g in apus {
        let carve = g
            .carve_out_gb
            .unwrap_or_else(|| panic!("{}: an APU names its carve-out", g.id));
        let rule = vramfit::engine::gpu::apu_visible_bytes(g.memory_gb * GIB, carve * GIB);
        let visible = g.memory_visible_bytes.unwrap();
        assert!(
            (visible - rule).abs() <= 1_048_576.0,
            "{}: {visible} B, the rule gives {rule} B",
            g.id
        );
    }
    // A carve-out larger than what GTT lends (96 of 128 GB) is used alone.
    let big = vramfit::engine::gpu::apu_visible_bytes(128.0 * GIB, 96.0 * GIB);
    assert_eq!(big, 96.0 * GIB);
    // The usual 512 MB carve-out: half of the rest is lent on top.
    let small = vramfit::engine::gpu::apu_visible_bytes(32.0 * GIB, 0.5 * GIB);
    assert_eq!(small, 16.25 * GIB);
}
