//! Reader for `variants.ini` files: `[name]` and `[name:parent]` sections of
//! `key = value` lines. Every entry remembers its file and line so that errors
//! found later (unknown key, bad Betza, bad FEN) can point at it.

use std::collections::HashMap;
use std::fmt;

/// The longest line of inheritance: a section, its parent, its parent's
/// parent and so on. Real variants use two or three; the limit keeps
/// resolving a section (and finding cycles) cheap.
pub const MAX_INHERITANCE_DEPTH: usize = 32;

/// An error in an ini file, with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IniError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for IniError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for IniError {}

/// A variant file refused whole (see `VariantSet::load_file_checked`):
/// its name and every error found in it (at least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub errors: Vec<IniError>,
}

impl LoadError {
    fn first(&self) -> String {
        self.errors
            .first()
            .map_or_else(String::new, |e| e.to_string())
    }

    /// The refusal for the command line: the first error, and the command
    /// that lists them all.
    pub fn with_check_hint(&self) -> String {
        format!(
            "{} (run `amalgam check {}` for every error)",
            self.first(),
            self.file
        )
    }
}

/// The refusal in one line: the first error, and how many more.
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.first();
        match self.errors.len() {
            0 | 1 => write!(f, "{first} (file not loaded)"),
            n => write!(f, "{first} (and {} more errors; file not loaded)", n - 1),
        }
    }
}

impl std::error::Error for LoadError {}

/// One `key = value` line.
#[derive(Clone, Debug)]
pub struct Entry {
    pub key: String,
    pub value: String,
    pub file: String,
    pub line: usize,
}

impl Entry {
    /// An error located at this entry.
    pub fn error(&self, message: impl Into<String>) -> IniError {
        IniError {
            file: self.file.clone(),
            line: self.line,
            message: format!("{}: {}", self.key, message.into()),
        }
    }
}

/// A `[name]` or `[name:parent]` section.
#[derive(Clone, Debug)]
pub struct Section {
    pub name: String,
    pub parent: Option<String>,
    pub file: String,
    pub line: usize,
    pub entries: Vec<Entry>,
}

impl Section {
    pub fn error(&self, message: impl Into<String>) -> IniError {
        IniError {
            file: self.file.clone(),
            line: self.line,
            message: format!("[{}]: {}", self.name, message.into()),
        }
    }
}

/// Parse the text of one ini file. Returns the sections read and every
/// syntax error found (parsing goes on after an error).
pub fn parse(text: &str, file: &str) -> (Vec<Section>, Vec<IniError>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let error = |message: String| IniError {
            file: file.to_string(),
            line,
            message,
        };
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(inner) = rest.strip_suffix(']') else {
                errors.push(error(format!("section header without ']': {trimmed}")));
                continue;
            };
            let (name, parent) = match inner.split_once(':') {
                Some((n, p)) => (n.trim(), Some(p.trim())),
                None => (inner.trim(), None),
            };
            if !valid_name(name) || parent.is_some_and(|p| !valid_name(p)) {
                errors.push(error(format!("bad section name: [{inner}]")));
                continue;
            }
            sections.push(Section {
                name: name.to_string(),
                parent: parent.map(str::to_string),
                file: file.to_string(),
                line,
                entries: Vec::new(),
            });
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            errors.push(error(format!("expected 'key = value', found: {trimmed}")));
            continue;
        };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            errors.push(error(format!("bad key: '{key}'")));
            continue;
        }
        let Some(section) = sections.last_mut() else {
            errors.push(error(format!("'{key}' appears before any [section]")));
            continue;
        };
        section.entries.push(Entry {
            key: key.to_string(),
            value: value.trim().to_string(),
            file: file.to_string(),
            line,
        });
    }
    (sections, errors)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The sections of every loaded file; a later section of the same name
/// replaces an earlier one.
#[derive(Clone, Debug, Default)]
pub struct IniSet {
    sections: HashMap<String, Section>,
    order: Vec<String>,
}

impl IniSet {
    pub fn add(&mut self, sections: Vec<Section>) {
        for s in sections {
            if !self.sections.contains_key(&s.name) {
                self.order.push(s.name.clone());
            }
            self.sections.insert(s.name.clone(), s);
        }
    }

    pub fn get(&self, name: &str) -> Option<&Section> {
        self.sections.get(name)
    }

    /// Section names in the order they were first defined.
    pub fn names(&self) -> &[String] {
        &self.order
    }

    /// The effective entries of a section: its parents' entries first, then
    /// its own (a later entry for the same key wins).
    pub fn resolve(&self, name: &str) -> Result<Vec<Entry>, IniError> {
        let mut chain: Vec<&Section> = Vec::new();
        let mut current = self.sections.get(name).ok_or_else(|| IniError {
            file: "<variants>".into(),
            line: 0,
            message: format!("unknown variant '{name}'"),
        })?;
        loop {
            if chain.iter().any(|s| s.name == current.name) {
                return Err(current.error("inheritance cycle"));
            }
            if chain.len() == MAX_INHERITANCE_DEPTH {
                return Err(chain[0].error(format!(
                    "more than {MAX_INHERITANCE_DEPTH} sections in its line of parents"
                )));
            }
            chain.push(current);
            match &current.parent {
                None => break,
                Some(p) => match self.sections.get(p) {
                    Some(s) => current = s,
                    None => {
                        return Err(current.error(format!("parent variant '{p}' is not defined")));
                    }
                },
            }
        }
        let mut entries = Vec::new();
        for s in chain.iter().rev() {
            entries.extend(s.entries.iter().cloned());
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_inheritance() {
        let text = "# c\n[a]\nx = 1\ny = 2\n\n[b:a]\ny = 3\n";
        let (s, e) = parse(text, "t.ini");
        assert!(e.is_empty());
        let mut set = IniSet::default();
        set.add(s);
        let r = set
            .resolve("b")
            .unwrap_or_else(|e| panic!("resolves: {e:?}"));
        let last_y = r
            .iter()
            .rev()
            .find(|e| e.key == "y")
            .map(|e| e.value.clone());
        assert_eq!(last_y.as_deref(), Some("3"));
        assert!(r.iter().any(|e| e.key == "x" && e.line == 3));
    }

    #[test]
    fn syntax_errors_have_lines() {
        let (_, e) = parse("k = 1\n[a\n[b]\nnovalue\n[c:]\n", "t.ini");
        let lines: Vec<usize> = e.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![1, 2, 4, 5]);
    }

    #[test]
    fn missing_parent_and_cycle() {
        let (s, _) = parse("[a:zz]\n[b:c]\n[c:b]\n", "t.ini");
        let mut set = IniSet::default();
        set.add(s);
        assert_eq!(set.resolve("a").err().map(|e| e.line), Some(1));
        assert!(set.resolve("b").is_err());
        assert!(set.resolve("nope").is_err());
    }
}
