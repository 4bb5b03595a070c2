//! Reading a config.json's values: the file as a JSON object, and each field as the type the
//! shape needs, with errors placed at the key that is wrong (or missing). Apart from the
//! import (`super`) and the family rules (`shape`), which only ask for values.

use serde_json::{Map, Value};

use crate::catalog::FileError;

/// A config.json's object with the file's name and text, for errors at a key's position.
pub(super) struct Fields<'a> {
    pub(super) file: &'a str,
    pub(super) source: &'a str,
    pub(super) map: &'a Map<String, Value>,
}

/// Byte offset of `"key":` in a JSON text (the first one), for error positions.
fn key_offset(source: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    source
        .match_indices(&quoted)
        .find(|(i, _)| source[i + quoted.len()..].trim_start().starts_with(':'))
        .map(|(i, _)| i)
}

impl Fields<'_> {
    /// An error at `key`'s position in the file (or the file's when it is not written).
    pub(super) fn error_at(&self, key: &str, message: String) -> FileError {
        // A key that is not written is missing from the object that starts the file.
        let at = key_offset(self.source, key).unwrap_or_else(|| self.source.find('{').unwrap_or(0));
        FileError::at_offset(self.file, self.source, at, message)
    }

    /// The first of `keys` the file writes (for positions), else the first.
    pub(super) fn written<'k>(&self, keys: &[&'k str]) -> &'k str {
        keys.iter()
            .copied()
            .find(|k| self.map.contains_key(*k))
            .unwrap_or(keys[0])
    }

    pub(super) fn u64_opt(&self, keys: &[&str]) -> Result<Option<u64>, FileError> {
        for key in keys {
            match self.map.get(*key) {
                None | Some(Value::Null) => continue,
                Some(v) => {
                    return v.as_u64().map(Some).ok_or_else(|| {
                        let shown = crate::text::clean_prefix(&v.to_string(), 40);
                        self.error_at(
                            key,
                            format!("'{key}' must be a non-negative integer, got {shown}"),
                        )
                    });
                }
            }
        }
        Ok(None)
    }

    pub(super) fn u64(&self, keys: &[&str]) -> Result<u64, FileError> {
        match self.u64_opt(keys)? {
            Some(0) => {
                let key = self.written(keys);
                Err(self.error_at(key, format!("'{key}' must be positive")))
            }
            Some(v) => Ok(v),
            // Name every spelling looked for: the file may write one the reader does not know.
            None => Err(self.error_at(
                keys[0],
                format!(
                    "missing '{}': the memory model needs it to size the network (looked for {})",
                    keys[0],
                    keys.join(", ")
                ),
            )),
        }
    }

    pub(super) fn bool(&self, key: &str) -> Option<bool> {
        self.map.get(key).and_then(Value::as_bool)
    }

    pub(super) fn str(&self, key: &str) -> Option<&str> {
        self.map.get(key).and_then(Value::as_str)
    }
}

/// The file as a JSON object, or where it is not one.
pub(super) fn parse_object(file: &str, source: &str) -> Result<Map<String, Value>, FileError> {
    let root: Value = serde_json::from_str(source).map_err(|e| FileError {
        file: file.to_string(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!("invalid JSON: {e}")
            .split(" at line")
            .next()
            .unwrap_or("invalid JSON")
            .to_string(),
    })?;
    match root {
        Value::Object(map) => Ok(map),
        _ => Err(FileError::at_offset(
            file,
            source,
            0,
            "a config.json must be a JSON object",
        )),
    }
}
