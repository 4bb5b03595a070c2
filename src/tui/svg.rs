//! Render a ratatui buffer to SVG: monospace text runs on coloured rectangles. Used for
//! `screenshots/` and for exporting the current view.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CELL_W: f64 = 9.0;
const CELL_H: f64 = 18.0;
const FONT_SIZE: f64 = 15.0;

/// The xterm palette for the 16 named colours.
fn named(c: Color) -> Option<&'static str> {
    Some(match c {
        Color::Black => "#000000",
        Color::Red => "#cd3131",
        Color::Green => "#0dbc79",
        Color::Yellow => "#e5e510",
        Color::Blue => "#2472c8",
        Color::Magenta => "#bc3fbc",
        Color::Cyan => "#11a8cd",
        Color::Gray => "#c0c0c0",
        Color::DarkGray => "#767676",
        Color::LightRed => "#f14c4c",
        Color::LightGreen => "#23d18b",
        Color::LightYellow => "#f5f543",
        Color::LightBlue => "#3b8eea",
        Color::LightMagenta => "#d670d6",
        Color::LightCyan => "#29b8db",
        Color::White => "#ffffff",
        _ => return None,
    })
}

/// A colour as `#rrggbb`; `Reset` becomes `default`.
pub fn hex(c: Color, default: Color) -> String {
    match c {
        Color::Reset => hex(default, Color::Black),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) => indexed(i),
        other => named(other).unwrap_or("#808080").to_string(),
    }
}

fn indexed(i: u8) -> String {
    const BASE: [Color; 16] = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match i {
        0..=15 => named(BASE[i as usize]).unwrap_or("#808080").to_string(),
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(n / 36),
                level((n / 6) % 6),
                level(n % 6)
            )
        }
        _ => {
            let g = 8 + (i - 232) * 10;
            format!("#{g:02x}{g:02x}{g:02x}")
        }
    }
}

/// XML text: the three markup characters escaped, control characters (invalid in XML 1.0,
/// and never meant to be drawn) replaced by U+FFFD.
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Monospace faces first, then faces with Chinese glyphs (Linux, macOS, Windows), so a
/// Chinese screen draws in whichever the viewer has.
const FONTS: &str = "DejaVu Sans Mono, Menlo, Consolas, 'Noto Sans Mono CJK SC', 'Noto Sans CJK SC', \
                     'Source Han Sans SC', 'WenQuanYi Zen Hei Mono', 'PingFang SC', 'Microsoft YaHei', monospace";

/// The buffer as an SVG document. `fg`/`bg` stand for the terminal's own colours.
pub fn buffer_to_svg(buf: &Buffer, fg: Color, bg: Color) -> String {
    let area = buf.area;
    let width = f64::from(area.width) * CELL_W;
    let height = f64::from(area.height) * CELL_H;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONTS}" font-size="{FONT_SIZE}">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" fill="{}"/>"#,
        hex(bg, Color::Black)
    );
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(area.x + x, area.y + y)];
            let key = (cell.fg, cell.bg, cell.modifier);
            let start = x;
            let mut text = String::new();
            while x < area.width {
                let c = &buf[(area.x + x, area.y + y)];
                if (c.fg, c.bg, c.modifier) != key {
                    break;
                }
                let sym = c.symbol();
                text.push_str(sym);
                // A wide (CJK) character covers the next cell too; that cell draws nothing.
                x += (crate::text::width(sym) as u16).clamp(1, area.width - x);
            }
            let (mut f, mut b) = (hex(key.0, fg), hex(key.1, bg));
            if key.2.contains(Modifier::REVERSED) {
                std::mem::swap(&mut f, &mut b);
            }
            let px = f64::from(start) * CELL_W;
            let py = f64::from(y) * CELL_H;
            let run = f64::from(x - start) * CELL_W;
            if b != hex(bg, Color::Black) {
                let _ = writeln!(
                    out,
                    r#"<rect x="{px}" y="{py}" width="{run}" height="{CELL_H}" fill="{b}"/>"#
                );
            }
            if text.trim().is_empty() {
                continue;
            }
            let mut attrs = String::new();
            if key.2.contains(Modifier::BOLD) {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if key.2.contains(Modifier::DIM) {
                attrs.push_str(r#" opacity="0.6""#);
            }
            if key.2.contains(Modifier::UNDERLINED) {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            if key.2.contains(Modifier::ITALIC) {
                attrs.push_str(r#" font-style="italic""#);
            }
            let _ = writeln!(
                out,
                r#"<text x="{px}" y="{:.1}" fill="{f}" textLength="{run}" lengthAdjust="spacingAndGlyphs" xml:space="preserve"{attrs}>{}</text>"#,
                py + CELL_H * 0.78,
                escape(&text)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn writes_text_runs_and_backgrounds() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "ab<", Style::default().fg(Color::Red));
        buf.set_string(3, 0, "cd", Style::default().bg(Color::Rgb(1, 2, 3)));
        let svg = buffer_to_svg(&buf, Color::White, Color::Black);
        assert!(
            svg.contains(r##"fill="#cd3131""##) && svg.contains("ab&lt;"),
            "{svg}"
        );
        assert!(
            svg.contains(r##"<rect x="27" y="0" width="18" height="18" fill="#010203"/>"##),
            "{svg}"
        );
        assert_eq!(indexed(196), "#ff0000");
        // A Chinese word: one character per two cells, and a font that has it.
        let mut buf = Buffer::empty(Rect::new(0, 0, 7, 1));
        buf.set_string(0, 0, "显存 ok", Style::default());
        let svg = buffer_to_svg(&buf, Color::White, Color::Black);
        assert!(svg.contains(">显存 ok</text>"), "{svg}");
        assert!(svg.contains("Noto Sans CJK SC"), "{svg}");
        assert_eq!(indexed(244), "#808080");
    }
}
