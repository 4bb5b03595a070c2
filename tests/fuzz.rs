//! Fuzzing as tests: random and hostile input to every reader and to the whole plan path.
//! Nothing may panic, and whatever is accepted must plan to finite, non-negative numbers.
//! `PROPTEST_CASES=100000 cargo test --release --test fuzz` runs a deep search; the default
//! (256 cases per target) runs with the suite.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use vramfit::catalog::{Catalog, hf};
use vramfit::engine::verdict::rank::SortBy;
use vramfit::engine::{
    Choice, Convention, KvPrecision, Method, Model, Plan, Scenario, WeightPrecision, plan,
};
use vramfit::planfile::PlanFile;
use vramfit::tui::theme::Theme;

fn catalog() -> &'static Catalog {
    use std::sync::OnceLock;
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::embedded().unwrap())
}

/// Every figure of a plan a user reads: finite; bytes non-negative; something to hold.
fn assert_sane(model: &Model, p: &Plan) -> Result<(), TestCaseError> {
    prop_assert!(model.params().total > 0 && model.params().active > 0);
    prop_assert!(
        p.total_bytes().is_finite() && p.total_bytes() > 0.0,
        "total {}",
        p.total_bytes()
    );
    for (_, b) in &p.per_count {
        for s in &b.segments {
            prop_assert!(s.bytes.is_finite() && s.bytes >= 0.0, "{:?}", s.kind);
        }
        prop_assert!(b.host_bytes.is_finite() && b.host_bytes >= 0.0);
    }
    for o in &p.options {
        for v in [o.capacity_bytes, o.usable_bytes, o.per_card_bytes] {
            prop_assert!(v.is_finite() && v > 0.0, "{v}");
        }
        prop_assert!(o.free_bytes.is_finite() && o.free_bytes_per_card.is_finite());
        for v in [
            o.price_usd_month,
            o.decode_tokens_per_s,
            o.rent_cost_usd,
            o.spot_rent_cost_usd,
            o.train_cost_usd,
        ]
        .into_iter()
        .flatten()
        {
            prop_assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        if let Some(r) = o.roofline {
            prop_assert!(r.per_stream.is_finite() && r.aggregate.is_finite() && r.per_stream >= 0.0);
        }
        if let Some(t) = o.training {
            prop_assert!(t.hours.is_finite() && t.hours > 0.0);
        }
    }
    Ok(())
}

/// The JSON a script reads: every number finite (NaN would print as null), every byte count
/// but the free ones non-negative, the total positive.
fn assert_json_sane(model: &Model, sc: &Scenario, p: &Plan) -> Result<(), TestCaseError> {
    let v = serde_json::to_value(vramfit::present::json::plan_json(model, &catalog().gpus, sc, p)).unwrap();
    // Past 2^64 bytes (the knobs' edges) a byte count is a float, the true value.
    prop_assert!(v["total_bytes"].as_f64().unwrap() > 0.0);
    fn walk(key: &str, v: &Value) -> Result<(), TestCaseError> {
        match v {
            Value::Number(n) => {
                let f = n.as_f64().unwrap();
                prop_assert!(f.is_finite());
                if key.ends_with("bytes") && !key.starts_with("free") {
                    prop_assert!(f >= 0.0, "{key} = {f}");
                }
            }
            Value::Array(a) => a.iter().try_for_each(|x| walk(key, x))?,
            Value::Object(o) => o.iter().try_for_each(|(k, x)| walk(k, x))?,
            _ => {}
        }
        Ok(())
    }
    walk("", &v)
}

fn default_scenario() -> Scenario {
    Scenario::seed_inference(WeightPrecision::Bf16).calibrated()
}

/// A value a config.json field might hold, hostile ones included.
fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        10 => (1u64..=8192).prop_map(|n| json!(n)),
        2 => (1u64..=1 << 20).prop_map(|n| json!(n)),
        1 => Just(json!(0)),
        1 => Just(json!(u64::MAX)),
        1 => Just(json!(1u64 << 62)),
        1 => Just(json!(9_223_372_036_854_775_808u64)),
        1 => (-5i64..0).prop_map(|n| json!(n)),
        1 => any::<f64>().prop_map(|f| json!(f)),
        1 => ".{0,8}".prop_map(|s| json!(s)),
        1 => Just(json!("evil\u{1b}]0;x\u{7}")),
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(|b| json!(b)),
    ]
}

const CONFIG_KEYS: &[&str] = &[
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "intermediate_size",
    "max_position_embeddings",
    "sliding_window",
    "num_local_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "n_shared_experts",
    "first_k_dense_replace",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "sliding_window_pattern",
    "n_positions",
    "shared_expert_intermediate_size",
];

/// Every family the importer knows, then one it does not and an empty name.
fn model_types() -> Vec<&'static str> {
    let mut types = vramfit::catalog::hf::known_types();
    types.extend(["fancy", ""]);
    types
}

fn config_strategy() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(model_types()),
        proptest::collection::vec((0..CONFIG_KEYS.len(), json_value()), 0..6),
        proptest::collection::vec(
            prop_oneof![Just("full_attention"), Just("sliding_attention")],
            0..64,
        ),
        any::<bool>(),
    )
        .prop_map(|(t, fields, layer_types, with_types)| {
            // A working base, then the fuzzed fields over it.
            let mut map = Map::new();
            for (k, v) in [
                ("hidden_size", 2048),
                ("num_hidden_layers", 16),
                ("num_attention_heads", 16),
                ("vocab_size", 32000),
            ] {
                map.insert(k.into(), json!(v));
            }
            map.insert("model_type".into(), json!(t));
            for (k, v) in fields {
                map.insert(CONFIG_KEYS[k].into(), v);
            }
            if with_types {
                map.insert("layer_types".into(), json!(layer_types));
            }
            Value::Object(map).to_string()
        })
}

/// A number as TOML writes it, hostile ones included.
fn toml_number() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => (1u32..2_000).prop_map(|n| n.to_string()),
        4 => (1.0f64..1e4).prop_map(|f| format!("{f:.3}")),
        1 => Just("nan".to_string()),
        1 => Just("inf".to_string()),
        1 => Just("-inf".to_string()),
        1 => Just("0".to_string()),
        1 => (-1e6f64..0.0).prop_map(|f| format!("{f:.3}")),
        1 => Just("1e300".to_string()),
    ]
}

fn discount() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0.0f64..0.9).prop_map(|f| format!("{f:.3}")),
        1 => Just("1.5".to_string()),
        1 => Just("nan".to_string()),
        1 => Just("-0.1".to_string()),
    ]
}

fn visible_bytes() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (1e9f64..1e12).prop_map(|f| format!("{f:.0}")),
        1 => Just("nan".to_string()),
        1 => Just("-5".to_string()),
        1 => Just("1e20".to_string()),
    ]
}

fn catalog_strategy() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(toml_number(), 7),
        visible_bytes(),
        proptest::collection::vec(discount(), 2),
        0u8..8,
        any::<bool>(),
    )
        .prop_map(|(n, visible, d, pcie, ecc)| {
            // TOML's own escape: the name reaches the catalog holding a real ESC.
            let name = if ecc { "\\u001b[31m" } else { "" };
            format!(
                r#"[[gpu]]
id = "fuzz"
name = "Fuzz{name}"
vendor = "X"
architecture = "X"
memory_gb = {}
memory_visible_bytes = {visible}
memory_type = "X"
bandwidth_gbs = {}
bf16_tflops = {}
fp8 = true
fp8_tflops = {}
link = "pcie"
link_gbs = {}
pcie_gen = {pcie}
stack = "cuda"
year = 2024

[[offer]]
gpu = "FUZZ"
provider = "Fuzz"
price = {}
price_max = {}
currency = "USD"
per = "month"
min_term_days = 7
discounts = [{{ cards = 2, discount = {} }}, {{ cards = 4, discount = {} }}]
"#,
                n[0], n[1], n[2], n[3], n[4], n[5], n[6], d[0], d[1]
            )
        })
}

static ACCEPTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static TRIED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CATALOGS_ACCEPTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn sort_strategy() -> impl Strategy<Value = SortBy> {
    (0..SortBy::ALL.len()).prop_map(|i| SortBy::ALL[i])
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn config_json_import_accepts_only_shapes_that_plan_sanely(text in config_strategy()) {
        let imported = hf::from_str("config.json", &text, "fuzz");
        ACCEPTED.fetch_add(u64::from(imported.is_ok()), std::sync::atomic::Ordering::Relaxed);
        TRIED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(model) = imported {
            prop_assert!(model.arch.validate().is_ok());
            prop_assert!(!model.name.chars().any(char::is_control));
            let sc = default_scenario();
            let p = plan(&model, &catalog().gpus, &sc, true);
            assert_sane(&model, &p)?;
            assert_json_sane(&model, &sc, &p)?;
        }
    }

    #[test]
    fn config_json_import_never_panics_on_any_text(text in "\\PC{0,200}") {
        let _ = hf::from_str("config.json", &text, "fuzz");
    }

    #[test]
    fn catalogs_admit_only_sane_numbers(text in catalog_strategy()) {
        let mut c = catalog().clone();
        let merged = c.merge_str("fuzz.toml", &text);
        CATALOGS_ACCEPTED.fetch_add(u64::from(merged.is_ok()), std::sync::atomic::Ordering::Relaxed);
        if merged.is_ok() {
            let g = c.gpus.iter().find(|g| g.id == "fuzz").unwrap();
            prop_assert!(!g.name.chars().any(char::is_control));
            for o in &g.offers {
                prop_assert!(o.price.is_finite() && o.price > 0.0);
                prop_assert!(o.discounts.iter().all(|d| (0.0..1.0).contains(&d.discount)));
            }
            let model = c.model("llama-3.1-8b").unwrap();
            let sc = default_scenario();
            let p = plan(model, std::slice::from_ref(g), &sc, true);
            assert_sane(model, &p)?;
        }
    }

    #[test]
    fn plan_files_admit_only_valid_scenarios(
        utilization in toml_number(), hours in toml_number(), gpu_util in toml_number(),
        usd_cny in toml_number(), network in toml_number(), margin in toml_number(),
        context in 0u64..20_000_000, cards in 0u32..5000,
    ) {
        let base = PlanFile::new("llama-3.1-8b", &default_scenario(), SortBy::Price, None).to_toml();
        let mut text = String::new();
        for line in base.lines() {
            let key = line.split(" =").next().unwrap_or("");
            let replaced = match key {
                "utilization" => format!("utilization = {utilization}"),
                "hours" => format!("hours = {hours}"),
                "gpu-util" => format!("gpu-util = {gpu_util}"),
                "usd-cny" => format!("usd-cny = {usd_cny}"),
                "network-gbps" => format!("network-gbps = {network}"),
                "context" => format!("context = {context}"),
                "cards" => format!("cards = {cards}"),
                _ => line.to_string(),
            };
            text.push_str(&replaced);
            text.push('\n');
        }
        text.push_str(&format!("margin = {margin}\n"));
        if let Ok(file) = toml::from_str::<PlanFile>(&text)
            && let Ok((sc, _)) = file.scenario()
        {
            prop_assert!(sc.check().is_ok());
            let model = catalog().model("llama-3.1-8b").unwrap();
            let p = plan(model, &catalog().gpus, &sc, true);
            assert_sane(model, &p)?;
        }
    }

    #[test]
    fn themes_admit_only_printable_one_cell_glyphs(symbol in "\\PC{0,3}|[\\x00-\\x1f\\x7f]", extends in "[a-z./]{0,12}") {
        let text = format!("extends = {extends:?}\n[bar.weights]\nsymbol = {symbol:?}\n[bar.free]\nsymbol = {symbol:?}\n");
        if let Ok(theme) = Theme::parse("fuzz.toml", &text) {
            for look in theme.segments.iter().chain([&theme.free]) {
                prop_assert_eq!(look.symbol.chars().count(), 1);
                prop_assert!(!look.symbol.chars().any(char::is_control));
            }
            prop_assert!(Theme::names().contains(&extends.as_str()));
        }
    }

    #[test]
    fn every_validated_plan_prints_finite_non_negative_json(
        m in 0usize..64, method in 0..Method::ALL.len(), w in 0..32usize, kv in 0..KvPrecision::ALL.len(),
        context in 1u64..=2_000_000, batch in 1u64..=4096, cards in 1u32..=64, seed in any::<bool>(),
        sort in sort_strategy(), hours in 1.0f64..87_600.0, util in 0.01f64..=1.0,
        train in proptest::option::of(1u64..1_000_000_000_000),
    ) {
        let models = &catalog().models;
        let model = &models[m % models.len()];
        let method = Method::ALL[method];
        let weights: Vec<_> = WeightPrecision::ALL.iter().copied()
            .filter(|wp| Scenario { method, weights: *wp, ..default_scenario() }.check().is_ok())
            .collect();
        let mut sc = Scenario {
            method,
            weights: weights[w % weights.len()],
            kv: KvPrecision::ALL[kv],
            context,
            batch,
            cards,
            convention: if seed { Convention::Seed } else { Convention::Calibrated },
            ..default_scenario()
        };
        sc.rent.hours = hours;
        sc.rent.utilization = util;
        sc.rent.train_tokens = train;
        prop_assume!(sc.check().is_ok());
        let mut p = plan(model, &catalog().gpus, &sc, true);
        vramfit::engine::verdict::rank::rank_options(&mut p.options, sort);
        assert_sane(model, &p)?;
        assert_json_sane(model, &sc, &p)?;
    }
}

#[test]
fn the_config_fuzzer_reaches_accepted_models() {
    // Run the property here too, so the counters are this run's: a fuzzer that never
    // produces an accepted model would test nothing past the first check.
    config_json_import_accepts_only_shapes_that_plan_sanely();
    catalogs_admit_only_sane_numbers();
    eprintln!(
        "catalog fuzz: {} accepted",
        CATALOGS_ACCEPTED.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(CATALOGS_ACCEPTED.load(std::sync::atomic::Ordering::Relaxed) > 0);
    let (ok, all) = (
        ACCEPTED.load(std::sync::atomic::Ordering::Relaxed),
        TRIED.load(std::sync::atomic::Ordering::Relaxed),
    );
    eprintln!("config fuzz: {ok} of {all} configs accepted");
    assert!(ok * 20 >= all, "only {ok} of {all} accepted");
}
