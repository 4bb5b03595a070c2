//! Every limit of an option, searched over the one judge: the longest context and the
//! largest batch at which [`judge`](super::judge::judge) still says "fits" (tight counts),
//! and the same for a comfortable fit. `Needs` remembers each option's need per card by
//! (count, context, batch), so a plan over a catalog asks each point once; the search starts
//! from an affine guess and gallops and bisects from there (`largest_near`), exact whatever
//! the guess.

use std::cell::RefCell;

// The memo's keys are three small integers: std's SipHash (built for keys an attacker
// chooses) cost a tenth of a large plan's time.
use rustc_hash::FxHashMap as HashMap;

use crate::engine::hardware::gpu::Gpu;
use crate::engine::memory::breakdown::Breakdown;
use crate::engine::model::Model;
use crate::engine::verdict::judge::{
    Judgement, breakdown_for_count, is_tight, judge, judge_memory, unsupported_reason, usable_per_card,
};
use crate::engine::workload::scenario::{Convention, Scenario};

/// The limits of one option: the longest context and the largest batch at which the judge
/// still says "fits" (tight counts), and the same for a comfortable fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Limits {
    /// Longest context (sequence, for training) at the scenario's batch; `None` when not
    /// even the shortest fits.
    pub max_context: Option<u64>,
    /// Largest batch at the scenario's context: for serving, the sequences of this length
    /// the plan holds at once (under vLLM and SGLang, what their KV pool admits).
    pub max_batch: Option<u64>,
    pub comfortable_context: Option<u64>,
    pub comfortable_batch: Option<u64>,
    /// The context limit stopped at the model's trained length (it would go further).
    pub context_at_model_max: bool,
}

/// The step of the context search: a paged KV cache (serving under the calibrated rules)
/// holds whole blocks of 16 tokens.
pub fn context_step(sc: &Scenario) -> u64 {
    if !sc.method.is_training() && sc.convention == Convention::Calibrated {
        crate::engine::memory::vllm_pool::KV_BLOCK_TOKENS
    } else {
        1
    }
}

/// The longest context a limit may reach: the model's trained length (or the scenario's
/// own context when the user plans past it), within the knob's range.
pub fn context_ceiling(model: &Model, sc: &Scenario) -> u64 {
    model
        .max_context
        .max(sc.context)
        .min(crate::engine::workload::ranges::MAX_CONTEXT)
}

/// Needs per card, remembered by (count, context, batch): a plan asks the same points for
/// many cards of the same count.
pub struct Needs<'a> {
    model: &'a Model,
    scenario: &'a Scenario,
    cache: RefCell<HashMap<(u32, u64, u64), f64>>,
    /// One card's breakdown at the scenario's own point, by count (the placements' parts).
    breakdowns: RefCell<HashMap<u32, std::rc::Rc<Breakdown>>>,
}

impl<'a> Needs<'a> {
    pub fn new(model: &'a Model, scenario: &'a Scenario) -> Self {
        Self {
            model,
            scenario,
            cache: RefCell::new(HashMap::default()),
            breakdowns: RefCell::new(HashMap::default()),
        }
    }

    /// One of `count` cards' breakdown at the scenario's context and batch.
    pub fn breakdown(&self, count: u32) -> std::rc::Rc<Breakdown> {
        if let Some(b) = self.breakdowns.borrow().get(&count) {
            return b.clone();
        }
        let sc = Scenario {
            cards: count,
            ..self.scenario.clone()
        };
        let b = std::rc::Rc::new(crate::engine::basics::units::totals_only(|| {
            breakdown_for_count(self.model, &sc, count)
        }));
        self.breakdowns.borrow_mut().insert(count, b.clone());
        b
    }

    /// Whether `count` × `gpu` holds the plan at `context` and `batch` once the runtime
    /// spills into the host (layers, experts or streamed weights in RAM): the judge's answer
    /// for a plan with a host, where the GPUs alone fall short.
    pub fn placed_at(
        &self,
        gpu: &Gpu,
        count: u32,
        context: u64,
        batch: u64,
    ) -> Option<crate::engine::placement::Placement> {
        self.placing(gpu, count, context, batch, crate::engine::placement::place)
    }

    /// [`Needs::placed_at`]'s verdict only (no names, flags or speed), for the limit searches.
    fn placed_check_at(
        &self,
        gpu: &Gpu,
        count: u32,
        context: u64,
        batch: u64,
    ) -> Option<crate::engine::placement::Check> {
        self.placing(gpu, count, context, batch, crate::engine::placement::check)
    }

    fn placing<T>(
        &self,
        gpu: &Gpu,
        count: u32,
        context: u64,
        batch: u64,
        with: fn(&crate::engine::placement::Request) -> T,
    ) -> Option<T> {
        if !may_spill(self.scenario, gpu) {
            return None;
        }
        let sc = Scenario {
            context,
            batch,
            cards: count,
            ..self.scenario.clone()
        };
        // Only the streaming engines place from the breakdown; llama.cpp's and Ollama's
        // placement sizes each layer itself (and a limit search asks this hundreds of times).
        let per_card =
            if crate::engine::placement::spill_of(&sc) == Some(crate::engine::placement::Spill::Streamed) {
                crate::engine::basics::units::totals_only(|| breakdown_for_count(self.model, &sc, count))
            } else {
                Breakdown::default()
            };
        let rig = [crate::engine::placement::Cards {
            gpu,
            count,
            usable: usable_per_card(gpu, count, self.scenario),
        }];
        Some(crate::engine::basics::units::totals_only(|| {
            with(&crate::engine::placement::Request {
                model: self.model,
                scenario: &sc,
                rig: &rig,
                host: self.scenario.host.as_ref(),
                per_card: &per_card,
                work: None,
            })
        }))
    }

    /// The judge with the host counted: the GPUs alone, or else a placement that spills.
    fn fits_at(&self, gpu: &Gpu, count: u32, context: u64, batch: u64, comfortable: bool) -> bool {
        let sc = self.scenario;
        let j = judge_memory(gpu, count, sc, self.per_card(count, context, batch), None);
        let alone = if comfortable { j.comfortable() } else { j.fits() };
        alone
            || (may_spill(sc, gpu)
                && !(comfortable && j.fits())
                && self.placed_check_at(gpu, count, context, batch).is_some_and(|c| {
                    c.fits && (!comfortable || !is_tight(sc.tight_rule, 1, c.host_bytes, c.host_free))
                }))
    }

    /// Remember a need already computed (the plan's own breakdowns).
    pub fn remember(&self, count: u32, context: u64, batch: u64, need: f64) {
        self.cache.borrow_mut().insert((count, context, batch), need);
    }

    pub fn per_card(&self, count: u32, context: u64, batch: u64) -> f64 {
        if let Some(n) = self.cache.borrow().get(&(count, context, batch)) {
            return *n;
        }
        let sc = Scenario {
            context,
            batch,
            cards: count,
            ..self.scenario.clone()
        };
        let need =
            crate::engine::basics::units::totals_only(|| breakdown_for_count(self.model, &sc, count).total());
        self.cache.borrow_mut().insert((count, context, batch), need);
        need
    }

    /// The judge's verdict for `count` × `gpu` at `context` and `batch`.
    pub fn judge_at(&self, gpu: &Gpu, count: u32, context: u64, batch: u64) -> Judgement {
        // What the judge reads of the scenario beyond the need (rules, format, split,
        // fraction by count) does not change with context or batch.
        judge(
            self.model,
            gpu,
            count,
            self.scenario,
            self.per_card(count, context, batch),
        )
    }

    /// The largest batch at the scenario's context that `count` × `gpu` fits (`comfortable`:
    /// without being tight).
    pub fn max_batch(&self, gpu: &Gpu, count: u32, comfortable: bool) -> Option<u64> {
        if unsupported_reason(self.model, gpu, count, self.scenario).is_some() {
            return None;
        }
        self.batch_limit(gpu, count, comfortable)
    }

    /// [`Needs::max_batch`] for an option known to run the scenario.
    fn batch_limit(&self, gpu: &Gpu, count: u32, comfortable: bool) -> Option<u64> {
        let sc = self.scenario;
        let hi = crate::engine::workload::ranges::MAX_BATCH;
        let guess = self.guess(gpu, count, sc.batch, hi, |b| (sc.context, b));
        largest_near(hi, guess, |b| {
            self.fits_at(gpu, count, sc.context, b, comfortable)
        })
    }

    /// The longest context (a multiple of [`context_step`], up to [`context_ceiling`]) at
    /// the scenario's batch that `count` × `gpu` fits.
    pub fn max_context(&self, gpu: &Gpu, count: u32, comfortable: bool) -> Option<u64> {
        if unsupported_reason(self.model, gpu, count, self.scenario).is_some() {
            return None;
        }
        self.context_limit(gpu, count, comfortable)
    }

    /// [`Needs::max_context`] for an option known to run the scenario.
    fn context_limit(&self, gpu: &Gpu, count: u32, comfortable: bool) -> Option<u64> {
        let sc = self.scenario;
        let step = context_step(sc);
        let hi = context_ceiling(self.model, sc) / step;
        let at = (sc.context / step).clamp(1, hi.max(1));
        let guess = self.guess(gpu, count, at, hi, |k| (k * step, sc.batch));
        largest_near(hi, guess, |k| {
            self.fits_at(gpu, count, k * step, sc.batch, comfortable)
        })
        .map(|k| k * step)
    }

    /// Where the search starts: the need is close to affine in context and batch (KV and
    /// logits grow linearly; only the prefill chunk bends it), so the slope between the
    /// scenario's point and the next predicts the limit; the search then checks it exactly.
    fn guess(&self, gpu: &Gpu, count: u32, at: u64, hi: u64, point: impl Fn(u64) -> (u64, u64)) -> u64 {
        let (c0, b0) = point(at);
        let (c1, b1) = point(at + 1);
        let n0 = self.per_card(count, c0, b0);
        let n1 = self.per_card(count, c1, b1);
        let slope = n1 - n0;
        let room = usable_per_card(gpu, count, self.scenario) - n0;
        if slope <= 0.0 || !room.is_finite() {
            return hi;
        }
        // Clamped into 1..=hi (the search corrects a guess off either end).
        ((at as f64 + (room / slope).floor()).max(1.0) as u64).min(hi)
    }

    /// Every limit of `count` × `gpu`: what [`Needs::shown_limits`] gives, and the same
    /// for a fit that is not tight.
    pub fn limits(&self, gpu: &Gpu, count: u32) -> Limits {
        let shown = self.shown_limits(gpu, count);
        if shown.max_context.is_none() && shown.max_batch.is_none() {
            return shown;
        }
        Limits {
            comfortable_context: self.context_limit(gpu, count, true),
            comfortable_batch: self.batch_limit(gpu, count, true),
            ..shown
        }
    }

    /// The longest context and largest batch only (what the cards table and the JSON show
    /// for every option; the comfortable ones are the advice's, for one target).
    pub fn shown_limits(&self, gpu: &Gpu, count: u32) -> Limits {
        if unsupported_reason(self.model, gpu, count, self.scenario).is_some() {
            return Limits::default();
        }
        let max_context = self.context_limit(gpu, count, false);
        Limits {
            max_context,
            max_batch: self.batch_limit(gpu, count, false),
            context_at_model_max: self.at_model_max(max_context),
            ..Limits::default()
        }
    }

    /// Whether a context limit is where the model's trained length stopped it.
    fn at_model_max(&self, max_context: Option<u64>) -> bool {
        let step = context_step(self.scenario);
        let ceiling = context_ceiling(self.model, self.scenario) / step * step;
        max_context == Some(ceiling) && ceiling < crate::engine::workload::ranges::MAX_CONTEXT / step * step
    }
}

/// Whether the plan may spill into host memory on `gpu`: the runtime can, and there is a
/// host (given, detected, or the unified-memory machine the GPU is).
pub fn may_spill(sc: &Scenario, gpu: &Gpu) -> bool {
    // A unified-memory machine is its own host, for the runtimes that run there (llama.cpp
    // and Ollama on Metal or an APU).
    crate::engine::placement::spill_of(sc).is_some()
        && (sc.host.is_some() || (crate::engine::placement::is_unified(gpu) && sc.framework.is_ggml()))
}

/// A placement that spills is tight when the host keeps less than the quick rules' single
/// card margin (5 GB) free: the GPUs are filled on purpose.
pub fn placed_comfortably(p: &crate::engine::placement::Placement, sc: &Scenario) -> bool {
    p.host()
        .is_none_or(|h| !is_tight(sc.tight_rule, 1, h.bytes, h.free_bytes))
}

/// The largest `k` in `1..=hi` with `ok(k)`, given `ok` turns false once and stays false,
/// searched from `guess` outward (galloping, then bisection): exact whatever the guess, and
/// two probes when the guess is right.
pub fn largest_near(hi: u64, guess: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    if hi == 0 {
        return None;
    }
    let g = guess.clamp(1, hi);
    let (mut good, mut bad) = if ok(g) {
        // Up from the guess: the first probe that fails bounds the answer.
        let mut good = g;
        let mut step = 1u64;
        loop {
            if good == hi {
                return Some(hi);
            }
            let probe = good.saturating_add(step).min(hi);
            if ok(probe) {
                good = probe;
                step = step.saturating_mul(2);
            } else {
                break (good, probe);
            }
        }
    } else {
        // Down from the guess: the first probe that holds bounds it from below.
        let mut bad = g;
        let mut step = 1u64;
        loop {
            if bad == 1 {
                return None;
            }
            let probe = bad.saturating_sub(step).max(1);
            if ok(probe) {
                break (probe, bad);
            }
            bad = probe;
            step = step.saturating_mul(2);
        }
    };
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) { good = mid } else { bad = mid }
    }
    Some(good)
}
