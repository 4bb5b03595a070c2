//! Every card people plan on: each entry's figures sourced and plausible for its class, and
//! `vramfit gpus` finding them by text, vendor and class.

mod common;

use common::vramfit;
use vramfit::catalog::Catalog;
use vramfit::engine::hardware::apple::metal_default_working_set_bytes;
use vramfit::engine::hardware::gpu::GpuClass;

/// Memory bandwidth a card of each class really has, GB/s: a figure outside is a typo.
fn bandwidth_range(class: GpuClass) -> (f64, f64) {
    match class {
        GpuClass::Consumer => (100.0, 2_000.0),
        GpuClass::Workstation => (200.0, 2_000.0),
        // The A2 and each of the A16's four GPUs have 200 GB/s: small inference cards, still
        // datacenter parts.
        GpuClass::Datacenter => (150.0, 10_000.0),
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

/// Every Apple entry gives the GPU what Metal's default rule gives its memory (Apple's "24 GB"
/// is 24 GiB), so the catalog and a detected Mac agree.
#[test]
fn every_apple_entry_has_metals_default_share_of_its_memory() {
    let catalog = Catalog::embedded().unwrap();
    let apple: Vec<_> = catalog
        .gpus
        .iter()
        .filter(|g| g.class() == GpuClass::Apple)
        .collect();
    assert!(apple.len() >= 50, "{} Apple entries", apple.len());
    for g in apple {
        let expected = metal_default_working_set_bytes(g.memory_gb * 1_073_741_824.0);
        let visible = g.memory_visible_bytes.expect("an Apple entry's Metal share");
        assert!(
            (visible - expected).abs() <= 1_048_576.0,
            "{}: {visible} B, the rule gives {expected} B",
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

/// MIG profiles are cards of their own: the instance's memory as `nvidia-smi mig -lgip`
/// prints it, the card's bandwidth by memory slices (eighths) and its throughput by SMs;
/// they never join a combo.
#[test]
fn mig_profiles_are_slices_with_their_share_of_the_card() {
    let catalog = Catalog::embedded().unwrap();
    let card = |id: &str| &catalog.gpus[catalog.gpu_index(id).unwrap()];
    let h100 = card("h100-sxm");
    let s = card("h100-sxm-mig-3g.40gb");
    assert_eq!(s.class(), GpuClass::Slice);
    assert!(!s.combines());
    // 39.50 GiB in the H100's lgip table; four of eight memory slices; 60 of 132 SMs.
    assert_eq!(s.memory_visible_bytes, Some(39.5 * 1_073_741_824.0));
    assert_eq!(s.memory_smi_mib, Some(40_448));
    assert_eq!(s.bandwidth_gbs, h100.bandwidth_gbs * 4.0 / 8.0);
    assert_eq!(s.bandwidth_gbs, 1675.0);
    assert_eq!(
        s.bf16_tflops,
        Some(((989.0 * 60.0 / 132.0) * 100.0_f64).round() / 100.0)
    );
    assert_eq!(s.memory_gb, 40.0);
    // Every profile the issue names, on the A100s, the H100 and the H200.
    for id in [
        "a100-40gb-pcie-mig-1g.5gb",
        "a100-sxm-mig-1g.10gb",
        "a100-sxm-mig-7g.80gb",
        "h100-sxm-mig-1g.10gb",
        "h200-sxm-mig-1g.18gb",
        "h200-sxm-mig-7g.141gb",
    ] {
        assert_eq!(card(id).class(), GpuClass::Slice, "{id}");
    }
    // No slice holds more, or reads faster, than its whole card.
    for g in catalog.gpus.iter().filter(|g| g.id.contains("-mig-")) {
        let parent = card(g.id.split("-mig-").next().unwrap());
        assert!(g.bandwidth_gbs <= parent.bandwidth_gbs, "{}", g.id);
        assert!(
            g.memory_visible_bytes.unwrap() <= parent.memory_visible_bytes.unwrap() * 1.01,
            "{}",
            g.id
        );
    }
    assert_eq!(json(&["gpus", "--class", "slice", "--search", "mig"]).len(), 30);
    // Planned on: one slice fits an 8B model; two of them are no combo.
    let out = vramfit()
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--gpu",
            "h100-sxm-mig-3g.40gb",
            "--all",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let options = plan["options"].as_array().unwrap();
    let one = options.iter().find(|o| o["count"] == 1).unwrap();
    assert_eq!(one["verdict"], "fits");
    assert_eq!(one["capacity_bytes"], 42_412_802_048u64);
    assert!(
        options.iter().all(|o| o["count"] == 1),
        "a slice is listed alone, never in a combo"
    );
    // Asked for two of them: the option says why not.
    let out = vramfit()
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--gpu",
            "h100-sxm-mig-3g.40gb",
            "--cards",
            "2",
            "--json",
        ])
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let two = &plan["options"][0];
    assert_eq!(
        (two["count"].as_u64(), two["verdict"].as_str()),
        (Some(2), Some("no"))
    );
    assert!(
        two["reason"].as_str().unwrap().contains("a slice of one card"),
        "{two}"
    );
    // Too big for a slice says so, not "too big for 8 cards".
    let out = vramfit()
        .args(["plan", "-m", "llama-3.1-70b", "--gpu", "h100-sxm-mig-1g.10gb"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("too big for this card, which does not combine with others"),
        "{text}"
    );
}

/// A user's catalog may add a MIG profile; one of an unknown card, or bigger than its card,
/// is refused at its line.
#[test]
fn a_mig_profile_in_a_users_catalog_is_checked() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let profile = |card: &str, gib: f64| {
        format!(
            "\n[[mig_profile]]\ncard = \"{card}\"\nprofile = \"2g.24gb\"\ncompute_slices = 2\nmemory_slices = 2\nmemory_gib = {gib}\nsms = 34\ncard_sms = 132\nsource = \"a test\"\n"
        )
    };
    let run = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        vramfit()
            .args(["--catalog", path.to_str().unwrap(), "gpus", "--search", "2g.24gb"])
            .output()
            .unwrap()
    };
    let ok = run("ok.toml", &profile("h100-nvl", 21.62));
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("h100-nvl-mig-2g.24gb"));
    let unknown = run("unknown.toml", &profile("h999", 21.62));
    assert_eq!(unknown.status.code(), Some(2));
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        err.contains("unknown.toml:3:1: MIG profile of unknown gpu 'h999'"),
        "{err}"
    );
    let big = run("big.toml", &profile("h100-nvl", 500.0));
    let err = String::from_utf8_lossy(&big.stderr);
    assert!(
        err.contains("big.toml:7:1: 500 GiB is more than the whole"),
        "{err}"
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
        let rule = vramfit::engine::hardware::gpu::apu_visible_bytes(g.memory_gb * GIB, carve * GIB);
        let visible = g.memory_visible_bytes.unwrap();
        assert!(
            (visible - rule).abs() <= 1_048_576.0,
            "{}: {visible} B, the rule gives {rule} B",
            g.id
        );
    }
    // A carve-out larger than what GTT lends (96 of 128 GB) is used alone.
    let big = vramfit::engine::hardware::gpu::apu_visible_bytes(128.0 * GIB, 96.0 * GIB);
    assert_eq!(big, 96.0 * GIB);
    // The usual 512 MB carve-out: half of the rest is lent on top.
    let small = vramfit::engine::hardware::gpu::apu_visible_bytes(32.0 * GIB, 0.5 * GIB);
    assert_eq!(small, 16.25 * GIB);
}

/// One card found: where each of its figures comes from, as text.
#[test]
fn a_single_card_lists_its_sources() {
    let out = vramfit()
        .args(["gpus", "--search", "h100-sxm-mig-3g.40gb"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Where the figures of h100-sxm-mig-3g.40gb come from:"),
        "{text}"
    );
    assert!(
        text.contains("  memory: nvidia-smi mig -lgip: 39.5 GiB for the instance"),
        "{text}"
    );
    assert!(text.contains("  slice: slice of an NVIDIA H100 SXM 80GB: 3 of 7 compute slices (60 of 132 SMs), 4 of 8 memory slices"), "{text}");
    assert!(text.contains("  offer: Yiwan Network"), "{text}");
    // Several cards: the table alone.
    let out = vramfit().args(["gpus", "--search", "4090"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Where the figures"));
}

/// ECC on a GDDR workstation or data-center card keeps 1/16 of its memory for check bits:
/// `--ecc on|off` plans each such card at that setting, from the totals as it ships.
#[test]
fn ecc_moves_the_total_of_gddr_cards_by_a_sixteenth() {
    const MIB: f64 = 1_048_576.0;
    let capacity = |gpu: &str, ecc: Option<&str>| -> f64 {
        let mut args = vec!["plan", "-m", "llama-3.1-8b", "--gpu", gpu, "--json"];
        if let Some(e) = ecc {
            args.extend(["--ecc", e]);
        }
        let out = vramfit().args(&args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Per card: where one card is too small, the first option is a combo.
        let o = &v["options"][0];
        o["capacity_bytes"].as_f64().unwrap() / o["count"].as_f64().unwrap()
    };
    // The RTX 6000 Ada ships with ECC off (49,140 MiB); on, it loses 49,140/16 MiB, and
    // PyTorch then sees 44.43 GiB (gpu-reported-memory.md).
    let off = capacity("rtx-6000-ada", None);
    assert_eq!(capacity("rtx-6000-ada", Some("off")), off);
    let on = capacity("rtx-6000-ada", Some("on"));
    assert_eq!(off - on, 49_140.0 * MIB / 16.0);
    assert!((on / 1_073_741_824.0 - 44.43).abs() < 0.05, "{on}");
    // The T4 ships with ECC on (15,360 MiB): off gives back the sixteenth, to 16,384 MiB.
    let t4_on = capacity("t4", None);
    assert_eq!(capacity("t4", Some("off")) - t4_on, 1_024.0 * MIB);
    // HBM keeps its total either way.
    assert_eq!(capacity("h100-sxm", Some("off")), capacity("h100-sxm", None));
    // The listing says which setting each total was read with.
    let a6000 = &json(&["gpus", "--search", "rtx-a6000"])[0];
    assert_eq!(a6000["ecc"], "off");
    let bad = vramfit()
        .args(["plan", "-m", "llama-3.1-8b", "--ecc", "maybe"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
