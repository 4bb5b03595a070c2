//! The workload pane's rows as the planner shows them: which knobs the method and runtime
//! have, each one's value in words, and turning one.

use super::App;
use super::Knob;
use crate::engine::Scenario;

impl App {
    /// The knob rows shown for the current method.
    pub fn knobs(&self) -> Vec<Knob> {
        let vision = self.current_model().vision.is_some();
        Knob::for_scenario(&self.scenario)
            .into_iter()
            // Images are a vision-language model's row alone.
            .filter(|k| *k != Knob::Images || vision)
            .collect()
    }

    pub(super) fn recompute(&mut self) {
        // A model from a checkpoint brings its stored format as the default weights (every
        // path that changes the model comes through here); the user's choice still wins.
        let stored = self.current_model().default_format();
        if stored != self.scenario.stored_weights {
            self.scenario.stored_weights = stored;
            crate::tui::knobs::settle(&mut self.scenario, &self.user);
        }
        // The engine's one images rule (the command line refuses the same request): a turn of
        // Images or Context, a model switch or a plan file that leaves no room for text lowers
        // the images to the most that fit, and says so.
        if let Err(overflow) =
            crate::engine::memory::images::check_context(self.current_model(), &self.scenario)
        {
            self.scenario.images = overflow.most_that_fit;
            self.status = Some(crate::tr!(
                "status.images_lowered",
                images = overflow.images,
                per_image = overflow.tokens_per_image,
                context = crate::engine::basics::units::group_thousands(overflow.context as i64),
                fit = overflow.most_that_fit
            ));
        }
        self.plan = self.plan_shown_rows();
        // This machine's cards count as exactly as many as it has.
        if let Some((g, n)) = self.local {
            self.plan.options.retain(|o| o.gpu != g);
            let sc = Scenario {
                cards: n,
                ..self.scenario.clone()
            };
            let gpu = &self.catalog.gpus[g];
            let (option, _) = crate::engine::verdict::advise::judge(self.current_model(), gpu, g, n, &sc);
            self.plan.options.push(option);
        }
        // A rig of cards the user put together: one option, judged by its placement.
        if !self.rig.is_empty() {
            let rig = crate::engine::verdict::rig::plan_rig(
                self.current_model(),
                &self.catalog.gpus,
                &self.rig,
                &self.scenario,
            );
            self.plan.options.extend(rig.options);
        }
        // The plan comes ranked by price; another ranking, or this machine's option or a
        // rig added last, is ranked here.
        if self.sort_by != crate::engine::verdict::rank::SortBy::Price
            || self.local.is_some()
            || !self.rig.is_empty()
        {
            crate::engine::verdict::rank::rank_options(&mut self.plan.options, self.sort_by);
        }
        self.refresh_other();
        let k = self.knobs().len();
        if self.knob >= k {
            self.knob = k - 1;
        }
        let n = self.bar_segments().len();
        if self.segment >= n {
            self.segment = n.saturating_sub(1);
        }
    }

    /// Change one knob one step and re-plan.
    pub fn change(&mut self, knob: Knob, up: bool) {
        knob.turn(&mut self.scenario, &mut self.sort_by, &mut self.user, up);
        self.recompute();
    }

    /// Value text of a knob, for the workload pane.
    pub fn knob_value(&self, knob: Knob) -> String {
        // Values the runtime reads off the card (vLLM's batch, SGLang's chunk and fraction):
        // the card the bar is drawn against runs its own, and the row says so.
        if let Some(o) = self.target() {
            let sc = &self.scenario;
            let here = |text: String| format!("{text}{}", crate::tr!("tui.on_this_card"));
            match (knob, o.batch_defaults) {
                (Knob::MaxBatchedTokens, Some((tokens, _))) if tokens != sc.max_batched_tokens => {
                    return here(crate::tr!(
                        "tui.max_batched_tokens",
                        n = crate::engine::basics::units::group_thousands(tokens as i64)
                    ));
                }
                (Knob::MaxNumSeqs, Some((_, seqs))) if seqs != sc.max_num_seqs => {
                    return here(seqs.to_string());
                }
                _ => {}
            }
            if knob == Knob::Context && o.context != sc.context {
                return here(crate::engine::basics::units::group_thousands(o.context as i64));
            }
            if knob == Knob::GpuUtil && o.rig.is_empty() {
                let card =
                    crate::engine::runtimes::settle::gpu_util_for(sc, &self.catalog.gpus[o.gpu], o.count);
                if (card - sc.gpu_util_on(sc.cards)).abs() > 1e-9 {
                    return here(format!("{:.0} %", card * 100.0));
                }
            }
        }
        knob.value(&self.scenario, self.sort_by)
    }
}
