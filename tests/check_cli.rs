//! `amalgam check`: the shipped file passes; broken copies fail, naming the
//! file and line of each error.

mod common;

use common::{data_dir, run_amalgam};

fn check(files: &[&str]) -> (bool, String) {
    let mut args = vec!["check"];
    args.extend_from_slice(files);
    run_amalgam(&args)
}

#[test]
fn shipped_file_passes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("variants.ini");
    let (ok, text) = check(&[path.to_str().expect("path")]);
    assert!(ok, "{text}");
    for name in ["chess", "combination", "team-mate", "compound"] {
        assert!(text.contains(name), "{text}");
    }
    let (ok, text) = check(&[]);
    assert!(ok, "{text}");
}

/// Broken copies of the shipped file: one defect each, at a known line.
#[test]
fn broken_copies_fail_with_line_numbers() {
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("variants.ini"),
    )
    .expect("read");
    let line_of = |needle: &str| {
        shipped
            .lines()
            .position(|l| l.starts_with(needle))
            .map(|i| i + 1)
            .expect("needle")
    };
    let cases: Vec<(&str, String, usize)> = vec![
        (
            "unknown key",
            shipped.replacen("nMoveRule = 64", "nMoveRules = 64", 1),
            line_of("nMoveRule = 64"),
        ),
        (
            "bad Betza",
            shipped.replacen("customPiece4 = a:WyafsW", "customPiece4 = a:WyafsX", 1),
            line_of("customPiece4 = a:WyafsW"),
        ),
        (
            "bad FEN",
            shipped.replacen(
                "startFen = ufeakmnc/pppppppp/8",
                "startFen = ufeakmnc/ppppppp/8",
                1,
            ),
            line_of("startFen = ufeakmnc"),
        ),
        (
            "parent missing",
            shipped.replacen("[compound:chess]", "[compound:chesss]", 1),
            line_of("[compound:chess]"),
        ),
    ];
    let dir = std::env::temp_dir().join(format!("amalgam-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (what, text, line) in cases {
        assert_ne!(text, shipped, "{what}: the edit did not apply");
        let path = dir.join(format!("{}.ini", what.replace(' ', "_")));
        std::fs::write(&path, &text).expect("write");
        let p = path.to_str().expect("path");
        let (ok, out) = check(&[p]);
        assert!(!ok, "{what}: check passed:\n{out}");
        assert!(
            out.contains(&format!("{p}:{line}:")),
            "{what}: no error at {p}:{line}:\n{out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A child that drops a man its parent values is told which letter is no
/// longer a piece, not that the value is malformed.
#[test]
fn a_value_of_a_man_the_variant_lacks_names_the_letter() {
    let dir = std::env::temp_dir().join(format!("amalgam-check-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("noqueen.ini");
    let text = "[noqueen:chess]\nxboardName = noqueen\nqueen = -\nmatingSoloTypes = pr\n\
                startFen = rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1\n";
    std::fs::write(&path, text).expect("write");
    let (ok, out) = check(&[path.to_str().expect("path")]);
    assert!(!ok, "check passed:\n{out}");
    assert!(
        out.contains("pieceValues: 'q' is not a piece of this variant (in 'q:950')"),
        "{out}"
    );
    assert!(!out.contains("expected letter:centipawns"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_files_fail() {
    let dir = data_dir().join("bad_ini");
    for entry in std::fs::read_dir(&dir).expect("dir").filter_map(|e| e.ok()) {
        let p = entry.path();
        let (ok, out) = check(&[p.to_str().expect("path")]);
        assert!(!ok, "{}: {out}", p.display());
        assert!(out.contains("error(s)"));
    }
}

#[test]
fn missing_file_fails_cleanly() {
    let (ok, out) = check(&["/nonexistent/variants.ini"]);
    assert!(!ok);
    assert!(out.contains("cannot read file"), "{out}");
}
