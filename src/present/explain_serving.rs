//! The explain view's serving lines: the KV pool and what a sequence holds in it (vLLM's
//! hybrid groups too), the concurrency, the ceilings and the expected speed beside them.

use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::hardware::gpu::Gpu;
use crate::engine::verdict::fit::FitOption;
use crate::engine::verdict::plan::Plan;
use crate::engine::workload::scenario::Scenario;
use crate::present::i18n::{formula, word};
use crate::tr;

/// vLLM's hybrid allocator: its groups, what a sequence holds, what its log reports.
fn kv_groups_lines(g: &crate::engine::memory::vllm_pool::PoolCapacity, sc: &Scenario) -> Vec<String> {
    let p = &g.pool;
    let mut held = Vec::new();
    if p.full_groups > 0 {
        let blocks = group_thousands(sc.context.div_ceil(p.block) as i64);
        held.push(tr!("explain.kv_groups_full", n = p.full_groups, blocks = blocks));
    }
    if p.sliding_groups > 0 {
        let blocks = p.sliding_blocks(sc.context);
        let window = group_thousands(p.window as i64);
        held.push(tr!(
            "explain.kv_groups_sliding",
            n = p.sliding_groups,
            blocks = blocks,
            window = window
        ));
    }
    if p.state_groups > 0 {
        held.push(tr!("explain.kv_groups_state", n = p.state_groups));
    }
    let version = sc
        .version()
        .unwrap_or(crate::engine::workload::version::Version::Release(0, 34, 0));
    let rule = if crate::engine::runtimes::release::vllm_logged_tokens_from_concurrency(version) {
        tr!("explain.kv_groups_rule_concurrency")
    } else {
        tr!("explain.kv_groups_rule_blocks")
    };
    let padding = if p.padding_layers > 0 {
        tr!("explain.kv_groups_padding", n = p.padding_layers)
    } else {
        String::new()
    };
    let mut lines = vec![tr!(
        "explain.kv_groups",
        groups = p.groups(),
        size = p.group_size,
        blocks = group_thousands(g.num_blocks as i64),
        block = p.block,
        padding = padding,
        context = group_thousands(sc.context as i64),
        per_seq = group_thousands(g.blocks_per_sequence as i64),
        held = held.join(" + "),
        seqs = g.sequences,
        tokens = group_thousands(g.logged_tokens as i64),
        concurrency = format!("{:.2}", g.logged_concurrency),
        rule = rule
    )];
    if p.state_groups > 0 && p.block > crate::engine::memory::vllm_pool::KV_BLOCK_TOKENS {
        let waste = (p.page_bytes - p.state_page_bytes) / p.page_bytes * 100.0;
        lines.push(tr!(
            "explain.kv_groups_state_block",
            block = group_thousands(p.block as i64),
            state = group_thousands(p.state_page_bytes as i64),
            waste = format!("{waste:.1}")
        ));
    }
    lines
}

/// The split, the KV budget and the decode roofline.
pub(crate) fn serving_lines(gpu: &Gpu, option: &FitOption, plan: &Plan, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let mut lines = Vec::new();
    if n > 1 {
        lines.push(tr!(
            "explain.split",
            split = word("split", option.split.id()),
            link = formula(&option.link.to_string())
        ));
    }
    if let Some(w) = option.warning() {
        lines.push(tr!("explain.warning", warning = formula(&w)));
    }
    if let Some(c) = option.serving {
        lines.push(tr!(
            "explain.kv_budget",
            tokens = group_thousands(c.kv_capacity_tokens as i64),
            block = c
                .kv_groups
                .map_or(crate::engine::memory::vllm_pool::KV_BLOCK_TOKENS, |g| g
                    .pool
                    .block),
            seqs = c.max_concurrent_sequences,
            context = group_thousands(scenario.context as i64),
            batch = scenario.batch,
            max_context = group_thousands(c.max_context as i64),
            at_max = if option.limits.context_at_model_max {
                tr!("explain.at_model_max")
            } else {
                String::new()
            }
        ));
    }
    if let Some(g) = option.serving.and_then(|c| c.kv_groups) {
        lines.extend(kv_groups_lines(&g, scenario));
    }
    if option.serving.is_some()
        && matches!(
            scenario.framework,
            crate::engine::Framework::Vllm | crate::engine::Framework::Sglang
        )
    {
        // A paged engine's concurrency is its pool ÷ tokens per request, whatever batch
        // was asked: that is what the sequences above mean.
        lines.push(tr!("explain.kv_pool_meaning", engine = scenario.runtime_label()));
    }
    // Ollama's num_ctx on these cards, where it follows their VRAM.
    if option.context != scenario.context && scenario.framework == crate::engine::Framework::LlamaCpp {
        lines.push(tr!(
            "explain.fit_context",
            runtime = scenario.runtime_label(),
            context = group_thousands(option.context as i64)
        ));
    } else if option.context != scenario.context {
        lines.push(tr!(
            "explain.card_context",
            runtime = scenario.runtime_label(),
            context = group_thousands(option.context as i64),
            vram = format!("{:.1}", option.capacity_bytes / 1_073_741_824.0)
        ));
    }
    // vLLM's batch defaults on this card, where they follow its memory.
    if let Some((tokens, seqs)) = option.batch_defaults {
        lines.push(tr!(
            "explain.card_batch",
            runtime = scenario.runtime_label(),
            tokens = group_thousands(tokens as i64),
            seqs = group_thousands(seqs as i64)
        ));
    }
    // llama-server's default 4 slots share one unified cache: one sequence's cells in all.
    let unified = scenario.framework == crate::engine::Framework::LlamaCpp
        && scenario.batch == 1
        && scenario
            .version()
            .is_some_and(crate::engine::runtimes::release::llama_cpp_auto_slots);
    if unified && option.serving.is_some() {
        lines.push(tr!(
            "explain.unified_slots",
            runtime = scenario.runtime_label(),
            context = group_thousands(scenario.context as i64)
        ));
    }
    // llama.cpp and Ollama serve their fixed slots, not what the budget could hold.
    if let Some(c) = option
        .serving
        .filter(|_| scenario.framework.is_ggml() && !unified)
    {
        lines.push(tr!(
            "explain.slots",
            runtime = scenario.runtime_label(),
            slots = super::concurrent_sequences(scenario, &c),
            knob = if scenario.framework == crate::engine::Framework::Ollama {
                "OLLAMA_NUM_PARALLEL"
            } else {
                "n_parallel (-np)"
            }
        ));
    }
    match (option.roofline, plan.breakdown.decode_bytes_per_token) {
        (Some(r), Some(bytes)) => {
            let kv = plan.breakdown.decode_kv_bytes_per_sequence;
            let parallel = if n > 1 && option.split == crate::engine::verdict::fit::OptionSplit::Tensor {
                n
            } else {
                1
            };
            lines.push(tr!(
                "explain.decode_step",
                weights = format_gb(bytes - kv),
                batch = scenario.batch,
                kv = format_gb(kv),
                total = format_gb(bytes - kv + scenario.batch as f64 * kv),
                parallel = parallel,
                bandwidth = gpu.bandwidth_gbs,
                params = crate::engine::basics::units::format_params(plan.params.active),
                tflops = crate::engine::speed::serving::peak_flops(
                    gpu,
                    scenario.weights == crate::engine::model::precision::WeightPrecision::Fp8
                )
                .map_or("?".to_string(), |f| format!("{:.0}", f / 1e12)),
                link = if r.link_seconds_per_step > 0.0 {
                    tr!(
                        "explain.link_ms",
                        ms = format!("{:.3}", r.link_seconds_per_step * 1e3)
                    )
                } else {
                    String::new()
                }
            ));
            lines.push(tr!(
                "explain.decode_ceiling",
                per_stream = format!("{:.1}", r.per_stream),
                aggregate = format!("{:.0}", r.aggregate),
                bound = word("bound", r.bound.id())
            ));
            if let Some(p) = r.prefill_seconds {
                lines.push(tr!(
                    "explain.prefill",
                    prompt = group_thousands(scenario.prompt as i64),
                    batch = scenario.batch,
                    seconds = format!("{p:.3}")
                ));
            }
        }
        _ => lines.push(tr!("explain.no_decode")),
    }
    if let Some(f) = &plan.breakdown.decode_formula {
        lines.push(tr!("explain.bytes_per_token", formula = formula(f)));
    }
    lines
}
