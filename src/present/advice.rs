//! The "to fit" advice in words: each change's label, the `plan` flags that apply it, the
//! quality it costs, and the JSON of `vramfit fit`.

use serde::Serialize;

use crate::engine::basics::units::group_thousands;
use crate::engine::verdict::advise::{Advice, Suggestion};
use crate::engine::verdict::changes::{Change, Target};
use crate::engine::{Choice, Gpu, Model, Scenario};
use crate::lang::Lang;
use crate::{tr, tr_in};

/// "FP8 KV", "context ≤ 5,904", "2 cards", "QLoRA", "FP8 KV + context ≤ 16,384", in the
/// current language.
pub fn label(change: &Change, gpus: &[Gpu]) -> String {
    label_in(change, gpus, Lang::current())
}

/// The change's label in a given language (JSON's is English).
pub fn label_in(change: &Change, gpus: &[Gpu], lang: Lang) -> String {
    match change {
        Change::Weights(w) => tr_in!(lang, "advice.weights", precision = w.label()),
        Change::Kv(k) => tr_in!(lang, "advice.kv", precision = k.label()),
        Change::Context(n) => tr_in!(lang, "advice.context", n = group_thousands(*n as i64)),
        Change::Batch(n) => tr_in!(lang, "advice.batch", n = n),
        Change::Method(m) => super::i18n::word_in(lang, "method", m.id()),
        Change::Checkpointing => tr_in!(lang, "advice.checkpointing"),
        Change::FusedCe => tr_in!(lang, "advice.fused_ce"),
        Change::Optimizer(o) => o.label().to_string(),
        Change::Zero(z) => format!("ZeRO-{z}"),
        Change::Offload(o) => tr_in!(
            lang,
            "advice.offload",
            what = super::i18n::word_in(lang, "offload", o.id())
        ),
        Change::Cards(n) => tr_in!(lang, "advice.cards", n = n),
        Change::Split(crate::engine::workload::scenario::Split::Layer) => tr_in!(lang, "advice.split_layer"),
        Change::Split(crate::engine::workload::scenario::Split::Tensor) => {
            tr_in!(lang, "advice.split_tensor")
        }
        Change::Card(t) => target_label(*t, gpus),
        Change::Ram {
            gb,
            strategy,
            runtime_flags,
        } => {
            let key = format!("advice.ram_{}", strategy_key(*strategy));
            let said = tr_in!(lang, &key, gb = gb, flags = runtime_flags);
            // A runtime with no flags of its own (the generic rules) leaves no empty brackets.
            if runtime_flags.is_empty() {
                said.replace(" ()", "").replace("（）", "")
            } else {
                said
            }
        }
        Change::Pair(a, b) => format!("{} + {}", label_in(a, gpus, lang), label_in(b, gpus, lang)),
    }
}

fn strategy_key(s: crate::engine::placement::Strategy) -> &'static str {
    use crate::engine::placement::Strategy as S;
    match s {
        S::Experts => "experts",
        S::Streamed => "streamed",
        S::Layers | S::AllOnGpu => "layers",
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
        Change::Split(x) => pair("split", x.id().into()),
        Change::Ram { gb, .. } => pair("ram", gb.to_string()),
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
    note_in(change, Lang::current())
}

/// The change's cost in a given language (JSON's is English).
pub fn note_in(change: &Change, lang: Lang) -> Option<String> {
    Some(match change {
        // 8 bits and wider keep the model's quality; narrower formats may cost some.
        Change::Weights(w) if w.bits() >= 8.0 => return None,
        Change::Weights(w) => tr_in!(lang, "advice.note_weights", bits = format!("{:.2}", w.bits())),
        Change::Kv(k) => tr_in!(lang, "advice.note_kv", precision = k.label()),
        Change::Context(_) => tr_in!(lang, "advice.note_context"),
        Change::Batch(_) => tr_in!(lang, "advice.note_batch"),
        Change::Method(m) => tr_in!(
            lang,
            "advice.note_method",
            method = super::i18n::word_in(lang, "method", m.id())
        ),
        Change::Checkpointing => tr_in!(lang, "advice.note_checkpointing"),
        Change::Split(_) => tr_in!(lang, "advice.note_split"),
        Change::Optimizer(_) => tr_in!(lang, "advice.note_optimizer"),
        Change::Offload(_) => tr_in!(lang, "advice.note_offload"),
        Change::Ram { .. } => tr_in!(lang, "advice.note_ram"),
        Change::Pair(a, b) => {
            let notes: Vec<String> = [note_in(a, lang), note_in(b, lang)]
                .into_iter()
                .flatten()
                .collect();
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
    pub free_bytes_per_card: crate::engine::memory::breakdown::SignedBytes,
    /// The decode ceiling per stream as the scenario stands, and what runs of its class
    /// reached.
    pub decode_tokens_per_s: Option<f64>,
    #[serde(flatten)]
    pub expected: super::json::ExpectedJson,
}

#[derive(Serialize)]
pub struct SuggestionJson {
    pub change: String,
    pub flags: Vec<String>,
    pub verdict: &'static str,
    pub free_bytes_per_card: crate::engine::memory::breakdown::SignedBytes,
    pub decode_tokens_per_s: Option<f64>,
    pub price_usd_month: Option<f64>,
    pub host_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    pub note: Option<String>,
    /// What runs of the changed plan's class reached, beside its ceiling.
    #[serde(flatten)]
    pub expected: super::json::ExpectedJson,
}

#[derive(Serialize)]
pub struct AdviceJson {
    pub target: TargetJson,
    pub max_context: Option<u64>,
    pub max_batch: Option<u64>,
    pub suggestions: Vec<SuggestionJson>,
}

fn suggestion_json(s: &Suggestion, gpus: &[Gpu], model: &Model, a: &Advice, sc: &Scenario) -> SuggestionJson {
    let (changed, _) = s.change.apply(sc, a.target);
    SuggestionJson {
        expected: super::json::expected_json(model, &changed, &gpus[s.after.gpu], &s.after),
        change: label_in(&s.change, gpus, Lang::En),
        flags: flags(&s.change, gpus),
        verdict: s.after.verdict.id(),
        free_bytes_per_card: crate::engine::memory::breakdown::signed_bytes(s.after.free_bytes_per_card),
        decode_tokens_per_s: s.after.decode_tokens_per_s.map(super::json::round2),
        price_usd_month: s.after.price_usd_month.map(super::json::round2),
        host_bytes: crate::engine::memory::breakdown::unsigned_bytes(s.host_bytes),
        note: note_in(&s.change, Lang::En),
    }
}

pub fn advice_json(a: &Advice, gpus: &[Gpu], model: &Model, sc: &Scenario) -> AdviceJson {
    AdviceJson {
        target: TargetJson {
            gpu: gpus[a.target.gpu].id.clone(),
            count: a.target.count,
            verdict: a.now.verdict.id(),
            free_bytes_per_card: crate::engine::memory::breakdown::signed_bytes(a.now.free_bytes_per_card),
            decode_tokens_per_s: a.now.decode_tokens_per_s.map(super::json::round2),
            expected: super::json::expected_json(model, sc, &gpus[a.target.gpu], &a.now),
        },
        max_context: a.max_context,
        max_batch: a.max_batch,
        suggestions: a
            .suggestions
            .iter()
            .map(|s| suggestion_json(s, gpus, model, a, sc))
            .collect(),
    }
}

/// The advice as the CLI prints it, in the current language.
/// The longest context the knob's steps can reach (a limit there means the plan does not
/// depend on it).
pub fn top_context(sc: &crate::engine::Scenario) -> u64 {
    let step = crate::engine::verdict::advise::context_step(sc);
    crate::engine::workload::ranges::MAX_CONTEXT / step * step
}

/// A limit as a reader takes it: the number, "any" at the top of the knob's range, or that
/// none fits (never a bare "none" inside a sentence).
pub fn limit_text(v: Option<u64>, top: u64) -> String {
    match v {
        None => tr!("advice.none_fits"),
        Some(n) if n >= top => tr!("advice.any", n = group_thousands(n as i64)),
        Some(n) => group_thousands(n as i64),
    }
}

/// How far a plan that fits stays comfortable (not tight), in a sentence that names only
/// the limits there are.
pub fn headroom_text(a: &Advice, what: &str) -> String {
    match (a.comfortable_context, a.comfortable_batch) {
        (Some(c), Some(b)) => tr!(
            "advice.headroom_both",
            what = what,
            context = group_thousands(c as i64),
            batch = b
        ),
        (Some(c), None) => tr!(
            "advice.headroom_context",
            what = what,
            context = group_thousands(c as i64)
        ),
        _ => tr!("advice.headroom_none", what = what),
    }
}

pub fn advice_text(a: &Advice, gpus: &[Gpu], sc: &crate::engine::Scenario, model_name: &str) -> String {
    use crate::engine::basics::units::format_gb;
    use std::fmt::Write as _;
    let mut s = String::new();
    let what = if sc.method.is_training() {
        tr!("advice.sequence")
    } else {
        tr!("advice.context_word")
    };
    let _ = writeln!(
        s,
        "{}",
        tr!(
            "advice.header",
            model = model_name,
            target = target_label(a.target, gpus),
            method = super::i18n::word("method", sc.method.id()),
            weights = sc.weights.label(),
            what = what,
            // The context planned on this card: the runtime's own pick where it has one.
            context = group_thousands(a.now.context as i64),
            batch = sc.batch,
            rules = super::i18n::word("rules", sc.convention.id())
        )
    );
    let per_card = a.now.usable_bytes / f64::from(a.now.count);
    let room = if let Some(r) = a.now.reason.filter(|r| r.is_unsupported()) {
        // Memory is not what stops it: the reason is the news.
        super::i18n::formula(&r.text(&gpus[a.target.gpu])).into_owned()
    } else if a.now.free_bytes_per_card >= 0.0 {
        tr!("advice.free", gb = format_gb(a.now.free_bytes_per_card))
    } else {
        tr!(
            "advice.short",
            gb = crate::engine::basics::units::format_shortfall(-a.now.free_bytes_per_card)
        )
    };
    let _ = writeln!(
        s,
        "{}",
        tr!(
            "advice.now",
            verdict = super::i18n::word("verdict", a.now.verdict.id()),
            need = format_gb(a.now.per_card_bytes),
            usable = format_gb(per_card),
            room = room
        )
    );
    // A plan that fits only by spilling says where, how fast, and how to run it.
    if a.now.spills()
        && let Some(text) = super::placement::placement_text(gpus, sc, &a.now)
    {
        for line in text.lines() {
            let _ = writeln!(s, "  {}", line.trim_start());
        }
    }
    let _ = writeln!(
        s,
        "{}",
        tr!(
            "advice.limits",
            what = what,
            batch = sc.batch,
            context = if a.now.limits.context_at_model_max {
                format!(
                    "{}{}",
                    limit_text(a.max_context, top_context(sc)),
                    tr!("explain.at_model_max")
                )
            } else {
                limit_text(a.max_context, top_context(sc))
            },
            max_batch = limit_text(a.max_batch, crate::engine::workload::ranges::MAX_BATCH)
        )
    );
    if a.now.verdict.is_fit() {
        let line = headroom_text(a, &what);
        let _ = writeln!(s, "{line}");
        return s;
    }
    let pairs = a.suggestions.iter().any(|x| matches!(x.change, Change::Pair(..)));
    let heading = match (a.suggestions.is_empty(), pairs) {
        (true, _) => tr!("advice.nothing"),
        (false, true) => tr!("advice.pairs"),
        (false, false) => tr!("advice.singles"),
    };
    let _ = writeln!(s, "\n{heading}");
    for x in &a.suggestions {
        let decode = match (a.now.decode_tokens_per_s, x.after.decode_tokens_per_s) {
            (Some(b), Some(t)) if a.now.verdict.is_fit() => format!(
                "  {}",
                tr!(
                    "advice.decode_change",
                    before = format!("{b:.0}"),
                    after = format!("{t:.0}")
                )
            ),
            (_, Some(t)) => format!("  {}", tr!("advice.decode", after = format!("{t:.0}"))),
            _ => String::new(),
        };
        // In the currency the user asked for, as the plan's table shows it.
        let money = |v: f64| super::money(v, &sc.rent.rates, &sc.rent.display_currency);
        let price = match (a.now.price_usd_month, x.after.price_usd_month) {
            (Some(b), Some(p)) if (b - p).abs() > 0.5 => format!(
                "  {}",
                tr!("advice.price_change", before = money(b), after = money(p))
            ),
            (_, Some(p)) => format!("  {}", tr!("advice.price", after = money(p))),
            _ => String::new(),
        };
        let host = if x.host_bytes > 0.0 {
            format!("  {}", tr!("advice.host", gb = format_gb(x.host_bytes)))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  {} {} {:>10} {}{decode}{price}{host}",
            crate::text::pad(&label(&x.change, gpus), 34),
            crate::text::pad(&super::i18n::word("verdict", x.after.verdict.id()), 5),
            format_gb(x.after.free_bytes_per_card),
            tr!("advice.free_column")
        );
        let note = note(&x.change).map_or(String::new(), |n| format!("  ({n})"));
        let _ = writeln!(s, "      {}{note}", flags(&x.change, gpus).join(" "));
    }
    s
}
