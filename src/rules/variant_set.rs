//! The set of variants read from ini files: the shipped `variants.ini` and
//! those a user loads, compiled on demand. It sits above the board and the
//! move generator because compiling a variant checks its start position.

use crate::rules::board::Position;
use crate::rules::variant::compile::compile;
use crate::rules::variant::ini::{Entry, IniSet, parse};
use crate::rules::variant::{BUILTIN_INI, BUILTIN_INI_NAME, IniError, LoadError, Variant};
use std::sync::Arc;

/// A variant's definition as two lists of entries.
pub struct Definition<'a> {
    /// Every entry it resolves to, its parents' first (a later entry of a
    /// key wins).
    pub all: Vec<Entry>,
    /// Its section's own (the keys that are not inherited are read from
    /// these).
    pub own: &'a [Entry],
}

/// All variants defined by the loaded ini files.
#[derive(Clone, Debug)]
pub struct VariantSet {
    ini: IniSet,
}

impl Default for VariantSet {
    fn default() -> Self {
        Self::builtin()
    }
}

impl VariantSet {
    /// The variants of the shipped `variants.ini`.
    pub fn builtin() -> VariantSet {
        let mut set = VariantSet {
            ini: IniSet::default(),
        };
        let (sections, _errors) = parse(BUILTIN_INI, BUILTIN_INI_NAME);
        set.ini.add(sections);
        set
    }

    /// An empty set (no variants).
    pub fn empty() -> VariantSet {
        VariantSet {
            ini: IniSet::default(),
        }
    }

    /// Load more ini text; its sections replace earlier ones of the same name.
    /// Returns the syntax errors (the good sections are still added) and the
    /// names of the sections read.
    pub fn load_str(&mut self, text: &str, file: &str) -> (Vec<String>, Vec<IniError>) {
        let (sections, errors) = parse(text, file);
        let names = sections.iter().map(|s| s.name.clone()).collect();
        self.ini.add(sections);
        (names, errors)
    }

    /// Load an ini file from disk.
    pub fn load_file(&mut self, path: &str) -> Result<(Vec<String>, Vec<IniError>), IniError> {
        let text = crate::util::textfile::read(path, crate::util::textfile::MAX_INI_BYTES)
            .map_err(|e| IniError {
                file: path.to_string(),
                line: 0,
                message: e.to_string(),
            })?;
        Ok(self.load_str(&text, path))
    }

    /// Load an ini file only when all of it is good: no syntax error, and
    /// every variant of the resulting set compiles and passes `check` (the
    /// evaluation's reading of its parameter file) (a redefined section also
    /// changes the variants that inherit from it). Otherwise the set stays as
    /// it was and every error is returned. Gives the names of the sections
    /// read.
    pub fn load_file_checked(
        &mut self,
        path: &str,
        check: &dyn Fn(&Variant) -> Result<(), Vec<IniError>>,
    ) -> Result<Vec<String>, LoadError> {
        let refused = |errors| LoadError {
            file: path.to_string(),
            errors,
        };
        let mut next = self.clone();
        let (names, mut errors) = next.load_file(path).map_err(|e| refused(vec![e]))?;
        if errors.is_empty() {
            for name in next.names() {
                if let Err(e) = next.compile(name).and_then(|v| check(&v)) {
                    errors.extend(e);
                }
            }
        }
        if !errors.is_empty() {
            return Err(refused(errors));
        }
        *self = next;
        Ok(names)
    }

    /// Names of all defined variants.
    pub fn names(&self) -> &[String] {
        self.ini.names()
    }

    /// A variant's definition (see [`Definition`]); `None` for a name not
    /// defined.
    pub fn definition(&self, name: &str) -> Option<Result<Definition<'_>, IniError>> {
        let section = self.ini.get(name)?;
        Some(self.ini.resolve(name).map(|all| Definition {
            all,
            own: &section.entries,
        }))
    }

    /// Compile a variant, reporting every error found in its definition.
    pub fn compile(&self, name: &str) -> Result<Arc<Variant>, Vec<IniError>> {
        let section = self.ini.get(name).ok_or_else(|| {
            vec![IniError {
                file: "<variants>".into(),
                line: 0,
                message: format!("unknown variant '{name}'"),
            }]
        })?;
        let entries = self.ini.resolve(name).map_err(|e| vec![e])?;
        compile(name, section, &entries, &start_position_error).map(Arc::new)
    }
}

/// Why a compiled variant's start position is not a valid position of it,
/// if it is not.
fn start_position_error(variant: &Variant) -> Option<String> {
    Position::from_fen(Arc::new(variant.clone()), &variant.start_fen)
        .err()
        .map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_variants_compile() {
        let set = VariantSet::builtin();
        for name in ["chess", "combination", "team-mate", "compound"] {
            let v = set
                .compile(name)
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!(v.name, name);
        }
        let c = set
            .compile("combination")
            .unwrap_or_else(|e| panic!("combination: {e:?}"));
        assert_eq!(c.pieces.len(), 16, "6 men and 10 stacks");
        assert!(c.is_stacking());
        assert!(
            set.compile("team-mate")
                .unwrap_or_else(|e| panic!("team-mate: {e:?}"))
                .has_pair_promotion()
        );
        assert_eq!(
            set.compile("compound")
                .unwrap_or_else(|e| panic!("compound: {e:?}"))
                .files,
            10
        );
    }
}
