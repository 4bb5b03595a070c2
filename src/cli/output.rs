//! What the CLI prints: readable tables and the JSON contract.

use std::fmt::Write as _;

use serde::Serialize;

use super::CliError;
use crate::catalog::Catalog;
use crate::engine::lookup::lookup_table as compute_lookup;
use crate::engine::units::{format_gb, format_params, format_usd, group_thousands, to_gb};
use crate::engine::{Choice, FitOption, Gpu, Model, Plan, Scenario, Segment};

#[derive(Serialize)]
pub struct ModelJson<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub family: &'a str,
    pub params: u64,
    pub active_params: u64,
    /// Full-attention KV bytes per token in the scenario's cache format (16-bit in `models`).
    pub kv_bytes_per_token: u64,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    pub vocab: u64,
    pub max_context: u64,
    pub moe: bool,
    pub hf_repo: Option<&'a str>,
    pub warnings: &'a [String],
}

impl<'a> ModelJson<'a> {
    pub fn new(model: &'a Model, kv_bytes_per_element: f64) -> Self {
        let p = model.params();
        Self {
            id: &model.id,
            name: &model.name,
            family: &model.family,
            params: p.total,
            active_params: p.active,
            kv_bytes_per_token: model.kv_bytes_per_token(kv_bytes_per_element).round() as u64,
            layers: model.arch.layers,
            hidden: model.arch.hidden,
            heads: model.arch.heads,
            kv_heads: model.arch.kv_heads,
            head_dim: model.arch.head_dim,
            vocab: model.arch.vocab,
            max_context: model.max_context,
            moe: model.is_moe(),
            hf_repo: model.hf_repo.as_deref(),
            warnings: &model.warnings,
        }
    }
}

#[derive(Serialize)]
pub struct ScenarioJson {
    pub method: &'static str,
    pub weights: &'static str,
    pub kv: &'static str,
    pub context: u64,
    pub batch: u64,
    pub lora_rank: u64,
    pub lora_targets: &'static str,
    pub optimizer: &'static str,
    pub optimizer_in_backward: bool,
    pub training_precision: &'static str,
    pub checkpointing: bool,
    pub flash_attention: bool,
    pub fused_ce: bool,
    pub zero: u8,
    pub offload: &'static str,
    pub cards: u32,
    pub gpu_util: f64,
}

#[derive(Serialize)]
pub struct OptionJson<'a> {
    pub gpu: &'a str,
    pub name: &'a str,
    pub count: u32,
    pub verdict: &'static str,
    pub free_bytes: i64,
    pub free_bytes_per_card: i64,
    pub capacity_bytes: u64,
    /// What the plan may use: all of it, or a serving engine's share (gpu_util).
    pub usable_bytes: u64,
    /// Bytes each card of the option holds.
    pub per_card_bytes: u64,
    /// The smallest count of this card that holds the plan; null when none up to the
    /// largest combo does.
    pub cards_needed: Option<u32>,
    pub price_usd_month: Option<f64>,
    /// Decode ceiling per stream (tokens/s): an upper bound, not a benchmark.
    pub decode_tokens_per_s: Option<f64>,
    pub decode_aggregate_tokens_per_s: Option<f64>,
    /// Which ceiling binds: `bandwidth` or `compute`.
    pub decode_bound: Option<&'static str>,
    /// Time to first token for `--prompt` tokens, compute-bound.
    pub prefill_seconds: Option<f64>,
    /// `single`, `tensor`, `layer`, or `data` for training combos.
    pub split: &'static str,
    pub link: String,
    pub link_seconds_per_token: Option<f64>,
    pub warning: Option<String>,
    pub kv_capacity_tokens: Option<u64>,
    pub max_concurrent_sequences: Option<u64>,
    pub max_context: Option<u64>,
    pub max_batch: Option<u64>,
    /// The cheapest non-spot offer for the rental term.
    pub offer: Option<OfferJson<'a>>,
    /// Cost of `count` cards for `--hours` in dollars (minimum terms honoured).
    pub rent_cost_usd: Option<f64>,
    pub spot_offer: Option<OfferJson<'a>>,
    pub spot_rent_cost_usd: Option<f64>,
    /// Hours to finish `--train-tokens` × `--epochs` on this option.
    pub train_hours: Option<f64>,
    pub train_cost_usd: Option<f64>,
    pub train_offer: Option<OfferJson<'a>>,
    pub reason: Option<String>,
}

#[derive(Serialize)]
pub struct OfferJson<'a> {
    pub provider: &'a str,
    pub price: f64,
    pub price_max: Option<f64>,
    pub currency: &'a str,
    pub per: &'static str,
    pub kind: &'static str,
    pub region: Option<&'a str>,
    pub min_term_days: Option<u32>,
}

fn offer_json(gpu: &Gpu, index: Option<usize>) -> Option<OfferJson<'_>> {
    let o = &gpu.offers[index?];
    Some(OfferJson {
        provider: &o.provider,
        price: o.price,
        price_max: o.price_max,
        currency: &o.currency,
        per: o.per.id(),
        kind: o.kind.id(),
        region: o.region.as_deref(),
        min_term_days: o.min_term_days,
    })
}

#[derive(Serialize)]
pub struct PlanJson<'a> {
    pub model: ModelJson<'a>,
    pub convention: &'static str,
    pub scenario: ScenarioJson,
    /// Peak bytes per card.
    pub total_bytes: u64,
    /// Host (CPU) RAM the plan needs: offloaded or paged state.
    pub host_bytes: u64,
    pub segments: &'a [Segment],
    pub decode_bytes_per_token: Option<u64>,
    pub notes: &'a [String],
    /// The first fitting option under the chosen rank (`--sort`); null when nothing fits.
    pub cheapest: Option<CheapestJson<'a>>,
    pub options: Vec<OptionJson<'a>>,
}

#[derive(Serialize)]
pub struct CheapestJson<'a> {
    pub gpu: &'a str,
    pub count: u32,
    pub price_usd_month: Option<f64>,
    pub rent_cost_usd: Option<f64>,
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

pub fn option_json<'a>(gpus: &'a [Gpu], o: &'a FitOption) -> OptionJson<'a> {
    let g = &gpus[o.gpu];
    OptionJson {
        gpu: &g.id,
        name: &g.name,
        count: o.count,
        verdict: o.verdict.id(),
        free_bytes: o.free_bytes.round() as i64,
        free_bytes_per_card: o.free_bytes_per_card.round() as i64,
        capacity_bytes: o.capacity_bytes.round() as u64,
        usable_bytes: o.usable_bytes.round() as u64,
        per_card_bytes: o.per_card_bytes.round() as u64,
        cards_needed: o.cards_needed,
        price_usd_month: o.price_usd_month.map(round2),
        decode_tokens_per_s: o.decode_tokens_per_s.map(round2),
        decode_aggregate_tokens_per_s: o.roofline.map(|r| round2(r.aggregate)),
        decode_bound: o.roofline.map(|r| r.bound.id()),
        prefill_seconds: o
            .roofline
            .and_then(|r| r.prefill_seconds)
            .map(|s| (s * 1e4).round() / 1e4),
        split: o.split.id(),
        link: o.link.to_string(),
        link_seconds_per_token: o.roofline.map(|r| r.link_seconds_per_step),
        warning: o.warning(),
        kv_capacity_tokens: o.serving.map(|c| c.kv_capacity_tokens),
        max_concurrent_sequences: o.serving.map(|c| c.max_concurrent_sequences),
        max_context: o.serving.map(|c| c.max_context),
        max_batch: o.serving.map(|c| c.max_batch),
        offer: offer_json(g, o.offer),
        rent_cost_usd: o.rent_cost_usd.map(round2),
        spot_offer: offer_json(g, o.spot_offer),
        spot_rent_cost_usd: o.spot_rent_cost_usd.map(round2),
        train_hours: o.training.map(|t| round2(t.hours)),
        train_cost_usd: o.train_cost_usd.map(round2),
        train_offer: offer_json(g, o.train_offer),
        reason: o.reason.map(|r| r.text(g)),
    }
}

pub fn plan_json<'a>(model: &'a Model, gpus: &'a [Gpu], scenario: &Scenario, plan: &'a Plan) -> PlanJson<'a> {
    PlanJson {
        model: ModelJson::new(model, scenario.kv.bytes_per_element()),
        convention: scenario.convention.id(),
        scenario: ScenarioJson {
            method: scenario.method.id(),
            weights: scenario.weights.id(),
            kv: scenario.kv.id(),
            context: scenario.context,
            batch: scenario.batch,
            lora_rank: scenario.lora_rank,
            lora_targets: scenario.lora_targets.id(),
            optimizer: scenario.optimizer.id(),
            optimizer_in_backward: scenario.optimizer_in_backward,
            training_precision: scenario.training_precision.id(),
            checkpointing: scenario.checkpointing,
            flash_attention: scenario.flash_attention,
            fused_ce: scenario.fused_ce,
            zero: scenario.zero,
            offload: scenario.offload.id(),
            cards: scenario.cards,
            gpu_util: scenario.gpu_util,
        },
        total_bytes: plan.total_bytes().round() as u64,
        host_bytes: plan.breakdown.host_bytes.round() as u64,
        notes: &plan.breakdown.notes,
        segments: &plan.breakdown.segments,
        decode_bytes_per_token: plan.breakdown.decode_bytes_per_token.map(|b| b.round() as u64),
        cheapest: plan.best().map(|o| CheapestJson {
            gpu: &gpus[o.gpu].id,
            count: o.count,
            price_usd_month: o.price_usd_month.map(round2),
            rent_cost_usd: o.rent_cost_usd.map(round2),
        }),
        options: plan.options.iter().map(|o| option_json(gpus, o)).collect(),
    }
}

/// "2× A40" / "A40".
pub fn option_label(gpus: &[Gpu], o: &FitOption) -> String {
    let name = &gpus[o.gpu].name;
    if o.count > 1 {
        format!("{}× {name}", o.count)
    } else {
        name.clone()
    }
}

fn verdict_text(o: &FitOption) -> &'static str {
    o.verdict.id()
}

/// An amount of dollars in the display currency: "$1,590" or "¥11,448".
pub fn money(usd: f64, rates: &crate::engine::gpu::Rates, currency: &str) -> String {
    let v = rates.from_usd(usd, currency);
    if currency == "CNY" {
        format_usd(v).replacen('$', "¥", 1)
    } else {
        format_usd(v)
    }
}

/// "$1,590", or why there is none: "pairs only" (B200), "no price".
pub fn price_text(gpu: &Gpu, o: &FitOption) -> String {
    price_text_in(gpu, o, &crate::engine::gpu::Rates::default(), "USD")
}

/// The monthly price in the display currency, or why there is none.
pub fn price_text_in(gpu: &Gpu, o: &FitOption, rates: &crate::engine::gpu::Rates, currency: &str) -> String {
    let spot = o
        .offer
        .is_some_and(|i| gpu.offers[i].kind == crate::engine::gpu::OfferKind::Spot);
    match o.price_usd_month {
        Some(p) if spot => format!("{} spot", money(p, rates, currency)),
        Some(p) => money(p, rates, currency),
        None => match gpu.offers.iter().map(|x| x.min_cards).min() {
            Some(2) => "pairs only".into(),
            Some(n) if n > o.count => format!("{n}+ only"),
            _ => "no price".into(),
        },
    }
}

/// The readable plan: header, breakdown, options.
pub fn plan_text(model: &Model, gpus: &[Gpu], scenario: &Scenario, plan: &Plan, all: bool) -> String {
    let mut s = String::new();
    let p = plan.params;
    let params = if p.active != p.total {
        format!(
            "{} params ({} active)",
            format_params(p.total),
            format_params(p.active)
        )
    } else {
        format!("{} params", format_params(p.total))
    };
    let _ = writeln!(
        s,
        "{} ({}) · {params} · KV {} B/token ({})",
        model.name,
        model.id,
        group_thousands(plan.kv_bytes_per_token.round() as i64),
        scenario.kv.label()
    );
    let _ = writeln!(
        s,
        "{} · {} weights · {} KV · context {} · batch {} · convention: {}",
        scenario.method.label(),
        scenario.weights.label(),
        scenario.kv.label(),
        group_thousands(scenario.context as i64),
        scenario.batch,
        scenario.convention.id()
    );
    let _ = writeln!(s);
    for seg in &plan.breakdown.segments {
        let _ = writeln!(
            s,
            "  {:<12} {:>11}  {}",
            seg.kind.id(),
            format_gb(seg.bytes),
            seg.formula
        );
    }
    let per_card = if scenario.cards > 1 {
        format!("  per card, on {} cards", scenario.cards)
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "  {:<12} {:>11}{per_card}",
        "total",
        format_gb(plan.total_bytes())
    );
    if plan.breakdown.host_bytes > 0.0 {
        let _ = writeln!(
            s,
            "  {:<12} {:>11}  offloaded or paged state in CPU RAM",
            "host",
            format_gb(plan.breakdown.host_bytes)
        );
    }
    if let Some(f) = &plan.breakdown.decode_formula {
        let _ = writeln!(s, "  decode reads {f}");
    }
    for note in &plan.breakdown.notes {
        let _ = writeln!(s, "  note: {note}");
    }
    let _ = writeln!(s);
    let serving = !scenario.method.is_training();
    let rent = &scenario.rent;
    let cur = rent.display_currency.as_str();
    let show_term = (rent.hours - crate::engine::gpu::HOURS_PER_MONTH).abs() > 0.5;
    let show_train = rent.train_tokens.is_some() && scenario.method.is_training();
    let _ = write!(
        s,
        "  {:<6} {:<30} {:>10} {:>9}",
        "fit",
        "card",
        "free/card",
        if cur == "CNY" { "¥/month" } else { "$/month" }
    );
    if show_term {
        let _ = write!(s, " {:>11}", format!("{:.0} h", rent.hours));
        let _ = write!(s, " {:>9}", "spot");
    }
    if show_train {
        let _ = write!(s, " {:>9} {:>10}", "finish h", "finish");
    }
    if serving {
        let _ = write!(
            s,
            " {:>12} {:>10} {:>9} {:>9}",
            "decode ≤ t/s", "aggregate", "bound", "seqs@ctx"
        );
    }
    let _ = writeln!(s);
    // Unless --all: per card only the smallest count that fits.
    let rows: Vec<usize> = if all {
        (0..plan.options.len()).collect()
    } else {
        crate::engine::fit::one_row_per_card(&plan.options)
            .into_iter()
            .filter(|&i| plan.options[i].verdict.is_fit())
            .collect()
    };
    let hidden = plan.options.len() - rows.len();
    for o in rows.iter().map(|&i| &plan.options[i]) {
        let price = price_text_in(&gpus[o.gpu], o, &rent.rates, cur);
        let _ = write!(
            s,
            "  {:<6} {:<30} {:>10} {:>9}",
            verdict_text(o),
            option_label(gpus, o),
            format_gb(o.free_bytes_per_card),
            price
        );
        let m = |v: Option<f64>| v.map_or("-".to_string(), |u| money(u, &rent.rates, cur));
        if show_term {
            let _ = write!(s, " {:>11} {:>9}", m(o.rent_cost_usd), m(o.spot_rent_cost_usd));
        }
        if show_train {
            let hours = o.training.map_or("-".to_string(), |t| format!("{:.1}", t.hours));
            let _ = write!(s, " {:>9} {:>10}", hours, m(o.train_cost_usd));
        }
        if serving {
            let decode = o
                .decode_tokens_per_s
                .map_or("-".to_string(), |t| format!("{t:.1}"));
            let (agg, bound) = o.roofline.map_or(("-".into(), "-"), |r| {
                (format!("{:.0}", r.aggregate), r.bound.id())
            });
            let seqs = o
                .serving
                .map_or("-".into(), |c| c.max_concurrent_sequences.to_string());
            let _ = write!(s, " {decode:>12} {agg:>10} {bound:>9} {seqs:>9}");
        }
        if o.count > 1 {
            let _ = write!(s, "  {} over {}", o.split.id(), o.link);
        }
        if let Some(w) = o.warning() {
            let _ = write!(s, "  ⚠ {w}");
        }
        if let Some(r) = o.reason {
            let _ = write!(s, "  {}", r.text(&gpus[o.gpu]));
        }
        let _ = writeln!(s);
    }
    if hidden > 0 {
        let _ = writeln!(
            s,
            "  ({hidden} more options: larger combos and those that do not fit; --all lists them)"
        );
    }
    match plan.best() {
        Some(best) => {
            let _ = writeln!(
                s,
                "\nCheapest fit: {}{}",
                option_label(gpus, best),
                best.price_usd_month
                    .map_or(String::new(), |p| format!(" at {}/month", format_usd(p)))
            );
        }
        None => {
            let most = plan.options.iter().map(|o| o.count).max().unwrap_or(1);
            let _ = writeln!(
                s,
                "\nNothing in the catalog holds this plan, even {most} cards of a kind{}",
                if scenario.method.is_training() {
                    "; try --offload optimizer or --zero 3"
                } else {
                    ""
                }
            );
        }
    }
    if scenario.method == crate::engine::Method::Inference {
        let _ = writeln!(
            s,
            "Decode figures are bandwidth ceilings (an upper bound), not benchmarks."
        );
    }
    s
}

#[derive(Serialize)]
struct LookupCellJson<'a> {
    model: &'a str,
    column: &'static str,
    need_bytes: u64,
    gpu: Option<&'a str>,
    count: Option<u32>,
    verdict: Option<&'static str>,
    price_usd_month: Option<f64>,
    free_bytes_per_card: Option<i64>,
    cluster_nodes: Option<u64>,
}

/// Seed 003 section 05, computed: the seed's five sizes by six methods.
pub fn lookup_table(catalog: &Catalog, json: bool) -> Result<String, CliError> {
    let ids = ["seed-7b", "seed-13b", "seed-34b", "seed-70b", "seed-405b"];
    let models: Vec<&Model> = ids
        .iter()
        .map(|id| {
            catalog
                .model(id)
                .ok_or_else(|| CliError(format!("catalog lacks model '{id}'")))
        })
        .collect::<Result<_, _>>()?;
    let table = compute_lookup(&models, &catalog.gpus);
    let gpus = &catalog.gpus;
    if json {
        let mut cells = Vec::new();
        for (m, row) in models.iter().zip(&table) {
            for c in row {
                cells.push(LookupCellJson {
                    model: &m.id,
                    column: c.column.id(),
                    need_bytes: c.need_bytes().round() as u64,
                    gpu: c.pick.as_ref().map(|o| gpus[o.gpu].id.as_str()),
                    count: c.pick.as_ref().map(|o| o.count),
                    verdict: c.pick.as_ref().map(|o| o.verdict.id()),
                    price_usd_month: c.pick.as_ref().and_then(|o| o.price_usd_month).map(round2),
                    free_bytes_per_card: c.pick.as_ref().map(|o| o.free_bytes_per_card.round() as i64),
                    cluster_nodes: c.cluster.as_ref().map(|k| k.nodes),
                });
            }
        }
        return serde_json::to_string_pretty(&cells)
            .map(|s| s + "\n")
            .map_err(|e| CliError(e.to_string()));
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "The GPU Rent Hub guide's lookup table, computed by its quick rules and picked its way: the\n\
         cheapest single card that holds the plan, a combo only when no single card does (the planner\n\
         itself ranks single cards and combos together). 8,192 tokens for inference, 2,048 for training,\n\
         batch 1; \"tight\" = under 5 GB left, 2 GB per card on combos.\n"
    );
    for (m, row) in models.iter().zip(&table) {
        let _ = writeln!(s, "{}", m.name);
        for c in row {
            let pick = match (&c.pick, &c.cluster) {
                (Some(o), _) => format!(
                    "{} {}{}",
                    option_label(gpus, o),
                    o.price_usd_month.map_or("no price".into(), format_usd),
                    if o.verdict == crate::engine::Verdict::Tight {
                        ", tight"
                    } else {
                        ""
                    }
                ),
                (None, Some(k)) => format!(
                    "beyond one node: {:.2} nodes of 8× {} (≥ {} nodes, {}/month)",
                    k.nodes_exact,
                    gpus[k.gpu].name,
                    k.nodes,
                    format_usd(k.price_usd_month)
                ),
                (None, None) => "nothing fits".into(),
            };
            let _ = writeln!(
                s,
                "  {:<16} {:>9.0} GB  {pick}",
                c.column.label(),
                to_gb(c.need_bytes()).round()
            );
        }
    }
    Ok(s)
}

pub fn models(catalog: &Catalog, json: bool) -> String {
    if json {
        let list: Vec<ModelJson> = catalog.models.iter().map(|m| ModelJson::new(m, 2.0)).collect();
        return serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<20} {:<26} {:<9} {:>8} {:>8} {:>6} {:>4} {:>10} {:>8}",
        "id", "name", "family", "params", "active", "layers", "kv", "KV B/tok", "context"
    );
    for m in &catalog.models {
        let p = m.params();
        let _ = writeln!(
            s,
            "{:<20} {:<26} {:<9} {:>8} {:>8} {:>6} {:>4} {:>10} {:>8}",
            m.id,
            m.name,
            m.family,
            format_params(p.total),
            if p.active == p.total {
                "-".into()
            } else {
                format_params(p.active)
            },
            m.arch.layers,
            m.arch.kv_heads,
            group_thousands(m.kv_bytes_per_token(2.0).round() as i64),
            group_thousands(m.max_context as i64)
        );
    }
    s
}

#[derive(Serialize)]
struct GpuJson<'a> {
    #[serde(flatten)]
    gpu: &'a Gpu,
    price_usd_month: Option<f64>,
}

pub fn gpus(catalog: &Catalog, json: bool) -> String {
    if json {
        let list: Vec<GpuJson> = catalog
            .gpus
            .iter()
            .map(|g| GpuJson {
                gpu: g,
                price_usd_month: g.monthly_price_usd(1).map(|(p, _)| p),
            })
            .collect();
        return serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
    }
    let mut s = String::from(
        "GB: marketed capacity (the quick rules plan against it); SMI MiB: what nvidia-smi, rocm-smi\n\
         or hl-smi reports; usable: GB the runtime (CUDA, ROCm, Metal) can allocate, the calibrated\n\
         rules' capacity. `vramfit gpus --json` gives each card's source.\n\n",
    );
    let _ = writeln!(
        s,
        "{:<16} {:<26} {:>6} {:>9} {:>8} {:>8} {:>7} {:>7} {:<16} {:>9}",
        "id", "name", "GB", "SMI MiB", "usable", "GB/s", "BF16 TF", "FP8 TF", "link", "$/month"
    );
    for g in &catalog.gpus {
        let tf = |v: Option<f64>| v.map_or("-".to_string(), |t| format!("{t:.0}"));
        let price = match g.monthly_price_usd(1) {
            Some((p, _)) => format_usd(p),
            None if !g.offers.is_empty() => format!(
                "{}+ only",
                g.offers.iter().map(|o| o.min_cards).min().unwrap_or(1)
            ),
            None => "no price".into(),
        };
        let _ = writeln!(
            s,
            "{:<16} {:<26} {:>6} {:>9} {:>8} {:>8} {:>7} {:>7} {:<16} {:>9}",
            g.id,
            g.name,
            g.memory_gb,
            g.memory_smi_mib.map_or("-".into(), |m| group_thousands(m as i64)),
            g.memory_visible_bytes
                .map_or("-".into(), |b| format!("{:.2}", b / 1e9)),
            g.bandwidth_gbs,
            tf(g.bf16_tflops),
            if g.fp8 { tf(g.fp8_tflops) } else { "no".into() },
            g.link.label(),
            price
        );
    }
    s
}

/// The plan as Markdown: scenario, breakdown with formulas, the fitting options.
pub fn plan_markdown(model: &Model, gpus: &[Gpu], scenario: &Scenario, plan: &Plan) -> String {
    let rent = &scenario.rent;
    let cur = rent.display_currency.as_str();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## {} — {} {}\n",
        model.name,
        scenario.method.label(),
        scenario.weights.label()
    );
    let _ = writeln!(
        s,
        "{} params · context {} · batch {} · KV {} · {} rules{}\n",
        format_params(plan.params.total),
        group_thousands(scenario.context as i64),
        scenario.batch,
        scenario.kv.label(),
        scenario.convention.id(),
        if scenario.cards > 1 {
            format!(" · per card of {}", scenario.cards)
        } else {
            String::new()
        }
    );
    let _ = writeln!(s, "| segment | GB | formula |\n|---|---:|---|");
    for seg in &plan.breakdown.segments {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {} |",
            seg.kind.label(),
            to_gb(seg.bytes),
            seg.formula.replace('|', "\\|")
        );
    }
    let _ = writeln!(s, "| **total** | **{:.2}** | |", to_gb(plan.total_bytes()));
    if plan.breakdown.host_bytes > 0.0 {
        let _ = writeln!(
            s,
            "| host RAM | {:.2} | offloaded or paged state |",
            to_gb(plan.breakdown.host_bytes)
        );
    }
    let train = rent.train_tokens.is_some() && scenario.method.is_training();
    let _ = writeln!(
        s,
        "\n| fit | card | free/card GB | per month | {} h | {}decode ≤ t/s |\n|---|---|---:|---:|---:|{}---:|",
        rent.hours,
        if train { "finish h | finish cost | " } else { "" },
        if train { "---:|---:|" } else { "" }
    );
    let m = |v: Option<f64>| v.map_or("–".to_string(), |u| money(u, &rent.rates, cur));
    let mut seen = std::collections::HashSet::new();
    for o in plan
        .options
        .iter()
        .filter(|o| o.verdict.is_fit() && seen.insert(o.gpu))
        .take(12)
    {
        let _ = write!(
            s,
            "| {} | {} | {:.1} | {} | {} | ",
            o.verdict.id(),
            option_label(gpus, o),
            to_gb(o.free_bytes_per_card),
            m(o.price_usd_month),
            m(o.rent_cost_usd)
        );
        if train {
            let _ = write!(
                s,
                "{} | {} | ",
                o.training.map_or("–".into(), |t| format!("{:.1}", t.hours)),
                m(o.train_cost_usd)
            );
        }
        let _ = writeln!(
            s,
            "{} |",
            o.decode_tokens_per_s.map_or("–".into(), |t| format!("{t:.1}"))
        );
    }
    let _ = writeln!(
        s,
        "\nGenerated by vramfit. Decode figures are ceilings (upper bounds), not benchmarks; prices are the catalog's offers."
    );
    s
}
