//! Each row of the workload pane's value in words, as the planner shows it beside its label.

use super::knobs::Knob;
use crate::engine::verdict::rank::SortBy;
use crate::engine::{Choice, Scenario};

impl Knob {
    /// Value text of a knob, for the workload pane.
    pub fn value(self, sc: &Scenario, sort_by: SortBy) -> String {
        use crate::present::i18n::label;
        use crate::tr;
        let on = |b: bool| if b { tr!("tui.on") } else { tr!("tui.off") };
        match self {
            Knob::Method => label("method", sc.method.id(), sc.method.label()),
            Knob::Framework => label("framework", sc.framework.id(), &sc.runtime_label()),
            Knob::Release => match (sc.release, sc.version()) {
                (None, Some(v)) => crate::tr!("tui.release_newest", version = v.to_string()),
                (_, Some(v)) => v.to_string(),
                (_, None) => String::new(),
            },
            Knob::Weights => sc.weights.label().into(),
            Knob::Kv => sc.kv.label().into(),
            Knob::Context => crate::engine::basics::units::group_thousands(sc.context as i64),
            Knob::Batch => sc.batch.to_string(),
            Knob::LoraRank => sc.lora_rank.to_string(),
            Knob::LoraTargets => label("targets", sc.lora_targets.id(), sc.lora_targets.label()),
            Knob::Optimizer => label("optimizer", sc.optimizer.id(), sc.optimizer.label()),
            Knob::Precision => label(
                "training_precision",
                sc.training_precision.id(),
                sc.training_precision.label(),
            ),
            Knob::Checkpointing if sc.checkpointing && sc.selective_checkpointing => tr!("tui.selective"),
            Knob::Checkpointing => on(sc.checkpointing),
            Knob::ActivationOffload => on(sc.activation_offload),
            Knob::Compile => on(sc.compile),
            Knob::FlashAttention => on(sc.flash_attention),
            Knob::FusedCe => on(sc.fused_ce),
            Knob::OptimizerInBackward => on(sc.optimizer_in_backward),
            Knob::Zero => tr!("tui.zero_stage", stage = sc.zero),
            Knob::Offload => label("offload", sc.offload.id(), sc.offload.label()),
            Knob::Cards => {
                if sc.cards == 1 {
                    let most = crate::engine::verdict::plan::candidate_counts(sc)
                        .last()
                        .copied()
                        .unwrap_or(8);
                    tr!("tui.cards_one", most = most)
                } else {
                    tr!("tui.cards_per_plan", cards = sc.cards)
                }
            }
            Knob::Split => label("split", sc.split.id(), sc.split.label()),
            Knob::Prompt => crate::engine::basics::units::group_thousands(sc.prompt as i64),
            Knob::MaxBatchedTokens => tr!(
                "tui.max_batched_tokens",
                n = crate::engine::basics::units::group_thousands(sc.max_batched_tokens as i64)
            ),
            Knob::MaxNumSeqs => sc.max_num_seqs.to_string(),
            Knob::Ubatch => crate::engine::basics::units::group_thousands(sc.ubatch as i64),
            Knob::GpuUtil => format!("{:.0} %", sc.gpu_util_on(sc.cards) * 100.0),
            Knob::Convention => label("convention", sc.convention.id(), sc.convention.label()),
            Knob::Tight => crate::present::tight_rule_label(sc.tight_rule),
            Knob::Hours => crate::present::hours_label(sc.rent.hours),
            Knob::Currency if sc.rent.display_currency == "CNY" => {
                tr!("tui.cny_rate", rate = sc.rent.rates.usd_cny)
            }
            Knob::Currency => sc.rent.display_currency.clone(),
            Knob::Rank => label("rank", sort_by.id(), sort_by.label()),
            Knob::TrainTokens => match sc.rent.train_tokens {
                Some(t) => tr!(
                    "tui.train_tokens",
                    tokens = crate::engine::basics::units::format_params(t)
                        .replace('B', " B")
                        .replace('M', " M")
                ),
                None => tr!("tui.train_off"),
            },
            Knob::Epochs => sc.rent.epochs.to_string(),
            Knob::Utilization => tr!(
                "tui.of_peak",
                percent = format!("{:.0}", sc.rent.utilization * 100.0)
            ),
            Knob::CardClass => match sc.card_class {
                Some(c) => crate::present::i18n::message(&format!("class.{}", c.id())),
                None => tr!("class.all"),
            },
            Knob::Images => tr!("tui.images_per_request", n = sc.images),
            Knob::Users => super::target_knobs::users_text(sc),
            Knob::MinTps => super::target_knobs::min_tps_text(sc),
            Knob::MaxTtft => super::target_knobs::max_ttft_text(sc),
            Knob::Deadline => super::target_knobs::deadline_text(sc),
            Knob::Ram => match &sc.host {
                Some(h) => format!("{:.0} GB", h.ram_bytes / 1e9),
                None => tr!("tui.ram_off"),
            },
            Knob::RamBandwidth => match sc.host.as_ref().and_then(|h| h.bandwidth_gbs) {
                Some(b) => match sc.host.as_ref().and_then(|h| h.platform) {
                    Some(p) => format!("{b:.0} GB/s {p}"),
                    None => format!("{b:.0} GB/s"),
                },
                None => tr!("tui.ram_bandwidth_unknown"),
            },
        }
    }
}
