//! The subcommands run: `plan` and `fit` on one scenario, the catalog's tables, `detect`,
//! `accuracy` and the screenshots, each writing to the output it is given.

use std::path::Path;

use super::resolve::{check_provider, load_catalog, resolve_gpu, resolve_model, resolve_rig};
use super::{Cli, CliError, Command, PlanArgs, generate, io_error};
use crate::catalog::Catalog;
use crate::engine::plan;
use crate::engine::verdict::rank::SortBy;
use crate::present::i18n;

/// Run a subcommand, writing its output to `out`.
pub fn run(
    cli: &Cli,
    command: &Command,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    // The shell's and the manual's views need no catalog: a broken user catalog must not
    // stop a completion script from loading.
    let catalog = match command {
        Command::Completions { shell } => return generate::completions(*shell, out),
        Command::Man { page, dir } => return generate::man(page.as_deref(), dir.as_deref(), out),
        _ => load_catalog(&cli.catalog, &cli.offers)?,
    };
    let catalog = match command {
        Command::Plan(args) | Command::Fit(args) => with_ecc(catalog, args.ecc.as_deref()),
        _ => catalog,
    };
    let io = io_error;
    match command {
        // Answered above, before the catalog was read.
        Command::Completions { .. } | Command::Man { .. } => {}
        Command::Plan(args) => run_plan(&catalog, args, cli.hub, out, err)?,
        Command::Fit(args) => run_fit(&catalog, args, cli.hub, out, err)?,
        Command::Table { json } => {
            let text = crate::present::text::lookup_table(&catalog, *json).map_err(CliError)?;
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Models {
            json,
            family,
            search,
            min_params,
            max_params,
        } => {
            let filter = crate::present::text::ModelFilter {
                family: family.as_deref(),
                search: search.as_deref(),
                min_params_b: *min_params,
                max_params_b: *max_params,
            };
            // This machine's models (the Hugging Face cache, `--models-dir`) head the list,
            // as they head the planner's.
            let mut listed = catalog.clone();
            listed
                .models
                .splice(0..0, crate::catalog::local_models(&cli.models_dir));
            let text = crate::present::text::models(&listed, *json, &filter);
            if text.is_empty() {
                return Err(CliError(
                    "no model in the catalog matches; `vramfit models` lists them all".into(),
                ));
            }
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Gpus {
            json,
            search,
            vendor,
            class,
        } => {
            let filter = crate::present::text::GpuFilter {
                search: search.as_deref(),
                vendor: vendor.as_deref(),
                class: class
                    .as_deref()
                    .and_then(crate::engine::hardware::gpu::GpuClass::from_id),
            };
            let text = crate::present::text::gpus(&catalog, *json, &filter);
            if text.is_empty() {
                return Err(CliError(
                    "no card in the catalog matches; `vramfit gpus` lists them all".into(),
                ));
            }
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Detect { json } => {
            let found = crate::detect::detect(&catalog, crate::detect::TOOL_TIMEOUT);
            for n in &found.notes {
                writeln!(err, "{}", i18n::error(&format!("note: {n}"))).map_err(io)?;
            }
            // A tool that failed, or a card no real card is: an error, not "no GPU".
            if let Some(e) = found.error() {
                return Err(CliError(e));
            }
            let text = crate::present::text::detected(&found, *json);
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Accuracy => {
            let rows = crate::accuracy::evaluate(&catalog).map_err(CliError)?;
            out.write_all(crate::accuracy::markdown(&rows).as_bytes())
                .map_err(io)?;
            let speed = crate::accuracy::speed::evaluate(&catalog).map_err(CliError)?;
            out.write_all(crate::accuracy::speed_report::markdown(&speed).as_bytes())
                .map_err(io)?;
        }
        Command::Screenshots { dir } => {
            // Say where, before writing: the default folder is relative to where you stand.
            let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            writeln!(
                out,
                "writing {} screenshots (SVG) into {}",
                crate::tui::states::STATES.len(),
                shown.display()
            )
            .map_err(io)?;
            for (file, about) in write_screenshots(dir)? {
                writeln!(out, "{file}  {about}").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// `vramfit plan`: one scenario against the catalog, as text, JSON or Markdown.
fn run_plan(
    catalog: &Catalog,
    args: &PlanArgs,
    hub: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    let io = io_error;
    if let Some(p) = &args.provider {
        check_provider(catalog, p)?;
    }
    let model = with_mmproj(resolve_model(catalog, &args.model, hub)?, args)?;
    let mut scenario = args.scenario_for(&model)?;
    for w in &model.warnings {
        writeln!(err, "{}", i18n::error(&format!("warning: {w}"))).map_err(io)?;
    }
    // A rig of mixed cards (from --gpu or this machine) is planned as one option.
    let mut rig: Vec<(usize, u32)> = Vec::new();
    let gpus = if args.here {
        let found = crate::detect::detect(catalog, crate::detect::TOOL_TIMEOUT);
        for n in &found.notes {
            writeln!(err, "{}", i18n::error(&format!("note: {n}"))).map_err(io)?;
        }
        let kinds = crate::detect::local_kinds(&found, catalog).map_err(CliError)?;
        if kinds.is_empty() {
            return Err(CliError(
                "no GPU found on this machine (nvidia-smi, rocm-smi, xpu-smi or a Mac's sysctl)".into(),
            ));
        }
        // This machine's RAM and its platform's bandwidth, unless --ram and --ram-bandwidth
        // say otherwise (--ram alone still takes the detected bandwidth).
        let noted = match scenario.host.take() {
            None => crate::detect::this_host(crate::detect::TOOL_TIMEOUT).map(|(h, from)| {
                scenario.host = Some(h);
                from
            }),
            Some(given) if args.ram_bandwidth.is_none() => {
                let platform = crate::detect::this_platform();
                scenario.host = Some(match platform {
                    Some(p) => given.on_platform(p),
                    None => given,
                });
                platform.map(|_| crate::detect::RamFrom::Given)
            }
            given => {
                scenario.host = given;
                None
            }
        };
        if let (Some(from), Some(h)) = (noted, &scenario.host) {
            let note = crate::detect::host_note(h, from);
            writeln!(err, "{}", i18n::error(&format!("note: {note}"))).map_err(io)?;
        }
        // Judge exactly this machine's cards: each kind on its own numbers.
        scenario.cards = kinds.iter().map(|k| k.count).sum();
        if kinds.len() > 1 {
            rig = kinds.iter().enumerate().map(|(i, k)| (i, k.count)).collect();
        }
        std::borrow::Cow::Owned(kinds.into_iter().map(|k| k.gpu).collect())
    } else {
        match &args.gpu {
            Some(id) => {
                let kinds = resolve_rig(catalog, id)?;
                if let [(_, n)] = kinds.as_slice() {
                    // One kind: "2x rtx-3090" is --gpu rtx-3090 --cards 2.
                    if *n > 1 && args.cards.is_none() {
                        scenario.cards = *n;
                    }
                    std::borrow::Cow::Owned(vec![catalog.gpus[kinds[0].0].clone()])
                } else {
                    rig = kinds.iter().enumerate().map(|(i, k)| (i, k.1)).collect();
                    std::borrow::Cow::Owned(kinds.iter().map(|k| catalog.gpus[k.0].clone()).collect())
                }
            }
            // The whole catalog, borrowed: a 10,000-card file is not copied.
            None => std::borrow::Cow::Borrowed(catalog.gpus.as_slice()),
        }
    };
    let sort = args.sort_by();
    if sort == SortBy::Finish && args.train_tokens.is_none() {
        return Err(CliError(
            "--sort finish needs --train-tokens N (and a training --method)".into(),
        ));
    }
    let include_combos =
        !args.no_combos && !args.here && args.gpu.as_deref().is_none_or(|g| !g.contains(['+', ',']));
    // The text table shows one row per card (unless --all): only those rows' limits are
    // solved, the searches being most of a plan's cost (the JSON and Markdown carry all).
    let text_rows_only = !args.json && !args.markdown && !args.all;
    let rows_shown =
        |options: &[crate::engine::FitOption]| crate::engine::verdict::rank::one_row_per_card(options);
    let mut plan = if rig.is_empty() {
        use crate::engine::verdict::plan::{Scope, Solve, plan_in};
        plan_in(
            &model,
            &gpus,
            &scenario,
            &Scope {
                include_combos,
                limits: if text_rows_only {
                    Solve::Rows(&rows_shown)
                } else {
                    Solve::All
                },
                cards: &|_| true,
            },
        )
    } else {
        crate::engine::verdict::rig::plan_rig(&model, &gpus, &rig, &scenario)
    };
    // The plan comes ranked by price.
    if sort != SortBy::Price {
        crate::engine::verdict::rank::rank_options(&mut plan.options, sort);
    }
    if args.markdown {
        out.write_all(crate::present::markdown::plan_markdown(&model, &gpus, &scenario, &plan).as_bytes())
            .map_err(io)?;
    } else if args.json {
        let json = crate::present::json::plan_json(&model, &gpus, &scenario, &plan);
        serde_json::to_writer_pretty(&mut *out, &json).map_err(|e| match e.io_error_kind() {
            Some(kind) => io(kind.into()),
            None => CliError(e.to_string()),
        })?;
        writeln!(out).map_err(io)?;
    } else {
        out.write_all(crate::present::text::plan_text(&model, &gpus, &scenario, &plan, args.all).as_bytes())
            .map_err(io)?;
    }
    Ok(())
}

/// `vramfit fit`: the advice for one target, as text or JSON.
fn run_fit(
    catalog: &Catalog,
    args: &PlanArgs,
    hub: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    use crate::engine::verdict::advise::advise;
    use crate::engine::verdict::changes::Target;
    if let Some(p) = &args.provider {
        check_provider(catalog, p)?;
    }
    let model = with_mmproj(resolve_model(catalog, &args.model, hub)?, args)?;
    let scenario = args.scenario_for(&model)?;
    for w in &model.warnings {
        writeln!(err, "{}", i18n::error(&format!("warning: {w}"))).map_err(io_error)?;
    }
    let gpu = match &args.gpu {
        // A rig of mixed cards: its cards are real ids, but the advice is for one kind.
        Some(id) if id.contains([',', '+']) => {
            resolve_rig(catalog, id)?;
            return Err(CliError(format!(
                "fit advises one kind of card (--gpu ID --cards N); a rig of mixed cards is judged by `vramfit plan --gpu \"{}\"`",
                crate::text::clean_prefix(id, 60)
            )));
        }
        Some(id) => resolve_gpu(catalog, id)?,
        None => {
            // No card named: the plan's own pick (or what comes closest), said on stderr.
            let p = plan(&model, &catalog.gpus, &scenario, true);
            let o = p
                .target()
                .ok_or_else(|| CliError("the catalog has no cards".into()))?;
            let note = format!(
                "note: no --gpu given; advising for {} (the plan's pick)",
                catalog.gpus[o.gpu].id
            );
            writeln!(err, "{}", i18n::error(&note)).map_err(io_error)?;
            o.gpu
        }
    };
    let target = Target {
        gpu,
        count: scenario.cards,
    };
    let advice = advise(&model, &catalog.gpus, &scenario, target);
    // With a target: what would reach it (or reach it for less), each change re-planned.
    let reaches = crate::engine::renting::reach::reachable(&model, &catalog.gpus, &scenario);
    let text = if args.json {
        let mut json = serde_json::to_value(crate::present::advice::advice_json(
            &advice,
            &catalog.gpus,
            &model,
            &scenario,
        ))
        .map_err(|e| CliError(e.to_string()))?;
        if scenario.target.is_set() {
            let list: Vec<_> = reaches
                .iter()
                .map(|r| crate::present::target_text::reach_json(&catalog.gpus, r))
                .collect();
            json["target_remedies"] = serde_json::to_value(list).map_err(|e| CliError(e.to_string()))?;
            json["target_check"] =
                serde_json::to_value(crate::present::json::target_json(advice.now.target.as_ref()))
                    .map_err(|e| CliError(e.to_string()))?;
        }
        serde_json::to_string_pretty(&json).map_err(|e| CliError(e.to_string()))? + "\n"
    } else {
        let mut text = crate::present::advice::advice_text(&advice, &catalog.gpus, &scenario, &model.name);
        if let Some(line) = crate::present::target_text::target_line(&scenario) {
            let cell = crate::present::target_text::cell(advice.now.target.as_ref());
            text.push_str(&format!("\n{line}: {cell}\n"));
        }
        let asked = crate::engine::renting::reach::as_asked(&model, &catalog.gpus, &scenario);
        text.push_str(&crate::present::target_text::remedies_text(
            &catalog.gpus,
            &scenario,
            asked,
            &reaches,
        ));
        text
    };
    out.write_all(text.as_bytes()).map_err(io_error)
}

/// Draw every named state to `<dir>/<name>.svg`, writing each file atomically.
pub fn write_screenshots(dir: &Path) -> Result<Vec<(String, &'static str)>, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: {e}", dir.display())))?;
    let mut written = Vec::new();
    for state in crate::tui::states::STATES {
        let (app, buf) = crate::tui::states::render_state(state);
        let svg = crate::tui::svg::buffer_to_svg(&buf, app.theme.preview_fg, app.theme.preview_bg);
        let path = dir.join(format!("{}.svg", state.name));
        crate::files::write_atomic(&path, svg.as_bytes())
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        written.push((path.display().to_string(), state.about));
    }
    Ok(written)
}

/// The catalog as `--ecc on|off` plans it: each card whose total ECC changes, moved to that
/// setting (`Gpu::with_ecc`); the others as they are.
fn with_ecc(mut catalog: Catalog, ecc: Option<&str>) -> Catalog {
    let want = match ecc {
        Some("on") => crate::engine::hardware::gpu::EccState::On,
        Some("off") => crate::engine::hardware::gpu::EccState::Off,
        _ => return catalog,
    };
    for g in &mut catalog.gpus {
        if let Some(changed) = g.with_ecc(want) {
            *g = changed;
        }
    }
    catalog
}

/// The model with the image encoder of `--mmproj FILE`, when one is given.
fn with_mmproj(mut model: crate::engine::Model, args: &PlanArgs) -> Result<crate::engine::Model, CliError> {
    if let Some(path) = &args.mmproj {
        model.vision = Some(crate::catalog::mmproj::mmproj_vision(path)?);
    }
    Ok(model)
}
