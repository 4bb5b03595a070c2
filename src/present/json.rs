//! The JSON contract of `vramfit plan --json`: field names are a promise to scripts.

use serde::Serialize;

pub use super::speed_json::{ExpectedJson, SpeedClassJson, TargetJson, expected_json, round2, target_json};

use crate::engine::memory::breakdown::{signed_bytes, unsigned_bytes};
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
    /// An unknown family's count is an estimate: the smallest and largest count over the
    /// structure its config does not state, and the larger relative distance from `params`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params_range: Option<[u64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params_error_bound: Option<f64>,
    /// The config keys an unknown family's reading could not use (beside `params_range`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_keys: Option<&'a [String]>,
    /// A state-space model's state per sequence (the same at any context).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_bytes_per_sequence: Option<u64>,
    /// The image encoder (vision tower + projector), 0 for a text-only model; `params`
    /// counts the language model.
    pub vision_params: u64,
    /// Tokens per image: fixed, or for a model whose tokens follow the image's size, at the
    /// plan's image side (`--image-size`, 1024 pixels unless given); null for a text-only model.
    pub tokens_per_image: Option<u32>,
}

impl<'a> ModelJson<'a> {
    pub fn new(model: &'a Model, kv_bytes_per_element: f64, image_side: u32) -> Self {
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
            params_range: model.params_range.map(|(lo, hi)| [lo, hi]),
            unknown_keys: model.params_range.map(|_| model.unknown_keys.as_slice()),
            state_bytes_per_sequence: model.arch.ssm.map(|_| {
                (crate::engine::memory::kv::state_elements(model) as f64 * kv_bytes_per_element).round()
                    as u64
            }),
            params_error_bound: model.params_error_bound(),
            vision_params: model.vision.map_or(0, |v| v.params),
            tokens_per_image: model.vision.map(|v| v.tokens_for(image_side)),
        }
    }
}

#[derive(Serialize)]
pub struct ScenarioJson<'a> {
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
    pub activation_offload: bool,
    /// With checkpointing on: torchtitan's op-level selective policy.
    pub selective_checkpointing: bool,
    pub compile: bool,
    pub flash_attention: bool,
    pub fused_ce: bool,
    pub zero: u8,
    pub offload: &'static str,
    pub cards: u32,
    pub gpu_util: f64,
    /// The serving share follows each option's card count (SGLang's preset): each
    /// option's `usable_bytes` carries its own.
    pub gpu_util_by_count: bool,
    /// Tokens prefilled in one serving step (the activation peak's chunk).
    pub max_batched_tokens: u64,
    /// vLLM's sequences per step (its profiling run samples this many).
    pub max_num_seqs: u64,
    /// llama.cpp's physical batch (its compute buffer grows with it).
    pub ubatch: u64,
    /// DeepSpeed's reduce and stage-3 prefetch buckets, in elements.
    pub reduce_bucket_size: u64,
    pub prefetch_bucket_size: u64,
    /// The runtime whose preset and overheads the plan uses.
    pub framework: &'static str,
    /// The framework's release the plan follows (`--framework vllm@0.11`; the newest known
    /// when none is given); null for a runtime whose rules do not change by release.
    pub framework_version: Option<String>,
    /// vLLM's entry point: `serve` (`vllm serve`) or `llm` (the `LLM` class).
    pub vllm_entry: &'static str,
    /// The values that framework sets by default, with where it sets them.
    pub framework_preset: Vec<PresetJson>,
    /// The host's RAM (decimal GB) and bandwidth (GB/s) the plan may spill into; null: VRAM only.
    pub ram_gb: Option<f64>,
    pub ram_bandwidth_gbs: Option<f64>,
    /// The host's memory platform, when the bandwidth came from one.
    pub ram_platform: Option<&'static str>,
    /// The cards asked for (`--gpu`, `--here`): each id with its count; null: the catalog.
    pub gpus: Option<Vec<RigJson<'a>>>,
    /// What the set-up must achieve: {users, min_tps, max_ttft_s, deadline_h}; null: none.
    pub target: Option<crate::engine::verdict::meets_target::Target>,
}

#[derive(Serialize)]
pub struct PresetJson {
    /// The flag that changes it.
    pub flag: &'static str,
    pub value: String,
    pub source: &'static str,
}

#[derive(Debug, Serialize)]
pub struct CardBatchJson {
    pub max_batched_tokens: u64,
    /// vLLM's sequences per step on the card; null for SGLang, whose chunk alone follows it.
    pub max_num_seqs: Option<u64>,
}

#[derive(Serialize)]
pub struct OptionJson<'a> {
    /// The card's id, or a rig's in `--gpu`'s rig syntax (`rtx-4090 + 2x rtx-3090`).
    pub gpu: String,
    pub name: std::borrow::Cow<'a, str>,
    pub count: u32,
    pub verdict: &'static str,
    /// Byte fields are 128-bit integers (see `engine::memory::breakdown::whole_bytes`).
    pub free_bytes: crate::engine::memory::breakdown::SignedBytes,
    pub free_bytes_per_card: crate::engine::memory::breakdown::SignedBytes,
    pub capacity_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    /// What the plan may use: all of it, or a serving engine's share (gpu_util).
    pub usable_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    /// Bytes each card of the option holds.
    pub per_card_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    /// The smallest count of this card that holds the plan; null when none up to the
    /// largest combo does.
    pub cards_needed: Option<u32>,
    pub price_usd_month: Option<f64>,
    /// Decode ceiling per stream (tokens/s): an upper bound, not a benchmark.
    pub decode_tokens_per_s: Option<f64>,
    pub decode_aggregate_tokens_per_s: Option<f64>,
    /// Which ceiling binds: `bandwidth` or `compute`.
    pub decode_bound: Option<&'static str>,
    /// The runtime's batch values on this card where they follow the card (vLLM's
    /// `max_num_batched_tokens` and `max_num_seqs` by the device's memory); null: the
    /// scenario's own.
    pub card_batch: Option<CardBatchJson>,
    /// The context this option is planned at: the scenario's, or the one its runtime picks
    /// on these cards (Ollama's `num_ctx` by VRAM, 0.15.5 on).
    pub context: u64,
    /// Time to first token for `--prompt` tokens, compute-bound.
    pub prefill_seconds: Option<f64>,
    /// `single`, `tensor`, `layer`, or `data` for training combos.
    pub split: &'static str,
    pub link: String,
    pub link_seconds_per_token: Option<f64>,
    pub warning: Option<String>,
    pub kv_capacity_tokens: Option<u64>,
    /// Sequences served at once: what the KV budget holds at the context, or under llama.cpp
    /// and Ollama their fixed slots (the batch: n_parallel, OLLAMA_NUM_PARALLEL).
    pub max_concurrent_sequences: Option<u64>,
    /// vLLM's hybrid allocator (a model with layers of several kinds): its groups, blocks and
    /// logged figures; `kv_capacity_tokens` is then its "GPU KV cache size".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_groups: Option<crate::engine::memory::vllm_pool::PoolCapacity>,
    /// The longest context (training: sequence) at the batch that still fits, as the
    /// judge says (`plan --context N` fits, one step more does not).
    pub max_context: Option<u64>,
    /// The largest batch at the context that still fits (serving: the sequences of this
    /// length held at once).
    pub max_batch: Option<u64>,
    /// `max_context` stopped at the model's trained length; the memory would hold more.
    pub context_limit_at_model_max: bool,
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
    /// What goes where: one entry per distinct device (each kind of card, then the host),
    /// `bytes` for the fullest card of a kind (the host: all it holds).
    pub placement: Option<&'a [crate::engine::placement::DevicePart]>,
    /// `all-on-gpu`, `layers` (whole layers in RAM), `experts` (MoE experts in RAM) or
    /// `streamed` (weights streamed from RAM every forward pass).
    pub placement_strategy: Option<crate::engine::placement::Strategy>,
    /// Layers on the GPUs of all (llama.cpp counts the output layer as one).
    pub gpu_layers: Option<u64>,
    pub total_layers: Option<u64>,
    /// The runtime's command-line flags for this placement, as one string.
    pub runtime_flags: Option<&'a str>,
    /// The placement's decode ceiling by part (device, bytes, seconds), when it spills.
    pub placement_speed: Option<&'a crate::engine::placement::speed::PlacedSpeed>,
    /// What published runs of the option's class reached (`engine::speed::expected`).
    #[serde(flatten)]
    pub expected: ExpectedJson,
    /// `replicas`, `meets_target`, `target_limits` (`engine::verdict::meets_target`).
    #[serde(flatten)]
    pub target: TargetJson,
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
    /// The day the price was seen (`YYYY-MM-DD`); null when the source gives none.
    pub seen: Option<&'a str>,
    /// Seen more than a year before today (`crate::dates`): shown, never passed over.
    pub stale: bool,
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
        seen: o.seen.as_deref(),
        stale: crate::dates::is_stale(o.seen.as_deref(), crate::dates::today()),
    })
}

#[derive(Serialize)]
pub struct PlanJson<'a> {
    pub model: ModelJson<'a>,
    pub convention: &'static str,
    pub scenario: ScenarioJson<'a>,
    /// Peak bytes per card.
    pub total_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    /// Host (CPU) RAM the plan needs: offloaded or paged state.
    pub host_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    pub segments: &'a [Segment],
    pub decode_bytes_per_token: Option<crate::engine::memory::breakdown::UnsignedBytes>,
    pub notes: &'a [String],
    /// The first fitting option under the chosen rank (`--sort`); null when nothing fits.
    pub cheapest: Option<CheapestJson>,
    /// The cheapest option that meets the target, replicas counted; null without a target
    /// or when none does.
    pub cheapest_meeting_target: Option<MeetingJson>,
    pub options: Vec<OptionJson<'a>>,
}

#[derive(Serialize)]
pub struct CheapestJson {
    pub gpu: String,
    pub count: u32,
    pub price_usd_month: Option<f64>,
    pub rent_cost_usd: Option<f64>,
}

#[derive(Serialize)]
pub struct MeetingJson {
    pub gpu: String,
    pub count: u32,
    pub replicas: u32,
    /// Replicas × the option's monthly price.
    pub price_usd_month: Option<f64>,
}

pub fn option_json<'a>(
    gpus: &'a [Gpu],
    o: &'a FitOption,
    framework: crate::engine::Framework,
) -> OptionJson<'a> {
    let g = &gpus[o.gpu];
    OptionJson {
        gpu: super::option_gpu_id(gpus, o),
        name: super::option_card_names(gpus, o),
        count: o.count,
        verdict: o.verdict.id(),
        free_bytes: signed_bytes(o.free_bytes),
        free_bytes_per_card: signed_bytes(o.free_bytes_per_card),
        capacity_bytes: unsigned_bytes(o.capacity_bytes),
        usable_bytes: unsigned_bytes(o.usable_bytes),
        per_card_bytes: unsigned_bytes(o.per_card_bytes),
        cards_needed: o.cards_needed,
        price_usd_month: o.price_usd_month.map(round2),
        decode_tokens_per_s: o.decode_tokens_per_s.map(round2),
        decode_aggregate_tokens_per_s: o.roofline.map(|r| round2(r.aggregate)),
        decode_bound: o.roofline.map(|r| r.bound.id()),
        card_batch: o.batch_defaults.map(|(tokens, seqs)| CardBatchJson {
            max_batched_tokens: tokens,
            // SGLang's chunk follows the card; its sequences do not.
            max_num_seqs: (framework == crate::engine::Framework::Vllm).then_some(seqs),
        }),
        context: o.context,
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
        kv_groups: o.serving.and_then(|c| c.kv_groups),
        max_context: o.limits.max_context,
        max_batch: o.limits.max_batch,
        context_limit_at_model_max: o.limits.context_at_model_max,
        offer: offer_json(g, o.offer),
        rent_cost_usd: o.rent_cost_usd.map(round2),
        spot_offer: offer_json(g, o.spot_offer),
        spot_rent_cost_usd: o.spot_rent_cost_usd.map(round2),
        train_hours: o.training.map(|t| round2(t.hours)),
        train_cost_usd: o.train_cost_usd.map(round2),
        train_offer: offer_json(g, o.train_offer),
        reason: o.reason.map(|r| r.text(g)),
        placement: o.placement.as_ref().map(|p| p.devices.as_slice()),
        placement_strategy: o.placement.as_ref().map(|p| p.strategy),
        gpu_layers: o.placement.as_ref().map(|p| p.gpu_layers),
        total_layers: o.placement.as_ref().map(|p| p.total_layers),
        runtime_flags: o.placement.as_ref().map(|p| p.runtime_flags.as_str()),
        placement_speed: o.placement.as_ref().and_then(|p| p.speed.as_ref()),
        expected: ExpectedJson::default(),
        target: target_json(o.target.as_ref()),
    }
}

/// One kind of card in the plan's rig.
#[derive(Serialize)]
pub struct RigJson<'a> {
    pub id: &'a str,
    pub count: u32,
}

/// The rig a plan was asked for: a mixed rig's kinds, or the one card every option is.
fn rig_json<'a>(gpus: &'a [Gpu], scenario: &Scenario, plan: &Plan) -> Option<Vec<RigJson<'a>>> {
    let first = plan.options.first()?;
    if !first.rig.is_empty() {
        return Some(
            first
                .rig
                .iter()
                .map(|&(i, count)| RigJson {
                    id: &gpus[i].id,
                    count,
                })
                .collect(),
        );
    }
    plan.options.iter().all(|o| o.gpu == first.gpu).then(|| {
        vec![RigJson {
            id: &gpus[first.gpu].id,
            count: scenario.cards,
        }]
    })
}

pub fn plan_json<'a>(model: &'a Model, gpus: &'a [Gpu], scenario: &Scenario, plan: &'a Plan) -> PlanJson<'a> {
    PlanJson {
        model: ModelJson::new(model, scenario.kv.bytes_per_element(), scenario.image_side),
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
            activation_offload: scenario.activation_offload,
            selective_checkpointing: scenario.checkpointing && scenario.selective_checkpointing,
            compile: scenario.compile,
            flash_attention: scenario.flash_attention,
            fused_ce: scenario.fused_ce,
            zero: scenario.zero,
            offload: scenario.offload.id(),
            cards: scenario.cards,
            gpu_util: scenario.gpu_util_on(scenario.cards),
            gpu_util_by_count: scenario.gpu_util_by_count,
            max_batched_tokens: scenario.max_batched_tokens,
            max_num_seqs: scenario.max_num_seqs,
            ubatch: scenario.ubatch,
            reduce_bucket_size: scenario.reduce_bucket,
            prefetch_bucket_size: scenario.prefetch_bucket,
            framework: scenario.framework.id(),
            framework_version: scenario.version().map(|v| v.to_string()),
            vllm_entry: if scenario.vllm_llm_class { "llm" } else { "serve" },
            framework_preset: scenario
                .framework
                .presets(scenario)
                .into_iter()
                .map(|p| PresetJson {
                    flag: p.setting.flag(),
                    value: p.setting.value(),
                    source: p.source,
                })
                .collect(),
            ram_gb: scenario.host.as_ref().map(|h| round2(h.ram_bytes / 1e9)),
            ram_bandwidth_gbs: scenario.host.as_ref().and_then(|h| h.bandwidth_gbs),
            ram_platform: scenario.host.as_ref().and_then(|h| h.platform),
            gpus: rig_json(gpus, scenario, plan),
            target: scenario.target.is_set().then_some(scenario.target),
        },
        total_bytes: unsigned_bytes(plan.total_bytes()),
        host_bytes: unsigned_bytes(plan.breakdown.host_bytes),
        notes: &plan.breakdown.notes,
        segments: &plan.breakdown.segments,
        decode_bytes_per_token: plan.breakdown.decode_bytes_per_token.map(unsigned_bytes),
        cheapest: plan.best().map(|o| CheapestJson {
            gpu: super::option_gpu_id(gpus, o),
            count: o.count,
            price_usd_month: o.price_usd_month.map(round2),
            rent_cost_usd: o.rent_cost_usd.map(round2),
        }),
        cheapest_meeting_target: crate::engine::renting::cheapest_meeting(&plan.options).and_then(|o| {
            o.target.map(|c| MeetingJson {
                gpu: super::option_gpu_id(gpus, o),
                count: o.count,
                replicas: c.replicas,
                price_usd_month: c.price_usd_month.map(round2),
            })
        }),
        options: plan
            .options
            .iter()
            .map(|o| {
                let mut j = option_json(gpus, o, scenario.framework);
                j.expected = expected_json(model, scenario, &gpus[o.gpu], o);
                if scenario.method.is_training() {
                    // Training options: the longest sequence and the largest micro-batch
                    // the judge fits, solved for each option here (the table does not
                    // show them, so `plan` leaves them unsolved).
                    let sc = Scenario {
                        cards: o.count,
                        ..scenario.clone()
                    };
                    let l = crate::engine::verdict::needs::Needs::new(model, &sc)
                        .shown_limits(&gpus[o.gpu], o.count);
                    j.max_context = l.max_context;
                    j.max_batch = l.max_batch;
                    j.context_limit_at_model_max = l.context_at_model_max;
                }
                // llama.cpp and Ollama serve their fixed slots, as the table's seqs column says.
                if let Some(c) = o.serving {
                    j.max_concurrent_sequences = Some(super::concurrent_sequences(scenario, &c));
                }
                j
            })
            .collect(),
    }
}
