//! Rent to a target: does an option serve N users at a speed and a time to first token, or
//! finish a fine-tune by a deadline, and with how many independent copies (replicas)?
//!
//! Serving: one replica (a card or a combo) holds `u` users when
//! - memory: its KV budget holds `u` sequences at the context (the judge's largest batch,
//!   the plan's own `max_batch`);
//! - speed: the decode step at batch `u` (the weights read once, each sequence's KV, until
//!   compute binds: [`serving::step_seconds`]) gives each user at least `min_tps` tokens/s,
//!   at the share of that ceiling runs of its class reached (`engine::speed::expected`);
//! - time to first token: one new prompt, prefilled in chunks of the runtime's step
//!   (vLLM's `max_num_batched_tokens`, llama.cpp's `n_ubatch`) beside the `u − 1` running
//!   users' decode, ends within `max_ttft_s`.
//!
//! The largest such `u` sets the replicas, ⌈N ÷ u⌉ (at most [`MAX_REPLICAS`]), each priced
//! as the option. Where no class of measured runs gives a share, the ceiling is used and the
//! result is marked optimistic.
//!
//! Training: the option finishes `--train-tokens` × `--epochs` (`renting::training_time`)
//! within the deadline.

pub use crate::engine::workload::serving_target::{Check, Limit, Margin, Target};

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::speed::expected::{self, table};
use crate::engine::speed::serving::{self, DecodeWork};
use crate::engine::verdict::fit::FitOption;
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::Scenario;

pub use crate::engine::workload::serving_target::MAX_REPLICAS;

/// The speeds one option gives at a number of users.
struct Serving<'a> {
    model: &'a Model,
    sc: &'a Scenario,
    gpu: &'a Gpu,
    o: &'a FitOption,
    work: DecodeWork,
}

impl Serving<'_> {
    fn fp8(&self) -> bool {
        self.sc.weights == WeightPrecision::Fp8
    }

    /// The decode class of runs like this one at `users` (`None`: no class, the ceiling).
    fn decode_class(&self, users: u64) -> Option<&'static expected::Efficiency> {
        let shape = expected::Shape {
            batch: users,
            ..expected::shape_of(self.model, self.sc, self.gpu, self.o.ceilings().offload)
        };
        expected::pick(table::DECODE, &shape.decode_keys())
    }

    fn prefill_share(&self) -> Option<f64> {
        let shape = expected::shape_of(self.model, self.sc, self.gpu, self.o.ceilings().offload);
        if shape.offload {
            return None;
        }
        expected::pick(table::PREFILL, &shape.prefill_keys()).map(|c| c.median)
    }

    /// Each user's decode tokens/s at `users`, and whether it is the bare ceiling. An option
    /// that spills into host RAM was placed for the scenario's batch: it serves that many.
    fn per_user_tps(&self, users: u64) -> Option<(f64, bool)> {
        if self.o.spills() {
            if users > self.sc.batch.max(1) {
                return None;
            }
            return match self.o.expected_decode_tokens_per_s {
                Some(e) => Some((e, false)),
                None => self.o.decode_tokens_per_s.map(|c| (c, true)),
            };
        }
        let u = users as f64;
        let step = serving::step_seconds(
            self.gpu,
            self.o.count,
            self.sc.split,
            &self.work,
            u,
            u,
            self.fp8(),
        );
        let ceiling = 1.0 / step.total();
        // Per user as `expected::expected_decode` gives it: the class's efficiency of the
        // step's ceiling plus its fixed seconds a step.
        Some(match self.decode_class(users) {
            Some(c) => (expected::per_user(ceiling, c.median, c.fixed_s), false),
            None => (ceiling, true),
        })
    }

    /// The tokens a serving step prefills: the runtime's chunk, or the whole prompt.
    fn chunk(&self) -> u64 {
        match self.sc.framework {
            Framework::Vllm | Framework::Sglang => self.sc.max_batched_tokens,
            Framework::LlamaCpp | Framework::Ollama => self.sc.ubatch,
            _ => self.sc.prompt,
        }
        .clamp(1, self.sc.prompt.max(1))
    }

    /// FLOPs of causal attention for `chunk` prompt tokens that follow `before` tokens: each
    /// token's scores and weighted values over the tokens up to it, 4 FLOPs per position per
    /// attention width per layer (FlashAttention's count), so 4·L·d·c·(before + c/2).
    fn attention_flops(&self, before: u64, chunk: u64) -> f64 {
        let a = &self.model.arch;
        let width = (a.heads * a.head_dim) as f64;
        4.0 * a.layers as f64 * width * chunk as f64 * (before as f64 + chunk as f64 / 2.0)
    }

    /// Seconds to the first token of one new prompt while `users − 1` others decode: its
    /// chunks, each a step that also reads every sequence's KV and decodes the others'
    /// token, and computes the chunk's attention over the prompt so far (it grows with the
    /// square of a long prompt); compute at the prefill class's share of peak, memory at
    /// the decode class's.
    fn ttft(&self, users: u64) -> Option<(f64, bool)> {
        if self.o.spills() {
            let r = self.o.roofline?;
            let secs = r.prefill_seconds?;
            return Some((secs, true));
        }
        let prompt = self.sc.prompt.max(1);
        let chunk = self.chunk();
        let others = users.saturating_sub(1) as f64;
        // The chunk's step reads memory at the decode class's efficiency; its fixed per-token
        // cost is left out: a prefill step's overheads are in the prefill class's share.
        let decode_share = self.decode_class(users).map(|c| c.median);
        let prefill_share = self.prefill_share();
        let mut done = 0;
        let mut secs = 0.0;
        while done < prompt {
            let tokens = (prompt - done).min(chunk);
            let s = serving::step_seconds(
                self.gpu,
                self.o.count,
                self.sc.split,
                &self.work,
                users as f64,
                tokens as f64 + others,
                self.fp8(),
            );
            if s.flops_per_s == 0.0 {
                // No compute figure for the card: no time to first token.
                return None;
            }
            let compute = s.compute + self.attention_flops(done, tokens) / s.flops_per_s;
            secs +=
                (s.memory / decode_share.unwrap_or(1.0)).max(compute / prefill_share.unwrap_or(1.0)) + s.link;
            done += tokens;
        }
        Some((secs, prefill_share.is_none()))
    }

    /// Whether a replica of `users` meets the speed and TTFT asked.
    fn holds(&self, t: &Target, users: u64) -> bool {
        let fast = t
            .min_tps
            .is_none_or(|min| self.per_user_tps(users).is_some_and(|(v, _)| v >= min));
        let quick = t
            .max_ttft_s
            .is_none_or(|max| self.ttft(users).is_some_and(|(v, _)| v <= max));
        fast && quick
    }
}

/// The most users one replica holds within `cap` (by memory), as speed and TTFT allow: they
/// only get worse with more users within one speed class, and the class changes once, from
/// a single stream to a batch, so the search checks one user, then bisects from two.
fn most_users(s: &Serving, t: &Target, cap: u64) -> u64 {
    if cap == 0 || !s.holds(t, 1) {
        return 0;
    }
    if cap == 1 || !s.holds(t, 2) {
        return 1;
    }
    let (mut lo, mut hi) = (2, cap);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if s.holds(t, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Judge one option against the scenario's target; `None` without a target, for an option
/// the target cannot judge (a training target on a serving plan, a rig of mixed cards), or
/// without the plan's decode work.
pub fn check(
    model: &Model,
    sc: &Scenario,
    gpu: &Gpu,
    o: &FitOption,
    work: Option<DecodeWork>,
) -> Option<Check> {
    let t = &sc.target;
    if !o.rig.is_empty() {
        return None;
    }
    if sc.method.is_training() {
        let deadline = t.deadline_h?;
        let hours = o.training.map(|tr| tr.hours);
        let fits = o.verdict.is_fit();
        let in_time = hours.is_some_and(|h| h <= deadline);
        return Some(Check {
            replicas: 1,
            users_per_replica: 0,
            meets: fits && in_time,
            binding: if !fits {
                Some(Limit::Memory)
            } else {
                (!in_time).then_some(Limit::Deadline)
            },
            memory: None,
            per_user_tps: None,
            ttft_s: None,
            finish_h: hours.map(|h| Margin::at_most(h, Some(deadline))),
            speed_from_ceiling: false,
            ttft_from_ceiling: false,
            price_usd_month: o.price_usd_month,
            cost_usd: o.train_cost_usd,
        });
    }
    if !t.is_serving() {
        return None;
    }
    let s = Serving {
        model,
        sc,
        gpu,
        o,
        work: work?,
    };
    let users = t.users();
    let held = if o.verdict.is_fit() {
        o.limits.max_batch.unwrap_or(0)
    } else {
        0
    };
    let per_replica = most_users(&s, t, held.min(users));
    let replicas_needed = if per_replica == 0 {
        0
    } else {
        users.div_ceil(per_replica)
    };
    let replicas = u32::try_from(replicas_needed).unwrap_or(u32::MAX);
    let spread = if replicas == 0 {
        1
    } else {
        users.div_ceil(replicas_needed)
    };
    let speed = s.per_user_tps(spread);
    let ttft = s.ttft(spread);
    let binding = if per_replica >= users {
        None
    } else if per_replica == held.min(users) {
        Some(Limit::Memory)
    } else if t.min_tps.is_some()
        && !s.holds(
            &Target {
                max_ttft_s: None,
                ..*t
            },
            per_replica + 1,
        )
    {
        Some(Limit::PerUserTps)
    } else {
        Some(Limit::Ttft)
    };
    let meets = (1..=MAX_REPLICAS).contains(&replicas);
    Some(Check {
        replicas,
        users_per_replica: if replicas == 0 { 0 } else { spread },
        meets,
        binding: if replicas > MAX_REPLICAS {
            Some(Limit::Replicas)
        } else {
            binding
        },
        memory: Some(Margin::at_least(held as f64, Some(spread as f64))),
        per_user_tps: speed.map(|(v, _)| Margin::at_least(v, t.min_tps)),
        ttft_s: ttft.map(|(v, _)| Margin::at_most(v, t.max_ttft_s)),
        finish_h: None,
        speed_from_ceiling: speed.is_some_and(|(_, o)| o),
        ttft_from_ceiling: t.max_ttft_s.is_some() && ttft.is_some_and(|(_, o)| o),
        price_usd_month: o.price_usd_month.map(|p| p * f64::from(replicas.max(1))),
        cost_usd: None,
    })
}
