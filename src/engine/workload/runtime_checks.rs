//! What a runtime can run at all, checked on a scenario: a split it can make, a KV cache it
//! has, and flash attention where its cache needs it. One place for the CLI, plan files and
//! the planner (which skips such values instead).

use crate::engine::basics::choice::Choice;
use crate::engine::model::precision::KvPrecision;
use crate::engine::workload::ranges::KnobError;
use crate::engine::workload::scenario::Scenario;

impl Scenario {
    /// The first thing the scenario's runtime cannot run, as the flag to change.
    pub fn check_runtime(&self) -> Result<(), KnobError> {
        if !self.framework.has_split(self.split) {
            return Err(KnobError {
                flag: "split",
                message: format!(
                    "{} splits a model over cards by layer only: use --split layer",
                    self.framework.label()
                ),
            });
        }
        if self.framework.is_ggml() && self.kv.is_block_quantized() && !self.flash_attention {
            return Err(KnobError {
                flag: "flash-attention",
                message: format!(
                    "{}'s {} KV cache needs flash attention (llama.cpp quantizes the V cache only with it): leave --flash-attention on",
                    self.framework.label(),
                    self.kv.id()
                ),
            });
        }
        if !self.framework.has_kv(self.kv) {
            let offered: Vec<&str> = KvPrecision::ALL
                .iter()
                .filter(|k| self.framework.has_kv(**k))
                .map(|k| k.id())
                .collect();
            return Err(KnobError {
                flag: "kv",
                message: format!(
                    "{} has no {} KV cache: use {}",
                    self.framework.label(),
                    self.kv.id(),
                    offered.join(", ")
                ),
            });
        }
        Ok(())
    }
}
