//! A rig of mixed cards (a 4090 beside a 3090, this machine's cards): one option, judged
//! by the placement the runtime would make over every card and the host, with the limits
//! searched through the same placement.

use crate::engine::hardware::gpu::Gpu;
use crate::engine::hardware::offers::HOURS_PER_MONTH;
use crate::engine::memory::SegmentKind;
use crate::engine::memory::breakdown::Breakdown;
use crate::engine::model::Model;
use crate::engine::placement::{self, Cards, Placement};
use crate::engine::speed::serving::{Capacity, DecodeWork};
use crate::engine::verdict::fit::{self, Context, FitOption, Need};
use crate::engine::verdict::judge::{self};
use crate::engine::verdict::needs::{Limits, Needs};
use crate::engine::verdict::plan::Plan;
use crate::engine::verdict::{Reason, Verdict};
use crate::engine::workload::scenario::Scenario;

/// The cards of a rig as the placement reads them: each kind with what the plan may use
/// of one card.
fn cards_of<'a>(gpus: &'a [Gpu], rig: &[(usize, u32)], sc: &Scenario, total: u32) -> Vec<Cards<'a>> {
    rig.iter()
        .map(|&(i, count)| Cards {
            gpu: &gpus[i],
            count,
            usable: judge::usable_per_card(&gpus[i], total, sc),
        })
        .collect()
}

/// The placement of the rig at `sc`'s context and batch (sized without words).
fn place_at(
    model: &Model,
    gpus: &[Gpu],
    rig: &[(usize, u32)],
    sc: &Scenario,
    work: Option<DecodeWork>,
) -> (Placement, Breakdown) {
    let total: u32 = rig.iter().map(|r| r.1).sum();
    let sc = Scenario {
        cards: total,
        ..sc.clone()
    };
    let per_card = judge::breakdown_per_card(model, &sc, total);
    let cards = cards_of(gpus, rig, &sc, total);
    let p = placement::place(&placement::Request {
        model,
        scenario: &sc,
        rig: &cards,
        host: sc.host.as_ref(),
        per_card: &per_card,
        work,
    });
    (p, per_card)
}

/// Whether the rig holds the plan, as its placement says (`comfortable`: and not tight).
fn holds(p: &Placement, sc: &Scenario, comfortable: bool) -> bool {
    let gpus = || p.devices.iter().filter(|d| d.kind == placement::DeviceKind::Gpu);
    let count: u32 = gpus().map(|d| d.count).sum();
    let need: f64 = gpus().map(|d| d.bytes * f64::from(d.count)).sum();
    let free: f64 = gpus().map(|d| d.free_bytes * f64::from(d.count)).sum();
    // The cards together under the tight rule for their count, as a combo is judged.
    p.fits()
        && (!comfortable
            || (crate::engine::verdict::needs::placed_comfortably(p, sc)
                && !judge::is_tight(sc.tight_rule, count, need, free)))
}

/// The rig's longest context and largest batch: the largest values its placement holds.
fn limits(model: &Model, gpus: &[Gpu], rig: &[(usize, u32)], sc: &Scenario) -> Limits {
    let ok = |context: u64, batch: u64| {
        let at = Scenario {
            context,
            batch,
            ..sc.clone()
        };
        crate::engine::basics::units::totals_only(|| {
            holds(&place_at(model, gpus, rig, &at, None).0, sc, false)
        })
    };
    let step = crate::engine::verdict::needs::context_step(sc);
    let hi = crate::engine::verdict::needs::context_ceiling(model, sc) / step;
    let at = (sc.context / step).clamp(1, hi.max(1));
    let max_context =
        crate::engine::verdict::needs::largest_near(hi, at, |k| ok(k * step, sc.batch)).map(|k| k * step);
    let max_batch = crate::engine::verdict::needs::largest_near(
        crate::engine::workload::ranges::MAX_BATCH,
        sc.batch,
        |b| ok(sc.context, b),
    );
    Limits {
        max_context,
        max_batch,
        ..Limits::default()
    }
}

/// Plan `sc` on the rig `rig` (catalog indices into `gpus` with counts): one option.
pub fn plan_rig(model: &Model, gpus: &[Gpu], rig: &[(usize, u32)], sc: &Scenario) -> Plan {
    let total: u32 = rig.iter().map(|r| r.1).sum::<u32>().max(1);
    let sc = Scenario {
        cards: total,
        split: crate::engine::workload::scenario::Split::Layer,
        ..sc.clone()
    };
    let sc = if sc.framework.is_ggml() {
        sc
    } else {
        // vLLM and SGLang split mixed cards by tensor parallel over equal shares.
        Scenario {
            split: crate::engine::workload::scenario::Split::Tensor,
            ..sc
        }
    };
    // vLLM reads its batch defaults off the first card (`device_memory` of GPU 0).
    let sc = crate::engine::verdict::card_defaults::on_card(model, &sc, &gpus[rig[0].0]).unwrap_or(sc);
    let breakdown = crate::engine::memory::breakdown(model, &sc);
    let work = breakdown.decode_bytes_per_token.map(|read| DecodeWork {
        weights_bytes: read - breakdown.decode_kv_bytes_per_sequence,
        kv_bytes_per_sequence: breakdown.decode_kv_bytes_per_sequence,
        active_params: model.params().active as f64,
        hidden: model.arch.hidden as f64,
        layers: model.arch.layers as f64,
    });
    let needs = Needs::new(model, &sc);
    let need = Need {
        per_card: breakdown.total(),
        kv_per_card: breakdown.get(SegmentKind::KvCache),
    };
    let ctx = Context {
        model,
        scenario: &sc,
        largest_count: total,
        work,
        needs: &needs,
        limits: false,
    };
    let (first, _) = rig[0];
    let mut o: FitOption = fit::evaluate(first, &gpus[first], total, &ctx, need, None);
    let (p, _) = place_at(model, gpus, rig, &sc, work);
    let unsupported = rig
        .iter()
        .find_map(|&(i, _)| judge::unsupported_reason(model, &gpus[i], total, &sc));
    o.verdict = if unsupported.is_some() || !p.fits() {
        Verdict::No
    } else if holds(&p, &sc, true) {
        Verdict::Fits
    } else {
        Verdict::Tight
    };
    o.reason = unsupported.or((!p.fits()).then_some(Reason::RigShort));
    let cards = cards_of(gpus, rig, &sc, total);
    o.capacity_bytes = rig
        .iter()
        .map(|&(i, n)| judge::card_capacity(&gpus[i], &sc) * f64::from(n))
        .sum();
    o.usable_bytes = cards.iter().map(|c| c.usable * f64::from(c.count)).sum();
    let gpu_parts = || p.devices.iter().filter(|d| d.kind == placement::DeviceKind::Gpu);
    o.per_card_bytes = gpu_parts().map(|d| d.bytes).fold(0.0, f64::max);
    o.free_bytes_per_card = gpu_parts().map(|d| d.free_bytes).fold(f64::INFINITY, f64::min);
    o.free_bytes = gpu_parts().map(|d| d.free_bytes * f64::from(d.count)).sum();
    o.cards_needed = None;
    if let Some(s) = &p.speed {
        o.decode_tokens_per_s = Some(s.tokens_per_s);
        if let Some(r) = &mut o.roofline {
            r.per_stream = s.tokens_per_s;
            r.aggregate = s.aggregate_tokens_per_s;
            r.prefill_seconds = s.prefill_seconds;
        }
    }
    o.limits = if o.verdict.is_fit() {
        limits(model, gpus, rig, &sc)
    } else {
        Limits::default()
    };
    o.serving = work.map(|_| Capacity {
        kv_capacity_tokens: sc.context * o.limits.max_batch.unwrap_or(0),
        max_concurrent_sequences: o.limits.max_batch.unwrap_or(0),
        max_context: o.limits.max_context.unwrap_or(0),
        max_batch: o.limits.max_batch.unwrap_or(0),
        kv_groups: None,
    });
    // Rented together only when every kind has an offer: the sum of each kind's cheapest.
    let rent = &sc.rent;
    let month: Option<f64> = rig
        .iter()
        .map(|&(i, n)| {
            gpus[i]
                .cheapest_offer(n, HOURS_PER_MONTH, &rent.rates, &rent.filter, false)
                .map(|(c, _)| c)
        })
        .sum();
    o.price_usd_month = month;
    o.offer = None;
    o.rent_cost_usd = month.map(|m| m * rent.hours / HOURS_PER_MONTH);
    o.spot_offer = None;
    o.spot_rent_cost_usd = None;
    o.placement = Some(p);
    o.rig = rig.to_vec();
    o.expected_decode_tokens_per_s = o.expected(model, &sc, &gpus[first]).decode_tokens_per_s;
    Plan {
        params: model.params(),
        kv_bytes_per_token: model.kv_bytes_per_token(sc.kv.bytes_per_element()),
        breakdown,
        cards: total,
        per_count: Vec::new(),
        options: vec![o],
        variants: Vec::new(),
    }
}
