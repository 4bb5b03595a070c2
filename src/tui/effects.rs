//! The planner's effects: writing plan files and exports. Kept out of the state update, so
//! `App` stays pure state and the only module that both reads state and writes files is here.

use ratatui::layout::Rect;

use super::app::{App, Effect};
use crate::engine::Choice;

/// Carry out what the last update asked for, if anything. Returns whether it did.
pub fn perform(app: &mut App) -> bool {
    match app.effect.take() {
        Some(Effect::Save) => save(app),
        Some(Effect::Export) => export(app),
        None => return false,
    }
    true
}

fn file_stem(app: &App) -> String {
    crate::planfile::slug(&[
        &app.current_model().id,
        app.scenario.method.id(),
        app.scenario.weights.id(),
    ])
}

/// Save the plan as TOML in the data folder, atomically, under a name no earlier save has;
/// the status line says where.
fn save(app: &mut App) {
    let Some(dir) = app.data_dir.as_ref().map(|d| d.join("plans")) else {
        app.status = Some(crate::tr!("status.no_data_save"));
        return;
    };
    let stem = file_stem(app);
    // Each save is a new file: a second save of the same model and method keeps the first.
    let result = std::fs::create_dir_all(&dir).and_then(|_| app.plan_file().save_new(&dir, &stem));
    app.status = Some(match result {
        Ok(path) => crate::tr!("status.saved", path = path.display()),
        Err(e) => crate::tr!(
            "status.cannot_save",
            path = dir.join(format!("{stem}.toml")).display(),
            error = e
        ),
    });
}

/// Export the screen as SVG and the plan as Markdown into the data folder.
fn export(app: &mut App) {
    let Some(dir) = app.data_dir.as_ref().map(|d| d.join("exports")) else {
        app.status = Some(crate::tr!("status.no_data_export"));
        return;
    };
    let area = if app.last_area.width > 0 {
        app.last_area
    } else {
        Rect::new(0, 0, 120, 40)
    };
    let buf = super::ui::render_to_buffer(app, area.width, area.height);
    let svg = super::svg::buffer_to_svg(&buf, app.theme.preview_fg, app.theme.preview_bg);
    let md = crate::present::markdown::plan_markdown(
        app.current_model(),
        &app.catalog.gpus,
        &app.scenario,
        &app.plan,
    );
    let stem = file_stem(app);
    // Like saves, each export is new: the SVG takes a free name and the Markdown its stem.
    let result = std::fs::create_dir_all(&dir)
        .and_then(|_| crate::files::write_new(&dir, &stem, "svg", svg.as_bytes()))
        .and_then(|svg_path| {
            crate::files::write_atomic(&svg_path.with_extension("md"), md.as_bytes()).map(|()| svg_path)
        });
    app.status = Some(match result {
        Ok(svg_path) => crate::tr!("status.exported", path = svg_path.display()),
        Err(e) => crate::tr!("status.cannot_export", path = dir.display(), error = e),
    });
}
