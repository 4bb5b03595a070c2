//! Theme files: the built-ins parse; a broken one is reported with file, line and column.

use vramfit::tui::theme::{Theme, uses_color};

#[test]
fn every_embedded_theme_parses() {
    for name in Theme::names() {
        let t = Theme::embedded(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.segments.len(), 7);
        assert_eq!(uses_color(&t), name != "mono", "{name}");
    }
    assert!(Theme::names().len() >= 4);
}

fn write(name: &str, content: &str) -> std::path::PathBuf {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("themes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn a_broken_theme_gives_file_line_and_column() {
    let p = write(
        "broken.toml",
        "extends = \"default\"\ntitle = { fg = \"not-a-colour\" }\n",
    );
    let e = Theme::load(p.to_str().unwrap(), None).unwrap_err();
    assert_eq!((e.line, e.column), (Some(2), Some(16)), "{e}");
    assert!(e.to_string().contains("broken.toml:2:16"), "{e}");

    let p = write("syntax.toml", "text = {\n");
    let e = Theme::load(p.to_str().unwrap(), None).unwrap_err();
    assert!(e.to_string().contains("syntax.toml:"), "{e}");

    let p = write("unknown.toml", "extends = \"default\"\nwallpaper = {}\n");
    let e = Theme::load(p.to_str().unwrap(), None).unwrap_err();
    assert!(
        e.to_string()
            .contains("unknown.toml:2:1: unknown field `wallpaper`"),
        "{e}"
    );
}

#[test]
fn a_partial_theme_extends_another() {
    let p = write("mine.toml", "extends = \"light\"\ntitle = { fg = \"#ff0000\" }\n");
    let t = Theme::load(p.to_str().unwrap(), None).unwrap();
    let light = Theme::embedded("light").unwrap();
    assert_eq!(t.text, light.text);
    assert_ne!(t.title, light.title);
}

#[test]
fn a_theme_without_a_base_must_be_complete() {
    let p = write("partial.toml", "title = { fg = \"red\" }\n");
    let e = Theme::load(p.to_str().unwrap(), None).unwrap_err();
    assert!(e.message.contains("lacks"), "{e}");
}

#[test]
fn an_unknown_theme_name_lists_the_built_ins() {
    let e = Theme::load("solarized", None).unwrap_err();
    assert!(e.message.contains("default, light, high-contrast, mono"), "{e}");
}

#[test]
fn the_user_theme_folder_is_searched_by_name() {
    let p = write("meeting.toml", "extends = \"high-contrast\"\n");
    let t = Theme::load("meeting", p.parent()).unwrap();
    assert_eq!(t.name, "meeting");
}
