//! Renting: every seed price, the cheapest offer by term, time and cost to finish, plan files.

use serde_json::Value;
use vramfit::catalog::Catalog;
use vramfit::engine::hardware::offers::{OfferFilter, OfferKind, Per, Rates};
use vramfit::engine::{Method, Scenario, WeightPrecision, plan};
use vramfit::planfile::PlanFile;

fn catalog() -> Catalog {
    Catalog::embedded().unwrap()
}

/// (card, provider prefix, price, currency, per, kind) for every price the seeds give.
const SEED_PRICES: &[(&str, &str, f64, &str, Per, OfferKind)] = &[
    // Seed 000, RTX 4090, CNY per hour.
    ("rtx-4090", "Vast.ai", 0.87, "CNY", Per::Hour, OfferKind::Spot),
    ("rtx-4090", "Salad", 1.15, "CNY", Per::Hour, OfferKind::Spot),
    ("rtx-4090", "PPIO", 1.16, "CNY", Per::Hour, OfferKind::Spot),
    ("rtx-4090", "Suanjia", 1.24, "CNY", Per::Hour, OfferKind::OnDemand),
    (
        "rtx-4090",
        "Chenjian",
        1.38,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    ("rtx-4090", "Zhixing", 1.65, "CNY", Per::Hour, OfferKind::OnDemand),
    ("rtx-4090", "UCloud", 1.92, "CNY", Per::Hour, OfferKind::OnDemand),
    ("rtx-4090", "AutoDL", 1.98, "CNY", Per::Hour, OfferKind::OnDemand),
    ("rtx-4090", "Matpool", 2.20, "CNY", Per::Hour, OfferKind::OnDemand),
    ("rtx-4090", "RunPod", 2.45, "CNY", Per::Hour, OfferKind::Spot),
    (
        "rtx-4090",
        "Cloudrift",
        2.81,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "rtx-4090",
        "Parallel",
        3.60,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    ("rtx-4090", "Lanyun", 2.00, "CNY", Per::Hour, OfferKind::Reference),
    (
        "rtx-4090",
        "TensorDock",
        2.52,
        "CNY",
        Per::Hour,
        OfferKind::Reference,
    ),
    // Seed 000, A100 80G, CNY per hour.
    (
        "a100-80gb-pcie",
        "Paperspace",
        5.47,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Jarvislabs",
        6.41,
        "CNY",
        Per::Hour,
        OfferKind::Spot,
    ),
    (
        "a100-80gb-pcie",
        "Thunder",
        7.85,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    ("a100-sxm", "Verda", 8.09, "CNY", Per::Hour, OfferKind::Spot),
    (
        "a100-80gb-pcie",
        "RunPod",
        8.57,
        "CNY",
        Per::Hour,
        OfferKind::Spot,
    ),
    (
        "a100-80gb-pcie",
        "Massed",
        9.72,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Suanjia",
        9.80,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Gcore",
        10.61,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Jarvislabs",
        10.73,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "UCloud",
        10.75,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-sxm",
        "Hyperstack",
        11.52,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Crusoe",
        14.40,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    (
        "a100-80gb-pcie",
        "Parallel",
        16.16,
        "CNY",
        Per::Hour,
        OfferKind::OnDemand,
    ),
    ("a100-sxm", "Lambda", 20.09, "CNY", Per::Hour, OfferKind::OnDemand),
    (
        "a100-80gb-pcie",
        "TensorDock",
        10.80,
        "CNY",
        Per::Hour,
        OfferKind::Reference,
    ),
    // Seed 001, CNY per month.
    ("rtx-3090", "Yiwan", 1750.0, "CNY", Per::Month, OfferKind::Monthly),
    (
        "rtx-4090",
        "market",
        1500.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    (
        "a100-40gb-pcie",
        "Yiwan",
        2800.0,
        "CNY",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "a100-40gb-pcie",
        "Yiwan",
        2660.0,
        "CNY",
        Per::Month,
        OfferKind::Quarterly,
    ),
    (
        "a100-40gb-pcie",
        "Yiwan",
        2240.0,
        "CNY",
        Per::Month,
        OfferKind::Yearly,
    ),
    (
        "h100-sxm",
        "Yiwan",
        12000.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    // The same list's MIG slices: a card's ¥12,000 for seven slices, 1 of 7.
    (
        "h100-sxm-mig-1g.10gb",
        "Yiwan",
        1714.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    // The same list's MIG slices: a card's ¥12,000 for seven slices, 2 of 7.
    (
        "h100-sxm-mig-2g.20gb",
        "Yiwan",
        3429.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    // The same list's MIG slices: a card's ¥12,000 for seven slices, 3 of 7.
    (
        "h100-sxm-mig-3g.40gb",
        "Yiwan",
        5143.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    // The same list's MIG slices: a card's ¥12,000 for seven slices, 4 of 7.
    (
        "h100-sxm-mig-4g.40gb",
        "Yiwan",
        6857.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    // The same list's MIG slices: a card's ¥12,000 for seven slices, 7 of 7.
    (
        "h100-sxm-mig-7g.80gb",
        "Yiwan",
        12000.0,
        "CNY",
        Per::Month,
        OfferKind::Estimate,
    ),
    (
        "a100-vgpu-1-20",
        "Yiwan",
        900.0,
        "CNY",
        Per::Month,
        OfferKind::Monthly,
    ),
    ("t4", "Yiwan", 900.0, "CNY", Per::Month, OfferKind::Monthly),
    ("t4", "Yiwan", 850.0, "CNY", Per::Month, OfferKind::Monthly),
    // Seed 003, USD per month (GPU Rent Hub).
    (
        "mi300x",
        "GPU Rent Hub",
        1590.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "b200",
        "GPU Rent Hub",
        3890.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "h200-sxm",
        "GPU Rent Hub",
        2290.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "h100-sxm",
        "GPU Rent Hub",
        1690.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "h100-pcie",
        "GPU Rent Hub",
        1490.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "a100-sxm",
        "GPU Rent Hub",
        990.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "l40s",
        "GPU Rent Hub",
        520.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "rtx-6000-ada",
        "GPU Rent Hub",
        460.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "rtx-a6000",
        "GPU Rent Hub",
        290.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "a40",
        "GPU Rent Hub",
        240.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "rtx-5090",
        "GPU Rent Hub",
        540.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "rtx-4090",
        "GPU Rent Hub",
        390.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    ("l4", "GPU Rent Hub", 250.0, "USD", Per::Month, OfferKind::Monthly),
    (
        "rtx-3090",
        "GPU Rent Hub",
        230.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
    (
        "rtx-a5000",
        "GPU Rent Hub",
        190.0,
        "USD",
        Per::Month,
        OfferKind::Monthly,
    ),
];

#[test]
fn every_seed_price_is_in_the_catalog_and_converts_at_7_2() {
    let c = catalog();
    let rates = Rates::default();
    let all: usize = c.gpus.iter().map(|g| g.offers.len()).sum();
    assert_eq!(
        all,
        SEED_PRICES.len(),
        "an offer without a seed row, or the reverse"
    );
    for &(gpu, provider, price, currency, per, kind) in SEED_PRICES {
        let g = &c.gpus[c.gpu_index(gpu).unwrap_or_else(|| panic!("no card {gpu}"))];
        let o = g
            .offers
            .iter()
            .find(|o| o.provider.starts_with(provider) && o.price == price && o.kind == kind)
            .unwrap_or_else(|| panic!("{gpu}: no {provider} offer at {price}"));
        assert_eq!((o.currency.as_str(), o.per), (currency, per), "{gpu} {provider}");
        let usd = rates.to_usd(price, currency).unwrap();
        if currency == "CNY" {
            assert!((usd * 7.2 - price).abs() < 1e-9);
        } else {
            assert_eq!(usd, price);
        }
    }
    // Seed 000 converts dollars at 7.2: RunPod's $0.34/h community 4090 is ¥2.45 (rounded).
    assert!((0.34 * 7.2_f64 - 2.45).abs() < 0.01);
    // The 1/20 A100 slice is a card of its own, with seed 001's 4 GB.
    assert_eq!(c.gpus[c.gpu_index("a100-vgpu-1-20").unwrap()].memory_gb, 4.0);
}

fn cheapest(c: &Catalog, gpu: &str, count: u32, hours: f64, spot: bool) -> (f64, String, OfferKind) {
    let g = &c.gpus[c.gpu_index(gpu).unwrap()];
    let (cost, i) = g
        .cheapest_offer(count, hours, &Rates::default(), &OfferFilter::default(), spot)
        .unwrap();
    (cost, g.offers[i].provider.clone(), g.offers[i].kind)
}

#[test]
fn the_cheapest_offer_depends_on_the_term() {
    let c = catalog();
    // A100 40GB (seed 001): a month at ¥2,800; a quarter at 95 %; a year at 80 %.
    let (m, _, k) = cheapest(&c, "a100-40gb-pcie", 1, 720.0, false);
    assert_eq!((k, (m * 7.2).round()), (OfferKind::Monthly, 2800.0));
    let (q, _, k) = cheapest(&c, "a100-40gb-pcie", 1, 2160.0, false);
    assert_eq!((k, (q * 7.2).round()), (OfferKind::Quarterly, 3.0 * 2660.0));
    let (y, _, k) = cheapest(&c, "a100-40gb-pcie", 1, 8640.0, false);
    assert_eq!((k, (y * 7.2).round()), (OfferKind::Yearly, 12.0 * 2240.0));
    // A yearly term is never chosen for a week: its minimum is twelve months.
    let (w, _, k) = cheapest(&c, "a100-40gb-pcie", 1, 168.0, false);
    assert_eq!((k, (w * 7.2).round()), (OfferKind::Monthly, 2800.0));
    // RTX 4090 for ten hours: ¥1.24/h on demand; spot apart at ¥0.87/h.
    let (od, p, _) = cheapest(&c, "rtx-4090", 1, 10.0, false);
    assert!(p.starts_with("Suanjia") && (od * 7.2 - 12.4).abs() < 1e-9);
    let (sp, p, _) = cheapest(&c, "rtx-4090", 1, 10.0, true);
    assert!(p.starts_with("Vast.ai") && (sp * 7.2 - 8.7).abs() < 1e-9);
    // GPU Rent Hub prorates monthly prices with a 7-day minimum: a day of an RTX A5000
    // costs a week, $190 × 168/720 = $44.33 (seed 003's "$55 weekly minimum" does not follow).
    let (d, _, _) = cheapest(&c, "rtx-a5000", 1, 24.0, false);
    assert!((d - 190.0 * 168.0 / 720.0).abs() < 1e-9);
    // An estimate ("¥1,500–2,500, on enquiry") never beats a firm price.
    let (_, _, k) = cheapest(&c, "rtx-4090", 1, 720.0, false);
    assert_ne!(k, OfferKind::Estimate);
}

#[test]
fn seven_b_qlora_over_100m_tokens_rtx_4090_vs_a100() {
    // 6 × 7e9 FLOPs/token (LoRA-style forward + input gradients + checkpoint recompute)
    // × 1e8 tokens = 4.2e18 FLOPs.
    let c = catalog();
    let m = c.model("seed-7b").unwrap();
    let mut sc = Scenario::seed_training(Method::Qlora).calibrated();
    sc.weights = WeightPrecision::Nf4;
    sc.rent.train_tokens = Some(100_000_000);
    let on = |gpu: &str| {
        let g = vec![c.gpus[c.gpu_index(gpu).unwrap()].clone()];
        plan(m, &g, &sc, false).options[0].clone()
    };
    let rtx = on("rtx-4090");
    let a100 = on("a100-80gb-pcie");
    // RTX 4090: 4.2e18 / (165.2e12 × 0.4) = 63,559 s; NF4 dequantization: 48,828 steps ×
    // 3 passes × 2.5 B × 7e9 / 1,008 GB/s = 2,543 s. 18.36 h, rented at ¥1.24/h for 19 h.
    let t = rtx.training.unwrap();
    assert!(
        (t.hours - (63_559.3 + 2_543.4) / 3600.0).abs() < 0.01,
        "{}",
        t.hours
    );
    assert!((rtx.train_cost_usd.unwrap() - 19.0 * 1.24 / 7.2).abs() < 1e-9);
    // A100 80GB PCIe: 4.2e18 / (312e12 × 0.4) = 33,654 s + 1,325 s = 9.72 h at ¥5.47/h × 10 h.
    let t = a100.training.unwrap();
    assert!(
        (t.hours - (33_653.8 + 1_325.0) / 3600.0).abs() < 0.01,
        "{}",
        t.hours
    );
    assert!((a100.train_cost_usd.unwrap() - 10.0 * 5.47 / 7.2).abs() < 1e-9);
    // The A100 finishes in half the time; the 4090 finishes for less than half the money.
    assert!(a100.training.unwrap().hours < 0.6 * rtx.training.unwrap().hours);
    assert!(rtx.train_cost_usd.unwrap() < 0.5 * a100.train_cost_usd.unwrap());
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("renting-{}-{name}", std::process::id()));
    // Fresh each run: an earlier run with the same process id left its files here.
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn save_then_load_gives_the_same_plan() {
    let mut sc = Scenario::seed_training(Method::Lora).calibrated();
    sc.lora_rank = 64;
    sc.cards = 4;
    sc.rent.train_tokens = Some(1_000_000_000);
    sc.rent.display_currency = "CNY".into();
    sc.tight_rule = vramfit::engine::TightRule::Margin(0.3);
    // A framework's preset, then one of its values changed by hand: both come back.
    vramfit::engine::Framework::Torchtune.apply(&mut sc);
    sc.compile = true;
    let file = PlanFile::new(
        "llama-3.1-8b",
        &sc,
        vramfit::engine::verdict::rank::SortBy::Finish,
        Some(("h100-sxm", 4)),
    );
    let path = temp("roundtrip").join("plan.toml");
    file.save(&path).unwrap();
    let (loaded, scenario, sort) = PlanFile::load(&path).unwrap();
    assert_eq!(loaded, file);
    assert_eq!(scenario, sc);
    assert_eq!(sort, vramfit::engine::verdict::rank::SortBy::Finish);
}

#[test]
fn a_failed_save_leaves_what_was_there_and_no_temporary_file() {
    let dir = temp("interrupted");
    // The target is a folder with a file in it: the rename over it fails.
    let path = dir.join("plan.toml");
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("keep"), "old\n").unwrap();
    let err = vramfit::files::write_atomic(&path, b"new plan\n");
    assert!(err.is_err());
    assert_eq!(std::fs::read_to_string(path.join("keep")).unwrap(), "old\n");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["plan.toml"], "no temporary file left: {left:?}");
}

#[test]
#[cfg(unix)]
fn a_save_never_writes_through_a_planted_symlink() {
    let dir = temp("symlink");
    let outside = temp("symlink-outside").join("victim");
    std::fs::write(&outside, "precious\n").unwrap();
    // Symlinks at every name the old, predictable scheme would use.
    let path = dir.join("plan.toml");
    for pid in [std::process::id(), 0, 1] {
        std::os::unix::fs::symlink(&outside, dir.join(format!(".plan.toml.{pid}.tmp"))).unwrap();
    }
    vramfit::files::write_atomic(&path, b"new plan\n").unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new plan\n");
}

#[test]
fn a_bad_plan_file_names_file_line_and_column() {
    let dir = temp("bad");
    let sc = Scenario::seed_inference(WeightPrecision::Fp8).calibrated();
    let good = PlanFile::new(
        "llama-3.1-8b",
        &sc,
        vramfit::engine::verdict::rank::SortBy::Price,
        None,
    )
    .to_toml();
    let bad = good.replace("method = \"inference\"", "method = \"pretraining\"");
    let path = dir.join("bad.toml");
    std::fs::write(&path, &bad).unwrap();
    let e = PlanFile::load(&path).unwrap_err();
    let line = bad.lines().position(|l| l.starts_with("method")).unwrap() + 1;
    assert_eq!((e.line, e.column), (Some(line), Some(1)), "{e}");
    assert!(
        e.message.contains("not one of inference, full, lora, qlora"),
        "{e}"
    );
    std::fs::write(&path, "model = [\n").unwrap();
    let e = PlanFile::load(&path).unwrap_err();
    assert!(e.line.is_some(), "{e}");
}

mod common;
use common::vramfit;

#[test]
fn cli_offer_rent_and_finish_fields() {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "seed-7b",
            "--method",
            "qlora",
            "--train-tokens",
            "100000000",
        ])
        .args(["--hours", "10", "--gpu", "rtx-4090", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["options"][0];
    assert_eq!(o["offer"]["provider"], "Suanjia Cloud (算家云)");
    assert_eq!(o["offer"]["currency"], "CNY");
    assert_eq!(o["offer"]["per"], "hour");
    assert_eq!(o["offer"]["kind"], "on-demand");
    assert_eq!(o["rent_cost_usd"], 1.72, "¥12.40 for ten hours");
    assert_eq!(o["spot_offer"]["provider"], "Vast.ai");
    assert!(o["train_hours"].as_f64().unwrap() > 18.0);
    assert_eq!(o["train_cost_usd"], 3.27);
    assert_eq!(o["train_offer"]["provider"], "Suanjia Cloud (算家云)");
}

#[test]
fn cli_ranks_by_cost_to_finish_and_writes_markdown() {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--method",
            "lora",
            "--train-tokens",
            "1000000000",
        ])
        .args(["--sort", "finish", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let costs: Vec<f64> = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["verdict"] != "no")
        .filter_map(|o| o["train_cost_usd"].as_f64())
        .collect();
    assert!(costs.len() > 5);
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "ranked by cost to finish");
    vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--method",
            "lora",
            "--train-tokens",
            "1000000000",
            "--markdown",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("| segment | GB | formula |"))
        .stdout(predicates::str::contains("finish cost"));
    vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--sort", "finish"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--sort finish needs --train-tokens"));
    vramfit()
        .args([
            "plan",
            "--model",
            "seed-7b",
            "--currency",
            "cny",
            "--convention",
            "seed",
            "--provider",
            "GPU Rent Hub",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("¥1,368"));
}
