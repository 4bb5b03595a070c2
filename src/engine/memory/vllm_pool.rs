//! vLLM V1's hybrid KV-cache allocator, for a model whose layers are of several kinds (full
//! and sliding-window attention; attention and state-space mixers). Read from vLLM's own code
//! (docs/notes/runtime-rules.md gives each file and release):
//!
//! - the layers are grouped by kind into groups of `group_size` layers
//!   (`_get_kv_cache_groups_uniform_page_size`): the size of the least numerous kind (from
//!   0.18 the most numerous one when no kind has 1.5 times the layers of another), the last
//!   group of a kind padded with empty layer slots;
//! - one tensor per layer slot is shared by one layer of every group, so the pool is
//!   `num_blocks = budget ÷ (page × group_size)` blocks, each group's block table drawing on
//!   it (`get_kv_cache_config_from_groups`, `get_num_blocks`);
//! - a sequence holds ⌈context ÷ block⌉ blocks in a full group, about one more than
//!   ⌈(window − 1) ÷ block⌉ in a sliding group (the manager frees what falls out of the
//!   window), one in a state group (`single_type_kv_cache_manager.py`);
//! - an attention page must hold a state page: the block grows to 16 × ⌈state page ÷ (16 ×
//!   one token's page)⌉ tokens and the state page is padded to it
//!   (`HybridAttentionMambaModelConfig`, `vllm/model_executor/models/config.py`);
//! - the log's "Maximum concurrency" reserves, per sliding group, the window plus the prefill
//!   tokens in flight (`SlidingWindowSpec.max_memory_usage_bytes`), and its "GPU KV cache size"
//!   is `num_blocks ÷ groups × block` up to 0.20 (every layer counted as if full attention),
//!   the concurrency × `max_model_len` from 0.21.

use crate::engine::workload::version;
use serde::Serialize;

use crate::engine::model::{Model, Ssm};
use crate::engine::runtimes::release;
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::Scenario;

/// vLLM pages the KV cache in blocks of 16 tokens (`CacheConfig.block_size`'s default).
pub const KV_BLOCK_TOKENS: u64 = 16;

/// Bytes vLLM keeps a state element in: the conv state always, and the recurrent state with
/// `mamba_ssm_cache_dtype` "auto", in the model's 16-bit dtype, whatever the KV cache's dtype.
pub const STATE_BYTES_PER_ELEMENT: f64 = 2.0;

/// How vLLM lays out the KV cache of a model with layers of several kinds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pool {
    /// Tokens per block: 16, or raised so that an attention page holds a state page.
    pub block: u64,
    /// Layers per group: the tensors (layer slots) that one block id spans.
    pub group_size: u64,
    pub full_groups: u64,
    pub sliding_groups: u64,
    pub state_groups: u64,
    /// Layer slots no layer fills (vLLM's "Add N padding layers").
    pub padding_layers: u64,
    /// The sliding layers' window (0 without sliding layers).
    pub window: u64,
    /// One layer's page (a block of one layer's keys and values, or one state padded to it),
    /// for the whole model before a tensor-parallel split.
    pub page_bytes: f64,
    /// One state-space layer's state before padding (0 without state layers).
    pub state_page_bytes: f64,
}

/// What the pool holds on a card with `budget` bytes for its KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoolCapacity {
    pub pool: Pool,
    pub num_blocks: u64,
    /// Blocks one sequence of the plan's context holds at once.
    pub blocks_per_sequence: u64,
    /// Sequences of that context the pool holds: `num_blocks ÷ blocks_per_sequence`.
    pub sequences: u64,
    /// vLLM's logged "Maximum concurrency for N tokens per request".
    pub logged_concurrency: f64,
    /// vLLM's logged "GPU KV cache size: N tokens".
    pub logged_tokens: u64,
}

/// The layers of each kind: full attention, sliding-window attention, state-space (a
/// Nemotron-H's lone MLP layers hold no cache and are none of them).
fn kinds(model: &Model) -> [u64; 3] {
    let a = &model.arch;
    let attention = a.attention_layers();
    let sliding = a.sliding_layers().min(attention);
    let state = a.ssm.map_or(0, |s| s.layers.min(a.layers));
    [attention - sliding, sliding, state]
}

/// vLLM before its hybrid allocator: a model with sliding and full attention layers is kept
/// as full attention only, every sliding layer holding the whole context.
pub fn sliding_held_in_full(model: &Model, sc: &Scenario) -> bool {
    let [full, sliding, _] = kinds(model);
    sc.framework == Framework::Vllm
        && full > 0
        && sliding > 0
        && sc.version().is_some_and(|v| !release::vllm_hybrid_allocator(v))
}

/// The layout vLLM gives `model` under `sc`; `None` where it has one kind of layer (one group,
/// the plain paged rule), is not served by vLLM, or predates the hybrid allocator.
pub fn pool(model: &Model, sc: &Scenario) -> Option<Pool> {
    if sc.framework != Framework::Vllm || sc.method.is_training() || model.arch.mla.is_some() {
        return None;
    }
    let version = sc.version()?;
    if !release::vllm_hybrid_allocator(version) {
        return None;
    }
    let counts = kinds(model);
    let present: Vec<u64> = counts.iter().copied().filter(|&n| n > 0).collect();
    if present.len() < 2 {
        return None;
    }
    let (min, max) = (present.iter().min()?, present.iter().max()?);
    let group_size = if release::vllm_groups_of_max(version) && 2 * max < 3 * min {
        *max
    } else {
        *min
    };
    let groups = |n: u64| n.div_ceil(group_size);
    let padding_layers = counts.iter().map(|&n| groups(n) * group_size - n).sum::<u64>();
    let a = &model.arch;
    let token_page = a.kv_elements_per_token_per_layer() as f64 * sc.kv.bytes_per_element();
    let state_page = a.ssm.filter(|_| counts[2] > 0).map_or(0.0, |s| state_bytes(&s));
    let block = state_block(state_page, token_page);
    Some(Pool {
        block,
        group_size,
        full_groups: groups(counts[0]),
        sliding_groups: groups(counts[1]),
        state_groups: groups(counts[2]),
        padding_layers,
        window: a.sliding_window.filter(|_| counts[1] > 0).map_or(0, |w| w.window),
        page_bytes: block as f64 * token_page,
        state_page_bytes: state_page,
    })
}

/// One state-space layer's state as vLLM keeps it (`MambaStateDtypeCalculator`,
/// `model_executor/layers/mamba/mamba_utils.py`): the conv state in the model's 16-bit dtype
/// whatever the KV cache's, the recurrent state in `mamba_ssm_cache_dtype` (Nemotron-H: its
/// config's, `NemotronHForCausalLMConfig`), else the same 16 bits. Checked against a 0.13 and
/// a 0.19 start log (the tests below).
pub fn state_bytes(s: &Ssm) -> f64 {
    let recurrent = s.recurrent_elements();
    let ssm_bytes = match s.ssm_state_bytes {
        0 => STATE_BYTES_PER_ELEMENT,
        b => b as f64,
    };
    (s.state_elements() - recurrent) as f64 * STATE_BYTES_PER_ELEMENT + recurrent as f64 * ssm_bytes
}

/// The attention block that makes a page hold one state: 16 × ⌈state ÷ (16 × one token's
/// page)⌉, never below vLLM's 16.
pub fn state_block(state_page: f64, token_page: f64) -> u64 {
    let unit = KV_BLOCK_TOKENS as f64 * token_page;
    if state_page <= unit || token_page <= 0.0 {
        return KV_BLOCK_TOKENS;
    }
    KV_BLOCK_TOKENS * (state_page / unit).ceil() as u64
}

impl Pool {
    pub fn groups(&self) -> u64 {
        self.full_groups + self.sliding_groups + self.state_groups
    }

    /// Bytes one block id spans: a page in each of the group's layer slots.
    pub fn block_bytes(&self) -> f64 {
        self.page_bytes * self.group_size as f64
    }

    /// Blocks a sliding group holds for a sequence of `context` tokens: the window's, and
    /// one for a window that starts inside a block; never more than the context's.
    pub fn sliding_blocks(&self, context: u64) -> u64 {
        let held = self.window.saturating_sub(1).div_ceil(self.block) + 1;
        held.min(context.div_ceil(self.block))
    }

    /// Blocks one sequence of `context` tokens holds over all groups.
    pub fn blocks_per_sequence(&self, context: u64) -> u64 {
        self.full_groups * context.div_ceil(self.block)
            + self.sliding_groups * self.sliding_blocks(context)
            + self.state_groups
    }

    /// The cache of `batch` sequences of `context` tokens, for the whole model: the blocks
    /// they hold × the bytes of a block.
    pub fn cache_bytes(&self, context: u64, batch: u64) -> f64 {
        (self.blocks_per_sequence(context) * batch) as f64 * self.block_bytes()
    }

    /// Blocks vLLM reserves per request when it reports its concurrency
    /// (`max_memory_usage_bytes`): the whole `max_model_len` in a full group, the window
    /// plus `in_flight` prefill tokens and one block in a sliding group, one in a state group.
    pub fn logged_blocks_per_request(&self, max_model_len: u64, in_flight: u64) -> u64 {
        let sliding = (self.window.saturating_sub(1) + in_flight)
            .min(max_model_len)
            .div_ceil(self.block)
            + 1;
        self.full_groups * max_model_len.div_ceil(self.block)
            + self.sliding_groups * sliding
            + self.state_groups
    }

    /// What the pool holds with `budget` bytes on a card whose share of each page is `share`
    /// (tensor parallel splits the heads), for the scenario's context as `max_model_len`.
    pub fn capacity(&self, budget: f64, share: f64, sc: &Scenario) -> PoolCapacity {
        let block_bytes = self.block_bytes() * share;
        let num_blocks = if budget > 0.0 && block_bytes > 0.0 {
            (budget / block_bytes).floor() as u64
        } else {
            0
        };
        let version = sc.version().unwrap_or(version::Version::Release(0, 34, 0));
        let in_flight = release::vllm_in_flight_batches(version) * sc.max_batched_tokens;
        let per_request = self.logged_blocks_per_request(sc.context, in_flight).max(1);
        let logged_concurrency = num_blocks as f64 / per_request as f64;
        let logged_tokens = if release::vllm_logged_tokens_from_concurrency(version) {
            (logged_concurrency * sc.context as f64) as u64
        } else {
            num_blocks / self.groups().max(1) * self.block
        };
        let blocks_per_sequence = self.blocks_per_sequence(sc.context).max(1);
        PoolCapacity {
            pool: *self,
            num_blocks,
            blocks_per_sequence,
            sequences: num_blocks / blocks_per_sequence,
            logged_concurrency,
            logged_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::engine::model::precision::KvPrecision;
    use crate::engine::workload::scenario::Convention;
    use crate::engine::workload::version::Version;

    fn model(id: &str) -> Model {
        Catalog::embedded().unwrap().model(id).unwrap().clone()
    }

    fn vllm(release: (u32, u32), context: u64) -> Scenario {
        let mut sc = Scenario {
            convention: Convention::Calibrated,
            ..Scenario::seed_inference(crate::engine::model::precision::WeightPrecision::Bf16)
        };
        sc.framework = Framework::Vllm;
        sc.release = Some(Version::Release(release.0, release.1, 0));
        sc.kv = KvPrecision::Bf16;
        sc.context = context;
        sc.max_batched_tokens = 8192;
        sc
    }

    /// gpt-oss-120b, 36 layers alternating sliding (window 128) and full: 18 + 18, so 2
    /// groups of 18. A page is 16 tokens × 2 × 8 kv heads × 64 × 2 B = 32,768 B; a block id
    /// spans 18 of them, 589,824 B. 3.33 GiB (the llm-d H100 run) = 3,575,560,273.92 B holds
    /// 6,062 blocks (6,062 × 589,824 = 3,575,513,088). At 16,000 tokens a sequence holds
    /// 1,000 blocks in the full group and ⌈127 ÷ 16⌉ + 1 = 9 in the sliding one: 1,009, so
    /// 6 sequences. vLLM 0.11 logs 6,062 ÷ 2 × 16 = 48,496 tokens, and a concurrency of
    /// 6,062 ÷ (1,000 + ⌈(127 + 8,192) ÷ 16⌉ + 1 = 1,521) = 3.99.
    #[test]
    fn gpt_oss_two_groups_share_one_pool() {
        let m = model("gpt-oss-120b");
        let sc = vllm((0, 11), 16_000);
        let p = pool(&m, &sc).unwrap();
        assert_eq!((p.group_size, p.full_groups, p.sliding_groups), (18, 1, 1));
        assert_eq!((p.block, p.padding_layers, p.window), (16, 0, 128));
        assert_eq!(p.page_bytes, 32_768.0);
        let c = p.capacity(3.33 * 1_073_741_824.0, 1.0, &sc);
        assert_eq!(c.num_blocks, 6_062);
        assert_eq!(c.blocks_per_sequence, 1_009);
        assert_eq!(c.sequences, 6);
        assert_eq!(c.logged_tokens, 48_496);
        assert!((c.logged_concurrency - 6_062.0 / 1_521.0).abs() < 1e-12);
        // The judge's cache for 6 sequences is exactly their blocks.
        assert_eq!(p.cache_bytes(16_000, 6), 6.0 * 1_009.0 * 589_824.0);
    }

    /// The logged figures by release, same pool: from 0.21 the tokens are the concurrency ×
    /// max_model_len, 6,062 × 16,000 ÷ 1,521 = 63,768.6 → 63,768; from 0.26 a sliding group
    /// reserves two prefill batches, ⌈min(127 + 16,384, 16,000) ÷ 16⌉ + 1 = 1,001 blocks, so
    /// 6,062 ÷ 2,001 and 6,062 × 16,000 ÷ 2,001 = 48,471.8 → 48,471 tokens.
    #[test]
    fn logged_tokens_by_release() {
        let m = model("gpt-oss-120b");
        let budget = 3.33 * 1_073_741_824.0;
        let at = |r| {
            let sc = vllm(r, 16_000);
            pool(&m, &sc).unwrap().capacity(budget, 1.0, &sc)
        };
        assert_eq!(at((0, 20)).logged_tokens, 48_496);
        assert_eq!(at((0, 21)).logged_tokens, 63_768);
        assert_eq!(at((0, 25)).logged_tokens, 63_768);
        assert_eq!(at((0, 26)).logged_tokens, 48_471);
        assert!((at((0, 26)).logged_concurrency - 6_062.0 / 2_001.0).abs() < 1e-12);
        // What a sequence holds does not change: 6 in every release.
        assert_eq!(at((0, 34)).sequences, 6);
    }

    /// Gemma 3 27B: 62 layers, every sixth global: 10 full and 52 sliding (window 1,024).
    /// Groups of 10 (52 is over 1.5 × 10): 1 full group and ⌈52 ÷ 10⌉ = 6 sliding ones,
    /// 8 layer slots empty. At 8,192 tokens a sequence holds 512 + 6 × (⌈1,023 ÷ 16⌉ + 1 =
    /// 65) = 902 blocks.
    #[test]
    fn gemma_3_pads_its_sliding_groups() {
        let m = model("gemma-3-27b");
        let p = pool(&m, &vllm((0, 34), 8192)).unwrap();
        assert_eq!((p.group_size, p.full_groups, p.sliding_groups), (10, 1, 6));
        assert_eq!(p.padding_layers, 8);
        assert_eq!(p.blocks_per_sequence(8192), 902);
        // A context shorter than the window holds no more than its own blocks.
        assert_eq!(p.sliding_blocks(100), 7);
    }

    /// Before the hybrid allocator vLLM holds sliding layers in full; llama.cpp keeps its
    /// own rule; a model of one kind keeps the plain paged rule.
    #[test]
    fn where_the_rule_holds() {
        let m = model("gpt-oss-20b");
        assert!(pool(&m, &vllm((0, 9), 4096)).is_none());
        assert!(sliding_held_in_full(&m, &vllm((0, 9), 4096)));
        assert!(!sliding_held_in_full(&m, &vllm((0, 10), 4096)));
        assert!(pool(&model("llama-3.1-8b"), &vllm((0, 34), 4096)).is_none());
        let mut ggml = vllm((0, 34), 4096);
        ggml.framework = Framework::LlamaCpp;
        ggml.release = None;
        assert!(pool(&m, &ggml).is_none());
    }

    /// An attention + state-space hybrid built by hand: 8 layers, 2 attending (4 kv heads
    /// × 128, bf16: 2,048 B a token, 32,768 B a 16-token page) and 6 Mamba 2 layers (inner
    /// 4,096, d_state 128, 1 group, kernel 4): a state of (4,096 + 2 × 128) × 3 + 4,096 ×
    /// 128 = 537,344 elements, 1,074,688 B. The block grows to 16 × ⌈1,074,688 ÷ 32,768⌉ =
    /// 16 × 33 = 528 tokens (a page of 1,081,344 B; 0.6 % of a state page is padding).
    /// Groups of 2: 1 attention group, 3 state groups. At 4,096 tokens a sequence holds
    /// ⌈4,096 ÷ 528⌉ = 8 attention blocks + 3 state blocks = 11.
    #[test]
    fn state_layers_raise_the_block() {
        let mut m = model("llama-3.1-8b");
        m.arch.layers = 8;
        m.arch.kv_heads = 4;
        m.arch.head_dim = 128;
        m.arch.ssm = Some(Ssm {
            layers: 6,
            inner: 4096,
            state: 128,
            conv_kernel: 4,
            dt_rank: 0,
            heads: 64,
            groups: 1,
            mlp: false,
            proj_bias: false,
            conv_bias: true,
            inner_norms: false,
            mixer_params: None,
            mixer_state: None,
            mlp_only_layers: 0,
            kept_16bit: 0,
            ssm_state_bytes: 0,
        });
        let sc = vllm((0, 34), 4096);
        let p = pool(&m, &sc).unwrap();
        assert_eq!(p.state_page_bytes, 1_074_688.0);
        assert_eq!(p.block, 528);
        assert_eq!(p.page_bytes, 1_081_344.0);
        assert_eq!((p.group_size, p.full_groups, p.state_groups), (2, 1, 3));
        assert_eq!(p.blocks_per_sequence(4096), 11);
        // 1 GB holds ⌊1e9 ÷ (1,081,344 × 2)⌋ = 462 blocks: 42 sequences.
        let c = p.capacity(1e9, 1.0, &sc);
        assert_eq!((c.num_blocks, c.sequences), (462, 42));
        // Logged (0.34): a request reserves 8 + 3 = 11 blocks; 462 ÷ 11 × 4,096 = 172,032.
        assert_eq!(c.logged_tokens, 172_032);
    }

    /// NVIDIA Nemotron 3 Nano 4B (Nemotron-H) as vLLM 0.13 served its FP8 checkpoint with an
    /// FP8 KV cache (guardkit/guardkit docs/reviews/graphiti-nemotron/run_2.md). 42 layers: 21
    /// Mamba 2, 4 attention and 17 lone MLPs, which hold no cache. A state is 3 × (7,680 + 2 ×
    /// 8 × 128) conv + 96 × 80 × 128 SSM = 1,012,224 elements × 2 B = 2,024,448 B; a token's
    /// FP8 page 2 × 8 × 128 × 1 B = 2,048 B, so the block is 16 × ⌈2,024,448 ÷ 32,768⌉ = 992
    /// (the log's "Setting attention block size to 992 tokens") and the page 2,031,616 B
    /// ("Padding mamba page size by 0.35%"). Groups of 4: 1 attention, ⌈21 ÷ 4⌉ = 6 state, 3
    /// empty slots ("Add 3 padding layers"). 11.15 GiB ÷ (4 × 2,031,616) = 1,473 blocks; the
    /// log's tokens 1,473 ÷ 7 × 992 = 208,320 and concurrency 1,473 ÷ (⌈8,192 ÷ 992⌉ + 6 =
    /// 15) = 98.2.
    #[test]
    fn nemotron_h_pool_is_the_logged_one() {
        let m = model("nemotron-3-nano-4b");
        let mut sc = vllm((0, 13), 8192);
        sc.kv = KvPrecision::Fp8;
        sc.max_batched_tokens = 2048;
        let p = pool(&m, &sc).unwrap();
        assert_eq!(p.state_page_bytes, 2_024_448.0);
        assert_eq!((p.block, p.page_bytes), (992, 2_031_616.0));
        assert_eq!((p.group_size, p.full_groups, p.state_groups), (4, 1, 6));
        assert_eq!((p.sliding_groups, p.padding_layers), (0, 3));
        let c = p.capacity(11.15 * 1_073_741_824.0, 1.0, &sc);
        assert_eq!(
            (c.num_blocks, c.blocks_per_sequence, c.sequences),
            (1_473, 15, 98)
        );
        assert_eq!(c.logged_tokens, 208_320);
        assert!((c.logged_concurrency - 98.2).abs() < 1e-12);
    }

    /// A recurrent state kept in float32 (a Nemotron-H config's `mamba_ssm_cache_dtype`, or
    /// `--mamba-ssm-cache-dtype float32`), with Nemotron 3 Nano 30B-A3B's mixers (64 heads ×
    /// 64, 8 groups, d_state 128) and its 2 KV heads × 128 in FP8: the conv state 3 × (4,096 +
    /// 2 × 8 × 128) × 2 B = 36,864 B stays 16-bit, the SSM state 4,096 × 128 × 4 B =
    /// 2,097,152 B; 2,134,016 ÷ (16 × 512 B) = 260.5, so 16 × 261 = 4,176-token blocks and a
    /// page of 2,138,112 B, 0.19 % of padding: the "Setting attention block size to 4176
    /// tokens" and "Padding mamba page size by 0.19%" a vLLM 0.19 start log of
    /// Nemotron-Cascade-2-30B-A3B (NVFP4, the same mixers) prints with those settings.
    #[test]
    fn a_float32_recurrent_state_doubles_its_share_of_the_page() {
        let mut m = model("nemotron-3-nano-4b");
        m.arch.kv_heads = 2;
        let s = m.arch.ssm.as_mut().unwrap();
        (s.inner, s.heads, s.ssm_state_bytes) = (4096, 64, 4);
        let mut sc = vllm((0, 19), 8192);
        sc.kv = KvPrecision::Fp8;
        let p = pool(&m, &sc).unwrap();
        assert_eq!(p.state_page_bytes, 36_864.0 + 2_097_152.0);
        assert_eq!((p.block, p.page_bytes), (4_176, 2_138_112.0));
        // The same mixers in 16 bits: 36,864 + 1,048,576 B, 16 × 133 = 2,128-token blocks.
        m.arch.ssm.as_mut().unwrap().ssm_state_bytes = 0;
        assert_eq!(pool(&m, &sc).unwrap().block, 2_128);
    }
}
