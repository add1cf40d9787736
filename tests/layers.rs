//! The library's layering, checked from its source: every `crate::`, `super::` and `self::`
//! path in `src/` (outside comments and unit-test modules, inline or in a `tests.rs` file) names a module of the same layer or
//! of a layer below, and no two files depend on each other, directly or through others,
//! except where the grammar itself is recursive. ARCHITECTURE.md describes the same order.
//!
//! A path through a re-export counts as a dependency on the module that defines the item, and
//! a re-export itself is no dependency: a facade (`key.rs`, `message.rs`) that only re-exports
//! adds no edge of its own.
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules from the bottom up. A module may use those of its own layer and below.
const LAYERS: &[&[&str]] = &[
    &["types", "error", "limits"],
    &["crypto"],
    &["packet"],
    &["pipeline"],
    &["armor"],
    &["signature"],
    &["key"],
    &["message"],
    &["async_io"],
];

/// The Python binding's modules (`python/src`), from the bottom up, checked the same way.
const PYTHON_LAYERS: &[&[&str]] =
    &[&["errors", "convert"], &["keys"], &["message", "batch"], &["stream", "seekable", "arrow"]];

/// Modules outside the layers: the crate root and the hidden entry points for the fuzzer
/// and the benchmarks may use anything (and nothing may use them).
const ABOVE_ALL: &[&str] = &["", "fuzzing", "bench_internals"];

/// File-level cycles the grammar makes: a signature's subpackets may embed a signature
/// (RFC 9580 §5.2.3.7 and §5.2.3.34).
const ALLOWED_CYCLES: &[&[&str]] = &[&["packet::signature", "packet::subpacket"]];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Dollar,
    Other,
}

fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' {
            // Strings may hold anything; skip them (raw strings are not used in src/).
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn tokens(src: &str) -> Vec<Tok> {
    let s = strip_comments(src);
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
            continue;
        }
        if ch == '\'' {
            // A lifetime or a char literal: skip the name, or the literal.
            if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
            out.push(Tok::Other);
            continue;
        }
        out.push(match ch {
            ':' if c.get(i + 1) == Some(&':') => {
                i += 1;
                Tok::Path
            }
            '{' => Tok::Open,
            '}' => Tok::Close,
            ',' => Tok::Comma,
            ';' => Tok::Semi,
            '*' => Tok::Star,
            '$' => Tok::Dollar,
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            _ => Tok::Other,
        });
        i += 1;
    }
    out
}

/// What one file says: the paths it uses (absolute, as segments) and the names it
/// re-exports (name → absolute path).
#[derive(Default)]
struct FileUses {
    paths: Vec<Vec<String>>,
    reexports: BTreeMap<String, Vec<String>>,
}

struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
}

impl Parser<'_> {
    fn ident(&self, at: usize) -> Option<&str> {
        match self.t.get(at) {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }

    /// Reads a use tree after `prefix::`; pushes each full path with its visible name.
    fn tree(&mut self, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        let mut path = prefix;
        loop {
            match self.t.get(self.i) {
                Some(Tok::Open) => {
                    self.i += 1;
                    loop {
                        match self.t.get(self.i) {
                            Some(Tok::Close) => {
                                self.i += 1;
                                return;
                            }
                            Some(Tok::Comma) => self.i += 1,
                            None => return,
                            _ => self.tree(path.clone(), out),
                        }
                    }
                }
                Some(Tok::Star) => {
                    self.i += 1;
                    out.push((path, "*".into()));
                    return;
                }
                Some(Tok::Ident(s)) => {
                    let s = s.clone();
                    self.i += 1;
                    if s != "self" {
                        path.push(s);
                    }
                    if self.t.get(self.i) == Some(&Tok::Path) {
                        self.i += 1;
                        continue;
                    }
                    let mut name = path.last().cloned().unwrap_or_default();
                    if self.ident(self.i) == Some("as") {
                        name = self.ident(self.i + 1).unwrap_or_default().to_owned();
                        self.i += 2;
                    }
                    out.push((path, name));
                    return;
                }
                _ => {
                    // Not a use tree after all (an expression): step over the token.
                    self.i += 1;
                    out.push((path, String::new()));
                    return;
                }
            }
        }
    }
}

/// `module` is the file's module path; `super`/`self` resolve against it and against the
/// inline modules (other than unit tests, which are skipped) it is inside.
fn parse_file(module: &[String], src: &str, modules: &BTreeSet<String>) -> FileUses {
    let t = tokens(src);
    let mut uses = FileUses::default();
    let mut p = Parser { t: &t, i: 0 };
    // Inline modules: (name, brace depth at which it closes); `skip` while in a test module.
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut cfg_test = false;
    while p.i < t.len() {
        let tok = t[p.i].clone();
        match tok {
            Tok::Open => {
                depth += 1;
                p.i += 1;
                continue;
            }
            Tok::Close => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|m| m.1 == depth) {
                    let _ = inline.pop();
                }
                p.i += 1;
                continue;
            }
            _ => {}
        }
        if p.ident(p.i) == Some("cfg") && p.ident(p.i + 2) == Some("test") {
            cfg_test = true;
        }
        if p.ident(p.i) == Some("mod") && p.t.get(p.i + 2) == Some(&Tok::Open) {
            let name = p.ident(p.i + 1).unwrap_or_default().to_owned();
            let skip = cfg_test || inline.last().is_some_and(|m| m.2);
            inline.push((name, depth, skip));
            cfg_test = false;
            p.i += 2;
            continue;
        }
        if matches!(tok, Tok::Semi) || p.ident(p.i) == Some("fn") || p.ident(p.i) == Some("use") {
            // An attribute ends at the item it qualifies.
            if p.ident(p.i) != Some("use") {
                cfg_test = false;
            }
        }
        let skipping = inline.last().is_some_and(|m| m.2);
        let here: Vec<String> = module.iter().cloned().chain(inline.iter().map(|m| m.0.clone())).collect();
        let use_at = p.i;
        let start = match p.ident(p.i) {
            Some("crate") if p.i == 0 || t[p.i - 1] != Tok::Dollar => Some(Vec::new()),
            Some("super") if (p.i == 0 || t[p.i - 1] != Tok::Path) && t.get(p.i + 1) == Some(&Tok::Path) => {
                let mut base = here.clone();
                let mut j = p.i;
                while p.ident(j) == Some("super") && t.get(j + 1) == Some(&Tok::Path) {
                    let _ = base.pop();
                    j += 2;
                }
                p.i = j - 2;
                Some(base)
            }
            Some("self") if (p.i == 0 || t[p.i - 1] != Tok::Path) && t.get(p.i + 1) == Some(&Tok::Path) => {
                Some(here.clone())
            }
            // `use child::...`: a path relative to this module (2018 edition).
            Some(child)
                if p.i >= 1
                    && p.ident(p.i - 1) == Some("use")
                    && t.get(p.i + 1) == Some(&Tok::Path)
                    && modules.contains(
                        &here.iter().cloned().chain([child.to_owned()]).collect::<Vec<_>>().join("::"),
                    ) =>
            {
                Some(here.clone())
            }
            _ => None,
        };
        let Some(base) = start else {
            p.i += 1;
            continue;
        };
        if t.get(p.i + 1) != Some(&Tok::Path) {
            p.i += 1;
            continue;
        }
        // A `pub use` (any visibility) re-exports: look back for `pub ... use`.
        let is_use = use_at >= 1 && p.ident(use_at - 1) == Some("use");
        let relative = !matches!(p.ident(p.i), Some("crate" | "super" | "self"));
        let is_pub_use = is_use && {
            let mut k = use_at - 1;
            let mut found = false;
            while k > 0 {
                k -= 1;
                match &t[k] {
                    Tok::Ident(s) if s == "pub" => {
                        found = true;
                        break;
                    }
                    Tok::Ident(s) if s == "crate" || s == "super" || s == "in" => {}
                    Tok::Other => {} // parentheses of `pub(crate)`
                    _ => break,
                }
            }
            found
        };
        p.i += if relative { 0 } else { 2 };
        let mut found = Vec::new();
        p.tree(base, &mut found);
        if skipping {
            continue;
        }
        for (path, name) in found {
            // A re-export is the module tree's shape, not a dependency of this file's code.
            if is_pub_use {
                if !name.is_empty() && name != "*" {
                    let _ = uses.reexports.insert(name, path);
                }
            } else {
                uses.paths.push(path);
            }
        }
    }
    uses
}

fn module_of(src_dir: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src_dir).unwrap().with_extension("");
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if segs.last().is_some_and(|s| s == "lib" || s == "mod") {
        let _ = segs.pop();
    }
    segs
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every Rust file under `src_dir`: module path → file text.
fn sources_under(src_dir: &Path) -> BTreeMap<String, String> {
    let mut paths = Vec::new();
    rust_files(src_dir, &mut paths);
    paths.iter().map(|f| (module_of(src_dir, f).join("::"), std::fs::read_to_string(f).unwrap())).collect()
}

/// The file (module) that defines what `path` names, following re-exports.
fn resolve(path: &[String], files: &BTreeMap<String, FileUses>, depth: usize) -> String {
    let mut module: Vec<String> = Vec::new();
    for (k, seg) in path.iter().enumerate() {
        let mut next = module.clone();
        next.push(seg.clone());
        if files.contains_key(&next.join("::")) {
            module = next;
            continue;
        }
        if depth < 8
            && let Some(target) = files.get(&module.join("::")).and_then(|f| f.reexports.get(seg))
        {
            let mut full = target.clone();
            full.extend(path[k + 1..].iter().cloned());
            return resolve(&full, files, depth + 1);
        }
        break;
    }
    module.join("::")
}

fn layer(module: &str, layers: &[&[&str]]) -> Option<usize> {
    let top = module.split("::").next().unwrap_or("");
    layers.iter().position(|l| l.contains(&top))
}

#[test]
fn modules_use_only_their_layer_and_those_below_without_cycles() {
    let src_dir = manifest_dir().join("src");
    let sources = sources_under(&src_dir);
    assert!(sources.len() > 20, "found only {} files under {}", sources.len(), src_dir.display());
    let problems = problems(&sources, LAYERS);
    assert!(problems.is_empty(), "layering problems:\n  {}", problems.join("\n  "));
}

#[test]
fn python_binding_modules_use_only_their_layer_and_those_below_without_cycles() {
    let src_dir = manifest_dir().join("python").join("src");
    if !src_dir.exists() {
        eprintln!("skipped: no {} (the published package does not carry the binding)", src_dir.display());
        return;
    }
    let sources = sources_under(&src_dir);
    assert!(sources.len() > 4, "found only {} files under {}", sources.len(), src_dir.display());
    let problems = problems(&sources, PYTHON_LAYERS);
    assert!(problems.is_empty(), "layering problems in python/src:\n  {}", problems.join("\n  "));
}

/// The check itself finds what it is for: a use of a layer above, a use of the crate root, and
/// a cycle between files of one layer, through `super::`, a group and a re-export.
#[test]
fn the_check_finds_upward_uses_root_uses_and_cycles() {
    let sources: BTreeMap<String, String> = [
        ("", "mod key; mod packet; pub use crate::packet::Thing;"),
        ("packet", "use crate::key::{Cert, self};\nuse crate::Thing;\npub(crate) struct Thing;"),
        ("key", "mod a; mod b; pub use a::Cert;"),
        ("key::a", "use super::b::Y;\npub struct Cert;\n#[cfg(test)]\nmod tests { use crate::message::X; }"),
        ("key::b", "use crate::key::Cert;\npub struct Y;"),
        ("key::b::tests", "use crate::message::X;"),
    ]
    .into_iter()
    .map(|(m, s)| (m.to_owned(), s.to_owned()))
    .collect();
    let found = problems(&sources, LAYERS);
    let expect = [
        "packet -> key::a: a layer above (crate::key::Cert)",
        "packet -> key: a layer above (crate::key)",
        "packet: uses the crate root (crate::Thing)",
        "file-level cycle: key::a <-> key::b",
    ];
    for e in expect {
        assert!(found.iter().any(|p| p.starts_with(e)), "missing {e:?} in {found:#?}");
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");
}

/// Every layering problem in `sources` (module path → file text), by `layers`.
fn problems(sources: &BTreeMap<String, String>, layers: &[&[&str]]) -> Vec<String> {
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut files = BTreeMap::new();
    for (m, text) in sources {
        let segs: Vec<String> =
            if m.is_empty() { Vec::new() } else { m.split("::").map(str::to_owned).collect() };
        let _ = files.insert(m.clone(), parse_file(&segs, text, &modules));
    }
    let mut problems = Vec::new();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, uses) in &files {
        let top = from.split("::").next().unwrap_or("");
        // A file of unit tests (`foo/tests.rs`, declared `#[cfg(test)] mod tests;`) is skipped
        // like an inline test module.
        if ABOVE_ALL.contains(&top) || from.rsplit("::").next() == Some("tests") {
            continue;
        }
        let Some(own) = layer(from, layers) else {
            problems.push(format!("{from}: its top-level module is in no layer (tests/layers.rs LAYERS)"));
            continue;
        };
        for path in &uses.paths {
            if path.first().is_some_and(|top| !modules.contains(top)) {
                problems.push(format!("{from}: uses the crate root (crate::{})", path.join("::")));
                continue;
            }
            let to = resolve(path, &files, 0);
            if &to == from {
                continue;
            }
            match layer(&to, layers) {
                Some(l) if l > own => {
                    problems.push(format!("{from} -> {to}: a layer above (crate::{})", path.join("::")))
                }
                Some(_) => {}
                None => problems.push(format!("{from} -> {to}: not in a layer (crate::{})", path.join("::"))),
            }
            let _ = graph.entry(from.clone()).or_default().insert(to);
        }
    }

    for cycle in strongly_connected(&graph) {
        let allowed = ALLOWED_CYCLES.iter().any(|a| {
            let mut a: Vec<&str> = a.to_vec();
            a.sort_unstable();
            let mut c: Vec<&str> = cycle.iter().map(String::as_str).collect();
            c.sort_unstable();
            a == c
        });
        if !allowed {
            let edges: Vec<String> = cycle
                .iter()
                .flat_map(|a| {
                    graph[a].iter().filter(|b| cycle.contains(b)).map(move |b| format!("{a} -> {b}"))
                })
                .collect();
            problems.push(format!("file-level cycle: {}\n    ({})", cycle.join(" <-> "), edges.join(", ")));
        }
    }
    problems
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        let _ = s.index.insert(v, i);
        let _ = s.low.insert(v, i);
        s.stack.push(v);
        let _ = s.on_stack.insert(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                let _ = s.on_stack.remove(w);
                comp.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The package's directory: as `cargo test` gives it when it runs the test (a build reused from
/// another copy of the package still finds this copy's files), else where it was built.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}
