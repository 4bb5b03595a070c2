//! What the planner takes in from this machine: the models in its Hugging Face cache and
//! model folders, its cards as detection found them (one kind, or a rig of several) and its
//! RAM. Each arrives on a thread of its own; the planner takes it when it comes.

use super::App;
use crate::engine::Model;

impl App {
    /// Read what this machine holds now (tests, and platforms where the planner does not
    /// read it on a thread of its own).
    pub fn load_local_models_now(&mut self) {
        if let Some(dirs) = self.local_sources.take() {
            self.add_local_models(crate::catalog::local_models(&dirs));
        }
    }

    /// Models found on this machine (the Hugging Face cache) head the model list, after an
    /// imported one; the model under the cursor stays selected.
    pub fn add_local_models(&mut self, found: Vec<Model>) {
        let at = usize::from(
            self.models
                .first()
                .is_some_and(|m| m.source_path.is_some() && m.family != "On this machine"),
        );
        let n = found.len();
        let current = self.model;
        for (i, m) in found.into_iter().enumerate() {
            self.models.insert(at + i, m);
        }
        if current >= at {
            self.model += n;
            self.model_cursor = self.model;
        }
    }

    /// Take in what detection found: this machine's cards become a card of the catalog
    /// (their reported memory less what is in use) and the default target.
    /// This machine's RAM, found beside its cards: the plan for this machine may spill into
    /// it (the RAM row shows it; turning it to "off" plans VRAM alone). Taken only when cards
    /// were found and the plan has no RAM set yet.
    pub fn set_detected_host(&mut self, host: Option<crate::engine::hardware::host::Host>) {
        let planning_here = self.local.is_some() || !self.rig.is_empty();
        if let Some(h) = host.filter(|_| planning_here && self.scenario.host.is_none()) {
            self.scenario.host = Some(h);
            self.recompute();
        }
    }

    pub fn set_local(&mut self, found: &crate::detect::Detection) {
        // Cards of different kinds: each kind on its own numbers, planned together as a rig
        // (the bar is drawn against it), not as one mean card.
        if let Ok(kinds) = crate::detect::local_kinds(found, &self.catalog)
            && kinds.len() > 1
            && self.local.is_none()
        {
            self.rig.clear();
            for k in kinds {
                self.catalog.gpus.push(k.gpu);
                self.rig.push((self.catalog.gpus.len() - 1, k.count));
            }
            self.recompute();
            return;
        }
        // Cards a tool misreports, or a tool that failed: nothing is planned on them, and
        // the status bar says why (as `vramfit detect` does).
        let local = match crate::detect::local(found, &self.catalog) {
            Ok(Some(local)) => local,
            Ok(None) => return,
            Err(why) => {
                let why = crate::present::i18n::error(&why);
                self.status = Some(crate::tr!("status.detect_failed", why = why));
                return;
            }
        };
        if let Some((g, _)) = self.local {
            self.catalog.gpus[g] = local.gpu;
            self.local = Some((g, local.count));
        } else {
            self.catalog.gpus.push(local.gpu);
            self.local = Some((self.catalog.gpus.len() - 1, local.count));
        }
        self.local_used_bytes = local.used_bytes;
        self.recompute();
    }
}
