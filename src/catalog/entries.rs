//! One catalog file as serde reads it: the three arrays (models, cards, offers) and its
//! date, its text cleaned for terminals, and a model entry as `models.toml` writes it,
//! turned into the engine's model with the field at fault when it is not one.

use serde::Deserialize;

use crate::engine::hardware::gpu::Gpu;
use crate::engine::hardware::offers::Offer;
use crate::engine::hardware::slice::MigProfile;
use crate::engine::model::{Architecture, Mla, MlpKind, Model, Moe, SlidingWindow, Ssm};

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
            for s in [&mut m.id, &mut m.name] {
                clean(s);
            }
            for s in [&mut m.family, &mut m.hf_repo, &mut m.like] {
                clean_opt(s);
            }
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

/// A model that does not say: the context the planner starts at.
const DEFAULT_MAX_CONTEXT: u64 = 8192;

/// A model as written in `models.toml`: the config.json fields, with the structural
/// flags defaulting to the Llama layout. With `like = "<model id>"` the entry takes every
/// architecture field of that (earlier) model and gives only what differs: a fine-tune or a
/// re-release is its id, name, repo and context, not a second copy of a shape. Every
/// architecture field is optional here so that an override can be told from a default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelEntry {
    pub(super) id: String,
    pub(super) name: String,
    #[serde(default)]
    pub(super) family: Option<String>,
    #[serde(default)]
    pub(super) hf_repo: Option<String>,
    /// The id of an earlier model whose architecture this one shares.
    #[serde(default)]
    pub(super) like: Option<String>,
    /// The format the model is published in, where it is not 16-bit (`mxfp4` for gpt-oss).
    #[serde(default)]
    pub(super) published_format: Option<String>,
    #[serde(default)]
    pub(super) max_context: Option<u64>,
    #[serde(default)]
    pub(super) hidden: Option<u64>,
    #[serde(default)]
    pub(super) intermediate: Option<u64>,
    #[serde(default)]
    pub(super) layers: Option<u64>,
    #[serde(default)]
    pub(super) heads: Option<u64>,
    #[serde(default)]
    pub(super) kv_heads: Option<u64>,
    #[serde(default)]
    pub(super) head_dim: Option<u64>,
    #[serde(default)]
    pub(super) vocab: Option<u64>,
    #[serde(default)]
    pub(super) tied_embeddings: Option<bool>,
    #[serde(default)]
    pub(super) qkv_bias: Option<bool>,
    #[serde(default)]
    pub(super) o_bias: Option<bool>,
    #[serde(default)]
    pub(super) qk_norm: Option<bool>,
    /// The q and k norms span the whole projection (OLMo 2).
    #[serde(default)]
    pub(super) qk_norm_full: Option<bool>,
    /// A vision-language model's image encoder: `{ params, tokens_per_image }` or
    /// `{ params, pixels_per_token, min_tokens, max_tokens }`.
    #[serde(default)]
    pub(super) vision: Option<crate::engine::model::vision::Vision>,
    /// The rotary table's layout where it is not one row per position:
    /// `{ linear_factor, multimodal, local_table, rotary_dim }`.
    #[serde(default)]
    pub(super) rope: Option<crate::engine::model::rope::Rope>,
    #[serde(default)]
    pub(super) norms_per_layer: Option<u64>,
    #[serde(default)]
    pub(super) norm_bias: Option<bool>,
    #[serde(default)]
    pub(super) mlp: Option<MlpKind>,
    #[serde(default)]
    pub(super) mlp_bias: Option<bool>,
    #[serde(default)]
    pub(super) attention_sinks: Option<bool>,
    #[serde(default)]
    pub(super) sliding_window: Option<SlidingWindow>,
    #[serde(default)]
    pub(super) attention_16bit_in: Option<String>,
    /// The first and last blocks stay 16-bit whole in that format.
    #[serde(default)]
    pub(super) edge_blocks_16bit: Option<bool>,
    #[serde(default)]
    pub(super) moe: Option<Moe>,
    #[serde(default)]
    pub(super) mla: Option<Mla>,
    /// State-space layers (a Mamba, or a hybrid's mixers), as the engine's `Ssm` writes them.
    #[serde(default)]
    pub(super) ssm: Option<Ssm>,
    #[serde(default)]
    pub(super) active_excludes_embedding: Option<bool>,
    #[serde(default)]
    pub(super) declared_params: Option<u64>,
    #[serde(default)]
    pub(super) position_embeddings: Option<u64>,
}

/// The Llama layout every field defaults to when an entry names no `like`.
fn llama_layout() -> Architecture {
    Architecture {
        hidden: 0,
        intermediate: 0,
        layers: 0,
        heads: 0,
        kv_heads: 0,
        head_dim: 0,
        vocab: 0,
        tied_embeddings: false,
        qkv_bias: false,
        o_bias: false,
        qk_norm: false,
        norms_per_layer: 2,
        norm_bias: false,
        qk_norm_full: false,
        q_gate: false,
        norm_free: false,
        ssm: None,
        mlp: MlpKind::Gated,
        mlp_bias: false,
        attention_sinks: false,
        sliding_window: None,
        attention_16bit_in: None,
        edge_blocks_16bit: false,
        moe: None,
        mla: None,
        active_excludes_embedding: false,
        position_embeddings: 0,
        lm_head_bias: false,
    }
}

impl ModelEntry {
    /// The model, or the field at fault and why. `base` is the model named by `like`
    /// (the caller finds it, and reports an unknown one).
    pub(super) fn into_model(self, base: Option<&Model>) -> Result<Model, (&'static str, String)> {
        let id = crate::text::clean_prefix(&self.id, 60);
        let fail = |field: &'static str, message: String| Err((field, format!("model '{id}': {message}")));
        let max_context = self
            .max_context
            .or(base.map(|b| b.max_context))
            .unwrap_or(DEFAULT_MAX_CONTEXT);
        if !(1..=1 << 30).contains(&max_context) {
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
        let mut arch = base.map_or_else(llama_layout, |b| b.arch.clone());
        // Without `like`, the five dimensions every shape needs must be written.
        if base.is_none() {
            for (field, value) in [
                ("hidden", self.hidden),
                ("intermediate", self.intermediate),
                ("layers", self.layers),
                ("heads", self.heads),
                ("vocab", self.vocab),
            ] {
                if value.is_none() {
                    return fail(
                        "id",
                        format!(
                            "'{field}' is missing (give it, or 'like' = the id of a model of the same shape)"
                        ),
                    );
                }
            }
        }
        let reshaped = self.hidden.is_some() || self.heads.is_some();
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = self.$f { arch.$f = v; } )* };
        }
        set!(
            hidden,
            intermediate,
            layers,
            heads,
            vocab,
            tied_embeddings,
            qkv_bias,
            o_bias,
            qk_norm,
            qk_norm_full,
            norms_per_layer,
            norm_bias,
            mlp,
            mlp_bias,
            attention_sinks,
            active_excludes_embedding,
            position_embeddings
        );
        if self.sliding_window.is_some() {
            arch.sliding_window = self.sliding_window;
        }
        if self.moe.is_some() {
            arch.moe = self.moe;
        }
        if self.mla.is_some() {
            arch.mla = self.mla;
        }
        if let Some(e) = self.edge_blocks_16bit {
            arch.edge_blocks_16bit = e;
        }
        if self.ssm.is_some() {
            arch.ssm = self.ssm;
        }
        if let Some(f) = &self.attention_16bit_in {
            use crate::engine::basics::choice::Choice;
            match crate::engine::model::precision::WeightPrecision::from_id(f) {
                Some(w) if w.is_quantized() => arch.attention_16bit_in = Some(w),
                _ => {
                    return fail(
                        "attention_16bit_in",
                        format!(
                            "'attention_16bit_in' = '{}' is not a quantized weight format",
                            crate::text::clean_prefix(f, 20)
                        ),
                    );
                }
            }
        }
        let published_format = match &self.published_format {
            None => None,
            Some(f) => {
                use crate::engine::basics::choice::Choice;
                match crate::engine::model::precision::WeightPrecision::from_id(f) {
                    Some(w) => Some(w),
                    None => {
                        return fail(
                            "published_format",
                            format!(
                                "'published_format' = '{}' is not a weight format",
                                crate::text::clean_prefix(f, 20)
                            ),
                        );
                    }
                }
            }
        };
        if arch.heads == 0 {
            return fail("heads", "'heads' must be positive".into());
        }
        match self.head_dim {
            Some(d) => arch.head_dim = d,
            // A shape of its own (or a new width) without head_dim: hidden / heads.
            None if base.is_none() || reshaped => {
                if !arch.hidden.is_multiple_of(arch.heads) {
                    return fail(
                        "hidden",
                        format!(
                            "hidden {} is not a multiple of heads {}; give head_dim",
                            arch.hidden, arch.heads
                        ),
                    );
                }
                arch.head_dim = arch.hidden / arch.heads;
            }
            None => {}
        }
        match self.kv_heads {
            Some(k) => arch.kv_heads = k,
            None if base.is_none() => arch.kv_heads = arch.heads,
            None => {}
        }
        let family = self
            .family
            .or(base.map(|b| b.family.clone()))
            .unwrap_or_else(|| "custom".into());
        let model = Model {
            id: self.id,
            name: self.name,
            family,
            hf_repo: self.hf_repo,
            max_context,
            arch,
            declared_params: self.declared_params,
            warnings: Vec::new(),
            source_path: None,
            checkpoint: None,
            params_range: None,
            unknown_keys: Vec::new(),
            published_format: published_format.or(base.and_then(|b| b.published_format)),
            vision: self.vision.or(base.and_then(|b| b.vision)),
            rope: self.rope.or(base.map(|b| b.rope)).unwrap_or_default(),
        };
        if let Some(v) = &model.vision
            && let Err(m) = v.check()
        {
            return fail("vision", m);
        }
        match model.arch.validate() {
            Ok(()) => Ok(model),
            Err(e) => Err((e.field, format!("model '{id}': {}", e.message))),
        }
    }
}
