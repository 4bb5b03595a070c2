//! The planner's terminal reader (src/tui/input.rs) under random bytes: it never panics,
//! never keeps more than one short sequence, and Ctrl-C and Esc always get through,
//! whatever came before them. `PROPTEST_CASES=100000 cargo test --release --test input`
//! runs a deep search; the default (256 cases) runs with the suite.

use crossterm::event::{Event, KeyCode, KeyModifiers};
use proptest::prelude::*;
use vramfit::tui::input::Parser;

/// Bytes as terminals and pastes send them: escape-sequence pieces, controls, UTF-8, noise.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"\x1b".to_vec()),
        Just(b"\x1b[".to_vec()),
        Just(b"\x1b[?".to_vec()),
        Just(b"\x1b[<".to_vec()),
        Just(b"\x1b[M".to_vec()),
        Just(b"\x1bO".to_vec()),
        Just(b";".to_vec()),
        Just("中".as_bytes().to_vec()),
        Just(vec![0xE4]),
        prop::collection::vec(0x30u8..0x40, 1..4),
        prop::collection::vec(any::<u8>(), 1..4),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

fn last_key(events: &[Event]) -> Option<(KeyCode, KeyModifiers)> {
    events.iter().rev().find_map(|e| match e {
        Event::Key(k) => Some((k.code, k.modifiers)),
        _ => None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn ctrl_c_and_esc_always_get_through(prefix in bytes(), split in 0usize..64) {
        for (byte, code, modifiers) in [
            (0x03u8, KeyCode::Char('c'), KeyModifiers::CONTROL),
            (0x1B, KeyCode::Esc, KeyModifiers::NONE),
        ] {
            let mut p = Parser::default();
            // In two reads, split anywhere: a sequence may straddle them.
            let at = split.min(prefix.len());
            p.feed(&prefix[..at]);
            p.feed(&prefix[at..]);
            let events = p.feed(&[byte]);
            prop_assert_eq!(last_key(&events), Some((code, modifiers)), "after {:?}", prefix);
        }
    }

    #[test]
    fn after_the_timeout_q_is_q(prefix in bytes()) {
        let mut p = Parser::default();
        p.feed(&prefix);
        p.timeout();
        prop_assert!(!p.pending());
        let events = p.feed(b"q");
        prop_assert_eq!(last_key(&events), Some((KeyCode::Char('q'), KeyModifiers::NONE)));
        prop_assert_eq!(events.len(), 1);
    }
}
