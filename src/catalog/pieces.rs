//! A large catalog file parsed in pieces, on the machine's cores: the TOML parser reads about
//! 20 MB/s and keeps the whole document's tree beside the result (a 10,000-card file took
//! 190 ms and 119 MB). Pieces are cut only before an entry's `[[model]]`, `[[gpu]]` or
//! `[[offer]]` line, so each is a TOML document of whole entries; any piece that does not
//! parse (a cut inside a multi-line string, a sub-table of an earlier entry) sends the whole
//! file back to the one-document parser, which also gives the error its line.

use super::entries::CatalogFile;

/// Files up to twice this size are parsed whole.
const PIECE_BYTES: usize = 128 * 1024;

/// The file parsed in pieces, or `None` when it is small or a piece does not parse alone.
pub(super) fn parse_large(source: &str) -> Option<CatalogFile> {
    if source.len() <= 2 * PIECE_BYTES {
        return None;
    }
    let pieces = cut(source, PIECE_BYTES);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(pieces.len());
    // Each thread parses a contiguous run of pieces, so the entries keep the file's order.
    let per_thread = pieces.len().div_ceil(threads);
    let runs: Vec<Option<Vec<CatalogFile>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .chunks(per_thread)
            .map(|run| {
                scope.spawn(move || {
                    run.iter()
                        .map(|piece| toml::from_str::<CatalogFile>(piece).ok())
                        .collect::<Option<Vec<_>>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let mut whole = CatalogFile::default();
    for file in runs
        .into_iter()
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .flatten()
    {
        // Only the first piece holds the top-level keys; a date anywhere else would be a
        // key inside an entry, which the whole-file parser reports.
        if let Some(date) = file.updated
            && whole.updated.replace(date).is_some()
        {
            return None;
        }
        whole.model.extend(file.model);
        whole.gpu.extend(file.gpu);
        whole.offer.extend(file.offer);
        whole.mig_profile.extend(file.mig_profile);
    }
    Some(whole)
}

/// The source cut before entry headers, each piece at least `size` bytes (the last may be
/// shorter).
fn cut(source: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        if at - start >= size && is_entry_header(line) {
            pieces.push(&source[start..at]);
            start = at;
        }
        at += line.len();
    }
    pieces.push(&source[start..]);
    pieces
}

fn is_entry_header(line: &str) -> bool {
    let line = line.trim();
    let rest = ["[[model]]", "[[gpu]]", "[[offer]]", "[[mig_profile]]"]
        .iter()
        .find_map(|h| line.strip_prefix(h));
    rest.is_some_and(|r| {
        let r = r.trim_start();
        r.is_empty() || r.starts_with('#')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(n: usize) -> String {
        let mut s = String::from("updated = 2026-12-01\n");
        for i in 0..n {
            s.push_str(&format!(
                "[[gpu]]\nid = \"c{i}\"\nname = \"Card {i}\"\nvendor = \"NVIDIA\"\narchitecture = \"T\"\nmemory_gb = 24\nmemory_type = \"GDDR6\"\nbandwidth_gbs = 900\nbf16_tflops = 100\nfp8 = false\nlink = \"pcie\"\nstack = \"cuda\"\nyear = 2024\nsegment = \"consumer\"\nnotes = \"\"\"a note\nover two lines\"\"\"\n\n[[offer]]\ngpu = \"c{i}\"\nprovider = \"P\"\nprice = {}\ncurrency = \"USD\"\nper = \"month\"\nkind = \"monthly\"\nseen = \"2026-09-01\"\nsource = \"test\"\n\n",
                100 + i
            ));
        }
        s
    }

    #[test]
    fn pieces_give_what_the_whole_file_gives() {
        let source = cards(2_000);
        assert!(source.len() > 2 * PIECE_BYTES);
        assert!(cut(&source, PIECE_BYTES).len() > 2);
        let pieces = parse_large(&source).expect("parses in pieces");
        let whole: CatalogFile = toml::from_str(&source).unwrap();
        assert_eq!(format!("{pieces:?}"), format!("{whole:?}"));
        assert_eq!(pieces.gpu.len(), 2_000);
        assert_eq!(pieces.offer[1_999].gpu, "c1999");
    }

    #[test]
    fn a_cut_inside_a_multi_line_string_goes_back_to_the_whole_file() {
        // A multi-line string that holds a header line: cutting there leaves an unclosed
        // string, so the pieces fail and the whole-file parser decides.
        let mut source = cards(1_500);
        let tail = "[[gpu]]\nid = \"odd\"\nname = \"Odd\"\nvendor = \"NVIDIA\"\narchitecture = \"T\"\nmemory_gb = 24\nmemory_type = \"GDDR6\"\nbandwidth_gbs = 900\nbf16_tflops = 100\nfp8 = false\nlink = \"pcie\"\nstack = \"cuda\"\nyear = 2024\nsegment = \"consumer\"\nnotes = \"\"\"\n";
        source.push_str(tail);
        source.push_str(&"filler line\n".repeat(12_000));
        source.push_str("[[gpu]]\n\"\"\"\n");
        let whole: CatalogFile = toml::from_str(&source).unwrap();
        assert!(
            whole
                .gpu
                .last()
                .unwrap()
                .notes
                .as_deref()
                .unwrap()
                .contains("[[gpu]]")
        );
        assert!(parse_large(&source).is_none());
    }

    #[test]
    fn headers_are_whole_lines() {
        assert!(is_entry_header("[[gpu]]\n"));
        assert!(is_entry_header("  [[offer]]  # rent\n"));
        assert!(!is_entry_header("[[gpu.extra]]\n"));
        assert!(!is_entry_header("[[gpu]] x = 1\n"));
    }
}
