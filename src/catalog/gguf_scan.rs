//! Finding GGUF models in a folder (the first part of a split file stands for the whole).

use std::path::{Path, PathBuf};

use super::FileError;

/// The GGUF models under `dir` (two levels deep, the first part of a split file only), at
/// most `limit`, in name order.
pub fn gguf_files(dir: &Path, limit: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), 0)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() && depth < 2 {
                folders.push((path, depth + 1));
            } else if kind.is_file()
                && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf"))
                && gguf_parts(&path).is_ok_and(|p| p.first() == Some(&path))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found.truncate(limit);
    found
}

/// The parts of a split GGUF (`name-00001-of-00003.gguf`), in order; the file alone otherwise.
/// A split name that cannot be one (part 0, 0 parts, a part past the count) is refused.
pub(super) fn gguf_parts(path: &Path) -> Result<Vec<PathBuf>, FileError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(stem) = name.strip_suffix(".gguf") else {
        return Ok(vec![path.to_path_buf()]);
    };
    let split = stem.len() > 15 && stem.is_char_boundary(stem.len() - 15) && {
        let tail = &stem[stem.len() - 15..];
        tail.starts_with('-')
            && tail[1..6].bytes().all(|b| b.is_ascii_digit())
            && &tail[6..10] == "-of-"
            && tail[10..].bytes().all(|b| b.is_ascii_digit())
    };
    if !split {
        return Ok(vec![path.to_path_buf()]);
    }
    let base = &stem[..stem.len() - 15];
    // Five ASCII digits each: these parse.
    let part: u32 = stem[stem.len() - 14..stem.len() - 9].parse().unwrap_or(0);
    let total: u32 = stem[stem.len() - 5..].parse().unwrap_or(0);
    if part == 0 || part > total {
        return Err(FileError::new(
            path.display().to_string(),
            format!("the split name says part {part} of {total}: no such part"),
        ));
    }
    Ok((1..=total)
        .map(|i| path.with_file_name(format!("{base}-{i:05}-of-{total:05}.gguf")))
        .collect())
}
