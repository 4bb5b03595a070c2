//! Reading and writing the user's files safely.
//!
//! Reads take regular files only, up to a size cap, so `/dev/zero` or a FIFO named as a
//! config gets a message instead of eating memory or blocking forever. Writes go to a
//! temporary file created exclusively (a fresh random name, never following a planted
//! symlink) beside the target, are synced, then renamed over the target, and the folder is
//! synced: an interrupted save leaves the old file whole, and nothing is written elsewhere.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A theme or plan file: far larger than any real one.
pub const MAX_TOML_BYTES: u64 = 4 << 20;
/// A catalog file: a 10,000-card catalog with its sources is 4–8 MB.
pub const MAX_CATALOG_BYTES: u64 = 32 << 20;
/// A config.json (large MoE configs with per-layer lists stay under a megabyte).
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// The bytes of a regular file of at most `max_bytes`, or why not, in words.
pub fn read_bytes(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file (a folder, device or pipe cannot be read as one)".into());
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "{} bytes is too large (at most {} MB)",
            meta.len(),
            max_bytes >> 20
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // Swapped for something else between the check and the open: refused all the same.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err("not a regular file (a folder, device or pipe cannot be read as one)".into());
    }
    let mut bytes = Vec::new();
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("too large (at most {} MB)", max_bytes >> 20));
    }
    Ok(bytes)
}

/// The text of a regular file of at most `max_bytes`, or why not, in words.
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, String> {
    let bytes = read_bytes(path, max_bytes)?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

/// A temporary name beside `path` that nobody can predict.
fn temp_name(dir: &Path, name: &str, attempt: u32) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    dir.join(format!(".{name}.{:016x}.tmp", h.finish()))
}

/// A new, empty folder beside `path` under a name nobody can predict (created exclusively:
/// an existing folder or a planted link at that name is never reused).
pub fn create_temp_dir(path: &Path) -> std::io::Result<PathBuf> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("dir");
    let mut attempt = 0;
    loop {
        let tmp = temp_name(dir, name, attempt);
        match std::fs::create_dir(&tmp) {
            Ok(()) => return Ok(tmp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Put the folder `fresh` in the place of `target`, whole: the old folder is moved aside,
/// the new one renamed into its place, then the old one removed. A reader sees the old
/// folder or the new one, never a mix of the two (only, for an instant, none).
pub fn replace_dir(fresh: &Path, target: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(fresh, target);
    }
    let old = create_temp_dir(target)?;
    // rename() onto an empty folder replaces it.
    std::fs::rename(target, &old)?;
    if let Err(e) = std::fs::rename(fresh, target) {
        let _ = std::fs::rename(&old, target);
        return Err(e);
    }
    // The old folder is ours (the program's cache): removing it is safe.
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Write `bytes` to `path` atomically (see the module's doc).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_dir(path);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = write_temp(dir, name, bytes)?;
    let result = std::fs::rename(&tmp, path);
    finish(dir, &tmp, result)
}

/// Write `bytes` under a name not yet taken in `dir`: `STEM.EXT`, else `STEM-2.EXT`,
/// `STEM-3.EXT`, … (a save never replaces an earlier one). Atomic like [`write_atomic`]: the
/// whole file is written beside the target first, then linked in under the free name, a step
/// that fails rather than replace a file someone else just created.
pub fn write_new(dir: &Path, stem: &str, ext: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let tmp = write_temp(dir, &format!("{stem}.{ext}"), bytes)?;
    for n in 1..=MAX_SAVES_PER_NAME {
        let path = if n == 1 {
            dir.join(format!("{stem}.{ext}"))
        } else {
            dir.join(format!("{stem}-{n}.{ext}"))
        };
        match std::fs::hard_link(&tmp, &path) {
            Ok(()) => {
                let _ = std::fs::remove_file(&tmp);
                return finish(dir, &tmp, Ok(())).map(|()| path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            // A file system without hard links: a rename onto a name seen free just now.
            Err(_) if !path.exists() => {
                let result = std::fs::rename(&tmp, &path);
                return finish(dir, &tmp, result).map(|()| path);
            }
            Err(e) => return finish(dir, &tmp, Err(e)).map(|()| path),
        }
    }
    let _ = std::fs::remove_file(&tmp);
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{MAX_SAVES_PER_NAME} files named {stem}-N.{ext} already"),
    ))
}

/// How many numbered saves of one name [`write_new`] tries before it gives up.
const MAX_SAVES_PER_NAME: u32 = 10_000;

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The bytes in a fresh temporary file beside the target, synced.
fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let tmp = temp_name(dir, name, attempt);
        // create_new: O_CREAT|O_EXCL, which also refuses to follow a symlink at that name.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// After the rename or link: sync the folder (the new name is durable once it is; not
/// possible everywhere), or on failure remove the temporary file.
fn finish(dir: &Path, tmp: &Path, result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Ok(()) => {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(tmp);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_refuse_devices_and_large_files() {
        assert!(
            read_text(Path::new("/dev/zero"), 10)
                .unwrap_err()
                .contains("not a regular file")
        );
        let dir = std::env::temp_dir().join(format!("vramfit-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.toml");
        std::fs::write(&big, vec![b'a'; 2 << 20]).unwrap();
        assert!(read_text(&big, 1 << 20).unwrap_err().contains("too large"));
        assert_eq!(read_text(&big, 4 << 20).unwrap().len(), 2 << 20);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn saves_replace_the_file_and_leave_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("vramfit-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("plan.toml");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
