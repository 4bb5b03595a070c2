//! House rules checked on the source itself: no file of `src/` over the line budget, and no
//! circle in the import graph between its files (a circle means neither side can be read,
//! tested or moved without the other).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The most lines of code a source file may have.
const BUDGET: usize = 500;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, as paths relative to `src/` with `/` separators, sorted.
fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(src()).expect("under src/");
            let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            out.push(parts.join("/"));
        }
    }
}

fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(src().join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            (f, text)
        })
        .collect()
}

/// A line of code: neither blank nor a comment alone (`//`, `///`, `//!`).
fn is_code(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && !t.starts_with("//")
}

#[test]
fn no_file_over_the_line_budget() {
    let files = sources();
    assert!(files.len() > 20, "the walk found only {} files", files.len());
    let over: Vec<String> = files
        .iter()
        .map(|(f, text)| (f, text.lines().filter(|l| is_code(l)).count()))
        .filter(|(_, n)| *n > BUDGET)
        .map(|(f, n)| format!("src/{f}: {n} lines of code"))
        .collect();
    assert!(
        over.is_empty(),
        "files over {BUDGET} lines of code (blank and comment-only lines not counted):\n  {}",
        over.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// The import graph: nodes are files, an edge is a `use crate::…`, `use super::…` (or a
// `crate::…` path in the code) that names another file's module.

/// The module a file is: `engine/judge.rs` and `engine/judge/mod.rs` are `engine::judge`,
/// `lib.rs` the crate root.
fn module_of(file: &str) -> Vec<String> {
    let stem = file.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The lines of a file that the graph reads: comments and string contents blanked, the
/// test module left out (everything after `#[cfg(test)]` + `mod tests {`). Also returns the
/// child modules declared under `#[cfg(test)]` in files of their own (`mod tests;`).
fn code_of(text: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut test_children = Vec::new();
    let mut in_string = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line == "#[cfg(test)]" || line == "    #[cfg(test)]" {
            let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
            let decl = next.map(|l| l.trim().trim_start_matches("pub ").to_string());
            if let Some(decl) = decl.filter(|d| d.starts_with("mod ")) {
                let name = decl[4..].trim_end_matches([';', '{', ' ']).trim();
                if decl.ends_with(';') {
                    test_children.push(name.to_string());
                } else {
                    break;
                }
            }
        }
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            if in_string {
                match c {
                    '\\' => j += 1,
                    '"' => {
                        in_string = false;
                        kept.push('"');
                    }
                    _ => {}
                }
            } else if c == '/' && chars.get(j + 1) == Some(&'/') {
                break;
            } else if c == '"' {
                in_string = true;
                kept.push('"');
            } else if c == '\'' && chars.get(j + 2) == Some(&'\'') {
                // A character literal ('"' must not open a string).
                j += 2;
            } else if c == '\'' && chars.get(j + 1) == Some(&'\\') {
                while j + 1 < chars.len() && chars[j + 1] != '\'' {
                    j += 1;
                }
                j += 1;
            } else {
                kept.push(c);
            }
            j += 1;
        }
        out.push((i + 1, kept));
        i += 1;
    }
    (out, test_children)
}

/// One name a `use` brings in: the path it names and what it is called here (`None` for a
/// glob).
struct Leaf {
    path: Vec<String>,
    name: Option<String>,
    line: usize,
}

/// The leaves of a use tree such as `crate::engine::{judge, fit::{X, Y as Z}, self}`.
fn use_leaves(tree: &str, prefix: &[String], line: usize, out: &mut Vec<Leaf>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let mut base = prefix.to_vec();
        base.extend(head);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        // Split the group at the commas of its own level.
        let (mut depth, mut start) = (0, 0);
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_leaves(&inner[start..k], &base, line, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        use_leaves(&inner[start..], &base, line, out);
        return;
    }
    let (path_text, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p, Some(a.trim().to_string())),
        None => (tree, None),
    };
    let mut path = prefix.to_vec();
    path.extend(
        path_text
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    let name = match path.last().map(String::as_str) {
        Some("*") => {
            path.pop();
            None
        }
        Some("self") => {
            path.pop();
            alias.or_else(|| path.last().cloned())
        }
        _ => alias.or_else(|| path.last().cloned()),
    };
    out.push(Leaf { path, name, line });
}

/// What a file names: its `use` leaves, and the `crate::…`/`super::…` paths in its code.
struct Parsed {
    uses: Vec<Leaf>,
    inline: Vec<Leaf>,
    test_children: Vec<String>,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn parse(text: &str) -> Parsed {
    let (lines, test_children) = code_of(text);
    let mut uses = Vec::new();
    let mut inline = Vec::new();
    let mut statement: Option<(usize, String)> = None;
    for (n, line) in &lines {
        let t = line.trim();
        if let Some((_, s)) = &mut statement {
            s.push_str(t);
        } else {
            let body = t
                .strip_prefix("pub ")
                .or_else(|| t.strip_prefix("pub(crate) "))
                .or_else(|| t.strip_prefix("pub(super) "))
                .unwrap_or(t);
            if let Some(rest) = body.strip_prefix("use ") {
                statement = Some((*n, rest.to_string()));
            }
        }
        if let Some((at, s)) = statement.take_if(|(_, s)| s.contains(';')) {
            let tree = s.split(';').next().unwrap_or("");
            use_leaves(tree, &[], at, &mut uses);
            continue;
        }
        if statement.is_some() {
            continue;
        }
        // Paths in the code itself: `crate::x::y`, `super::x`.
        for start in ["crate::", "super::"] {
            for (k, _) in line.match_indices(start) {
                if line[..k]
                    .chars()
                    .next_back()
                    .is_some_and(|c| is_ident(c) || c == ':')
                {
                    continue;
                }
                let path: String = line[k..]
                    .chars()
                    .take_while(|c| is_ident(*c) || *c == ':')
                    .collect();
                let segs: Vec<String> = path
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                inline.push(Leaf {
                    path: segs,
                    name: None,
                    line: *n,
                });
            }
        }
    }
    Parsed {
        uses,
        inline,
        test_children,
    }
}

struct Graph {
    /// Module path → file.
    files: BTreeMap<Vec<String>, String>,
    parsed: BTreeMap<String, Parsed>,
}

impl Graph {
    /// Where `path`, written in `file`, leads: the file of the longest prefix that is a
    /// module, then through that file's own imports (re-exports) while the rest names one.
    /// `None` for paths outside the crate (`std::…`, other crates).
    fn resolve(&self, file: &str, path: &[String], depth: usize) -> Option<String> {
        let here = module_of(file);
        let first = path.first()?;
        let (mut base, rest) = match first.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (here.clone(), &path[1..]),
            "super" => {
                let mut base = here.clone();
                let mut k = 0;
                while path.get(k).is_some_and(|s| s == "super") {
                    base.pop();
                    k += 1;
                }
                (base, &path[k..])
            }
            // A child module named without `self::` (2018 paths).
            name => {
                let mut child = here.clone();
                child.push(name.to_string());
                if !self.files.contains_key(&child) {
                    return None;
                }
                (here.clone(), path)
            }
        };
        let mut found = self.files.get(&base).cloned();
        let mut used = 0;
        for (k, seg) in rest.iter().enumerate() {
            base.push(seg.clone());
            if let Some(f) = self.files.get(&base) {
                found = Some(f.clone());
                used = k + 1;
            } else {
                break;
            }
        }
        let target = found?;
        // The rest names an item of `target`: follow it when `target` imports it.
        if let (Some(name), true) = (rest.get(used), depth < 8) {
            let parsed = &self.parsed[&target];
            if let Some(leaf) = parsed
                .uses
                .iter()
                .find(|l| l.name.as_deref() == Some(name.as_str()))
            {
                let mut further = leaf.path.clone();
                further.extend(rest[used + 1..].iter().cloned());
                if let Some(t) = self.resolve(&target, &further, depth + 1) {
                    return Some(t);
                }
            }
        }
        Some(target)
    }
}

/// Edges between files, each with the first line that makes it.
fn import_graph() -> BTreeMap<String, BTreeMap<String, (usize, String)>> {
    let sources = sources();
    let mut parsed = BTreeMap::new();
    let mut files = BTreeMap::new();
    for (f, text) in &sources {
        // The binary is a crate of its own; nothing imports it.
        if f == "main.rs" {
            continue;
        }
        files.insert(module_of(f), f.clone());
        parsed.insert(f.clone(), parse(text));
    }
    // Test modules in files of their own are test code too.
    let mut tests = BTreeSet::new();
    for (f, p) in &parsed {
        for child in &p.test_children {
            let mut m = module_of(f);
            m.push(child.clone());
            if let Some(t) = files.get(&m) {
                tests.insert(t.clone());
            }
        }
    }
    let graph = Graph { files, parsed };
    let text: BTreeMap<&str, &str> = sources.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
    let mut edges: BTreeMap<String, BTreeMap<String, (usize, String)>> = BTreeMap::new();
    for (f, p) in &graph.parsed {
        if tests.contains(f) {
            continue;
        }
        let here = module_of(f);
        for leaf in p.uses.iter().chain(&p.inline) {
            let Some(target) = graph.resolve(f, &leaf.path, 0) else {
                continue;
            };
            // A parent declaring or re-exporting its own children is not an import.
            let there = module_of(&target);
            if target == *f || tests.contains(&target) || there.starts_with(&here) {
                continue;
            }
            let line = text[f.as_str()].lines().nth(leaf.line - 1).unwrap_or("").trim();
            edges
                .entry(f.clone())
                .or_default()
                .entry(target)
                .or_insert((leaf.line, line.to_string()));
        }
    }
    edges
}

/// The strongly connected sets of more than one file (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeMap<String, (usize, String)>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, (usize, String)>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        sets: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flat_map(|m| m.keys()) {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w.as_str()]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w.as_str()) {
                    let low = self.low[v].min(self.index[w.as_str()]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.sets.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        sets: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.sets.sort();
    walk.sets
}

/// The shortest path from `from` to `to` inside `set`, both ends included (breadth first).
fn shortest_path(
    edges: &BTreeMap<String, BTreeMap<String, (usize, String)>>,
    set: &[String],
    from: &str,
    to: &str,
) -> Vec<String> {
    let mut came: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        if v == to {
            let mut path = vec![to.to_string()];
            let mut at = v;
            while at != from {
                at = came[at];
                path.push(at.to_string());
            }
            path.reverse();
            return path;
        }
        for w in edges.get(v).into_iter().flat_map(|m| m.keys()) {
            if set.contains(w) && w != from && !came.contains_key(w.as_str()) {
                came.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

#[test]
fn the_import_graph_has_no_circle() {
    let edges = import_graph();
    // The reader must see the imports at all: a few that are known to be there.
    let count: usize = edges.values().map(BTreeMap::len).sum();
    assert!(count > 100, "only {count} imports found");
    for (from, to) in [
        ("tui/app/update.rs", "tui/action.rs"),
        ("detect/parse.rs", "detect/mod.rs"),
        ("catalog/hf/shape.rs", "catalog/hf/fields.rs"),
        ("tui/states/mod.rs", "catalog/mod.rs"),
    ] {
        assert!(
            edges.get(from).is_some_and(|m| m.contains_key(to)),
            "the reader missed {from} -> {to}"
        );
    }
    let mut report = Vec::new();
    for set in circles(&edges) {
        report.push(format!("a circle among {} files: {}", set.len(), set.join(", ")));
        // For every import inside the set, the shortest circle it closes: each import that
        // would have to go is shown once.
        let mut seen = BTreeSet::new();
        for from in &set {
            for to in edges[from].keys().filter(|t| set.contains(t)) {
                let mut circle = vec![from.clone()];
                circle.extend(shortest_path(&edges, &set, to, from));
                // The same circle read from another of its files.
                let ring = &circle[..circle.len() - 1];
                let least = (0..ring.len()).min_by_key(|&k| &ring[k]).unwrap_or(0);
                let key: Vec<String> = ring[least..].iter().chain(&ring[..least]).cloned().collect();
                if !seen.insert(key) {
                    continue;
                }
                report.push(format!("  {}", circle.join(" -> ")));
                for pair in circle.windows(2) {
                    let (line, text) = &edges[&pair[0]][&pair[1]];
                    report.push(format!("      src/{}:{line}: {text}", pair[0]));
                }
            }
        }
    }
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}
