//! The crate's layers, read from its sources: a module names only modules of
//! its own layer or of the layers below it, and no two modules of the crate
//! import each other, directly or around a circle; in the folders named in
//! [`ONE_WAY_FOLDERS`], no two files either.
//!
//! The layers, top to bottom, are the folders of `src/`: `cli`, `tools`,
//! `protocol`, `engine`, `rules`, `util`. A module here is a layer's folder
//! or file one level down (`rules::board`, `engine::search`, `util::rng`);
//! a layer's own `mod.rs` is the module named by the layer alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// The module a path names: its layer and the layer's module below it.
fn module_of(path: &[String]) -> Option<String> {
    let layer = path.first()?;
    rank(layer)?;
    Some(match path.get(1) {
        Some(m) if m.chars().next().is_some_and(|c| c.is_lowercase()) => format!("{layer}::{m}"),
        _ => layer.clone(),
    })
}

struct Crate {
    /// Module -> the modules its code outside the tests names, with a file
    /// that names each. Tests may set their cases up with modules above
    /// the one they test (the set of variants, say), so only the code the
    /// engine runs counts for circles.
    edges: BTreeMap<String, BTreeMap<String, String>>,
    /// (file, its layer, the higher layer it names, the path).
    upward: Vec<(String, String, String, String)>,
}

fn read_crate(src: &Path) -> Crate {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut upward = Vec::new();
    // The files of test modules, `#[cfg(test)] mod NAME;` in their parent.
    let mut test_files = BTreeSet::new();
    for file in &files {
        let (_, names) = without_tests(&code_only(&std::fs::read_to_string(file).unwrap()));
        let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
        let dir = if is_mod_rs {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for name in names {
            test_files.insert(dir.join(format!("{name}.rs")));
            test_files.insert(dir.join(name).join("mod.rs"));
        }
    }
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let own = module_path(relative);
        let Some(own_module) = module_of(&own) else {
            continue; // lib.rs and main.rs stand above the layers
        };
        let own_rank = rank(&own[0]).unwrap();
        let is_mod_rs = relative.file_name().is_some_and(|n| n == "mod.rs");
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let (engine_code, _) = without_tests(&code);
        let engine_code = if test_files.contains(&file) {
            String::new()
        } else {
            engine_code
        };
        let runs: Vec<String> = named_paths(&engine_code, &own, is_mod_rs)
            .iter()
            .filter_map(|p| module_of(p))
            .collect();
        for path in named_paths(&code, &own, is_mod_rs) {
            let Some(named) = module_of(&path) else {
                continue;
            };
            let named_rank = rank(&path[0]).unwrap();
            let shown = relative.display().to_string();
            if named_rank < own_rank {
                upward.push((
                    shown.clone(),
                    own[0].clone(),
                    path[0].clone(),
                    path.join("::"),
                ));
            }
            if named != own_module && runs.contains(&named) {
                edges
                    .entry(own_module.clone())
                    .or_default()
                    .entry(named)
                    .or_insert(shown);
            }
        }
    }
    Crate { edges, upward }
}

/// The circles of the module graph: each strongly connected set of more
/// than one module, with the files that close it.
fn circles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges
        .keys()
        .chain(edges.values().flat_map(|m| m.keys()))
        .collect();
    let reaches = |from: &String| -> BTreeSet<String> {
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
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for n in &nodes {
        if done.contains(*n) || !reach[n].contains(*n) {
            continue;
        }
        let group: Vec<String> = nodes
            .iter()
            .filter(|m| reach[n].contains(**m) && reach[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        let mut shown = Vec::new();
        for a in &group {
            for b in &group {
                if let Some(file) = edges.get(a).and_then(|m| m.get(b)) {
                    shown.push(format!("{a} -> {b} ({file})"));
                }
            }
            done.insert(a.clone());
        }
        found.push(shown);
    }
    found
}

/// Folders of `src/` whose files must not import each other around a
/// circle either (as paths below `src/`).
const ONE_WAY_FOLDERS: [&str; 1] = ["protocol/xboard"];

/// The imports between the files of one folder of `src/` (`folder` as a
/// path below it): each file or subfolder -> the others of the folder that
/// its code outside the tests names, with a file that names each. The
/// folder's own `mod.rs` stands above its files and is left out.
fn file_edges(src: &Path, folder: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let dir = src.join(folder);
    let base = module_path(&Path::new(folder).join("mod.rs"));
    let mut siblings = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name != "mod" && (path.is_dir() || path.extension().is_some_and(|e| e == "rs")) {
            siblings.insert(name);
        }
    }
    let mut files = Vec::new();
    sources(&dir, &mut files);
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let full = |name: &str| format!("{}::{name}", base.join("::"));
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let own = module_path(relative);
        let Some(own_sibling) = own.get(base.len()) else {
            continue;
        };
        let is_mod_rs = relative.file_name().is_some_and(|n| n == "mod.rs");
        let (engine_code, _) = without_tests(&code_only(&std::fs::read_to_string(&file).unwrap()));
        for path in named_paths(&engine_code, &own, is_mod_rs) {
            let Some(named) = path.get(base.len()).filter(|_| path.starts_with(&base)) else {
                continue;
            };
            if named != own_sibling && siblings.contains(named) {
                edges
                    .entry(full(own_sibling))
                    .or_default()
                    .entry(full(named))
                    .or_insert_with(|| relative.display().to_string());
            }
        }
    }
    edges
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
fn no_module_imports_another_around_a_circle() {
    let krate = read_crate(&src());
    let found = circles(&krate.edges);
    let report: Vec<String> = found.iter().map(|c| c.join("; ")).collect();
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

#[test]
fn the_files_of_one_way_folders_import_one_way() {
    let report: Vec<String> = ONE_WAY_FOLDERS
        .iter()
        .flat_map(|folder| circles(&file_edges(&src(), folder)))
        .map(|c| c.join("; "))
        .collect();
    assert!(
        report.is_empty(),
        "file import circles:\n{}",
        report.join("\n")
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

#[test]
fn an_upward_import_in_a_planted_tree_is_found() {
    let dir = std::env::temp_dir().join(format!("amalgam-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rules/board")).unwrap();
    std::fs::create_dir_all(dir.join("engine")).unwrap();
    std::fs::write(dir.join("rules/mod.rs"), "pub mod board;\n").unwrap();
    std::fs::write(
        dir.join("rules/board/mod.rs"),
        "// crate::engine in a comment does not count\nconst S: &str = \"crate::tools\";\nuse crate::{util::x, engine::Searcher};\n",
    )
    .unwrap();
    std::fs::write(dir.join("engine/mod.rs"), "use super::rules::board::X;\n").unwrap();
    std::fs::create_dir_all(dir.join("util")).unwrap();
    std::fs::write(
        dir.join("util/mod.rs"),
        "#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod more { use crate::util::x::Y; use crate::engine::Z; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("util/x.rs"), "use crate::util::W;\n").unwrap();
    std::fs::write(dir.join("util/tests.rs"), "use crate::util::x::V;\n").unwrap();
    let krate = read_crate(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let upward: Vec<&str> = krate.upward.iter().map(|u| u.3.as_str()).collect();
    // A test module's upward import counts; its module names do not close
    // circles (util::x -> util is a circle only with util's tests).
    assert_eq!(upward, ["engine::Searcher", "engine::Z"]);
    let found = circles(&krate.edges);
    assert_eq!(found.len(), 1, "engine <-> rules::board only: {found:?}");
}

/// A fresh folder under the temporary one with these files (paths and
/// texts) written in it.
fn plant(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amalgam-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn a_file_circle_in_a_planted_folder_is_found() {
    // a -> b -> a closes a circle; c names only its parent and b's tests.
    let dir = plant(
        "files",
        &[
            (
                "protocol/xboard/mod.rs",
                "mod a;\nmod b;\nmod c;\nfn say() {}\n",
            ),
            ("protocol/xboard/a.rs", "use super::b::X;\n"),
            (
                "protocol/xboard/b.rs",
                "use super::{say, a::Y};\n#[cfg(test)]\nmod tests { use super::super::c::Z; }\n",
            ),
            (
                "protocol/xboard/c.rs",
                "use crate::protocol::xboard::say;\n",
            ),
        ],
    );
    let edges = file_edges(&dir, "protocol/xboard");
    let _ = std::fs::remove_dir_all(&dir);
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2, "a -> b and b -> a only: {found:?}");
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
    assert_eq!(module_of(&paths[0]).unwrap(), "rules::board");
    assert_eq!(paths[1], ["rules", "movegen", "m"]);
    let own = module_path(Path::new("rules/board/mod.rs"));
    let paths = named_paths("use super::movegen::legal;", &own, true);
    assert_eq!(module_of(&paths[0]).unwrap(), "rules::movegen");
}
