//! The explain view's text for a card or combo: every figure with its formula and numbers.

use crate::engine::choice::Choice;
use crate::engine::fit::{FitOption, TIGHT_PER_CARD_BYTES, TIGHT_SINGLE_BYTES, Verdict};
use crate::engine::gpu::{Gpu, HOURS_PER_MONTH};
use crate::engine::plan::Plan;
use crate::engine::scenario::{Scenario, TightRule};
use crate::engine::units::{format_gb, format_usd};

/// Lines explaining why `option` got its verdict, price and decode ceiling.
pub fn explain_option(gpu: &Gpu, option: &FitOption, plan: &Plan, scenario: &Scenario) -> Vec<String> {
    let mut lines = memory_lines(gpu, option, plan, scenario);
    lines.extend(rent_lines(gpu, option, scenario));
    lines.extend(serving_lines(gpu, option, plan, scenario));
    lines
}

/// The card's memory, what the plan needs of it, what is left and the verdict.
fn memory_lines(gpu: &Gpu, option: &FitOption, plan: &Plan, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let need = plan.total_bytes();
    let mut lines = vec![
        format!(
            "{}{}",
            if n > 1 { format!("{n}× ") } else { String::new() },
            gpu.name
        ),
        format!(
            "memory: marketed \"{} GB\"{}; {} can allocate {}",
            gpu.memory_gb,
            gpu.memory_smi_mib.map_or(String::new(), |mib| format!(
                ", {} reports {} MiB",
                gpu.stack.smi_tool(),
                crate::engine::units::group_thousands(mib as i64)
            )),
            gpu.stack.runtime(),
            gpu.memory_visible_bytes
                .map_or("(not known: the label is used)".to_string(), format_gb),
        ),
        match scenario.convention {
            crate::engine::scenario::Convention::Calibrated => format!(
                "capacity: {n} × {} (what {} can allocate) = {}",
                format_gb(gpu.memory_real_bytes()),
                gpu.stack.runtime(),
                format_gb(option.capacity_bytes)
            ),
            crate::engine::scenario::Convention::Seed => format!(
                "capacity: {n} × {} GB (marketed, 1 GB = 10⁹ B, as the quick rules count) = {}",
                gpu.memory_gb,
                format_gb(option.capacity_bytes)
            ),
        },
        format!(
            "usable: {}{}",
            format_gb(option.usable_bytes),
            if option.usable_bytes < option.capacity_bytes * 0.999 {
                format!(
                    " ({:.0} % for the serving engine, gpu_memory_utilization)",
                    scenario.gpu_util * 100.0
                )
            } else {
                String::new()
            }
        ),
        format!(
            "requirement ({}, {}): {} per card{}",
            scenario.method.label(),
            scenario.convention.id(),
            format_gb(option.per_card_bytes),
            if n > 1 {
                format!(" on {n} cards (the plan on one card: {})", format_gb(need))
            } else {
                String::new()
            }
        ),
        format!(
            "free: {} − {} = {} per card{}",
            format_gb(option.usable_bytes / f64::from(n)),
            format_gb(option.per_card_bytes),
            format_gb(option.free_bytes_per_card),
            if n > 1 {
                format!(" ({} in all)", format_gb(option.free_bytes))
            } else {
                String::new()
            }
        ),
    ];
    if let Some(src) = gpu.memory_source.as_deref() {
        lines.insert(2, format!("memory source: {src}"));
    }
    lines.push(verdict_line(gpu, option, scenario));
    lines
}

/// The verdict with the rule that made it, or why it is no.
fn verdict_line(gpu: &Gpu, option: &FitOption, scenario: &Scenario) -> String {
    let n = option.count;
    let rule = match scenario.tight_rule {
        TightRule::Seed if n == 1 => {
            format!("tight below {} left on one card", format_gb(TIGHT_SINGLE_BYTES))
        }
        TightRule::Seed => format!("tight below {} left per card", format_gb(TIGHT_PER_CARD_BYTES)),
        TightRule::Margin(f) => format!("tight below a {:.0} % margin over the requirement", f * 100.0),
    };
    match option.verdict {
        Verdict::Fits => format!("verdict: fits — {rule}"),
        Verdict::Tight => format!("verdict: TIGHT — {rule}"),
        Verdict::No => format!(
            "verdict: does not fit — {}",
            option.reason.map(|r| r.text(gpu)).unwrap_or_default()
        ),
    }
}

/// One offer's arithmetic: "provider (kind): price per card × n … for h → $cost".
fn describe_offer(gpu: &Gpu, n: u32, index: usize, hours: f64, cost: f64, usd_cny: f64) -> String {
    let o = &gpu.offers[index];
    let range = o.price_max.map_or(String::new(), |m| format!("–{m}"));
    let discount = o.discount_for(n);
    format!(
        "{} ({}{}): {}{range} {}/{} per card × {n}{}{} for {} → ${:.2}{}",
        o.provider,
        o.kind.id(),
        o.region.as_deref().map_or(String::new(), |r| format!(", {r}")),
        o.price,
        o.currency,
        o.per.id(),
        if discount > 0.0 {
            format!(" × (1 − {:.0} %)", discount * 100.0)
        } else {
            String::new()
        },
        o.min_term_days
            .map_or(String::new(), |d| format!(", minimum {d} days")),
        crate::engine::units::group_thousands(hours.round() as i64) + " h",
        cost,
        if o.currency.eq_ignore_ascii_case("CNY") {
            format!(" at {usd_cny} CNY/USD")
        } else {
            String::new()
        }
    )
}

/// The rental: the term's offer, the monthly price, spot apart, and the time and cost to
/// finish a fine-tune.
fn rent_lines(gpu: &Gpu, option: &FitOption, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let rent = &scenario.rent;
    let describe =
        |index: usize, hours: f64, cost: f64| describe_offer(gpu, n, index, hours, cost, rent.rates.usd_cny);
    let mut lines = Vec::new();
    match (option.offer, option.rent_cost_usd) {
        (Some(i), Some(cost)) => lines.push(format!("rent: {}", describe(i, rent.hours, cost))),
        _ if !gpu.offers.is_empty() => lines.push(format!(
            "rent: no offer for {n} card(s) (offered in groups of {} or more)",
            gpu.offers.iter().map(|o| o.min_cards).min().unwrap_or(1)
        )),
        _ => lines.push("rent: no offer in the catalog (no price)".into()),
    }
    if let Some(p) = option.price_usd_month {
        lines.push(format!(
            "per month (720 h): {} = {}/hour",
            format_usd(p),
            format_usd(p / HOURS_PER_MONTH)
        ));
    }
    if let (Some(i), Some(cost)) = (option.spot_offer, option.spot_rent_cost_usd) {
        lines.push(format!(
            "spot, interruptible (shown apart): {}",
            describe(i, rent.hours, cost)
        ));
    }
    if let Some(t) = option.training {
        lines.push(format!(
            "time to finish: {} tokens × {:.2e} FLOPs/token ÷ ({n} × {} TFLOPS × {:.0} %) = {:.1} h{}",
            crate::engine::units::group_thousands(t.tokens as i64),
            t.flops_per_token,
            gpu.bf16_tflops.unwrap_or(0.0),
            rent.utilization * 100.0,
            t.compute_hours,
            if t.dequant_hours > 0.0 {
                format!(" + {:.1} h of NF4 dequantization", t.dequant_hours)
            } else {
                String::new()
            }
        ));
        if t.comm_hours > 0.0 {
            lines.push(format!(
                "card-to-card traffic: {:.1} h over {} (it overlaps the compute; the slower sets the pace)",
                t.comm_hours, option.link
            ));
        }
        lines.push(format!("time to finish: {:.1} h", t.hours));
        if let (Some(i), Some(cost)) = (option.train_offer, option.train_cost_usd) {
            lines.push(format!("cost to finish: {}", describe(i, t.hours, cost)));
        }
    }
    lines
}

/// The split, the KV budget and the decode roofline.
fn serving_lines(gpu: &Gpu, option: &FitOption, plan: &Plan, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let mut lines = Vec::new();
    if n > 1 {
        lines.push(format!("split: {} over {}", option.split.id(), option.link));
    }
    if let Some(w) = option.warning() {
        lines.push(format!("warning: {w}"));
    }
    if let Some(c) = option.serving {
        lines.push(format!(
            "KV budget: {} tokens (blocks of 16) = {} sequences of {} tokens; longest context at batch {}: {}; largest batch at this context: {}",
            crate::engine::units::group_thousands(c.kv_capacity_tokens as i64),
            c.max_concurrent_sequences,
            crate::engine::units::group_thousands(scenario.context as i64),
            scenario.batch,
            crate::engine::units::group_thousands(c.max_context as i64),
            c.max_batch
        ));
    }
    match (option.roofline, plan.breakdown.decode_bytes_per_token) {
        (Some(r), Some(bytes)) => {
            let kv = plan.breakdown.decode_kv_bytes_per_sequence;
            let parallel = if n > 1 && option.split == crate::engine::fit::OptionSplit::Tensor {
                n
            } else {
                1
            };
            lines.push(format!(
                "decode step: reads {} weights + {} × {} KV = {} at {} × {} GB/s; computes 2 × {} params × batch {} at {} × {} TFLOPS{}",
                format_gb(bytes - kv),
                scenario.batch,
                format_gb(kv),
                format_gb(bytes - kv + scenario.batch as f64 * kv),
                parallel,
                gpu.bandwidth_gbs,
                crate::engine::units::format_params(plan.params.active),
                scenario.batch,
                parallel,
                crate::engine::serving::peak_flops(gpu, scenario.weights == crate::engine::precision::WeightPrecision::Fp8)
                    .map_or("?".to_string(), |f| format!("{:.0}", f / 1e12)),
                if r.link_seconds_per_step > 0.0 {
                    format!(" + link {:.3} ms", r.link_seconds_per_step * 1e3)
                } else {
                    String::new()
                }
            ));
            lines.push(format!(
                "decode ceiling: {:.1} tokens/s per stream, {:.0} tokens/s for the batch; {} binds (an upper bound, not a benchmark)",
                r.per_stream,
                r.aggregate,
                r.bound.id()
            ));
            if let Some(p) = r.prefill_seconds {
                lines.push(format!(
                    "prefill (time to first token) of {} prompt tokens × batch {}: ≥ {:.3} s at peak compute",
                    crate::engine::units::group_thousands(scenario.prompt as i64),
                    scenario.batch,
                    p
                ));
            }
        }
        _ => lines.push("decode: training plan, no decode ceiling".into()),
    }
    if let Some(f) = &plan.breakdown.decode_formula {
        lines.push(format!("bytes per token: {f}"));
    }
    lines
}

/// Why the calibrated and seed conventions give a segment different sizes.
pub fn convention_difference(kind: crate::engine::memory::SegmentKind) -> &'static str {
    use crate::engine::memory::SegmentKind::*;
    match kind {
        Weights => {
            "calibrated: real bits per weight with scales, embeddings and lm_head kept 16-bit; quick rules: fixed bytes per parameter"
        }
        KvCache => "the same formula in both (calibrated also splits it over tensor-parallel cards)",
        Activations => {
            "calibrated: per-layer saved tensors for this architecture, checkpointing and flash as set, the fp32 logits spike; quick rules: +15 % of the states (full) or textbook terms (LoRA)"
        }
        Gradients => {
            "calibrated: by training precision, ZeRO-2/3 sharding, optimizer-in-backward; quick rules: 2 B per trainable parameter"
        }
        Optimizer => {
            "calibrated: the chosen optimizer and precision, sharded or offloaded; quick rules: AdamW, fp32 moments + master"
        }
        Adapter => {
            "calibrated: r × (d_in + d_out) for each targeted linear; quick rules: 0.5 % of the parameters at rank 16"
        }
        Overhead => {
            "calibrated: CUDA context, allocator slack, dequantization and ZeRO-3 buffers, and the serving engine's share; quick rules: a flat 2 GB (none for full fine-tune)"
        }
    }
}
