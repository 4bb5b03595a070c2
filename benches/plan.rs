//! Speed of the engine: one full plan (breakdown + every card and combo of the catalog),
//! and the seed lookup table (30 plans).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vramfit::catalog::Catalog;
use vramfit::engine::verdict::lookup::lookup_table;
use vramfit::engine::{Method, Scenario, WeightPrecision, plan};

fn bench_plan(c: &mut Criterion) {
    let catalog = Catalog::embedded().unwrap();
    let model = catalog.model("llama-3.1-70b").unwrap().clone();
    // vLLM's batch defaults follow the card: the catalog is planned in groups.
    let mut vllm = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    vllm.framework = vramfit::engine::Framework::Vllm;
    vramfit::engine::runtimes::settle::settle(
        &mut vllm,
        &vramfit::engine::runtimes::settle::UserSet::default(),
    );
    // llama.cpp's --fit and Ollama's num_ctx tiers give each card its own context.
    let runtime = |framework| {
        let mut sc = Scenario::seed_inference(WeightPrecision::Q4KM).calibrated();
        sc.framework = framework;
        vramfit::engine::runtimes::settle::settle(
            &mut sc,
            &vramfit::engine::runtimes::settle::UserSet::default(),
        );
        sc.weights = WeightPrecision::Q4KM;
        sc
    };
    let cases = [
        ("plan: 70B BF16 under vLLM, cards grouped by batch defaults", vllm),
        (
            "plan: 70B Q4_K_M under llama.cpp, --fit's context per card",
            runtime(vramfit::engine::Framework::LlamaCpp),
        ),
        (
            "plan: 70B Q4_K_M under Ollama, num_ctx by each card's VRAM",
            runtime(vramfit::engine::Framework::Ollama),
        ),
        (
            "plan: 70B FP8 inference, seed rules",
            Scenario::seed_inference(WeightPrecision::Fp8),
        ),
        (
            "plan: 70B FP8 inference, calibrated",
            Scenario::seed_inference(WeightPrecision::Fp8).calibrated(),
        ),
        (
            "plan: 70B QLoRA, calibrated",
            Scenario::seed_training(Method::Qlora).calibrated(),
        ),
    ];
    for (name, scenario) in &cases {
        c.bench_function(name, |b| {
            b.iter(|| {
                plan(
                    black_box(&model),
                    black_box(&catalog.gpus),
                    black_box(scenario),
                    true,
                )
            })
        });
    }
    let seeds: Vec<_> = ["seed-7b", "seed-13b", "seed-34b", "seed-70b", "seed-405b"]
        .iter()
        .map(|id| catalog.model(id).unwrap())
        .collect();
    c.bench_function("lookup table: 5 sizes x 6 methods", |b| {
        b.iter(|| lookup_table(black_box(&seeds), black_box(&catalog.gpus)))
    });
    // What would make it fit: the full advice for one target that does not fit, and the
    // headroom of one that does (the solvers only).
    let h100 = vramfit::engine::verdict::changes::Target {
        gpu: catalog.gpu_index("h100-pcie").unwrap(),
        count: 1,
    };
    let fp8 = Scenario::seed_inference(WeightPrecision::Fp8).calibrated();
    c.bench_function("to fit: 70B FP8 on one H100 PCIe (does not fit)", |b| {
        b.iter(|| {
            vramfit::engine::verdict::advise::advise(black_box(&model), &catalog.gpus, black_box(&fp8), h100)
        })
    });
    let small = catalog.model("llama-3.1-8b").unwrap().clone();
    c.bench_function("to fit: 8B BF16 on one H100 PCIe (headroom)", |b| {
        b.iter(|| {
            vramfit::engine::verdict::advise::advise(black_box(&small), &catalog.gpus, black_box(&fp8), h100)
        })
    });
    // Rent to a target: every card and combo of the catalog judged for 40 users at 8K and
    // 20 tokens/s each, replicas up to 16, and the cheapest that meets it (budget 20 ms).
    let mut serve = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    serve.framework = vramfit::engine::Framework::Vllm;
    vramfit::engine::runtimes::settle::settle(
        &mut serve,
        &vramfit::engine::runtimes::settle::UserSet::default(),
    );
    serve.target = vramfit::engine::verdict::meets_target::Target {
        users: Some(40),
        min_tps: Some(20.0),
        max_ttft_s: Some(2.0),
        deadline_h: None,
    };
    for (id, label) in [("llama-3.1-8b", "8B"), ("llama-3.1-70b", "70B")] {
        let m = catalog.model(id).unwrap().clone();
        c.bench_function(
            &format!("target: {label}, 40 users at 20 t/s over the catalog, replicas up to 16"),
            |b| {
                b.iter(|| {
                    let p = plan(black_box(&m), black_box(&catalog.gpus), black_box(&serve), true);
                    vramfit::engine::renting::cheapest_meeting(&p.options).map(|o| (o.gpu, o.count))
                })
            },
        );
    }
    c.bench_function("catalog: load the embedded catalog", |b| {
        b.iter(|| Catalog::embedded().unwrap())
    });
}

/// The best placement of a 100-layer model over four devices (three kinds of card and the
/// host) when it must spill: the budget is 2 ms.
fn bench_placement(c: &mut Criterion) {
    use vramfit::engine::hardware::host::Host;
    use vramfit::engine::placement::{Cards, Request, place};
    let catalog = Catalog::embedded().unwrap();
    let mut model = catalog.model("llama-3.1-70b").unwrap().clone();
    model.arch.layers = 100;
    let mut sc = Scenario::seed_inference(WeightPrecision::Q4KM).calibrated();
    sc.framework = vramfit::engine::Framework::LlamaCpp;
    vramfit::engine::runtimes::settle::settle(&mut sc, &Default::default());
    sc.weights = WeightPrecision::Q4KM;
    sc.host = Some(Host::new(128.0, Some(89.6)));
    let card = |id: &str| &catalog.gpus[catalog.gpu_index(id).unwrap()];
    let rig = [
        Cards {
            gpu: card("rtx-4090"),
            count: 1,
            usable: 16e9,
        },
        Cards {
            gpu: card("rtx-3090"),
            count: 1,
            usable: 16e9,
        },
        Cards {
            gpu: card("rtx-3060-12gb"),
            count: 1,
            usable: 8e9,
        },
    ];
    let per_card = vramfit::engine::memory::breakdown(&model, &sc);
    c.bench_function("placement: 100 layers over 3 cards and the host", |b| {
        b.iter(|| {
            let p = place(black_box(&Request {
                model: &model,
                scenario: &sc,
                rig: &rig,
                host: sc.host.as_ref(),
                per_card: &per_card,
                work: None,
            }));
            assert!(p.offloads());
            p
        })
    });
}

criterion_group!(benches, bench_plan, bench_placement);
criterion_main!(benches);
