//! The shipped piece pictures (`pieces/VARIANT/`) are what `amalgam
//! pictures` makes: none missing, none stale, none extra.

mod common;

use common::run_amalgam;
use std::collections::BTreeSet;
use std::path::Path;

fn files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn shipped_pictures_are_the_generated_ones() {
    let root = std::env::temp_dir().join(format!("amalgam-pictures-{}", std::process::id()));
    for variant in ["combination", "team-mate", "compound"] {
        let out = root.join(variant);
        let (ok, text) = run_amalgam(&["pictures", variant, "--out", out.to_str().expect("path")]);
        assert!(ok, "{variant}: {text}");
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("pieces")
            .join(variant);
        let (made, have) = (files(&out), files(&shipped));
        assert_eq!(made, have, "{variant}: regenerate with `amalgam pictures`");
        for name in &made {
            let a = std::fs::read_to_string(out.join(name)).expect("generated");
            let b = std::fs::read_to_string(shipped.join(name)).expect("shipped");
            assert_eq!(a, b, "{variant}/{name} is stale");
            assert!(
                a.contains("<svg") && a.trim_end().ends_with("</svg>"),
                "{name}"
            );
        }
    }
    // A variant the GUI draws itself has none, and says so.
    let (ok, _) = run_amalgam(&["pictures", "chess", "--out", root.to_str().expect("path")]);
    assert!(!ok);
    let _ = std::fs::remove_dir_all(&root);
}
