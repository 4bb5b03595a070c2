//! The speed budget (the benchmark table of docs/guide/development.md): a 70B `plan` as a
//! whole process, as text and as JSON (each within 4 ms, within 1 ms of each other); and a
//! 10,000-card catalog the bench writes itself: `plan` within 100 ms and `table` within 300 ms
//! and 60 MB.
//!
//! Whole processes are timed by spawning the built binary; the peak memory of a process is
//! read with GNU time where the machine has it (`/usr/bin/time -f %M`), else not reported.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use vramfit::catalog::Catalog;
use vramfit::engine::verdict::lookup::{LookupColumn, lookup_cell};
use vramfit::engine::verdict::plan;

const BIN: &str = env!("CARGO_BIN_EXE_vramfit");
const CARDS: usize = 10_000;

/// Providers the generated offers come from: the table prices the GPU Rent Hub's alone, as
/// a real aggregated catalog would hold a tenth of its cards from each of ten.
const PROVIDERS: [&str; 10] = [
    "GPU Rent Hub",
    "RunPod",
    "Vast.ai",
    "Lambda",
    "AutoDL",
    "Featurize",
    "Together",
    "Hyperstack",
    "CoreWeave",
    "Paperspace",
];

/// A catalog of `n` cards, each with one offer, in the shape of the embedded one (a
/// deterministic spread of memory, bandwidth, compute, links and prices).
fn generated_catalog(n: usize) -> String {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |range: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % range
    };
    let memory = [8, 12, 16, 24, 32, 40, 48, 80, 96, 141, 192];
    let mut s = String::from("updated = 2026-12-01\n\n");
    for i in 0..n {
        let gb = memory[next(memory.len() as u64) as usize];
        let link = if next(2) == 0 { "nvswitch" } else { "pcie" };
        s.push_str(&format!(
            "[[gpu]]\nid = \"bench-card-{i}\"\nname = \"Bench card {i}\"\nvendor = \"NVIDIA\"\n\
             architecture = \"Hopper\"\nmemory_gb = {gb}\nmemory_type = \"HBM3\"\n\
             bandwidth_gbs = {}\nbf16_tflops = {}\nfp8 = {}\nlink = \"{link}\"\nstack = \"cuda\"\n\
             year = 2025\nsegment = \"datacenter\"\n\n[[offer]]\ngpu = \"bench-card-{i}\"\n\
             provider = \"{}\"\nprice = {}\ncurrency = \"USD\"\nper = \"month\"\nkind = \"monthly\"\n\
             seen = \"2026-09-01\"\nsource = \"bench\"\n\n",
            300 + next(7_700),
            20 + next(1_980),
            next(2) == 0,
            PROVIDERS[next(PROVIDERS.len() as u64) as usize],
            100 + next(4_900),
        ));
    }
    s
}

fn write_catalog(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("cards.toml");
    std::fs::write(&path, generated_catalog(CARDS)).unwrap();
    path
}

fn run(args: &[&str]) {
    let out = Command::new(BIN).args(args).output().expect("runs vramfit");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    black_box(out.stdout.len());
}

/// The peak resident memory of `vramfit args`, in MB, where GNU time can tell.
fn peak_mb(args: &[&str]) -> Option<f64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", BIN])
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let kb: f64 = text.lines().last()?.trim().parse().ok()?;
    Some(kb * 1024.0 / 1e6)
}

fn bench_budget(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("vramfit-bench-{}", std::process::id()));
    let big = write_catalog(&dir);
    let big = big.to_str().unwrap();

    for (what, args) in [
        ("plan 70B, text", vec!["plan", "-m", "llama-3.1-70b"]),
        ("plan 70B, JSON", vec!["plan", "-m", "llama-3.1-70b", "--json"]),
        (
            "plan 70B, 10,000 cards",
            vec!["plan", "-m", "llama-3.1-70b", "--catalog", big],
        ),
        ("table, 10,000 cards", vec!["table", "--catalog", big]),
    ] {
        if let Some(mb) = peak_mb(&args) {
            println!("peak memory of `vramfit {what}`: {mb:.1} MB");
        }
    }

    c.bench_function("process: vramfit plan 70B (text)", |b| {
        b.iter(|| run(&["plan", "-m", "llama-3.1-70b"]))
    });
    c.bench_function("process: vramfit plan 70B --json", |b| {
        b.iter(|| run(&["plan", "-m", "llama-3.1-70b", "--json"]))
    });

    let mut group = c.benchmark_group("10,000 cards");
    group.sample_size(10);
    group.bench_function("process: vramfit plan 70B --catalog", |b| {
        b.iter(|| run(&["plan", "-m", "llama-3.1-70b", "--catalog", big]))
    });
    group.bench_function("process: vramfit table --catalog", |b| {
        b.iter(|| run(&["table", "--catalog", big]))
    });
    let text = std::fs::read_to_string(big).unwrap();
    group.bench_function("parse the catalog file", |b| {
        b.iter(|| {
            let mut catalog = Catalog::embedded().unwrap();
            catalog.merge_str("cards.toml", black_box(&text)).unwrap();
            catalog
        })
    });
    let mut catalog = Catalog::embedded().unwrap();
    catalog.merge_str("cards.toml", &text).unwrap();
    let model = catalog.model("llama-3.1-70b").unwrap().clone();
    let scenario =
        vramfit::engine::Scenario::seed_inference(vramfit::engine::WeightPrecision::Bf16).calibrated();
    group.bench_function("plan 70B and its text (parsed catalog)", |b| {
        b.iter(|| {
            let p = plan::plan(&model, &catalog.gpus, &scenario, true);
            vramfit::present::text::plan_text(&model, &catalog.gpus, &scenario, &p, false)
        })
    });
    let seeds: Vec<_> = ["seed-7b", "seed-13b", "seed-34b", "seed-70b", "seed-405b"]
        .iter()
        .map(|id| catalog.model(id).unwrap())
        .collect();
    group.bench_function("table: 30 cells (parsed catalog)", |b| {
        b.iter(|| {
            seeds
                .iter()
                .flat_map(|m| LookupColumn::ALL.map(|col| lookup_cell(m, &catalog.gpus, col)))
                .count()
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_budget);
criterion_main!(benches);
