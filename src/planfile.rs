//! Plan files: a scenario saved as TOML to share with a team (`vramfit --open plan.toml`).
//! Saves are atomic (written beside the target, then renamed over it).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::FileError;
use crate::engine::verdict::rank::SortBy;
use crate::engine::workload::scenario::{
    KnobError, LoraTargets, Offload, Optimizer, Rent, Split, TrainingPrecision,
};
use crate::engine::{
    Choice, Convention, Framework, KvPrecision, Method, Scenario, TightRule, WeightPrecision,
};

/// A saved plan. Field names are the CLI's flag names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlanFile {
    /// Catalog id, or a path to a config.json.
    pub model: String,
    pub method: String,
    pub weights: String,
    pub kv: String,
    pub context: u64,
    pub batch: u64,
    pub convention: String,
    pub lora_rank: u64,
    pub lora_targets: String,
    pub optimizer: String,
    pub optimizer_in_backward: bool,
    pub training_precision: String,
    pub checkpointing: bool,
    #[serde(default)]
    pub selective_checkpointing: bool,
    #[serde(default)]
    pub activation_offload: bool,
    #[serde(default)]
    pub compile: bool,
    pub flash_attention: bool,
    pub fused_ce: bool,
    pub zero: u8,
    pub offload: String,
    pub cards: u32,
    pub gpu_util: f64,
    /// The framework's fraction follows each option's card count (SGLang's preset); absent
    /// in plans saved before: a fixed share.
    #[serde(default)]
    pub gpu_util_by_count: bool,
    pub split: String,
    pub prompt: u64,
    /// Absent in plans saved before the knob existed: the default chunk.
    #[serde(default = "default_chunk")]
    pub max_batched_tokens: u64,
    #[serde(default = "default_max_num_seqs")]
    pub max_num_seqs: u64,
    #[serde(default = "default_ubatch")]
    pub ubatch: u64,
    #[serde(default = "default_reduce_bucket")]
    pub reduce_bucket_size: u64,
    #[serde(default = "default_prefetch_bucket")]
    pub prefetch_bucket_size: u64,
    /// Absent in plans saved before presets existed: the generic rules.
    #[serde(default = "default_framework")]
    pub framework: String,
    /// vLLM's entry point: `serve` (absent: `vllm serve`) or `llm` (the `LLM` class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_entry: Option<String>,
    pub network_gbps: f64,
    /// Free fraction below which a fit is tight; absent = under 5 GB left (2 GB per card).
    #[serde(default)]
    pub margin: Option<f64>,
    pub hours: f64,
    pub usd_cny: f64,
    pub currency: String,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub train_tokens: Option<u64>,
    pub epochs: u32,
    pub utilization: f64,
    pub sort: String,
    /// The card (and count) the bar was drawn against.
    #[serde(default)]
    pub card: Option<String>,
    #[serde(default)]
    pub card_count: Option<u32>,
    /// The host's RAM (GB) and its bandwidth (GB/s) the plan may spill into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ram_gb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ram_bandwidth_gbs: Option<f64>,
    /// A pinned layer count (`-ngl`) and expert count (`--n-cpu-moe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_layers: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_cpu_moe: Option<u64>,
    /// Only cards of this class (consumer, workstation, datacenter, integrated, apple, slice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Images per request (a vision-language model).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub images: u32,
    /// The target: concurrent users, decode tokens/s each, seconds to the first token, hours
    /// a fine-tune must finish in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ttft: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_h: Option<f64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl PlanFile {
    pub fn new(model: &str, sc: &Scenario, sort: SortBy, card: Option<(&str, u32)>) -> PlanFile {
        PlanFile {
            model: model.to_string(),
            method: sc.method.id().into(),
            weights: sc.weights.id().into(),
            kv: sc.kv.id().into(),
            context: sc.context,
            batch: sc.batch,
            convention: sc.convention.id().into(),
            lora_rank: sc.lora_rank,
            lora_targets: sc.lora_targets.id().into(),
            optimizer: sc.optimizer.id().into(),
            optimizer_in_backward: sc.optimizer_in_backward,
            training_precision: sc.training_precision.id().into(),
            checkpointing: sc.checkpointing,
            activation_offload: sc.activation_offload,
            selective_checkpointing: sc.selective_checkpointing,
            compile: sc.compile,
            flash_attention: sc.flash_attention,
            fused_ce: sc.fused_ce,
            zero: sc.zero,
            offload: sc.offload.id().into(),
            cards: sc.cards,
            gpu_util: sc.gpu_util,
            gpu_util_by_count: sc.gpu_util_by_count,
            split: sc.split.id().into(),
            prompt: sc.prompt,
            max_batched_tokens: sc.max_batched_tokens,
            max_num_seqs: sc.max_num_seqs,
            ubatch: sc.ubatch,
            reduce_bucket_size: sc.reduce_bucket,
            prefetch_bucket_size: sc.prefetch_bucket,
            framework: crate::engine::workload::version::runtime_id(sc.framework, sc.release),
            vllm_entry: sc.vllm_llm_class.then(|| "llm".to_string()),
            network_gbps: sc.network_gbps,
            margin: match sc.tight_rule {
                TightRule::Seed => None,
                TightRule::Margin(m) => Some(m),
            },
            hours: sc.rent.hours,
            usd_cny: sc.rent.rates.usd_cny,
            currency: sc.rent.display_currency.clone(),
            provider: sc.rent.filter.provider.clone(),
            train_tokens: sc.rent.train_tokens,
            epochs: sc.rent.epochs,
            utilization: sc.rent.utilization,
            sort: sort.id().into(),
            card: card.map(|(c, _)| c.to_string()),
            card_count: card.map(|(_, n)| n),
            ram_gb: sc.host.as_ref().map(|h| h.ram_bytes / 1e9),
            ram_bandwidth_gbs: sc.host.as_ref().and_then(|h| h.bandwidth_gbs),
            gpu_layers: sc.pin.gpu_layers,
            n_cpu_moe: sc.pin.cpu_moe,
            class: sc.card_class.map(|c| c.id().to_string()),
            images: sc.images,
            users: sc.target.users,
            min_tps: sc.target.min_tps,
            max_ttft: sc.target.max_ttft_s,
            deadline_h: sc.target.deadline_h,
        }
    }

    /// The scenario, with each choice checked by name and each number by its range.
    pub fn scenario(&self) -> Result<(Scenario, SortBy), KnobError> {
        fn pick<T: Choice>(field: &'static str, value: &str) -> Result<T, KnobError> {
            T::from_id(value).ok_or_else(|| KnobError {
                flag: field,
                message: format!(
                    "{field} = \"{}\" is not one of {}",
                    crate::text::clean_prefix(value, 40),
                    T::ALL.iter().map(|v| v.id()).collect::<Vec<_>>().join(", ")
                ),
            })
        }
        let (framework, release) = match self.framework.split_once('@') {
            // A release named: its parse says what is wrong with it.
            Some(_) => {
                crate::engine::workload::version::parse_runtime(&self.framework).map_err(|message| {
                    KnobError {
                        flag: "framework",
                        message,
                    }
                })?
            }
            None => (pick::<Framework>("framework", &self.framework)?, None),
        };
        // A saved plan whose batch values are the preset's follows each card, as `plan` would
        // without those flags; a value of its own stays.
        let (tokens_default, seqs_default) = match framework {
            Framework::Sglang => (
                crate::engine::workload::defaults::SGLANG_CHUNK_TOKENS,
                crate::engine::workload::defaults::VLLM_MAX_NUM_SEQS,
            ),
            _ => (
                crate::engine::workload::defaults::VLLM_SERVE_TOKENS,
                crate::engine::workload::defaults::VLLM_MAX_NUM_SEQS,
            ),
        };
        let serving = matches!(framework, Framework::Vllm | Framework::Sglang);
        let tokens_set = serving && self.max_batched_tokens != tokens_default;
        let seqs_set = framework == Framework::Vllm && self.max_num_seqs != seqs_default;
        let sc = Scenario {
            method: pick::<Method>("method", &self.method)?,
            weights: pick::<WeightPrecision>("weights", &self.weights)?,
            kv: pick::<KvPrecision>("kv", &self.kv)?,
            context: self.context,
            batch: self.batch,
            convention: pick::<Convention>("convention", &self.convention)?,
            lora_rank: self.lora_rank,
            tight_rule: self.margin.map_or(TightRule::Seed, TightRule::Margin),
            optimizer: pick::<Optimizer>("optimizer", &self.optimizer)?,
            optimizer_in_backward: self.optimizer_in_backward,
            training_precision: pick::<TrainingPrecision>("training-precision", &self.training_precision)?,
            checkpointing: self.checkpointing,
            activation_offload: self.activation_offload,
            selective_checkpointing: self.selective_checkpointing,
            compile: self.compile,
            flash_attention: self.flash_attention,
            fused_ce: self.fused_ce,
            lora_targets: pick::<LoraTargets>("lora-targets", &self.lora_targets)?,
            zero: self.zero,
            offload: pick::<Offload>("offload", &self.offload)?,
            cards: self.cards,
            gpu_util: self.gpu_util,
            gpu_util_by_count: self.gpu_util_by_count,
            // The model's own checkpoint sets it when the plan is opened.
            stored_weights: None,
            split: pick::<Split>("split", &self.split)?,
            prompt: self.prompt,
            max_batched_tokens: self.max_batched_tokens,
            max_num_seqs: self.max_num_seqs,
            ubatch: self.ubatch,
            reduce_bucket: self.reduce_bucket_size,
            prefetch_bucket: self.prefetch_bucket_size,
            framework,
            release,
            card_batch_defaults: match framework {
                Framework::Vllm => !(tokens_set && seqs_set),
                Framework::Sglang => !tokens_set,
                _ => false,
            },
            batch_tokens_set: tokens_set,
            num_seqs_set: seqs_set,
            // A saved plan keeps its context.
            card_context_default: false,
            working_context: None,
            // Chosen per card when planned.
            mxfp4_moe: crate::engine::workload::choices::Mxfp4Moe::AsStored,
            vllm_llm_class: match self.vllm_entry.as_deref() {
                None | Some("serve") => false,
                Some("llm") => true,
                Some(other) => {
                    return Err(KnobError {
                        flag: "vllm-entry",
                        message: format!(
                            "vllm_entry = \"{}\" is not one of serve, llm",
                            crate::text::clean_prefix(other, 20)
                        ),
                    });
                }
            },
            network_gbps: self.network_gbps,
            rent: Rent::new(
                self.hours,
                self.usd_cny,
                self.provider.clone(),
                &self.currency,
                self.train_tokens,
                self.epochs,
                self.utilization,
            ),
            host: self
                .ram_gb
                .map(|gb| crate::engine::hardware::host::Host::new(gb, self.ram_bandwidth_gbs)),
            pin: crate::engine::placement::layers::Pin {
                gpu_layers: self.gpu_layers,
                cpu_moe: self.n_cpu_moe,
            },
            card_class: match &self.class {
                None => None,
                Some(c) => Some(crate::engine::hardware::gpu::GpuClass::from_id(c).ok_or_else(|| KnobError {
                    flag: "class",
                    message: format!(
                        "class = \"{}\" is not one of consumer, workstation, datacenter, integrated, apple, slice",
                        crate::text::clean_prefix(c, 40)
                    ),
                })?),
            },
            images: self.images,
            image_side: crate::engine::model::vision::DEFAULT_IMAGE_SIDE,
            target: crate::engine::verdict::meets_target::Target {
                users: self.users,
                min_tps: self.min_tps,
                max_ttft_s: self.max_ttft,
                deadline_h: self.deadline_h,
            },
        };
        sc.check()?;
        Ok((sc, pick::<SortBy>("sort", &self.sort)?))
    }

    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("# vramfit plan: open with `vramfit --open FILE`\n{body}")
    }

    /// Read and check a plan file.
    pub fn load(path: &Path) -> Result<(PlanFile, Scenario, SortBy), FileError> {
        let shown = path.display().to_string();
        let source = crate::files::read_text(path, crate::files::MAX_TOML_BYTES)
            .map_err(|e| FileError::new(&shown, e))?;
        let file: PlanFile =
            toml::from_str(&source).map_err(|e| FileError::from_toml(&shown, &source, &e))?;
        let (sc, sort) = file.scenario().map_err(|e| {
            // Point at the offending key's line.
            let at = source
                .match_indices(e.flag)
                .find(|(i, _)| {
                    (*i == 0 || source.as_bytes()[i - 1] == b'\n')
                        && source[i + e.flag.len()..].trim_start().starts_with('=')
                })
                .map_or(0, |(i, _)| i);
            FileError::at_offset(&shown, &source, at, e.message.clone())
        })?;
        Ok((file, sc, sort))
    }

    /// Write atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crate::files::write_atomic(path, self.to_toml().as_bytes())
    }

    /// Write atomically as `STEM.toml` in `dir`, or `STEM-2.toml`, … when that is taken: an
    /// earlier save is never replaced. Returns where it went.
    pub fn save_new(&self, dir: &Path, stem: &str) -> std::io::Result<PathBuf> {
        crate::files::write_new(dir, stem, "toml", self.to_toml().as_bytes())
    }
}

/// Where the planner saves plans and exports: `$VRAMFIT_DATA`, else the platform data dir.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VRAMFIT_DATA").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "vramfit").map(|d| d.data_dir().to_path_buf())
}

/// A file name made of safe characters only.
pub fn slug(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("-")
}

fn default_chunk() -> u64 {
    crate::engine::memory::calibrated::PREFILL_CHUNK_TOKENS
}

fn default_max_num_seqs() -> u64 {
    crate::engine::runtimes::presets::VLLM_MAX_NUM_SEQS
}

fn default_ubatch() -> u64 {
    crate::engine::runtimes::presets::LLAMA_CPP_UBATCH
}

fn default_framework() -> String {
    "generic".into()
}

fn default_reduce_bucket() -> u64 {
    crate::engine::runtimes::presets::DS_REDUCE_BUCKET
}

fn default_prefetch_bucket() -> u64 {
    crate::engine::runtimes::presets::DS_PREFETCH_BUCKET
}
