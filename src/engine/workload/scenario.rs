//! What the user asks about: one model under one workload.

use serde::Serialize;

use crate::engine::basics::choice::Choice;
use crate::engine::hardware::offers::{CURRENCIES, HOURS_PER_MONTH, OfferFilter, Rates};
use crate::engine::model::precision::{KvPrecision, WeightPrecision};
pub use crate::engine::workload::choices::{
    Convention, LoraTargets, Method, Offload, Optimizer, Split, TightRule, TrainingPrecision,
};
pub use crate::engine::workload::runtime::Framework;

/// How long and how the user rents, and what a fine-tune must get through.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rent {
    /// Rental term in hours (a month is 720).
    pub hours: f64,
    pub rates: Rates,
    pub filter: OfferFilter,
    /// Currency prices are shown in (`USD` or `CNY`).
    pub display_currency: String,
    /// Tokens of the training data set (one epoch); `None`: no time-to-finish estimate.
    pub train_tokens: Option<u64>,
    pub epochs: u32,
    /// Share of peak dense compute a training run sustains (MFU), 0.4 by default.
    pub utilization: f64,
}

impl Rent {
    /// A rental setting from its parts (CLI flags, plan files).
    pub fn new(
        hours: f64,
        usd_cny: f64,
        provider: Option<String>,
        currency: &str,
        train_tokens: Option<u64>,
        epochs: u32,
        utilization: f64,
    ) -> Rent {
        Rent {
            hours,
            rates: Rates { usd_cny },
            filter: OfferFilter { provider },
            display_currency: currency.to_ascii_uppercase(),
            train_tokens,
            epochs,
            utilization,
        }
    }
}

impl Default for Rent {
    fn default() -> Self {
        Rent {
            hours: HOURS_PER_MONTH,
            rates: Rates::default(),
            filter: OfferFilter::default(),
            display_currency: "USD".into(),
            train_tokens: None,
            epochs: 1,
            utilization: 0.4,
        }
    }
}

/// One planning question: a workload on a model, independent of any card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    pub method: Method,
    pub weights: WeightPrecision,
    pub kv: KvPrecision,
    /// Inference: context length in tokens. Training: sequence length.
    pub context: u64,
    pub batch: u64,
    pub convention: Convention,
    /// LoRA/QLoRA adapter rank.
    pub lora_rank: u64,
    pub tight_rule: TightRule,
    // The knobs below are the calibrated convention's; the seed convention fixes them
    // (AdamW in mixed precision, checkpointing on, attention targets, one process).
    pub optimizer: Optimizer,
    /// Step the optimizer inside the backward pass (torchtune `optimizer_in_bwd`): each
    /// gradient is freed right after its update, so the full gradient buffer never exists.
    pub optimizer_in_backward: bool,
    pub training_precision: TrainingPrecision,
    pub checkpointing: bool,
    /// With checkpointing: torchtitan's op-level selective policy instead of recomputing
    /// each layer from its input.
    pub selective_checkpointing: bool,
    /// torch.compile: its min-cut partitioner recomputes pointwise ops in backward rather
    /// than saving their outputs (the norms' outputs, the MLP's activation and product).
    pub compile: bool,
    /// Saved activations move to host memory between forward and backward (torchtune's
    /// activation offloading); the card keeps the layer in use and the one in transfer.
    pub activation_offload: bool,
    pub flash_attention: bool,
    /// Fused / chunked cross-entropy: no full fp32 logits tensor.
    pub fused_ce: bool,
    pub lora_targets: LoraTargets,
    /// ZeRO stage (FSDP full shard = 3) across the cards of a combo.
    pub zero: u8,
    pub offload: Offload,
    /// Cards the plan is drawn for (the bar and `total_bytes` are per card).
    pub cards: u32,
    /// Serving engine's share of card memory (vLLM's `gpu_memory_utilization`), as set for
    /// the scenario's own card count.
    pub gpu_util: f64,
    /// The share follows the framework's own rule for each option's card count (SGLang's
    /// `mem_fraction_static` by tensor-parallel size) rather than one fixed value; a value
    /// the user sets turns this off.
    pub gpu_util_by_count: bool,
    /// The format the model's checkpoint stores its weights in (a GGUF's K-quants, a GPTQ
    /// folder's INT4), when the model comes from one: the default weights, so the weights
    /// segment is the file's bytes; a format the user picks re-estimates from the count.
    pub stored_weights: Option<WeightPrecision>,
    /// How inference combos spread the model.
    pub split: Split,
    /// Prompt tokens per request, for the time to first token.
    pub prompt: u64,
    /// Tokens a serving engine prefills in one step (vLLM's `max_num_batched_tokens`, the
    /// chunk of chunked prefill): the activation peak of serving.
    pub max_batched_tokens: u64,
    /// Sequences vLLM's scheduler admits per step (`max_num_seqs`): its profiling run samples
    /// this many at once.
    pub max_num_seqs: u64,
    /// Tokens llama.cpp computes in one pass (`n_ubatch`): its compute buffer grows with it.
    pub ubatch: u64,
    /// DeepSpeed's `reduce_bucket_size` (and ZeRO-1/2's `allgather_bucket_size`), elements.
    pub reduce_bucket: u64,
    /// DeepSpeed's `stage3_prefetch_bucket_size`, elements.
    pub prefetch_bucket: u64,
    /// The runtime the plan is for: its preset set the knobs' defaults and it adds its own
    /// named overheads.
    pub framework: Framework,
    /// The framework's release (`--framework vllm@0.11`); `None`: the newest one known.
    pub release: Option<crate::engine::workload::version::Version>,
    /// The runtime's batch defaults follow each option's card (vLLM V1 picks
    /// `max_num_batched_tokens` and `max_num_seqs` by the device's memory): set by `settle`
    /// when the user left one or both unset; see `card_defaults::on_card`.
    pub card_batch_defaults: bool,
    /// The user set `max_num_batched_tokens` (SGLang's chunk) and `max_num_seqs` themselves:
    /// those stay on every card while the other follows it, as vLLM fills only what is unset.
    pub batch_tokens_set: bool,
    pub num_seqs_set: bool,
    /// Whether the context follows the option's cards: Ollama from 0.15.5 picks `num_ctx`
    /// from their VRAM when the user sets none ([`crate::engine::verdict::card_defaults::on_card`]).
    pub card_context_default: bool,
    /// The context a conversation uses where the runtime allocates more cells than that on
    /// the card planned (Ollama's num_ctx tiers, llama.cpp's `--fit`): what a decode step reads
    /// ([`Scenario::read_context`]); `None`: the context.
    pub working_context: Option<u64>,
    /// vLLM run through its `LLM` class (offline batches) rather than `vllm serve`: larger
    /// batch defaults (`--vllm-entry llm`).
    pub vllm_llm_class: bool,
    /// Network between nodes of 8 cards, Gb/s (multi-node training plans).
    pub network_gbps: f64,
    pub rent: Rent,
    /// The host's RAM a plan may spill into (`--ram`, `--here`); `None`: VRAM only.
    pub host: Option<crate::engine::hardware::host::Host>,
    /// A layer count or expert count the user pinned (`--gpu-layers`, `--n-cpu-moe`).
    pub pin: crate::engine::hardware::host::Pin,
    /// Only cards of this class are planned on (`--class consumer`; the planner's "Cards
    /// of" row); this machine's own cards always are.
    pub card_class: Option<crate::engine::hardware::gpu::GpuClass>,
    /// Images per request for a vision-language model (`--images`): their tokens are part of
    /// the request's context.
    pub images: u32,
    /// An image's side in pixels, for models whose tokens follow the image's size.
    pub image_side: u32,
    /// What the set-up must achieve (`--users`, `--min-tps`, `--max-ttft`, `--deadline`).
    pub target: crate::engine::workload::serving_target::Target,
    /// The kernel that holds an MXFP4 checkpoint's experts on the card planned (vLLM picks
    /// it by compute capability; set per card by [`crate::engine::verdict::card_defaults::on_card`]).
    pub mxfp4_moe: crate::engine::workload::choices::Mxfp4Moe,
}

pub use crate::engine::workload::ranges::{
    self, KnobError, MAX_BATCH, MAX_CARDS, MAX_CONTEXT, MAX_LORA_RANK, Range,
};

impl Scenario {
    /// The framework's release the plan follows: the one asked for, else the newest known
    /// (`None` for a runtime whose rules do not change by release).
    pub fn version(&self) -> Option<crate::engine::workload::version::Version> {
        self.release
            .or_else(|| crate::engine::workload::version::current(self.framework))
    }

    /// The framework's name with the release the plan follows ("vLLM 0.34", "llama.cpp
    /// b10453"; "DeepSpeed" for a runtime without releases).
    pub fn runtime_label(&self) -> String {
        use crate::engine::basics::choice::Choice;
        match self.version() {
            Some(v) => format!("{} {v}", self.framework.label()),
            None => self.framework.label().to_string(),
        }
    }

    /// The serving engine's share of each card on an option of `count` cards.
    pub fn gpu_util_on(&self, count: u32) -> f64 {
        if self.gpu_util_by_count {
            self.framework.gpu_util_for_count(count).unwrap_or(self.gpu_util)
        } else {
            self.gpu_util
        }
    }

    /// Set the serving share by hand (a flag, a plan file, the planner's row).
    pub fn set_gpu_util(&mut self, value: f64) {
        self.gpu_util = value;
        self.gpu_util_by_count = false;
    }

    /// Seed 003's inference setting: BF16 weights, FP16 cache, 8,192 tokens, batch 1.
    pub fn seed_inference(weights: WeightPrecision) -> Self {
        Self {
            method: Method::Inference,
            weights,
            kv: KvPrecision::Fp16,
            context: 8192,
            batch: 1,
            convention: Convention::Seed,
            lora_rank: 16,
            tight_rule: TightRule::Seed,
            optimizer: Optimizer::AdamW,
            optimizer_in_backward: false,
            training_precision: TrainingPrecision::Mixed,
            checkpointing: true,
            selective_checkpointing: false,
            compile: false,
            activation_offload: false,
            flash_attention: true,
            fused_ce: false,
            lora_targets: LoraTargets::Attention,
            zero: 3,
            offload: Offload::None,
            cards: 1,
            gpu_util: 0.9,
            gpu_util_by_count: false,
            stored_weights: None,
            split: Split::Tensor,
            prompt: 1024,
            max_batched_tokens: crate::engine::workload::defaults::PREFILL_CHUNK_TOKENS,
            max_num_seqs: crate::engine::workload::defaults::VLLM_MAX_NUM_SEQS,
            ubatch: crate::engine::workload::defaults::LLAMA_CPP_UBATCH,
            reduce_bucket: crate::engine::workload::defaults::DS_REDUCE_BUCKET,
            prefetch_bucket: crate::engine::workload::defaults::DS_PREFETCH_BUCKET,
            framework: Framework::Generic,
            release: None,
            card_batch_defaults: false,
            batch_tokens_set: false,
            num_seqs_set: false,
            card_context_default: false,
            working_context: None,
            vllm_llm_class: false,
            network_gbps: 400.0,
            rent: Rent::default(),
            host: None,
            pin: crate::engine::hardware::host::Pin::default(),
            card_class: None,
            images: 0,
            image_side: crate::engine::model::vision::DEFAULT_IMAGE_SIDE,
            target: crate::engine::workload::serving_target::Target::default(),
            mxfp4_moe: crate::engine::workload::choices::Mxfp4Moe::AsStored,
        }
    }

    /// The tokens of one sequence a decode step reads: the context, or the shorter working
    /// context where the runtime allocated more cells than the conversation uses.
    pub fn read_context(&self) -> u64 {
        self.working_context.map_or(self.context, |w| w.min(self.context))
    }

    /// The same workload under the calibrated convention.
    pub fn calibrated(self) -> Self {
        Self {
            convention: Convention::Calibrated,
            ..self
        }
    }

    /// Seed 003's training setting: sequence 2,048, batch 1, rank 16, checkpointing on.
    pub fn seed_training(method: Method) -> Self {
        Self {
            method,
            weights: method.default_weights(),
            context: 2048,
            ..Self::seed_inference(WeightPrecision::Bf16)
        }
    }

    /// Reject numbers out of range and combinations that describe no real run, with a
    /// message naming the flag (the plan file's key) and the fix.
    pub fn validate(&self) -> Result<(), String> {
        self.check().map_err(|e| e.message)
    }

    /// As [`Scenario::validate`], keeping the flag apart (plan files point at its line).
    pub fn check(&self) -> Result<(), KnobError> {
        use ranges::*;
        let r = &self.rent;
        CONTEXT.check(self.context as f64)?;
        BATCH.check(self.batch as f64)?;
        LORA_RANK.check(self.lora_rank as f64)?;
        if let TightRule::Margin(m) = self.tight_rule {
            MARGIN.check(m)?;
        }
        ZERO.check(f64::from(self.zero))?;
        CARDS.check(f64::from(self.cards))?;
        HOURS.check(r.hours)?;
        UTILIZATION.check(r.utilization)?;
        EPOCHS.check(f64::from(r.epochs))?;
        if let Some(t) = r.train_tokens {
            TRAIN_TOKENS.check(t as f64)?;
        }
        USD_CNY.check(r.rates.usd_cny)?;
        if !CURRENCIES.contains(&r.display_currency.as_str()) {
            return Err(KnobError {
                flag: "currency",
                message: format!(
                    "currency must be one of {}, got {}",
                    CURRENCIES.join(", "),
                    crate::text::clean_prefix(&r.display_currency, 20)
                ),
            });
        }
        PROMPT.check(self.prompt as f64)?;
        ranges::MAX_BATCHED_TOKENS.check(self.max_batched_tokens as f64)?;
        ranges::MAX_NUM_SEQS.check(self.max_num_seqs as f64)?;
        ranges::UBATCH.check(self.ubatch as f64)?;
        ranges::BUCKET.check(self.reduce_bucket as f64)?;
        ranges::PREFETCH_BUCKET.check(self.prefetch_bucket as f64)?;
        if !self.framework.supports(self.method) {
            return Err(KnobError {
                flag: "framework",
                message: format!(
                    "{} {}; pick one of {} for {}",
                    self.framework.label(),
                    if self.method.is_training() {
                        "serves models and does not fine-tune them"
                    } else {
                        "is for fine-tuning, not serving"
                    },
                    Framework::for_method(self.method)
                        .map(|f| f.id())
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.method.label()
                ),
            });
        }
        NETWORK_GBPS.check(self.network_gbps)?;
        GPU_UTIL.check(self.gpu_util)?;
        if let Some(h) = &self.host {
            RAM_GB.check(h.ram_bytes / 1e9)?;
            if let Some(b) = h.bandwidth_gbs {
                RAM_BANDWIDTH.check(b)?;
            }
        }
        if let Some(n) = self.pin.gpu_layers {
            GPU_LAYERS.check(n as f64)?;
        }
        if let Some(n) = self.pin.cpu_moe {
            N_CPU_MOE.check(n as f64)?;
        }
        self.check_target()?;
        self.check_runtime()?;
        self.check_combination().map_err(|message| KnobError {
            flag: "weights",
            message,
        })
    }

    /// A target's numbers in range, and only the targets the method has: users, speed and
    /// TTFT serve; a deadline trains, and needs the tokens to train on.
    fn check_target(&self) -> Result<(), KnobError> {
        use ranges::*;
        let t = &self.target;
        if let Some(u) = t.users {
            USERS.check(u as f64)?;
        }
        if let Some(v) = t.min_tps {
            MIN_TPS.check(v)?;
        }
        if let Some(v) = t.max_ttft_s {
            MAX_TTFT.check(v)?;
        }
        if let Some(v) = t.deadline_h {
            DEADLINE.check(v)?;
        }
        let refuse = |flag: &'static str, message: String| Err(KnobError { flag, message });
        if self.method.is_training() && t.is_serving() {
            let flag = if t.users.is_some() {
                "users"
            } else if t.min_tps.is_some() {
                "min-tps"
            } else {
                "max-ttft"
            };
            return refuse(
                flag,
                format!(
                    "--{flag} is a serving target; a fine-tune's target is --deadline (with --train-tokens)"
                ),
            );
        }
        if t.deadline_h.is_some() {
            if !self.method.is_training() {
                return refuse(
                    "deadline",
                    "--deadline is a fine-tune's target; serving targets are --users, --min-tps and --max-ttft".into(),
                );
            }
            if self.rent.train_tokens.is_none() {
                return refuse(
                    "deadline",
                    "--deadline needs --train-tokens (the tokens of one epoch) to know when the fine-tune ends".into(),
                );
            }
        }
        Ok(())
    }

    /// Move every number into its knob's range (the planner's steps use this).
    pub fn clamp_to_ranges(&mut self) {
        use ranges::*;
        let whole = |r: Range, v: u64| r.clamp(v as f64) as u64;
        self.context = whole(CONTEXT, self.context);
        self.batch = whole(BATCH, self.batch);
        self.lora_rank = whole(LORA_RANK, self.lora_rank);
        self.cards = whole(CARDS, u64::from(self.cards)) as u32;
        self.prompt = whole(PROMPT, self.prompt);
        self.max_batched_tokens = whole(ranges::MAX_BATCHED_TOKENS, self.max_batched_tokens);
        self.max_num_seqs = whole(ranges::MAX_NUM_SEQS, self.max_num_seqs);
        self.ubatch = whole(ranges::UBATCH, self.ubatch);
        self.reduce_bucket = whole(ranges::BUCKET, self.reduce_bucket);
        self.prefetch_bucket = whole(ranges::PREFETCH_BUCKET, self.prefetch_bucket);
        self.gpu_util = GPU_UTIL.clamp(self.gpu_util);
        self.network_gbps = NETWORK_GBPS.clamp(self.network_gbps);
        let r = &mut self.rent;
        r.hours = HOURS.clamp(r.hours);
        r.utilization = UTILIZATION.clamp(r.utilization);
        r.epochs = whole(EPOCHS, u64::from(r.epochs)) as u32;
        r.rates.usd_cny = USD_CNY.clamp(r.rates.usd_cny);
        if let TightRule::Margin(m) = self.tight_rule {
            self.tight_rule = TightRule::Margin(MARGIN.clamp(m));
        }
    }

    /// Whether the method can use the weight format (training needs 16-bit or wider, QLoRA a
    /// 4-bit base), with the fix when it cannot.
    pub fn check_combination(&self) -> Result<(), String> {
        if self.method.is_training() && self.weights.is_gguf() {
            return Err(format!(
                "{} is a llama.cpp inference format; training needs bf16/fp16/fp32 (or nf4 for QLoRA)",
                self.weights.label()
            ));
        }
        match self.method {
            Method::Full | Method::Lora if !self.weights.is_float16_or_wider() => Err(format!(
                "{} trains in 16- or 32-bit weights, not {}: use --weights bf16, fp16 or fp32{}",
                self.method.label(),
                self.weights.label(),
                if self.method == Method::Lora && self.weights.is_4bit_base() {
                    " (or --method qlora for a 4-bit base)"
                } else {
                    ""
                }
            )),
            Method::Qlora if !self.weights.is_4bit_base() => Err(format!(
                "QLoRA quantizes the frozen base to 4 bits, not {}: use --weights nf4, nf4-dq, fp4 or int4 (or --method lora)",
                self.weights.label()
            )),
            _ => Ok(()),
        }
    }
}
