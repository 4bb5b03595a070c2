//! Importing a model from the planner's models pane: typed text that no listed model
//! matches, a path or an `org/name`, read as the command line reads it and planned.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vramfit::tui::app::App;
use vramfit::tui::keymap::action_for;
use vramfit::tui::states::fresh_app;

fn press(app: &mut App, code: KeyCode) -> bool {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    match action_for(&key, app.filtering) {
        Some(a) => vramfit::tui::handle(app, a),
        None => false,
    }
}

fn type_filter(app: &mut App, text: &str) {
    press(app, KeyCode::Char('/'));
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// What the event loop does with a request: read it (here on this thread) and hand it back.
fn finish_import(app: &mut App) {
    let wanted = app.take_import_request().expect("an import was asked for");
    let found = vramfit::catalog::import::find_model(&app.catalog, &wanted, app.hub);
    app.imported(&wanted, found);
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/hf/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_config_folder_typed_in_the_filter_is_imported_and_planned() {
    let mut app = fresh_app("default");
    let path = fixture("olmo-2-1124-7b");
    type_filter(&mut app, &path);
    assert!(app.visible_models().is_empty());
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.importing.as_deref(), Some(path.as_str()));
    assert!(
        app.status.as_deref().unwrap().starts_with("importing "),
        "{:?}",
        app.status
    );
    finish_import(&mut app);
    // The model the command line reads from the same folder, selected and planned.
    let cli = vramfit::catalog::import::find_model(&app.catalog, &path, false).unwrap();
    assert_eq!(app.current_model().params().total, cli.params().total);
    assert!(app.filter.is_empty() && app.importing.is_none());
    assert!(app.status.as_deref().unwrap().starts_with("imported "));
    // The planner's plan is the command line's plan of that model.
    let plan = vramfit::engine::plan(&cli, &app.catalog.gpus, &app.scenario, true);
    assert_eq!(plan.options.len(), app.plan.options.len());
    assert_eq!(plan.total_bytes(), app.plan.total_bytes());
}

#[test]
fn a_broken_config_says_what_the_command_line_says() {
    let mut app = fresh_app("default");
    let path = fixture("malformed");
    type_filter(&mut app, &path);
    let before = app.current_model().id.clone();
    press(&mut app, KeyCode::Enter);
    finish_import(&mut app);
    let cli = vramfit::catalog::import::find_model(&app.catalog, &path, false).unwrap_err();
    let status = app.status.clone().unwrap();
    assert!(status.starts_with("cannot import "), "{status}");
    assert_eq!(app.import_error.as_deref(), Some(cli.as_str()));
    assert!(cli.contains("config.json:"), "{cli}");
    assert_eq!(app.current_model().id, before, "the plan stays as it was");
    // Text that is neither a model nor something to import: said, nothing asked.
    let mut app = fresh_app("default");
    type_filter(&mut app, "zzzz");
    press(&mut app, KeyCode::Enter);
    assert!(app.take_import_request().is_none());
    assert!(
        app.status
            .as_deref()
            .unwrap()
            .contains("is no path, .gguf file or org/name")
    );
    // A filter that matches models: Enter only stops typing.
    let mut app = fresh_app("default");
    type_filter(&mut app, "qwen");
    press(&mut app, KeyCode::Enter);
    assert!(app.take_import_request().is_none() && !app.filtering);
}

/// A family read from its config alone shows its stated bound on screen, the one the JSON
/// gives (`params_error_bound`), not only in a warning.
#[test]
fn an_unknown_family_shows_its_bound_in_the_title() {
    let mut app = fresh_app("default");
    let path = fixture("unknown-arch");
    type_filter(&mut app, &path);
    press(&mut app, KeyCode::Enter);
    finish_import(&mut app);
    let bound = app
        .current_model()
        .params_error_bound()
        .expect("an unknown family");
    let screen = vramfit::tui::states::render(&mut app, 160, 48);
    let title: String = (0..160).map(|x| screen[(x, 0)].symbol()).collect();
    let shown = format!("unknown family: ±{:.0} %", (bound * 100.0).ceil());
    assert!(title.contains(&shown), "{title} / {shown}");
    // The JSON states the same bound.
    let out = assert_cmd::Command::cargo_bin("vramfit")
        .unwrap()
        .env("VRAMFIT_CONFIG", "/nonexistent")
        .args(["plan", "--model", &path, "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["model"]["params_error_bound"].as_f64(), Some(bound));
    // A described family shows none.
    let mut app = fresh_app("default");
    let screen = vramfit::tui::states::render(&mut app, 160, 48);
    let title: String = (0..160).map(|x| screen[(x, 0)].symbol()).collect();
    assert!(!title.contains("unknown family"), "{title}");
}
