//! Themes: TOML files (embedded in `themes/`, or the user's `<config>/themes/`), resolved to
//! ratatui styles. Every bar segment has its own glyph, so nothing depends on colour alone.

use std::path::Path;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::catalog::FileError;
use crate::engine::SegmentKind;

/// Built-in themes, by name.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("high-contrast", include_str!("../../themes/high-contrast.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// A bar segment's look.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentLook {
    #[serde(default)]
    pub style: Style,
    pub symbol: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BarFile {
    weights: Option<SegmentLook>,
    kv_cache: Option<SegmentLook>,
    activations: Option<SegmentLook>,
    gradients: Option<SegmentLook>,
    optimizer: Option<SegmentLook>,
    adapter: Option<SegmentLook>,
    overhead: Option<SegmentLook>,
    free: Option<SegmentLook>,
    overflow: Option<Style>,
    capacity: Option<Style>,
    margin: Option<Style>,
}

/// A theme file as written: every field optional, so a user theme can `extends` another.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    extends: Option<String>,
    text: Option<Style>,
    dim: Option<Style>,
    title: Option<Style>,
    border: Option<Style>,
    border_focused: Option<Style>,
    header: Option<Style>,
    cursor: Option<Style>,
    key: Option<Style>,
    fits: Option<Style>,
    tight: Option<Style>,
    no: Option<Style>,
    status: Option<Style>,
    /// Colours an exported screenshot uses where the terminal's own are meant.
    preview_fg: Option<Color>,
    preview_bg: Option<Color>,
    #[serde(default)]
    bar: BarFile,
}

/// A fully resolved theme.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub text: Style,
    pub dim: Style,
    pub title: Style,
    pub border: Style,
    pub border_focused: Style,
    pub header: Style,
    pub cursor: Style,
    pub key: Style,
    pub fits: Style,
    pub tight: Style,
    pub no: Style,
    pub status: Style,
    pub preview_fg: Color,
    pub preview_bg: Color,
    /// Indexed like [`SegmentKind::ALL`].
    pub segments: Vec<SegmentLook>,
    pub free: SegmentLook,
    pub overflow: Style,
    pub capacity: Style,
    pub margin: Style,
}

impl Theme {
    pub fn segment(&self, kind: SegmentKind) -> &SegmentLook {
        let i = SegmentKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        &self.segments[i]
    }

    /// A built-in theme by name.
    pub fn embedded(name: &str) -> Result<Theme, FileError> {
        resolve_name(name, None, 0)
    }

    /// A theme from its TOML text (`extends` resolves among the built-ins only).
    pub fn parse(file: &str, source: &str) -> Result<Theme, FileError> {
        resolve_source(file, file, source, None, 0)
    }

    pub fn names() -> Vec<&'static str> {
        EMBEDDED.iter().map(|(n, _)| *n).collect()
    }

    /// `--theme` value: a path to a TOML file, or a name looked up in the user's theme
    /// folder, then among the built-ins.
    pub fn load(spec: &str, user_dir: Option<&Path>) -> Result<Theme, FileError> {
        let path = Path::new(spec);
        if spec.ends_with(".toml") || path.is_file() {
            let shown = path.display().to_string();
            let source = crate::files::read_text(path, crate::files::MAX_TOML_BYTES)
                .map_err(|e| FileError::new(&shown, e))?;
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or(spec)
                .to_string();
            return resolve_source(&stem, &shown, &source, user_dir, 0);
        }
        resolve_name(spec, user_dir, 0)
    }
}

/// A theme's name: letters, digits, `-` and `_` only, so it can never reach outside the
/// themes folder (`extends = "../../etc/x"` or an absolute path are refused).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn resolve_name(name: &str, user_dir: Option<&Path>, depth: u8) -> Result<Theme, FileError> {
    if !is_plain_name(name) {
        return Err(FileError::new(
            crate::text::clean_prefix(name, 60),
            format!(
                "a theme is named by letters, digits, '-' and '_' (a built-in: {}, or one in the themes folder)",
                Theme::names().join(", ")
            ),
        ));
    }
    if let Some(dir) = user_dir {
        let path = dir.join(format!("{name}.toml"));
        if path.is_file() {
            let shown = path.display().to_string();
            let source = crate::files::read_text(&path, crate::files::MAX_TOML_BYTES)
                .map_err(|e| FileError::new(&shown, e))?;
            return resolve_source(name, &shown, &source, user_dir, depth);
        }
    }
    match EMBEDDED.iter().find(|(n, _)| *n == name) {
        Some((n, source)) => resolve_source(n, &format!("themes/{n}.toml"), source, None, depth),
        None => Err(FileError::new(
            name,
            format!(
                "unknown theme '{name}'; built-in themes: {}",
                Theme::names().join(", ")
            ),
        )),
    }
}

fn resolve_source(
    name: &str,
    file: &str,
    source: &str,
    user_dir: Option<&Path>,
    depth: u8,
) -> Result<Theme, FileError> {
    let parsed: ThemeFile = toml::from_str(source).map_err(|e| FileError::from_toml(file, source, &e))?;
    let base = match &parsed.extends {
        Some(parent) if !is_plain_name(parent) => {
            return Err(at_field(
                file,
                source,
                "extends",
                "extends names a built-in theme or one in the themes folder, not a path".into(),
            ));
        }
        Some(parent) if depth < 4 => Some(resolve_name(parent, user_dir, depth + 1)?),
        Some(_) => {
            return Err(at_field(
                file,
                source,
                "extends",
                "themes extend each other too deeply (a cycle?)".into(),
            ));
        }
        None => None,
    };
    complete(name, file, source, parsed, base)
}

/// An error at the first `field =` of the theme's text (the file's start if not written).
fn at_field(file: &str, source: &str, field: &str, message: String) -> FileError {
    let offset = source
        .match_indices(field)
        .find(|(i, _)| {
            source[i + field.len()..]
                .trim_start()
                .starts_with(['=', '.', ']'])
        })
        .map_or(0, |(i, _)| i);
    FileError::at_offset(file, source, offset, message)
}

/// A bar glyph: one printable character one cell wide (no control character can reach
/// the terminal or an SVG through a theme).
fn is_glyph(symbol: &str) -> bool {
    let mut chars = symbol.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if !c.is_control())
        && ratatui::text::Span::raw(symbol).width() == 1
}

fn complete(
    name: &str,
    file: &str,
    source: &str,
    f: ThemeFile,
    base: Option<Theme>,
) -> Result<Theme, FileError> {
    let missing = |field: &str| {
        FileError::at_offset(
            file,
            source,
            0,
            format!("theme lacks '{field}' and extends no theme"),
        )
    };
    macro_rules! pick {
        ($field:ident) => {
            match (f.$field, &base) {
                (Some(v), _) => v,
                (None, Some(b)) => b.$field.clone(),
                (None, None) => return Err(missing(stringify!($field))),
            }
        };
    }
    macro_rules! bar_pick {
        ($field:ident) => {
            match (f.bar.$field, &base) {
                (Some(v), _) => v,
                (None, Some(b)) => b.$field.clone(),
                (None, None) => return Err(missing(concat!("bar.", stringify!($field)))),
            }
        };
    }
    let seg = |look: Option<SegmentLook>, kind: SegmentKind| -> Result<SegmentLook, FileError> {
        match (look, &base) {
            (Some(v), _) => Ok(v),
            (None, Some(b)) => Ok(b.segment(kind).clone()),
            (None, None) => Err(missing(&format!("bar.{}", kind.id()))),
        }
    };
    let segments = vec![
        seg(f.bar.weights, SegmentKind::Weights)?,
        seg(f.bar.kv_cache, SegmentKind::KvCache)?,
        seg(f.bar.activations, SegmentKind::Activations)?,
        seg(f.bar.gradients, SegmentKind::Gradients)?,
        seg(f.bar.optimizer, SegmentKind::Optimizer)?,
        seg(f.bar.adapter, SegmentKind::Adapter)?,
        seg(f.bar.overhead, SegmentKind::Overhead)?,
    ];
    let free: SegmentLook = bar_pick!(free);
    let looks = segments
        .iter()
        .zip(SegmentKind::ALL.iter().map(|k| k.id()))
        .chain([(&free, "free")]);
    for (look, id) in looks {
        if !is_glyph(&look.symbol) {
            return Err(at_field(
                file,
                source,
                id,
                format!(
                    "bar.{id}.symbol must be one printable character one cell wide, got {:?}",
                    crate::text::clean_prefix(&look.symbol, 8)
                ),
            ));
        }
    }
    Ok(Theme {
        name: name.to_string(),
        text: pick!(text),
        dim: pick!(dim),
        title: pick!(title),
        border: pick!(border),
        border_focused: pick!(border_focused),
        header: pick!(header),
        cursor: pick!(cursor),
        key: pick!(key),
        fits: pick!(fits),
        tight: pick!(tight),
        no: pick!(no),
        status: pick!(status),
        preview_fg: pick!(preview_fg),
        preview_bg: pick!(preview_bg),
        segments,
        free,
        overflow: bar_pick!(overflow),
        capacity: bar_pick!(capacity),
        margin: bar_pick!(margin),
    })
}

/// Whether any style of the theme sets a colour (the mono theme must not).
pub fn uses_color(theme: &Theme) -> bool {
    let styles = [
        theme.text,
        theme.dim,
        theme.title,
        theme.border,
        theme.border_focused,
        theme.header,
        theme.cursor,
        theme.key,
        theme.fits,
        theme.tight,
        theme.no,
        theme.status,
        theme.free.style,
        theme.overflow,
        theme.capacity,
        theme.margin,
    ];
    styles
        .iter()
        .chain(theme.segments.iter().map(|s| &s.style))
        .any(|s| s.fg.is_some() || s.bg.is_some())
}

/// A bold variant, used for emphasis where the theme gives no colour.
pub fn emphasis(style: Style) -> Style {
    style.add_modifier(Modifier::BOLD)
}
