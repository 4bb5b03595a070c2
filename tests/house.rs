//! House rules checked on the source itself: no file of `src/` over the line budget, no
//! circle in the import graph between its files (a circle means neither side can be read,
//! tested or moved without the other), and no room importing a room that ARCHITECTURE.md
//! does not let it use (the rooms and their allowed imports are read from its table).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The most lines a source file may have: every line, comments included, since a reader
/// scrolls through all of them.
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

/// The files of `sources` over the budget, each with its line count.
fn over_budget(sources: &[(String, String)]) -> Vec<String> {
    sources
        .iter()
        .map(|(f, text)| (f, text.lines().count()))
        .filter(|(_, n)| *n > BUDGET)
        .map(|(f, n)| format!("src/{f}: {n} lines"))
        .collect()
}

#[test]
fn no_file_over_the_line_budget() {
    let files = sources();
    assert!(files.len() > 20, "the walk found only {} files", files.len());
    let over = over_budget(&files);
    assert!(
        over.is_empty(),
        "files over {BUDGET} lines:\n  {}",
        over.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// The import graph: nodes are files, an edge is a `use crate::…`, `use super::…` (or a
// `crate::…` path in the code) that names another file's module.

/// The module a file is: `engine/verdict/judge.rs` and `engine/verdict/judge/mod.rs` are `engine::verdict::judge`,
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

/// The leaves of a use tree such as `crate::engine::{verdict::judge, verdict::fit::{X, Y as Z}, self}`.
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
    /// `#[macro_export]` macros: named at the crate root (`crate::tr!`), defined in a file.
    macros: BTreeMap<String, String>,
}

impl Graph {
    /// Where `path`, written in `file`, leads: the file of the longest prefix that is a
    /// module, then through that file's own imports (re-exports) while the rest names one.
    /// `None` for paths outside the crate (`std::…`, other crates).
    fn resolve(&self, file: &str, path: &[String], depth: usize) -> Option<String> {
        let here = module_of(file);
        if let [root, name] = path
            && root == "crate"
            && let Some(defined) = self.macros.get(name)
        {
            return Some(defined.clone());
        }
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

/// Edges between files (by their paths under `src/`), each with the first line that makes it.
type Edges = BTreeMap<String, BTreeMap<String, (usize, String)>>;

/// Edges between files, each with the first line that makes it.
fn import_graph_of(sources: &[(String, String)]) -> Edges {
    let mut parsed = BTreeMap::new();
    let mut files = BTreeMap::new();
    for (f, text) in sources {
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
    let mut macros = BTreeMap::new();
    for (f, text) in sources {
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() == "#[macro_export]"
                && let Some(name) = lines.next().and_then(|l| l.trim().strip_prefix("macro_rules! "))
            {
                macros.insert(name.trim_end_matches(['{', ' ']).to_string(), f.clone());
            }
        }
    }
    let graph = Graph {
        files,
        parsed,
        macros,
    };
    let text: BTreeMap<&str, &str> = sources.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
    let mut edges: Edges = BTreeMap::new();
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
fn circles(edges: &Edges) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a Edges,
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
fn shortest_path(edges: &Edges, set: &[String], from: &str, to: &str) -> Vec<String> {
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

/// Each circle of `edges`, with every import that closes one and the line that makes it.
fn circle_report(edges: &Edges) -> Vec<String> {
    let mut report = Vec::new();
    for set in circles(edges) {
        report.push(format!("a circle among {} files: {}", set.len(), set.join(", ")));
        // For every import inside the set, the shortest circle it closes: each import that
        // would have to go is shown once.
        let mut seen = BTreeSet::new();
        for from in &set {
            for to in edges[from].keys().filter(|t| set.contains(t)) {
                let mut circle = vec![from.clone()];
                circle.extend(shortest_path(edges, &set, to, from));
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
    report
}

#[test]
fn the_import_graph_has_no_circle() {
    let edges = import_graph_of(&sources());
    // The reader must see the imports at all: a few that are known to be there.
    let count: usize = edges.values().map(BTreeMap::len).sum();
    assert!(count > 100, "only {count} imports found");
    for (from, to) in [
        ("tui/app/update.rs", "tui/action.rs"),
        ("detect/parse.rs", "detect/mod.rs"),
        ("catalog/hf/shape.rs", "catalog/hf/fields.rs"),
        ("tui/states/mod.rs", "catalog/mod.rs"),
        ("engine/verdict/fit.rs", "engine/verdict/judge.rs"),
    ] {
        assert!(
            edges.get(from).is_some_and(|m| m.contains_key(to)),
            "the reader missed {from} -> {to}"
        );
    }
    let report = circle_report(&edges);
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Rooms: ARCHITECTURE.md's table names each room, its folder or file under `src/`, and the
// rooms it may import. A file belongs to the room with the longest matching path.

/// A room: its name, the paths under `src/` it holds, and the rooms it may import.
struct Room {
    name: String,
    paths: Vec<String>,
    may_import: BTreeSet<String>,
}

/// The rooms table of ARCHITECTURE.md: the rows between `<!-- rooms -->` and
/// `<!-- /rooms -->`, each `| name | `path`, `path` | room, room |` ("nothing" for none).
fn rooms_of(architecture: &str) -> Vec<Room> {
    let start = architecture
        .find("<!-- rooms -->")
        .expect("ARCHITECTURE.md has <!-- rooms -->");
    let end = architecture
        .find("<!-- /rooms -->")
        .expect("ARCHITECTURE.md has <!-- /rooms -->");
    let mut rooms = Vec::new();
    for row in architecture[start..end].lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let [name, paths, may, ..] = cells[..] else {
            continue;
        };
        if name == "room" || name.starts_with("---") {
            continue;
        }
        let paths = paths
            .split(',')
            .map(|p| p.trim().trim_matches('`').trim_start_matches("src/").to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let may_import = may
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty() && r != "nothing")
            .collect();
        rooms.push(Room {
            name: name.trim_matches('*').to_string(),
            paths,
            may_import,
        });
    }
    rooms
}

/// The room a file belongs to: the one with the longest path that holds it (a folder
/// `x/` holds what is under it, a file path only itself).
fn room_of<'a>(rooms: &'a [Room], file: &str) -> Option<&'a Room> {
    rooms
        .iter()
        .flat_map(|r| r.paths.iter().map(move |p| (r, p)))
        .filter(|(_, p)| {
            if p.ends_with('/') {
                file.starts_with(p.as_str())
            } else {
                file == p.as_str()
            }
        })
        .max_by_key(|(_, p)| p.len())
        .map(|(r, _)| r)
}

/// Files no room holds, rooms the table names that do not exist, and each import from a
/// room to one it may not use, with its line.
fn room_report(rooms: &[Room], sources: &[(String, String)], edges: &Edges) -> Vec<String> {
    let mut report = Vec::new();
    let names: BTreeSet<&str> = rooms.iter().map(|r| r.name.as_str()).collect();
    for r in rooms {
        for m in r.may_import.iter().filter(|m| !names.contains(m.as_str())) {
            report.push(format!("room {} may import {m}, which is no room", r.name));
        }
    }
    for (f, _) in sources.iter().filter(|(f, _)| f != "main.rs") {
        if room_of(rooms, f).is_none() {
            report.push(format!("src/{f} is in no room of ARCHITECTURE.md"));
        }
    }
    for (from, targets) in edges {
        let Some(here) = room_of(rooms, from) else {
            continue;
        };
        for (to, (line, text)) in targets {
            let Some(there) = room_of(rooms, to) else { continue };
            // `engine` in the table allows every room under it (`engine/…`).
            let allowed = here.may_import.iter().any(|m| {
                there.name == *m
                    || there
                        .name
                        .strip_prefix(m.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
            if here.name != there.name && !allowed {
                report.push(format!(
                    "room {} may not import room {}: src/{from}:{line}: {text}",
                    here.name, there.name
                ));
            }
        }
    }
    report
}

fn architecture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn each_room_imports_only_the_rooms_architecture_md_allows() {
    let rooms = rooms_of(&architecture());
    assert!(
        rooms.len() >= 10,
        "ARCHITECTURE.md's table gave {} rooms",
        rooms.len()
    );
    let sources = sources();
    let report = room_report(&rooms, &sources, &import_graph_of(&sources));
    assert!(report.is_empty(), "rooms:\n  {}", report.join("\n  "));
}

/// The checker itself: a planted forbidden import, a circle (through `use super::…`, an
/// inline `crate::…` path and a `pub use` re-export) and an overlong file are each caught.
#[test]
fn the_checker_catches_a_planted_circle_a_forbidden_import_and_a_long_file() {
    let table = "<!-- rooms -->\n| room | folders | may import |\n| --- | --- | --- |\n\
                 | low | `src/engine/low/` | nothing |\n| high | `src/engine/high/`, `src/lib.rs` | low |\n\
                 <!-- /rooms -->";
    let rooms = rooms_of(table);
    assert_eq!(rooms.len(), 2);
    let file = |f: &str, text: &str| (f.to_string(), text.to_string());
    let clean = vec![
        file("lib.rs", "pub mod engine;\n"),
        file("engine/mod.rs", "pub mod high;\npub mod low;\n"),
        file("engine/low/mod.rs", "pub mod a;\npub struct Low;\n"),
        file("engine/low/a.rs", "pub struct A;\n"),
        file(
            "engine/high/mod.rs",
            "pub mod b;\nuse crate::engine::low::a::A;\n",
        ),
        file("engine/high/b.rs", "use super::super::low::Low;\n"),
    ];
    let edges = import_graph_of(&clean);
    assert!(edges["engine/high/b.rs"].contains_key("engine/low/mod.rs"));
    assert!(circle_report(&edges).is_empty());
    // engine/mod.rs is in no room of this table: only it is reported.
    assert_eq!(
        room_report(&rooms, &clean, &edges),
        ["src/engine/mod.rs is in no room of ARCHITECTURE.md"]
    );

    // The low room re-exports a name of the high room (pub use) and the high room's file
    // imports the low room through it: a forbidden import and a circle.
    let mut planted = clean.clone();
    planted[3] = file(
        "engine/low/a.rs",
        "pub struct A;\npub use crate::engine::high::b::B;\nfn f() { let _ = super::Low; }\n",
    );
    planted[5] = file(
        "engine/high/b.rs",
        "pub struct B;\nuse crate::engine::low::a::A;\n",
    );
    let edges = import_graph_of(&planted);
    let circles = circle_report(&edges);
    assert!(
        circles.iter().any(
            |l| l.contains("engine/high/b.rs -> engine/low/a.rs -> engine/high/b.rs")
                || l.contains("engine/low/a.rs -> engine/high/b.rs -> engine/low/a.rs")
        ),
        "{circles:?}"
    );
    let rooms_said = room_report(&rooms, &planted, &edges);
    assert!(
        rooms_said
            .iter()
            .any(|l| l.starts_with("room low may not import room high: src/engine/low/a.rs:2")),
        "{rooms_said:?}"
    );

    // An inline path (no `use`) counts too.
    planted[2] = file(
        "engine/low/mod.rs",
        "pub mod a;\nfn g() { crate::engine::high::b::f(); }\n",
    );
    planted[3] = file("engine/low/a.rs", "pub struct A;\n");
    let edges = import_graph_of(&planted);
    assert!(
        room_report(&rooms, &planted, &edges)
            .iter()
            .any(|l| l.contains("src/engine/low/mod.rs:2"))
    );

    let long = vec![file("engine/low/long.rs", &"let x = 1;\n".repeat(BUDGET + 1))];
    assert_eq!(
        over_budget(&long),
        [format!("src/engine/low/long.rs: {} lines", BUDGET + 1)]
    );
    assert!(over_budget(&clean).is_empty());
}
