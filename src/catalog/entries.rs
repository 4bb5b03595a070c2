//! One catalog file as serde reads it: the three arrays (models, cards, offers) and its
//! date, its text cleaned for terminals, and a model entry as `models.toml` writes it,
//! turned into the engine's model with the field at fault when it is not one.

use serde::Deserialize;

use crate::engine::gpu::{Gpu, Offer};
use crate::engine::model::{Architecture, Mla, MlpKind, Model, Moe, SlidingWindow};
use crate::engine::slice::MigProfile;

/// One catalog file: any of the three arrays may be present.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CatalogFile {
    /// When the file's figures were last revised: a TOML date (`updated = 2026-12-01`).
    #[serde(default)]
    pub(super) updated: Option<toml::value::Datetime>,
    #[serde(default)]
    pub(super) model: Vec<ModelEntry>,
    #[serde(default)]
    pub(super) gpu: Vec<Gpu>,
    #[serde(default)]
    pub(super) offer: Vec<Offer>,
    /// MIG profiles of the file's (or an earlier file's) cards, each planned as a card.
    #[serde(default)]
    pub(super) mig_profile: Vec<MigProfile>,
}

impl CatalogFile {
    /// Escape control characters in every text a user will see: the file's strings reach
    /// terminals, Markdown and SVG.
    pub(super) fn clean_text(&mut self) {
        fn clean(s: &mut String) {
            if let std::borrow::Cow::Owned(c) = crate::text::clean(s) {
                *s = c;
            }
        }
        fn clean_opt(s: &mut Option<String>) {
            if let Some(s) = s {
                clean(s);
            }
        }
        for m in &mut self.model {
            for s in [&mut m.id, &mut m.name, &mut m.family] {
                clean(s);
            }
            clean_opt(&mut m.hf_repo);
        }
        for g in &mut self.gpu {
            for s in [
                &mut g.id,
                &mut g.name,
                &mut g.vendor,
                &mut g.architecture,
                &mut g.memory_type,
            ] {
                clean(s);
            }
            for s in [&mut g.mig, &mut g.segment, &mut g.notes, &mut g.memory_source] {
                clean_opt(s);
            }
        }
        for o in &mut self.offer {
            for s in [&mut o.gpu, &mut o.provider, &mut o.currency] {
                clean(s);
            }
            for s in [&mut o.region, &mut o.seen, &mut o.source, &mut o.notes] {
                clean_opt(s);
            }
        }
        for p in &mut self.mig_profile {
            for s in [&mut p.card, &mut p.profile, &mut p.source] {
                clean(s);
            }
        }
    }
}

fn two() -> u64 {
    2
}

fn custom() -> String {
    "custom".into()
}

/// A model that does not say: the context the planner starts at.
fn default_max_context() -> u64 {
    8192
}

/// A model as written in `models.toml`: the config.json fields, with the structural
/// flags defaulting to the Llama layout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelEntry {
    pub(super) id: String,
    pub(super) name: String,
    #[serde(default = "custom")]
    pub(super) family: String,
    #[serde(default)]
    pub(super) hf_repo: Option<String>,
    #[serde(default = "default_max_context")]
    pub(super) max_context: u64,
    pub(super) hidden: u64,
    pub(super) intermediate: u64,
    pub(super) layers: u64,
    pub(super) heads: u64,
    #[serde(default)]
    pub(super) kv_heads: Option<u64>,
    #[serde(default)]
    pub(super) head_dim: Option<u64>,
    pub(super) vocab: u64,
    #[serde(default)]
    pub(super) tied_embeddings: bool,
    #[serde(default)]
    pub(super) qkv_bias: bool,
    #[serde(default)]
    pub(super) o_bias: bool,
    #[serde(default)]
    pub(super) qk_norm: bool,
    #[serde(default = "two")]
    pub(super) norms_per_layer: u64,
    #[serde(default)]
    pub(super) norm_bias: bool,
    #[serde(default)]
    pub(super) mlp: MlpKind,
    #[serde(default)]
    pub(super) mlp_bias: bool,
    #[serde(default)]
    pub(super) attention_sinks: bool,
    #[serde(default)]
    pub(super) sliding_window: Option<SlidingWindow>,
    #[serde(default)]
    pub(super) moe: Option<Moe>,
    #[serde(default)]
    pub(super) mla: Option<Mla>,
    #[serde(default)]
    pub(super) active_excludes_embedding: bool,
    #[serde(default)]
    pub(super) declared_params: Option<u64>,
    #[serde(default)]
    pub(super) position_embeddings: u64,
}

impl ModelEntry {
    /// The model, or the field at fault and why.
    pub(super) fn into_model(self) -> Result<Model, (&'static str, String)> {
        let id = crate::text::clean_prefix(&self.id, 60);
        let fail = |field: &'static str, message: String| Err((field, format!("model '{id}': {message}")));
        if !(1..=1 << 30).contains(&self.max_context) {
            return fail(
                "max_context",
                format!("'max_context' must be between 1 and {}", 1u64 << 30),
            );
        }
        if let Some(n) = self.declared_params
            && !(1..=crate::engine::model::MAX_PARAMS as u64).contains(&n)
        {
            return fail(
                "declared_params",
                format!("'declared_params' must be between 1 and 10^15, got {n}"),
            );
        }
        if self.heads == 0 {
            return fail("heads", "'heads' must be positive".into());
        }
        if self.head_dim.is_none() && !self.hidden.is_multiple_of(self.heads) {
            return fail(
                "hidden",
                format!(
                    "hidden {} is not a multiple of heads {}; give head_dim",
                    self.hidden, self.heads
                ),
            );
        }
        let head_dim = self.head_dim.unwrap_or(self.hidden / self.heads);
        Ok(Model {
            id: self.id,
            name: self.name,
            family: self.family,
            hf_repo: self.hf_repo,
            max_context: self.max_context,
            arch: Architecture {
                hidden: self.hidden,
                intermediate: self.intermediate,
                layers: self.layers,
                heads: self.heads,
                kv_heads: self.kv_heads.unwrap_or(self.heads),
                head_dim,
                vocab: self.vocab,
                tied_embeddings: self.tied_embeddings,
                qkv_bias: self.qkv_bias,
                o_bias: self.o_bias,
                qk_norm: self.qk_norm,
                norms_per_layer: self.norms_per_layer,
                norm_bias: self.norm_bias,
                qk_norm_full: false,
                q_gate: false,
                norm_free: false,
                ssm: None,
                mlp: self.mlp,
                mlp_bias: self.mlp_bias,
                attention_sinks: self.attention_sinks,
                sliding_window: self.sliding_window,
                moe: self.moe,
                mla: self.mla,
                active_excludes_embedding: self.active_excludes_embedding,
                position_embeddings: self.position_embeddings,
                lm_head_bias: false,
            },
            declared_params: self.declared_params,
            warnings: Vec::new(),
            source_path: None,
            checkpoint: None,
            params_range: None,
            unknown_keys: Vec::new(),
        })
        .and_then(|m: Model| match m.arch.validate() {
            Ok(()) => Ok(m),
            Err(e) => Err((e.field, format!("model '{id}': {}", e.message))),
        })
    }
}
