//! The terminal's input bytes, turned into crossterm events by a parser of our own.
//!
//! crossterm 0.29's parser keeps an unfinished escape sequence for as long as it takes to
//! finish: after `ESC [ ?` (part of a pasted sequence) it waits for a `c` or a `u` and
//! swallows every key meanwhile, q, Esc and Ctrl-C included (`parse_csi` answers "more
//! bytes" for anything else, and nothing drops its buffer). It offers no way to bound that
//! wait or to clear its buffer, so on Unix the planner reads the terminal itself:
//! - a sequence ends where ECMA-48 says it does (a final byte 0x40–0x7E), so `ESC [ ? q`
//!   is one unknown sequence, dropped, never a pending one;
//! - a control byte or ESC inside a sequence ends it and counts on its own, so Ctrl-C and
//!   Esc always get through;
//! - a sequence still unfinished [`PENDING_TIMEOUT`] after its last byte is dropped (a lone
//!   ESC then is the Esc key).
//!
//! The mapping from bytes to keys follows crossterm's (`event/sys/unix/parse.rs`) for the
//! keys and mouse reports the planner uses.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use std::time::Duration;

/// How long an unfinished sequence may wait for its next byte. A terminal (or tmux, or
/// ssh) sends one sequence in one write; its bytes arrive together, far within this.
pub const PENDING_TIMEOUT: Duration = Duration::from_millis(100);

/// The longest sequence kept; anything longer is no key or mouse report.
const MAX_SEQUENCE: usize = 64;

/// Bytes in, events out; keeps the bytes of one unfinished sequence between reads.
#[derive(Debug, Default)]
pub struct Parser {
    pending: Vec<u8>,
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// What the bytes at the start of `buf` are.
enum Step {
    /// `n` bytes made this event (or nothing worth reporting).
    Done(usize, Option<Event>),
    /// The bytes so far begin a sequence that is not finished.
    Incomplete,
}

impl Parser {
    /// Whether bytes of an unfinished sequence wait for more.
    pub fn pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The events in `bytes` (with what was pending before them). A lone ESC at the end of
    /// a read is the Esc key, as crossterm has it: a terminal sends a sequence's bytes in
    /// one write.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut at = 0;
        while at < self.pending.len() {
            let rest = &self.pending[at..];
            match parse(rest) {
                Step::Done(n, event) => {
                    events.extend(event);
                    at += n.max(1);
                }
                Step::Incomplete if rest == [0x1B] => {
                    events.push(key(KeyCode::Esc, KeyModifiers::NONE));
                    at += 1;
                }
                Step::Incomplete if rest.len() > MAX_SEQUENCE => at += rest.len(),
                Step::Incomplete => break,
            }
        }
        self.pending.drain(..at);
        events
    }

    /// The time is up for what is pending: a lone ESC is the Esc key, anything else an
    /// unfinished sequence, dropped.
    pub fn timeout(&mut self) -> Vec<Event> {
        let lone_esc = self.pending == [0x1B];
        self.pending.clear();
        if lone_esc {
            vec![key(KeyCode::Esc, KeyModifiers::NONE)]
        } else {
            Vec::new()
        }
    }
}

fn parse(buf: &[u8]) -> Step {
    match buf[0] {
        0x1B => parse_escape(buf),
        b'\r' | b'\n' => Step::Done(1, Some(key(KeyCode::Enter, KeyModifiers::NONE))),
        b'\t' => Step::Done(1, Some(key(KeyCode::Tab, KeyModifiers::NONE))),
        0x7F => Step::Done(1, Some(key(KeyCode::Backspace, KeyModifiers::NONE))),
        0x00 => Step::Done(1, Some(key(KeyCode::Char(' '), KeyModifiers::CONTROL))),
        c @ 0x01..=0x1A => Step::Done(
            1,
            Some(key(KeyCode::Char((c - 1 + b'a') as char), KeyModifiers::CONTROL)),
        ),
        c @ 0x1C..=0x1F => Step::Done(
            1,
            Some(key(
                KeyCode::Char((c - 0x1C + b'4') as char),
                KeyModifiers::CONTROL,
            )),
        ),
        _ => parse_char(buf),
    }
}

/// One UTF-8 character (uppercase letters carry SHIFT, as crossterm reports them).
fn parse_char(buf: &[u8]) -> Step {
    let len = match buf[0] {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        // A stray continuation byte or an invalid lead: nothing.
        _ => return Step::Done(1, None),
    };
    if buf.len() < len {
        // A continuation that is not one ends the character early: drop what came.
        if buf[1..].iter().any(|b| b & 0xC0 != 0x80) {
            return Step::Done(1, None);
        }
        return Step::Incomplete;
    }
    match std::str::from_utf8(&buf[..len])
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => {
            let modifiers = if c.is_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            Step::Done(len, Some(key(KeyCode::Char(c), modifiers)))
        }
        None => Step::Done(1, None),
    }
}

fn parse_escape(buf: &[u8]) -> Step {
    let Some(&second) = buf.get(1) else {
        return Step::Incomplete;
    };
    match second {
        b'[' => parse_csi(buf),
        b'O' => match buf.get(2) {
            None => Step::Incomplete,
            Some(&c) => {
                let code = match c {
                    b'A' => Some(KeyCode::Up),
                    b'B' => Some(KeyCode::Down),
                    b'C' => Some(KeyCode::Right),
                    b'D' => Some(KeyCode::Left),
                    b'H' => Some(KeyCode::Home),
                    b'F' => Some(KeyCode::End),
                    b'P'..=b'S' => Some(KeyCode::F(1 + c - b'P')),
                    // A control byte or ESC is a key of its own: leave it.
                    0x00..=0x1F => return Step::Done(2, Some(key(KeyCode::Char('O'), KeyModifiers::ALT))),
                    _ => None,
                };
                Step::Done(3, code.map(|k| key(k, KeyModifiers::NONE)))
            }
        },
        // ESC ESC, or ESC and a control key (Ctrl-C): the first is Esc; the next byte
        // counts on its own.
        0x00..=0x1F => Step::Done(1, Some(key(KeyCode::Esc, KeyModifiers::NONE))),
        // ESC and a key: that key with Alt (crossterm's reading too).
        _ => match parse(&buf[1..]) {
            Step::Done(n, Some(Event::Key(mut k))) => {
                k.modifiers |= KeyModifiers::ALT;
                Step::Done(1 + n, Some(Event::Key(k)))
            }
            Step::Done(n, other) => Step::Done(1 + n, other),
            Step::Incomplete => Step::Incomplete,
        },
    }
}

/// `ESC [` parameters (0x30–0x3F) and intermediates (0x20–0x2F) up to a final byte
/// (0x40–0x7E): ECMA-48's grammar, which ends every sequence, known or not.
fn parse_csi(buf: &[u8]) -> Step {
    let body = &buf[2..];
    let Some(end) = body.iter().position(|b| !(0x20..=0x3F).contains(b)) else {
        return Step::Incomplete;
    };
    let last = body[end];
    if !(0x40..=0x7E).contains(&last) {
        // A control byte, ESC or a non-ASCII byte inside: the sequence ends unfinished and
        // that byte counts on its own (Ctrl-C, Esc).
        return Step::Done(2 + end, None);
    }
    let params = &body[..end];
    let n = 2 + end + 1;
    // X10 mouse (`CSI M` and three bytes): the planner asks for SGR reports, but a
    // terminal without them sends these.
    if last == b'M' && params.is_empty() {
        // Its bytes are each 32 or more: a control byte among them (Ctrl-C, ESC) ends the
        // report unfinished and counts on its own.
        let tail = &buf[n..buf.len().min(n + 3)];
        if tail.iter().any(|b| *b < 0x20) {
            return Step::Done(n, None);
        }
        return match buf.get(n..n + 3) {
            Some(b) => Step::Done(n + 3, x10_mouse(b)),
            None => Step::Incomplete,
        };
    }
    Step::Done(n, csi_event(params, last))
}

/// Numbers separated by `;` (a missing one is 1, as in `CSI ;5A`); `None` if any is not.
fn numbers(params: &[u8]) -> Option<Vec<u16>> {
    std::str::from_utf8(params)
        .ok()?
        .split(';')
        .map(|p| if p.is_empty() { Some(1) } else { p.parse().ok() })
        .collect()
}

/// xterm's modifier parameter: 1 + shift (1) + alt (2) + ctrl (4).
fn modifiers(param: Option<&u16>) -> KeyModifiers {
    let bits = param.map_or(0, |p| p.saturating_sub(1));
    let mut m = KeyModifiers::NONE;
    if bits & 1 != 0 {
        m |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        m |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        m |= KeyModifiers::CONTROL;
    }
    m
}

fn csi_event(params: &[u8], last: u8) -> Option<Event> {
    if params.first() == Some(&b'<') {
        return (last == b'M' || last == b'm')
            .then(|| sgr_mouse(&params[1..], last == b'm'))
            .flatten();
    }
    // Private sequences (`?`, `>`, `=`): device reports, not keys.
    if params.first().is_some_and(|b| (0x3C..=0x3F).contains(b)) {
        return None;
    }
    let nums = numbers(params)?;
    let code = match last {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'Z' => return Some(key(KeyCode::BackTab, KeyModifiers::SHIFT)),
        b'~' => match nums.first()? {
            1 | 7 => KeyCode::Home,
            2 => KeyCode::Insert,
            3 => KeyCode::Delete,
            4 | 8 => KeyCode::End,
            5 => KeyCode::PageUp,
            6 => KeyCode::PageDown,
            n @ 11..=15 => KeyCode::F((n - 10) as u8),
            n @ 17..=21 => KeyCode::F((n - 11) as u8),
            n @ 23..=24 => KeyCode::F((n - 12) as u8),
            _ => return None,
        },
        _ => return None,
    };
    Some(key(code, modifiers(nums.get(1))))
}

/// The button byte's bits, shared by SGR and X10 reports.
fn mouse(cb: u16, column: u16, row: u16, released: bool) -> Option<Event> {
    let mut m = KeyModifiers::NONE;
    if cb & 4 != 0 {
        m |= KeyModifiers::SHIFT;
    }
    if cb & 8 != 0 {
        m |= KeyModifiers::ALT;
    }
    if cb & 16 != 0 {
        m |= KeyModifiers::CONTROL;
    }
    let button = match cb & 3 {
        0 => MouseButton::Left,
        1 => MouseButton::Middle,
        _ => MouseButton::Right,
    };
    let kind = if cb & 64 != 0 {
        match cb & 3 {
            0 => MouseEventKind::ScrollUp,
            1 => MouseEventKind::ScrollDown,
            2 => MouseEventKind::ScrollLeft,
            _ => MouseEventKind::ScrollRight,
        }
    } else if cb & 32 != 0 {
        if cb & 3 == 3 {
            MouseEventKind::Moved
        } else {
            MouseEventKind::Drag(button)
        }
    } else if released || cb & 3 == 3 {
        MouseEventKind::Up(button)
    } else {
        MouseEventKind::Down(button)
    };
    Some(Event::Mouse(MouseEvent {
        kind,
        column: column.checked_sub(1)?,
        row: row.checked_sub(1)?,
        modifiers: m,
    }))
}

/// `CSI < Cb ; Cx ; Cy M` (press) or `m` (release), 1-based cells.
fn sgr_mouse(params: &[u8], released: bool) -> Option<Event> {
    let nums = numbers(params)?;
    let [cb, x, y] = nums[..] else {
        return None;
    };
    mouse(cb, x, y, released)
}

/// `CSI M` then button, column and row, each + 32.
fn x10_mouse(b: &[u8]) -> Option<Event> {
    let v = |i: usize| u16::from(b[i]).checked_sub(32);
    mouse(v(0)?, v(1)?, v(2)?, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(events: &[Event]) -> Vec<(KeyCode, KeyModifiers)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Key(k) => Some((k.code, k.modifiers)),
                _ => None,
            })
            .collect()
    }

    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn a_partial_sequence_never_swallows_q_esc_or_ctrl_c() {
        // Issue 22: `ESC [ ?` and then q. ECMA-48 ends the sequence at q (a final byte):
        // one unknown sequence, dropped; the next q is a key.
        let mut p = Parser::default();
        assert!(p.feed(b"\x1b[?").is_empty());
        assert!(p.pending());
        assert!(p.feed(b"q").is_empty());
        assert!(!p.pending());
        assert_eq!(keys(&p.feed(b"q")), [(KeyCode::Char('q'), NONE)]);
        // Ctrl-C and Esc inside a sequence end it and count.
        assert_eq!(
            keys(&p.feed(b"\x1b[?1;2\x03")),
            [(KeyCode::Char('c'), KeyModifiers::CONTROL)]
        );
        assert_eq!(keys(&p.feed(b"\x1b[?\x1b")), [(KeyCode::Esc, NONE)]);
        // Left pending past the timeout: dropped; a lone ESC is Esc.
        assert!(p.feed(b"\x1b[12;").is_empty());
        assert!(p.timeout().is_empty());
        assert_eq!(keys(&p.feed(b"q")), [(KeyCode::Char('q'), NONE)]);
        assert!(p.feed(b"\x1bO").is_empty());
        assert!(p.timeout().is_empty());
        // A sequence that never ends is cut at 64 bytes.
        let mut long = b"\x1b[".to_vec();
        long.extend(std::iter::repeat_n(b'1', 100));
        assert!(p.feed(&long).is_empty());
        assert!(!p.pending());
    }

    #[test]
    fn keys_as_terminals_send_them() {
        let mut p = Parser::default();
        let got = keys(&p.feed(
            b"qG\r\t\x7f\x1b\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1b[H\x1b[F\x1b[5~\x1b[6~\x1b[Z\x1b[1;5C\xc3\xa9",
        ));
        assert_eq!(
            got,
            [
                (KeyCode::Char('q'), NONE),
                (KeyCode::Char('G'), KeyModifiers::SHIFT),
                (KeyCode::Enter, NONE),
                (KeyCode::Tab, NONE),
                (KeyCode::Backspace, NONE),
                (KeyCode::Esc, NONE),
                (KeyCode::Up, NONE),
                (KeyCode::Down, NONE),
                (KeyCode::Right, NONE),
                (KeyCode::Left, NONE),
                (KeyCode::Up, NONE),
                (KeyCode::Home, NONE),
                (KeyCode::End, NONE),
                (KeyCode::PageUp, NONE),
                (KeyCode::PageDown, NONE),
                (KeyCode::BackTab, KeyModifiers::SHIFT),
                (KeyCode::Right, KeyModifiers::CONTROL),
                (KeyCode::Char('é'), NONE),
            ]
        );
        // A lone ESC at the end of a read is the Esc key at once; Alt-x is ESC x.
        assert_eq!(keys(&p.feed(b"\x1b")), [(KeyCode::Esc, NONE)]);
        assert_eq!(keys(&p.feed(b"\x1bx")), [(KeyCode::Char('x'), KeyModifiers::ALT)]);
        // A character split over two reads.
        assert!(p.feed(b"\xe4").is_empty());
        assert_eq!(keys(&p.feed(b"\xb8\xad")), [(KeyCode::Char('中'), NONE)]);
    }

    #[test]
    fn mouse_reports() {
        let mut p = Parser::default();
        let got = p.feed(b"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;3;4M\x1b[<65;3;4M\x1b[M !!");
        let kinds: Vec<_> = got
            .iter()
            .map(|e| match e {
                Event::Mouse(m) => (m.kind, m.column, m.row),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (MouseEventKind::Down(MouseButton::Left), 9, 4),
                (MouseEventKind::Up(MouseButton::Left), 9, 4),
                (MouseEventKind::ScrollUp, 2, 3),
                (MouseEventKind::ScrollDown, 2, 3),
                (MouseEventKind::Down(MouseButton::Left), 0, 0),
            ]
        );
    }
}
