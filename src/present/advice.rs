//! The "to fit" advice in words: each change's label, the `plan` flags that apply it, the
//! quality it costs, and the JSON of `vramfit fit`.

use serde::Serialize;

use crate::engine::advise::{Advice, Change, Suggestion, Target};
use crate::engine::units::group_thousands;
use crate::engine::{Choice, Gpu};

/// "FP8 KV", "context ≤ 5,904", "2 cards", "QLoRA", "FP8 KV + context ≤ 16,384".
pub fn label(change: &Change, gpus: &[Gpu]) -> String {
    match change {
        Change::Weights(w) => format!("{} weights", w.label()),
        Change::Kv(k) => format!("{} KV", k.label()),
        Change::Context(n) => format!("context ≤ {}", group_thousands(*n as i64)),
        Change::Batch(n) => format!("batch ≤ {n}"),
        Change::Method(m) => m.label().to_string(),
        Change::Checkpointing => "checkpointing on".into(),
        Change::FusedCe => "fused cross-entropy".into(),
        Change::Optimizer(o) => o.label().to_string(),
        Change::Zero(z) => format!("ZeRO-{z}"),
        Change::Offload(o) => format!("offload {}", o.label()),
        Change::Cards(n) => format!("{n} cards"),
        Change::Card(t) => target_label(*t, gpus),
        Change::Pair(a, b) => format!("{} + {}", label(a, gpus), label(b, gpus)),
    }
}

/// "2× A40", "RTX 4090".
pub fn target_label(t: Target, gpus: &[Gpu]) -> String {
    let name = &gpus[t.gpu].name;
    if t.count > 1 {
        format!("{}× {name}", t.count)
    } else {
        name.clone()
    }
}

/// The exact `vramfit plan` arguments that apply the change.
pub fn flags(change: &Change, gpus: &[Gpu]) -> Vec<String> {
    let pair = |flag: &str, value: String| vec![format!("--{flag}"), value];
    match change {
        Change::Weights(w) => pair("weights", w.id().into()),
        Change::Kv(k) => pair("kv", k.id().into()),
        Change::Context(n) => pair("context", n.to_string()),
        Change::Batch(n) => pair("batch", n.to_string()),
        Change::Method(m) => {
            let mut f = pair("method", m.id().into());
            f.extend(pair("weights", m.default_weights().id().into()));
            f
        }
        Change::Checkpointing => pair("checkpointing", "on".into()),
        Change::FusedCe => pair("fused-ce", "on".into()),
        Change::Optimizer(o) => pair("optimizer", o.id().into()),
        Change::Zero(z) => pair("zero", z.to_string()),
        Change::Offload(o) => pair("offload", o.id().into()),
        Change::Cards(n) => pair("cards", n.to_string()),
        Change::Card(t) => {
            let mut f = pair("gpu", gpus[t.gpu].id.clone());
            f.extend(pair("cards", t.count.to_string()));
            f
        }
        Change::Pair(a, b) => {
            let mut f = flags(a, gpus);
            f.extend(flags(b, gpus));
            f
        }
    }
}

/// What the change costs beyond memory, where quality or speed change.
pub fn note(change: &Change) -> Option<String> {
    Some(match change {
        Change::Weights(w) => format!("{:.2} bits per weight: quality may drop", w.bits()),
        Change::Kv(k) => format!("{} cache: small quality cost", k.label()),
        Change::Context(_) => "shorter context".into(),
        Change::Batch(_) => "fewer sequences at once".into(),
        Change::Method(m) => format!("{}: trains adapters, not every weight", m.label()),
        Change::Checkpointing => "recomputes activations: about a third slower".into(),
        Change::Optimizer(_) => "smaller optimizer states: may converge differently".into(),
        Change::Offload(_) => "states in host RAM: slower steps".into(),
        Change::Pair(a, b) => {
            let notes: Vec<String> = [note(a), note(b)].into_iter().flatten().collect();
            return (!notes.is_empty()).then(|| notes.join("; "));
        }
        Change::FusedCe | Change::Zero(_) | Change::Cards(_) | Change::Card(_) => return None,
    })
}

#[derive(Serialize)]
pub struct TargetJson {
    pub gpu: String,
    pub count: u32,
    pub verdict: &'static str,
    pub free_bytes_per_card: i64,
}

#[derive(Serialize)]
pub struct SuggestionJson {
    pub change: String,
    pub flags: Vec<String>,
    pub verdict: &'static str,
    pub free_bytes_per_card: i64,
    pub decode_tokens_per_s: Option<f64>,
    pub price_usd_month: Option<f64>,
    pub host_bytes: u64,
    pub note: Option<String>,
}

#[derive(Serialize)]
pub struct AdviceJson {
    pub target: TargetJson,
    pub max_context: Option<u64>,
    pub max_batch: Option<u64>,
    pub suggestions: Vec<SuggestionJson>,
}

fn suggestion_json(s: &Suggestion, gpus: &[Gpu]) -> SuggestionJson {
    SuggestionJson {
        change: label(&s.change, gpus),
        flags: flags(&s.change, gpus),
        verdict: s.after.verdict.id(),
        free_bytes_per_card: s.after.free_bytes_per_card.round() as i64,
        decode_tokens_per_s: s.after.decode_tokens_per_s.map(super::json::round2),
        price_usd_month: s.after.price_usd_month.map(super::json::round2),
        host_bytes: s.host_bytes.round() as u64,
        note: note(&s.change),
    }
}

pub fn advice_json(a: &Advice, gpus: &[Gpu]) -> AdviceJson {
    AdviceJson {
        target: TargetJson {
            gpu: gpus[a.target.gpu].id.clone(),
            count: a.target.count,
            verdict: a.now.verdict.id(),
            free_bytes_per_card: a.now.free_bytes_per_card.round() as i64,
        },
        max_context: a.max_context,
        max_batch: a.max_batch,
        suggestions: a.suggestions.iter().map(|s| suggestion_json(s, gpus)).collect(),
    }
}

/// The advice as the CLI prints it.
pub fn advice_text(a: &Advice, gpus: &[Gpu], sc: &crate::engine::Scenario, model_name: &str) -> String {
    use crate::engine::units::format_gb;
    use std::fmt::Write as _;
    let mut s = String::new();
    let what = if sc.method.is_training() {
        "sequence"
    } else {
        "context"
    };
    let _ = writeln!(
        s,
        "{model_name} on {} · {} {} · {what} {} · batch {} · {} rules",
        target_label(a.target, gpus),
        sc.method.label(),
        sc.weights.label(),
        group_thousands(sc.context as i64),
        sc.batch,
        sc.convention.label().to_lowercase()
    );
    let per_card = a.now.usable_bytes / f64::from(a.now.count);
    let room = if a.now.free_bytes_per_card >= 0.0 {
        format!("{} free", format_gb(a.now.free_bytes_per_card))
    } else {
        format!("{} short", format_gb(-a.now.free_bytes_per_card))
    };
    let _ = writeln!(
        s,
        "now: {} — {} needed per card of {} usable, {room}",
        a.now.verdict.id(),
        format_gb(a.now.per_card_bytes),
        format_gb(per_card)
    );
    // A limit at the top of the knob's range means the plan does not depend on it.
    let step = crate::engine::advise::context_step(sc);
    let top_context = crate::engine::ranges::MAX_CONTEXT / step * step;
    let limit = |v: Option<u64>, top: u64| match v {
        None => "none fits".to_string(),
        Some(n) if n >= top => format!("any (to the {} limit)", group_thousands(n as i64)),
        Some(n) => group_thousands(n as i64),
    };
    let _ = writeln!(
        s,
        "longest {what} that fits at batch {}: {} · largest batch at this {what}: {}",
        sc.batch,
        limit(a.max_context, top_context),
        limit(a.max_batch, crate::engine::ranges::MAX_BATCH)
    );
    if a.now.verdict.is_fit() {
        let _ = match (a.comfortable_context, a.comfortable_batch) {
            (Some(c), Some(b)) => writeln!(
                s,
                "headroom: it stays comfortable (not tight) up to {what} {} and batch {b}",
                group_thousands(c as i64)
            ),
            (Some(c), None) => writeln!(
                s,
                "headroom: tight at this batch; comfortable only up to {what} {}",
                group_thousands(c as i64)
            ),
            _ => writeln!(
                s,
                "headroom: tight already; no shorter {what} makes it comfortable"
            ),
        };
        return s;
    }
    let pairs = a.suggestions.iter().any(|x| matches!(x.change, Change::Pair(..)));
    let _ = writeln!(
        s,
        "\n{}",
        match (a.suggestions.is_empty(), pairs) {
            (true, _) => "No single change or pair of changes makes it fit on this target.",
            (false, true) => "No single change is enough; the pairs that give up least:",
            (false, false) => "Each of these alone makes it fit (least given up first):",
        }
    );
    for x in &a.suggestions {
        let decode = match (a.now.decode_tokens_per_s, x.after.decode_tokens_per_s) {
            (Some(b), Some(t)) if a.now.verdict.is_fit() => format!("  decode ≤ {b:.0} → {t:.0} t/s"),
            (_, Some(t)) => format!("  decode ≤ {t:.0} t/s"),
            _ => String::new(),
        };
        // In the currency the user asked for, as the plan's table shows it.
        let money = |v: f64| super::money(v, &sc.rent.rates, &sc.rent.display_currency);
        let price = match (a.now.price_usd_month, x.after.price_usd_month) {
            (Some(b), Some(p)) if (b - p).abs() > 0.5 => format!("  {} → {}/month", money(b), money(p)),
            (_, Some(p)) => format!("  {}/month", money(p)),
            _ => String::new(),
        };
        let host = if x.host_bytes > 0.0 {
            format!("  host RAM {}", format_gb(x.host_bytes))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {:<34} {:<5} {:>10} free{decode}{price}{host}",
            label(&x.change, gpus),
            x.after.verdict.id(),
            format_gb(x.after.free_bytes_per_card)
        );
        let note = note(&x.change).map_or(String::new(), |n| format!("  ({n})"));
        let _ = writeln!(s, "      {}{note}", flags(&x.change, gpus).join(" "));
    }
    s
}
