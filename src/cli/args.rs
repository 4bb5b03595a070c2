//! `vramfit plan`'s flags: every scenario knob, parsed and checked against its one range.

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::{CheckpointingArg, CliError, OnOff, choice, whole};
use crate::engine::runtimes::presets::Setting;
use crate::engine::runtimes::settle::{UserSet, settle};
use crate::engine::verdict::rank::SortBy;
use crate::engine::workload::scenario::{
    LoraTargets, Offload, Optimizer, Rent, Split, TrainingPrecision, ranges,
};
use crate::engine::{Convention, Framework, KvPrecision, Method, Scenario, TightRule, WeightPrecision};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Catalog model id (see `vramfit models`) or a path to a config.json or its folder.
    #[arg(help_heading = "Model and workload", long, short)]
    pub model: String,
    /// Plan the command you launch: `llama-server …`, `vllm serve …`, `python -m
    /// sglang.launch_server …` or `ollama run …` (with OLLAMA_* variables), quoted. Its model
    /// and flags become this plan's; flags given beside it win; what it sets that vramfit
    /// does not model is named in a note. The card is --gpu's (or --here's).
    #[arg(help_heading = "Model and workload", long, value_name = "COMMAND")]
    pub cmd: Option<String>,
    /// Inference, or a fine-tune: full, LoRA or QLoRA
    #[arg(help_heading = "Model and workload", long, value_parser = choice::<Method>(), default_value = "inference")]
    pub method: Method,
    /// Weight format [default: bf16, nf4 for qlora].
    #[arg(help_heading = "Model and workload", long, value_parser = choice::<WeightPrecision>())]
    pub weights: Option<WeightPrecision>,
    /// KV-cache format [default: fp16].
    #[arg(help_heading = "Model and workload", hide_short_help = true, long, value_parser = choice::<KvPrecision>())]
    pub kv: Option<KvPrecision>,
    /// Context length (inference) or sequence length (training) in tokens [default: 8192, 2048 for training].
    #[arg(help_heading = "Model and workload", long, value_parser = whole::<u64>(ranges::CONTEXT))]
    pub context: Option<u64>,
    /// Sequences per batch [default: 1; Ollama before 0.9.7: 2].
    #[arg(help_heading = "Model and workload", long, value_parser = whole::<u64>(ranges::BATCH))]
    pub batch: Option<u64>,
    /// Prompt tokens per request, for the time to first token.
    #[arg(help_heading = "Model and workload", hide_short_help = true, long, default_value_t = 1024, value_parser = whole::<u64>(ranges::PROMPT))]
    pub prompt: u64,
    /// Images in each request to a vision-language model: their tokens are part of the
    /// context, their embeddings held until prefill [default: 0].
    #[arg(help_heading = "Model and workload", hide_short_help = true, long, value_name = "N", value_parser = whole::<u32>(ranges::IMAGES))]
    pub images: Option<u32>,
    /// A GGUF mmproj file (llama.cpp's image encoder) to plan beside the model: its
    /// parameters and tokens per image make the model a vision-language one.
    #[arg(
        help_heading = "Model and workload",
        hide_short_help = true,
        long,
        value_name = "FILE"
    )]
    pub mmproj: Option<std::path::PathBuf>,
    /// An image's side in pixels, for models whose tokens follow the image's size (Qwen2-VL:
    /// one token per 28 × 28) [default: 1024].
    #[arg(help_heading = "Model and workload", hide_short_help = true, long, value_name = "PX", value_parser = whole::<u32>(ranges::IMAGE_SIDE))]
    pub image_size: Option<u32>,
    /// calibrated: what a real run allocates; quick: the GPU Rent Hub guide's quick rules
    /// (weights + KV + 2 GB; full fine-tune 16 B/param × 1.15). `seed` is the old name.
    #[arg(help_heading = "Model and workload", hide_short_help = true, long, value_parser = choice::<Convention>(), default_value = "calibrated")]
    pub convention: Convention,
    /// Call a fit "tight" below this free fraction of the requirement (a 30–50 % safety
    /// margin: 0.3–0.5) instead of under 5 GB left (2 GB per card on a combo).
    #[arg(
        help_heading = "Model and workload",
        hide_short_help = true,
        long,
        value_name = "FRACTION"
    )]
    pub margin: Option<f64>,
    /// The runtime the plan is for: vllm, sglang, llama.cpp, ollama, a trainer, or generic;
    /// NAME@VERSION follows that release's rules.
    ///
    /// Its preset sets the other flags' defaults as that framework does and adds its
    /// own overheads (llama.cpp's compute buffer, vLLM's profiling run, DeepSpeed's buckets).
    /// Flags you give win over the preset. One of generic, transformers, deepspeed, fsdp,
    /// torchtune, torchtitan, unsloth, vllm, sglang, llama.cpp, ollama; a release after @
    /// follows that release's rules (vllm@0.11, llama.cpp@b7079, ollama@0.12), else the newest.
    #[arg(help_heading = "Runtime", long, value_name = "NAME[@VERSION]", value_parser = super::runtime(), default_value = "generic")]
    pub framework: (Framework, Option<crate::engine::workload::version::Version>),
    /// Serving engine's share of each card's memory (vLLM gpu_memory_utilization, SGLang
    /// mem_fraction_static) [default: 0.9; SGLang 0.88 on one card, less with more].
    #[arg(help_heading = "Runtime", hide_short_help = true, long)]
    pub gpu_util: Option<f64>,
    /// Serving: tokens prefilled in one step (vLLM's max_num_batched_tokens, the chunk of
    /// chunked prefill), which sets the activation peak [default: by card, vLLM 2048 below
    /// 70 GiB].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::MAX_BATCHED_TOKENS))]
    pub max_batched_tokens: Option<u64>,
    /// Serving: sequences vLLM schedules per step (max_num_seqs); its profiling run samples
    /// this many at once [default: by card, 256 below 70 GiB].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::MAX_NUM_SEQS))]
    pub max_num_seqs: Option<u64>,
    /// Serving: how vLLM is run — `serve` (the OpenAI server) or `llm` (the `LLM` class for
    /// offline batches), whose batch defaults are larger [default: serve].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "ENTRY", value_parser = clap::builder::PossibleValuesParser::new(["serve", "llm"]))]
    pub vllm_entry: Option<String>,
    /// Serving: tokens llama.cpp computes per pass (n_ubatch); its compute buffer grows with
    /// it [default: 512].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::UBATCH))]
    pub ubatch: Option<u64>,
    /// How inference combos spread the model: tensor parallel or layer split [default: tensor;
    /// llama.cpp, Ollama layer].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_parser = choice::<Split>())]
    pub split: Option<Split>,
    /// llama.cpp: keep the MoE experts of the first N layers in RAM (--n-cpu-moe).
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::N_CPU_MOE))]
    pub n_cpu_moe: Option<u64>,
    /// llama.cpp / Ollama: pin the layers on the GPUs (-ngl, num_gpu; the output layer is
    /// one) instead of the best placement.
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::GPU_LAYERS))]
    pub gpu_layers: Option<u64>,
    /// Flash / memory-efficient attention (no s² score matrix) [default: on; llama.cpp, Ollama off].
    #[arg(help_heading = "Runtime", hide_short_help = true, long, value_parser = choice::<OnOff>())]
    pub flash_attention: Option<OnOff>,
    /// Only this card (and its combos), or a rig of mixed cards planned together:
    /// `rtx-4090,rtx-3090` or "2x rtx-3090 + rtx-4090".
    #[arg(help_heading = "Cards and machine", long, value_name = "ID")]
    pub gpu: Option<String>,
    /// Plan for this many cards: the breakdown and `total_bytes` are per card, and only
    /// combos of this size are judged.
    #[arg(help_heading = "Cards and machine", hide_short_help = true, long, value_parser = whole::<u32>(ranges::CARDS))]
    pub cards: Option<u32>,
    /// Only this machine's GPUs (found with nvidia-smi, rocm-smi or, on a Mac, sysctl), with
    /// what other processes already use counted.
    #[arg(
        help_heading = "Cards and machine",
        hide_short_help = true,
        long,
        conflicts_with = "gpu"
    )]
    pub here: bool,
    /// Single cards only, no 2/4/8-card combos.
    #[arg(help_heading = "Cards and machine", hide_short_help = true, long)]
    pub no_combos: bool,
    /// Only cards of this class: consumer, workstation, datacenter, integrated, apple, slice.
    #[arg(help_heading = "Cards and machine", hide_short_help = true, long, value_parser = PossibleValuesParser::new(["consumer", "workstation", "datacenter", "integrated", "apple", "slice"]))]
    pub class: Option<String>,
    /// Plan the GDDR workstation and data-center cards (A6000, L40S, A10, T4, …) with ECC on
    /// or off: on keeps 1/16 of their memory for check bits [default: as each card ships].
    #[arg(help_heading = "Cards and machine", hide_short_help = true, long, value_parser = PossibleValuesParser::new(["on", "off"]))]
    pub ecc: Option<String>,
    /// The host's RAM in GB the plan may spill into: llama.cpp and Ollama keep layers (or
    /// MoE experts) there, vLLM and SGLang stream weights from it (--cpu-offload-gb).
    #[arg(
        help_heading = "Cards and machine",
        hide_short_help = true,
        long,
        value_name = "GB"
    )]
    pub ram: Option<f64>,
    /// The host's memory bandwidth: GB/s, or a platform (ddr4-3200-dual, ddr5-5600-dual,
    /// epyc-9004, …; a name it does not know lists them) [default: unknown; no speed for
    /// what RAM holds].
    #[arg(
        help_heading = "Cards and machine",
        hide_short_help = true,
        long,
        value_name = "GBS|PLATFORM"
    )]
    pub ram_bandwidth: Option<String>,
    /// A unified-memory GPU's share raised by hand, GB (macOS `iogpu.wired_limit_mb`).
    #[arg(
        help_heading = "Cards and machine",
        hide_short_help = true,
        long,
        value_name = "GB"
    )]
    pub wired_limit: Option<f64>,
    /// Network between nodes of 8 cards, in Gb/s (multi-node training).
    #[arg(
        help_heading = "Cards and machine",
        hide_short_help = true,
        long,
        default_value_t = 400.0
    )]
    pub network_gbps: f64,
    /// Target: serve this many concurrent requests at --context, in as many replicas (copies
    /// of a card or combo, up to 16) as it takes.
    #[arg(help_heading = "Serving target", long, value_name = "N", value_parser = whole::<u64>(ranges::USERS))]
    pub users: Option<u64>,
    /// Target: each user decodes at least this many tokens/s (the expected speed where
    /// measured runs give one, else the ceiling).
    #[arg(help_heading = "Serving target", hide_short_help = true, long, value_name = "TOKENS_PER_S", value_parser = super::number(ranges::MIN_TPS))]
    pub min_tps: Option<f64>,
    /// Target: a new request's first token within this time (2, 2s, 500ms), its prompt
    /// --prompt tokens long, beside the other users' decode.
    #[arg(help_heading = "Serving target", hide_short_help = true, long, value_name = "SECONDS", value_parser = super::duration(ranges::MAX_TTFT, 1.0))]
    pub max_ttft: Option<f64>,
    /// LoRA/QLoRA adapter rank.
    #[arg(help_heading = "Training", hide_short_help = true, long, default_value_t = 16, value_parser = whole::<u64>(ranges::LORA_RANK))]
    pub lora_rank: u64,
    /// Linear layers that carry adapters [default: attention; Unsloth all].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<LoraTargets>())]
    pub lora_targets: Option<LoraTargets>,
    /// Optimizer for a fine-tune (its states are a segment of the bar) [default: adamw;
    /// Unsloth adamw-8bit].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<Optimizer>())]
    pub optimizer: Option<Optimizer>,
    /// Step the optimizer inside backward, freeing each gradient at once (torchtune) [default: off].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<OnOff>())]
    pub optimizer_in_backward: Option<OnOff>,
    /// mixed: fp32 master weights and fp32 optimizer states; bf16: everything 16-bit
    /// [default: mixed; torchtune bf16].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<TrainingPrecision>())]
    pub training_precision: Option<TrainingPrecision>,
    /// torch.compile: pointwise ops (norm outputs, the MLP's activation and product) are
    /// recomputed in backward instead of saved [default: off].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<OnOff>())]
    pub compile: Option<OnOff>,
    /// Move saved activations to host memory (torchtune's activation offloading): the card
    /// keeps two layers' worth, the rest is host RAM [default: off; Unsloth on].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<OnOff>())]
    pub activation_offload: Option<OnOff>,
    /// Gradient (activation) checkpointing: on (each layer recomputed from its input), off, or
    /// selective (torchtitan's op policy: attention and every other matmul output saved)
    /// [default: on; transformers off, torchtitan selective].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<CheckpointingArg>())]
    pub checkpointing: Option<CheckpointingArg>,
    /// Fused or chunked cross-entropy (no full fp32 logits tensor) [default: off; torchtune,
    /// Unsloth on].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<OnOff>())]
    pub fused_ce: Option<OnOff>,
    /// ZeRO stage across the cards of a combo (3 = FSDP full shard) [default: 3].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = whole::<u8>(ranges::ZERO))]
    pub zero: Option<u8>,
    /// Move optimizer states (or parameters too) to host memory.
    #[arg(help_heading = "Training", hide_short_help = true, long, value_parser = choice::<Offload>(), default_value = "none")]
    pub offload: Offload,
    /// DeepSpeed: elements in its gradient reduce bucket (reduce_bucket_size) [default: 500000000].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::BUCKET))]
    pub reduce_bucket_size: Option<u64>,
    /// DeepSpeed ZeRO-3: parameters it prefetches at once (stage3_prefetch_bucket_size)
    /// [default: 50000000].
    #[arg(help_heading = "Training", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::PREFETCH_BUCKET))]
    pub prefetch_bucket_size: Option<u64>,
    /// Training tokens per epoch: adds the time and cost to finish to every option.
    #[arg(help_heading = "Training", hide_short_help = true, long, value_name = "N", value_parser = whole::<u64>(ranges::TRAIN_TOKENS))]
    pub train_tokens: Option<u64>,
    /// Passes over the training tokens, for the time and cost to finish
    #[arg(help_heading = "Training", hide_short_help = true, long, default_value_t = 1, value_parser = whole::<u32>(ranges::EPOCHS))]
    pub epochs: u32,
    /// Share of peak dense compute the training run sustains (MFU).
    #[arg(
        help_heading = "Training",
        hide_short_help = true,
        long,
        default_value_t = 0.4
    )]
    pub utilization: f64,
    /// Target: the fine-tune (--train-tokens × --epochs) finishes within this time (72h, 3d;
    /// a bare number is hours).
    #[arg(help_heading = "Training", hide_short_help = true, long, value_name = "HOURS", value_parser = super::duration(ranges::DEADLINE, 3600.0))]
    pub deadline: Option<f64>,
    /// Rental term in hours (a month is 720): minimum terms are honoured.
    #[arg(
        help_heading = "Renting",
        hide_short_help = true,
        long,
        default_value_t = 720.0
    )]
    pub hours: f64,
    /// Yuan per US dollar for CNY prices (7.2, as the Chinese rental price lists convert).
    #[arg(help_heading = "Renting", hide_short_help = true, long, default_value_t = 7.2)]
    pub usd_cny: f64,
    /// Show prices in this currency (default USD; CNY under --lang zh).
    #[arg(help_heading = "Renting", hide_short_help = true, long, value_parser = PossibleValuesParser::new([
        clap::builder::PossibleValue::new("USD"),
        clap::builder::PossibleValue::new("CNY"),
        clap::builder::PossibleValue::new("usd").hide(true),
        clap::builder::PossibleValue::new("cny").hide(true),
    ]).map(|s: String| s.to_ascii_uppercase()))]
    pub currency: Option<String>,
    /// Only this provider's offers.
    #[arg(help_heading = "Renting", hide_short_help = true, long)]
    pub provider: Option<String>,
    /// Order fitting options (single cards and combos together) by monthly price, rental cost
    /// for --hours, cost to finish the fine-tune (--train-tokens), fewest cards then price, or
    /// fastest decode (the expected speed, else the ceiling).
    /// With a target (--users, --min-tps, --max-ttft, --deadline) the default is `target`:
    /// the cheapest that meets it, replicas counted.
    #[arg(help_heading = "Renting", hide_short_help = true, long, value_parser = choice::<SortBy>())]
    pub sort: Option<SortBy>,
    /// In the table, list the options that do not fit too.
    #[arg(help_heading = "Output", hide_short_help = true, long)]
    pub all: bool,
    /// Print JSON (the contract scripts read) instead of the tables.
    #[arg(help_heading = "Output", long, conflicts_with = "markdown")]
    pub json: bool,
    /// The plan as Markdown, for slides and chat.
    #[arg(help_heading = "Output", hide_short_help = true, long)]
    pub markdown: bool,
}

impl PlanArgs {
    /// Every knob a preset or the method gives a default to, where the user gave its flag.
    pub fn user_set(&self) -> UserSet {
        use Setting as S;
        let on = |v: Option<OnOff>| v.map(OnOff::is_on);
        let given = [
            self.weights.map(S::Weights),
            self.kv.map(S::Kv),
            self.context.map(S::Context),
            self.batch.map(S::Batch),
            self.lora_targets.map(S::LoraTargets),
            self.optimizer.map(S::Optimizer),
            on(self.optimizer_in_backward).map(S::OptimizerInBackward),
            self.training_precision.map(S::TrainingPrecision),
            on(self.compile).map(S::Compile),
            on(self.activation_offload).map(S::ActivationOffload),
            self.checkpointing.map(|v| S::Checkpointing {
                on: v != CheckpointingArg::Off,
                selective: v == CheckpointingArg::Selective,
            }),
            on(self.flash_attention).map(S::FlashAttention),
            on(self.fused_ce).map(S::FusedCe),
            self.zero.map(S::Zero),
            self.gpu_util.map(S::GpuUtil),
            self.max_batched_tokens.map(S::MaxBatchedTokens),
            self.max_num_seqs.map(S::MaxNumSeqs),
            self.ubatch.map(S::Ubatch),
            self.split.map(S::Split),
            self.reduce_bucket_size.map(S::ReduceBucket),
            self.prefetch_bucket_size.map(S::PrefetchBucket),
        ];
        let mut user = UserSet::default();
        for s in given.into_iter().flatten() {
            user.set(s);
        }
        user
    }

    /// The scenario for `model`: a checkpoint's stored format is the default weights (the
    /// weights segment is then the file's bytes); `--weights` re-estimates from the count.
    pub fn scenario_for(&self, model: &crate::engine::Model) -> Result<Scenario, CliError> {
        let mut sc = self.scenario_with(model.default_format())?;
        sc.images = self.images.unwrap_or(0);
        sc.image_side = self
            .image_size
            .unwrap_or(crate::engine::model::vision::DEFAULT_IMAGE_SIDE);
        if sc.images > 0 {
            if model.vision.is_none() {
                return Err(CliError(format!(
                    "--images needs a vision-language model; {} reads text only",
                    model.name
                )));
            }
            crate::engine::memory::images::check_context(model, &sc)
                .map_err(|overflow| CliError(format!("{overflow}; raise --context")))?;
        }
        Ok(sc)
    }

    /// The host from `--ram`, `--ram-bandwidth` and `--wired-limit`; `None` without `--ram`.
    pub fn host(&self) -> Result<Option<crate::engine::hardware::host::Host>, CliError> {
        use crate::engine::hardware::host::{Host, platform};
        let Some(gb) = self.ram else {
            if self.ram_bandwidth.is_some() {
                return Err(CliError("--ram-bandwidth needs --ram GB (the host's RAM)".into()));
            }
            if self.wired_limit.is_some() {
                return Err(CliError(
                    "--wired-limit needs --ram GB (the machine's unified memory)".into(),
                ));
            }
            return Ok(None);
        };
        let mut host = Host::new(gb, None);
        if let Some(b) = &self.ram_bandwidth {
            host = match (b.trim().parse::<f64>(), platform(b)) {
                (Ok(v), _) => Host::new(gb, Some(v)),
                (Err(_), Some(p)) => host.on_platform(p),
                (Err(_), None) => {
                    return Err(CliError(format!(
                        "--ram-bandwidth '{}' is neither GB/s nor a platform; platforms: {}",
                        crate::text::clean_prefix(b, 30),
                        crate::engine::hardware::host::PLATFORMS
                            .iter()
                            .map(|p| p.id)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            };
        }
        if let Some(w) = self.wired_limit {
            ranges::RAM_GB
                .check(w)
                .map_err(|e| CliError(e.message.replace("--ram ", "--wired-limit ")))?;
            host.gpu_limit_bytes = Some(w * 1e9);
        }
        Ok(Some(host))
    }

    /// The scenario for a catalog model (no checkpoint of its own).
    pub fn scenario(&self) -> Result<Scenario, CliError> {
        self.scenario_with(None)
    }

    /// The target the flags ask for.
    pub fn target(&self) -> crate::engine::verdict::meets_target::Target {
        crate::engine::verdict::meets_target::Target {
            users: self.users,
            min_tps: self.min_tps,
            max_ttft_s: self.max_ttft,
            deadline_h: self.deadline,
        }
    }

    /// The rank: `--sort`, else the cheapest that meets the target when one is set, else price.
    pub fn sort_by(&self) -> SortBy {
        self.sort.unwrap_or(if self.target().is_set() {
            SortBy::Target
        } else {
            SortBy::Price
        })
    }

    fn scenario_with(&self, stored_weights: Option<WeightPrecision>) -> Result<Scenario, CliError> {
        let base = if self.method.is_training() {
            Scenario::seed_training(self.method)
        } else {
            Scenario::seed_inference(WeightPrecision::Bf16)
        };
        let mut scenario = Scenario {
            method: self.method,
            framework: self.framework.0,
            release: self.framework.1,
            vllm_llm_class: self.vllm_entry.as_deref() == Some("llm"),
            convention: self.convention,
            lora_rank: self.lora_rank,
            tight_rule: match self.margin {
                Some(m) => TightRule::Margin(m),
                None => TightRule::Seed,
            },
            offload: self.offload,
            cards: self.cards.unwrap_or(1),
            stored_weights,
            prompt: self.prompt,
            network_gbps: self.network_gbps,
            host: self.host()?,
            card_class: self
                .class
                .as_deref()
                .and_then(crate::engine::hardware::gpu::GpuClass::from_id),
            pin: crate::engine::placement::layers::Pin {
                gpu_layers: self.gpu_layers,
                cpu_moe: self.n_cpu_moe,
            },
            rent: Rent::new(
                self.hours,
                self.usd_cny,
                self.provider.clone(),
                self.currency
                    .as_deref()
                    .unwrap_or(crate::lang::Lang::current().default_currency()),
                self.train_tokens,
                self.epochs,
                self.utilization,
            ),
            target: self.target(),
            ..base
        };
        // The method's defaults, the framework's preset, then the flags the user gave (the
        // planner settles its knobs through the same function).
        settle(&mut scenario, &self.user_set());
        scenario.validate().map_err(CliError)?;
        Ok(scenario)
    }
}
