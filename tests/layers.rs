//! The crate's layers, read from its sources: a module names only modules of
//! its own layer or of the layers below it, and no two modules of the crate
//! import each other, directly or around a circle, at any depth.
//!
//! The layers, top to bottom, are the folders of `src/`: `cli`, `tools`,
//! `protocol`, `engine`, `rules`, `util`. Every source file is a module
//! (`rules/movegen/plain.rs` is `rules::movegen::plain`, a folder's
//! `mod.rs` the folder's module). Circles are looked for among the
//! children of every module, from the layers down to single files: two
//! files of one folder, or two folders (each with everything below it),
//! that import each other, directly or around a circle. A folder's
//! `mod.rs` stands beside its children; its own children it names by bare
//! name (`use walker::man_moves;`), which declares and re-exports them and
//! is not read as an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from the crate's root: `["rules", "movegen", "plain"]`.
type ModPath = Vec<String>;

/// The layers, from the top down.
const LAYERS: [&str; 6] = ["cli", "tools", "protocol", "engine", "rules", "util"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// Every `.rs` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file below `src/`: `rules/board/fen.rs` is
/// `[rules, board, fen]`, `rules/board/mod.rs` is `[rules, board]`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The text with comments, string literals and character literals blanked,
/// so that only code names modules.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while j < chars.len() && chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) == Some(&'"') {
                j += 1;
                loop {
                    if j >= chars.len() {
                        break;
                    }
                    if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            } else {
                out.push(c);
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// A quote that opens a character literal rather than a lifetime.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!(
        (chars.get(i + 1), chars.get(i + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

/// The code without its `#[cfg(test)] mod NAME { ... }` blocks, and the
/// names of the test modules it declares in files of their own
/// (`#[cfg(test)] mod NAME;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let after = rest[at + MARK.len()..].trim_start();
        let Some(item) = after.strip_prefix("mod ") else {
            out.push_str(MARK);
            rest = &rest[at + MARK.len()..];
            continue;
        };
        let name: String = item
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let tail = item[name.len()..].trim_start();
        if let Some(tail) = tail.strip_prefix(';') {
            test_files.push(name);
            rest = tail;
        } else if let Some(body) = tail.strip_prefix('{') {
            let mut depth = 1;
            let mut end = body.len();
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            rest = &body[end..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    (out, test_files)
}

/// The paths a file's code names from the crate's root: `crate::a::b`,
/// `$crate::a`, the items of `crate::{a::b, c}` groups, and `super::` and
/// `self::` paths resolved against the file's own module path.
fn named_paths(code: &str, own: &[String], is_mod_rs: bool) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        if ident_before(&bytes, i) {
            i += 1;
            continue;
        }
        let rest: String = bytes[i..bytes.len().min(i + 8)].iter().collect();
        let (base, skip): (Vec<String>, usize) = if rest.starts_with("crate::") {
            (Vec::new(), 7)
        } else if rest.starts_with("super::") {
            // The parent of a file's module is its folder's module; the
            // parent of a folder's `mod.rs` is the folder above.
            let mut base = own.to_vec();
            if !is_mod_rs || !base.is_empty() {
                base.pop();
            }
            (base, 7)
        } else if rest.starts_with("self::") {
            (own.to_vec(), 6)
        } else {
            i += 1;
            continue;
        };
        i += skip;
        for path in paths_at(&bytes, &mut i) {
            let mut full = base.clone();
            for segment in path {
                match segment.as_str() {
                    "super" => {
                        full.pop();
                    }
                    "self" => {}
                    _ => full.push(segment),
                }
            }
            found.push(full);
        }
    }
    found
}

/// The path or `{...}` group of paths that starts at `i`, consumed.
fn paths_at(chars: &[char], i: &mut usize) -> Vec<Vec<String>> {
    if chars.get(*i) == Some(&'{') {
        *i += 1;
        let mut all = Vec::new();
        loop {
            while *i < chars.len() && (chars[*i].is_whitespace() || chars[*i] == ',') {
                *i += 1;
            }
            match chars.get(*i) {
                None => return all,
                Some('}') => {
                    *i += 1;
                    return all;
                }
                _ => {
                    let before = *i;
                    all.extend(paths_at(chars, i));
                    if *i == before {
                        *i += 1;
                    }
                }
            }
        }
    }
    let mut path = Vec::new();
    loop {
        let start = *i;
        while *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
            *i += 1;
        }
        if *i == start {
            break;
        }
        path.push(chars[start..*i].iter().collect::<String>());
        if chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':') {
            *i += 2;
            if chars.get(*i) == Some(&'{') {
                let groups = paths_at(chars, i);
                return groups
                    .into_iter()
                    .map(|g| path.iter().cloned().chain(g).collect())
                    .collect();
            }
        } else {
            break;
        }
    }
    if path.is_empty() {
        Vec::new()
    } else {
        vec![path]
    }
}

/// The module a path names: the longest start of it that is the module of
/// a source file (`rules::movegen::walker::emit` names
/// `rules::movegen::walker`); none outside the layers.
fn module_of(path: &[String], files: &BTreeMap<ModPath, String>) -> Option<ModPath> {
    rank(path.first()?)?;
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| files.contains_key(m))
}

struct Crate {
    /// Each module's source file, as a path below `src/`.
    files: BTreeMap<ModPath, String>,
    /// Module -> the modules its code outside the tests names. Tests may
    /// set their cases up with modules above the one they test (the set of
    /// variants, say), so only the code the engine runs counts for circles.
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
    /// (file, its layer, the higher layer it names, the path).
    upward: Vec<(String, String, String, String)>,
}

/// The crate whose sources are below `src`.
fn read_crate(src: &Path) -> Crate {
    let mut files = Vec::new();
    sources(src, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|file| {
            let relative = file.strip_prefix(src).unwrap();
            let shown = relative.to_string_lossy().replace('\\', "/");
            (shown, std::fs::read_to_string(file).unwrap())
        })
        .collect();
    read_sources(&texts)
}

/// The crate made of `(path below src/, text)` pairs.
fn read_sources(texts: &[(String, String)]) -> Crate {
    // The files of test modules, `#[cfg(test)] mod NAME;` in their parent.
    let mut test_files = BTreeSet::new();
    for (file, text) in texts {
        let (_, names) = without_tests(&code_only(text));
        let file = Path::new(file);
        let dir = if file.file_name().is_some_and(|n| n == "mod.rs") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for name in names {
            test_files.insert(dir.join(format!("{name}.rs")));
            test_files.insert(dir.join(name).join("mod.rs"));
        }
    }
    let mut files = BTreeMap::new();
    for (file, _) in texts {
        let own = module_path(Path::new(file));
        if own.first().is_some_and(|layer| rank(layer).is_some()) {
            files.insert(own, file.clone());
        }
    }
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    let mut upward = Vec::new();
    for (file, text) in texts {
        let own = module_path(Path::new(file));
        // lib.rs and main.rs stand above the layers.
        let Some(own_rank) = own.first().and_then(|layer| rank(layer)) else {
            continue;
        };
        let is_mod_rs = file.ends_with("mod.rs");
        let code = code_only(text);
        for path in named_paths(&code, &own, is_mod_rs) {
            let Some(named_rank) = path.first().and_then(|layer| rank(layer)) else {
                continue;
            };
            if named_rank < own_rank {
                upward.push((
                    file.clone(),
                    own[0].clone(),
                    path[0].clone(),
                    path.join("::"),
                ));
            }
        }
        if test_files.contains(Path::new(file)) {
            continue;
        }
        let (engine_code, _) = without_tests(&code);
        for path in named_paths(&engine_code, &own, is_mod_rs) {
            if let Some(named) = module_of(&path, &files)
                && named != own
            {
                edges.entry(own.clone()).or_default().insert(named);
            }
        }
    }
    Crate {
        files,
        edges,
        upward,
    }
}

/// A circle of modules, children of one module, that import each other.
#[derive(Debug)]
struct Circle {
    /// The module whose children close it (`rules::movegen`; `crate` for
    /// the layers).
    within: String,
    /// Its members: files (`rules/movegen/plain.rs`) and folders
    /// (`engine/eval/`, with everything below).
    members: Vec<String>,
    /// Each import between members: `a -> b`, with the file that makes it
    /// where `a` is a folder.
    imports: Vec<String>,
}

impl std::fmt::Display for Circle {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        writeln!(f, "in {}: {}", self.within, self.members.join(", "))?;
        for import in &self.imports {
            writeln!(f, "    {import}")?;
        }
        Ok(())
    }
}

/// The circles among the children of every module: each strongly
/// connected set of more than one child, where a child holds its file and
/// everything below it, and a module's own file stands beside its children.
/// A circle is found once, below the deepest module that holds all of it.
fn circles(krate: &Crate) -> Vec<Circle> {
    let parents: BTreeSet<ModPath> = krate
        .files
        .keys()
        .flat_map(|m| (0..m.len()).map(|n| m[..n].to_vec()))
        .collect();
    let mut found = Vec::new();
    for parent in &parents {
        // The child of `parent` that holds module `m`, if `parent` holds it.
        let child = |m: &ModPath| -> Option<ModPath> {
            m.starts_with(parent)
                .then(|| m[..(parent.len() + 1).min(m.len())].to_vec())
        };
        // Child -> child -> the first file that imports one from the other.
        let mut local: BTreeMap<ModPath, BTreeMap<ModPath, String>> = BTreeMap::new();
        for (from, named) in &krate.edges {
            for to in named {
                if let (Some(a), Some(b)) = (child(from), child(to))
                    && a != b
                {
                    local
                        .entry(a)
                        .or_default()
                        .entry(b)
                        .or_insert_with(|| krate.files[from].clone());
                }
            }
        }
        let shown = |m: &ModPath| -> String {
            let below = krate
                .files
                .keys()
                .any(|f| f.len() > m.len() && f.starts_with(m));
            if m != parent && below {
                format!("{}/", m.join("/"))
            } else {
                krate.files[m].clone()
            }
        };
        for group in strongly_connected(&local) {
            let mut imports = Vec::new();
            for a in &group {
                for b in &group {
                    if let Some(file) = local.get(a).and_then(|m| m.get(b)) {
                        let (a_shown, b_shown) = (shown(a), shown(b));
                        if *file == a_shown {
                            imports.push(format!("{a_shown} -> {b_shown}"));
                        } else {
                            imports.push(format!("{a_shown} -> {b_shown} (in {file})"));
                        }
                    }
                }
            }
            found.push(Circle {
                within: if parent.is_empty() {
                    "crate".to_string()
                } else {
                    parent.join("::")
                },
                members: group.iter().map(shown).collect(),
                imports,
            });
        }
    }
    found
}

/// The strongly connected sets of more than one node of a graph.
fn strongly_connected<T: Ord + Clone, W>(edges: &BTreeMap<T, BTreeMap<T, W>>) -> Vec<Vec<T>> {
    let nodes: BTreeSet<&T> = edges
        .keys()
        .chain(edges.values().flat_map(|m| m.keys()))
        .collect();
    let reaches = |from: &T| -> BTreeSet<T> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for next in edges.get(&n).into_iter().flat_map(|m| m.keys()) {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&T, BTreeSet<T>> = nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for n in &nodes {
        if done.contains(*n) || !reach[n].contains(*n) {
            continue;
        }
        let group: Vec<T> = nodes
            .iter()
            .filter(|m| reach[n].contains(**m) && reach[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        done.extend(group.iter().cloned());
        found.push(group);
    }
    found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn lower_layers_never_name_higher_ones() {
    let krate = read_crate(&src());
    let report: Vec<String> = krate
        .upward
        .iter()
        .map(|(file, own, higher, path)| format!("{file} ({own}) names {higher}: {path}"))
        .collect();
    assert!(
        report.is_empty(),
        "imports that point up:\n{}",
        report.join("\n")
    );
}

#[test]
fn no_modules_import_each_other_around_a_circle() {
    let found = circles(&read_crate(&src()));
    let report: Vec<String> = found.iter().map(|c| c.to_string()).collect();
    assert!(
        found.is_empty(),
        "{} import circles:\n{}",
        found.len(),
        report.join("")
    );
}

#[test]
fn every_folder_of_src_is_a_layer() {
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                rank(&name).is_some(),
                "src/{name} is not one of the layers {LAYERS:?}"
            );
        }
    }
}

// The reader of the sources, tried on text made for it: each test fails when
// the reader misses the import it plants.

/// Sources from `(path below src/, text)` pairs.
fn planted(files: &[(&str, &str)]) -> Crate {
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    read_sources(&texts)
}

#[test]
fn an_upward_import_in_a_planted_tree_is_found() {
    let krate = planted(&[
        ("rules/mod.rs", "pub mod board;\n"),
        (
            "rules/board/mod.rs",
            "// crate::engine in a comment does not count\nconst S: &str = \"crate::tools\";\nuse crate::{util::x, engine::Searcher};\n",
        ),
        ("engine/mod.rs", "use super::rules::board::X;\n"),
        (
            "util/mod.rs",
            "#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod more { use crate::util::x::Y; use crate::engine::Z; }\n",
        ),
        ("util/x.rs", "use crate::util::W;\n"),
        ("util/tests.rs", "use crate::util::x::V;\n"),
    ]);
    let upward: Vec<&str> = krate.upward.iter().map(|u| u.3.as_str()).collect();
    // A test module's upward import counts; its module names do not close
    // circles (util::x -> util is a circle only with util's tests).
    assert_eq!(upward, ["engine::Searcher", "engine::Z"]);
    let found = circles(&krate);
    assert_eq!(found.len(), 1, "engine <-> rules only: {found:?}");
    assert_eq!(found[0].within, "crate");
    assert_eq!(found[0].members, ["engine/mod.rs", "rules/"]);
}

#[test]
fn a_circle_between_files_at_any_depth_is_found_and_a_chain_is_not() {
    let krate = planted(&[
        ("rules/mod.rs", "pub mod gen;\npub mod other;\n"),
        ("rules/gen/mod.rs", "pub mod deep;\nmod free;\n"),
        (
            "rules/gen/deep/mod.rs",
            "mod a;\nmod b;\nmod c;\npub use a::f;\n",
        ),
        // a -> b -> c -> a, each named another way.
        (
            "rules/gen/deep/a.rs",
            "use super::b::g;\npub fn f() { g() }\n",
        ),
        (
            "rules/gen/deep/b.rs",
            "pub fn g() { crate::rules::gen::deep::c::h() }\n",
        ),
        (
            "rules/gen/deep/c.rs",
            "use super::{super::free::k, a::f};\n",
        ),
        // free <- c only, and other/x -> other/y without a way back (y's
        // test names x, which does not count).
        ("rules/gen/free.rs", "use crate::rules::types::T;\n"),
        ("rules/other/mod.rs", "mod x;\nmod y;\n"),
        ("rules/other/x.rs", "use super::y::Y;\n"),
        (
            "rules/other/y.rs",
            "pub struct Y;\n#[cfg(test)]\nmod tests { use super::super::x::X; }\n",
        ),
        ("rules/types.rs", "pub struct T;\n"),
    ]);
    let found = circles(&krate);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].within, "rules::gen::deep");
    assert_eq!(
        found[0].members,
        [
            "rules/gen/deep/a.rs",
            "rules/gen/deep/b.rs",
            "rules/gen/deep/c.rs"
        ]
    );
    assert_eq!(
        found[0].imports,
        [
            "rules/gen/deep/a.rs -> rules/gen/deep/b.rs",
            "rules/gen/deep/b.rs -> rules/gen/deep/c.rs",
            "rules/gen/deep/c.rs -> rules/gen/deep/a.rs"
        ]
    );
}

#[test]
fn a_circle_between_folders_is_found_with_the_files_that_close_it() {
    // No file imports one that imports it back, but the folders p and q
    // do: p/one -> q/two, q/three -> p/four.
    let krate = planted(&[
        ("engine/mod.rs", "pub mod p;\npub mod q;\n"),
        ("engine/p/mod.rs", "mod four;\nmod one;\n"),
        ("engine/p/one.rs", "use crate::engine::q::two::f;\n"),
        ("engine/p/four.rs", "pub fn g() {}\n"),
        ("engine/q/mod.rs", "pub mod three;\npub mod two;\n"),
        ("engine/q/two.rs", "pub fn f() {}\n"),
        ("engine/q/three.rs", "use crate::engine::p::four::g;\n"),
    ]);
    let found = circles(&krate);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].within, "engine");
    assert_eq!(found[0].members, ["engine/p/", "engine/q/"]);
    assert_eq!(
        found[0].imports,
        [
            "engine/p/ -> engine/q/ (in engine/p/one.rs)",
            "engine/q/ -> engine/p/ (in engine/q/three.rs)"
        ]
    );
}

#[test]
fn super_paths_resolve_from_the_files_module() {
    let own = module_path(Path::new("rules/board/fen.rs"));
    assert_eq!(own, ["rules", "board", "fen"]);
    let paths = named_paths(
        "use super::position::P; use super::super::movegen::m;",
        &own,
        false,
    );
    assert_eq!(paths[0], ["rules", "board", "position", "P"]);
    assert_eq!(paths[1], ["rules", "movegen", "m"]);
    let own = module_path(Path::new("rules/board/mod.rs"));
    let paths = named_paths("use super::movegen::legal;", &own, true);
    assert_eq!(paths[0], ["rules", "movegen", "legal"]);
    let files: BTreeMap<ModPath, String> = [
        (vec!["rules".to_string()], "rules/mod.rs".to_string()),
        (
            vec!["rules".to_string(), "movegen".to_string()],
            "rules/movegen/mod.rs".to_string(),
        ),
    ]
    .into();
    // The module named is the deepest file that the path reaches.
    assert_eq!(module_of(&paths[0], &files).unwrap(), ["rules", "movegen"]);
    assert_eq!(module_of(&["cli".to_string()], &files), None);
}
