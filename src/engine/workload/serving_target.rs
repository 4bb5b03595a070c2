//! What the user asks a set-up to achieve: a leaf the scenario holds (the judging of
//! options against it is `engine::verdict::meets_target`).

use serde::Serialize;

/// The most independent copies a serving target may rent.
pub const MAX_REPLICAS: u32 = 16;

/// What the user asks a set-up to achieve (`--users`, `--min-tps`, `--max-ttft`,
/// `--deadline`); all `None`: no target.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Target {
    /// Concurrent requests to serve.
    pub users: Option<u64>,
    /// Decode tokens/s each user must get.
    pub min_tps: Option<f64>,
    /// Seconds a new request may wait for its first token (its prompt is `--prompt`).
    pub max_ttft_s: Option<f64>,
    /// Hours a fine-tune must finish in.
    pub deadline_h: Option<f64>,
}

impl Target {
    pub fn is_set(&self) -> bool {
        self.is_serving() || self.deadline_h.is_some()
    }

    pub fn is_serving(&self) -> bool {
        self.users.is_some() || self.min_tps.is_some() || self.max_ttft_s.is_some()
    }

    /// Users to serve: one when only a speed or a TTFT is asked.
    pub fn users(&self) -> u64 {
        self.users.unwrap_or(1).max(1)
    }
}

/// What stops an option (or one replica) from doing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// The KV budget (or the model itself) does not hold more users.
    Memory,
    /// More users would slow each one below the speed asked.
    PerUserTps,
    /// More users would push the first token past the time asked.
    Ttft,
    /// The fine-tune ends after the deadline.
    Deadline,
    /// More than [`MAX_REPLICAS`] copies would be needed.
    Replicas,
}

impl Limit {
    pub fn id(self) -> &'static str {
        match self {
            Limit::Memory => "memory",
            Limit::PerUserTps => "per-user-tps",
            Limit::Ttft => "ttft",
            Limit::Deadline => "deadline",
            Limit::Replicas => "replicas",
        }
    }
}

/// One limit of the target on one option: what the option gives, what is asked, and the
/// headroom (positive: met; for a most-allowed limit such as TTFT, `1 − value ÷ limit`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Margin {
    pub value: f64,
    pub limit: Option<f64>,
    pub margin: Option<f64>,
}

impl Margin {
    pub fn at_least(value: f64, limit: Option<f64>) -> Margin {
        Margin {
            value,
            limit,
            margin: limit.map(|l| value / l - 1.0),
        }
    }

    pub fn at_most(value: f64, limit: Option<f64>) -> Margin {
        Margin {
            value,
            limit,
            margin: limit.map(|l| 1.0 - value / l),
        }
    }

    pub fn met(&self) -> bool {
        self.margin.is_none_or(|m| m >= -1e-9)
    }
}

/// An option judged against the target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Check {
    /// Independent copies of the option needed (0: not even one copy serves one user).
    pub replicas: u32,
    /// Users each replica serves (the users spread evenly).
    pub users_per_replica: u64,
    pub meets: bool,
    /// What stops one replica from serving more (serving), or the deadline (training);
    /// `None` when one replica serves every user.
    pub binding: Option<Limit>,
    /// Sequences one replica's KV budget holds at the context, against its users.
    pub memory: Option<Margin>,
    /// Each user's decode tokens/s at the replica's users.
    pub per_user_tps: Option<Margin>,
    /// Seconds to the first token at the replica's users.
    pub ttft_s: Option<Margin>,
    /// Hours to finish the fine-tune.
    pub finish_h: Option<Margin>,
    /// The per-user speed is the ceiling's (no class of measured decode runs).
    pub speed_from_ceiling: bool,
    /// The TTFT (asked for) is the compute ceiling's (no class of measured prefill runs).
    pub ttft_from_ceiling: bool,
    /// Replicas × the option's monthly price.
    pub price_usd_month: Option<f64>,
    /// Training: the cost to finish on the option.
    pub cost_usd: Option<f64>,
}

impl Check {
    /// A speed came from the ceiling alone (no class of measured runs): real runs are slower.
    pub fn optimistic(&self) -> bool {
        self.speed_from_ceiling || self.ttft_from_ceiling
    }

    /// What this check ranks by: the cost to finish a fine-tune, else the replicas' month.
    pub fn cost(&self) -> Option<f64> {
        self.cost_usd.or(self.price_usd_month)
    }
}
